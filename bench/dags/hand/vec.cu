/* hand/vec.cu: VEC by hand: square_x on s0 after the zeroing, square_y on s1; the reduction
 * on s0 once s1 is done. */
#include "dagbench.h"
#define SKIP_TASK_NO_WORKER /* the module has it; this program launches the kernels */
#include "kernels/vec.cu"

static void run(struct hand *h)
{
	long n = hparam(h, "N");
	int b = (int)hparam(h, "BLOCKS"), t = (int)hparam(h, "THREADS");

	vec_zero<<<1, 32, 0, h->s[0]>>>(HF(h, "res"));
	vec_square<<<b, t, 0, h->s[0]>>>(HF(h, "x"), HF(h, "x2"), n);
	vec_square<<<b, t, 0, h->s[1]>>>(HF(h, "y"), HF(h, "y2"), n);
	join(h, 0, 1, 0);
	vec_reduce<<<b, t, 0, h->s[0]>>>(HF(h, "x2"), HF(h, "y2"), HF(h, "res"), n);
}

const struct hand_dag hand_vec = {"vec", run, 2};
