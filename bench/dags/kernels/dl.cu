/*
 * dl.cu: DL, after GrCUDA bench b10: two convolutional towers over N x N single-channel
 * inputs, joined by a concatenation and a dot product with a weight vector.
 *   tower:  x1 = relu(conv3x3(x, k1, stride 2))   1 -> C1 channels, N/2 x N/2
 *           x11 = meanpool(x1, P x P, stride 1)    same size, borders clamped
 *           x2 = relu(conv3x3(x11, k2, stride 2))  C1 -> C2 channels, N/4 x N/4
 *   join:   z = [x2, y2];  res = z . w            (res zeroed first; atomic sum)
 * Convolutions pad by one pixel (zeros). Tensors are channel-major: [c][row][col].
 */
#include "common.cuh"

SKIP_TASK(dl_zero, (float *, res))
{
	if (skip_t.tile == 0 && skip_t.thread == 0)
		*res = 0.0f;
}

/* out[co][oy][ox] = relu(sum_ci sum_ky,kx in[ci][oy*s+ky-1][ox*s+kx-1] * k[co][ci][ky][kx]) */
SKIP_TASK(dl_conv, (const float *__restrict__, in), (const float *__restrict__, k),
	  (float *__restrict__, out), (int, cin), (int, nin), (int, cout), (int, stride))
{
	int nout = nin / stride;
	long per = (long)nout * nout;

	SKIP_GRID_LOOP(i, per * cout)
	{
		int co = (int)(i / per), oy = (int)(i % per / nout), ox = (int)(i % nout);
		float s = 0.0f;

		for (int ci = 0; ci < cin; ci++) {
			const float *plane = in + (long)ci * nin * nin;
			const float *kk = k + (co * cin + ci) * 9;

			for (int ky = 0; ky < 3; ky++) {
				int y = oy * stride + ky - 1;

				if (y < 0 || y >= nin)
					continue;
				for (int kx = 0; kx < 3; kx++) {
					int x = ox * stride + kx - 1;

					if (x >= 0 && x < nin)
						s += plane[(long)y * nin + x] * kk[ky * 3 + kx];
				}
			}
		}
		out[i] = fmaxf(s, 0.0f);
	}
}

SKIP_TASK(dl_pool, (const float *__restrict__, in), (float *__restrict__, out), (int, c), (int, n),
	  (int, pool))
{
	long per = (long)n * n;
	int r = pool / 2;

	auto avg = [&](long i) {
		const float *plane = in + i / per * per;
		int y = (int)(i % per / n), x = (int)(i % n);
		float s = 0.0f;

		for (int dy = -r; dy <= r; dy++)
			for (int dx = -r; dx <= r; dx++) {
				int yy = min(max(y + dy, 0), n - 1),
				    xx = min(max(x + dx, 0), n - 1);

				s += plane[(long)yy * n + xx];
			}
		return s / (float)(pool * pool);
	};

	GRID_MAP(i, per * c, out, avg(i));
}

SKIP_TASK(dl_concat, (const float *__restrict__, a), (const float *__restrict__, b),
	  (float *__restrict__, z), (long, n))
{
	GRID_MAP(i, 2 * n, z, i < n ? a[i] : b[i - n]);
}

SKIP_TASK(dl_dot, (const float *__restrict__, z), (const float *__restrict__, w), (float *, res),
	  (long, n))
{
	float s = 0.0f;

	SKIP_GRID_LOOP(i, n)
	{
		s += z[i] * w[i];
	}
	atomic_block_sum(s, res);
}
