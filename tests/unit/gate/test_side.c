/*
 * test_side.c: sides read from traces (gate/side.c) and what the gate and the diff make of
 * them, on the hand-built traces tests/fixtures/hand/gate_*.sql, whose answers are derived in
 * their header comments.
 */
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

TestSuite(gate_side, .init = setup, .fini = teardown);

/* The side of tests/fixtures/hand/common.sql + NAME.sql (+ MORE.sql). */
static struct skip_gate_side *side(const char *name, const char *more, const char *region)
{
	struct skip_trace *t = hand_trace_more(dir, name, more);
	struct skip_gate_side *s = NULL;
	int err = skip_gate_side_from_trace(t, name, region, &s);

	cr_assert_eq(err, 0, "%s: %s", name, skip_errmsg());
	skip_trace_close(t);
	return s;
}

Test(gate_side, each_run_gives_its_median_over_the_region)
{
	struct skip_gate_side *s = side("gate_base", NULL, "step");
	const struct skip_gate_case *c = &s->cases[0];

	cr_assert_eq(s->ncases, 1);
	cr_expect_str_eq(c->key, "");
	cr_expect_str_eq(c->command, "hand gate");
	cr_assert_eq(c->nruns, 6);
	for (int r = 0; r < 6; r++) {
		cr_expect_eq(c->runs[r].run_id, r + 1);
		cr_expect_eq(c->runs[r].regions, 2);
		cr_expect_eq(c->runs[r].median[SKIP_M_IL], 1710 + 10 * r);
		cr_expect_eq(c->runs[r].median[SKIP_M_TKLQT], 1260 + 10 * r);
	}
	cr_assert_eq(c->nkernels, 2);
	cr_expect_str_eq(c->kernels[0].name, "kA");
	cr_expect_eq(c->kernels[0].count[2], 2);	   /* two steps */
	cr_expect_eq(c->kernels[0].total_ns[2], 2 * 1030); /* A = 1000 + 10 r, run 3 */
	cr_assert_eq(c->nops, 1);
	cr_expect_str_eq(c->ops[0].name, "step");
	cr_expect_str_eq(s->gpu, "Hand GPU");
	cr_expect_str_eq(s->driver, "580.159.04");
	cr_expect_str_eq(s->skip_version, "0.1.0");
	cr_expect_eq(s->nnotes, 0);
	skip_gate_side_free(s);
}

Test(gate_side, a_failed_run_is_left_out_with_a_note)
{
	struct skip_gate_side *s = side("gate_slow", NULL, "step");

	cr_expect_eq(s->cases[0].nruns, 6);
	cr_assert_eq(s->nnotes, 1);
	cr_expect_str_eq(s->notes[0], "gate_slow: run 7 failed (exit 1): left out");
	skip_gate_side_free(s);
}

Test(gate_side, runs_with_other_parameters_are_other_cases)
{
	struct skip_gate_side *s = side("gate_sweep", NULL, NULL);

	cr_assert_eq(s->ncases, 2);
	cr_expect_str_eq(s->cases[0].key, "batch=1");
	cr_expect_str_eq(s->cases[1].key, "batch=2");
	cr_expect_eq(s->cases[1].nruns, 6);
	cr_expect_eq(s->cases[1].runs[0].median[SKIP_M_IL], 200 + 2000 + 70);
	skip_gate_side_free(s);
}

Test(gate_side, no_region_and_no_gpu_work_are_errors)
{
	struct skip_trace *t = hand_trace(dir, "gate_base");
	struct skip_gate_side *s = NULL;

	cr_expect_eq(skip_gate_side_from_trace(t, "base", "nosuch", &s), SKIP_E_NOTFOUND);
	cr_expect(strstr(skip_errmsg(), "no NVTX range named 'nosuch'; ranges present: 'step'") !=
		      NULL,
		  "%s", skip_errmsg());
	cr_expect_null(s);
	skip_trace_close(t);
	t = hand_trace(dir, "gate_empty");
	cr_expect_eq(skip_gate_side_from_trace(t, "empty", NULL, &s), SKIP_E_EMPTY);
	cr_expect_null(s);
	skip_trace_close(t);
}

Test(gate_side, slower_kernel_is_a_regression_and_the_diff_names_it)
{
	struct skip_gate_side *b = side("gate_base", NULL, "step");
	struct skip_gate_side *c = side("gate_slow", NULL, "step");
	struct skip_gate_opts o = {.floor_ns = -1};
	struct skip_gate_result *r = NULL;
	struct skip_diff *d = NULL;

	cr_assert_eq(skip_gate_decide(b, c, &o, &r), 0, "%s", skip_errmsg());
	cr_expect_eq(r->regressions, 1);
	cr_expect_eq(r->tests[0].status, SKIP_GATE_REGRESSION);
	cr_expect(fabs(r->tests[0].s.p_worse - 1.0 / 924) < 1e-12);
	cr_expect_eq(r->tests[0].s.shift, 300);
	cr_expect(fabs(r->tests[0].s.rel - 300.0 / 1735) < 1e-12);
	cr_expect_eq(r->nwarnings, 1, "the failed run");
	cr_assert_eq(skip_diff_compute(b, c, 0, -1, &d), 0);
	cr_assert_eq(d->ncases, 1);
	cr_expect_str_eq(d->cases[0].kernels[0].name, "kA");
	cr_expect_eq(d->cases[0].kernels[0].flags, SKIP_DIFF_SLOWER);
	cr_expect_eq(d->cases[0].kernels[0].delta_ns, 300);
	cr_expect(fabs(d->cases[0].kernels[0].share - 1) < 1e-12);
	cr_expect_eq(d->cases[0].kernels[1].flags, 0);
	cr_expect_eq(d->cases[0].mean[1][SKIP_M_IL] - d->cases[0].mean[0][SKIP_M_IL], 300);
	skip_diff_free(d);
	skip_gate_result_free(r);
	skip_gate_side_free(c);
	skip_gate_side_free(b);
}

