/*
 * persist.c: E5's plan time (persist.h). From a task DAG with per-task tile counts and
 * predicted tile durations: validation, the CSR form the workers read (predecessors with
 * their edge kind, successors), the roots, a topological order and, for AOT, one queue per
 * worker by list scheduling. Host code; what it builds is immutable while workers run.
 *
 * Why list scheduling keeps AOT deadlock-free: tiles are dispatched one at a time, each only
 * once every producer tile it waits on has been dispatched, and appended to its worker's
 * queue. So every queue is a subsequence of one topological order of the tiles (dispatch[]).
 * At any moment the unfinished tile earliest in that order has all its producers finished
 * (they come earlier) and every tile before it in its own queue finished (same reason), so it
 * can run: some worker always makes progress, whatever the timing.
 */
#define SK_LOG_DOMAIN "runtime"
#include <math.h>
#include <stdlib.h>

#include "skip_common.h"
#include "skip_runtime.h"
#include "persist.h"

static const char *const mode_names[SK_PERSIST_NMODES] = {"aot", "jit", "copilot"};

const char *sk_persist_mode_name(int mode)
{
	return mode >= 0 && mode < SK_PERSIST_NMODES ? mode_names[mode] : NULL;
}

void sk_persist_plan_free(struct sk_persist_plan *p)
{
	if (!p)
		return;
	free(p->ntiles);
	free(p->tile_base);
	free(p->tile_task);
	free(p->pred_off);
	free(p->pred);
	free(p->pred_tile);
	free(p->succ_off);
	free(p->succ);
	free(p->succ_tile);
	free(p->lost);
	free(p->jtask);
	free(p->roots);
	free(p->topo);
	free(p->q_off);
	free(p->q);
	free(p->step);
	free(p->step_wait);
	free(p->dispatch);
	free(p->start_us);
	free(p);
}

static int pow2_at_least(int n)
{
	int c = 2;

	while (c < n)
		c *= 2;
	return c;
}

static int check_opts(const struct sk_persist_opts *o)
{
	if ((unsigned)o->mode >= SK_PERSIST_NMODES)
		return sk_fail(SKIP_E_INVAL, "persistent plan: no mode %d", (int)o->mode);
	if (o->nworkers < 1 || o->nworkers > SK_PERSIST_MAX_WORKERS)
		return sk_fail(SKIP_E_INVAL, "persistent plan: %d workers (1..%d)", o->nworkers,
			       SK_PERSIST_MAX_WORKERS);
	if (o->watchdog_ms < 1)
		return sk_fail(SKIP_E_INVAL,
			       "persistent plan: a watchdog of 0 ms (use at least 1; "
			       "the default is %u)",
			       SK_PERSIST_WATCHDOG_MS);
	if (o->lookahead < 0 || o->report_batch < 1 || o->report_batch > 4096 || o->feed_tiles < 0)
		return sk_fail(SKIP_E_INVAL,
			       "persistent plan: lookahead %d (>= 0), report batch %d (1..4096), "
			       "feed ring %d (>= 0)",
			       o->lookahead, o->report_batch, o->feed_tiles);
	return 0;
}

