/*
 * cuda_probe.c: skip_probe_starts(), what another kernel's start costs each task's kernel
 * while it runs, and how long two copies of it take side by side (its memory demand to skip
 * advise) (skip_runtime.h says how they are measured; docs/skip-run.md "--probe-starts").
 *
 * On the H100 each kernel start costs a running kernel that reuses data through its L1 cache
 * about 1 us, wherever it starts (bench/apps/neighbours, docs/BENCHMARKS.md "skip advise: kernel
 * starts beside a running kernel"); a trace cannot show which kernels do, so skip advise reads
 * it from this probe.
 */
#define SK_LOG_DOMAIN "runtime"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_internal.h"
#include "persist.h"

#define SPIN_FIRST_NS 3000LL /* the root beside the task */
#define SPIN_NEXT_NS  2000LL /* each start of the chain */
#define PER_START_NS  3000.0 /* a chain link's time, with the graph's gap */

static int add_kernel(cudaGraph_t graph, CUfunction fn, const unsigned grid[3],
		      const unsigned block[3], unsigned shared, void **params,
		      const cudaGraphNode_t *dep, cudaGraphNode_t *node)
{
	CUDA_KERNEL_NODE_PARAMS kp;
	CUresult r;

	memset(&kp, 0, sizeof(kp));
	kp.func = fn;
	kp.gridDimX = grid[0];
	kp.gridDimY = grid[1];
	kp.gridDimZ = grid[2];
	kp.blockDimX = block[0];
	kp.blockDimY = block[1];
	kp.blockDimZ = block[2];
	kp.sharedMemBytes = shared;
	kp.kernelParams = params;
	r = sk_drv.graph_add_kernel_node((CUgraphNode *)node, (CUgraph)graph,
					 (const CUgraphNode *)dep, dep ? 1 : 0, &kp);
	return r == CUDA_SUCCESS ? 0 : sk_cu_fail(r, "probe graph node");
}

/* Task @t beside a 3 us spin followed by @n 2 us spins, instantiated into *@out. */
static int build(struct skip_graph *g, const struct sk_task *t, int n, cudaGraphExec_t *out)
{
	static const unsigned one[3] = {1, 1, 1}, warp[3] = {32, 1, 1};
	long long first = SPIN_FIRST_NS, next = SPIN_NEXT_NS;
	void *pfirst[] = {&first}, *pnext[] = {&next};
	cudaGraph_t graph;
	cudaGraphNode_t task, prev;
	cudaError_t e;
	int err;

	*out = NULL;
	if ((e = cudaGraphCreate(&graph, 0)) != cudaSuccess)
		return sk_cuda_fail(e, "cudaGraphCreate");
	err = add_kernel(graph, (CUfunction)t->fn, t->grid, t->block, t->shared_bytes, t->params,
			 NULL, &task);
	if (!err)
		err = add_kernel(graph, g->cuda->fn[SK_BUILTIN_SPIN], one, warp, 0, pfirst, NULL,
				 &prev);
	for (int i = 0; !err && i < n; i++)
		err = add_kernel(graph, g->cuda->fn[SK_BUILTIN_SPIN], one, warp, 0, pnext, &prev,
				 &prev);
	if (!err && (e = cudaGraphInstantiate(out, graph, 0)) != cudaSuccess)
		err = sk_cuda_fail(e, "instantiating the probe graph of task '%s'", t->name);
	cudaGraphDestroy(graph);
	return err;
}

/* @copies copies of task @t side by side (no edge between them), the second with the
 * arguments @twin (NULL: @t's), or with @t NULL of an empty spin kernel (what launching such a
 * graph costs), instantiated into *@out. */
