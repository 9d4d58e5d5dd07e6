/*
 * exec/persistent.c: E5, one resident kernel. At prepare, the task DAG becomes a persistent
 * plan (runtime/persist.c): a task's tiles are its blocks, each edge of the reduced DAG a full
 * edge unless the workload declares it a tile edge (then the edges into that task are worked
 * out again, see edges_into()), a worker per SM (more where one level's tiles outnumber the SMs,
 * skip_persist_workers(); or the plan's "workers"; at most as many as fit co-resident), the mode
 * the plan's "mode" (and the co-pilot's "lookahead"); the device makes the kernel's state once.
 * Each run is one cooperative launch in which the workers run every tile once (docs/persistent.md).
 * The device checks what only it can: that the tasks come from one module built with
 * runtime/skip_task.cuh.
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

/* The declared tile edge @from -> @v as a plan edge's flags and rows; full when none. */
static struct sk_persist_edge plan_edge(const struct skip_graph *g, int from, int v)
{
	for (int i = 0; i < g->ntile_edges; i++) {
		const struct skip_tile_edge *e = &g->tile_edges[i];

		if (e->from == from && e->to == v)
			return (struct sk_persist_edge){
			    from, v,
			    e->policy == SKIP_TILE_ROW ? SK_PERSIST_EDGE_ROW : SK_PERSIST_EDGE_TILE,
			    e->rows};
	}
	return (struct sk_persist_edge){from, v, 0, 0};
}

/* @u ->* @w in @g (the graph's reachability; 0 when it was too big to keep). */
static int reaches(const struct skip_graph *g, int u, int w)
{
	return g->reach &&
	       (g->reach[(size_t)w * (size_t)g->reach_words + (size_t)u / 64] >> (u % 64) & 1);
}

/*
 * The edges into @v, a task with tile edges in, appended to @edges. The reduced DAG is not
 * enough here: it dropped u -> v wherever u reaches another predecessor w of v, which orders v
 * after all of u only while w -> v is full. So start from v's derived predecessors (before the
 * reduction) and its declared producers, and drop u only when it reaches a w whose edge to v is
 * full: all of w done means all of u done, since the tiles of any edge's consumer together read
 * every tile of its producer. That drops a declared tile edge too when a full path through
 * another task already orders it fully.
 */
static void edges_into(const struct skip_graph *g, int v, struct sk_persist_edge *edges, int *n)
{
	const struct sk_task *t = &g->tasks[v];
	int first = *n, m;

	for (int i = 0; i < t->ndpreds; i++)
		edges[(*n)++] = plan_edge(g, t->dpreds[i], v);
	for (int i = 0; i < g->ntile_edges; i++) /* declared, not derived (a covering write) */
		if (g->tile_edges[i].to == v) {
			int from = g->tile_edges[i].from, seen = 0;

			for (int k = 0; k < t->ndpreds && !seen; k++)
				seen = t->dpreds[k] == from;
			if (!seen)
				edges[(*n)++] = plan_edge(g, from, v);
		}
	for (int i = first; i < *n; i++) {
		int redundant = 0;

		for (int k = first; k < *n && !redundant; k++)
			redundant = k != i && edges[k].flags == 0 &&
				    reaches(g, edges[i].from, edges[k].from);
		edges[i].to = redundant ? -1 : v;
	}
	m = first;
	for (int i = first; i < *n; i++)
		if (edges[i].to >= 0)
			edges[m++] = edges[i];
	*n = m;
}

struct sk_persist_plan *sk_persistent_plan(const struct skip_graph *g, int mode, int nworkers,
					   int lookahead, const double *durations_us, int *err)
{
	struct sk_persist_task *tasks = calloc((size_t)g->ntasks + 1, sizeof(*tasks));
	size_t cap = (size_t)g->nedges + (size_t)g->ntile_edges + 1;
	struct sk_persist_edge *edges;
	struct sk_persist_opts o = SK_PERSIST_OPTS_DEFAULT;
	struct sk_persist_dag dag = {g->ntasks, tasks, 0, NULL};
	struct sk_persist_plan *plan = NULL;

	*err = 0;
	for (int v = 0; v < g->ntasks; v++)
		cap += (size_t)g->tasks[v].ndpreds;
	edges = calloc(cap, sizeof(*edges));
	dag.edges = edges;
	if (!tasks || !edges) {
		*err = sk_fail(SKIP_E_NOMEM, "out of memory");
		goto out;
	}
	for (int v = 0; v < g->ntasks && !*err; v++) {
		const struct sk_task *t = &g->tasks[v];

		tasks[v].ntiles = (int)t->grid[0];
		tasks[v].tile_us = 1.0;
		if (durations_us && nworkers > 0) { /* over its rounds, ceil(tiles / workers) */
			unsigned rounds =
			    (t->grid[0] + (unsigned)nworkers - 1) / (unsigned)nworkers;

			tasks[v].tile_us = durations_us[v] / (rounds ? rounds : 1);
		}
		if (t->grid[0] > SK_PERSIST_MAX_TILES || t->grid[1] > 1 || t->grid[2] > 1 ||
		    t->block[1] > 1 || t->block[2] > 1)
			*err = sk_fail(SKIP_E_INVAL,
				       "persistent: task '%s' has a %ux%ux%u grid of %ux%ux%u "
				       "blocks; E5 runs one-dimensional grids of at most %d blocks",
				       t->name, t->grid[0], t->grid[1], t->grid[2], t->block[0],
				       t->block[1], t->block[2], SK_PERSIST_MAX_TILES);
		else if (t->dpreds)
			edges_into(g, v, edges, &dag.nedges);
		else
			for (int i = 0; i < t->npreds; i++)
				edges[dag.nedges++] =
				    (struct sk_persist_edge){t->preds[i], v, 0, 0};
	}
	o.mode = (enum sk_persist_mode)mode;
	o.lookahead = lookahead;
	o.nworkers = nworkers;
	if (!*err && !(plan = sk_persist_plan_new(&dag, &o, err)))
		*err = *err ? *err : SKIP_E_NOMEM;
out:
	free(tasks);
	free(edges);
	return plan;
}