/* Tasks, tiles and the tile numbering. */
static int load_tasks(struct sk_persist_plan *p, const struct sk_persist_dag *d)
{
	long total = 0;

	if (d->ntasks < 1 || d->ntasks > SK_PERSIST_MAX_TASKS || !d->tasks)
		return sk_fail(SKIP_E_INVAL, "persistent plan: %d tasks (1..%d)", d->ntasks,
			       SK_PERSIST_MAX_TASKS);
	p->ntasks = d->ntasks;
	p->ntiles = malloc(sizeof(int) * (size_t)p->ntasks);
	p->tile_base = malloc(sizeof(int) * ((size_t)p->ntasks + 1));
	p->lost = calloc((size_t)p->ntasks, 1);
	if (!p->ntiles || !p->tile_base || !p->lost)
		return sk_fail(SKIP_E_NOMEM, "out of memory");
	for (int t = 0; t < p->ntasks; t++) {
		const struct sk_persist_task *k = &d->tasks[t];

		if (k->ntiles < 1 || k->ntiles > SK_PERSIST_MAX_TILES)
			return sk_fail(SKIP_E_INVAL,
				       "persistent plan: task %d has %d tiles (1..%d)", t,
				       k->ntiles, SK_PERSIST_MAX_TILES);
		if (!isfinite(k->tile_us) || k->tile_us < 0)
			return sk_fail(SKIP_E_INVAL,
				       "persistent plan: task %d: predicted tile duration %g us "
				       "(a finite number >= 0)",
				       t, k->tile_us);
		p->tile_base[t] = (int)total;
		p->ntiles[t] = k->ntiles;
		if (k->ntiles > p->max_tiles)
			p->max_tiles = k->ntiles;
		total += k->ntiles;
		if (total > (1L << 30))
			return sk_fail(SKIP_E_INVAL, "persistent plan: more than 2^30 tiles");
	}
	p->tile_base[p->ntasks] = (int)total;
	p->total_tiles = (int)total;
	p->tile_task = malloc(sizeof(int) * (size_t)total);
	if (!p->tile_task)
		return sk_fail(SKIP_E_NOMEM, "out of memory");
	for (int t = 0; t < p->ntasks; t++)
		for (int g = p->tile_base[t]; g < p->tile_base[t + 1]; g++)
			p->tile_task[g] = t;
	return 0;
}

static int edge_by_to(const void *a, const void *b)
{
	const struct sk_persist_edge *x = a, *y = b;

	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	return x->from < y->from ? -1 : x->from > y->from;
}

/* A row edge's R must divide both tile counts (every row has the same number of tiles). */
static int check_rows(const struct sk_persist_plan *p, const struct sk_persist_edge *x)
{
	int np, nc;

	if (x->flags != SK_PERSIST_EDGE_ROW)
		return 0;
	np = p->ntiles[x->from];
	nc = p->ntiles[x->to];
	if (x->rows < 1 || np % x->rows || nc % x->rows)
		return sk_fail(SKIP_E_INVAL,
			       "persistent plan: row edge %d -> %d: %d rows must divide both the "
			       "producer's %d tiles and the consumer's %d (use a common divisor of "
			       "the two)",
			       x->from, x->to, x->rows, np, nc);
	return 0;
}

/* The edge's rule as the plan stores it (persist.h: SK_PERSIST_RULE_TILE). */
static int edge_rule(const struct sk_persist_edge *x)
{
	if (x->flags == SK_PERSIST_EDGE_ROW)
		return x->rows;
	return x->flags == SK_PERSIST_EDGE_TILE ? SK_PERSIST_RULE_TILE : 0;
}

