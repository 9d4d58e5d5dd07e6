// launch_patterns: what one launch costs the host in the launch loops skip advise models, all in
// one process, interleaved (the host's launch cost drifts between processes by more than the
// patterns differ). Each repetition runs, on non-blocking streams, each burst followed by a
// cudaStreamSynchronize:
//   e16  16 empty kernels <<<1, 32>>> (advise_calib's launch_loop_ns, launch_bare_ns)
//   a20  20 add_one <<<4, 256>>> (a launch_chain --chain 20 step)
//   a16  16 add_one <<<4, 256>>>
//   e40  40 empty kernels
//   two  20 add_one <<<16, 256>>> on stream A, an event, stream B waits, 20 on B (a two_streams
//        round)
// and prints the median host time per launch call of each (the calls and the host's time
// between them, up to the synchronize), after a warm-up pass of the same length.
//   launch_patterns [--reps N]
#include "common.h"

__global__ void lp_empty()
{
}

int main(int argc, char **argv)
{
	long reps = arg_long(argc, argv, "--reps", 400);
	cudaStream_t s, a, b;
	cudaEvent_t ev;
	float *x, *y;
	std::vector<double> e16, a20, a16, e40, two;

	CHECK(cudaMalloc(&x, 4096 * sizeof(float)));
	CHECK(cudaMalloc(&y, 4096 * sizeof(float)));
	CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	CHECK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
	CHECK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
	CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
	for (int pass = 0; pass < 2; pass++) { /* pass 0 warms up */
		bool keep = pass == 1;

		for (long i = 0; i < reps; i++) {
			double t = now_ns();

			for (int k = 0; k < 16; k++)
				lp_empty<<<1, 32, 0, s>>>();
			if (keep)
				e16.push_back((now_ns() - t) / 16);
			CHECK(cudaStreamSynchronize(s));
			t = now_ns();
			for (int k = 0; k < 20; k++)
				add_one<<<4, 256, 0, s>>>(x, 1024);
			if (keep)
				a20.push_back((now_ns() - t) / 20);
			CHECK(cudaStreamSynchronize(s));
			t = now_ns();
			for (int k = 0; k < 16; k++)
				add_one<<<4, 256, 0, s>>>(x, 1024);
			if (keep)
				a16.push_back((now_ns() - t) / 16);
			CHECK(cudaStreamSynchronize(s));
			t = now_ns();
			for (int k = 0; k < 40; k++)
				lp_empty<<<1, 32, 0, s>>>();
			if (keep)
				e40.push_back((now_ns() - t) / 40);
			CHECK(cudaStreamSynchronize(s));
			t = now_ns();
			for (int k = 0; k < 20; k++)
				add_one<<<16, 256, 0, a>>>(x, 4096);
			CHECK(cudaEventRecord(ev, a));
			CHECK(cudaStreamWaitEvent(b, ev, 0));
			for (int k = 0; k < 20; k++)
				add_one<<<16, 256, 0, b>>>(y, 4096);
			if (keep)
				two.push_back((now_ns() - t) / 40);
			CHECK(cudaStreamSynchronize(b));
		}
	}
	printf("APP launch_patterns reps=%ld e16_ns=%.0f a20_ns=%.0f a16_ns=%.0f e40_ns=%.0f "
	       "two_ns=%.0f\n",
	       reps, median(e16), median(a20), median(a16), median(e40), median(two));
	CHECK(cudaFree(x));
	CHECK(cudaFree(y));
	return 0;
}
