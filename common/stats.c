/*
 * stats.c: the median, written down once (skip_common.h gives the definitions), and the qsort()
 * comparisons every part sorts numbers with.
 */
#include <stdlib.h>

#include "skip_common.h"

int sk_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int sk_cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

double skip_median(double *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(double), sk_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Quickselect with Hoare's partition: the element that sorts to (n - 1) / 2. */
int64_t skip_median_low_i64(int64_t *v, size_t n)
{
	size_t lo = 0, hi = n - 1, k = (n - 1) / 2;

	if (!n)
		return 0;
	while (lo < hi) {
		int64_t pivot = v[lo + (hi - lo) / 2];
		size_t i = lo, j = hi;

		while (i <= j) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i <= j) {
				int64_t tmp = v[i];

				v[i] = v[j];
				v[j] = tmp;
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			break;
	}
	return v[k];
}
