/*
 * ml.cu: ML, after GrCUDA bench b6: an ensemble of ridge regression and naive Bayes over
 * rows of F features and C classes (row-major), each branch ending in a row softmax, joined by
 * an argmax of the summed scores.
 *   ridge:  z = (x - mean) / std;  r2 = z . coeff^T;  r2 += intercept;  softmax(r2)
 *   bayes:  r1 = x . logprob^T;  m = max_c r1;  l = m + log sum_c exp(r1 - m);
 *           r1 = exp(r1 - l);  softmax(r1)
 *   join:   out[i] = argmax_c (r1 + r2)
 * Row dot products use one warp per row (features split over the lanes).
 */
#include "common.cuh"

#define ML_MAXC 16

SKIP_TASK(ml_normalize, (const float *__restrict__, x), (const float *__restrict__, mean),
	  (const float *__restrict__, std), (float *__restrict__, z), (long, rows), (int, feats))
{
	GRID_MAP(i, rows * feats, z, (x[i] - mean[i % feats]) / std[i % feats]);
}

/* out[r, c] = sum_j in[r, j] * w[c, j], one warp per row; classes <= ML_MAXC. */
SKIP_TASK(ml_rowdot, (const float *__restrict__, in), (const float *__restrict__, w),
	  (float *__restrict__, out), (long, rows), (int, feats), (int, classes))
{
	int lane = skip_t.thread & 31;

	SKIP_WARP_LOOP(r, rows)
	{
		float acc[ML_MAXC]; /* fully unrolled below, so it stays in registers */
		const float *row = in + r * feats;

#pragma unroll
		for (int c = 0; c < ML_MAXC; c++)
			acc[c] = 0.0f;
		for (int j = lane; j < feats; j += 32) {
			float v = row[j];

#pragma unroll
			for (int c = 0; c < ML_MAXC; c++)
				if (c < classes)
					acc[c] += v * w[c * feats + j];
		}
#pragma unroll
		for (int c = 0; c < ML_MAXC; c++) {
			float s = warp_sum(acc[c]);

			if (lane == 0 && c < classes)
				out[r * classes + c] = s;
		}
	}
}

SKIP_TASK(ml_add_intercept, (float *, r2), (const float *__restrict__, intercept), (long, rows),
	  (int, classes))
{
	GRID_MAP(i, rows * classes, r2, r2[i] + intercept[i % classes]);
}

SKIP_TASK(ml_softmax, (float *, r), (long, rows), (int, classes))
{
	/* a row's max and sum of exponentials, then the row rewritten */
	auto stats = [&](long i) {
		const float *row = r + i * classes;
		float m = row[0], s = 0.0f;

		for (int c = 1; c < classes; c++)
			m = fmaxf(m, row[c]);
		for (int c = 0; c < classes; c++)
			s += __expf(row[c] - m);
		return make_float2(m, s);
	};
	auto rewrite = [&](long i, float2 ms) {
		float *row = r + i * classes;

		for (int c = 0; c < classes; c++)
			row[c] = __expf(row[c] - ms.x) / ms.y;
	};

	skip_grid_batched<4>(skip_t, rows, stats, rewrite);
}

SKIP_TASK(ml_rowmax, (const float *__restrict__, r1), (float *__restrict__, m), (long, rows),
	  (int, classes))
{
	auto row_max = [&](long i) {
		float v = r1[i * classes];

		for (int c = 1; c < classes; c++)
			v = fmaxf(v, r1[i * classes + c]);
		return v;
	};

	GRID_MAP(i, rows, m, row_max(i));
}

SKIP_TASK(ml_logsumexp, (const float *__restrict__, r1), (const float *__restrict__, m),
	  (float *__restrict__, l), (long, rows), (int, classes))
{
	auto row_lse = [&](long i) {
		float s = 0.0f;

		for (int c = 0; c < classes; c++)
			s += __expf(r1[i * classes + c] - m[i]);
		return m[i] + __logf(s);
	};

	GRID_MAP(i, rows, l, row_lse(i));
}

SKIP_TASK(ml_exp_sub, (float *, r1), (const float *__restrict__, l), (long, rows), (int, classes))
{
	GRID_MAP(i, rows * classes, r1, __expf(r1[i] - l[i / classes]));
}

SKIP_TASK(ml_argmax, (const float *__restrict__, r1), (const float *__restrict__, r2),
	  (int *__restrict__, out), (long, rows), (int, classes))
{
	auto row_argmax = [&](long i) {
		int best = 0;
		float bv = r1[i * classes] + r2[i * classes];

		for (int c = 1; c < classes; c++) {
			float v = r1[i * classes + c] + r2[i * classes + c];

			if (v > bv) {
				bv = v;
				best = c;
			}
		}
		return best;
	};

	GRID_MAP(i, rows, out, row_argmax(i));
}
