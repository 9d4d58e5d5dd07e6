/*
 * gate.c: skip_gate_decide(). Match the cases of the two sides by their parameters, test each
 * metric of each case over the runs (stats.c), hold the gated tests to one family-wise
 * false-alarm rate with Holm's procedure, and call a test a regression only when it is both
 * significant and beyond the practical threshold and the absolute floor. Kernel-set and
 * launch-count changes are reported as changes, not timed; other GPUs, drivers, left-out runs
 * and dropped records become warnings (or, strict, an error for the GPU and driver).
 */
#define SK_LOG_DOMAIN "gate"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static const char *const status_names[] = {
    [SKIP_GATE_PASS] = "pass",	       [SKIP_GATE_REGRESSION] = "regression",
    [SKIP_GATE_IMPROVED] = "improved", [SKIP_GATE_INCONCLUSIVE] = "inconclusive",
    [SKIP_GATE_CHANGED] = "changed",   [SKIP_GATE_MISSING] = "missing",
};

const char *skip_gate_status_name(enum skip_gate_status s)
{
	return s <= SKIP_GATE_MISSING ? status_names[s] : "?";
}

static const char *unit_of(const struct skip_gate_metric *m)
{
	if (m->kind == SKIP_GATE_REGION)
		return skip_metric_unit(m->id);
	return m->kind == SKIP_GATE_VERDICT ? "ratio" : "ns";
}

static char *label_of(const struct skip_gate_metric *m)
{
	switch (m->kind) {
	case SKIP_GATE_KERNEL_MEAN:
		return sk_xasprintf("kernel %s (mean)", m->name);
	case SKIP_GATE_KERNEL_TOTAL:
		return sk_xasprintf("kernel %s (total)", m->name);
	case SKIP_GATE_OP_TOTAL:
		return sk_xasprintf("operator %s", m->name);
	default:
		return sk_xstrdup(sk_gate_def_of(m)->label);
	}
}

/* ---- the metrics: the gated ones, then those shown for context ------------------------------- */

static int has_spelling(const struct skip_gate_result *r, const char *s)
{
	for (size_t i = 0; i < r->nmetrics; i++)
		if (!strcmp(r->metrics[i].spelling, s))
			return 1;
	return 0;
}

static void add_metric(struct skip_gate_result *r, const struct skip_gate_metric *m)
{
	if (has_spelling(r, m->spelling))
		return;
	r->metrics = sk_xrealloc(r->metrics, (r->nmetrics + 1) * sizeof(*r->metrics));
	sk_gate_metric_copy(&r->metrics[r->nmetrics++], m);
}

static int pick_metrics(struct skip_gate_result *r, const struct skip_gate_opts *o)
{
	struct skip_gate_metric *dflt = NULL;
	size_t ndflt = 0;
	int err = 0;

	if (!o->metrics) {
		err = skip_gate_metrics_parse(SKIP_GATE_METRICS, &dflt, &ndflt);
		for (size_t i = 0; !err && i < ndflt; i++)
			add_metric(r, &dflt[i]);
		skip_gate_metrics_free(dflt, ndflt);
	}
	for (size_t i = 0; o->metrics && i < o->nmetrics; i++)
		add_metric(r, &o->metrics[i]);
	r->ngated_metrics = r->nmetrics;
	for (size_t i = 0; o->context && sk_gate_def_at(i); i++) {
		const struct sk_gate_def *d = sk_gate_def_at(i);
		struct skip_gate_metric m = {d->kind, d->id, NULL, (char *)d->word};

		if (d->context)
			add_metric(r, &m);
	}
	return err;
}

/* A kernel or operator metric must name something one of the sides has. */
static int check_names(const struct skip_gate_result *r)
{
	for (size_t i = 0; i < r->ngated_metrics; i++) {
		const struct skip_gate_metric *m = &r->metrics[i];
		const struct skip_gate_side *sides[2] = {r->base, r->cand};
		int found = !m->name;

		for (int s = 0; s < 2 && !found; s++)
			for (size_t c = 0; c < sides[s]->ncases && !found; c++) {
				const struct skip_gate_case *k = &sides[s]->cases[c];

				found = m->kind == SKIP_GATE_OP_TOTAL
					    ? sk_gate_name_find(k->ops, k->nops, m->name) != NULL
					    : sk_gate_name_find(k->kernels, k->nkernels, m->name) !=
						  NULL;
			}
		if (!found)
			return sk_fail(
			    SKIP_E_INVAL,
			    "--metric %s: no %s named '%s' on either side ('skip report' "
			    "lists the top ones, 'skip diff' all that changed)",
			    m->spelling, m->kind == SKIP_GATE_OP_TOTAL ? "operator" : "kernel",
			    m->name);
	}
	return 0;
}

