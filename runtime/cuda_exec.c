/*
 * exec.c: the four executors on a loaded graph.
 *   E1 serial   every task on one stream in the plan's (topological) order; with pdl, a task
 *               whose predecessor in the stream also allows it is launched with programmatic
 *               stream serialization.
 *   E2 streams  tasks in the plan's order on their assigned streams; before a task, its
 *               stream waits for the events of the plan's cross-stream waits; after a task
 *               that some other task waits for, its event is recorded.
 *   E3 graph    one CUDA graph built with the explicit API (a kernel node per task, an edge
 *               per reduced dependency; programmatic edges where the plan asks for PDL and
 *               both tasks allow it), instantiated once, launched per run.
 *   E4 window   window.c with one worker thread per stream; a worker launches its task and
 *               synchronizes its stream before taking the next (ACS-SW).
 * Each run ends with the host waiting for all the work; runs do not overlap.
 */
#define SK_LOG_DOMAIN "runtime"
#include <stdlib.h>
#include <string.h>

#include "cuda_internal.h"

struct skip_exec {
	struct skip_graph *g;
	struct skip_plan p;    /* copy of the plan (arrays owned) */
	cudaStream_t *streams; /* [nstreams] */
	int nstreams;
	cudaEvent_t *events; /* [ntasks] streams: tasks others wait for, else NULL */
	int *wstart, *widx;  /* streams: waits of v are events widx[wstart[v]..wstart[v+1]) */
	unsigned char *pdl;  /* serial: launch with PDL */
	cudaGraph_t graph;
	cudaGraphExec_t gexec;
	struct sk_window *win;
};

static int copy_plan(struct skip_exec *x, const struct skip_plan *p)
{
	int n = p->ntasks;

	x->p = *p;
	x->p.order = malloc((size_t)n * sizeof(int) + 1);
	x->p.stream = p->stream ? malloc((size_t)n * sizeof(int) + 1) : NULL;
	x->p.events = malloc((size_t)p->nevents * sizeof(*p->events) + 1);
	if (!x->p.order || (p->stream && !x->p.stream) || !x->p.events)
		return sk_fail(SKIP_E_NOMEM, "out of memory");
	memcpy(x->p.order, p->order, (size_t)n * sizeof(int));
	if (p->stream)
		memcpy(x->p.stream, p->stream, (size_t)n * sizeof(int));
	memcpy(x->p.events, p->events, (size_t)p->nevents * sizeof(*p->events));
	return 0;
}

static int make_streams(struct skip_exec *x, int n)
{
	x->streams = calloc((size_t)n, sizeof(cudaStream_t));
	if (!x->streams)
		return sk_fail(SKIP_E_NOMEM, "out of memory");
	for (int i = 0; i < n; i++) {
		cudaError_t e = cudaStreamCreateWithFlags(&x->streams[i], cudaStreamNonBlocking);

		if (e != cudaSuccess)
			return sk_cuda_fail(e, "creating stream %d", i);
		x->nstreams++;
	}
	return 0;
}

static int sync_all(struct skip_exec *x)
{
	int err = 0;

	for (int i = 0; i < x->nstreams; i++) {
		cudaError_t e = cudaStreamSynchronize(x->streams[i]);

		if (e != cudaSuccess && !err)
			err = sk_cuda_fail(e, "synchronizing stream %d", i);
	}
	return err;
}

/* ---- E1 -------------------------------------------------------------------------------------- */

static int prepare_serial(struct skip_exec *x)
{
	const struct skip_graph *g = x->g;

	x->pdl = calloc((size_t)g->ntasks + 1, 1);
	if (!x->pdl)
		return sk_fail(SKIP_E_NOMEM, "out of memory");
	for (int k = 1; x->p.pdl && k < g->ntasks; k++) {
		int v = x->p.order[k], u = x->p.order[k - 1];

		x->pdl[v] =
		    (g->tasks[v].flags & SKIP_TASK_PDL) && (g->tasks[u].flags & SKIP_TASK_PDL);
	}
	return make_streams(x, 1);
}

static int run_serial(struct skip_exec *x)
{
	int err = 0;

	for (int k = 0; k < x->g->ntasks && !err; k++) {
		int v = x->p.order[k];

		err = sk_cuda_launch(&x->g->tasks[v], x->streams[0], x->pdl[v]);
	}
	return err;
}

/* ---- E2 -------------------------------------------------------------------------------------- */

