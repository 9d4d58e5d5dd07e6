/* hand/dl.cu: DL by hand: tower x on s0, tower y (after zeroing the result) on s1; the
 * concatenation and the dot product on s0 after both. */
#include "dagbench.h"
#define SKIP_TASK_NO_WORKER /* the module has it; this program launches the kernels */
#include "kernels/dl.cu"

static void tower(struct hand *h, int s, const char *t)
{
	int n = (int)hparam(h, "N"), c1 = (int)hparam(h, "C1"), c2 = (int)hparam(h, "C2");
	int p = (int)hparam(h, "P"), b = (int)hparam(h, "BLOCKS"), th = (int)hparam(h, "THREADS");
	char in[8], k1[8], k2[8], x1[8], x11[8], x2[8];

	snprintf(in, sizeof(in), "%s", t);
	snprintf(k1, sizeof(k1), "k1%s", t);
	snprintf(k2, sizeof(k2), "k2%s", t);
	snprintf(x1, sizeof(x1), "%s1", t);
	snprintf(x11, sizeof(x11), "%s11", t);
	snprintf(x2, sizeof(x2), "%s2", t);
	dl_conv<<<b, th, 0, h->s[s]>>>(HF(h, in), HF(h, k1), HF(h, x1), 1, n, c1, 2);
	dl_pool<<<b, th, 0, h->s[s]>>>(HF(h, x1), HF(h, x11), c1, n / 2, p);
	dl_conv<<<b, th, 0, h->s[s]>>>(HF(h, x11), HF(h, k2), HF(h, x2), c1, n / 2, c2, 2);
}

static void run(struct hand *h)
{
	long n = hparam(h, "N"), half = hparam(h, "C2") * (n / 4) * (n / 4);
	int b = (int)hparam(h, "BLOCKS"), t = (int)hparam(h, "THREADS");

	dl_zero<<<1, 32, 0, h->s[1]>>>(HF(h, "res"));
	tower(h, 0, "x");
	tower(h, 1, "y");
	join(h, 0, 1, 0);
	dl_concat<<<b, t, 0, h->s[0]>>>(HF(h, "x2"), HF(h, "y2"), HF(h, "z"), half);
	dl_dot<<<b, t, 0, h->s[0]>>>(HF(h, "z"), HF(h, "w"), HF(h, "res"), 2 * half);
}

const struct hand_dag hand_dl = {"dl", run, 2};
