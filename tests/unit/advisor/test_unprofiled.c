/*
 * test_unprofiled.c: where skip advise takes a region's unprofiled time from, on hand-built
 * traces (tests/fixtures/hand/baseline*.sql, capture.sql): the occurrences outside the
 * capture ranges of a --capture-range recording; the baseline runs' median wall interval when they
 * hold the region as often per run as the recorded run, else the model's estimate, which takes
 * out the calibration's cost per recorded call times the calls recorded per launch. A fusion
 * item starts from that time and keeps the model's speedup.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hand.h"
#include "skip_advisor.h"
#include "unit/scratch.h"

static char dir[64];

static void setup(void)
{
	sk_scratch_make(dir, sizeof(dir), "skip-unprof");
}

static void teardown(void)
{
	sk_scratch_remove(dir);
}

TestSuite(unprofiled, .init = setup, .fini = teardown);

static struct skip_advice_report *advise(struct skip_trace *t, const char *region)
{
	struct skip_advise_opts o = {.region = region};
	struct skip_advice_report *r = NULL;

	cr_assert_eq(skip_advise(t, &o, &r), 0, "%s", skip_errmsg());
	return r;
}

static const struct skip_advice *graph_item(const struct skip_advice_report *r)
{
	for (size_t i = 0; i < r->nitems; i++)
		if (r->items[i].kind == SKIP_ADVICE_GRAPH)
			return &r->items[i];
	return NULL;
}

Test(unprofiled, the_baseline_runs_give_the_time_now_when_present)
{
	struct skip_trace *t = hand_trace(dir, "baseline");
	struct skip_advice_report *r = advise(t, "step");
	const struct skip_advice *g = graph_item(r);
	char *json;

	cr_expect_str_eq(r->unprofiled_source, "baseline");
	cr_expect_eq(r->baseline_runs, 2);
	/* the baseline walls {500, 600, 600, 700}: median 600 */
	cr_expect_eq(r->unprofiled_ns, 600);
	cr_expect_null(r->unprofiled_note);
	cr_assert_not_null(g);
	cr_expect_eq(g->baseline_il_ns, 600, "the item's now is the baseline's");
	cr_expect(fabs(g->speedup - 600 / g->predicted_il_ns) < 1e-9);
	json = skip_advice_json(r);
	cr_expect(strstr(json, "\"source\":\t\"baseline\""), "%s", json);
	free(json);
	skip_advice_free(r);
	skip_trace_close(t);
}

Test(unprofiled, occurrences_outside_the_capture_ranges_give_the_time_now)
{
	struct skip_trace *t = hand_trace(dir, "capture");
	struct skip_advice_report *r = advise(t, "step");
	const struct skip_advice *g = graph_item(r);
	char *json;

	cr_expect_str_eq(r->unprofiled_source, "uncaptured");
	/* outside: {500, 600, 700, 600}, median 600; [3400, 4000] crosses a range's end */
	cr_expect_eq(r->uncaptured, 4);
	cr_expect_eq(r->unprofiled_ns, 600);
	cr_expect_eq(r->regions, 4, "the recorded occurrences are modelled");
	cr_assert_not_null(g);
	cr_expect_eq(g->baseline_il_ns, 600, "the item's now is the unrecorded occurrences'");
	json = skip_advice_json(r);
	cr_expect(strstr(json, "\"source\":\t\"uncaptured\""), "%s", json);
	cr_expect(strstr(json, "\"uncaptured\":\t4"), "%s", json);
	free(json);
	skip_advice_free(r);
	skip_trace_close(t);
}

/* capture_before.sql: four occurrences before the first range (a cold one among them), four
 * after one; the time now is the median of the four before, 450, not of all eight, 700. */
Test(unprofiled, occurrences_before_the_first_capture_range_are_preferred)
{
	struct skip_trace *t = hand_trace(dir, "capture_before");
	struct skip_advice_report *r = advise(t, "step");
	const struct skip_advice *g = graph_item(r);
	char *json;

	cr_expect_str_eq(r->unprofiled_source, "uncaptured");
	cr_expect_eq(r->uncaptured_before, 1);
	cr_expect_eq(r->uncaptured, 4);
	cr_expect_eq(r->unprofiled_ns, 450);
	cr_expect_eq(r->regions, 4, "the recorded occurrences are modelled");
	cr_assert_not_null(g);
	cr_expect_eq(g->baseline_il_ns, 450);
	json = skip_advice_json(r);
	cr_expect(strstr(json, "\"uncaptured_from\":\t\"before\""), "%s", json);
	free(json);
	skip_advice_free(r);
	skip_trace_close(t);
}

/* capture.sql with capture_first.sql: one occurrence before the first range, fewer than
 * SKIP_ADVISE_BEFORE_MIN: every occurrence outside the ranges, {1000, 500, 600, 700, 600}. */
Test(unprofiled, too_few_occurrences_before_the_first_range_take_all_outside)
{
	struct skip_trace *t = hand_trace_more(dir, "capture", "capture_first");
	struct skip_advice_report *r = advise(t, "step");
	char *json;

	cr_expect_str_eq(r->unprofiled_source, "uncaptured");
	cr_expect_eq(r->uncaptured_before, 0);
	cr_expect_eq(r->uncaptured, 5);
	cr_expect_eq(r->unprofiled_ns, 600);
	json = skip_advice_json(r);
	cr_expect(strstr(json, "\"uncaptured_from\":\t\"outside\""), "%s", json);
	free(json);
	skip_advice_free(r);
	skip_trace_close(t);
}

