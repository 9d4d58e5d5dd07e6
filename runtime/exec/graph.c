/*
 * exec/graph.c: E3, one CUDA graph. Built once with the explicit graph API (no stream
 * capture): a kernel node per task, added in the plan's order, and an edge per dependency of
 * the reduced DAG; with the plan's "pdl", an edge between two tasks both marked "pdl" is a
 * programmatic one. Instantiated and uploaded once, launched on one stream per run.
 */
#define SK_LOG_DOMAIN "runtime"
#include <stdlib.h>

#include "exec.h"

struct graph {
	struct sk_run r;
	int stream, graph;
};

static void graph_fini(void *state)
{
	free(state);
}

static int add_edges(struct graph *x)
{
	const struct skip_graph *g = x->r.g;
	struct sk_dev *d = x->r.dev;
	int err = 0;

	for (int v = 0; v < g->ntasks && !err; v++) {
		const struct sk_task *t = &g->tasks[v];

		for (int i = 0; i < t->npreds && !err; i++) {
			int u = t->preds[i];
			unsigned pdl = x->r.p->pdl && (t->flags & SKIP_TASK_PDL) &&
				       (g->tasks[u].flags & SKIP_TASK_PDL);

			err = d->ops->graph_edge(d, x->graph, u, v, pdl ? SKIP_STEP_PDL : 0);
		}
	}
	return err;
}

static int build(struct graph *x)
{
	struct sk_dev *d = x->r.dev;
	int err = 0;

	if ((x->stream = sk_dev_stream_new(d)) < 0)
		return x->stream;
	if ((x->graph = d->ops->graph_new(d)) < 0)
		return x->graph;
	for (int k = 0; k < x->r.g->ntasks && !err; k++)
		err = d->ops->graph_node(d, x->graph, x->r.p->order[k]);
	if (!err)
		err = add_edges(x);
	return err ? err : d->ops->graph_ready(d, x->graph, x->stream);
}

static void *graph_prepare(const struct sk_run *r, int *err)
{
	struct graph *x = calloc(1, sizeof(*x));

	if (!x) {
		*err = sk_fail(SKIP_E_NOMEM, "out of memory");
		return NULL;
	}
	x->r = *r;
	if ((*err = build(x))) {
		graph_fini(x);
		return NULL;
	}
	return x;
}

static int graph_run(void *state)
{
	struct graph *x = state;

	return x->r.dev->ops->graph_launch(x->r.dev, x->stream, x->graph);
}

const struct sk_executor sk_exec_graph = {
    .id = SKIP_EXEC_GRAPH,
    .info = {"graph", "E3", "CUDA graph", SKIP_PLAN_ORDER | SKIP_PLAN_PDL},
    .prepare = graph_prepare,
    .run = graph_run,
    .fini = graph_fini,
};
