/*
 * test_decide.c: skip_gate_decide() on simulated run sets with known answers (sim.c): the
 * false-alarm rate on identical distributions at the default settings, that real regressions
 * are caught, the runs the test needs, the Holm family, the verdict, and the --metric list.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

#define SEED 20261123

/*
 * The bound: over 1,000 trials of identical log-normal distributions with the spread
 * seen between processes on the H100 (10% to 30%), the default gate fails at most 1% of the
 * time, for 5, 10 and 20 runs per side; and over all 9,000 trials together too. (Holm's
 * procedure bounds it at alpha = 0.5%; the exact test's discreteness keeps it lower.)
 */
Test(gate_decide, false_alarms_stay_under_one_percent_at_the_defaults)
{
	static const int ns[] = {5, 10, 20};
	static const double sigmas[] = {0.10, 0.20, 0.30};
	struct skip_gate_opts o = {.floor_ns = -1};
	double total = 0;

	for (size_t i = 0; i < 3; i++)
		for (size_t s = 0; s < 3; s++) {
			double r = sim_fail_rate(SEED + 10 * i + s, 1000, ns[i], sigmas[s], 0, &o);

			cr_expect(r >= 0 && r <= 0.01,
				  "%d runs, spread %.0f%%: %.1f%% false alarms", ns[i],
				  sigmas[s] * 100, r * 100);
			cr_log_info("%d runs, spread %.0f%%: %.1f%% false alarms", ns[i],
				    sigmas[s] * 100, r * 100);
			total += r;
		}
	cr_expect(total / 9 <= 0.01, "%.2f%% over all trials", 100 * total / 9);
	cr_log_info("%.2f%% false alarms over all 9,000 trials", 100 * total / 9);
}

Test(gate_decide, false_alarms_with_two_gated_metrics_stay_under_one_percent)
{
	struct skip_gate_metric *m = NULL;
	size_t n = 0;
	struct skip_gate_opts o = {.floor_ns = -1};

	cr_assert_eq(skip_gate_metrics_parse("il,tklqt", &m, &n), 0);
	o.metrics = m;
	o.nmetrics = n;
	for (int s = 1; s <= 3; s++) {
		double r = sim_fail_rate(SEED + s, 1000, 10, 0.1 * s, 0, &o);

		cr_expect(r >= 0 && r <= 0.01, "spread %d0%%: %.1f%%", s, r * 100);
	}
	skip_gate_metrics_free(m, n);
}

Test(gate_decide, a_25_percent_regression_with_10_percent_spread_is_caught)
{
	struct skip_gate_opts o = {.floor_ns = -1};

	cr_expect_geq(sim_fail_rate(SEED, 500, 10, 0.10, 0.25, &o), 0.9);
	cr_expect_geq(sim_fail_rate(SEED, 500, 10, 0.02, 0.10, &o), 0.9);
}

Test(gate_decide, a_change_under_the_threshold_never_fails)
{
	struct skip_gate_opts o = {.floor_ns = -1};

	/* 3% slower with almost no spread: always significant, never 5% */
	cr_expect_eq(sim_fail_rate(SEED, 200, 10, 0.001, 0.03, &o), 0);
}

static struct skip_gate_side *side_of(const double *il, int n, const char *path)
{
	struct sim_rng r = {1};
	struct skip_gate_side *s = sim_side(&r, path, n, 0, 1, 1);

	for (int i = 0; i < n; i++)
		s->cases[0].runs[i].median[SKIP_M_IL] = il[i];
	return s;
}

Test(gate_decide, too_few_runs_says_how_many_the_test_needs)
{
	double il[] = {1e6, 1.1e6, 1.2e6};
	struct skip_gate_side *b = side_of(il, 3, "base.db"), *c = side_of(il, 3, "cand.db");
	struct skip_gate_result *r = NULL;
	struct skip_gate_opts o = {.floor_ns = -1};

	cr_expect_eq(skip_gate_decide(b, c, &o, &r), SKIP_E_INVAL);
	cr_expect_null(r);
	cr_expect(strstr(skip_errmsg(), "base.db has 3 and cand.db has 3") != NULL, "%s",
		  skip_errmsg());
	cr_expect(strstr(skip_errmsg(), "needs 5 runs on each side") != NULL, "%s", skip_errmsg());
	o.alpha = 0.05; /* 1/20 is enough for one test at 0.05 */
	cr_expect_eq(skip_gate_decide(b, c, &o, &r), 0, "%s", skip_errmsg());
	cr_expect_eq(r->regressions, 0);
	skip_gate_result_free(r);
	o.min_runs = 4;
	cr_expect_eq(skip_gate_decide(b, c, &o, &r), SKIP_E_INVAL);
	cr_expect(strstr(skip_errmsg(), "needs 4 runs") != NULL, "%s", skip_errmsg());
	skip_gate_side_free(b);
	skip_gate_side_free(c);
}

