/*
 * analyze.c: skip_analyze(). For each selected run: load it, find operators, cut it into regions
 * (the run, or each occurrence of an NVTX range), compute each region's metrics, add its kernels
 * to the per-name and per-operator totals, free the run. Then the statistics across regions,
 * the verdict and the top lists.
 */
#define SK_LOG_DOMAIN "analyzer"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Totals per kernel name (indexed by StringIds id), per operator and attribution (in order of
 * first sight; each named by a borrowed texts string), and of the kernels with no operator. */
struct totals {
	struct skip_name_stat *kern;
	size_t nkern;
	struct skip_name_stat *ops;
	size_t nops, capops;
	struct sk_hash opidx; /* operator name's texts id * SKIP_ATTR_N + attr + 1 -> ops index */
	struct skip_name_stat none;
	int64_t by_attr[SKIP_ATTR_N];
};

static void add_stat(struct skip_name_stat *s, int64_t dur, int64_t launch_ns)
{
	if (!s->count || dur < s->min_ns)
		s->min_ns = dur;
	if (!s->count || dur > s->max_ns)
		s->max_ns = dur;
	s->count++;
	s->total_ns = skip_add_sat(s->total_ns, dur);
	s->launch_ns = skip_add_sat(s->launch_ns, launch_ns);
}

/* The totals of the operator of @op (stack != 0), added when new. */
static struct skip_name_stat *op_stat(struct skip_trace *t, const struct sk_rec *op,
				      struct totals *tot)
{
	uint32_t name = sk_operator_name(t, t->stacks.nodes[op->stack].text);
	uint64_t key = (uint64_t)name * SKIP_ATTR_N + op->attr + 1,
		 *i = sk_hash_get(&tot->opidx, key);

	if (i)
		return &tot->ops[*i];
	sk_hash_xreserve(&tot->opidx, 1);
	sk_hash_put(&tot->opidx, key, tot->nops); /* cannot fail: room reserved */
	SK_VEC_XRESERVE(tot->ops, tot->capops, tot->nops + 1);
	tot->ops[tot->nops] =
	    (struct skip_name_stat){.name = t->texts.s[name], .attr = (enum skip_attr)op->attr};
	return &tot->ops[tot->nops++];
}

static void add_kernels(struct skip_trace *t, const struct sk_loaded_run *run,
			const uint32_t *members, size_t n, struct totals *tot)
{
	for (size_t k = 0; k < n; k++) {
		const struct sk_rec *op = &run->ops[members[k]];
		int64_t dur = op->end - op->start, launch_ns = 0;

		if (op->kind != SKIP_OP_KERNEL)
			continue;
		if ((op->flags & SK_F_API) &&
		    (!(op->flags & SK_F_GRAPH) || (op->flags & SK_F_GRAPH_FIRST)))
			launch_ns = op->start - op->launch;
		if (op->name >= 0 && (size_t)op->name < tot->nkern)
			add_stat(&tot->kern[op->name], dur, launch_ns);
		add_stat(op->stack ? op_stat(t, op, tot) : &tot->none, dur, launch_ns);
		tot->by_attr[op->stack ? op->attr : SKIP_ATTR_NONE]++;
	}
}

static void push_region(struct skip_report *r, size_t *cap, int64_t run_id, const char *name,
			int occurrence, const struct skip_metrics *m)
{
	struct skip_region *g;

	SK_VEC_XRESERVE(r->regions, *cap, r->nregions + 1);
	g = &r->regions[r->nregions++];
	g->run_id = run_id;
	g->name = name ? sk_xstrdup(name) : NULL;
	g->occurrence = occurrence;
	g->m = *m;
	if (m->verdict == SKIP_VERDICT_EMPTY)
		r->nempty++;
}

/* Group the operation indices by region (counting sort): region w's members are
 * members[off[w] .. off[w + 1]). */
