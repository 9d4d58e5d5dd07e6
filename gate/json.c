/*
 * json.c: the gate's and the diff's results as JSON, for scripts and dashboards
 * ({"skip_gate": 1, ...} and {"skip_diff": 1, ...}; docs/skip-gate.md and docs/skip-diff.md list
 * the members). Numbers that are not finite (an interval too few runs cannot give, a share of
 * no IL difference) are null.
 */
#define SK_LOG_DOMAIN "gate"
#include <math.h>
#include <stdlib.h>

#include <cjson/cJSON.h>

#include "internal.h"

static void add_num(cJSON *o, const char *key, double v)
{
	if (isfinite(v))
		cJSON_AddNumberToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

static cJSON *side_obj(const struct skip_gate_side *s)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "path", s->path);
	cJSON_AddStringToObject(o, "kind", s->baseline ? "baseline" : "trace");
	cJSON_AddNumberToObject(o, "runs", (double)skip_gate_side_runs(s));
	cJSON_AddStringToObject(o, "gpu", s->gpu);
	cJSON_AddStringToObject(o, "driver", s->driver);
	cJSON_AddStringToObject(o, "skip_version", s->skip_version);
	cJSON_AddNumberToObject(o, "dropped", (double)s->dropped);
	return o;
}

static cJSON *strings(char **v, size_t n)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; i < n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(v[i]));
	return a;
}

static cJSON *test_obj(const struct skip_gate_test *t)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "case", t->bcase->key);
	cJSON_AddStringToObject(o, "metric", t->metric->spelling);
	cJSON_AddStringToObject(o, "label", t->label);
	cJSON_AddStringToObject(o, "unit", t->unit);
	cJSON_AddBoolToObject(o, "gated", t->gated);
	cJSON_AddStringToObject(o, "status", skip_gate_status_name(t->status));
	if (t->note)
		cJSON_AddStringToObject(o, "note", t->note);
	if (t->status == SKIP_GATE_MISSING)
		return o;
	cJSON_AddNumberToObject(o, "runs_baseline", t->s.nb);
	cJSON_AddNumberToObject(o, "runs_candidate", t->s.nc);
	add_num(o, "baseline_median", t->s.base_median);
	add_num(o, "candidate_median", t->s.cand_median);
	add_num(o, "shift", t->s.shift);
	add_num(o, "change", t->s.rel);
	add_num(o, "interval_low", t->s.ci_lo);
	add_num(o, "interval_high", t->s.ci_hi);
	add_num(o, "p_worse", t->s.p_worse);
	add_num(o, "p_better", t->s.p_better);
	add_num(o, "level", t->level);
	add_num(o, "floor", t->floor);
	cJSON_AddBoolToObject(o, "exact", t->s.exact);
	return o;
}

static cJSON *diff_obj(const struct skip_diff *d, size_t top);

char *skip_gate_json(const struct skip_gate_result *r, const struct skip_diff *d, size_t top)
{
	cJSON *o = cJSON_CreateObject(), *tests = cJSON_CreateArray();
	char *s;

	cJSON_AddNumberToObject(o, "skip_gate", 1);
	cJSON_AddStringToObject(o, "result", r->regressions ? "regression" : "pass");
	cJSON_AddNumberToObject(o, "exit_status", r->regressions ? 1 : 0);
	cJSON_AddNumberToObject(o, "regressions", r->regressions);
	cJSON_AddNumberToObject(o, "improvements", r->improvements);
	cJSON_AddNumberToObject(o, "inconclusive", r->inconclusive);
	cJSON_AddNumberToObject(o, "gated_tests", r->gated);
	cJSON_AddNumberToObject(o, "alpha", r->alpha);
	cJSON_AddNumberToObject(o, "max_regress", r->max_regress);
	cJSON_AddNumberToObject(o, "floor_ns", r->floor_ns);
	cJSON_AddNumberToObject(o, "needed_runs", r->needed_runs);
	if (r->base->region)
		cJSON_AddStringToObject(o, "region", r->base->region);
	else
		cJSON_AddNullToObject(o, "region");
	cJSON_AddItemToObject(o, "baseline", side_obj(r->base));
	cJSON_AddItemToObject(o, "candidate", side_obj(r->cand));
	for (size_t i = 0; i < r->ntests; i++)
		cJSON_AddItemToArray(tests, test_obj(&r->tests[i]));
	cJSON_AddItemToObject(o, "tests", tests);
	cJSON_AddItemToObject(o, "warnings", strings(r->warnings, r->nwarnings));
	cJSON_AddItemToObject(o, "changes", strings(r->changes, r->nchanges));
	if (d)
		cJSON_AddItemToObject(o, "diff", diff_obj(d, top));
	s = cJSON_Print(o);
	cJSON_Delete(o);
	return s;
}