/* ---- the tests ------------------------------------------------------------------------------- */

static void add_test(struct skip_gate_result *r, const struct skip_gate_case *b,
		     const struct skip_gate_case *c, const struct skip_gate_metric *m, int gated)
{
	struct skip_gate_test *t;
	double *vb = NULL, *vc = NULL;
	int nb, nc;

	r->tests = sk_xrealloc(r->tests, (r->ntests + 1) * sizeof(*r->tests));
	t = &r->tests[r->ntests++];
	memset(t, 0, sizeof(*t));
	t->bcase = b;
	t->ccase = c;
	t->metric = m;
	t->label = label_of(m);
	t->unit = unit_of(m);
	t->gated = gated;
	t->floor = !strcmp(t->unit, "ratio") ? SKIP_GATE_FLOOR_SHARE : r->floor_ns;
	nb = sk_gate_values(b, m, &vb);
	nc = sk_gate_values(c, m, &vc);
	if (!nb || !nc || skip_gate_stat_compute(vb, nb, vc, nc, r->alpha, &t->s)) {
		t->status = SKIP_GATE_MISSING;
		t->note = sk_xasprintf("only in the %s", nb   ? "baseline"
							 : nc ? "candidate"
							      : "--metric list");
	}
	free(vb);
	free(vc);
}

static void build_tests(struct skip_gate_result *r)
{
	const struct skip_gate_side *b = r->base, *c = r->cand;

	for (int gated = 1; gated >= 0; gated--)
		for (size_t i = 0; i < b->ncases; i++) {
			const struct skip_gate_case *cc = sk_gate_case_find(c, b->cases[i].key);
			size_t from = gated ? 0 : r->ngated_metrics;
			size_t to = gated ? r->ngated_metrics : r->nmetrics;

			for (size_t m = from; cc && m < to; m++)
				add_test(r, &b->cases[i], cc, &r->metrics[m], gated);
		}
}

static const char *case_name(const struct skip_gate_case *c, char *buf, size_t n)
{
	snprintf(buf, n, "%s%s%s", c->key[0] ? "case '" : "", c->key, c->key[0] ? "' " : "");
	return buf;
}

/* Each side must have the runs the rank test needs to be able to fail at its Holm level. */
static int check_runs(struct skip_gate_result *r, int min_runs)
{
	double level;
	char cn[600];

	r->gated = 0;
	for (size_t i = 0; i < r->ntests; i++)
		r->gated += r->tests[i].gated && r->tests[i].status != SKIP_GATE_MISSING;
	level = r->alpha / (r->gated ? r->gated : 1);
	r->needed_runs = skip_gate_runs_needed(level);
	if (r->needed_runs < min_runs)
		r->needed_runs = min_runs;
	for (size_t i = 0; i < r->ntests; i++) {
		const struct skip_gate_test *t = &r->tests[i];

		if (!t->gated || t->status == SKIP_GATE_MISSING)
			continue;
		if (t->s.nb >= min_runs && t->s.nc >= min_runs &&
		    skip_gate_min_p(t->s.nb, t->s.nc) <= level)
			continue;
		return sk_fail(SKIP_E_INVAL,
			       "too few runs: %s%s has %d and %s has %d with %s; at --alpha %g "
			       "over %d gated test%s the rank test needs %d runs on each side "
			       "(skip record --repeat %d)",
			       case_name(t->bcase, cn, sizeof(cn)), r->base->path, t->s.nb,
			       r->cand->path, t->s.nc, t->label, r->alpha, r->gated,
			       r->gated == 1 ? "" : "s", r->needed_runs, r->needed_runs);
	}
	return 0;
}

static void classify(struct skip_gate_test *t, int reject, double better_level, double max_regress)
{
	int beyond = t->s.rel >= max_regress && t->s.shift >= t->floor;
	int below = t->s.rel <= -max_regress && -t->s.shift >= t->floor;

	if (t->metric->kind == SKIP_GATE_VERDICT) {
		enum skip_verdict vb = sk_gate_case_verdict(t->bcase);
		enum skip_verdict vc = sk_gate_case_verdict(t->ccase);

		if (vb != vc)
			t->note =
			    sk_xasprintf("%s -> %s", skip_verdict_name(vb), skip_verdict_name(vc));
		t->status = vb == vc ? SKIP_GATE_PASS
			    : vb == SKIP_VERDICT_GPU_BOUND && vc == SKIP_VERDICT_CPU_BOUND && reject
				? SKIP_GATE_REGRESSION
				: SKIP_GATE_CHANGED;
		return;
	}
	if (reject && beyond)
		t->status = SKIP_GATE_REGRESSION;
	else if (t->s.p_better <= better_level && below)
		t->status = SKIP_GATE_IMPROVED;
	else if (beyond)
		t->status = SKIP_GATE_INCONCLUSIVE;
	else
		t->status = SKIP_GATE_PASS;
}

