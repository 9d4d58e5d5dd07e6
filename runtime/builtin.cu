/*
 * builtin.cu: the runtime's own kernels, compiled to PTX at build time and embedded in
 * libskip_runtime (sk_builtin_ptx), loaded with cuModuleLoadData next to the workload's module.
 *   sk_fill     write a repeated 8-byte pattern (constant initial contents)
 *   sk_random   seeded uniform values by element index (random initial contents): element i
 *               depends only on (seed, i), so contents do not depend on the grid; bf16
 *               elements are the f32 value rounded to nearest
 *   sk_compare  count elements that differ between two copies of a buffer (floats within
 *               |a-b| <= atol + rtol*|b|, NaN equal to NaN; integers exactly) and the first
 *   sk_spin     wait a number of nanoseconds of the GPU's global timer (skip_probe_starts)
 * The dtype codes are enum skip_dtype (runtime/skip_runtime.h).
 */
#include <stdint.h>

#include "bf16.h"

enum { DT_U8, DT_I32, DT_U32, DT_I64, DT_U64, DT_F32, DT_F64, DT_BF16 };

/* SplitMix64 finalizer (Steele, Lea, Flood, "Fast splittable pseudorandom number
 * generators", OOPSLA 2014): a bijective mix of the counter. */
__device__ static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

extern "C" __global__ void sk_fill(unsigned char *p, size_t nbytes, unsigned long long pattern)
{
	size_t words = nbytes / 8, stride = (size_t)gridDim.x * blockDim.x;
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;

	for (size_t w = i; w < words; w += stride)
		((unsigned long long *)p)[w] = pattern;
	for (size_t b = words * 8 + i; b < nbytes; b += stride)
		p[b] = (unsigned char)(pattern >> (8 * (b % 8)));
}

extern "C" __global__ void sk_random(void *p, size_t n, int dtype, unsigned long long seed,
				     double lo, double hi)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	uint64_t base = mix64(seed + 0x9e3779b97f4a7c15ULL);
	double span = hi - lo;

	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
		uint64_t r = mix64(base ^ (i * 0x9e3779b97f4a7c15ULL));
		double u = (double)(r >> 11) * 0x1.0p-53; /* [0, 1) */
		uint64_t k = (uint64_t)span ? r % (uint64_t)span : 0;

		switch (dtype) {
		case DT_U8:
			((uint8_t *)p)[i] = (uint8_t)((int64_t)lo + (int64_t)k);
			break;
		case DT_I32:
			((int32_t *)p)[i] = (int32_t)((int64_t)lo + (int64_t)k);
			break;
		case DT_U32:
			((uint32_t *)p)[i] = (uint32_t)((int64_t)lo + (int64_t)k);
			break;
		case DT_I64:
			((int64_t *)p)[i] = (int64_t)lo + (int64_t)k;
			break;
		case DT_U64:
			((uint64_t *)p)[i] = (uint64_t)((int64_t)lo + (int64_t)k);
			break;
		case DT_F32:
			((float *)p)[i] = (float)(lo + span * u);
			break;
		case DT_BF16:
			((uint16_t *)p)[i] = sk_bf16_from_float((float)(lo + span * u));
			break;
		default:
			((double *)p)[i] = lo + span * u;
			break;
		}
	}
}

__device__ static bool close_enough(double a, double b, double rtol, double atol)
{
	if (a != a || b != b)
		return a != a && b != b;
	if (a == b) /* also equal infinities */
		return true;
	return fabs(a - b) <= atol + rtol * fabs(b);
}

extern "C" __global__ void sk_compare(const void *a, const void *b, size_t n, int dtype,
				      double rtol, double atol, unsigned long long *res)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;

	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
		bool same;

		switch (dtype) {
		case DT_F32:
			same =
			    close_enough(((const float *)a)[i], ((const float *)b)[i], rtol, atol);
			break;
		case DT_F64:
			same = close_enough(((const double *)a)[i], ((const double *)b)[i], rtol,
					    atol);
			break;
		case DT_BF16:
			same = close_enough(sk_bf16_to_float(((const uint16_t *)a)[i]),
					    sk_bf16_to_float(((const uint16_t *)b)[i]), rtol, atol);
			break;
		case DT_I32:
		case DT_U32:
			same = ((const uint32_t *)a)[i] == ((const uint32_t *)b)[i];
			break;
		case DT_I64:
		case DT_U64:
			same = ((const uint64_t *)a)[i] == ((const uint64_t *)b)[i];
			break;
		default:
			same = ((const uint8_t *)a)[i] == ((const uint8_t *)b)[i];
			break;
		}
		if (!same) {
			atomicAdd(&res[0], 1ULL);
			atomicMin(&res[1], (unsigned long long)i);
		}
	}
}

extern "C" __global__ void sk_spin(long long ns)
{
	unsigned long long t0, t;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
	do
		asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	while ((long long)(t - t0) < ns);
}