/* ---- the diff -------------------------------------------------------------------------------- */

static cJSON *pair(double a, double b)
{
	cJSON *v = cJSON_CreateArray();

	cJSON_AddItemToArray(v, isfinite(a) ? cJSON_CreateNumber(a) : cJSON_CreateNull());
	cJSON_AddItemToArray(v, isfinite(b) ? cJSON_CreateNumber(b) : cJSON_CreateNull());
	return v;
}

static cJSON *row_obj(const struct skip_diff_row *r)
{
	cJSON *o = cJSON_CreateObject(), *words = cJSON_CreateArray();
	static const char *const w[] = {"new", "gone", "slower", "faster", "more", "fewer"};

	cJSON_AddStringToObject(o, "name", r->name);
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		if (r->flags & (1u << i))
			cJSON_AddItemToArray(words, cJSON_CreateString(w[i]));
	cJSON_AddItemToObject(o, "change", words);
	cJSON_AddItemToObject(o, "launches_per_region", pair(r->count[0], r->count[1]));
	cJSON_AddItemToObject(o, "gpu_ns_per_region", pair(r->gpu_ns[0], r->gpu_ns[1]));
	cJSON_AddItemToObject(o, "mean_ns", pair(r->mean_ns[0], r->mean_ns[1]));
	cJSON_AddItemToObject(o, "launch_ns_per_region", pair(r->launch_ns[0], r->launch_ns[1]));
	add_num(o, "delta_ns", r->delta_ns);
	add_num(o, "share_of_il_change", r->share);
	return o;
}

static cJSON *rows_arr(const struct skip_diff_row *v, size_t n, size_t top)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; i < n && i < top; i++)
		cJSON_AddItemToArray(a, row_obj(&v[i]));
	return a;
}

static cJSON *case_obj(const struct skip_diff_case *dc, size_t top)
{
	cJSON *o = cJSON_CreateObject(), *m = cJSON_CreateObject(), *verdicts = cJSON_CreateArray();

	cJSON_AddStringToObject(o, "case", dc->b->key);
	cJSON_AddItemToObject(o, "runs", pair((double)dc->b->nruns, (double)dc->c->nruns));
	cJSON_AddItemToObject(o, "regions", pair(dc->regions[0], dc->regions[1]));
	for (int id = 0; id < SKIP_M_COUNT; id++)
		cJSON_AddItemToObject(m, skip_metric_name((enum skip_metric_id)id),
				      pair(dc->mean[0][id], dc->mean[1][id]));
	cJSON_AddItemToObject(o, "mean_per_region", m);
	cJSON_AddItemToObject(o, "verdict", verdicts);
	cJSON_AddItemToArray(verdicts, cJSON_CreateString(skip_verdict_name(dc->verdict[0])));
	cJSON_AddItemToArray(verdicts, cJSON_CreateString(skip_verdict_name(dc->verdict[1])));
	cJSON_AddNumberToObject(o, "kernels_total", (double)dc->nkernels);
	cJSON_AddNumberToObject(o, "kernels_changed", dc->kernels_changed);
	cJSON_AddItemToObject(o, "kernels", rows_arr(dc->kernels, dc->nkernels, top));
	cJSON_AddNumberToObject(o, "operators_total", (double)dc->nops);
	cJSON_AddNumberToObject(o, "operators_changed", dc->ops_changed);
	cJSON_AddItemToObject(o, "operators", rows_arr(dc->ops, dc->nops, top));
	return o;
}

static cJSON *diff_obj(const struct skip_diff *d, size_t top)
{
	cJSON *o = cJSON_CreateObject(), *cases = cJSON_CreateArray();

	cJSON_AddNumberToObject(o, "skip_diff", 1);
	cJSON_AddItemToObject(o, "baseline", side_obj(d->base));
	cJSON_AddItemToObject(o, "candidate", side_obj(d->cand));
	if (d->base->region)
		cJSON_AddStringToObject(o, "region", d->base->region);
	else
		cJSON_AddNullToObject(o, "region");
	cJSON_AddNumberToObject(o, "threshold", d->threshold);
	cJSON_AddNumberToObject(o, "floor_ns", d->floor_ns);
	for (size_t i = 0; i < d->ncases; i++)
		cJSON_AddItemToArray(cases, case_obj(&d->cases[i], top));
	cJSON_AddItemToObject(o, "cases", cases);
	return o;
}

char *skip_diff_json(const struct skip_diff *d, size_t top)
{
	cJSON *o = diff_obj(d, top);
	char *s = cJSON_Print(o);

	cJSON_Delete(o);
	return s;
}
