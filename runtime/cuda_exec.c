/*
 * cuda_exec.c: the GPU as the executors see it (struct sk_dev, exec.h), and skip_exec_new(),
 * which runs an executor on it. Every CUDA call an executor causes is made here: streams
 * (non-blocking), events (no timing), kernel launches (sk_cuda_launch: cuLaunchKernelEx, with
 * the programmatic-stream-serialization attribute on request), CUDA graphs built with the
 * explicit API (kernel nodes, programmatic edges on request; instantiated and uploaded once),
 * graph launches and stream synchronizations. The device owns what it makes and releases it
 * when the executor is freed: graphs, events, then streams (each synchronized first).
 */
#define SK_LOG_DOMAIN "runtime"
#include <stdlib.h>
#include <string.h>

#include "cuda_internal.h"
#include "exec.h"

struct cgraph {
	cudaGraph_t graph;
	cudaGraphExec_t exec;
	cudaGraphNode_t *node; /* [ntasks] the node of each task, NULL: none */
	int nnodes;
};

struct cuda_dev {
	struct sk_dev d;       /* first: the executors' view */
	struct skip_graph *g;  /* loaded */
	cudaStream_t *streams; /* [d.nstreams] */
	size_t capstreams;
	cudaEvent_t *events; /* [nevents] */
	int *event_task;     /* [nevents] the task each marks */
	int nevents;
	size_t capevents, capevent_task;
	struct cgraph *graphs; /* [ngraphs] */
	int ngraphs;
	size_t capgraphs;
	struct sk_cuda_persist **persist; /* [npersist] E5's states */
	int npersist;
	size_t cappersist;
	int *pending; /* [d.nstreams] the state last launched on the stream, or -1 */
	size_t cappending;
};

static struct cuda_dev *cdev(struct sk_dev *d)
{
	return (struct cuda_dev *)d;
}

static const char *task_name(const struct cuda_dev *c, int task)
{
	return c->g->tasks[task].name;
}

static int cuda_bind(struct sk_dev *d, int thread)
{
	cudaError_t e = cudaSetDevice(cdev(d)->g->cuda->device);

	if (e == cudaSuccess)
		return 0;
	return thread ? sk_cuda_fail(e, "worker %d: cudaSetDevice", thread - 1)
		      : sk_cuda_fail(e, "cudaSetDevice");
}

static int cuda_stream_new(struct sk_dev *d)
{
	struct cuda_dev *c = cdev(d);
	int s = d->nstreams, err = SK_VEC_RESERVE(c->streams, c->capstreams, s + 1);
	cudaError_t e;

	if (err)
		return err;
	if ((err = SK_VEC_RESERVE(c->pending, c->cappending, s + 1)))
		return err;
	c->pending[s] = -1;
	e = cudaStreamCreateWithFlags(&c->streams[s], cudaStreamNonBlocking);
	if (e != cudaSuccess)
		return sk_cuda_fail(e, "creating stream %d", s);
	return d->nstreams++;
}

static int cuda_event_new(struct sk_dev *d, int task)
{
	struct cuda_dev *c = cdev(d);
	int i = c->nevents, err;
	cudaError_t e;

	if ((err = SK_VEC_RESERVE(c->events, c->capevents, i + 1)) ||
	    (err = SK_VEC_RESERVE(c->event_task, c->capevent_task, i + 1)))
		return err;
	e = cudaEventCreateWithFlags(&c->events[i], cudaEventDisableTiming);
	if (e != cudaSuccess)
		return sk_cuda_fail(e, "creating the event of '%s'", task_name(c, task));
	c->event_task[i] = task;
	return c->nevents++;
}

