/* hand/m2.cu: M2 by hand, as HuntKTm's b15 multi-stream version: SiLU i and gated ReLU i on
 * stream i; residual k on stream 3k after streams 3k+1 and 3k+2. */
#include "dagbench.h"
#define SKIP_TASK_NO_WORKER /* the module has it; this program launches the kernels */
#include "kernels/m2.cu"

static void run(struct hand *h)
{
	long n = hparam(h, "N");
	int hh = (int)hparam(h, "H"), b = (int)hparam(h, "BLOCKS"), t = (int)hparam(h, "THREADS");
	float *bias = HF(h, "bias");
	char in[8], s[8], q[8], q1[8], q2[8];

	for (int i = 0; i < 6; i++) {
		snprintf(in, sizeof(in), "in%d", i);
		snprintf(s, sizeof(s), "s%d", i);
		snprintf(q, sizeof(q), "q%d", i);
		m_add_bias_silu<<<b, t, 0, h->s[i]>>>(HF(h, in), bias, HF(h, s), n, hh);
		m_add_bias_gated_relu<<<b, t, 0, h->s[i]>>>(HF(h, s), HF(h, in), bias, HF(h, q), n,
							    hh);
	}
	for (int k = 0; k < 2; k++) {
		snprintf(q, sizeof(q), "q%d", 3 * k);
		snprintf(q1, sizeof(q1), "q%d", 3 * k + 1);
		snprintf(q2, sizeof(q2), "q%d", 3 * k + 2);
		snprintf(s, sizeof(s), "out%d", k);
		join(h, 3 * k, 3 * k + 1, 2 * k);
		join(h, 3 * k, 3 * k + 2, 2 * k + 1);
		m_add_bias_residual3<<<b, t, 0, h->s[3 * k]>>>(HF(h, q), HF(h, q1), HF(h, q2), bias,
							       HF(h, s), n, hh);
	}
}

const struct hand_dag hand_m2 = {"m2", run, 6};
