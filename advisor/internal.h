/*
 * internal.h: shared by the advisor's .c files only.
 *
 * The what-if model (whatif.c) is a discrete-event replay of a "program": host calls on
 * threads (each after a measured gap, taking a measured time; a synchronization waits for the
 * GPU operations it waited for in the recording) and GPU operations (a measured duration, on a
 * stream in order, after their submitting call plus a latency, after their dependencies, when
 * enough multiprocessors are free). model.c builds the program of an excerpt of a recorded
 * timeline, as recorded or transformed (a CUDA graph, a chain fused); workload.c builds the
 * programs of the runtime's executors for a workload run; advise.c chooses what to model and
 * turns the predictions into advice.
 *
 * The files depend on each other one way only, in this order (each uses only those above it;
 * this header declares their shared helpers in the same order):
 *   whatif.c    the simulator                           uses nothing of the advisor
 *   syncs.c     a timeline's host synchronizations      uses nothing of the advisor
 *   report.c    the report's items, and freeing it      uses nothing of the advisor
 *   model.c     the calibration and latencies, an excerpt's program: whatif.c, syncs.c
 *   fusion.c    the PS chains: syncs.c
 *   workload.c  the executors' models: whatif.c, syncs.c, model.c, report.c
 *   advise.c    skip_advise(), skip_predict_graph(): model.c, fusion.c, workload.c, report.c
 *   json.c, sweep.c: the public API only (skip_advisor.h).
 */
#ifndef SKIP_ADVISOR_INTERNAL_H
#define SKIP_ADVISOR_INTERNAL_H

#include <stdint.h>

#include "skip_advisor.h"

/*
 * Times and costs in the models are int64_t ns. The timeline's come from well-formed records
 * (each in [0, SKIP_TIME_MAX), so a difference of two cannot overflow) and the calibration's
 * are checked against their ranges (skip_calibration_check()); what the models add up
 * saturates (skip_add_sat()), and a double becomes ns only through sk_ns().
 */
/* @ns as whole ns, clamped to [0, SKIP_TIME_MAX] (NaN: 0): a conversion that is never
 * undefined, whatever the double. */
static inline int64_t sk_ns(double ns)
{
	return ns >= (double)SKIP_TIME_MAX ? SKIP_TIME_MAX : ns > 0 ? (int64_t)ns : 0;
}

/* ---- whatif.c: the program and its replay ---------------------------------------------------- */

/* Data an operation reads that an earlier operation of the program wrote. */
struct wi_src {
	int op;	      /* the writer */
	double bytes; /* read from what it wrote */
};

struct wi_op {
	int64_t dur; /* on the GPU */
	int stream;  /* 0 .. nstreams-1; operations of a stream run in index order */
	int sms;     /* multiprocessors it needs (0: a copy engine) */
	int call;    /* the host call that submits it, or -1: submitted at submit_at */
	int64_t submit_at;
	int64_t lat; /* from submission to the earliest start */
	int64_t gap; /* after the end of its stream predecessor or of a dependency */
	int *deps;   /* operations that must have ended (besides the stream order) */
	int ndeps;
	int graph_node;	    /* a node of a CUDA graph: it starts at least the program's dispatch_gap
			       after the previous graph node started (the GPU dispatches them in
			       turn, whichever is ready) */
	int64_t join_extra; /* added to the gap after every dependency (a graph node joining
			       branches of different roots) */
	/* Placement (programs with a remote_cost or a share_rate): a kernel's blocks go one per
	 * multiprocessor onto the least loaded ones, lowest first; data it reads that a kernel
	 * of another placement or grid wrote costs more (the wi_prog's remote_cost), and so does
	 * a multiprocessor shared with an older kernel (its share_rate). dur is its duration
	 * with serial_remote of read_bytes so placed (the recording's). */
	int blocks;	     /* its grid's blocks; 0: no placement (a copy) */
	struct wi_src *srcs; /* owned */
	int nsrcs;
	double read_bytes;    /* all it reads, with or without a writer in the program */
	double serial_remote; /* bytes of srcs whose writer's grid differs from its own */
	int64_t start_cost;   /* a kernel: what each other kernel's start costs it while it runs
				 (its L1 refilled, docs/advise-model.md "Kernel starts"), at most
				 the time since the previous such start or its own; 0: nothing */
	double demand;	      /* a kernel: its memory demand, 0..1 (skip_memory_demand()): while
				 the running kernels' demands add up to more than 1, it progresses
				 at skip_memory_pace() of them; 0: never slowed so */
	int first_sm;	      /* out: the multiprocessor its first block was placed on */
	int64_t start, end;   /* out */
};

struct wi_call {
	int thread;
	int64_t gap; /* host time after the thread's previous call (before the first: after
			the program's t0) */
	int64_t dur; /* the call's own time (a sync: at least this) */
	int *waits;  /* a synchronization: the operations it waits for */
	int nwaits;
	int is_sync;
	int64_t ret;	    /* a synchronization: return latency after the last of them ends */
	int64_t start, end; /* out */
};