static int cuda_graph_new(struct sk_dev *d)
{
	struct cuda_dev *c = cdev(d);
	int i = c->ngraphs, err = SK_VEC_RESERVE(c->graphs, c->capgraphs, i + 1);
	struct cgraph *cg;
	cudaError_t e;

	if (err)
		return err;
	cg = memset(&c->graphs[i], 0, sizeof(*cg));
	if (!(cg->node = calloc((size_t)c->g->ntasks + 1, sizeof(cudaGraphNode_t))))
		return sk_fail(SKIP_E_NOMEM, "out of memory");
	c->ngraphs++; /* released in cuda_free() from here on */
	if ((e = cudaGraphCreate(&cg->graph, 0)) != cudaSuccess)
		return sk_cuda_fail(e, "cudaGraphCreate");
	return i;
}

static int cuda_graph_node(struct sk_dev *d, int graph, int task)
{
	struct cuda_dev *c = cdev(d);
	struct cgraph *cg = &c->graphs[graph];
	const struct sk_task *t = &c->g->tasks[task];
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
	r = sk_drv.graph_add_kernel_node((CUgraphNode *)&cg->node[task], (CUgraph)cg->graph, NULL,
					 0, &kp);
	if (r != CUDA_SUCCESS)
		return sk_cu_fail(r, "graph node for task '%s'", t->name);
	cg->nnodes++;
	return 0;
}

static int cuda_graph_edge(struct sk_dev *d, int graph, int from, int to, unsigned flags)
{
	struct cuda_dev *c = cdev(d);
	struct cgraph *cg = &c->graphs[graph];
	cudaGraphEdgeData ed;
	cudaError_t e;

	memset(&ed, 0, sizeof(ed));
	if (flags & SKIP_STEP_PDL) {
		ed.type = cudaGraphDependencyTypeProgrammatic;
		ed.from_port = cudaGraphKernelNodePortProgrammatic;
	}
	e = cudaGraphAddDependencies(cg->graph, &cg->node[from], &cg->node[to], &ed, 1);
	if (e != cudaSuccess)
		return sk_cuda_fail(e, "graph edge %s -> %s", task_name(c, from), task_name(c, to));
	return 0;
}

static int cuda_graph_ready(struct sk_dev *d, int graph, int stream)
{
	struct cuda_dev *c = cdev(d);
	struct cgraph *cg = &c->graphs[graph];
	cudaError_t e;

	if ((e = cudaGraphInstantiate(&cg->exec, cg->graph, 0)) != cudaSuccess)
		return sk_cuda_fail(e, "instantiating the graph (%d nodes)", cg->nnodes);
	if ((e = cudaGraphUpload(cg->exec, c->streams[stream])) != cudaSuccess)
		return sk_cuda_fail(e, "uploading the graph");
	return 0;
}

static int cuda_launch(struct sk_dev *d, int stream, int task, unsigned flags)
{
	struct cuda_dev *c = cdev(d);

	return sk_cuda_launch(&c->g->tasks[task], c->streams[stream], !!(flags & SKIP_STEP_PDL));
}

static int cuda_record(struct sk_dev *d, int stream, int event)
{
	struct cuda_dev *c = cdev(d);
	cudaError_t e = cudaEventRecord(c->events[event], c->streams[stream]);

	if (e != cudaSuccess)
		return sk_cuda_fail(e, "task '%s': recording its event",
				    task_name(c, c->event_task[event]));
	return 0;
}

static int cuda_wait(struct sk_dev *d, int stream, int event, int task)
{
	struct cuda_dev *c = cdev(d);
	cudaError_t e = cudaStreamWaitEvent(c->streams[stream], c->events[event], 0);

	if (e != cudaSuccess)
		return sk_cuda_fail(e, "task '%s': waiting for '%s'", task_name(c, task),
				    task_name(c, c->event_task[event]));
	return 0;
}

static int cuda_graph_launch(struct sk_dev *d, int stream, int graph)
{
	struct cuda_dev *c = cdev(d);
	cudaError_t e = cudaGraphLaunch(c->graphs[graph].exec, c->streams[stream]);

	return e == cudaSuccess ? 0 : sk_cuda_fail(e, "cudaGraphLaunch");
}

static int cuda_persist_fit(struct sk_dev *d, int mode, int *nthreads, int *sms)
{
	unsigned smem;

	return sk_cuda_persist_fit(cdev(d)->g, mode, nthreads, &smem, sms);
}