Test(unprofiled, the_repetitions_occurrences_outside_the_capture_ranges_are_pooled)
{
	struct skip_trace *t = hand_trace_more(dir, "capture", "capture_run2");
	struct skip_advise_opts o = {.region = "step"};
	struct skip_advice_report *r = advise(t, "step");

	cr_expect_str_eq(r->unprofiled_source, "uncaptured");
	cr_expect_eq(r->uncaptured, 7, "4 of run 1 and 3 of run 2");
	cr_expect_eq(r->unprofiled_ns, 700);
	skip_advice_free(r);
	o.run_id = 1; /* one run: its own only */
	cr_assert_eq(skip_advise(t, &o, &r), 0, "%s", skip_errmsg());
	cr_expect_eq(r->uncaptured, 4);
	cr_expect_eq(r->unprofiled_ns, 600);
	skip_advice_free(r);
	skip_trace_close(t);
}

static const struct skip_advice *fusion_item(const struct skip_advice_report *r)
{
	for (size_t i = 0; i < r->nitems; i++)
		if (r->items[i].kind == SKIP_ADVICE_FUSION)
			return &r->items[i];
	return NULL;
}

Test(unprofiled, a_fusion_starts_from_the_baseline_and_keeps_the_models_speedup)
{
	struct skip_trace *t = hand_trace(dir, "baseline_fuse");
	struct skip_trace *e = hand_trace_more(dir, "baseline_fuse", "baseline_fuse_none");
	struct skip_advice_report *r = advise(t, "step"), *re = advise(e, "step");
	const struct skip_advice *f = fusion_item(r), *fe = fusion_item(re);

	cr_expect_str_eq(r->unprofiled_source, "baseline");
	cr_expect_eq(r->unprofiled_ns, 2100, "the baseline walls {2000, 2200}");
	cr_expect_str_eq(re->unprofiled_source, "estimate");
	cr_assert_not_null(f);
	cr_assert_not_null(fe);
	cr_expect_eq(r->chains[f->chain].count, 2, "kA -> kB in each occurrence");
	cr_expect_eq(f->baseline_il_ns, 2100);
	cr_expect_gt(fe->speedup, 1, "fusing removes kB's launch");
	cr_expect(fabs(f->speedup - fe->speedup) < 1e-9, "speedup %g, the model's %g", f->speedup,
		  fe->speedup);
	cr_expect(fabs(f->predicted_il_ns - 2100 / fe->speedup) < 1e-6);
	cr_expect_gt(f->saved_ns, 0);
	cr_expect(fabs(f->total_saved_ns / fe->total_saved_ns - 2100 / fe->baseline_il_ns) < 1e-9,
		  "the saved time scales with the time now");
	skip_advice_free(r);
	skip_advice_free(re);
	skip_trace_close(t);
	skip_trace_close(e);
}

Test(unprofiled, occurrences_of_different_sizes_are_named_so)
{
	struct skip_trace *t = hand_trace(dir, "baseline_fuse");
	struct skip_trace *m = hand_trace_more(dir, "baseline_fuse", "baseline_fuse_more");
	struct skip_advice_report *r = advise(t, "step"), *rm = advise(m, "step");
	const struct skip_advice *g = graph_item(r), *gm = graph_item(rm);

	cr_assert_not_null(g);
	cr_assert_not_null(gm);
	cr_expect(strstr(g->title, "(2 occurrences, 2 operations each)"), "%s", g->title);
	cr_expect(strstr(gm->title, "(2 occurrences, 2.5 operations (median; 2 to 3))"), "%s",
		  gm->title);
	skip_advice_free(r);
	skip_advice_free(rm);
	skip_trace_close(t);
	skip_trace_close(m);
}

Test(unprofiled, without_baseline_runs_the_estimate_is_used)
{
	struct skip_trace *t = hand_trace_more(dir, "baseline", "baseline_none");
	struct skip_advice_report *r = advise(t, "step");

	cr_expect_str_eq(r->unprofiled_source, "estimate");
	cr_expect_eq(r->baseline_runs, 0);
	cr_expect_eq(r->unprofiled_ns, 0);
	/* one launch per occurrence and no other call: 1 call per launch */
	cr_expect_eq(r->calls_per_launch, 1);
	skip_advice_free(r);
	skip_trace_close(t);
}

Test(unprofiled, baseline_runs_that_disagree_on_occurrences_are_not_used)
{
	struct skip_trace *t = hand_trace_more(dir, "baseline", "baseline_mismatch");
	struct skip_advice_report *r = advise(t, "step");

	cr_expect_str_eq(r->unprofiled_source, "estimate");
	cr_assert_not_null(r->unprofiled_note);
	cr_expect(strstr(r->unprofiled_note, "baseline run 4 holds 3 occurrences of 'step', "
					     "recorded run 1 holds 2"),
		  "%s", r->unprofiled_note);
	skip_advice_free(r);
	skip_trace_close(t);
}

Test(unprofiled, without_a_region_the_baseline_runs_are_named_not_used)
{
	struct skip_trace *t = hand_trace(dir, "baseline");
	struct skip_advice_report *r = advise(t, NULL);

	cr_expect_str_eq(r->unprofiled_source, "estimate");
	cr_assert_not_null(r->unprofiled_note);
	cr_expect(strstr(r->unprofiled_note, "2 baseline runs: with --region NAME"), "%s",
		  r->unprofiled_note);
	skip_advice_free(r);
	skip_trace_close(t);
}

Test(unprofiled, the_estimate_counts_the_calls_recorded_per_launch)
{
	struct skip_trace *t = hand_trace(dir, "advise_calls");
	struct skip_advice_report *r = advise(t, NULL);

	cr_expect_str_eq(r->unprofiled_source, "estimate");
	cr_expect(fabs(r->calls_per_launch - 1.5) < 1e-9, "calls per launch %g",
		  r->calls_per_launch);
	skip_advice_free(r);
	skip_trace_close(t);
}