/* The CSR arrays from @d's edges, sorted, a repeated edge merged (full if any copy is). */
static int load_edges(struct sk_persist_plan *p, const struct sk_persist_dag *d)
{
	struct sk_persist_edge *e = NULL;
	int n = 0, *fill = NULL, err = 0;

	if (d->nedges < 0 || (d->nedges && !d->edges))
		return sk_fail(SKIP_E_INVAL, "persistent plan: %d edges", d->nedges);
	e = malloc(sizeof(*e) * ((size_t)d->nedges + 1));
	p->pred_off = calloc((size_t)p->ntasks + 1, sizeof(int));
	p->succ_off = calloc((size_t)p->ntasks + 1, sizeof(int));
	fill = calloc((size_t)p->ntasks, sizeof(int));
	if (!e || !p->pred_off || !p->succ_off || !fill) {
		err = sk_fail(SKIP_E_NOMEM, "out of memory");
		goto out;
	}
	for (int i = 0; i < d->nedges; i++) {
		const struct sk_persist_edge *x = &d->edges[i];

		if (x->from < 0 || x->from >= p->ntasks || x->to < 0 || x->to >= p->ntasks ||
		    (x->flags != 0 && x->flags != SK_PERSIST_EDGE_TILE &&
		     x->flags != SK_PERSIST_EDGE_ROW)) {
			err = sk_fail(SKIP_E_INVAL,
				      "persistent plan: edge %d (%d -> %d, flags %#x): tasks are "
				      "0..%d, the flags one of SK_PERSIST_EDGE_TILE and "
				      "SK_PERSIST_EDGE_ROW, or none",
				      i, x->from, x->to, x->flags, p->ntasks - 1);
			goto out;
		}
		if ((err = check_rows(p, x)))
			goto out;
		e[i] = *x;
		e[i].rows = edge_rule(x); /* from here on, the rule */
	}
	qsort(e, (size_t)d->nedges, sizeof(*e), edge_by_to);
	for (int i = 0; i < d->nedges; i++) {
		if (n && e[n - 1].from == e[i].from && e[n - 1].to == e[i].to) {
			if (e[n - 1].rows != e[i].rows) /* full, or two rules: full */
				e[n - 1].rows = 0;
		} else {
			e[n++] = e[i];
		}
	}
	p->nedges = n;
	p->pred = malloc(sizeof(int) * ((size_t)n + 1));
	p->succ = malloc(sizeof(int) * ((size_t)n + 1));
	p->pred_tile = malloc(sizeof(int) * ((size_t)n + 1));
	p->succ_tile = malloc(sizeof(int) * ((size_t)n + 1));
	if (!p->pred || !p->succ || !p->pred_tile || !p->succ_tile) {
		err = sk_fail(SKIP_E_NOMEM, "out of memory");
		goto out;
	}
	for (int i = 0; i < n; i++) {
		p->pred_off[e[i].to + 1]++;
		p->succ_off[e[i].from + 1]++;
	}
	for (int t = 0; t < p->ntasks; t++) {
		p->pred_off[t + 1] += p->pred_off[t];
		p->succ_off[t + 1] += p->succ_off[t];
	}
	/* sorted by (to, from): pred lists come out sorted, and succ lists too (by to) */
	for (int i = 0; i < n; i++) {
		int s = p->succ_off[e[i].from] + fill[e[i].from]++;

		p->pred[i] = e[i].from;
		p->pred_tile[i] = e[i].rows;
		p->succ[s] = e[i].to;
		p->succ_tile[s] = e[i].rows;
	}
out:
	free(fill);
	free(e);
	return err;
}

/* Name a cycle among the tasks Kahn's algorithm left (each has a predecessor among them). */
static int cycle_error(const struct sk_persist_plan *p, const int *indeg)
{
	int *seen = calloc((size_t)p->ntasks, sizeof(int)), t = 0, step = 0;
	struct sk_strbuf sb = {0};
	int err;

	if (!seen)
		return sk_fail(SKIP_E_NOMEM, "out of memory");
	while (indeg[t] == 0)
		t++;
	/* walk backwards through remaining predecessors until a task repeats */
	while (!seen[t]) {
		seen[t] = ++step;
		for (int i = p->pred_off[t]; i < p->pred_off[t + 1]; i++)
			if (indeg[p->pred[i]] > 0) {
				t = p->pred[i];
				break;
			}
	}
	/* t is on the cycle; walk it forwards for the message */
	sk_strbuf_printf(&sb, "%d", t);
	for (int u = t, hops = 0;; hops++) {
		int next = -1;

		for (int i = p->succ_off[u]; i < p->succ_off[u + 1] && next < 0; i++)
			if (indeg[p->succ[i]] > 0 && seen[p->succ[i]])
				next = p->succ[i];
		if (next < 0 || hops > 16) {
			sk_strbuf_printf(&sb, " ...");
			break;
		}
		sk_strbuf_printf(&sb, " -> %d", next);
		if (next == t)
			break;
		u = next;
	}
	err =
	    sk_fail(SKIP_E_INVAL, "persistent plan: tasks %s form a cycle", sb.buf ? sb.buf : "?");
	free(sb.buf);
	free(seen);
	return err;
}

/* Roots and a topological order (Kahn); a cycle is an error unless SK_PERSIST_UNCHECKED, and
 * then the tasks on or behind it follow in index order. */
