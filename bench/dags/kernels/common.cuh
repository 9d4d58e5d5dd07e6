/*
 * common.cuh: helpers shared by the DAG suite's kernels (bench/dags/kernels/*.cu).
 *
 * Every kernel is extern "C" (so a workload file names it plainly) and walks its elements
 * with a grid-stride loop, so that any grid covers any size: the suite launches each kernel
 * on a fixed, small number of blocks (the papers' launch shapes), which leaves room for
 * several kernels of a wide DAG to run at once.
 */
#ifndef SKIP_DAGS_COMMON_CUH
#define SKIP_DAGS_COMMON_CUH

#include <math.h>
#include <stdint.h>

/* for (long i = ...; i < n; i += stride): every element exactly once, on any grid. */
#define GRID_LOOP(i, n)                                                                            \
	for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < (long)(n);                  \
	     i += (long)gridDim.x * blockDim.x)

/* One warp per item: item w of n. */
#define WARP_LOOP(w, n)                                                                            \
	for (long w = ((long)blockIdx.x * blockDim.x + threadIdx.x) / 32; w < (long)(n);           \
	     w += (long)gridDim.x * blockDim.x / 32)

static __device__ __forceinline__ float warp_sum(float v)
{
	for (int o = 16; o > 0; o /= 2)
		v += __shfl_down_sync(0xffffffffu, v, o);
	return v;
}

/* Sum over the block's threads into *out with one atomic per warp. */
static __device__ __forceinline__ void atomic_block_sum(float v, float *out)
{
	v = warp_sum(v);
	if ((threadIdx.x & 31) == 0)
		atomicAdd(out, v);
}

/* GELU, tanh approximation (Hendrycks and Gimpel, arXiv 1606.08415). */
static __device__ __forceinline__ float gelu(float x)
{
	return 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
}

static __device__ __forceinline__ float sigmoid(float x)
{
	return 1.0f / (1.0f + __expf(-x));
}

#endif