static int build_copies(struct skip_graph *g, const struct sk_task *t, int copies, void **twin,
			cudaGraphExec_t *out)
{
	static const unsigned one[3] = {1, 1, 1}, warp[3] = {32, 1, 1};
	long long zero = 0;
	void *pzero[] = {&zero};
	cudaGraph_t graph;
	cudaGraphNode_t node;
	cudaError_t e;
	int err = 0;

	*out = NULL;
	if ((e = cudaGraphCreate(&graph, 0)) != cudaSuccess)
		return sk_cuda_fail(e, "cudaGraphCreate");
	for (int i = 0; !err && i < copies; i++)
		err = t ? add_kernel(graph, (CUfunction)t->fn, t->grid, t->block, t->shared_bytes,
				     i && twin ? twin : t->params, NULL, &node)
			: add_kernel(graph, g->cuda->fn[SK_BUILTIN_SPIN], one, warp, 0, pzero, NULL,
				     &node);
	if (!err && (e = cudaGraphInstantiate(out, graph, 0)) != cudaSuccess)
		err = sk_cuda_fail(e, "instantiating the pair graph of task '%s'",
				   t ? t->name : "(empty)");
	cudaGraphDestroy(graph);
	return err;
}

/* Free the buffer copies of make_twin(). */
static void free_twin(struct skip_graph *g, void **copy)
{
	for (int b = 0; b < g->nbufs; b++)
		if (copy[b])
			cudaFree(copy[b]);
}

/*
 * The second copy's data: each buffer task @t is given, copied (its contents, since a kernel's
 * work may follow them), so that the two copies share no data, as two different tasks running
 * at once do not; copies that read one buffer would find half their reads in L2 (HITS large's
 * sparse products ran side by side at 1.14 of one alone, and at 2 as its two branches).
 * @twin[i] points at argument i's value, in @vals (nargs pointers); @copy[b] is buffer b's
 * copy ([nbufs], NULL: none), freed by free_twin(). Returns 0, or -1 where a copy could not be
 * made (nothing left allocated; the caller then shares the data).
 */
static int make_twin(struct skip_graph *g, const struct sk_task *t, void **copy, char **vals,
		     void **twin)
{
	for (int i = 0; i < t->nargs; i++) {
		const struct sk_arg *a = &t->args[i];
		const struct sk_buffer *b;

		twin[i] = t->params[i];
		if (a->kind != SKIP_ARG_BUFFER)
			continue;
		b = &g->bufs[a->buffer];
		if (!copy[a->buffer] && (cudaMalloc(&copy[a->buffer], b->size) != cudaSuccess ||
					 cudaMemcpy(copy[a->buffer], b->dptr, b->size,
						    cudaMemcpyDeviceToDevice) != cudaSuccess)) {
			cudaGetLastError(); /* not sticky: clear it */
			sk_dbg(1,
			       "probe: task '%s': no copy of buffer '%s' (%zu bytes): its two "
			       "copies share their data",
			       t->name, b->name, b->size);
			free_twin(g, copy);
			return -1;
		}
		vals[i] = (char *)copy[a->buffer] + a->offset;
		twin[i] = &vals[i];
	}
	return 0;
}

/* The @k graphs of @ge launched in turn on @s, @reps times after one untimed round, each timed
 * by events around its launch: their medians in @med. */
static int time_graphs(cudaStream_t s, cudaGraphExec_t *ge, int k, int reps, double *med)
{
	double *v = calloc((size_t)k * (size_t)reps + 1, sizeof(double));
	cudaEvent_t a = NULL, z = NULL;
	cudaError_t e = cudaEventCreate(&a);
	int err = 0;

	if (!v)
		return sk_fail(SKIP_E_NOMEM, "out of memory");
	if (e == cudaSuccess)
		e = cudaEventCreate(&z);
	for (int r = -1; e == cudaSuccess && r < reps; r++) /* r = -1 warms up */
		for (int i = 0; e == cudaSuccess && i < k; i++) {
			float ms = 0;

			if ((e = cudaEventRecord(a, s)) == cudaSuccess &&
			    (e = cudaGraphLaunch(ge[i], s)) == cudaSuccess &&
			    (e = cudaEventRecord(z, s)) == cudaSuccess &&
			    (e = cudaEventSynchronize(z)) == cudaSuccess &&
			    (e = cudaEventElapsedTime(&ms, a, z)) == cudaSuccess && r >= 0)
				v[(size_t)i * (size_t)reps + (size_t)r] = ms * 1e6;
		}
	if (e != cudaSuccess)
		err = sk_cuda_fail(e, "timing the probe graphs");
	for (int i = 0; !err && i < k; i++)
		med[i] = skip_median(v + (size_t)i * (size_t)reps, (size_t)reps);
	if (a)
		cudaEventDestroy(a);
	if (z)
		cudaEventDestroy(z);
	free(v);
	return err;
}

