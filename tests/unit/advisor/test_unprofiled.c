/*
 * test_unprofiled.c: where skip advise takes a region's unprofiled time from, on hand-built
 * traces (tests/fixtures/hand/baseline*.sql, capture.sql): the occurrences outside the
 * capture ranges of a --capture-range recording; the baseline runs' median wall interval when they
 * hold the region as often per run as the recorded run, else the model's estimate, which takes
 * out the calibration's cost per recorded call times the calls recorded per launch.
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
