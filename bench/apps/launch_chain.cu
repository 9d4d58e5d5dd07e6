// launch_chain: N tiny kernels back to back (launch-bound), from T threads each on its own
// stream (T = 1: the legacy default stream), or, with --seconds S, as many as fit in S seconds
// (for the kill tests), printing progress on stderr.
// With --reset-exit it ends with cudaDeviceReset() and _exit(0): no atexit handlers run.
//   launch_chain [--kernels N] [--threads T] [--elems E] [--seconds S] [--sync-every K]
//                [--reset-exit]
#include "common.h"
#include <chrono>
#include <thread>
#include <unistd.h>
#include <vector>

static double now_s()
{
	return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
		.count();
}

int main(int argc, char **argv)
{
	long n = arg_long(argc, argv, "--kernels", 10000);
	int threads = (int)arg_long(argc, argv, "--threads", 1);
	int elems = (int)arg_long(argc, argv, "--elems", 1024);
	double seconds = arg_double(argc, argv, "--seconds", 0);
	long sync_every = arg_long(argc, argv, "--sync-every", 0);
	std::vector<long> launched(threads, 0);
	std::vector<std::thread> pool;
	float *x;

	CHECK(cudaMalloc(&x, (size_t)threads * elems * sizeof(float)));
	CHECK(cudaMemset(x, 0, (size_t)threads * elems * sizeof(float)));
	CHECK(cudaDeviceSynchronize());
	double t0 = now_s();
	auto body = [&](int t) {
		cudaStream_t s = 0;
		long quota = n / threads + (t < n % threads ? 1 : 0);
		float *xt = x + (size_t)t * elems;

		if (threads > 1)
			CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
		while (seconds > 0 ? now_s() - t0 < seconds : launched[t] < quota) {
			add_one<<<(elems + 255) / 256, 256, 0, s>>>(xt, elems);
			launched[t]++;
			if (sync_every && launched[t] % sync_every == 0)
				CHECK(cudaStreamSynchronize(s));
			if (seconds > 0 && t == 0 && launched[t] % 100000 == 0)
				fprintf(stderr, "launch_chain: %ld kernels after %.1f s\n", launched[t],
					now_s() - t0);
		}
		CHECK(cudaStreamSynchronize(s));
	};
	if (threads == 1) {
		body(0);
	} else {
		for (int t = 0; t < threads; t++)
			pool.emplace_back(body, t);
		for (auto &th : pool)
			th.join();
	}
	CHECK(cudaDeviceSynchronize());
	double wall = now_s() - t0;
	long total = 0;
	for (long l : launched)
		total += l;
	CHECK(cudaFree(x));
	if (arg_flag(argc, argv, "--reset-exit")) {
		printf("APP launch_chain kernels=%ld reset_exit=1\n", total);
		fflush(stdout);
		CHECK(cudaDeviceReset());
		_exit(0);
	}
	printf("APP launch_chain kernels=%ld threads=%d wall_s=%.6f us_per_kernel=%.3f "
	       "kernels_per_s=%.0f\n",
	       total, threads, wall, wall * 1e6 / (double)total, (double)total / wall);
	return 0;
}
