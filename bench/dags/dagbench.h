/*
 * dagbench.h: shared by the DAG-suite driver (dagbench.cu) and the hand-written multi-stream
 * references (hand/*.cu). A reference is what a CUDA programmer would write for the DAG by
 * hand: the same kernels (compiled into the driver from kernels/*.cu), the same launch shapes
 * and buffers as the workload file, and streams and events placed by hand. It only enqueues;
 * the driver times from the first launch to the end of all streams, as for the executors.
 */
#ifndef SKIP_DAGBENCH_H
#define SKIP_DAGBENCH_H

#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "../check.h"

extern "C" {
#include "skip_runtime.h"
}

#define HAND_STREAMS 16
#define HAND_EVENTS  64

struct hand {
	struct skip_workload *w;
	struct skip_graph *g;
	cudaStream_t s[HAND_STREAMS];
	cudaEvent_t e[HAND_EVENTS]; /* created with cudaEventDisableTiming */
};

/* Device address of the workload's buffer @name (exits if there is none). */
static inline void *hbuf(struct hand *h, const char *name)
{
	int id = skip_graph_find_buffer(h->g, name);

	if (id < 0) {
		fprintf(stderr, "hand reference: no buffer '%s' in the workload\n", name);
		exit(1);
	}
	return skip_graph_buffer_ptr(h->g, id);
}

#define HF(h, name) ((float *)hbuf(h, name))

static inline long hparam(struct hand *h, const char *name)
{
	return (long)skip_workload_param(h->w, name, -1);
}

/* s waits for what has been enqueued on t so far, through event @ev. */
static inline void join(struct hand *h, int s, int t, int ev)
{
	CHECK(cudaEventRecord(h->e[ev], h->s[t]));
	CHECK(cudaStreamWaitEvent(h->s[s], h->e[ev], 0));
}

struct hand_dag {
	const char *name;	     /* the workload's name */
	void (*run)(struct hand *h); /* enqueue one iteration */
	int nstreams;		     /* streams it uses */
};

extern const struct hand_dag hand_vec, hand_bs, hand_ml, hand_hits, hand_img, hand_dl, hand_m1,
    hand_m2;

/* chain.cu: the dependent chain of empty kernels, from @modules/chain.fatbin. */
int chain_bench(int n, int runs, FILE *json, const char *modules);

#endif