/* The task's kernel alone on @s: the median of 5 launches timed by events around them after
 * one untimed, less the same for an empty kernel (what the events and the launch add). */
static int task_duration(struct skip_graph *g, const struct sk_task *t, cudaStream_t s, double *ns)
{
	static const unsigned one[3] = {1, 1, 1}, warp[3] = {32, 1, 1};
	struct sk_task empty = {.name = "(empty)"};
	long long zero = 0;
	void *pzero[] = {&zero};
	cudaEvent_t a = NULL, z = NULL;
	double v[2][5];
	cudaError_t e = cudaEventCreate(&a);
	int err = 0;

	empty.fn = g->cuda->fn[SK_BUILTIN_SPIN];
	memcpy(empty.grid, one, sizeof(one));
	memcpy(empty.block, warp, sizeof(warp));
	empty.params = pzero;
	if (e == cudaSuccess)
		e = cudaEventCreate(&z);
	for (int i = -1; !err && e == cudaSuccess && i < 5; i++)
		for (int k = 0; !err && e == cudaSuccess && k < 2; k++) {
			float ms = 0;

			if ((e = cudaEventRecord(a, s)) != cudaSuccess)
				break;
			if ((err = sk_cuda_launch(k ? &empty : t, s, 0)))
				break;
			if ((e = cudaEventRecord(z, s)) == cudaSuccess &&
			    (e = cudaEventSynchronize(z)) == cudaSuccess &&
			    (e = cudaEventElapsedTime(&ms, a, z)) == cudaSuccess && i >= 0)
				v[k][i] = ms * 1e6;
		}
	if (!err && e != cudaSuccess)
		err = sk_cuda_fail(e, "timing task '%s'", t->name);
	if (!err)
		*ns = skip_median(v[0], 5) - skip_median(v[1], 5);
	if (a)
		cudaEventDestroy(a);
	if (z)
		cudaEventDestroy(z);
	return err;
}

/* @p->alone_ns and pair_ns of task @t (skip_runtime.h): graphs of one and two empty kernels
 * and of one and two copies of the task (the second on copies of its buffers: make_twin()),
 * timed in turn, at most @reps times and about PAIR_BUDGET_NS each; each of the task's less
 * the empty one's of as many nodes (what the launch and the second node's dispatch add). */
#define PAIR_BUDGET_NS 100e6
static int pair(struct skip_graph *g, const struct sk_task *t, cudaStream_t s, int reps,
		struct skip_start_probe *p)
{
	cudaGraphExec_t ge[4] = {NULL, NULL, NULL, NULL};
	void **copy = calloc((size_t)g->nbufs + 1, sizeof(void *));
	void **twin = calloc((size_t)t->nargs + 1, sizeof(void *));
	char **vals = calloc((size_t)t->nargs + 1, sizeof(char *));
	double med[4];
	int err = 0, own, n = p->duration_ns > 0 ? (int)(PAIR_BUDGET_NS / p->duration_ns) : reps;

