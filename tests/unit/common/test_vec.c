/*
 * test_vec.c: growable arrays (common/vec.c and the SK_VEC_* macros): the first growth gives
 * 16 elements, later ones double or give just what is needed when that is more, a reserve
 * that fits changes nothing, pushes keep what was there, struct elements, and sizes that
 * overflow fail without touching the array.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>

#include "skip_common.h"

struct pair {
	int from, to;
};

Test(common_vec, pushing_grows_16_then_doubles_and_keeps_the_elements)
{
	int *v = NULL;
	size_t n = 0, cap = 0;

	cr_assert_eq(SK_VEC_PUSH(v, n, cap, 7), 0);
	cr_expect_eq(n, 1);
	cr_expect_eq(cap, 16);
	for (int i = 1; i < 17; i++)
		cr_assert_eq(SK_VEC_PUSH(v, n, cap, 7 + i), 0);
	cr_expect_eq(n, 17);
	cr_expect_eq(cap, 32);
	for (int i = 0; i < 17; i++)
		cr_expect_eq(v[i], 7 + i);
	free(v);
}

Test(common_vec, reserve_that_fits_changes_nothing_and_a_big_one_jumps)
{
	double *v = NULL;
	size_t cap = 0;
	double *before;
	size_t none = 0;

	cr_assert_eq(SK_VEC_RESERVE(v, cap, none), 0);
	cr_expect_null(v, "nothing asked, nothing allocated");
	cr_assert_eq(SK_VEC_RESERVE(v, cap, 10), 0);
	cr_expect_eq(cap, 16);
	before = v;
	cr_assert_eq(SK_VEC_RESERVE(v, cap, 16), 0);
	cr_expect_eq(v, before);
	cr_expect_eq(cap, 16);
	cr_assert_eq(SK_VEC_RESERVE(v, cap, 20), 0);
	cr_expect_eq(cap, 32, "doubled");
	cr_assert_eq(SK_VEC_RESERVE(v, cap, 1000), 0);
	cr_expect_eq(cap, 1000, "more than double: just what is needed");
	v[999] = 1.5;
	free(v);
}

Test(common_vec, struct_elements_and_int_counts)
{
	struct pair *e = NULL;
	size_t cap = 0;
	int n = 0;

	for (int i = 0; i < 100; i++)
		cr_assert_eq(SK_VEC_PUSH(e, n, cap, (struct pair){i, i + 1}), 0);
	cr_expect_eq(n, 100);
	cr_expect_eq(cap, 128);
	for (int i = 0; i < 100; i++)
		cr_expect(e[i].from == i && e[i].to == i + 1, "element %d", i);
	free(e);
}

Test(common_vec, the_aborting_forms_grow_the_same_way)
{
	int64_t *v = NULL;
	size_t n = 0, cap = 0;

	for (int i = 0; i < 40; i++)
		SK_VEC_XPUSH(v, n, cap, (int64_t)i * 3);
	cr_expect_eq(n, 40);
	cr_expect_eq(cap, 64);
	SK_VEC_XRESERVE(v, cap, 65);
	cr_expect_eq(cap, 128);
	SK_VEC_XRESERVE(v, cap, 300);
	cr_expect_eq(cap, 300);
	for (int i = 0; i < 40; i++)
		cr_expect_eq(v[i], (int64_t)i * 3);
	free(v);
}

Test(common_vec, sizes_that_overflow_fail_and_leave_the_array_alone)
{
	int *v = NULL;
	size_t n = 0, cap = 0;
	int *before;

	cr_assert_eq(SK_VEC_PUSH(v, n, cap, 1), 0);
	before = v;
	cr_expect_eq(SK_VEC_RESERVE(v, cap, SIZE_MAX / 2), SKIP_E_NOMEM);
	cr_expect_eq(v, before);
	cr_expect_eq(cap, 16);
	cr_expect_str_eq(skip_errmsg(), "out of memory");
	cr_expect_null(sk_vec_grow(v, &cap, SIZE_MAX, 1), "more elements than size_t counts");
	cr_expect_eq(cap, 16);
	cr_expect_eq(v[0], 1);
	free(v);
}