Test(gate_decide, the_holm_family_grows_with_the_gated_metrics)
{
	double il[] = {1, 2, 3, 4, 5};
	struct skip_gate_side *b = side_of(il, 5, "b"), *c = side_of(il, 5, "c");
	struct skip_gate_metric *m = NULL;
	struct skip_gate_result *r = NULL;
	struct skip_gate_opts o = {.floor_ns = -1};
	size_t n = 0;

	cr_assert_eq(skip_gate_metrics_parse("il,tklqt", &m, &n), 0);
	o.metrics = m;
	o.nmetrics = n;
	cr_expect_eq(skip_gate_decide(b, c, &o, &r), SKIP_E_INVAL);
	cr_expect(strstr(skip_errmsg(), "over 2 gated tests the rank test needs 6 runs") != NULL,
		  "%s", skip_errmsg());
	skip_gate_metrics_free(m, n);
	skip_gate_side_free(b);
	skip_gate_side_free(c);
}

Test(gate_decide, statuses_regression_inconclusive_and_improved)
{
	double lo[] = {100, 101, 102, 103, 104, 105}, hi[] = {120, 121, 122, 123, 124, 125};
	double mixed[] = {90, 104, 130, 99, 140, 95};
	struct skip_gate_side *b = side_of(lo, 6, "b"), *c = side_of(hi, 6, "c");
	struct skip_gate_side *m = side_of(mixed, 6, "m");
	struct skip_gate_result *r = NULL;
	struct skip_gate_opts o = {.floor_ns = 0};

	cr_assert_eq(skip_gate_decide(b, c, &o, &r), 0, "%s", skip_errmsg());
	cr_expect_eq(r->tests[0].status, SKIP_GATE_REGRESSION);
	cr_expect(fabs(r->tests[0].s.p_worse - 1.0 / 924) < 1e-12);
	cr_expect_eq(r->regressions, 1);
	skip_gate_result_free(r);
	cr_assert_eq(skip_gate_decide(c, b, &o, &r), 0);
	cr_expect_eq(r->tests[0].status, SKIP_GATE_IMPROVED);
	cr_expect_eq(r->regressions, 0);
	skip_gate_result_free(r);
	cr_assert_eq(skip_gate_decide(b, m, &o, &r), 0); /* +~0% median, large spread */
	cr_expect_eq(r->tests[0].status, SKIP_GATE_PASS, "%s",
		     skip_gate_status_name(r->tests[0].status));
	skip_gate_result_free(r);
	o.floor_ns = 1000; /* a 20 ns change under a 1 us floor is no regression */
	cr_assert_eq(skip_gate_decide(b, c, &o, &r), 0);
	cr_expect_eq(r->tests[0].status, SKIP_GATE_PASS);
	skip_gate_result_free(r);
	skip_gate_side_free(b);
	skip_gate_side_free(c);
	skip_gate_side_free(m);
}

Test(gate_decide, a_large_change_that_is_not_significant_is_inconclusive)
{
	double b5[] = {100, 150, 80, 120, 95}, c5[] = {140, 90, 170, 115, 160};
	struct skip_gate_side *b = side_of(b5, 5, "b"), *c = side_of(c5, 5, "c");
	struct skip_gate_result *r = NULL;
	struct skip_gate_opts o = {.floor_ns = 0};

	cr_assert_eq(skip_gate_decide(b, c, &o, &r), 0, "%s", skip_errmsg());
	cr_expect_eq(r->tests[0].status, SKIP_GATE_INCONCLUSIVE);
	cr_expect_eq(r->inconclusive, 1);
	cr_expect_eq(r->regressions, 0);
	skip_gate_result_free(r);
	skip_gate_side_free(b);
	skip_gate_side_free(c);
}