	if (!copy || !twin || !vals) {
		free(copy);
		free(twin);
		free(vals);
		return sk_fail(SKIP_E_NOMEM, "out of memory");
	}
	own = make_twin(g, t, copy, vals, twin) == 0;
	n = n < 5 ? 5 : n > reps ? reps : n;
	for (int k = 0; !err && k < 4; k++) /* empty, task, 2 empty, 2 tasks */
		err = build_copies(g, k % 2 ? t : NULL, 1 + k / 2, own ? twin : NULL, &ge[k]);
	if (!err)
		err = time_graphs(s, ge, 4, n, med);
	for (int k = 0; k < 4; k++)
		if (ge[k])
			cudaGraphExecDestroy(ge[k]);
	if (own)
		free_twin(g, copy);
	free(copy);
	free(twin);
	free(vals);
	if (!err && med[1] > med[0]) {
		p->alone_ns = med[1] - med[0];
		p->pair_ns = med[3] > med[2] ? med[3] - med[2] : 0;
	}
	return err;
}

/* @g's tasks one after another under E5 AOT, as E5 would run them (its default workers), each
 * alone: a chain in the graph's topological order, so that the worker's tiles of a task are timed
 * without any other task beside them. @reps iterations (fewer for a long graph: about
 * WORKER_BUDGET_NS); per task, the median of its tiles' longest span on one worker into worker_ns,
 * for tasks whose tiles keep SMs of their own (a task with more tiles than SMs on more workers than
 * SMs shares SMs, which skip advise models itself: not timed). A graph E5 cannot run (no worker in
 * its module, a grid too large): nothing timed, a debug message. */
#define WORKER_BUDGET_NS 200e6
static int worker_times(struct skip_graph *g, int reps, double serial_ns,
			struct skip_start_probe *out)
{
	struct sk_persist_opts o = SK_PERSIST_OPTS_DEFAULT;
	struct sk_persist_task *tasks = calloc((size_t)g->ntasks + 1, sizeof(*tasks));
	struct sk_persist_edge *edges = calloc((size_t)g->ntasks + 1, sizeof(*edges));
	int nthreads = 0, sms = 0, fit, err = 0, got = 0;
	struct sk_persist_dag dag = {g->ntasks, tasks, 0, edges};
	struct sk_persist_plan *plan = NULL;
	struct sk_cuda_persist *ps = NULL;
	struct skip_tile_time *tt = NULL;
	uint64_t *lo = NULL, *hi = NULL;
	double *v = NULL;
	cudaStream_t s = NULL;
	cudaError_t e;
	unsigned smem = 0;
	int n = serial_ns > 0 ? (int)(WORKER_BUDGET_NS / serial_ns) : reps;

	if (!tasks || !edges) {
		err = sk_fail(SKIP_E_NOMEM, "out of memory");
		goto out;
	}
	if ((fit = sk_cuda_persist_fit(g, SK_PERSIST_AOT, &nthreads, &smem, &sms)) < 0) {
		sk_dbg(1, "probe: no worker times: %s", skip_errmsg());
		goto out;
	}
	n = n < 5 ? 5 : n > reps ? reps : n;
	for (int i = 0; i < g->ntasks; i++) {
		tasks[i].ntiles = (int)g->tasks[i].grid[0];
		tasks[i].tile_us = 1;
	}
	for (int i = 1; i < g->ntasks; i++) /* the graph's topological order */
		edges[dag.nedges++] = (struct sk_persist_edge){g->topo[i - 1], g->topo[i], 0, 0};
	o.nworkers = skip_persist_workers(g, sms, fit);
	o.flags = SK_PERSIST_TILE_TIMES;
	if (o.nworkers < 1) {
		err = o.nworkers;
		goto out;
	}
	if (!(plan = sk_persist_plan_new(&dag, &o, &err)) ||
	    !(ps = sk_cuda_persist_new(g, plan, &err))) {
		sk_dbg(1, "probe: no worker times: %s", skip_errmsg());
		err = err == SKIP_E_NOMEM ? err : 0; /* E5 cannot run it: not timed */
		goto out;
	}
	tt = calloc((size_t)plan->total_tiles + 1, sizeof(*tt));
	lo = calloc((size_t)o.nworkers + 1, sizeof(*lo));
	hi = calloc((size_t)o.nworkers + 1, sizeof(*hi));
	v = calloc((size_t)g->ntasks * (size_t)n + 1, sizeof(double));
	if (!tt || !lo || !hi || !v) {
		err = sk_fail(SKIP_E_NOMEM, "out of memory");
		goto out;
	}
	if ((e = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)) != cudaSuccess) {
		err = sk_cuda_fail(e, "probe: a stream");
		goto out;
	}
	for (int r = -1; !err && r < n; r++) { /* r = -1 warms up */
		if ((err = sk_cuda_persist_launch(ps, s, 1)) || (err = sk_cuda_persist_wait(ps, s)))
			break;
		/* only runs whose whole timeline was read count */
		if (r >= 0 &&
		    sk_cuda_persist_tiles(ps, tt, plan->total_tiles) == plan->total_tiles) {
			for (int t = 0; t < g->ntasks; t++)
				v[(size_t)t * (size_t)n + (size_t)got] =
				    sk_persist_worker_span(plan, tt, t, lo, hi);
			got++;
		}
	}
	for (int t = 0; !err && got && t < g->ntasks; t++) {
		int tiles = plan->ntiles[t] < o.nworkers ? plan->ntiles[t] : o.nworkers;

		if (tiles <= sms || o.nworkers <= sms)
			out[t].worker_ns = skip_median(v + (size_t)t * (size_t)n, (size_t)got);
	}