static int prepare_streams(struct skip_exec *x)
{
	int n = x->g->ntasks, err = make_streams(x, x->p.nstreams);

	x->events = calloc((size_t)n + 1, sizeof(cudaEvent_t));
	x->wstart = calloc((size_t)n + 2, sizeof(int));
	x->widx = malloc((size_t)x->p.nevents * sizeof(int) + 1);
	if (!err && (!x->events || !x->wstart || !x->widx))
		err = sk_fail(SKIP_E_NOMEM, "out of memory");
	for (int i = 0; i < x->p.nevents && !err; i++) {
		int from = x->p.events[i].from;
		cudaError_t e;

		x->wstart[x->p.events[i].to + 2]++;
		if (x->events[from])
			continue;
		e = cudaEventCreateWithFlags(&x->events[from], cudaEventDisableTiming);
		if (e != cudaSuccess)
			err = sk_cuda_fail(e, "creating the event of '%s'", x->g->tasks[from].name);
	}
	for (int v = 0; v < n && !err; v++)
		x->wstart[v + 2] += x->wstart[v + 1];
	for (int i = 0; i < x->p.nevents && !err; i++)
		x->widx[x->wstart[x->p.events[i].to + 1]++] = x->p.events[i].from;
	return err;
}

static int run_streams(struct skip_exec *x)
{
	for (int k = 0; k < x->g->ntasks; k++) {
		int v = x->p.order[k], err;
		cudaStream_t s = x->streams[x->p.stream[v]];
		cudaError_t e;

		for (int i = x->wstart[v]; i < x->wstart[v + 1]; i++) {
			e = cudaStreamWaitEvent(s, x->events[x->widx[i]], 0);
			if (e != cudaSuccess)
				return sk_cuda_fail(e, "task '%s': waiting for '%s'",
						    x->g->tasks[v].name,
						    x->g->tasks[x->widx[i]].name);
		}
		if ((err = sk_cuda_launch(&x->g->tasks[v], s, 0)))
			return err;
		if (x->events[v] && (e = cudaEventRecord(x->events[v], s)) != cudaSuccess)
			return sk_cuda_fail(e, "task '%s': recording its event",
					    x->g->tasks[v].name);
	}
	return 0;
}

/* ---- E3 -------------------------------------------------------------------------------------- */

static int add_nodes(struct skip_exec *x, cudaGraphNode_t *nodes)
{
	for (int k = 0; k < x->g->ntasks; k++) {
		int v = x->p.order[k];
		const struct sk_task *t = &x->g->tasks[v];
		CUDA_KERNEL_NODE_PARAMS kp;
		CUresult r;

		memset(&kp, 0, sizeof(kp));
		kp.func = (CUfunction)t->fn;
		kp.gridDimX = t->grid[0];
		kp.gridDimY = t->grid[1];
		kp.gridDimZ = t->grid[2];
		kp.blockDimX = t->block[0];
		kp.blockDimY = t->block[1];
		kp.blockDimZ = t->block[2];
		kp.sharedMemBytes = t->shared_bytes;
		kp.kernelParams = t->params;
		r = sk_drv.graph_add_kernel_node((CUgraphNode *)&nodes[v], (CUgraph)x->graph, NULL,
						 0, &kp);
		if (r != CUDA_SUCCESS)
			return sk_cu_fail(r, "graph node for task '%s'", t->name);
	}
	return 0;
}

static int add_edges(struct skip_exec *x, const cudaGraphNode_t *nodes)
{
	const struct skip_graph *g = x->g;

	for (int v = 0; v < g->ntasks; v++) {
		const struct sk_task *t = &g->tasks[v];

		for (int i = 0; i < t->npreds; i++) {
			int u = t->preds[i];
			cudaGraphEdgeData ed;
			cudaError_t e;

			memset(&ed, 0, sizeof(ed));
			if (x->p.pdl && (t->flags & SKIP_TASK_PDL) &&
			    (g->tasks[u].flags & SKIP_TASK_PDL)) {
				ed.type = cudaGraphDependencyTypeProgrammatic;
				ed.from_port = cudaGraphKernelNodePortProgrammatic;
			}
			e = cudaGraphAddDependencies(x->graph, &nodes[u], &nodes[v], &ed, 1);
			if (e != cudaSuccess)
				return sk_cuda_fail(e, "graph edge %s -> %s", g->tasks[u].name,
						    t->name);
		}
	}
	return 0;
}