static uint32_t *group_by_region(const struct sk_loaded_run *run, size_t nw, size_t **off)
{
	uint32_t *members = sk_xmalloc((run->nops + 1) * sizeof(uint32_t));
	size_t *pos;

	*off = sk_xcalloc(nw + 2, sizeof(size_t));
	for (size_t i = 0; i < run->nops; i++)
		if (run->ops[i].region >= 0)
			(*off)[run->ops[i].region + 1]++;
	for (size_t w = 0; w < nw; w++)
		(*off)[w + 1] += (*off)[w];
	pos = sk_xmalloc((nw + 1) * sizeof(size_t));
	memcpy(pos, *off, (nw + 1) * sizeof(size_t));
	for (size_t i = 0; i < run->nops; i++)
		if (run->ops[i].region >= 0)
			members[pos[run->ops[i].region]++] = (uint32_t)i;
	free(pos);
	return members;
}

/* One run's regions. Returns 0, or a negative code; *found tells whether the region name
 * occurred in the run. */
static int analyze_run(struct skip_trace *t, const struct skip_analysis_opts *o, int64_t run_id,
		       struct skip_report *r, size_t *cap, struct totals *tot, int *found)
{
	struct sk_loaded_run run;
	struct sk_dev_order ord;
	uint64_t t0 = skip_clock_ns(CLOCK_MONOTONIC);
	int err = sk_run_load(t, run_id, 0, &run);

	*found = 0;
	if (err)
		return err;
	sk_dbg(1, "run %lld: %zu operations loaded in %.2f s", (long long)run_id, run.nops,
	       (double)(skip_clock_ns(CLOCK_MONOTONIC) - t0) / 1e9);
	sk_malformed_add(&r->malformed, &run.bad);
	sk_run_operators(t, &run);
	if (!run.nops) {
		sk_run_free(&run);
		return 0;
	}
	sk_dbg(1, "run %lld: %zu NVTX ranges, operators after %.2f s", (long long)run_id,
	       run.nranges, (double)(skip_clock_ns(CLOCK_MONOTONIC) - t0) / 1e9);
	sk_dev_order_build(&run, &ord);
	sk_dbg(1, "run %lld: device order after %.2f s", (long long)run_id,
	       (double)(skip_clock_ns(CLOCK_MONOTONIC) - t0) / 1e9);
	if (!o->region) {
		struct skip_metrics m;
		uint32_t *all = sk_xmalloc((run.nops + 1) * sizeof(uint32_t));

		for (size_t i = 0; i < run.nops; i++)
			all[i] = (uint32_t)i;
		sk_region_metrics(&run, &ord, all, run.nops, run.t0, r->threshold, &m);
		add_kernels(t, &run, all, run.nops, tot);
		free(all);
		push_region(r, cap, run_id, NULL, 1, &m);
		*found = 1;
	} else {
		uint32_t text = (uint32_t)sk_strtab_find(&t->texts, o->region);
		struct sk_range *win = NULL;
		size_t nw = text ? sk_run_regions(&run, text, &win) : 0, *off = NULL;
		uint32_t *members = group_by_region(&run, nw, &off);

		*found = nw > 0;
		for (size_t w = 0; w < nw; w++) {
			struct skip_metrics m;
			size_t n = off[w + 1] - off[w];

			sk_region_metrics(&run, &ord, members + off[w], n, win[w].start,
					  r->threshold, &m);
			if (m.verdict != SKIP_VERDICT_EMPTY)
				add_kernels(t, &run, members + off[w], n, tot);
			push_region(r, cap, run_id, o->region, (int)w + 1, &m);
		}
		free(members);
		free(off);
		free(win);
	}
	sk_dbg(1, "run %lld: metrics after %.2f s", (long long)run_id,
	       (double)(skip_clock_ns(CLOCK_MONOTONIC) - t0) / 1e9);
	sk_dev_order_free(&ord);
	sk_run_free(&run);
	return 0;
}

/* ---- statistics and top lists ---------------------------------------------------------------- */

