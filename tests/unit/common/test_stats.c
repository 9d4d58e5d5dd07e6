/*
 * test_stats.c: the median (common/stats.c), with answers worked out by hand: skip_median() of
 * odd and even counts (the mean of the middle two), none, one, ties, negative values and
 * unsorted input, which it leaves sorted; skip_median_low_i64(), the lower median, against a
 * sort on many random inputs with duplicates; the qsort comparisons.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "skip_common.h"

Test(common_stats, median_of_an_odd_count_is_the_middle_value)
{
	double v[] = {9, 1, 5, 3, 7}; /* sorted 1 3 5 7 9 */

	cr_expect_eq(skip_median(v, 5), 5);
	for (int i = 0; i < 5; i++)
		cr_expect_eq(v[i], 1 + 2 * i, "left sorted: v[%d]", i);
}

Test(common_stats, median_of_an_even_count_is_the_mean_of_the_middle_two)
{
	double a[] = {4, 1, 3, 2};	   /* 1 2 3 4: (2 + 3) / 2 */
	double b[] = {10, 20};		   /* (10 + 20) / 2 */
	double c[] = {-1, 5, -3, 8, 0, 2}; /* -3 -1 0 2 5 8: (0 + 2) / 2 */

	cr_expect_eq(skip_median(a, 4), 2.5);
	cr_expect_eq(skip_median(b, 2), 15);
	cr_expect_eq(skip_median(c, 6), 1);
}

Test(common_stats, median_of_none_is_0_and_of_one_is_that_value)
{
	double v[] = {-4.25};

	cr_expect_eq(skip_median(NULL, 0), 0);
	cr_expect_eq(skip_median(v, 1), -4.25);
}

Test(common_stats, median_with_ties)
{
	double v[] = {2, 2, 2, 9};    /* 2 2 2 9: (2 + 2) / 2 */
	double w[] = {1, 3, 3, 1, 3}; /* 1 1 3 3 3 */

	cr_expect_eq(skip_median(v, 4), 2);
	cr_expect_eq(skip_median(w, 5), 3);
}

Test(common_stats, lower_median_is_the_lower_middle_value)
{
	int64_t odd[] = {50, 10, 40, 20, 30}; /* 10 20 30 40 50 */
	int64_t even[] = {4, 1, 3, 2};	      /* 1 2 3 4: the lower of 2 and 3 */
	int64_t two[] = {1000000000000, -7};
	int64_t one[] = {42};

	cr_expect_eq(skip_median_low_i64(odd, 5), 30);
	cr_expect_eq(skip_median_low_i64(even, 4), 2);
	cr_expect_eq(skip_median_low_i64(two, 2), -7);
	cr_expect_eq(skip_median_low_i64(one, 1), 42);
	cr_expect_eq(skip_median_low_i64(NULL, 0), 0);
}

Test(common_stats, lower_median_selects_like_a_sort)
{
	int64_t v[501], w[501];

	srand(7);
	for (int round = 0; round < 200; round++) {
		size_t n = 1 + (size_t)(rand() % 500);

		for (size_t i = 0; i < n; i++)
			v[i] = w[i] = rand() % 50 - 25; /* many duplicates, some negative */
		qsort(w, n, sizeof(int64_t), sk_cmp_i64);
		cr_assert_eq(skip_median_low_i64(v, n), w[(n - 1) / 2], "n = %zu", n);
	}
}

Test(common_stats, comparisons_order_ascending)
{
	double d[] = {3.5, -INFINITY, 0, -0.5, INFINITY, 1e-300};
	int64_t i[] = {INT64_MAX, 0, INT64_MIN, -1, 1};

	qsort(d, 6, sizeof(double), sk_cmp_double);
	for (int k = 1; k < 6; k++)
		cr_expect_leq(d[k - 1], d[k]);
	qsort(i, 5, sizeof(int64_t), sk_cmp_i64);
	cr_expect(i[0] == INT64_MIN && i[1] == -1 && i[2] == 0 && i[3] == 1 && i[4] == INT64_MAX);
	cr_expect_eq(sk_cmp_double(&d[0], &d[0]), 0);
}