/* Holm over the gated tests; the context tests at alpha each. */
static void decide(struct skip_gate_result *r)
{
	double *p = sk_xmalloc((r->ntests + 1) * sizeof(double));
	double *level = sk_xmalloc((r->ntests + 1) * sizeof(double));
	int *reject = sk_xmalloc((r->ntests + 1) * sizeof(int));
	size_t *at = sk_xmalloc((r->ntests + 1) * sizeof(size_t)), n = 0;

	for (size_t i = 0; i < r->ntests; i++)
		if (r->tests[i].gated && r->tests[i].status != SKIP_GATE_MISSING) {
			at[n] = i;
			p[n++] = r->tests[i].s.p_worse;
		}
	skip_gate_holm(p, n, r->alpha, reject, level);
	for (size_t k = 0; k < n; k++) {
		struct skip_gate_test *t = &r->tests[at[k]];

		t->level = level[k];
		classify(t, reject[k], r->alpha / (double)n, r->max_regress);
	}
	for (size_t i = 0; i < r->ntests; i++) {
		struct skip_gate_test *t = &r->tests[i];

		if (t->gated || t->status == SKIP_GATE_MISSING)
			continue;
		t->level = r->alpha;
		classify(t, t->s.p_worse <= r->alpha, r->alpha, r->max_regress);
	}
	for (size_t i = 0; i < r->ntests; i++)
		if (r->tests[i].gated) {
			r->regressions += r->tests[i].status == SKIP_GATE_REGRESSION;
			r->improvements += r->tests[i].status == SKIP_GATE_IMPROVED;
			r->inconclusive += r->tests[i].status == SKIP_GATE_INCONCLUSIVE;
		}
	free(p);
	free(level);
	free(reject);
	free(at);
}

/* ---- warnings and changes -------------------------------------------------------------------- */

/* Another GPU or driver on the other side: a warning, or with @strict an error. */
static int check_machine(struct skip_gate_result *r, const char *what, const char *x, const char *y,
			 int strict)
{
	if (!x[0] || !y[0] || !strcmp(x, y))
		return 0;
	if (strict)
		return sk_fail(SKIP_E_INVAL,
			       "the sides ran on different %s (%s: %s, %s: %s) and --strict was "
			       "given: compare runs of one machine",
			       what, r->base->path, x, r->cand->path, y);
	sk_gate_strv_add(&r->warnings, &r->nwarnings,
			 "the sides ran on different %s (%s: %s, %s: %s): timings may differ for "
			 "that reason alone",
			 what, r->base->path, x, r->cand->path, y);
	return 0;
}

static int check_machines(struct skip_gate_result *r, int strict)
{
	const struct skip_gate_side *b = r->base, *c = r->cand;
	int err = check_machine(r, "GPUs", b->gpu, c->gpu, strict);

	if (!err)
		err = check_machine(r, "drivers", b->driver, c->driver, strict);
	if (!err && b->skip_version[0] && c->skip_version[0] &&
	    strcmp(b->skip_version, c->skip_version))
		sk_gate_strv_add(&r->warnings, &r->nwarnings,
				 "the sides were recorded by different skip versions (%s, %s)",
				 b->skip_version, c->skip_version);
	return err;
}

static void side_warnings(struct skip_gate_result *r, const struct skip_gate_side *s,
			  const struct skip_gate_side *other, const char *which)
{
	for (size_t i = 0; i < s->nnotes; i++)
		sk_gate_strv_add(&r->warnings, &r->nwarnings, "%s", s->notes[i]);
	if (s->dropped)
		sk_gate_strv_add(&r->warnings, &r->nwarnings,
				 "%s: the collector dropped %lld records: its metrics may be low",
				 s->path, (long long)s->dropped);
	for (size_t i = 0; i < s->ncases; i++)
		if (!sk_gate_case_find(other, s->cases[i].key))
			sk_gate_strv_add(&r->warnings, &r->nwarnings,
					 "case '%s' is only in the %s (%s): not compared",
					 s->cases[i].key, which, s->path);
}

static void command_warnings(struct skip_gate_result *r)
{
	for (size_t i = 0; i < r->base->ncases; i++) {
		const struct skip_gate_case *b = &r->base->cases[i];
		const struct skip_gate_case *c = sk_gate_case_find(r->cand, b->key);
		char cn[600];

		if (c && b->command[0] && c->command[0] && strcmp(b->command, c->command))
			sk_gate_strv_add(&r->warnings, &r->nwarnings,
					 "%sthe command lines differ: '%s' and '%s'",
					 case_name(b, cn, sizeof(cn)), b->command, c->command);
	}
}