int skip_persist_schedule(const struct skip_graph *g, int nworkers, const double *durations_us,
			  double *makespan_us, int *tiles)
{
	struct sk_persist_plan *plan;
	int err;

	*makespan_us = 0;
	*tiles = 0;
	if (!g || !g->finalized || !durations_us || nworkers < 1 ||
	    nworkers > SK_PERSIST_MAX_WORKERS)
		return sk_fail(SKIP_E_INVAL,
			       "persistent schedule: a finalized graph, durations and "
			       "1..%d workers expected",
			       SK_PERSIST_MAX_WORKERS);
	if (!(plan = sk_persistent_plan(g, SK_PERSIST_AOT, nworkers, 0, durations_us, &err)))
		return err ? err : SKIP_E_NOMEM;
	*makespan_us = plan->makespan_us;
	*tiles = plan->total_tiles;
	sk_persist_plan_free(plan);
	return 0;
}

int skip_persist_workers(const struct skip_graph *g, int sms, int fit)
{
	int *tiles, peak = 0, w = sms < fit ? sms : fit;

	if (!g || !g->finalized || sms < 1 || fit < 1)
		return sk_fail(SKIP_E_INVAL, "persistent workers: a finalized graph, SMs and the "
					     "workers that fit expected");
	tiles = calloc((size_t)g->ntasks + 1, sizeof(int));
	if (!tiles)
		return sk_fail(SKIP_E_NOMEM, "out of memory");
	for (int t = 0; t < g->ntasks; t++) {
		int l = g->tasks[t].level;
		long long n = (long long)tiles[l] + g->tasks[t].grid[0];

		tiles[l] = n > SK_PERSIST_MAX_WORKERS ? SK_PERSIST_MAX_WORKERS : (int)n;
		if (tiles[l] > peak)
			peak = tiles[l];
	}
	free(tiles);
	if (peak > w)
		w = peak < fit ? peak : fit;
	return w;
}

/* The plan's mode as an enum sk_persist_mode: the plan's is 1 + that (0: AOT). */
static int persist_mode(const struct skip_plan *p)
{
	return p->mode > 1 ? p->mode - 1 : SK_PERSIST_AOT;
}

static int make_plan(struct persistent *x, int nworkers)
{
	int err;

	x->plan = sk_persistent_plan(x->r.g, persist_mode(x->r.p), nworkers, x->r.p->lookahead,
				     x->r.p->durations_us, &err);
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
	if ((fit = d->ops->persist_fit(d, persist_mode(r->p), &nthreads, &sms)) < 0) {
		*err = fit;
		goto fail;
	}
	/* by default one worker per SM (MPK's and Hazy's shape), more where a level's tiles
	 * outnumber the SMs, as far as they fit; the co-pilot's dispatcher takes one more CTA */
	fit -= r->p->mode == 3;
	nworkers = r->p->workers ? r->p->workers : skip_persist_workers(r->g, sms, fit);
	if (nworkers > fit || nworkers < 1) {
		*err =
		    sk_fail(SKIP_E_INVAL,
			    "persistent: the plan asks for %d workers; %d fit co-resident "
			    "(blocks of %d threads%s), and more could hang",
			    nworkers, fit, nthreads,
			    r->p->mode == 3 ? ", and one CTA for the co-pilot's dispatcher" : "");
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

static int persistent_workers(const void *state)
{
	return ((const struct persistent *)state)->plan->o.nworkers;
}

static int persistent_tile_times(const void *state, struct skip_tile_time *out, int max)
{
	const struct persistent *x = state;
	struct sk_dev *d = x->r.dev;

	return d->ops->persist_tiles ? d->ops->persist_tiles(d, x->state, out, max) : 0;
}

static int persistent_run(void *state)
{
	struct persistent *x = state;

	return x->r.dev->ops->persist_launch(x->r.dev, x->stream, x->state);
}

const struct sk_executor sk_exec_persistent = {
    .id = SKIP_EXEC_PERSISTENT,
    .info = {"persistent", "E5", "one resident kernel",
	     SKIP_PLAN_ORDER | SKIP_PLAN_PERSIST | SKIP_PLAN_DURATIONS},
    .prepare = persistent_prepare,
    .run = persistent_run,
    .fini = persistent_fini,
    .workers = persistent_workers,
    .tile_times = persistent_tile_times,
};
