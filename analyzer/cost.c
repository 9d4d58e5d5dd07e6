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
 * overlapping a range's edge is neither. The pairs are then the runs themselves.
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

/* Which occurrences walls() takes. */
enum which { ALL, INSIDE, OUTSIDE };

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

/* The wall intervals of the occurrences of @region in run @run_id (all of them, those inside a
 * capture range, or those that overlap none), appended to *@v; returns how many. */
static size_t walls(struct skip_trace *t, int64_t run_id, const char *region, enum which w,
		    double **v, size_t *n, size_t *cap)
{
	sqlite3_stmt *st = NULL;
	int64_t *spans = NULL;
	size_t k = 0, nspans = w == ALL ? 0 : capture_spans(t, run_id, &spans);

	if (sqlite3_prepare_v2(t->db,
			       "SELECT start, end FROM NVTX_EVENTS WHERE runId = ?1 AND eventType "
			       "IN (59, 60) AND text = ?2 AND typeof(start) = 'integer' AND "
			       "typeof(end) = 'integer' AND end >= start",
			       -1, &st, NULL) != SQLITE_OK) {
		free(spans);
		return 0;
	}
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_text(st, 2, region, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t s = sqlite3_column_int64(st, 0), e = sqlite3_column_int64(st, 1);
		int inside = 0, overlaps = 0;

		if (w != ALL)
			place(spans, nspans, s, e, &inside, &overlaps);
		if ((w == INSIDE && !inside) || (w == OUTSIDE && overlaps))
			continue;
		SK_VEC_XPUSH(*v, *n, *cap, (double)(e - s));
		k++;
	}
	sqlite3_finalize(st);
	free(spans);
	return k;
}

size_t skip_trace_range_walls(struct skip_trace *t, int64_t run_id, const char *text, double **out)
{
	size_t n = 0, cap = 0;

	*out = NULL;
	SK_VEC_XRESERVE(*out, cap, 1); /* never NULL */
	return walls(t, run_id, text, ALL, out, &n, &cap);
}

size_t skip_trace_uncaptured_walls(struct skip_trace *t, int64_t run_id, const char *text,
				   double **out)
{
	size_t n = 0, cap = 0;

	*out = NULL;
	SK_VEC_XRESERVE(*out, cap, 1);
	return walls(t, run_id, text, OUTSIDE, out, &n, &cap);
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

/* One kind's figures over its runs @ids (the occurrences @w picks); @med gets each run's
 * median (0: none). */
static void kind_of(struct skip_trace *t, const char *region, enum which w, const int64_t *ids,
		    size_t nids, double *med, struct skip_cost_kind *k)
{
	double *all = NULL;
	size_t n = 0, cap = 0;

	memset(k, 0, sizeof(*k));
	k->runs = (int)nids;
	for (size_t i = 0; i < nids; i++) {
		size_t from = n, got = walls(t, ids[i], region, w, &all, &n, &cap);
		double *mine = sk_xmalloc((got + 1) * sizeof(double));

		if (got) /* all is still NULL when no run had an occurrence */
			memcpy(mine, all + from, got * sizeof(double));
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
	k->occurrences = (int)n;
	k->wall_ns = n ? skip_median(all, n) : 0;
	free(all);
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
		kind_of(t, o->region, capture ? INSIDE : ALL, x->full, x->nfull, x->full_med,
			&x->row.full);
		kind_of(t, o->region, capture ? OUTSIDE : ALL, x->base, x->nbase, x->base_med,
			&x->row.baseline);
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
