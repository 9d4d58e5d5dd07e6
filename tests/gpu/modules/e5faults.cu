/*
 * e5faults.cu: tasks for the persistent executor's fault tests (tests/gpu/test_runtime.c):
 * one that writes, one that traps on one tile, one that raises an error through
 * skip_task_fail(), and a plain kernel written without SKIP_TASK, which E5 must refuse by name.
 */
#include "skip_task.cuh"

SKIP_TASK(e5_write, (float *, out), (long, n))
{
	SKIP_GRID_LOOP(i, n)
	{
		out[i] = (float)i;
	}
}

SKIP_TASK(e5_trap, (int, tile))
{
	if (skip_t.tile == (unsigned)tile && skip_t.thread == 0)
		__trap();
}

SKIP_TASK(e5_fail, (int, code))
{
	if (skip_t.tile == 0 && skip_t.thread == 0)
		skip_task_fail(code);
}

extern "C" __global__ void e5_plain(float *out)
{
	if (blockIdx.x == 0 && threadIdx.x == 0)
		out[0] = 1.0f;
}
