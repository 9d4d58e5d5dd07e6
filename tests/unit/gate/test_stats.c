/*
 * test_stats.c: the gate's statistics (gate/stats.c) against values computed by hand or by
 * enumerating every split of the pooled sample (the exact permutation distribution).
 */
#include <criterion/criterion.h>
#include <math.h>

#include "skip_gate.h"

#define ALMOST(a, b) (fabs((a) - (b)) < 1e-9)

Test(gate_stats, complete_separation_of_three_gives_one_in_twenty)
{
	double b[] = {1, 2, 3}, c[] = {4, 5, 6};
	struct skip_gate_stat s;

	cr_assert_eq(skip_gate_stat_compute(b, 3, c, 3, 0.05, &s), 0);
	cr_expect(s.exact);
	cr_expect(ALMOST(s.p_worse, 0.05), "%g", s.p_worse);
	cr_expect(ALMOST(s.p_better, 1), "%g", s.p_better);
	cr_expect(ALMOST(s.shift, 3));
	cr_expect(ALMOST(s.rel, 3.0 / 2));
	/* P(U <= 0) = 0.05 <= alpha: the 90% interval is [D(1), D(9)] */
	cr_expect(ALMOST(s.ci_lo, 1) && ALMOST(s.ci_hi, 5), "[%g, %g]", s.ci_lo, s.ci_hi);
	cr_assert_eq(skip_gate_stat_compute(b, 3, c, 3, 0.025, &s), 0);
	cr_expect(isinf(s.ci_lo) && isinf(s.ci_hi), "three runs cannot give a 95%% interval");
}

Test(gate_stats, matches_the_enumerated_permutation_distribution)
{
	double b[] = {1.1, 2.3, 0.7, 3.9, 2.2}, c[] = {2.5, 4.1, 3.3, 5.0, 1.9, 3.6};
	double b2[] = {10, 12, 11, 13, 9, 14, 10.5}, c2[] = {12.5, 13.5, 11.5, 15, 14.5, 16, 12.2};
	struct skip_gate_stat s;

	/* every C(11, 5) = 462 split enumerated: P(U >= 24) = 29/462, P(U <= 24) = 443/462 */
	cr_assert_eq(skip_gate_stat_compute(b, 5, c, 6, 0.05, &s), 0);
	cr_expect(ALMOST(s.p_worse, 29.0 / 462), "%.10f", s.p_worse);
	cr_expect(ALMOST(s.p_better, 443.0 / 462), "%.10f", s.p_better);
	cr_expect(ALMOST(s.shift, 1.35), "%g", s.shift);
	cr_expect(ALMOST(s.ci_lo, -0.3) && ALMOST(s.ci_hi, 2.8), "[%g, %g]", s.ci_lo, s.ci_hi);
	cr_assert_eq(skip_gate_stat_compute(b, 5, c, 6, 0.025, &s), 0);
	cr_expect(ALMOST(s.ci_lo, -0.4) && ALMOST(s.ci_hi, 3.0), "[%g, %g]", s.ci_lo, s.ci_hi);
	/* C(14, 7) = 3432 splits: P(U >= 41) = 65/3432 */
	cr_assert_eq(skip_gate_stat_compute(b2, 7, c2, 7, 0.05, &s), 0);
	cr_expect(ALMOST(s.p_worse, 65.0 / 3432), "%.10f", s.p_worse);
	cr_expect(ALMOST(s.shift, 2.2), "%g", s.shift);
	cr_expect(ALMOST(s.ci_lo, 0.5) && ALMOST(s.ci_hi, 4), "[%g, %g]", s.ci_lo, s.ci_hi);
}

Test(gate_stats, interleaved_sides_give_a_large_p)
{
	double b[6], c[6];
	struct skip_gate_stat s;

	for (int r = 1; r <= 6; r++) { /* tests/fixtures/hand/gate_base.sql and gate_same.sql */
		b[r - 1] = 1700 + 10 * r;
		c[r - 1] = 1705 + 10 * r;
	}
	cr_assert_eq(skip_gate_stat_compute(b, 6, c, 6, 0.005, &s), 0);
	cr_expect(ALMOST(s.p_worse, 323.0 / 924), "%.10f", s.p_worse); /* P(U >= 21) */
	cr_expect(ALMOST(s.shift, 5));
}