static int prepare_graph(struct skip_exec *x)
{
	cudaGraphNode_t *nodes = calloc((size_t)x->g->ntasks + 1, sizeof(*nodes));
	cudaError_t e;
	int err = make_streams(x, 1);

	if (!nodes)
		return sk_fail(SKIP_E_NOMEM, "out of memory");
	if (!err && (e = cudaGraphCreate(&x->graph, 0)) != cudaSuccess)
		err = sk_cuda_fail(e, "cudaGraphCreate");
	if (!err)
		err = add_nodes(x, nodes);
	if (!err)
		err = add_edges(x, nodes);
	if (!err && (e = cudaGraphInstantiate(&x->gexec, x->graph, 0)) != cudaSuccess)
		err = sk_cuda_fail(e, "instantiating the graph (%d nodes)", x->g->ntasks);
	if (!err && (e = cudaGraphUpload(x->gexec, x->streams[0])) != cudaSuccess)
		err = sk_cuda_fail(e, "uploading the graph");
	free(nodes);
	return err;
}

/* ---- E4 -------------------------------------------------------------------------------------- */

static int window_init(void *ctx, int worker)
{
	struct skip_exec *x = ctx;
	cudaError_t e = cudaSetDevice(x->g->cuda->device);

	(void)worker;
	return e == cudaSuccess ? 0 : sk_cuda_fail(e, "window worker: cudaSetDevice");
}

static int window_task(void *ctx, int worker, int task)
{
	struct skip_exec *x = ctx;
	int err = sk_cuda_launch(&x->g->tasks[task], x->streams[worker], 0);
	cudaError_t e;

	if (err)
		return err;
	e = cudaStreamSynchronize(x->streams[worker]);
	return e == cudaSuccess ? 0 : sk_cuda_fail(e, "task '%s'", x->g->tasks[task].name);
}

static int prepare_window(struct skip_exec *x)
{
	int err = make_streams(x, x->p.nstreams);

	if (!err)
		x->win =
		    sk_window_new(x->p.nstreams, x->p.window, window_task, window_init, x, &err);
	return err;
}

/* ---- public ---------------------------------------------------------------------------------- */

struct skip_exec *skip_exec_new(struct skip_graph *g, const struct skip_plan *p, int *err)
{
	struct skip_exec *x;
	int e = 0;

	if (!g || !g->cuda)
		e = sk_fail(SKIP_E_INVAL, "executor: load the graph first");
	else
		e = skip_plan_validate(g, p);
	if (e || !(x = calloc(1, sizeof(*x)))) {
		*err = e ? e : sk_fail(SKIP_E_NOMEM, "out of memory");
		return NULL;
	}
	x->g = g;
	cudaSetDevice(g->cuda->device);
	e = copy_plan(x, p);
	if (!e) {
		static int (*const prepare[SKIP_NEXECUTORS])(struct skip_exec *) = {
		    prepare_serial, prepare_streams, prepare_graph, prepare_window};

		e = prepare[p->executor](x);
	}
	if (e) {
		skip_exec_free(x);
		x = NULL;
	}
	*err = e;
	return x;
}

int skip_exec_run(struct skip_exec *x, uint64_t *elapsed_ns)
{
	uint64_t t0 = skip_clock_ns(CLOCK_MONOTONIC);
	cudaError_t e;
	int err = 0;

	cudaSetDevice(x->g->cuda->device);
	switch (x->p.executor) {
	case SKIP_EXEC_SERIAL:
		err = run_serial(x);
		break;
	case SKIP_EXEC_STREAMS:
		err = run_streams(x);
		break;
	case SKIP_EXEC_GRAPH:
		e = cudaGraphLaunch(x->gexec, x->streams[0]);
		if (e != cudaSuccess)
			err = sk_cuda_fail(e, "cudaGraphLaunch");
		break;
	case SKIP_EXEC_WINDOW:
		err = sk_window_run(x->win, x->g, x->p.order);
		break;
	}
	if (sync_all(x) && !err)
		err = SKIP_E_CUDA;
	if (elapsed_ns)
		*elapsed_ns = skip_clock_ns(CLOCK_MONOTONIC) - t0;
	return err;
}

void skip_exec_free(struct skip_exec *x)
{
	if (!x)
		return;
	cudaSetDevice(x->g->cuda->device);
	sk_window_free(x->win);
	if (x->gexec)
		cudaGraphExecDestroy(x->gexec);
	if (x->graph)
		cudaGraphDestroy(x->graph);
	for (int v = 0; x->events && v < x->g->ntasks; v++)
		if (x->events[v])
			cudaEventDestroy(x->events[v]);
	for (int i = 0; i < x->nstreams; i++) {
		cudaStreamSynchronize(x->streams[i]);
		cudaStreamDestroy(x->streams[i]);
	}
	free(x->streams);
	free(x->events);
	free(x->wstart);
	free(x->widx);
	free(x->pdl);
	free(x->p.order);
	free(x->p.stream);
	free(x->p.events);
	free(x);
}