/* The median over runs of a name's launches per region; -1 when the name is absent. */
static double per_region_count(const struct skip_gate_case *c, const struct skip_gate_name *e)
{
	double *v, m;

	if (!e)
		return -1;
	v = sk_xmalloc((c->nruns + 1) * sizeof(double));
	for (size_t i = 0; i < c->nruns; i++)
		v[i] = c->runs[i].regions ? (double)e->count[i] / c->runs[i].regions : 0;
	m = skip_median(v, c->nruns);
	free(v);
	return m;
}

static void name_changes(struct skip_gate_result *r, const struct skip_gate_case *b,
			 const struct skip_gate_case *c)
{
	char cn[600];
	size_t i = 0, j = 0;

	case_name(b, cn, sizeof(cn));
	while (i < b->nkernels || j < c->nkernels) {
		int cmp = i == b->nkernels   ? 1
			  : j == c->nkernels ? -1
					     : strcmp(b->kernels[i].name, c->kernels[j].name);
		const struct skip_gate_name *x = cmp <= 0 ? &b->kernels[i] : NULL;
		const struct skip_gate_name *y = cmp >= 0 ? &c->kernels[j] : NULL;
		double nx = per_region_count(b, x), ny = per_region_count(c, y);

		if (!x || !y)
			sk_gate_strv_add(&r->changes, &r->nchanges,
					 "%skernel %s is %s: %.4g launches per region", cn,
					 x ? x->name : y->name, x ? "gone" : "new", x ? nx : ny);
		else if (fabs(ny - nx) >= 0.5)
			sk_gate_strv_add(&r->changes, &r->nchanges,
					 "%skernel %s: %.4g -> %.4g launches per region", cn,
					 x->name, nx, ny);
		i += cmp <= 0;
		j += cmp >= 0;
	}
}

static void changes(struct skip_gate_result *r)
{
	for (size_t i = 0; i < r->base->ncases; i++) {
		const struct skip_gate_case *b = &r->base->cases[i];
		const struct skip_gate_case *c = sk_gate_case_find(r->cand, b->key);

		if (c)
			name_changes(r, b, c);
	}
}

/* ---- the entry point ------------------------------------------------------------------------- */

static int check_sides(const struct skip_gate_side *b, const struct skip_gate_side *c)
{
	if ((b->region == NULL) != (c->region == NULL) ||
	    (b->region && strcmp(b->region, c->region)))
		return sk_fail(SKIP_E_INVAL,
			       "the sides measure different regions (%s: %s%s%s, %s: %s%s%s): "
			       "give both the same --region",
			       b->path, b->region ? "'" : "whole runs", b->region ? b->region : "",
			       b->region ? "'" : "", c->path, c->region ? "'" : "whole runs",
			       c->region ? c->region : "", c->region ? "'" : "");
	for (size_t i = 0; i < b->ncases; i++)
		if (sk_gate_case_find(c, b->cases[i].key))
			return 0;
	return sk_fail(SKIP_E_INVAL,
		       "%s and %s have no case in common (runs with the same parameters): "
		       "nothing to compare",
		       b->path, c->path);
}

int skip_gate_decide(const struct skip_gate_side *base, const struct skip_gate_side *cand,
		     const struct skip_gate_opts *o, struct skip_gate_result **out)
{
	struct skip_gate_result *r = sk_xcalloc(1, sizeof(*r));
	int err;

	*out = NULL;
	r->base = base;
	r->cand = cand;
	r->alpha = o->alpha > 0 ? o->alpha : SKIP_GATE_ALPHA;
	r->max_regress = o->max_regress > 0 ? o->max_regress : SKIP_GATE_MAX_REGRESS;
	r->floor_ns = o->floor_ns >= 0 ? o->floor_ns : SKIP_GATE_FLOOR_NS;
	err = check_sides(base, cand);
	if (!err)
		err = pick_metrics(r, o);
	if (!err)
		err = check_names(r);
	if (!err)
		err = check_machines(r, o->strict);
	if (!err) {
		build_tests(r);
		err = check_runs(r, o->min_runs > 0 ? o->min_runs : SKIP_GATE_MIN_RUNS);
	}
	if (err) {
		skip_gate_result_free(r);
		return err;
	}
	decide(r);
	side_warnings(r, base, cand, "baseline");
	side_warnings(r, cand, base, "candidate");
	command_warnings(r);
	changes(r);
	*out = r;
	return 0;
}

void skip_gate_result_free(struct skip_gate_result *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->ntests; i++) {
		free(r->tests[i].label);
		free(r->tests[i].note);
	}
	free(r->tests);
	skip_gate_metrics_free(r->metrics, r->nmetrics);
	sk_gate_strv_free(r->warnings, r->nwarnings);
	sk_gate_strv_free(r->changes, r->nchanges);
	free(r);
}
