/*
 * hits.cu: HITS, after GrCUDA bench b7: hub and authority scores on a sparse graph with
 * degree 3, iterated. Matrices are stored ELL-style (three neighbours per row: idx[3i..3i+2]
 * with weights val[3i..3i+2]), one for the authority update and one for the hub update.
 * Per iteration: a' = A h, h' = H a (each spmv also zeroes its branch's norm, which the
 * host resets in GrCUDA's version); norms |a'|, |h'| (atomic sums); a = a' / |a'|,
 * h = h' / |h'|. The divide of one branch waits for the other branch's spmv (which reads the
 * vector it overwrites): the cross edge of the GrCUDA DAG. Six kernels per iteration.
 */
#include "common.cuh"

SKIP_TASK(hits_spmv, (const int *__restrict__, idx), (const float *__restrict__, val),
	  (const float *__restrict__, vec), (float *__restrict__, out), (float *, norm), (long, n))
{
	if (skip_t.tile == 0 && skip_t.thread == 0)
		*norm = 0.0f; /* for the sum that follows */
	auto row = [&](long i) {
		const int *c = idx + 3 * i;
		const float *w = val + 3 * i;

		return w[0] * vec[c[0]] + w[1] * vec[c[1]] + w[2] * vec[c[2]];
	};

	GRID_MAP(i, n, out, row(i));
}

SKIP_TASK(hits_sum, (const float *__restrict__, x), (float *, norm), (long, n))
{
	float s = 0.0f;

	SKIP_GRID_LOOP(i, n)
	{
		s += x[i];
	}
	atomic_block_sum(s, norm);
}

SKIP_TASK(hits_divide, (const float *__restrict__, x), (const float *__restrict__, norm),
	  (float *__restrict__, y), (long, n))
{
	float inv = 1.0f / *norm;

	GRID_MAP(i, n, y, x[i] * inv);
}
