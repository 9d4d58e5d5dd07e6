/*
 * test_bf16.c: bfloat16 conversions (runtime/bf16.h), with bit patterns worked out by hand:
 * bf16 keeps the sign, the 8 exponent bits and the top 7 mantissa bits of a binary32, so
 * 1.0f = 0x3f800000 is 0x3f80, and the bf16 values next to 1 are 1 + k * 2^-7.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <criterion/criterion.h>

#include "bf16.h"

Test(runtime_bf16, exact_values_keep_their_upper_half)
{
	cr_assert_eq(sk_bf16_from_float(1.0f), 0x3f80);
	cr_assert_eq(sk_bf16_from_float(-2.0f), 0xc000);
	cr_assert_eq(sk_bf16_from_float(0.0f), 0x0000);
	cr_assert_eq(sk_bf16_from_float(-0.0f), 0x8000);
	cr_assert_eq(sk_bf16_from_float(1.0078125f), 0x3f81); /* 1 + 2^-7 */
	cr_assert_eq(sk_bf16_to_float(0x3f80), 1.0f);
	cr_assert_eq(sk_bf16_to_float(0xc000), -2.0f);
	cr_assert_eq(sk_bf16_to_float(0x3f81), 1.0078125f);
	cr_assert_eq(sk_bf16_to_float(0x4049), 3.140625f); /* 0x40490000: 2 * (1 + 73/128) */
}

Test(runtime_bf16, rounds_to_nearest_ties_to_even)
{
	/* 1 + 2^-8 lies halfway between 0x3f80 and 0x3f81: the even one, 0x3f80 */
	cr_assert_eq(sk_bf16_from_float(1.00390625f), 0x3f80);
	/* 1 + 3 * 2^-8 lies halfway between 0x3f81 and 0x3f82: 0x3f82 */
	cr_assert_eq(sk_bf16_from_float(1.01171875f), 0x3f82);
	/* just above the first halfway point: up */
	cr_assert_eq(sk_bf16_from_float(1.00390637f), 0x3f81); /* 0x3f808001 */
	/* 3.14159265f = 0x40490fdb: the lower half 0x0fdb is below 0x8000, so down to 0x4049 */
	cr_assert_eq(sk_bf16_from_float(3.14159265f), 0x4049);
	/* -1.99 = 0xbffeb852: 0xb852 is above 0x8000, so up in magnitude to 0xbfff */
	cr_assert_eq(sk_bf16_from_float(-1.99f), 0xbfff);
}

Test(runtime_bf16, overflow_gives_infinity_and_nan_stays_nan)
{
	cr_assert_eq(sk_bf16_from_float(3.4028235e38f), 0x7f80); /* FLT_MAX rounds up */
	cr_assert_eq(sk_bf16_from_float(INFINITY), 0x7f80);
	cr_assert_eq(sk_bf16_from_float(-INFINITY), 0xff80);
	cr_assert(isnan(sk_bf16_to_float(sk_bf16_from_float(NAN))));
	/* a NaN whose payload sits only in the lower half must not become an infinity */
	uint32_t bits = 0x7f800001u;
	float nan_low;

	memcpy(&nan_low, &bits, 4);
	cr_assert(isnan(nan_low));
	cr_assert_eq(sk_bf16_from_float(nan_low), 0x7fc0);
}
