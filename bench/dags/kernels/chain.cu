/*
 * chain.cu: the kernels of the dependent chain (bench/dags/chain.cu): an empty one, and one
 * that is the device half of a PDL edge (it waits for its predecessor's completion with
 * griddepcontrol.wait, then lets its successor launch with griddepcontrol.launch_dependents).
 * As tasks, so that the chain also runs under the persistent executor.
 */
#include "common.cuh"

SKIP_TASK0(chain_empty)
{
}

SKIP_TASK0(chain_pdl)
{
#if __CUDA_ARCH__ >= 900
	cudaGridDependencySynchronize();
	cudaTriggerProgrammaticLaunchCompletion();
#endif
}
