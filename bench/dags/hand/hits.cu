/* hand/hits.cu: HITS by hand, as GrCUDA's b7 does it: the authority branch on s0, the hub
 * branch on s1; each divide waits for the other branch's spmv, and each spmv for the other
 * branch's divide of the previous iteration. */
#include "dagbench.h"
#define SKIP_TASK_NO_WORKER /* the module has it; this program launches the kernels */
#include "kernels/hits.cu"

static void run(struct hand *h)
{
	long n = hparam(h, "N");
	int b = (int)hparam(h, "BLOCKS"), t = (int)hparam(h, "THREADS");
	cudaStream_t s0 = h->s[0], s1 = h->s[1];
	float *a = HF(h, "a"), *hv = HF(h, "h"), *an = HF(h, "a_new"), *hn = HF(h, "h_new");
	float *anorm = HF(h, "a_norm"), *hnorm = HF(h, "h_norm");
	const int *ia = (const int *)hbuf(h, "idx_a"), *ih = (const int *)hbuf(h, "idx_h");
	const float *va = HF(h, "val_a"), *vh = HF(h, "val_h");

	for (int it = 0; it < 5; it++) {
		int ev = 4 * it;

		if (it) { /* spmv_a reads h (divide_h, s1); spmv_h reads a (divide_a, s0) */
			join(h, 0, 1, ev - 2);
			join(h, 1, 0, ev - 1);
		}
		hits_spmv<<<b, t, 0, s0>>>(ia, va, hv, an, anorm, n);
		hits_spmv<<<b, t, 0, s1>>>(ih, vh, a, hn, hnorm, n);
		hits_sum<<<b, t, 0, s0>>>(an, anorm, n);
		hits_sum<<<b, t, 0, s1>>>(hn, hnorm, n);
		join(h, 0, 1, ev); /* divide_a overwrites a, which spmv_h reads */
		join(h, 1, 0, ev + 1);
		hits_divide<<<b, t, 0, s0>>>(an, anorm, a, n);
		hits_divide<<<b, t, 0, s1>>>(hn, hnorm, hv, n);
	}
}

const struct hand_dag hand_hits = {"hits", run, 2};
