/*
 * vec.cu: VEC, after GrCUDA bench b1 (arXiv 2012.09646): square two vectors on two branches,
 * then reduce sum(x^2 - y^2) into one float. Shape: fork-join of width 2 (plus the zeroing of
 * the result, which every iteration needs because the reduction accumulates atomically).
 */
#include "common.cuh"

SKIP_TASK(vec_zero, (float *, res))
{
	if (skip_t.tile == 0 && skip_t.thread == 0)
		*res = 0.0f;
}

SKIP_TASK(vec_square, (const float *__restrict__, x), (float *__restrict__, y), (long, n))
{
	GRID_MAP(i, n, y, x[i] * x[i]);
}

SKIP_TASK(vec_reduce, (const float *__restrict__, x), (const float *__restrict__, y),
	  (float *, res), (long, n))
{
	float s = 0.0f;

#pragma unroll 4
	SKIP_GRID_LOOP(i, n)
	{
		s += x[i] - y[i];
	}
	atomic_block_sum(s, res);
}
