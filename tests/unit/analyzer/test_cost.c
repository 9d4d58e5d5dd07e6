/*
 * test_cost.c: the recording cost from baseline runs (skip record --baseline), or from the
 * occurrences outside the capture ranges (--capture-range), on hand-built traces
 * (tests/fixtures/hand/baseline*.sql, capture.sql, answers in their comments).
 */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hand.h"
#include "skip_analyzer.h"
#include "unit/scratch.h"

static char dir[64];

static void setup(void)
{
	sk_scratch_make(dir, sizeof(dir), "skip-cost");
}

static void teardown(void)
{
	sk_scratch_remove(dir);
}

TestSuite(cost, .init = setup, .fini = teardown);

static struct skip_report *analyze(struct skip_trace *t, const char *region)
{
	struct skip_analysis_opts o = {.region = region};
	struct skip_report *r = NULL;

	cr_assert_eq(skip_analyze(t, &o, &r), 0, "%s", skip_errmsg());
	return r;
}

Test(cost, per_region_ratio_medians_and_interleaved_pairs)
{
	struct skip_trace *t = hand_trace(dir, "baseline");
	struct skip_report *r = analyze(t, "step");
	const struct skip_cost_row *w;

	cr_expect_eq(r->runs, 2, "the full runs only are analyzed");
	cr_expect_eq(r->nregions, 4);
	cr_assert_not_null(r->cost);
	cr_expect_eq(r->cost->baseline_runs, 2);
	cr_assert_eq(r->cost->nrows, 1);
	w = &r->cost->rows[0];
	cr_expect_str_eq(w->config, "");
	cr_expect_eq(w->full.runs, 2);
	cr_expect_eq(w->baseline.runs, 2);
	cr_expect_eq(w->full.occurrences, 4);
	cr_expect_eq(w->baseline.occurrences, 4);
	cr_expect_eq(w->full.wall_ns, 1150);
	cr_expect_eq(w->full.wall_min_ns, 1100);
	cr_expect_eq(w->full.wall_max_ns, 1200);
	cr_expect_eq(w->baseline.wall_ns, 600);
	cr_expect_eq(w->baseline.wall_min_ns, 550);
	cr_expect_eq(w->baseline.wall_max_ns, 650);
	cr_expect_null(w->problem);
	cr_expect(fabs(w->ratio - 1150.0 / 600) < 1e-9, "ratio %g", w->ratio);
	cr_expect_eq(w->pairs, 2);
	cr_expect(fabs(w->ratio_min - 1200.0 / 650) < 1e-9, "ratio_min %g", w->ratio_min);
	cr_expect(fabs(w->ratio_max - 2.0) < 1e-9, "ratio_max %g", w->ratio_max);
	cr_expect_geq(w->host_share_unprofiled, 0);
	cr_expect_leq(w->host_share_unprofiled, w->host_share,
		      "taking the recording's time out of the host side lowers the share");
	skip_report_free(r);
	skip_trace_close(t);
}

Test(cost, kinds_that_disagree_on_occurrences_give_a_reason_and_no_ratio)
{
	struct skip_trace *t = hand_trace_more(dir, "baseline", "baseline_mismatch");
	struct skip_report *r = analyze(t, "step");
	const struct skip_cost_row *w;

	cr_assert_not_null(r->cost);
	cr_assert_eq(r->cost->nrows, 1);
	w = &r->cost->rows[0];
	cr_expect_eq(w->full.per_run_min, 2);
	cr_expect_eq(w->full.per_run_max, 2);
	cr_expect_eq(w->baseline.per_run_min, 2);
	cr_expect_eq(w->baseline.per_run_max, 3);
	cr_assert_not_null(w->problem);
	cr_expect(strstr(w->problem, "different numbers of occurrences"), "%s", w->problem);
	cr_expect_eq(w->ratio, 0);
	cr_expect_eq(w->host_share_unprofiled, -1);
	skip_report_free(r);
	skip_trace_close(t);
}