out:
	if (ps)
		sk_cuda_persist_free(ps); /* parks the resident kernel */
	if (s)
		cudaStreamDestroy(s);
	sk_persist_plan_free(plan);
	free(tasks);
	free(edges);
	free(tt);
	free(lo);
	free(hi);
	free(v);
	return err;
}

int skip_probe_starts(struct skip_graph *g, int starts, int reps, struct skip_start_probe *out)
{
	cudaStream_t s = NULL;
	cudaError_t e;
	double serial_ns = 0;
	int err = 0, sms = 0;

	if (!g || !g->cuda || !out || starts < 1 || reps < 1)
		return sk_fail(SKIP_E_INVAL, "probe: load the graph first (starts and reps >= 1)");
	cudaSetDevice(g->cuda->device);
	if ((e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, g->cuda->device)) !=
		cudaSuccess ||
	    (e = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)) != cudaSuccess)
		return sk_cuda_fail(e, "probe: a stream");
	for (int v = 0; !err && v < g->ntasks; v++) {
		const struct sk_task *t = &g->tasks[v];
		struct skip_start_probe *p = &out[v];
		double blocks = (double)t->grid[0] * t->grid[1] * t->grid[2], med[2];
		cudaGraphExec_t ge[2] = {NULL, NULL};

		memset(p, 0, sizeof(*p));
		if ((err = task_duration(g, t, s, &p->duration_ns)))
			break;
		if (2 * blocks <= sms && (err = pair(g, t, s, reps, p)))
			break;
		p->starts = (int)((p->duration_ns - 5000) / PER_START_NS);
		if (p->starts > starts)
			p->starts = starts;
		if (p->starts < 1 || blocks >= sms) {
			p->starts = 0;
			continue;
		}
		err = build(g, t, 0, &ge[0]);
		if (!err)
			err = build(g, t, p->starts, &ge[1]);
		if (!err)
			err = time_graphs(s, ge, 2, reps, med);
		for (int i = 0; i < 2; i++)
			if (ge[i])
				cudaGraphExecDestroy(ge[i]);
		if (err)
			break;
		p->base_ns = med[0];
		p->with_ns = med[1];
		p->cost_ns = med[1] > med[0] ? (med[1] - med[0]) / p->starts : 0;
		if (med[1] - med[0] > 0.8 * p->starts * PER_START_NS) { /* the chain came after */
			p->starts = 0;
			p->cost_ns = 0;
		}
	}
	cudaStreamSynchronize(s);
	cudaStreamDestroy(s);
	for (int v = 0; !err && v < g->ntasks; v++)
		serial_ns += out[v].duration_ns > 0 ? out[v].duration_ns : 0;
	return err ? err : worker_times(g, reps, serial_ns, out);
}
