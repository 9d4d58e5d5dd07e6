/*
 * bf16.h: bfloat16 (the upper 16 bits of an IEEE binary32) to and from float, for the runtime's
 * bf16 buffers: the host (constants, comparisons, messages), the built-in kernels
 * (runtime/builtin.cu: random contents, comparisons) and programs that check bf16 results
 * (bench/gemm_pair). Header-only; nothing to free.
 */
#ifndef SKIP_BF16_H
#define SKIP_BF16_H

#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define SK_BF16_FN static __host__ __device__ inline
#else
#define SK_BF16_FN static inline
#endif

/* @f rounded to the nearest bf16, ties to even; NaN stays a (quiet) NaN, overflow gives an
 * infinity. */
SK_BF16_FN uint16_t sk_bf16_from_float(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	if ((u & 0x7fffffffu) > 0x7f800000u)
		return (uint16_t)((u >> 16) | 0x40u);
	u += 0x7fffu + ((u >> 16) & 1u);
	return (uint16_t)(u >> 16);
}

/* The float @h stands for (exact). */
SK_BF16_FN float sk_bf16_to_float(uint16_t h)
{
	uint32_t u = (uint32_t)h << 16;
	float f;

	memcpy(&f, &u, 4);
	return f;
}

#endif
