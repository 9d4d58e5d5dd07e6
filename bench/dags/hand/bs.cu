/* hand/bs.cu: B&S by hand: one stream per vector, no events. */
#include "dagbench.h"
#define SKIP_TASK_NO_WORKER /* the module has it; this program launches the kernels */
#include "kernels/bs.cu"

static void run(struct hand *h)
{
	long n = hparam(h, "N");
	int b = (int)hparam(h, "BLOCKS"), t = (int)hparam(h, "THREADS");
	char sp[16], ca[16];

	for (int i = 0; i < 10; i++) {
		snprintf(sp, sizeof(sp), "spot%d", i);
		snprintf(ca, sizeof(ca), "call%d", i);
		bs_price<<<b, t, 0, h->s[i]>>>((const double *)hbuf(h, sp), (double *)hbuf(h, ca),
					       n);
	}
}

const struct hand_dag hand_bs = {"bs", run, 10};