static const struct {
	const char *name, *unit;
} metric_info[SKIP_M_COUNT] = {
    [SKIP_M_IL] = {"il_ns", "ns"},
    [SKIP_M_TKLQT] = {"tklqt_ns", "ns"},
    [SKIP_M_T_API] = {"t_api_ns", "ns"},
    [SKIP_M_T_QUEUE] = {"t_queue_ns", "ns"},
    [SKIP_M_TKLQT_PER_KERNEL] = {"tklqt_per_kernel_ns", "ns"},
    [SKIP_M_AKD] = {"akd_ns", "ns"},
    [SKIP_M_BUSY] = {"busy_ns", "ns"},
    [SKIP_M_IDLE] = {"idle_ns", "ns"},
    [SKIP_M_IL_MINUS_KERNEL] = {"il_minus_kernel_ns", "ns"},
    [SKIP_M_HOST_WAIT] = {"host_wait_ns", "ns"},
    [SKIP_M_SYNC_STALL] = {"sync_stall_ns", "ns"},
    [SKIP_M_DEVICE_LATENCY] = {"device_latency_ns", "ns"},
    [SKIP_M_LAUNCH_LATENCY] = {"launch_latency_ns", "ns"},
    [SKIP_M_HOST_SHARE] = {"host_share", "ratio"},
    [SKIP_M_KERNELS] = {"kernels", "count"},
    [SKIP_M_LAUNCHES_PER_S] = {"launches_per_s", "1/s"},
    [SKIP_M_SHORT_KERNELS] = {"short_kernels", "count"},
    [SKIP_M_NEG_QUEUE] = {"negative_t_queue", "count"},
    [SKIP_M_NEG_LAUNCH] = {"negative_t_launch", "count"},
    [SKIP_M_NO_API] = {"kernels_without_launch_call", "count"},
};

const char *skip_metric_name(enum skip_metric_id id)
{
	return id < SKIP_M_COUNT ? metric_info[id].name : "?";
}

const char *skip_metric_unit(enum skip_metric_id id)
{
	return id < SKIP_M_COUNT ? metric_info[id].unit : "?";
}

double skip_metric_value(const struct skip_metrics *m, enum skip_metric_id id)
{
	switch (id) {
	case SKIP_M_IL:
		return (double)m->il_ns;
	case SKIP_M_TKLQT:
		return (double)m->tklqt_ns;
	case SKIP_M_T_API:
		return (double)m->t_api_ns;
	case SKIP_M_T_QUEUE:
		return (double)m->t_queue_ns;
	case SKIP_M_TKLQT_PER_KERNEL:
		return m->launched ? (double)m->tklqt_ns / (double)m->launched : 0;
	case SKIP_M_AKD:
		return m->akd_ns;
	case SKIP_M_BUSY:
		return (double)m->busy_ns;
	case SKIP_M_IDLE:
		return (double)m->idle_ns;
	case SKIP_M_IL_MINUS_KERNEL:
		return (double)m->il_minus_kernel_ns;
	case SKIP_M_HOST_WAIT:
		return (double)m->host_wait_ns;
	case SKIP_M_SYNC_STALL:
		return (double)m->sync_stall_ns;
	case SKIP_M_DEVICE_LATENCY:
		return (double)m->device_latency_ns;
	case SKIP_M_LAUNCH_LATENCY:
		return (double)m->launch_latency_ns;
	case SKIP_M_HOST_SHARE:
		return m->host_share;
	case SKIP_M_KERNELS:
		return (double)m->kernels;
	case SKIP_M_LAUNCHES_PER_S:
		return m->launches_per_s;
	case SKIP_M_SHORT_KERNELS:
		return (double)m->short_kernels;
	case SKIP_M_NEG_QUEUE:
		return (double)m->neg_queue;
	case SKIP_M_NEG_LAUNCH:
		return (double)m->neg_launch;
	case SKIP_M_NO_API:
		return (double)m->no_api;
	default:
		return 0;
	}
}

const char *skip_verdict_name(enum skip_verdict v)
{
	switch (v) {
	case SKIP_VERDICT_CPU_BOUND:
		return "CPU-bound";
	case SKIP_VERDICT_GPU_BOUND:
		return "GPU-bound";
	default:
		return "empty";
	}
}

/* Mean, median (skip_median(): the mean of the two middle values for an even count), min, max
 * and sample standard deviation of @v. */
static void describe(double *v, int n, struct skip_stat *s)
{
	double sum = 0, sq = 0;

	memset(s, 0, sizeof(*s));
	s->n = n;
	if (!n)
		return;
	s->median = skip_median(v, (size_t)n); /* sorts v */
	for (int i = 0; i < n; i++)
		sum += v[i];
	s->mean = sum / n;
	for (int i = 0; i < n; i++)
		sq += (v[i] - s->mean) * (v[i] - s->mean);
	s->stdev = n > 1 ? sqrt(sq / (n - 1)) : 0;
	s->min = v[0];
	s->max = v[n - 1];
}

