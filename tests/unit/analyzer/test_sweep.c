/*
 * test_sweep.c: the CPU/GPU-bound crossover of a sweep, found two ways, on synthetic sweeps
 * whose answers were computed by hand (flat then rising, always CPU-bound, always GPU-bound, a
 * noisy plateau, a verdict that flips back and forth), and the grouping of runs into sweep
 * points on a hand-built trace (tests/fixtures/hand/sweep.sql).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hand.h"

static const double x8[] = {1, 2, 4, 8, 16, 32, 64, 128};

static struct skip_sweep cross(const double *x, const double *h, const double *t, size_t n)
{
	struct skip_sweep s;

	memset(&s, 0, sizeof(s));
	skip_sweep_crossover(x, h, t, n, 0.5, 0.2, &s);
	return s;
}

Test(analyzer_sweep, flat_then_rising_gives_both_crossovers_and_they_agree)
{
	static const double h[] = {0.9, 0.9, 0.85, 0.8, 0.3, 0.1, 0.05, 0.02};
	static const double t[] = {5, 5, 5, 5, 12, 24, 48, 96};
	struct skip_sweep s = cross(x8, h, t, 8);

	cr_assert(s.flip.found);
	/* log2 8 + (0.8 - 0.5) / (0.8 - 0.3) = 3.6 */
	cr_expect_float_eq(s.flip.value, exp2(3.6), 1e-9);
	cr_expect_eq(s.flip.lo, 3);
	cr_expect_eq(s.flip.hi, 4);
	cr_expect_eq(s.flip.flips, 1);
	cr_assert(s.knee.found);
	cr_expect_float_eq(s.knee.plateau, 5.0, 1e-12);
	cr_expect_float_eq(s.knee.threshold, 6.0, 1e-12);
	/* between 8 (5) and 16 (12): log2 8 + (6 - 5) / (12 - 5) */
	cr_expect_float_eq(s.knee.value, exp2(3.0 + 1.0 / 7.0), 1e-9);
	cr_expect(s.agree);
}

Test(analyzer_sweep, always_cpu_bound_has_no_crossover)
{
	static const double h[] = {0.9, 0.88, 0.91, 0.87, 0.9, 0.86, 0.85, 0.84};
	static const double t[] = {5, 5.1, 4.9, 5.2, 5, 5.3, 5.1, 5.2};
	struct skip_sweep s = cross(x8, h, t, 8);

	cr_expect_not(s.flip.found);
	cr_expect_eq(s.flip.flips, 0);
	cr_expect_not(s.knee.found);
	cr_expect(s.agree, "both absent: they agree");
}

Test(analyzer_sweep, always_gpu_bound_has_no_plateau)
{
	static const double h[] = {0.1, 0.08, 0.05, 0.04, 0.03, 0.02, 0.01, 0.01};
	static const double t[] = {5, 10, 20, 40, 80, 160, 320, 640};
	struct skip_sweep s = cross(x8, h, t, 8);

	cr_expect_not(s.flip.found);
	cr_expect_not(s.knee.found, "TKLQT rises from the first values");
	cr_expect_float_eq(s.knee.plateau, 10.0, 1e-12, "median of 5, 10, 20");
	cr_expect(s.agree);
}

Test(analyzer_sweep, a_noisy_plateau_is_still_a_plateau)
{
	static const double h[] = {0.8, 0.75, 0.85, 0.7, 0.65, 0.2, 0.1, 0.05};
	static const double t[] = {5.0, 5.6, 4.7, 5.4, 4.9, 15, 30, 60};
	struct skip_sweep s = cross(x8, h, t, 8);

	cr_assert(s.flip.found);
	cr_expect_float_eq(s.flip.value, exp2(4.0 + 0.15 / 0.45), 1e-9);
	cr_assert(s.knee.found);
	cr_expect_float_eq(s.knee.plateau, 5.0, 1e-12);
	cr_expect_float_eq(s.knee.value, exp2(4.0 + 1.1 / 10.1), 1e-9);
	cr_expect(s.agree);
}

