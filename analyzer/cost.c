/*
 * cost.c: what the recording costs each region (docs/skip-report.md "Recording cost").
 *
 * `skip record --baseline` stores, beside each configuration's full runs, runs of kind
 * 'baseline' that record NVTX ranges and process identity only (no CUPTI activity). Their
 * regions have no GPU operations, so no IL: what both kinds share is the region's wall
 * interval, its NVTX range's end - start. Per configuration (command line and parameters, so
 * per sweep value), the wall intervals of the region's occurrences are compared: the median
 * over all occurrences of each kind, their ratio, and its spread over the interleaved pairs of
 * runs (skip record runs A B A B: the i-th full run beside the i-th baseline run). Everything
 * is read with plain queries: a baseline run is never loaded as a timeline.
 *
 * A trace recorded with `skip record --capture-range` and no baseline run is compared within
 * its runs instead: the region's occurrences inside a capture range (recorded) against those
 * outside every capture range (the same process, not recorded: NVTX is kept all along); one
 * overlapping a range's edge is neither. The pairs are then the runs themselves. Those outside
 * that end before the run's first range are also counted apart: a recording leaves a process
 * slower after it stops (docs/BENCHMARKS.md "What the on/off ratio misses").
 */
#define SK_LOG_DOMAIN "analyzer"
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct cfg {
	char *key;
	struct skip_cost_row row;
	int64_t *full, *base; /* run ids */
	size_t nfull, nbase, cap;
	double *full_med, *base_med; /* each run's median wall, 0 when it has no occurrence */
};

static char *run_text(struct skip_trace *t, const char *sql, int64_t run_id)
{
	sqlite3_stmt *st = NULL;
	char *s = NULL;

	if (sqlite3_prepare_v2(t->db, sql, -1, &st, NULL) != SQLITE_OK)
		return sk_xstrdup("");
	sqlite3_bind_int64(st, 1, run_id);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		s = sk_xstrdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return s ? s : sk_xstrdup("");
}

/* Wall intervals being collected. */
struct walls_vec {
	double *v;
	size_t n, cap;
};