struct wi_prog {
	struct wi_op *ops;
	int nops;
	size_t capops;
	struct wi_call *calls;
	int ncalls;
	size_t capcalls;
	int nstreams;
	int nthreads;
	int sms;	      /* multiprocessors of the GPU */
	int64_t dispatch_gap; /* between the starts of two graph nodes */
	double remote_cost;   /* a kernel's time grows by this fraction for all its reads coming
				 from kernels of another placement */
	double share_rate;    /* 0 < rate < 1: a block placed on a multiprocessor where an older
				 kernel's block runs progresses at this rate until that ends
				 (0 or 1: no cost). Kernels are placed when either is set. */
	int64_t t0;
	int64_t host_end; /* out: the last host call's end */
};

/* Append an operation / a call; return its index. The arrays grow; pointers into them are
 * invalidated. */
int wi_add_op(struct wi_prog *p, const struct wi_op *op);
int wi_add_call(struct wi_prog *p, const struct wi_call *c);
/* Run the model. Negative costs (gaps, durations, latencies) count as 0: a thread's calls
 * follow one another, and nothing takes less than no time; times saturate at INT64_MAX.
 * Returns the IL (last operation end - t0), or -1 when the program cannot finish (a
 * synchronization waiting for an operation that is never submitted). @p->t0 must be >= 0. */
int64_t wi_simulate(struct wi_prog *p);
void wi_free(struct wi_prog *p);

/* ---- syncs.c: a timeline's host synchronizations --------------------------------------------- */

/* The index of the first synchronization of @tl that starts at or after @t. */
size_t sk_sync_from(const struct skip_timeline *tl, int64_t t);
/* Did a host synchronization of a's process end between the launches of a and b? */
int sk_sync_between(const struct skip_timeline *tl, const struct skip_op *a,
		    const struct skip_op *b);

/* ---- report.c: the report's items ------------------------------------------------------------ */

/* A new item of @r, zeroed but for chain = -1; pointers into r->items are invalidated. */
struct skip_advice *sk_item_push(struct skip_advice_report *r);
/* Its ILs without and with the change, and what the change saves over all its regions. */
void sk_item_set(struct skip_advice *a, double base, double pred, double total_saved);
/* The rank of an item: its median saved time a region times its regions, so that one slow
 * occurrence (a warm-up, a compile) does not decide it as it would the sum. */
double sk_item_rank(const struct skip_advice *a);

/* ---- model.c: the calibration, a recording's latencies, an excerpt's program ----------------- */

/* The fallback rule (skip_advisor.h): a calibration member is measured when it is not 0
 * (members are never negative: skip_calibration_check()); one that is not gives way to the
 * recording's figure for the same cost, or to no cost. */
static inline int sk_measured(double member)
{
	return member > 0;
}

/* The latencies of a recording (the fallback rule's first source), the calibration's where it
 * shows none. */
struct sk_lat {
	int64_t launch;		 /* launch return to start, the stream idle */
	int64_t stream_gap;	 /* back-to-back kernels of a stream */
	int64_t node_gap;	 /* dependent nodes of a graph */
	int64_t graph_first;	 /* graph launch return to its first node */
	int64_t sync_ret;	 /* the GPU's last end to a synchronize's return */
	int64_t profiler_launch; /* the profiler's cost per runtime launch call in this recording,
				    estimated against launch_bare_ns; -1: none (the calibration's
				    profiler_launch_ns applies) */
	double calls_per_launch; /* API calls recorded per launch call (>= 1): the launch itself
				    and the calls that are neither launches nor synchronizations */
};
void sk_calibrate(const struct skip_timeline *tl, const struct skip_calibration *cal,
		  struct sk_lat *l);
/* The profiler's cost per launch call, a driver one (@driver) or a runtime one, in the
 * recording @l was read off: the recording's own estimate (its launch loop), else the
 * calibration's cost of one recorded call times the calls recorded per launch. */
double sk_profiler_cost(const struct sk_lat *l, const struct skip_calibration *cal, int driver);

/* An excerpt of a recorded timeline, modelled as one (what docs/advise-model.md calls a region:
 * an occurrence of an NVTX range, the whole run, a graph candidate's occurrence): its
 * operations (indices, launch order) and its window. Not the analyzer's struct skip_region (a
 * run or an NVTX range's occurrence with its metrics) nor its struct skip_window (where an
 * occurrence lies). */
struct sk_excerpt {
	const struct skip_timeline *tl; /* its run's (borrowed) */
	const struct sk_lat *lat;	/* that run's latencies (borrowed); NULL: the context's */
	uint32_t *idx;
	size_t n;
	int64_t t0, end; /* the start and the last operation's end */
};
/* The recorded IL: to the last operation's end or the return of the last synchronization of a
 * thread of the excerpt that began before that end, whichever is later. */
