/*
 * img.cu: IMG, after GrCUDA bench b8: a sharpening pipeline on an N x N float image.
 *   blur1 = gauss3(img), blur2 = gauss5(img), blur3 = gauss3(img)
 *   mask1 = sobel(blur1), mask2 = sobel(blur2)
 *   mx = max(mask2), mn = min(mask2)  (zeroed first; atomics on non-negative floats)
 *   mask2 = clamp((mask2 - mn) / (mx - mn), 0, 1)   in place
 *   sharp = unsharpen(img, blur3)
 *   image2 = combine(sharp, blur2, mask2), image3 = combine(image2, blur1, mask1)
 * Borders are clamped. Max and min are order-independent, so results are exact.
 */
#include "common.cuh"

static __device__ __forceinline__ float px(const float *img, int n, int y, int x)
{
	y = y < 0 ? 0 : y >= n ? n - 1 : y;
	x = x < 0 ? 0 : x >= n ? n - 1 : x;
	return img[(long)y * n + x];
}

/* Gaussian blur over a diam x diam window (sigma = diam / 2), weights normalized. */
SKIP_TASK(img_blur, (const float *__restrict__, in), (float *__restrict__, out), (int, n),
	  (int, diam))
{
	int r = diam / 2;
	float inv2s2 = 2.0f / (float)(diam * diam);

	SKIP_GRID_LOOP(i, (long)n * n)
	{
		int y = (int)(i / n), x = (int)(i % n);
		float s = 0.0f, wsum = 0.0f;

		for (int dy = -r; dy <= r; dy++)
			for (int dx = -r; dx <= r; dx++) {
				float w = __expf(-(float)(dx * dx + dy * dy) * inv2s2);

				s += w * px(in, n, y + dy, x + dx);
				wsum += w;
			}
		out[i] = s / wsum;
	}
}

SKIP_TASK(img_sobel, (const float *__restrict__, in), (float *__restrict__, out), (int, n))
{
	auto sobel = [&](long i) {
		int y = (int)(i / n), x = (int)(i % n);
		float gx = px(in, n, y - 1, x + 1) + 2 * px(in, n, y, x + 1) +
			   px(in, n, y + 1, x + 1) - px(in, n, y - 1, x - 1) -
			   2 * px(in, n, y, x - 1) - px(in, n, y + 1, x - 1);
		float gy = px(in, n, y + 1, x - 1) + 2 * px(in, n, y + 1, x) +
			   px(in, n, y + 1, x + 1) - px(in, n, y - 1, x - 1) -
			   2 * px(in, n, y - 1, x) - px(in, n, y - 1, x + 1);

		return sqrtf(gx * gx + gy * gy);
	};

	GRID_MAP(i, (long)n * n, out, sobel(i));
}

/* mx = 0, mn = +inf: the identities of max and min over non-negative values. */
SKIP_TASK(img_reset, (float *, mx), (float *, mn))
{
	if (skip_t.tile == 0 && skip_t.thread == 0) {
		*mx = 0.0f;
		*mn = INFINITY;
	}
}

/* Non-negative floats order like their bit patterns as signed ints. */
SKIP_TASK(img_max, (const float *__restrict__, x), (float *, mx), (long, n))
{
	float m = 0.0f;

	SKIP_GRID_LOOP(i, n)
	{
		m = fmaxf(m, x[i]);
	}
	atomicMax((int *)mx, __float_as_int(m));
}

SKIP_TASK(img_min, (const float *__restrict__, x), (float *, mn), (long, n))
{
	float m = INFINITY;

	SKIP_GRID_LOOP(i, n)
	{
		m = fminf(m, x[i]);
	}
	atomicMin((int *)mn, __float_as_int(m));
}

SKIP_TASK(img_extend, (float *, mask), (const float *__restrict__, mx),
	  (const float *__restrict__, mn), (long, n))
{
	float lo = *mn, span = *mx - lo;
	float inv = span > 0.0f ? 1.0f / span : 0.0f;

	GRID_MAP(i, n, mask, fminf(fmaxf((mask[i] - lo) * inv, 0.0f), 1.0f));
}

SKIP_TASK(img_unsharpen, (const float *__restrict__, img), (const float *__restrict__, blur),
	  (float *__restrict__, out), (long, n), (float, amount))
{
	GRID_MAP(i, n, out, fminf(fmaxf(img[i] * (1.0f + amount) - blur[i] * amount, 0.0f), 1.0f));
}

SKIP_TASK(img_combine, (const float *__restrict__, a), (const float *__restrict__, b),
	  (const float *__restrict__, mask), (float *__restrict__, out), (long, n))
{
	GRID_MAP(i, n, out, a[i] * mask[i] + b[i] * (1.0f - mask[i]));
}
