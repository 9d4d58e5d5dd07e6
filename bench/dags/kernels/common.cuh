/*
 * common.cuh: helpers shared by the DAG suite's kernels (bench/dags/kernels/*.cu).
 *
 * Every kernel is a task (runtime/skip_task.cuh): SKIP_TASK makes it an extern "C" kernel (so
 * a workload file names it plainly) and an entry of the module's task table, so the suite runs
 * under the persistent executor E5 as well as E1-E4. Each walks its elements with
 * SKIP_GRID_LOOP over its tiles, so that any grid covers any size: the suite launches each
 * kernel on a fixed, small number of blocks (the papers' launch shapes), which leaves room
 * for several kernels of a wide DAG to run at once.
 */
#ifndef SKIP_DAGS_COMMON_CUH
#define SKIP_DAGS_COMMON_CUH

#include <math.h>
#include <stdint.h>

#include "skip_task.cuh"

/* out[i] = value (an expression of i) for every element i < n: SKIP_GRID_LOOP with the loads of
 * four elements ahead of their stores (skip_grid_batched, runtime/skip_task.cuh), which E5's
 * task table needs to keep the kernel form's memory parallelism. */
#define GRID_MAP(i, n, out, value)                                                                 \
	skip_grid_batched<4>(                                                                      \
	    skip_t, (n), [&](long i) { return (value); }, [&](long i, auto v) { (out)[i] = v; })

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