int64_t sk_excerpt_il(const struct skip_timeline *tl, const struct sk_excerpt *e);

enum sk_xform_kind { SK_X_NONE, SK_X_GRAPH, SK_X_FUSE, SK_X_PERSIST };
struct sk_xform {
	enum sk_xform_kind kind;
	const int32_t *chain; /* SK_X_FUSE: kernel identities (demangled-name ids) */
	int len;
	int mode; /* SK_X_PERSIST: enum skip_persist_mode */
};

/* The model's IL of the excerpt, transformed by @x (NULL: as recorded): to the last GPU end or
 * the last host call's return, whichever is later; -1 if it cannot run.
 * *@host_end (may be NULL) gets the end of its last host call, relative to e->t0. */
int64_t sk_model_excerpt(const struct skip_timeline *tl, const struct sk_excerpt *e,
			 const struct sk_lat *l, const struct skip_calibration *cal, int profiled,
			 const struct sk_xform *x, int64_t *host_end);
/* Multiprocessors a kernel's grid occupies at once (1..sms); 0 for a copy. */
int sk_sm_need(const struct skip_op *op, int sms);

/* ---- fusion.c: PS chains --------------------------------------------------------------------- */

/* PS chains over the kernels of the @ntl timelines @tls, a run's and its pooled repetitions'
 * (in trace order per stream of each, split where a host synchronization came between two
 * launches); names are strings of @t. *out is the caller's (skip_advice_free). */
size_t sk_find_chains(const struct skip_trace *t, const struct skip_timeline *const *tls,
		      size_t ntl, int min_len, int max_len, double min_ps, struct skip_chain **out);
/* Whether chains @a and @b could be windows of one kernel sequence that share two kernels or
 * more: placed at some offset, they agree wherever both have a kernel, on at least two (one
 * holds the other, or the end of one is the start of the other). Fusing one then leaves the
 * other's shared kernels no longer to fuse: their savings do not add. */
int sk_chains_overlap(const struct skip_chain *a, const struct skip_chain *b);

/* ---- workload.c: the executors' models ------------------------------------------------------- */

/* One skip_advise() call. */
struct sk_ctx {
	struct skip_trace *t;
	const struct skip_timeline *tl;
	struct skip_advise_opts o; /* defaults filled in */
	struct sk_lat lat;
	double unprofiled_ns; /* the region's median wall interval in the baseline runs, the
				 unprofiled time the items start from; 0: the model's estimate */
};

/* The executors' models of a `skip run WORKLOAD --executor serial` recording. Sets the
 * report's calibration figures and adds the STREAMS and DAGGRAPH items with their plans. */
int sk_workload_advise(struct sk_ctx *c, struct skip_advice_report *r);

/*
 * The plan -o writes: the item with a plan and the highest speedup, except that a persistent
 * plan (E5) is taken only when its speedup exceeds the best other plan's by more than @margin
 * (a fraction; SK_PERSIST_PLAN_MARGIN): E5's model is within 10% on the DAG suite, but the
 * graph model over-predicts M1 and M2 large by 16-21%, so that E5 is predicted 20-26% faster
 * than E3 there where it measured 0.8% slower (docs/BENCHMARKS.md "the persistent item against
 * E5"). Returns the item's index, -1 for none;
 * *@note (the caller frees) says why a faster persistent item was not taken, else NULL.
 */
#define SK_PERSIST_PLAN_MARGIN 0.30
int sk_pick_plan(const struct skip_advice *items, size_t n, double margin, char **note);

/* A memset smaller than this (bytes) costs a graph graph_memset_gap_ns beyond its node gap: on
 * the H100, recorded, a 64-byte or 4 KiB memset node left 1.3 us before it and 1.6 us after it,
 * one of 16 KiB to 512 KiB 0.1 us, as a kernel node does (docs/advise-model.md). */
#define SK_SMALL_MEMSET 16384

/* For tests/unit/advisor/test_workload_models.c: the model of one iteration of a plan, built
 * from what its executor submits (skip_plan_launches()), every kernel taking the same time and
 * the calibration's defaults otherwise. */
struct skip_graph;
struct skip_plan;
struct skip_step;
struct sk_model_view {
	struct wi_prog prog;	 /* the program */
	struct skip_step *calls; /* [prog.ncalls] the executor's step each host call models */
	int *op_task;		 /* [prog.nops] the task each operation is the kernel of */
};
/* 0 and *@v (free with sk_model_view_fini()), or a negative code: SKIP_E_UNSUPPORTED when the
 * model does not follow the plan's executor, with the reason in skip_errmsg(). */
int sk_model_view(const struct skip_graph *g, const struct skip_plan *plan, double dur_ns,
		  struct sk_model_view *v);
void sk_model_view_fini(struct sk_model_view *v);

#endif /* SKIP_ADVISOR_INTERNAL_H */
