/* hand/ml.cu: ML by hand: ridge regression on s0, naive Bayes on s1, the argmax on s0 after
 * both. */
#include "dagbench.h"
#define SKIP_TASK_NO_WORKER /* the module has it; this program launches the kernels */
#include "kernels/ml.cu"

static void run(struct hand *h)
{
	long rows = hparam(h, "ROWS");
	int f = (int)hparam(h, "FEATS"), c = (int)hparam(h, "CLASSES");
	int b = (int)hparam(h, "BLOCKS"), t = (int)hparam(h, "THREADS");
	cudaStream_t s0 = h->s[0], s1 = h->s[1];
	float *r1 = HF(h, "r1"), *r2 = HF(h, "r2");

	ml_normalize<<<b, t, 0, s0>>>(HF(h, "x"), HF(h, "mean"), HF(h, "std"), HF(h, "z"), rows, f);
	ml_rowdot<<<b, t, 0, s0>>>(HF(h, "z"), HF(h, "coeff"), r2, rows, f, c);
	ml_add_intercept<<<b, t, 0, s0>>>(r2, HF(h, "intercept"), rows, c);
	ml_softmax<<<b, t, 0, s0>>>(r2, rows, c);
	ml_rowdot<<<b, t, 0, s1>>>(HF(h, "x"), HF(h, "logprob"), r1, rows, f, c);
	ml_rowmax<<<b, t, 0, s1>>>(r1, HF(h, "rowmax"), rows, c);
	ml_logsumexp<<<b, t, 0, s1>>>(r1, HF(h, "rowmax"), HF(h, "lse"), rows, c);
	ml_exp_sub<<<b, t, 0, s1>>>(r1, HF(h, "lse"), rows, c);
	ml_softmax<<<b, t, 0, s1>>>(r1, rows, c);
	join(h, 0, 1, 0);
	ml_argmax<<<b, t, 0, s0>>>(r1, r2, (int *)hbuf(h, "out"), rows, c);
}

const struct hand_dag hand_ml = {"ml", run, 2};