Test(gate_decide, a_flip_to_cpu_bound_fails_the_verdict_metric)
{
	double il[] = {1, 2, 3, 4, 5, 6};
	struct skip_gate_side *b = side_of(il, 6, "b"), *c = side_of(il, 6, "c");
	struct skip_gate_metric *m = NULL;
	struct skip_gate_result *r = NULL;
	struct skip_gate_opts o = {.floor_ns = -1};
	size_t n = 0;

	for (int i = 0; i < 6; i++) {
		b->cases[0].runs[i].median[SKIP_M_HOST_SHARE] = 0.30 + 0.01 * i;
		c->cases[0].runs[i].median[SKIP_M_HOST_SHARE] = 0.60 + 0.01 * i;
	}
	cr_assert_eq(skip_gate_metrics_parse("verdict", &m, &n), 0);
	o.metrics = m;
	o.nmetrics = n;
	cr_assert_eq(skip_gate_decide(b, c, &o, &r), 0, "%s", skip_errmsg());
	cr_expect_eq(r->tests[0].status, SKIP_GATE_REGRESSION);
	cr_expect_str_eq(r->tests[0].note, "GPU-bound -> CPU-bound");
	skip_gate_result_free(r);
	cr_assert_eq(skip_gate_decide(c, b, &o, &r), 0); /* CPU- to GPU-bound is no regression */
	cr_expect_eq(r->tests[0].status, SKIP_GATE_CHANGED);
	cr_expect_eq(r->regressions, 0);
	skip_gate_result_free(r);
	skip_gate_metrics_free(m, n);
	skip_gate_side_free(b);
	skip_gate_side_free(c);
}

Test(gate_decide, other_gpus_warn_or_with_strict_refuse)
{
	double il[] = {1, 2, 3, 4, 5};
	struct skip_gate_side *b = side_of(il, 5, "b"), *c = side_of(il, 5, "c");
	struct skip_gate_result *r = NULL;
	struct skip_gate_opts o = {.floor_ns = -1};

	snprintf(b->gpu, sizeof(b->gpu), "NVIDIA H100 80GB HBM3");
	snprintf(c->gpu, sizeof(c->gpu), "NVIDIA A100-SXM4-40GB");
	cr_assert_eq(skip_gate_decide(b, c, &o, &r), 0);
	cr_expect_eq(r->nwarnings, 1);
	cr_expect(strstr(r->warnings[0], "different GPUs") != NULL, "%s", r->warnings[0]);
	skip_gate_result_free(r);
	o.strict = 1;
	cr_expect_eq(skip_gate_decide(b, c, &o, &r), SKIP_E_INVAL);
	cr_expect(strstr(skip_errmsg(), "--strict") != NULL, "%s", skip_errmsg());
	skip_gate_side_free(b);
	skip_gate_side_free(c);
}

Test(gate_decide, metric_lists_keep_cpp_names_whole)
{
	struct skip_gate_metric *m = NULL;
	size_t n = 0;

	cr_assert_eq(skip_gate_metrics_parse("il,busy,kernel:void f<int, 2>(float*)", &m, &n), 0);
	cr_assert_eq(n, 3);
	cr_expect_eq(m[0].kind, SKIP_GATE_REGION);
	cr_expect_eq(m[1].id, SKIP_M_BUSY);
	cr_expect_eq(m[2].kind, SKIP_GATE_KERNEL_MEAN);
	cr_expect_str_eq(m[2].name, "void f<int, 2>(float*)");
	cr_expect_str_eq(m[2].spelling, "kernel:void f<int, 2>(float*)");
	cr_assert_eq(skip_gate_metrics_parse("op:step", &m, &n), 0);
	cr_expect_eq(m[3].kind, SKIP_GATE_OP_TOTAL);
	cr_expect_eq(skip_gate_metrics_parse("il,latency", &m, &n), SKIP_E_INVAL);
	cr_expect(strstr(skip_errmsg(), "unknown metric 'latency'; the metrics are il, tklqt") !=
		      NULL,
		  "%s", skip_errmsg());
	cr_expect_eq(skip_gate_metrics_parse("kernel:", &m, &n), SKIP_E_INVAL);
	skip_gate_metrics_free(m, n);
}