Test(analyzer_sweep, a_non_monotone_sweep_reports_the_first_flip_and_the_disagreement)
{
	static const double x[] = {1, 2, 4, 8, 16, 32};
	static const double h[] = {0.9, 0.8, 0.3, 0.7, 0.2, 0.1};
	static const double t[] = {5, 5, 5, 20, 6, 40};
	struct skip_sweep s = cross(x, h, t, 6);

	cr_assert(s.flip.found);
	cr_expect_float_eq(s.flip.value, exp2(1.6), 1e-9, "first CPU -> GPU flip, 2 to 4");
	cr_expect_eq(s.flip.flips, 3);
	cr_assert(s.knee.found);
	cr_expect_float_eq(s.knee.value, 16.0, 1e-9, "only from 32 on does TKLQT stay above 6");
	cr_expect_not(s.agree, "3.03 and 16 are more than a factor of 2 apart");
}

Test(analyzer_sweep, too_few_values_for_a_knee)
{
	static const double x[] = {1, 2};
	static const double h[] = {0.9, 0.1};
	static const double t[] = {5, 50};
	struct skip_sweep s = cross(x, h, t, 2);

	cr_expect(s.flip.found);
	cr_expect_eq(s.knee.plateau_points, 0);
	cr_expect_not(s.knee.found);
	cr_expect_not(s.agree);
}

Test(analyzer_sweep, runs_are_grouped_by_parameter_value_with_medians)
{
	struct skip_analysis_opts o = {0};
	struct skip_report *r = NULL;
	char dir[] = "/tmp/skip-sw-XXXXXX";
	struct skip_trace *t;
	const struct skip_sweep *s;

	cr_assert_not_null(mkdtemp(dir));
	t = hand_trace(dir, "sweep");
	cr_assert_eq(skip_analyze(t, &o, &r), 0, "%s", skip_errmsg());
	s = r->sweep;
	cr_assert_not_null(s, "six runs with batch 1, 2, 4 make a sweep");
	cr_expect_str_eq(s->param, "batch", "the non-numeric 'mode' is not a sweep parameter");
	cr_assert_eq(s->npts, 3);
	cr_expect_float_eq(s->pts[0].value, 1, 1e-12);
	cr_expect_eq(s->pts[0].runs, 2);
	cr_expect_eq(s->pts[0].regions, 2);
	cr_expect_float_eq(s->pts[0].il_ns, 1100, 1e-9);
	cr_expect_float_eq(s->pts[1].il_ns, 2000, 1e-9);
	cr_expect_float_eq(s->pts[2].il_ns, 4200, 1e-9);
	cr_expect_float_eq(s->pts[2].tklqt_ns, 3700, 1e-9, "IL - 500, median of 3500 and 3900");
	cr_expect_float_eq(s->pts[0].host_share, (500.0 / 1000 + 700.0 / 1200) / 2, 1e-12);
	skip_report_free(r);
	{ /* repetitions: one command, the same parameters */
		int64_t *ids = NULL;

		cr_assert_eq(skip_trace_repeats(t, 2, &ids), 2);
		cr_expect_eq(ids[0], 2);
		cr_expect_eq(ids[1], 5);
		free(ids);
		cr_assert_eq(skip_trace_repeats(t, 4, &ids), 2, "batch 1 and mode eager, both");
		cr_expect_eq(ids[0], 1);
		cr_expect_eq(ids[1], 4);
		free(ids);
		cr_expect_eq(skip_trace_repeats(t, 9, &ids), 0, "no run 9");
		free(ids);
	}
	o.param = "nope";
	cr_expect_eq(skip_analyze(t, &o, &r), SKIP_E_NOTFOUND);
	cr_expect(strstr(skip_errmsg(), "no numeric parameter 'nope'"), "%s", skip_errmsg());
	skip_trace_close(t);
	{
		char cmd[64];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		(void)!system(cmd);
	}
}
