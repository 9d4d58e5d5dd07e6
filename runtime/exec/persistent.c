/*
 * exec/persistent.c: E5, one resident kernel. At prepare, the task DAG becomes a persistent
 * plan (runtime/persist.c): a task's tiles are its blocks, each edge of the reduced DAG a full
 * edge, a worker per SM (or the plan's "workers", at most as many as fit co-resident), the
 * mode the plan's "mode"; the device makes the kernel's state once. Each run is one cooperative
 * launch in which the workers run every tile once (docs/persistent.md). The device checks what only
 * it can: that the tasks come from one module built with runtime/skip_task.cuh.
 */
#define SK_LOG_DOMAIN "runtime"
#include <stdlib.h>

#include "exec.h"
#include "persist.h"

struct persistent {
	struct sk_run r;
	struct sk_persist_plan *plan;
	int stream, state;
};

static void persistent_fini(void *state)
{
	struct persistent *x = state;

	if (!x)
		return;
	sk_persist_plan_free(x->plan);
	free(x);
}

/* The DAG as E5 sees it: tiles = blocks, every reduced edge a full one. */
static int make_plan(struct persistent *x, int nworkers)
{
	const struct skip_graph *g = x->r.g;
	struct sk_persist_task *tasks = calloc((size_t)g->ntasks + 1, sizeof(*tasks));
	struct sk_persist_edge *edges = calloc((size_t)g->nedges + 1, sizeof(*edges));
	struct sk_persist_opts o = SK_PERSIST_OPTS_DEFAULT;
	struct sk_persist_dag dag = {g->ntasks, tasks, 0, edges};
	int err = 0;

	if (!tasks || !edges) {
		free(tasks);
		free(edges);
		return sk_fail(SKIP_E_NOMEM, "out of memory");
	}
	for (int v = 0; v < g->ntasks; v++) {
		const struct sk_task *t = &g->tasks[v];

		tasks[v].ntiles = (int)t->grid[0];
		tasks[v].tile_us = 1.0;
		if (t->grid[0] > SK_PERSIST_MAX_TILES || t->grid[1] > 1 || t->grid[2] > 1 ||
		    t->block[1] > 1 || t->block[2] > 1)
			err = sk_fail(SKIP_E_INVAL,
				      "persistent: task '%s' has a %ux%ux%u grid of %ux%ux%u "
				      "blocks; E5 runs one-dimensional grids of at most %d blocks",
				      t->name, t->grid[0], t->grid[1], t->grid[2], t->block[0],
				      t->block[1], t->block[2], SK_PERSIST_MAX_TILES);
		for (int i = 0; i < t->npreds; i++)
			edges[dag.nedges++] = (struct sk_persist_edge){t->preds[i], v, 0};
	}
	o.mode = x->r.p->mode == 3   ? SK_PERSIST_COPILOT
		 : x->r.p->mode == 2 ? SK_PERSIST_JIT
				     : SK_PERSIST_AOT;
	o.nworkers = nworkers;
	if (!err && !(x->plan = sk_persist_plan_new(&dag, &o, &err)))
		err = err ? err : SKIP_E_NOMEM;
	free(tasks);
	free(edges);
	return err;
}

static void *persistent_prepare(const struct sk_run *r, int *err)
{
	struct persistent *x = calloc(1, sizeof(*x));
	struct sk_dev *d = r->dev;
	int fit, nthreads = 0, sms = 0, nworkers;

	if (!x) {
		*err = sk_fail(SKIP_E_NOMEM, "out of memory");
		return NULL;
	}
	x->r = *r;
	if ((fit = d->ops->persist_fit(d, &nthreads, &sms)) < 0) {
		*err = fit;
		goto fail;
	}
	/* by default one worker per SM (MPK's and Hazy's shape), as far as they fit */
	nworkers = r->p->workers ? r->p->workers : sms < fit ? sms : fit;
	if (nworkers > fit) {
		*err =
		    sk_fail(SKIP_E_INVAL,
			    "persistent: the plan asks for %d workers; %d fit co-resident (blocks "
			    "of %d threads), and more could hang",
			    nworkers, fit, nthreads);
		goto fail;
	}
	if ((*err = make_plan(x, nworkers)))
		goto fail;
	if ((x->stream = sk_dev_stream_new(d)) < 0) {
		*err = x->stream;
		goto fail;
	}
	if ((x->state = d->ops->persist_new(d, x->plan)) < 0) {
		*err = x->state;
		goto fail;
	}
	return x;
fail:
	persistent_fini(x);
	return NULL;
}

static int persistent_run(void *state)
{
	struct persistent *x = state;

	return x->r.dev->ops->persist_launch(x->r.dev, x->stream, x->state);
}

const struct sk_executor sk_exec_persistent = {
    .id = SKIP_EXEC_PERSISTENT,
    .info = {"persistent", "E5", "one resident kernel", SKIP_PLAN_ORDER | SKIP_PLAN_PERSIST},
    .prepare = persistent_prepare,
    .run = persistent_run,
    .fini = persistent_fini,
};
