// two_streams: K kernels on stream A, an event recorded on A, stream B waits for it, then K
// kernels on B, a cudaStreamSynchronize of B; R rounds; a final device synchronize. Prints
// the median and least host time of a round (skip advise's baseline of an unprofiled run,
// checked: docs/BENCHMARKS.md "skip advise: launch_chain and two_streams (recorded launch
// loops)").
//   two_streams [--kernels K] [--rounds R]
#include "common.h"
#include <algorithm>
#include <chrono>
#include <vector>

int main(int argc, char **argv)
{
	long k = arg_long(argc, argv, "--kernels", 20);
	long rounds = arg_long(argc, argv, "--rounds", 5);
	cudaStream_t a, b;
	cudaEvent_t ev;
	float *x, *y;
	std::vector<double> us;

	CHECK(cudaMalloc(&x, 4096 * sizeof(float)));
	CHECK(cudaMalloc(&y, 4096 * sizeof(float)));
	CHECK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
	CHECK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
	CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
	for (long r = 0; r < rounds; r++) {
		auto t = std::chrono::steady_clock::now();

		for (long i = 0; i < k; i++)
			add_one<<<16, 256, 0, a>>>(x, 4096);
		CHECK(cudaEventRecord(ev, a));
		CHECK(cudaStreamWaitEvent(b, ev, 0));
		for (long i = 0; i < k; i++)
			add_one<<<16, 256, 0, b>>>(y, 4096);
		CHECK(cudaStreamSynchronize(b));
		us.push_back(
		    std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t)
			.count());
	}
	CHECK(cudaDeviceSynchronize());
	std::sort(us.begin(), us.end());
	printf("APP two_streams kernels=%ld per_stream=%ld event_records=%ld waits=%ld "
	       "stream_syncs=%ld us_per_round_median=%.3f us_per_round_min=%.3f\n",
	       2 * k * rounds, k * rounds, rounds, rounds, rounds,
	       us.empty() ? 0.0 : us[us.size() / 2], us.empty() ? 0.0 : us[0]);
	return 0;
}
