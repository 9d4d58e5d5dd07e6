/*
 * pdl.cu: a chain of dependent steps written for programmatic dependent launch: each step
 * waits for its predecessor's results (cudaGridDependencySynchronize, griddepcontrol.wait)
 * before it touches memory, and lets its successor launch as soon as it has started
 * (cudaTriggerProgrammaticLaunchCompletion). The workload pdl.json marks these tasks "pdl",
 * so `skip run --pdl` may join them with programmatic edges; the results must not change.
 */
#include "common.cuh"

SKIP_TASK(pdl_step, (const float *__restrict__, in), (float *__restrict__, out), (long, n),
	  (float, k))
{
#if __CUDA_ARCH__ >= 900
	cudaGridDependencySynchronize();
	cudaTriggerProgrammaticLaunchCompletion();
#endif
	SKIP_GRID_LOOP(i, n)
	{
		out[i] = in[i] * k + 1.0f;
	}
}