static int cuda_persist_new(struct sk_dev *d, const struct sk_persist_plan *plan)
{
	struct cuda_dev *c = cdev(d);
	int i = c->npersist, err = SK_VEC_RESERVE(c->persist, c->cappersist, i + 1);

	if (err)
		return err;
	if (!(c->persist[i] = sk_cuda_persist_new(c->g, plan, &err)))
		return err;
	return c->npersist++;
}

static int cuda_persist_tiles(struct sk_dev *d, int state, struct skip_tile_time *out, int max)
{
	return sk_cuda_persist_tiles(cdev(d)->persist[state], out, max);
}

static int cuda_persist_launch(struct sk_dev *d, int stream, int state)
{
	struct cuda_dev *c = cdev(d);
	int err = sk_cuda_persist_launch(c->persist[state], c->streams[stream], 1);

	if (!err)
		c->pending[stream] = state;
	return err;
}

static int cuda_sync(struct sk_dev *d, int stream, int task)
{
	struct cuda_dev *c = cdev(d);
	cudaError_t e;

	if (c->pending[stream] >= 0) { /* E5: the wait that knows what stopped it */
		int state = c->pending[stream];

		c->pending[stream] = -1;
		return sk_cuda_persist_wait(c->persist[state], c->streams[stream]);
	}
	e = cudaStreamSynchronize(c->streams[stream]);

	if (e == cudaSuccess)
		return 0;
	return task >= 0 ? sk_cuda_fail(e, "task '%s'", task_name(c, task))
			 : sk_cuda_fail(e, "synchronizing stream %d", stream);
}

static void cuda_free(struct sk_dev *d)
{
	struct cuda_dev *c = cdev(d);

	for (int i = 0; i < c->ngraphs; i++) {
		if (c->graphs[i].exec)
			cudaGraphExecDestroy(c->graphs[i].exec);
		if (c->graphs[i].graph)
			cudaGraphDestroy(c->graphs[i].graph);
		free(c->graphs[i].node);
	}
	for (int i = 0; i < c->nevents; i++)
		cudaEventDestroy(c->events[i]);
	for (int i = 0; i < c->npersist; i++) /* before its stream is waited for */
		sk_cuda_persist_park(c->persist[i]);
	for (int i = 0; i < d->nstreams; i++) {
		cudaStreamSynchronize(c->streams[i]);
		cudaStreamDestroy(c->streams[i]);
	}
	for (int i = 0; i < c->npersist; i++)
		sk_cuda_persist_free(c->persist[i]);
	free(c->persist);
	free(c->pending);
	free(c->graphs);
	free(c->events);
	free(c->event_task);
	free(c->streams);
	free(c);
}

static const struct sk_dev_ops cuda_ops = {
    .bind = cuda_bind,
    .stream_new = cuda_stream_new,
    .event_new = cuda_event_new,
    .graph_new = cuda_graph_new,
    .graph_node = cuda_graph_node,
    .graph_edge = cuda_graph_edge,
    .graph_ready = cuda_graph_ready,
    .launch = cuda_launch,
    .record = cuda_record,
    .wait = cuda_wait,
    .graph_launch = cuda_graph_launch,
    .sync = cuda_sync,
    .persist_fit = cuda_persist_fit,
    .persist_new = cuda_persist_new,
    .persist_launch = cuda_persist_launch,
    .persist_tiles = cuda_persist_tiles,
    .free = cuda_free,
};

struct skip_exec *skip_exec_new(struct skip_graph *g, const struct skip_plan *p, int *err)
{
	struct cuda_dev *c;

	if (!g || !g->cuda) {
		*err = sk_fail(SKIP_E_INVAL, "executor: load the graph first");
		return NULL;
	}
	if (!(c = calloc(1, sizeof(*c)))) {
		*err = sk_fail(SKIP_E_NOMEM, "out of memory");
		return NULL;
	}
	c->d.ops = &cuda_ops;
	c->d.g = g;
	c->g = g;
	return sk_exec_new_on(g, p, &c->d, err);
}
