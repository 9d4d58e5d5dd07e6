/* hand/m1.cu: M1 by hand, as HuntKTm's b14 multi-stream version: GELU i on stream i; residual
 * j and its GELU on stream 2j after stream 2j+1; the average on stream 0 after streams 2, 4
 * and 6. */
#include "dagbench.h"
#define SKIP_TASK_NO_WORKER /* the module has it; this program launches the kernels */
#include "kernels/m1.cu"

static void run(struct hand *h)
{
	long n = hparam(h, "N");
	int hh = (int)hparam(h, "H"), b = (int)hparam(h, "BLOCKS"), t = (int)hparam(h, "THREADS");
	float *bias = HF(h, "bias");
	char a[8], c[8], d[8];

	for (int i = 0; i < 8; i++) {
		snprintf(a, sizeof(a), "in%d", i);
		snprintf(c, sizeof(c), "g%d", i);
		m_add_bias_gelu<<<b, t, 0, h->s[i]>>>(HF(h, a), bias, HF(h, c), n, hh);
	}
	for (int j = 0; j < 4; j++) {
		snprintf(a, sizeof(a), "g%d", 2 * j);
		snprintf(c, sizeof(c), "g%d", 2 * j + 1);
		snprintf(d, sizeof(d), "r%d", j);
		join(h, 2 * j, 2 * j + 1, j);
		m_add_bias_residual2<<<b, t, 0, h->s[2 * j]>>>(HF(h, a), HF(h, c), bias, HF(h, d),
							       n, hh);
		snprintf(a, sizeof(a), "h%d", j);
		m_add_bias_gelu<<<b, t, 0, h->s[2 * j]>>>(HF(h, d), bias, HF(h, a), n, hh);
	}
	for (int j = 1; j < 4; j++)
		join(h, 0, 2 * j, 4 + j);
	m_average4<<<b, t, 0, h->s[0]>>>(HF(h, "h0"), HF(h, "h1"), HF(h, "h2"), HF(h, "h3"),
					 HF(h, "out"), n);
}

const struct hand_dag hand_m1 = {"m1", run, 8};
