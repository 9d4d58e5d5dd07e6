/*
 * spin.cu: a kernel that does nothing but wait, for skip advise's mechanics check
 * (bench/advise/replica.py): a copy of a DAG whose kernels are replaced by adv_spin of the same
 * launch shape and about the same duration runs the executors' launches, events, graphs and
 * synchronizations exactly as the DAG does, but its kernels neither touch memory nor compete
 * for a multiprocessor's throughput, so what the model gets wrong on it is its mechanics.
 */
#include "common.cuh"

/* Every thread waits until @ns nanoseconds of the GPU's global timer have passed. */
SKIP_TASK(adv_spin, (long long, ns))
{
	unsigned long long t0, t;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
	do
		asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	while ((long long)(t - t0) < ns);
}
