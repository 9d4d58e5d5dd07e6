/* hand/img.cu: IMG by hand, after GrCUDA's b8: blur1+sobel1 on s0; blur2, sobel2, max on s1;
 * blur3+unsharpen on s2; min on s3 next to max; extend and the combines on s1, each after the
 * events it needs. */
#include "dagbench.h"
#define SKIP_TASK_NO_WORKER /* the module has it; this program launches the kernels */
#include "kernels/img.cu"

static void run(struct hand *h)
{
	int n = (int)hparam(h, "N"), b = (int)hparam(h, "BLOCKS"), t = (int)hparam(h, "THREADS");
	long nn = (long)n * n;
	float *img = HF(h, "image"), *b1 = HF(h, "blur1"), *b2 = HF(h, "blur2"),
	      *b3 = HF(h, "blur3");
	float *m1 = HF(h, "mask1"), *m2 = HF(h, "mask2"), *mx = HF(h, "mx"), *mn = HF(h, "mn");
	cudaStream_t *s = h->s;

	img_blur<<<b, t, 0, s[0]>>>(img, b1, n, 3);
	img_sobel<<<b, t, 0, s[0]>>>(b1, m1, n);
	img_blur<<<b, t, 0, s[1]>>>(img, b2, n, 5);
	img_sobel<<<b, t, 0, s[1]>>>(b2, m2, n);
	img_reset<<<1, 32, 0, s[1]>>>(mx, mn);
	join(h, 3, 1, 0);
	img_max<<<b, t, 0, s[1]>>>(m2, mx, nn);
	img_min<<<b, t, 0, s[3]>>>(m2, mn, nn);
	img_blur<<<b, t, 0, s[2]>>>(img, b3, n, 3);
	img_unsharpen<<<b, t, 0, s[2]>>>(img, b3, HF(h, "sharp"), nn, 0.5f);
	join(h, 1, 3, 1);
	img_extend<<<b, t, 0, s[1]>>>(m2, mx, mn, nn);
	join(h, 1, 2, 2);
	img_combine<<<b, t, 0, s[1]>>>(HF(h, "sharp"), b2, m2, HF(h, "image2"), nn);
	join(h, 1, 0, 3);
	img_combine<<<b, t, 0, s[1]>>>(HF(h, "image2"), b1, m1, HF(h, "image3"), nn);
}

const struct hand_dag hand_img = {"img", run, 4};