Test(cost, a_sweep_has_one_row_per_value)
{
	struct skip_trace *t = hand_trace(dir, "baseline_sweep");
	struct skip_report *r = analyze(t, "step");

	cr_assert_not_null(r->cost);
	cr_assert_eq(r->cost->nrows, 2);
	cr_expect_str_eq(r->cost->rows[0].config, "batch=1");
	cr_expect_eq(r->cost->rows[0].full.wall_ns, 1500);
	cr_expect_eq(r->cost->rows[0].baseline.wall_ns, 500);
	cr_expect(fabs(r->cost->rows[0].ratio - 3) < 1e-9);
	cr_expect_str_eq(r->cost->rows[1].config, "batch=2");
	cr_expect(fabs(r->cost->rows[1].ratio - 1.5) < 1e-9);
	cr_expect_eq(r->cost->rows[1].pairs, 1);
	cr_assert_not_null(r->sweep, "the sweep is over the full runs");
	cr_expect_eq(r->sweep->npts, 2);
	skip_report_free(r);
	skip_trace_close(t);
}

Test(cost, no_region_no_rows_and_no_baseline_no_section)
{
	struct skip_trace *t = hand_trace(dir, "baseline");
	struct skip_report *r = analyze(t, NULL);

	cr_assert_not_null(r->cost);
	cr_expect_null(r->cost->region);
	cr_expect_eq(r->cost->nrows, 0);
	cr_expect_eq(r->runs, 2);
	skip_report_free(r);
	skip_trace_close(t);
	t = hand_trace_more(dir, "baseline", "baseline_none");
	r = analyze(t, "step");
	cr_expect_null(r->cost);
	skip_report_free(r);
	skip_trace_close(t);
}

Test(cost, a_baseline_run_asked_for_by_number_is_refused_with_a_reason)
{
	struct skip_trace *t = hand_trace(dir, "baseline");
	struct skip_analysis_opts o = {.run_id = 2};
	struct skip_report *r = NULL;

	cr_expect_eq(skip_analyze(t, &o, &r), SKIP_E_NOTFOUND);
	cr_expect(strstr(skip_errmsg(), "run 2 is a baseline run"), "%s", skip_errmsg());
	cr_expect_null(r);
	skip_trace_close(t);
}

/* The JSON of every case follows schemas/report.schema.json, with its problem and its nulls. */
Test(cost, the_json_follows_the_schema)
{
	static const char *const more[] = {NULL, "baseline_mismatch"};
	char *text = hand_slurp("schemas/report.schema.json"), err[512];
	cJSON *schema = cJSON_Parse(text);

	cr_assert_not_null(schema);
	for (int i = 0; i < 2; i++) {
		struct skip_trace *t = hand_trace_more(dir, "baseline", more[i]);
		struct skip_report *r = analyze(t, "step");
		char *js = skip_report_json(r);
		cJSON *doc = cJSON_Parse(js);
		const cJSON *row;

		cr_assert_not_null(doc);
		cr_expect_eq(skip_json_validate(schema, doc, err, sizeof(err)), 0, "%s", err);
		row = cJSON_GetArrayItem(
		    cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "recording_cost"), "rows"), 0);
		cr_assert_not_null(row);
		cr_expect_eq(cJSON_IsNull(cJSON_GetObjectItem(row, "ratio")), i == 1);
		cJSON_Delete(doc);
		free(js);
		skip_report_free(r);
		skip_trace_close(t);
	}
	cJSON_Delete(schema);
	free(text);
}