static int order_tasks(struct sk_persist_plan *p)
{
	int *indeg = malloc(sizeof(int) * (size_t)p->ntasks), n = 0, err = 0;

	p->topo = malloc(sizeof(int) * (size_t)p->ntasks);
	p->roots = malloc(sizeof(int) * (size_t)p->ntasks);
	if (!indeg || !p->topo || !p->roots) {
		free(indeg);
		return sk_fail(SKIP_E_NOMEM, "out of memory");
	}
	for (int t = 0; t < p->ntasks; t++) {
		indeg[t] = p->pred_off[t + 1] - p->pred_off[t];
		if (!indeg[t])
			p->topo[n++] = p->roots[p->nroots++] = t;
	}
	for (int k = 0; k < n; k++) {
		int t = p->topo[k];

		for (int i = p->succ_off[t]; i < p->succ_off[t + 1]; i++)
			if (--indeg[p->succ[i]] == 0)
				p->topo[n++] = p->succ[i];
	}
	p->acyclic = n == p->ntasks;
	if (!p->acyclic && !(p->o.flags & SK_PERSIST_UNCHECKED))
		err = cycle_error(p, indeg);
	for (int t = 0; t < p->ntasks && !err && n < p->ntasks; t++)
		if (indeg[t] > 0)
			p->topo[n++] = t;
	free(indeg);
	return err;
}

/* ---- AOT: list scheduling -------------------------------------------------------------------- */

struct sched {
	const struct sk_persist_plan *p;
	double *rank;	  /* [ntasks] priority: predicted longest path to the end */
	double *tile_us;  /* [ntasks] */
	int *heap, nheap; /* ready tiles */
};

/* Tile a before tile b: higher rank, then lower plan tile number. */
static int before(const struct sched *s, int a, int b)
{
	double ra = s->rank[s->p->tile_task[a]], rb = s->rank[s->p->tile_task[b]];

	return ra != rb ? ra > rb : a < b;
}

