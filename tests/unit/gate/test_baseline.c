/*
 * test_baseline.c: baseline files (gate/baseline.c): what is saved comes back, the file follows
 * schemas/baseline.schema.json, a gate from a baseline decides as one from the trace, and a
 * damaged file, a foreign one, another format version, a region that differs are refused.
 */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hand.h"
#include "skip_gate.h"
#include "unit/scratch.h"

static char dir[64];

static void setup(void)
{
	sk_scratch_make(dir, sizeof(dir), "skip-gate");
}

static void teardown(void)
{
	sk_scratch_remove(dir);
}

TestSuite(gate_baseline, .init = setup, .fini = teardown);

static struct skip_gate_side *trace_side(const char *name, const char *region)
{
	struct skip_trace *t = hand_trace(dir, name);
	struct skip_gate_side *s = NULL;

	cr_assert_eq(skip_gate_side_from_trace(t, name, region, &s), 0, "%s", skip_errmsg());
	skip_trace_close(t);
	return s;
}

/* The baseline text of a trace side. */
static char *saved(const char *name, const char *region)
{
	struct skip_gate_side *s = trace_side(name, region);
	char *text = skip_gate_baseline_json(s, "skip gate --save-baseline b.json t.db");

	cr_assert_not_null(text);
	skip_gate_side_free(s);
	return text;
}

Test(gate_baseline, what_is_saved_comes_back)
{
	struct skip_gate_side *a = trace_side("gate_slow", "step"), *b = NULL;
	char *text = skip_gate_baseline_json(a, NULL);

	cr_assert_eq(skip_gate_baseline_parse(text, "b.json", NULL, &b), 0, "%s", skip_errmsg());
	cr_expect(b->baseline);
	cr_expect_str_eq(b->region, "step");
	cr_expect_str_eq(b->gpu, a->gpu);
	cr_expect_str_eq(b->driver, "580.159.04");
	cr_expect_str_eq(b->skip_version, "0.1.0");
	cr_assert_eq(b->nnotes, 1);
	cr_expect_str_eq(b->notes[0], a->notes[0]);
	cr_assert_eq(b->ncases, 1);
	cr_assert_eq(b->cases[0].nruns, a->cases[0].nruns);
	for (size_t r = 0; r < a->cases[0].nruns; r++) /* cJSON keeps 15 digits at least */
		for (int m = 0; m < SKIP_M_COUNT; m++) {
			double x = a->cases[0].runs[r].median[m], y = a->cases[0].runs[r].mean[m];

			cr_expect(fabs(b->cases[0].runs[r].median[m] - x) <= 1e-13 * fabs(x));
			cr_expect(fabs(b->cases[0].runs[r].mean[m] - y) <= 1e-13 * fabs(y));
		}
	cr_assert_eq(b->cases[0].nkernels, 2);
	cr_expect_str_eq(b->cases[0].kernels[1].name, "kB");
	cr_expect_eq(b->cases[0].kernels[1].total_ns[5], a->cases[0].kernels[1].total_ns[5]);
	cr_expect_eq(b->cases[0].ops[0].launch_ns[0], a->cases[0].ops[0].launch_ns[0]);
	free(text);
	skip_gate_side_free(a);
	skip_gate_side_free(b);
}

Test(gate_baseline, the_file_follows_the_schema)
{
	char *text = saved("gate_sweep", NULL),
	     *schema_text = hand_slurp("schemas/baseline.schema.json");
	cJSON *doc = cJSON_Parse(text), *schema = cJSON_Parse(schema_text);
	char err[512];

	cr_assert_not_null(doc);
	cr_assert_not_null(schema);
	cr_expect_eq(skip_json_validate(schema, doc, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(cJSON_GetObjectItem(doc, "skip_baseline")->valueint, SKIP_BASELINE_VERSION);
	cr_expect(cJSON_IsNull(cJSON_GetObjectItem(doc, "region")));
	cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "cases")), 2);
	cr_expect_lt(strlen(text), 16384, "a baseline is kilobytes");
	cJSON_Delete(doc);
	cJSON_Delete(schema);
	free(schema_text);
	free(text);
}

Test(gate_baseline, a_gate_from_the_baseline_decides_as_from_the_trace)
{
	char *text = saved("gate_base", "step");
	struct skip_gate_side *b = NULL, *c = trace_side("gate_slow", "step");
	struct skip_gate_opts o = {.floor_ns = -1};
	struct skip_gate_result *r = NULL;

	cr_assert_eq(skip_gate_baseline_parse(text, "base.json", "step", &b), 0, "%s",
		     skip_errmsg());
	cr_assert_eq(skip_gate_decide(b, c, &o, &r), 0, "%s", skip_errmsg());
	cr_expect_eq(r->regressions, 1);
	cr_expect(fabs(r->tests[0].s.p_worse - 1.0 / 924) < 1e-12);
	cr_expect_eq(r->tests[0].s.shift, 300);
	skip_gate_result_free(r);
	skip_gate_side_free(b);
	skip_gate_side_free(c);
	free(text);
}

/* The error of parsing @text, which must fail with @code. */
static const char *refused(const char *text, const char *region, int code)
{
	struct skip_gate_side *s = NULL;

	cr_expect_eq(skip_gate_baseline_parse(text, "b.json", region, &s), code, "%s",
		     skip_errmsg());
	cr_expect_null(s);
	return skip_errmsg();
}

/* @text with the first @from replaced by @to (malloc'ed). */
static char *edit(const char *text, const char *from, const char *to)
{
	const char *at = strstr(text, from);
	char *out;

	cr_assert_not_null(at, "'%s' not in the baseline", from);
	out = malloc(strlen(text) + strlen(to) + 1);
	sprintf(out, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
	return out;
}

Test(gate_baseline, another_version_foreign_or_damaged_files_are_refused)
{
	char *text = saved("gate_base", "step"),
	     *v2 = edit(text, "\"skip_baseline\": 1", "\"skip_baseline\": 2");
	char *nomed = edit(text, "\"median\":", "\"medians\":");
	char *cut = edit(text, "\"count\":[2,2,2,2,2,2]", "\"count\":[2,2,2,2,2]");

	cr_expect(strstr(refused(v2, NULL, SKIP_E_UNSUPPORTED),
			 "b.json: a skip baseline of format version 2; this skip") != NULL,
		  "%s", skip_errmsg());
	cr_expect(strstr(refused("{\"skip_plan\": 1}", NULL, SKIP_E_INVAL),
			 "not a skip baseline") != NULL,
		  "%s", skip_errmsg());
	cr_expect(strstr(refused(nomed, NULL, SKIP_E_INVAL),
			 "b.json: not a valid skip baseline: $.cases[0].runs[0]") != NULL,
		  "%s", skip_errmsg());
	cr_expect(strstr(refused(cut, NULL, SKIP_E_INVAL),
			 "$.cases[0].kernels[0].count: 5 values for 6 runs") != NULL,
		  "%s", skip_errmsg());
	cr_expect(strstr(refused("{\"skip_baseline\": 1, ", NULL, SKIP_E_INVAL),
			 "JSON syntax error") != NULL,
		  "%s", skip_errmsg());
	cr_expect(strstr(refused(text, "other", SKIP_E_INVAL),
			 "b.json was saved for the region 'step', not for the region 'other'") !=
		      NULL,
		  "%s", skip_errmsg());
	free(cut);
	free(nomed);
	free(v2);
	free(text);
}
