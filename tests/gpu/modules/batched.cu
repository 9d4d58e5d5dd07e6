/*
 * batched.cu: skip_grid_batched() against its definition (tests/gpu/test_runtime.c). y = 2x + 1
 * through a batch of four, then y += 1 in place through a batch of three, then a check that
 * traps unless y[i] == 2i + 2 for every i: an element skipped, or visited twice, fails the run
 * under every executor.
 */
#include "skip_task.cuh"

SKIP_TASK(bt_iota, (float *, x), (long, n))
{
	SKIP_GRID_LOOP(i, n)
	{
		x[i] = (float)i;
	}
}

SKIP_TASK(bt_twice_plus_one, (const float *, x), (float *, y), (long, n))
{
	skip_grid_batched<4>(
	    skip_t, n, [&](long i) { return x[i]; },
	    [&](long i, float v) { y[i] = 2.0f * v + 1.0f; });
}

SKIP_TASK(bt_add_one, (float *, y), (long, n))
{
	skip_grid_batched<3>(
	    skip_t, n, [&](long i) { return y[i]; }, [&](long i, float v) { y[i] = v + 1.0f; });
}

SKIP_TASK(bt_check, (const float *, y), (long, n))
{
	SKIP_GRID_LOOP(i, n)
	{
		if (y[i] != 2.0f * (float)i + 2.0f)
			__trap();
	}
}