static void heap_push(struct sched *s, int g)
{
	int i = s->nheap++;

	while (i > 0 && before(s, g, s->heap[(i - 1) / 2])) {
		s->heap[i] = s->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	s->heap[i] = g;
}

static int heap_pop(struct sched *s)
{
	int top = s->heap[0], last = s->heap[--s->nheap], i = 0;

	for (;;) {
		int c = 2 * i + 1;

		if (c >= s->nheap)
			break;
		if (c + 1 < s->nheap && before(s, s->heap[c + 1], s->heap[c]))
			c++;
		if (!before(s, s->heap[c], last))
			break;
		s->heap[i] = s->heap[c];
		i = c;
	}
	if (s->nheap)
		s->heap[i] = last;
	return top;
}

static void compute_ranks(struct sched *s, const struct sk_persist_dag *d)
{
	const struct sk_persist_plan *p = s->p;
	int W = p->o.nworkers;

	for (int t = 0; t < p->ntasks; t++)
		s->tile_us[t] = d->tasks[t].tile_us;
	for (int k = p->ntasks - 1; k >= 0; k--) {
		int t = p->topo[k];
		double tail = 0;

		for (int i = p->succ_off[t]; i < p->succ_off[t + 1]; i++)
			if (s->rank[p->succ[i]] > tail)
				tail = s->rank[p->succ[i]];
		s->rank[t] = s->tile_us[t] * ((p->ntiles[t] + W - 1) / W) + tail;
	}
}

/* Tile g has been dispatched and ends at @fin_us: release the consumer tiles waiting on it. */
static void release_consumers(struct sched *s, int g, double fin_us, int *pend, double *ready_us,
			      int *left, double *task_fin)
{
	const struct sk_persist_plan *p = s->p;
	int t = p->tile_task[g], k = g - p->tile_base[t], last = --left[t] == 0;

	if (fin_us > task_fin[t])
		task_fin[t] = fin_us;
	for (int i = p->succ_off[t]; i < p->succ_off[t + 1]; i++) {
		int c = p->succ[i], lo = 0, hi = p->ntiles[c];
		double at = task_fin[t];

		if (p->succ_tile[i]) {
			/* the consumer tiles that read tile k: the same overlap, seen from k */
			sk_persist_tile_range(p->succ_tile[i], k, p->ntiles[t], p->ntiles[c], &lo,
					      &hi);
			at = fin_us;
		} else if (!last) {
			continue;
		}
		for (int j = lo; j < hi; j++) {
			int gc = p->tile_base[c] + j;

			if (at > ready_us[gc])
				ready_us[gc] = at;
			if (--pend[gc] == 0)
				heap_push(s, gc);
		}
	}
}

/* Dispatch every tile (see the top of the file); returns the dispatch order in @ord and each
 * tile's worker in @worker_of. Tiles a cycle blocks (SK_PERSIST_UNCHECKED) go last, round-robin. */
static void dispatch_tiles(struct sched *s, int *pend, double *ready_us, int *left,
			   double *task_fin, double *free_us, int *ord, int *worker_of)
{
	struct sk_persist_plan *p = (struct sk_persist_plan *)s->p;
	int W = p->o.nworkers, n = 0;

	for (int g = 0; g < p->total_tiles; g++)
		if (!pend[g])
			heap_push(s, g);
	while (s->nheap) {
		int g = heap_pop(s), w = 0;
		double start = free_us[0] > ready_us[g] ? free_us[0] : ready_us[g];

		for (int v = 1; v < W; v++) {
			double sv = free_us[v] > ready_us[g] ? free_us[v] : ready_us[g];

			if (sv < start)
				start = sv, w = v;
		}
		p->start_us[g] = start;
		free_us[w] = start + s->tile_us[p->tile_task[g]];
		worker_of[g] = w;
		p->dispatch[g] = n;
		ord[n++] = g;
		release_consumers(s, g, free_us[w], pend, ready_us, left, task_fin);
	}
	for (int g = 0, r = 0; g < p->total_tiles; g++)
		if (p->dispatch[g] < 0) {
			worker_of[g] = r++ % W;
			p->start_us[g] = free_us[worker_of[g]];
			p->dispatch[g] = n;
			ord[n++] = g;
		}
	p->makespan_us = 0;
	for (int w = 0; w < W; w++)
		if (free_us[w] > p->makespan_us)
			p->makespan_us = free_us[w];
}

static int build_queues(struct sk_persist_plan *p, const struct sk_persist_dag *d)
{
	size_t T = (size_t)p->total_tiles, N = (size_t)p->ntasks, W = (size_t)p->o.nworkers;
	struct sched s = {.p = p};
	int *pend = calloc(T, sizeof(int)), *ord = malloc(sizeof(int) * T);
	int *worker_of = malloc(sizeof(int) * T), *left = malloc(sizeof(int) * N);
	double *ready_us = calloc(T, sizeof(double)), *task_fin = calloc(N, sizeof(double));
	double *free_us = calloc(W, sizeof(double));
	int err = 0;

	s.rank = calloc(N, sizeof(double));
	s.tile_us = malloc(sizeof(double) * N);
	s.heap = malloc(sizeof(int) * T);
	p->q_off = calloc(W + 1, sizeof(int));
	p->q = malloc(sizeof(int) * T);
	p->dispatch = malloc(sizeof(int) * T);
	p->start_us = calloc(T, sizeof(double));
	if (!pend || !ord || !worker_of || !left || !ready_us || !task_fin || !free_us || !s.rank ||
	    !s.tile_us || !s.heap || !p->q_off || !p->q || !p->dispatch || !p->start_us) {
		err = sk_fail(SKIP_E_NOMEM, "out of memory");
		goto out;
	}
	compute_ranks(&s, d);
	for (int t = 0; t < p->ntasks; t++) {
		left[t] = p->ntiles[t];
		for (int i = p->pred_off[t]; i < p->pred_off[t + 1]; i++)
			for (int k = 0; k < p->ntiles[t]; k++) {
				int lo = 0, hi = 1;

				if (p->pred_tile[i])
					sk_persist_tile_range(p->pred_tile[i], k, p->ntiles[t],
							      p->ntiles[p->pred[i]], &lo, &hi);
				pend[p->tile_base[t] + k] += hi - lo;
			}
	}
	for (size_t g = 0; g < T; g++)
		p->dispatch[g] = -1;
	dispatch_tiles(&s, pend, ready_us, left, task_fin, free_us, ord, worker_of);
	/* counting sort by worker, stable: each queue keeps the dispatch order */
	for (size_t g = 0; g < T; g++)
		p->q_off[worker_of[g] + 1]++;
	for (size_t w = 0; w < W; w++)
		p->q_off[w + 1] += p->q_off[w];
	for (size_t i = 0; i < T; i++) /* q_off[w] runs ahead as w's queue fills... */
		p->q[p->q_off[worker_of[ord[i]]]++] = ord[i];
	for (size_t w = W; w > 0; w--) /* ...so that it ends where w + 1 starts: shift back */
		p->q_off[w] = p->q_off[w - 1];
	p->q_off[0] = 0;
out:
	free(pend);
	free(ord);
	free(worker_of);
	free(left);
	free(ready_us);
	free(task_fin);
	free(free_us);
	free(s.rank);
	free(s.tile_us);
	free(s.heap);
	return err;
}

/* How many counters a tile of @t waits on at most. */
static int count_waits(const struct sk_persist_plan *p, int t)
{
	int n = 0;

	for (int i = p->pred_off[t]; i < p->pred_off[t + 1]; i++) {
		int lo = 0, hi = 1;

		if (p->pred_tile[i]) /* the widest range any tile of t reads */
			for (int k = 0; k < p->ntiles[t]; k++) {
				int a, b;

				sk_persist_tile_range(p->pred_tile[i], k, p->ntiles[t],
						      p->ntiles[p->pred[i]], &a, &b);
				if (b - a > hi - lo)
					lo = a, hi = b;
			}
		n += hi - lo;
	}
	return n;
}

/* The queues' entries as steps (AOT's worker loop reads nothing else of the plan). */
/* Plan time only: where each tile runs, the worker a task's tiles all run on (-1: several),
 * a task's last tile in dispatch order, and what another worker waits on (build_steps()). */
struct where {
	int *tile_worker, *task_worker, *task_last;
	unsigned char *tile_pub, *task_pub;
};

static void where_free(struct where *wh)
{
	free(wh->tile_worker);
	free(wh->task_worker);
	free(wh->task_last);
	free(wh->tile_pub);
	free(wh->task_pub);
}

static int where_new(const struct sk_persist_plan *p, struct where *wh)
{
	wh->tile_worker = malloc(sizeof(int) * ((size_t)p->total_tiles + 1));
	wh->task_worker = malloc(sizeof(int) * ((size_t)p->ntasks + 1));
	wh->task_last = malloc(sizeof(int) * ((size_t)p->ntasks + 1));
	wh->tile_pub = calloc((size_t)p->total_tiles + 1, 1);
	wh->task_pub = calloc((size_t)p->ntasks + 1, 1);
	if (!wh->tile_worker || !wh->task_worker || !wh->task_last || !wh->tile_pub ||
	    !wh->task_pub)
		return SKIP_E_NOMEM;
	for (int g = 0; g < p->total_tiles; g++)
		wh->tile_worker[g] = -1; /* a lost task's tiles run nowhere */
	for (int w = 0; w < p->o.nworkers; w++)
		for (int i = p->q_off[w]; i < p->q_off[w + 1]; i++)
			wh->tile_worker[p->q[i]] = w;
	for (int t = 0; t < p->ntasks; t++) {
		wh->task_worker[t] = p->ntiles[t] ? wh->tile_worker[p->tile_base[t]] : -1;
		wh->task_last[t] = -1;
		for (int k = 0; k < p->ntiles[t]; k++) {
			int g = p->tile_base[t] + k;

			if (wh->tile_worker[g] != wh->task_worker[t])
				wh->task_worker[t] = -1;
			if (p->dispatch[g] > wh->task_last[t])
				wh->task_last[t] = p->dispatch[g];
		}
	}
	return 0;
}

/* Tile @g, on worker @w, reads producer tile @gp: does it run before it on @w? (Always, in a
 * valid plan's queue order, when it runs on @w; a cycle that slipped past validation is why
 * the order is checked.) */
static int reads_local(const struct sk_persist_plan *p, const struct where *wh, int w, int g,
		       int gp)
{
	return wh->tile_worker[gp] == w && p->dispatch[gp] < p->dispatch[g];
}

static int build_steps(struct sk_persist_plan *p)
{
	size_t T = (size_t)p->total_tiles, extra = 0;
	struct where wh = {0};

	for (int t = 0; t < p->ntasks; t++) {
		int n = count_waits(p, t);

		if (n > SK_STEP_WAITS)
			extra += (size_t)(n - SK_STEP_WAITS) * (size_t)p->ntiles[t];
	}
	struct sk_persist_step *step = calloc(T + 1, sizeof(*step));
	struct sk_persist_wait *wait = calloc(extra + 1, sizeof(*wait));

	if (!step || !wait) {
		free(step);
		free(wait);
		return sk_fail(SKIP_E_NOMEM, "out of memory");
	}
	free(p->step);
	free(p->step_wait);
	p->step = step;
	p->step_wait = wait;
	p->nstep_wait = 0;
	if (where_new(p, &wh)) {
		where_free(&wh);
		return sk_fail(SKIP_E_NOMEM, "out of memory");
	}
	for (int w = 0, i = 0; i < p->q_off[p->o.nworkers]; i++) {
		struct sk_persist_step *s = &p->step[i];
		int g = p->q[i], t = p->tile_task[g], k = g - p->tile_base[t];

		while (i >= p->q_off[w + 1])
			w++;
		*s = (struct sk_persist_step){
		    .task = t, .tile = k, .g = g, .wait_off = p->nstep_wait};
		for (int j = p->pred_off[t]; j < p->pred_off[t + 1]; j++) {
			int q = p->pred[j], lo = 0, hi = 1, full_local = 0;

			if (p->pred_tile[j])
				sk_persist_tile_range(p->pred_tile[j], k, p->ntiles[t],
						      p->ntiles[q], &lo, &hi);
			else
				full_local =
				    wh.task_worker[q] == w && wh.task_last[q] < p->dispatch[g];
			for (int x = lo; x < hi; x++) {
				int c = p->pred_tile[j] ? -(p->tile_base[q] + x) - 1 : q;
				int per = p->pred_tile[j] ? 1 : p->ntiles[q];
				int local = p->pred_tile[j]
						? reads_local(p, &wh, w, g, p->tile_base[q] + x)
						: full_local;

				if (s->nwait < SK_STEP_WAITS) {
					s->ctr[s->nwait] = c;
					s->per_epoch[s->nwait] = per;
					s->flags |= local ? SK_STEP_LOCAL(s->nwait) : 0;
				} else {
					p->step_wait[p->nstep_wait++] =
					    (struct sk_persist_wait){c, per, local};
				}
				s->nwait++;
				s->flags |= local ? 0 : SK_STEP_REMOTE;
				if (!local && c < 0)
					wh.tile_pub[-c - 1] = 1;
				else if (!local)
					wh.task_pub[c] = 1;
			}
		}
	}
	for (int i = 0; i < p->q_off[p->o.nworkers]; i++) {
		struct sk_persist_step *s = &p->step[i];

		s->flags |= (wh.tile_pub[s->g] ? SK_STEP_PUB_TILE : 0) |
			    (wh.task_pub[s->task] ? SK_STEP_PUB_CTR : 0);
	}
	where_free(&wh);
	return 0;
}

/* JIT's task records (struct sk_persist_jtask), from the CSR arrays and lost. */
static int build_jtasks(struct sk_persist_plan *p)
{
	if (!p->jtask && !(p->jtask = calloc((size_t)p->ntasks, sizeof(*p->jtask))))
		return sk_fail(SKIP_E_NOMEM, "out of memory");
	for (int t = 0; t < p->ntasks; t++) {
		struct sk_persist_jtask *j = &p->jtask[t];
		int tile_in = 0;

		j->ntiles = p->ntiles[t];
		j->need = p->pred_off[t + 1] - p->pred_off[t];
		j->succ_off = p->succ_off[t];
		j->succ_end = p->succ_off[t + 1];
		j->tile_base = p->tile_base[t];
		j->flags = p->lost[t] ? SK_JT_LOST : 0;
		for (int i = p->pred_off[t]; i < p->pred_off[t + 1]; i++)
			tile_in |= p->pred_tile[i] != 0;
		for (int i = j->succ_off; i < j->succ_end; i++)
			if (p->succ_tile[i])
				j->flags |= SK_JT_TILE_OUT;
		if (tile_in)
			j->flags |= SK_JT_TILE_IN;
		else if (j->ntiles == 1 && !p->lost[t])
			j->flags |= SK_JT_KEEP;
	}
	return 0;
}

struct sk_persist_plan *sk_persist_plan_new(const struct sk_persist_dag *dag,
					    const struct sk_persist_opts *o, int *err)
{
	struct sk_persist_plan *p = calloc(1, sizeof(*p));
	int e;

	*err = 0;
	if (!p) {
		*err = sk_fail(SKIP_E_NOMEM, "out of memory");
		return NULL;
	}
	p->o = *o;
	if ((e = check_opts(o)) || (e = load_tasks(p, dag)) || (e = load_edges(p, dag)) ||
	    (e = order_tasks(p)))
		goto fail;
	if (o->mode == SK_PERSIST_COPILOT && o->feed_tiles &&
	    o->feed_tiles < (p->max_tiles > o->nworkers ? p->max_tiles : o->nworkers)) {
		e = sk_fail(
		    SKIP_E_INVAL,
		    "persistent plan: a feed ring of %d entries cannot hold the %d tiles of "
		    "the largest task and one stop entry per worker (%d): use 0 (derived) or "
		    "at least %d",
		    o->feed_tiles, p->max_tiles, o->nworkers,
		    p->max_tiles > o->nworkers ? p->max_tiles : o->nworkers);
		goto fail;
	}
	if ((e = build_queues(p, dag)) || (e = build_steps(p)) || (e = build_jtasks(p)))
		goto fail;
	p->jit_cap = pow2_at_least(p->total_tiles + o->nworkers); /* an epoch, and the stops */
	p->feed_cap = pow2_at_least(o->feed_tiles ? o->feed_tiles : p->total_tiles + o->nworkers);
	p->report_cap = pow2_at_least(2 * o->report_batch > 64 ? 2 * o->report_batch : 64);
	return p;
fail:
	sk_persist_plan_free(p);
	*err = e;
	return NULL;
}

int sk_persist_plan_lose(struct sk_persist_plan *p, int task)
{
	int n = 0, err;

	if (task < 0 || task >= p->ntasks || p->lost[task])
		return 0;
	p->lost[task] = 1;
	for (int w = 0, start = 0; w < p->o.nworkers; w++) {
		int end = p->q_off[w + 1];

		for (int i = start; i < end; i++)
			if (p->tile_task[p->q[i]] != task)
				p->q[n++] = p->q[i];
		start = end;
		p->q_off[w + 1] = n;
	}
	err = build_steps(p);
	return err ? err : build_jtasks(p);
}

double sk_persist_worker_span(const struct sk_persist_plan *p, const struct skip_tile_time *tt,
			      int t, uint64_t *lo, uint64_t *hi)
{
	double span = 0;

	for (int w = 0; w < p->o.nworkers; w++) {
		lo[w] = UINT64_MAX;
		hi[w] = 0;
	}
	for (int g = p->tile_base[t]; g < p->tile_base[t + 1]; g++) {
		int w = tt[g].worker;

		if (w < 0 || w >= p->o.nworkers || !tt[g].start_ns || tt[g].end_ns < tt[g].start_ns)
			continue;
		lo[w] = tt[g].start_ns < lo[w] ? tt[g].start_ns : lo[w];
		hi[w] = tt[g].end_ns > hi[w] ? tt[g].end_ns : hi[w];
	}
	for (int w = 0; w < p->o.nworkers; w++)
		if (hi[w] && (double)(hi[w] - lo[w]) > span)
			span = (double)(hi[w] - lo[w]);
	return span;
}