Test(cost, a_capture_range_recording_compares_inside_with_outside_in_the_same_run)
{
	struct skip_trace *t = hand_trace(dir, "capture");
	struct skip_report *r = analyze(t, "step");
	const struct skip_cost_row *w;

	cr_expect_eq(r->nregions, 9);
	cr_expect_eq(r->nempty, 5, "outside and across: no GPU work");
	cr_expect_str_eq(r->capture_range, "cudaProfilerApi");
	cr_assert_not_null(r->cost);
	cr_expect_eq(r->cost->capture, 1);
	cr_expect_eq(r->cost->baseline_runs, 0);
	cr_assert_eq(r->cost->nrows, 1);
	w = &r->cost->rows[0];
	cr_expect_eq(w->full.occurrences, 4, "inside a capture range");
	cr_expect_eq(w->baseline.occurrences, 4, "outside every one; the one across is neither");
	cr_expect_eq(w->full.wall_ns, 1150);
	cr_expect_eq(w->baseline.wall_ns, 600);
	cr_expect_null(w->problem);
	cr_expect(fabs(w->ratio - 1150.0 / 600) < 1e-9, "ratio %g", w->ratio);
	cr_expect_eq(w->pairs, 1, "the run is its own pair");
	cr_expect(fabs(w->ratio_min - 1150.0 / 600) < 1e-9, "ratio_min %g", w->ratio_min);
	cr_expect_eq(w->first.occurrences, 0, "the first range starts at the first occurrence");
	cr_expect_eq(w->first_ratio, 0);
	skip_report_free(r);
	skip_trace_close(t);
}

/* capture_before.sql: four occurrences before the first range, four between and after the
 * ranges; the recording's cost against each (the file has the answers). */
Test(cost, a_recording_with_steps_before_its_first_range_is_compared_with_them)
{
	struct skip_trace *t = hand_trace(dir, "capture_before");
	struct skip_report *r = analyze(t, "step");
	const struct skip_cost_row *w;

	cr_assert_not_null(r->cost);
	cr_assert_eq(r->cost->nrows, 1);
	w = &r->cost->rows[0];
	cr_expect_eq(w->full.occurrences, 4);
	cr_expect_eq(w->full.wall_ns, 1150);
	cr_expect_eq(w->baseline.occurrences, 8);
	cr_expect_eq(w->baseline.wall_ns, 700);
	cr_expect(fabs(w->ratio - 1150.0 / 700) < 1e-9, "ratio %g", w->ratio);
	cr_expect_eq(w->first.occurrences, 4);
	cr_expect_eq(w->first.wall_ns, 450);
	cr_expect(fabs(w->first_ratio - 1150.0 / 450) < 1e-9, "first_ratio %g", w->first_ratio);
	skip_report_free(r);
	skip_trace_close(t);
}

/* The occurrences outside the ranges that end before the first one begins are counted apart
 * (capture_first.sql has the answers): what a range leaves behind has not touched them. */
Test(cost, occurrences_before_the_first_capture_range_are_counted_apart)
{
	struct skip_trace *t = hand_trace_more(dir, "capture", "capture_first");
	struct skip_report *r = analyze(t, "step");
	const struct skip_cost_row *w;
	char *js, *text, err[512];
	cJSON *doc, *row, *schema;

	cr_assert_not_null(r->cost);
	cr_assert_eq(r->cost->nrows, 1);
	w = &r->cost->rows[0];
	cr_expect_eq(w->full.occurrences, 3);
	cr_expect_eq(w->full.wall_ns, 1200);
	cr_expect_eq(w->baseline.occurrences, 5, "[0, 1000] is outside now");
	cr_expect_eq(w->baseline.wall_ns, 600);
	cr_expect(fabs(w->ratio - 2.0) < 1e-9, "ratio %g", w->ratio);
	cr_expect_eq(w->first.occurrences, 1);
	cr_expect_eq(w->first.wall_ns, 1000);
	cr_expect(fabs(w->first_ratio - 1.2) < 1e-9, "first_ratio %g", w->first_ratio);
	js = skip_report_json(r);
	doc = cJSON_Parse(js);
	schema = cJSON_Parse(text = hand_slurp("schemas/report.schema.json"));
	cr_expect_eq(skip_json_validate(schema, doc, err, sizeof(err)), 0, "%s", err);
	row = cJSON_GetArrayItem(
	    cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "recording_cost"), "rows"), 0);
	cr_assert_not_null(row);
	cr_expect(fabs(cJSON_GetObjectItem(row, "first_ratio")->valuedouble - 1.2) < 1e-9);
	cJSON_Delete(schema);
	cJSON_Delete(doc);
	free(text);
	free(js);
	skip_report_free(r);
	skip_trace_close(t);
}