Test(gate_stats, ties_use_the_normal_approximation)
{
	double b[] = {1, 1, 1}, c[] = {1, 1, 1}, d[] = {1, 2, 2, 3}, e[] = {2, 3, 3, 4};
	struct skip_gate_stat s;

	cr_assert_eq(skip_gate_stat_compute(b, 3, c, 3, 0.05, &s), 0);
	cr_expect(!s.exact);
	cr_expect(s.p_worse == 1 && s.p_better == 1, "identical values are no evidence");
	cr_expect(s.shift == 0 && s.rel == 0);
	/* U = 13 of 16 (2 + 3.5 + 3.5 + 4, ties counting half); the pooled sample has three 2s
	   and three 3s: sd^2 = 16/12 * (9 - (24 + 24) / 56) = 10.857; z = (13 - 8 - 0.5) / sd */
	cr_assert_eq(skip_gate_stat_compute(d, 4, e, 4, 0.05, &s), 0);
	cr_expect(!s.exact);
	cr_expect(fabs(s.p_worse - 0.5 * erfc(4.5 / sqrt(16.0 / 12 * (9 - 48.0 / 56)) / M_SQRT2)) <
		      1e-9,
		  "%g", s.p_worse);
}

Test(gate_stats, past_ten_thousand_pairs_the_normal_approximation_takes_over)
{
	double b[100], c[101], u = 0, sd, z;
	struct skip_gate_stat s;

	for (int i = 0; i < 100; i++) {
		b[i] = i * 1.0;
		c[i] = i * 1.0 + 9.5;
	}
	c[100] = 200.5;
	cr_assert_eq(skip_gate_stat_compute(b, 100, c, 100, 0.01, &s), 0);
	cr_expect(s.exact, "10,000 pairs: exact");
	cr_expect(s.p_worse > 0 && s.p_worse < 0.05, "%g", s.p_worse);
	cr_assert_eq(skip_gate_stat_compute(b, 100, c, 101, 0.01, &s), 0);
	cr_expect(!s.exact, "10,100 pairs: normal");
	for (int i = 0; i < 100; i++)
		for (int j = 0; j < 101; j++)
			u += c[j] > b[i];
	sd = sqrt(100.0 * 101 * 202 / 12);
	z = (u - 100.0 * 101 / 2 - 0.5) / sd;
	cr_expect(fabs(s.p_worse - 0.5 * erfc(z / M_SQRT2)) < 1e-12, "%g", s.p_worse);
}

Test(gate_stats, shift_from_zero_is_infinite_relative_change)
{
	double b[] = {0, 0, 0}, c[] = {5, 6, 7};
	struct skip_gate_stat s;

	cr_assert_eq(skip_gate_stat_compute(b, 3, c, 3, 0.05, &s), 0);
	cr_expect(isinf(s.rel) && s.rel > 0);
}

Test(gate_stats, rejects_empty_sides_and_nans)
{
	double b[] = {1, NAN}, c[] = {2};
	struct skip_gate_stat s;

	cr_expect_eq(skip_gate_stat_compute(b, 0, c, 1, 0.05, &s), SKIP_E_INVAL);
	cr_expect_eq(skip_gate_stat_compute(b, 2, c, 1, 0.05, &s), SKIP_E_INVAL);
}

Test(gate_stats, smallest_p_and_runs_needed)
{
	cr_expect(ALMOST(skip_gate_min_p(3, 3), 1.0 / 20));
	cr_expect(ALMOST(skip_gate_min_p(5, 5), 1.0 / 252));
	cr_expect(ALMOST(skip_gate_min_p(6, 6), 1.0 / 924));
	cr_expect(ALMOST(skip_gate_min_p(1, 20), 1.0 / 21));
	cr_expect_eq(skip_gate_runs_needed(0.05), 3);
	cr_expect_eq(skip_gate_runs_needed(0.005), 5);	/* the default: 1/252 <= 0.005 */
	cr_expect_eq(skip_gate_runs_needed(0.0025), 6); /* two gated tests */
	cr_expect_eq(skip_gate_runs_needed(0.001), 7);
}

Test(gate_stats, holm_steps_down_and_stops_at_the_first_acceptance)
{
	double p[] = {0.001, 0.04, 0.03, 0.2}, level[4];
	int reject[4];

	skip_gate_holm(p, 4, 0.05, reject, level);
	cr_expect(reject[0] && !reject[1] && !reject[2] && !reject[3]);
	cr_expect(ALMOST(level[0], 0.05 / 4));
	cr_expect(ALMOST(level[2], 0.05 / 3)); /* 0.03 > 0.0167: stop */
	cr_expect(ALMOST(level[1], 0.05 / 2));
	cr_expect(ALMOST(level[3], 0.05));
	{
		double q[] = {0.01, 0.012};

		skip_gate_holm(q, 2, 0.05, reject, level);
		cr_expect(reject[0] && reject[1], "0.01 <= 0.025, then 0.012 <= 0.05");
	}
}