static void compute_stats(struct skip_report *r)
{
	double *v = sk_xmalloc((r->nregions + 1) * sizeof(double));

	for (int id = 0; id < SKIP_M_COUNT; id++) {
		int n = 0;

		for (size_t i = 0; i < r->nregions; i++)
			if (r->regions[i].m.verdict != SKIP_VERDICT_EMPTY)
				v[n++] =
				    skip_metric_value(&r->regions[i].m, (enum skip_metric_id)id);
		describe(v, n, &r->stats[id]);
	}
	free(v);
	r->verdict = r->stats[SKIP_M_HOST_SHARE].n == 0			  ? SKIP_VERDICT_EMPTY
		     : r->stats[SKIP_M_HOST_SHARE].median >= r->threshold ? SKIP_VERDICT_CPU_BOUND
									  : SKIP_VERDICT_GPU_BOUND;
}

static int cmp_by_time(const void *a, const void *b)
{
	const struct skip_name_stat *x = a, *y = b;

	int c;

	if (x->total_ns != y->total_ns)
		return x->total_ns > y->total_ns ? -1 : 1;
	c = strcmp(x->name, y->name);
	return c ? c : (int)x->attr - (int)y->attr;
}

static int cmp_by_count(const void *a, const void *b)
{
	const struct skip_name_stat *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Fold @s into @to (a sum of several names' totals). */
static void merge_stat(struct skip_name_stat *to, const struct skip_name_stat *s)
{
	if (!to->count || s->min_ns < to->min_ns)
		to->min_ns = s->min_ns;
	if (!to->count || s->max_ns > to->max_ns)
		to->max_ns = s->max_ns;
	to->count += s->count;
	to->total_ns = skip_add_sat(to->total_ns, s->total_ns);
	to->launch_ns = skip_add_sat(to->launch_ns, s->launch_ns);
}

/* The @k first of @all (those with a count) by @cmp, as named copies: entry i is named
 * names[i] (@names NULL: its own borrowed name). The others are summed into @rest (when not
 * NULL), *@nrest of them. */
static struct skip_name_stat *top(const struct skip_name_stat *all, size_t n, char **names,
				  int (*cmp)(const void *, const void *), size_t k, size_t *out_n,
				  struct skip_name_stat *rest, size_t *nrest)
{
	struct skip_name_stat *v = sk_xmalloc((n + 1) * sizeof(*v));
	size_t m = 0;

	for (size_t i = 0; i < n; i++)
		if (all[i].count) {
			v[m] = all[i];
			if (names)
				v[m].name = names[i];
			if (!v[m].name)
				v[m].name = "";
			m++;
		}
	qsort(v, m, sizeof(*v), cmp);
	if (rest) {
		*nrest = m > k ? m - k : 0;
		for (size_t i = k; i < m; i++)
			merge_stat(rest, &v[i]);
	}
	if (m > k)
		m = k;
	for (size_t i = 0; i < m; i++)
		v[i].name = sk_xstrdup(v[i].name);
	*out_n = m;
	return v;
}

static void make_tops(struct skip_trace *t, struct skip_report *r, struct totals *tot, int k)
{
	r->distinct_kernels = 0;
	for (size_t i = 0; i < tot->nkern; i++)
		r->distinct_kernels += tot->kern[i].count > 0;
	r->top_by_time = top(tot->kern, tot->nkern, t->strings, cmp_by_time, (size_t)k,
			     &r->ntop_time, NULL, NULL);
	r->top_by_count = top(tot->kern, tot->nkern, t->strings, cmp_by_count, (size_t)k,
			      &r->ntop_count, NULL, NULL);
	r->top_ops = top(tot->ops, tot->nops, NULL, cmp_by_time, (size_t)k, &r->ntop_ops,
			 &r->ops_rest, &r->nops_rest);
	r->ops_none = tot->none;
	memcpy(r->kernels_by_attr, tot->by_attr, sizeof(r->kernels_by_attr));
	r->kernels_with_operator = 0;
	for (int a = SKIP_ATTR_THREAD; a < SKIP_ATTR_N; a++)
		r->kernels_with_operator += tot->by_attr[a];
}

const char *skip_attr_name(enum skip_attr a)
{
	static const char *const names[SKIP_ATTR_N] = {
	    [SKIP_ATTR_NONE] = "none",
	    [SKIP_ATTR_THREAD] = "thread",
	    [SKIP_ATTR_SEQ] = "seq",
	    [SKIP_ATTR_OTHER] = "other_thread",
	};

	return (unsigned)a < SKIP_ATTR_N ? names[a] : "none";
}

const char *skip_attr_suffix(enum skip_attr a)
{
	return a == SKIP_ATTR_SEQ     ? " (other thread, seq)"
	       : a == SKIP_ATTR_OTHER ? " (other thread)"
				      : "";
}

/* ---- sweeps ------------------------------------------------------------------------------------
 */

/* The swept parameter: the one asked for, or the first numeric one with two values or more. */
static char *sweep_param(struct skip_trace *t, const char *want)
{
	sqlite3_stmt *st = NULL;
	char *name = NULL;

	if (sqlite3_prepare_v2(
		t->db,
		"SELECT name FROM SKIP_PARAMETERS WHERE numericValue IS NOT NULL "
		"AND numericValue > 0 AND (?1 IS NULL OR name = ?1) GROUP BY name "
		"HAVING count(DISTINCT numericValue) >= 2 ORDER BY min(runId) LIMIT 1",
		-1, &st, NULL) != SQLITE_OK)
		return NULL;
	if (want)
		sqlite3_bind_text(st, 1, want, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		name = sk_xstrdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return name;
}

/* The value of @param in each run: vals[i] for run ids[i] (0 when the run has none). */
static double *run_values(struct skip_trace *t, const char *param, const int64_t *ids, int64_t n)
{
	double *vals = sk_xcalloc((size_t)n + 1, sizeof(double));
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(
		t->db, "SELECT numericValue FROM SKIP_PARAMETERS WHERE runId = ? AND name = ?", -1,
		&st, NULL) != SQLITE_OK)
		return vals;
	for (int64_t i = 0; i < n; i++) {
		sqlite3_bind_int64(st, 1, ids[i]);
		sqlite3_bind_text(st, 2, param, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
			vals[i] = sqlite3_column_double(st, 0);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return vals;
}

static void sweep_point(const struct skip_report *r, const int64_t *ids, const double *vals,
			int64_t nruns, double value, struct skip_sweep_point *p)
{
	static const enum skip_metric_id ms[] = {
	    SKIP_M_IL,	       SKIP_M_TKLQT,   SKIP_M_TKLQT_PER_KERNEL,
	    SKIP_M_AKD,	       SKIP_M_BUSY,    SKIP_M_IDLE,
	    SKIP_M_HOST_SHARE, SKIP_M_KERNELS, SKIP_M_LAUNCHES_PER_S};
	double *out[] = {&p->il_ns,	 &p->tklqt_ns, &p->tklqt_per_kernel_ns,
			 &p->akd_ns,	 &p->busy_ns,  &p->idle_ns,
			 &p->host_share, &p->kernels,  &p->launches_per_s};
	double *v = sk_xmalloc((r->nregions + 1) * sizeof(double));

	memset(p, 0, sizeof(*p));
	p->value = value;
	p->run_ids = sk_xmalloc(((size_t)nruns + 1) * sizeof(int64_t));
	for (int64_t i = 0; i < nruns; i++)
		if (vals[i] == value)
			p->run_ids[p->runs++] = ids[i];
	for (size_t m = 0; m < sizeof(ms) / sizeof(ms[0]); m++) {
		int n = 0;

		for (size_t g = 0; g < r->nregions; g++) {
			const struct skip_region *rg = &r->regions[g];
			int64_t i;

			if (rg->m.verdict == SKIP_VERDICT_EMPTY)
				continue;
			for (i = 0; i < nruns && ids[i] != rg->run_id; i++)
				;
			if (i < nruns && vals[i] == value)
				v[n++] = skip_metric_value(&rg->m, ms[m]);
		}
		p->regions = n;
		*out[m] = skip_median(v, (size_t)n);
	}
	p->verdict = !p->regions		     ? SKIP_VERDICT_EMPTY
		     : p->host_share >= r->threshold ? SKIP_VERDICT_CPU_BOUND
						     : SKIP_VERDICT_GPU_BOUND;
	free(v);
}

static void build_sweep(struct skip_trace *t, const struct skip_analysis_opts *o,
			struct skip_report *r, const int64_t *ids, int64_t nruns)
{
	char *param = nruns > 1 ? sweep_param(t, o->param) : NULL;
	double *vals, *x, *h, *tk;
	struct skip_sweep *s;
	size_t n = 0;

	if (!param)
		return;
	vals = run_values(t, param, ids, nruns);
	s = sk_xcalloc(1, sizeof(*s));
	s->param = param;
	s->pts = sk_xcalloc((size_t)nruns + 1, sizeof(*s->pts));
	x = sk_xmalloc(((size_t)nruns + 1) * 3 * sizeof(double));
	h = x + nruns + 1;
	tk = h + nruns + 1;
	for (int64_t i = 0; i < nruns; i++) { /* the distinct values, ascending */
		size_t k;

		if (vals[i] <= 0)
			continue;
		for (k = 0; k < n && x[k] != vals[i]; k++)
			;
		if (k == n)
			x[n++] = vals[i];
	}
	qsort(x, n, sizeof(double), sk_cmp_double);
	for (size_t k = 0; k < n; k++) {
		sweep_point(r, ids, vals, nruns, x[k], &s->pts[s->npts]);
		if (s->pts[s->npts].regions) {
			h[s->npts] = s->pts[s->npts].host_share;
			tk[s->npts] = s->pts[s->npts].tklqt_ns;
			x[s->npts] = x[k];
			s->npts++;
		} else { /* a value with no region that did GPU work: not a point */
			free(s->pts[s->npts].run_ids);
			s->pts[s->npts].run_ids = NULL;
		}
	}
	skip_sweep_crossover(x, h, tk, s->npts, r->threshold,
			     o->knee_eps > 0 ? o->knee_eps : SKIP_DEFAULT_KNEE_EPS, s);
	free(x);
	free(vals);
	r->sweep = s;
}

/* ---- the entry point ------------------------------------------------------------------------- */

static int check_runs(struct skip_trace *t, const struct skip_analysis_opts *o, int64_t **ids,
		      int64_t *n)
{
	*n = sk_trace_run_ids(t, ids);
	if (o->run_id && skip_trace_is_baseline(t, o->run_id))
		return sk_fail(SKIP_E_NOTFOUND,
			       "%s: run %lld is a baseline run (skip record --baseline): it holds "
			       "NVTX ranges only; its cost figures are in the report of the whole "
			       "file with --region NAME",
			       t->path, (long long)o->run_id);
	if (o->run_id) {
		for (int64_t i = 0; i < *n; i++)
			if ((*ids)[i] == o->run_id) {
				(*ids)[0] = o->run_id;
				*n = 1;
				return 0;
			}
		return sk_fail(SKIP_E_NOTFOUND, "%s: no run %lld (the file has %lld run%s%s)",
			       t->path, (long long)o->run_id, (long long)*n, *n == 1 ? "" : "s",
			       *n ? "; 'skip info' lists them" : "");
	}
	if (!*n)
		return sk_fail(SKIP_E_EMPTY, "%s: no runs and no kernels in this trace", t->path);
	return 0;
}

/* The NVTX range names of the file, most frequent first, for "no range named X" messages. */
static void list_ranges(struct skip_trace *t, char *buf, size_t n)
{
	sqlite3_stmt *st = NULL;
	size_t used = 0;

	buf[0] = '\0';
	if (sqlite3_prepare_v2(t->db,
			       "SELECT text FROM NVTX_EVENTS WHERE eventType IN (59, 60) GROUP BY "
			       "text ORDER BY count(*) DESC, text LIMIT 12",
			       -1, &st, NULL) != SQLITE_OK)
		return;
	while (sqlite3_step(st) == SQLITE_ROW && used < n)
		used += (size_t)snprintf(buf + used, n - used, "%s'%s'", used ? ", " : "",
					 (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
}

static int no_regions(struct skip_trace *t, const struct skip_analysis_opts *o, int found,
		      const struct skip_report *r)
{
	char names[512];

	if (o->region && !found) {
		list_ranges(t, names, sizeof(names));
		return sk_fail(SKIP_E_NOTFOUND, "%s: no NVTX range named '%s'%s%s", t->path,
			       o->region,
			       names[0] ? "; ranges present: "
					: " (the trace has no "
					  "NVTX ranges)",
			       names);
	}
	if (o->region)
		return sk_fail(SKIP_E_EMPTY, "%s: the %zu occurrence%s of '%s' hold%s no GPU work",
			       t->path, r->nregions, r->nregions == 1 ? "" : "s", o->region,
			       r->nregions == 1 ? "s" : "");
	if (o->run_id)
		return sk_fail(SKIP_E_EMPTY,
			       "%s: run %lld has no kernels, memcpys or memsets (did the program "
			       "use CUDA? 'skip info' shows what was recorded)",
			       t->path, (long long)o->run_id);
	return sk_fail(SKIP_E_EMPTY,
		       "%s: no kernels, memcpys or memsets in any run (did the program use CUDA? "
		       "'skip info' shows what was recorded)",
		       t->path);
}

static const char *const unavailable_texts[][2] = {
    {"dropped_records", "dropped-record count: the source does not count lost records"},
    {"submitted", "hardware queued/submitted times: idle before a kernel is split into host "
		  "wait and device latency at its launch call's return"},
    {"exit_status", "the program's exit status: every run counts as ok"},
    {"graph_nodes", "CUDA graph node ids: each kernel of a graph launch counts as launched by "
		    "the graph launch call (TKLQT, t_launch)"},
};

const char *skip_unavailable_text(const char *key)
{
	for (size_t i = 0; i < sizeof(unavailable_texts) / sizeof(unavailable_texts[0]); i++)
		if (!strcmp(key, unavailable_texts[i][0]))
			return unavailable_texts[i][1];
	return NULL;
}

int skip_report_lacks(const struct skip_report *r, const char *key)
{
	for (size_t i = 0; i < r->nunavailable; i++)
		if (!strcmp(r->unavailable[i], key))
			return 1;
	return 0;
}

/* Add the known keys among the comma-separated @list that r->unavailable[] lacks. */
static void add_unavailable(struct skip_report *r, const char *list)
{
	const size_t nkeys = sizeof(unavailable_texts) / sizeof(unavailable_texts[0]);

	while (*list) {
		size_t n = strcspn(list, ",");

		for (size_t i = 0; i < nkeys; i++) {
			const char *key = unavailable_texts[i][0];

			if (strlen(key) == n && !strncmp(list, key, n) &&
			    !skip_report_lacks(r, key) &&
			    r->nunavailable < sizeof(r->unavailable) / sizeof(r->unavailable[0]))
				r->unavailable[r->nunavailable++] = key;
		}
		list += n + (list[n] == ',');
	}
}

/* SKIP_METADATA's 'source' and 'unavailable' rows of the analyzed runs (skip import writes them).
 */
static void report_source(struct skip_trace *t, struct skip_report *r, const int64_t *ids,
			  int64_t n)
{
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(
		t->db,
		"SELECT key, value FROM SKIP_METADATA WHERE runId = ? AND globalPid = 0 "
		"AND key IN ('source', 'unavailable') AND value IS NOT NULL",
		-1, &st, NULL) != SQLITE_OK)
		return;
	for (int64_t i = 0; i < n; i++) {
		sqlite3_bind_int64(st, 1, ids[i]);
		while (sqlite3_step(st) == SQLITE_ROW) {
			const char *k = (const char *)sqlite3_column_text(st, 0);
			const char *v = (const char *)sqlite3_column_text(st, 1);

			if (k && v && !strcmp(k, "source"))
				snprintf(r->source, sizeof(r->source), "%s", v);
			else if (k && v)
				add_unavailable(r, v);
		}
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
}

static void report_header(struct skip_trace *t, struct skip_report *r, const int64_t *ids,
			  int64_t n)
{
	sqlite3_stmt *st = NULL;

	r->runs = n;
	report_source(t, r, ids, n);
	for (int64_t i = 0; i < n; i++) {
		char q[160];

		snprintf(q, sizeof(q),
			 "SELECT count(*) FROM SKIP_RUNS WHERE runId = %lld AND status != 'ok'",
			 (long long)ids[i]);
		r->failed_runs += sk_db_int(t->db, 0, q);
		snprintf(q, sizeof(q),
			 "SELECT coalesce(sum(count), 0) FROM SKIP_DROPS WHERE runId = %lld",
			 (long long)ids[i]);
		r->dropped += sk_db_int(t->db, 0, q);
	}
	sk_db_meta_text(t->db, "torch_ops", r->torch_ops, sizeof(r->torch_ops));
	sk_db_meta_text(t->db, "capture_range", r->capture_range, sizeof(r->capture_range));
	if (sqlite3_prepare_v2(t->db, "SELECT name FROM TARGET_INFO_GPU ORDER BY id LIMIT 1", -1,
			       &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
			snprintf(r->gpu, sizeof(r->gpu), "%s",
				 (const char *)sqlite3_column_text(st, 0));
		sqlite3_finalize(st);
	}
}

int skip_analyze(struct skip_trace *t, const struct skip_analysis_opts *o, struct skip_report **out)
{
	struct skip_report *r = sk_xcalloc(1, sizeof(*r));
	struct totals tot = {0};
	int64_t *ids = NULL, nruns = 0;
	size_t cap = 0;
	int err, any_found = 0;

	*out = NULL;
	r->path = sk_xstrdup(t->path);
	r->threshold = o->threshold > 0 ? o->threshold : SKIP_DEFAULT_THRESHOLD;
	err = check_runs(t, o, &ids, &nruns);
	tot.nkern = (size_t)t->nstrings;
	tot.kern = sk_xcalloc(tot.nkern + 1, sizeof(*tot.kern));
	for (int64_t i = 0; !err && i < nruns; i++) {
		int found = 0;

		err = analyze_run(t, o, ids[i], r, &cap, &tot, &found);
		any_found |= found;
	}
	if (!err && r->nregions == r->nempty)
		err = no_regions(t, o, any_found, r);
	if (!err) {
		report_header(t, r, ids, nruns);
		compute_stats(r);
		make_tops(t, r, &tot, o->top_k > 0 ? o->top_k : 10);
		build_sweep(t, o, r, ids, nruns);
		sk_recording_cost(t, o, r, ids, nruns);
		if (o->param && !r->sweep && o->run_id > 0)
			err =
			    sk_fail(SKIP_E_INVAL,
				    "%s: --run %lld reads one run, so '%s' has one value there: a "
				    "sweep needs all the runs (leave --run out)",
				    t->path, (long long)o->run_id, o->param);
		else if (o->param && !r->sweep)
			err =
			    sk_fail(SKIP_E_NOTFOUND,
				    "%s: no numeric parameter '%s' with two values or more across "
				    "the runs (record a sweep with 'skip record --sweep %s=V1,V2')",
				    t->path, o->param, o->param);
	}
	free(ids);
	free(tot.kern);
	free(tot.ops);
	sk_hash_fini(&tot.opidx);
	if (err) {
		skip_report_free(r);
		return err;
	}
	*out = r;
	return 0;
}

static void free_tops(struct skip_name_stat *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}

void skip_report_free(struct skip_report *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nregions; i++)
		free(r->regions[i].name);
	free(r->regions);
	free_tops(r->top_by_time, r->ntop_time);
	free_tops(r->top_by_count, r->ntop_count);
	free_tops(r->top_ops, r->ntop_ops);
	if (r->sweep) {
		for (size_t i = 0; i < r->sweep->npts; i++)
			free(r->sweep->pts[i].run_ids);
		if (r->sweep->graph)
			free(r->sweep->graph->rows);
		free(r->sweep->graph);
		free(r->sweep->param);
		free(r->sweep->pts);
		free(r->sweep);
	}
	sk_recording_cost_free(r->cost);
	free(r->path);
	free(r);
}