/* The capture ranges of run @run_id (start, end pairs in *@v, by start): returns how many. */
static size_t capture_spans(struct skip_trace *t, int64_t run_id, int64_t **v)
{
	sqlite3_stmt *st = NULL;
	size_t n = 0, cap = 0;

	*v = NULL;
	SK_VEC_XRESERVE(*v, cap, 2);
	if (sqlite3_prepare_v2(
		t->db,
		"SELECT start, end FROM NVTX_EVENTS WHERE runId = ?1 AND text = ?2 AND "
		"typeof(start) = 'integer' AND typeof(end) = 'integer' ORDER BY start",
		-1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_text(st, 2, SKIP_CAPTURE_RANGE_TEXT, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		SK_VEC_XRESERVE(*v, cap, 2 * n + 2);
		(*v)[2 * n] = sqlite3_column_int64(st, 0);
		(*v)[2 * n + 1] = sqlite3_column_int64(st, 1);
		n++;
	}
	sqlite3_finalize(st);
	return n;
}

/* Whether [s, e] lies inside one of the @n spans @v (by start; they do not overlap), and
 * whether it overlaps any. */
static void place(const int64_t *v, size_t n, int64_t s, int64_t e, int *inside, int *overlaps)
{
	size_t lo = 0, hi = n;

	while (lo < hi) { /* the first span that starts after s */
		size_t mid = lo + (hi - lo) / 2;

		if (v[2 * mid] <= s)
			lo = mid + 1;
		else
			hi = mid;
	}
	*inside = lo > 0 && v[2 * (lo - 1) + 1] >= e;
	*overlaps = (lo > 0 && v[2 * (lo - 1) + 1] > s) || (lo < n && v[2 * lo] < e);
}

/* The wall intervals of the occurrences of @region in run @run_id, appended: without @out,
 * every occurrence to @in; with it, those inside a capture range to @in (when not NULL) and
 * those that overlap none to @out, and of those, the ones that end before the first range
 * begins to @first too (when not NULL). */
static void walls(struct skip_trace *t, int64_t run_id, const char *region, struct walls_vec *in,
		  struct walls_vec *out, struct walls_vec *first)
{
	sqlite3_stmt *st = NULL;
	int64_t *spans = NULL;
	size_t nspans = out ? capture_spans(t, run_id, &spans) : 0;

	if (sqlite3_prepare_v2(t->db,
			       "SELECT start, end FROM NVTX_EVENTS WHERE runId = ?1 AND eventType "
			       "IN (59, 60) AND text = ?2 AND typeof(start) = 'integer' AND "
			       "typeof(end) = 'integer' AND end >= start",
			       -1, &st, NULL) != SQLITE_OK) {
		free(spans);
		return;
	}
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_text(st, 2, region, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t s = sqlite3_column_int64(st, 0), e = sqlite3_column_int64(st, 1);
		int inside = 1, overlaps = 0;
		struct walls_vec *to;

		if (out)
			place(spans, nspans, s, e, &inside, &overlaps);
		to = inside ? in : overlaps ? NULL : out;
		if (to)
			SK_VEC_XPUSH(to->v, to->n, to->cap, (double)(e - s));
		if (first && to && to == out && nspans && e <= spans[0])
			SK_VEC_XPUSH(first->v, first->n, first->cap, (double)(e - s));
	}
	sqlite3_finalize(st);
	free(spans);
}

size_t skip_trace_range_walls(struct skip_trace *t, int64_t run_id, const char *text, double **out)
{
	struct walls_vec w = {0};

	SK_VEC_XRESERVE(w.v, w.cap, 1); /* never NULL */
	walls(t, run_id, text, &w, NULL, NULL);
	*out = w.v;
	return w.n;
}

size_t skip_trace_uncaptured_walls(struct skip_trace *t, int64_t run_id, const char *text,
				   double **out, double **before, size_t *nbefore)
{
	struct walls_vec w = {0}, b = {0};

	SK_VEC_XRESERVE(w.v, w.cap, 1);
	if (before)
		SK_VEC_XRESERVE(b.v, b.cap, 1);
	walls(t, run_id, text, NULL, &w, before ? &b : NULL);
	*out = w.v;
	if (before) {
		*before = b.v;
		*nbefore = b.n;
	}
	return w.n;
}

int skip_trace_has_captures(struct skip_trace *t)
{
	sqlite3_stmt *st = NULL;
	int yes = 0;

	/* the recording's metadata first: NVTX_EVENTS has no index on text */
	if (!sk_db_int(t->db, 0, "SELECT count(*) FROM SKIP_METADATA WHERE key = 'capture_range'"))
		return 0;
	if (sqlite3_prepare_v2(t->db, "SELECT 1 FROM NVTX_EVENTS WHERE text = ?1 LIMIT 1", -1, &st,
			       NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(st, 1, SKIP_CAPTURE_RANGE_TEXT, -1, SQLITE_STATIC);
	yes = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return yes;
}

/* Run @i's occurrences, those of @w from @from on, into kind @k; @med[i] gets their median (0:
 * none). */
static void run_into(struct skip_cost_kind *k, const struct walls_vec *w, size_t from, size_t i,
		     double *med)
{
	size_t got = w->n - from;
	double *mine = sk_xmalloc((got + 1) * sizeof(double));

	if (got) /* w->v is still NULL when no run had an occurrence */
		memcpy(mine, w->v + from, got * sizeof(double));
	med[i] = got ? skip_median(mine, got) : 0;
	free(mine);
	if (i == 0 || (int)got < k->per_run_min)
		k->per_run_min = (int)got;
	if (i == 0 || (int)got > k->per_run_max)
		k->per_run_max = (int)got;
	if (got && (!k->wall_min_ns || med[i] < k->wall_min_ns))
		k->wall_min_ns = med[i];
	if (got && med[i] > k->wall_max_ns)
		k->wall_max_ns = med[i];
}

/* The figures over runs @ids: every occurrence into @k[0] (@split 0), or each run's occurrences
 * inside its capture ranges into @k[0], those outside into @k[1] and those of them before its
 * first range into @k[2], read once (@split 1); @med[j] gets each run's median of kind j. */
static void kinds_of(struct skip_trace *t, const char *region, int split, const int64_t *ids,
		     size_t nids, double *const *med, struct skip_cost_kind *const *k)
{
	struct walls_vec w[3] = {{0}};
	int nk = split ? 3 : 1;

	for (int j = 0; j < nk; j++) {
		memset(k[j], 0, sizeof(*k[j]));
		k[j]->runs = (int)nids;
	}
	for (size_t i = 0; i < nids; i++) {
		size_t from[3] = {w[0].n, w[1].n, w[2].n};

		walls(t, ids[i], region, &w[0], split ? &w[1] : NULL, split ? &w[2] : NULL);
		for (int j = 0; j < nk; j++)
			run_into(k[j], &w[j], from[j], i, med[j]);
	}
	for (int j = 0; j < nk; j++) {
		k[j]->occurrences = (int)w[j].n;
		k[j]->wall_ns = w[j].n ? skip_median(w[j].v, w[j].n) : 0;
		free(w[j].v);
	}
}

/* Recorded IL and host-side share: medians over the report's regions of @c's full runs. */
static void recorded(const struct skip_report *r, struct cfg *c)
{
	double *il = sk_xmalloc((r->nregions + 1) * sizeof(double));
	double *hs = sk_xmalloc((r->nregions + 1) * sizeof(double));
	size_t n = 0;

	for (size_t g = 0; g < r->nregions; g++) {
		const struct skip_region *rg = &r->regions[g];

		if (rg->m.verdict == SKIP_VERDICT_EMPTY)
			continue;
		for (size_t i = 0; i < c->nfull; i++)
			if (c->full[i] == rg->run_id) {
				il[n] = (double)rg->m.il_ns;
				hs[n++] = rg->m.host_share;
				break;
			}
	}
	c->row.il_ns = skip_median(il, n);
	c->row.host_share = skip_median(hs, n);
	free(il);
	free(hs);
}

static void compare(struct cfg *c, int capture)
{
	struct skip_cost_row *w = &c->row;
	double delta, host;

	w->host_share_unprofiled = -1;
	if (!c->nbase)
		w->problem = "no baseline run of this configuration";
	else if (!w->full.occurrences)
		w->problem = capture ? "no occurrence of the region lies inside a capture range"
				     : "the full runs hold no occurrence of the region";
	else if (!w->baseline.occurrences)
		w->problem = capture ? "no occurrence of the region lies outside the capture ranges"
				     : "the baseline runs hold no occurrence of the region (were "
				       "its NVTX ranges recorded?)";
	else if (!capture && (w->full.per_run_min != w->baseline.per_run_min ||
			      w->full.per_run_max != w->baseline.per_run_max))
		w->problem = "the two kinds of runs hold different numbers of occurrences per "
			     "run: they did not do the same work, so they are not compared";
	else if (w->baseline.wall_ns <= 0)
		w->problem = "the baseline occurrences last 0 ns";
	if (w->problem)
		return;
	w->ratio = w->full.wall_ns / w->baseline.wall_ns;
	if (w->first.occurrences && w->first.wall_ns > 0)
		w->first_ratio = w->full.wall_ns / w->first.wall_ns;
	for (size_t i = 0; i < c->nfull && i < c->nbase; i++) {
		double x;

		if (c->full_med[i] <= 0 || c->base_med[i] <= 0)
			continue;
		x = c->full_med[i] / c->base_med[i];
		if (!w->pairs || x < w->ratio_min)
			w->ratio_min = x;
		if (!w->pairs || x > w->ratio_max)
			w->ratio_max = x;
		w->pairs++;
	}
	/* What the recording added to the wall interval, taken out of the host side: CUPTI's
	 * work runs on the program's threads, in its launch and sync calls. */
	delta = w->full.wall_ns - w->baseline.wall_ns;
	if (delta <= 0) {
		w->host_share_unprofiled = w->host_share;
		return;
	}
	host = w->host_share * w->il_ns - delta;
	if (w->il_ns - delta > 0)
		w->host_share_unprofiled = (host > 0 ? host : 0) / (w->il_ns - delta);
}

void sk_recording_cost(struct skip_trace *t, const struct skip_analysis_opts *o,
		       struct skip_report *r, const int64_t *ids, int64_t n)
{
	struct skip_recording_cost *c;
	struct cfg *cf = NULL;
	size_t ncf = 0, cfcap = 0;

	int64_t nbase = !t->has_kind ? 0
				     : sk_db_int(t->db, 0,
						 "SELECT count(*) FROM SKIP_RUNS WHERE kind = "
						 "'" SKIP_RUN_BASELINE "'");
	int capture = !nbase && skip_trace_has_captures(t);

	if (!nbase && !capture)
		return;
	c = sk_xcalloc(1, sizeof(*c));
	c->baseline_runs = nbase;
	c->capture = capture;
	r->cost = c;
	if (!o->region)
		return;
	c->region = sk_xstrdup(o->region);
	for (int64_t i = 0; i < n; i++) { /* the configurations, in run order */
		char *key = run_text(t,
				     "SELECT " SK_CONFIG_SQL("r") " FROM SKIP_RUNS r WHERE "
								  "runId = ?1",
				     ids[i]);
		size_t k;

		for (k = 0; k < ncf && strcmp(cf[k].key, key); k++)
			;
		if (k == ncf) {
			int64_t *b = NULL;

			SK_VEC_XRESERVE(cf, cfcap, ncf + 1);
			memset(&cf[k], 0, sizeof(cf[k]));
			cf[k].key = key;
			cf[k].row.config = run_text(
			    t,
			    "SELECT group_concat(name || '=' || value, ', ') FROM (SELECT name, "
			    "value FROM SKIP_PARAMETERS WHERE runId = ?1 ORDER BY name)",
			    ids[i]);
			if (!capture) {
				cf[k].nbase = (size_t)skip_trace_baseline_runs(t, ids[i], &b);
				cf[k].base = b;
			} else { /* the same runs: filled below */
				cf[k].base = sk_xmalloc(((size_t)n + 1) * sizeof(int64_t));
			}
			cf[k].full = sk_xmalloc(((size_t)n + 1) * sizeof(int64_t));
			ncf++;
		} else {
			free(key);
		}
		cf[k].full[cf[k].nfull++] = ids[i];
		if (capture)
			cf[k].base[cf[k].nbase++] = ids[i];
	}
	c->rows = sk_xcalloc(ncf + 1, sizeof(*c->rows));
	for (size_t k = 0; k < ncf; k++) {
		struct cfg *x = &cf[k];

		x->full_med = sk_xcalloc(x->nfull + 1, sizeof(double));
		x->base_med = sk_xcalloc(x->nbase + 1, sizeof(double));
		if (capture) { /* the same runs: each read once */
			double *first_med = sk_xcalloc(x->nfull + 1, sizeof(double));

			kinds_of(t, o->region, 1, x->full, x->nfull,
				 (double *const[]){x->full_med, x->base_med, first_med},
				 (struct skip_cost_kind *const[]){&x->row.full, &x->row.baseline,
								  &x->row.first});
			free(first_med);
		} else {
			kinds_of(t, o->region, 0, x->full, x->nfull, &x->full_med,
				 (struct skip_cost_kind *const[]){&x->row.full});
			kinds_of(t, o->region, 0, x->base, x->nbase, &x->base_med,
				 (struct skip_cost_kind *const[]){&x->row.baseline});
		}
		recorded(r, x);
		compare(x, capture);
		c->rows[c->nrows++] = x->row;
		free(x->key);
		free(x->full);
		free(x->base);
		free(x->full_med);
		free(x->base_med);
	}
	free(cf);
}

void sk_recording_cost_free(struct skip_recording_cost *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nrows; i++)
		free(c->rows[i].config);
	free(c->rows);
	free(c->region);
	free(c);
}