Test(gate_side, interleaved_runs_pass)
{
	struct skip_gate_side *b = side("gate_base", NULL, "step");
	struct skip_gate_side *c = side("gate_same", NULL, "step");
	struct skip_gate_opts o = {.floor_ns = -1};
	struct skip_gate_result *r = NULL;

	cr_assert_eq(skip_gate_decide(b, c, &o, &r), 0, "%s", skip_errmsg());
	cr_expect_eq(r->regressions, 0);
	cr_expect(fabs(r->tests[0].s.p_worse - 323.0 / 924) < 1e-12);
	skip_gate_result_free(r);
	skip_gate_side_free(c);
	skip_gate_side_free(b);
}

Test(gate_side, extra_launches_are_a_change_and_fail_only_past_the_threshold)
{
	struct skip_gate_side *b = side("gate_base", NULL, "step");
	struct skip_gate_side *c = side("gate_extra", NULL, "step");
	struct skip_gate_opts o = {.floor_ns = -1};
	struct skip_gate_result *r = NULL;
	struct skip_diff *d = NULL;

	cr_assert_eq(skip_gate_decide(b, c, &o, &r), 0, "%s", skip_errmsg());
	cr_expect_eq(r->regressions, 0, "+4.6%% is under the 5%% threshold");
	cr_assert_eq(r->nchanges, 1);
	cr_expect_str_eq(r->changes[0], "kernel kC is new: 2 launches per region");
	skip_gate_result_free(r);
	o.max_regress = 0.04;
	cr_assert_eq(skip_gate_decide(b, c, &o, &r), 0);
	cr_expect_eq(r->regressions, 0, "+80 ns is under the 100 ns floor");
	skip_gate_result_free(r);
	o.floor_ns = 50;
	cr_assert_eq(skip_gate_decide(b, c, &o, &r), 0);
	cr_expect_eq(r->regressions, 1);
	cr_expect(fabs(r->tests[0].s.rel - 80.0 / 1735) < 1e-12);
	cr_assert_eq(skip_diff_compute(b, c, 0, 10, &d), 0);
	cr_expect_str_eq(d->cases[0].kernels[0].name, "kC");
	cr_expect_eq(d->cases[0].kernels[0].flags, SKIP_DIFF_NEW);
	cr_expect_eq(d->cases[0].kernels[0].count[1], 2);
	cr_expect(fabs(d->cases[0].kernels[0].share - 1) < 1e-12);
	skip_diff_free(d);
	skip_gate_result_free(r);
	skip_gate_side_free(c);
	skip_gate_side_free(b);
}

Test(gate_side, cases_are_matched_by_parameters)
{
	struct skip_gate_side *s = side("gate_sweep", NULL, NULL);
	struct skip_gate_side *b = side("gate_base", NULL, NULL);
	struct skip_gate_opts o = {.floor_ns = -1};
	struct skip_gate_result *r = NULL;

	cr_assert_eq(skip_gate_decide(s, s, &o, &r), 0, "%s", skip_errmsg());
	cr_expect_eq(r->gated, 2, "one IL test per case");
	cr_expect_eq(r->regressions, 0);
	skip_gate_result_free(r);
	cr_expect_eq(skip_gate_decide(s, b, &o, &r), SKIP_E_INVAL);
	cr_expect(strstr(skip_errmsg(), "no case in common") != NULL, "%s", skip_errmsg());
	skip_gate_side_free(b);
	skip_gate_side_free(s);
}

Test(gate_side, another_gpu_and_driver_warn)
{
	struct skip_gate_side *b = side("gate_base", NULL, "step");
	struct skip_gate_side *c = side("gate_same", "gate_othergpu", "step");
	struct skip_gate_opts o = {.floor_ns = -1};
	struct skip_gate_result *r = NULL;

	cr_expect_str_eq(c->driver, "575.51.03");
	cr_assert_eq(skip_gate_decide(b, c, &o, &r), 0, "%s", skip_errmsg());
	cr_assert_eq(r->nwarnings, 2);
	cr_expect(strstr(r->warnings[0], "different GPUs (gate_base: Hand GPU, gate_same: Other "
					 "GPU)") != NULL,
		  "%s", r->warnings[0]);
	cr_expect(strstr(r->warnings[1], "different drivers") != NULL, "%s", r->warnings[1]);
	skip_gate_result_free(r);
	skip_gate_side_free(c);
	skip_gate_side_free(b);
}
