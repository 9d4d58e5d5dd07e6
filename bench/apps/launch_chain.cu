// launch_chain: N tiny kernels back to back (launch-bound), from T threads each on its own
// stream (T = 1: the legacy default stream), or, with --seconds S, as many as fit in S seconds
// (for the kill tests), printing progress on stderr.
// With --reset-exit it ends with cudaDeviceReset() and _exit(0): no atexit handlers run.
//   launch_chain [--kernels N] [--threads T] [--elems E] [--seconds S] [--sync-every K]
//                [--reset-exit]
// Steps mode (skip advise's graph prediction, checked): --chain K --steps S runs S steps, each
// an NVTX range "step" of K kernels on one stream and a cudaStreamSynchronize, after 20
// untimed steps; with --graph each step is one launch of a CUDA graph of the same K kernels,
// captured once (the hand-written graph variant).
//   launch_chain --chain K --steps S [--graph] [--elems E] [--capture-every B]
//   launch_chain --nvtx-pairs N   (N NVTX push/pop pairs, no CUDA: ns a pair)
// With --capture-every B the timed steps alternate blocks of B steps outside and inside
// cudaProfilerStart/Stop (what `skip record --capture-range cudaProfilerApi` records between),
// off first; the APP line then also has each kind's median (us_off, us_on). After the steps
// one more kernel is launched inside a capture range that is stopped before the kernel has
// finished (the test of a kernel in flight at the stop).
#include "common.h"
#include <algorithm>
#include <cuda_profiler_api.h>
#include <nvtx3/nvToolsExt.h>
#include <chrono>
#include <thread>
#include <unistd.h>
#include <vector>

static double now_s()
{
	return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
	    .count();
}

static int steps_mode(int argc, char **argv)
{
	int k = (int)arg_long(argc, argv, "--chain", 20);
	long steps = arg_long(argc, argv, "--steps", 1000);
	int elems = (int)arg_long(argc, argv, "--elems", 1024);
	bool graph = arg_flag(argc, argv, "--graph");
	long every = arg_long(argc, argv, "--capture-every", 0);
	cudaGraphExec_t exec = nullptr;
	cudaStream_t s;
	std::vector<double> us, us_side[2];
	float *x;

	CHECK(cudaMalloc(&x, elems * sizeof(float)));
	CHECK(cudaMemset(x, 0, elems * sizeof(float)));
	CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	if (graph) {
		cudaGraph_t g;

		CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
		for (int i = 0; i < k; i++)
			add_one<<<(elems + 255) / 256, 256, 0, s>>>(x, elems);
		CHECK(cudaStreamEndCapture(s, &g));
		CHECK(cudaGraphInstantiate(&exec, g, 0));
		CHECK(cudaGraphDestroy(g));
	}
	CHECK(cudaDeviceSynchronize());
	for (long step = -20; step < steps; step++) {
		bool on = every > 0 && step >= 0 && (step / every) % 2 == 1;

		if (on && step % every == 0)
			CHECK(cudaProfilerStart());
		double t = now_s();

		nvtxRangePushA("step");
		if (graph)
			CHECK(cudaGraphLaunch(exec, s));
		else
			for (int i = 0; i < k; i++)
				add_one<<<(elems + 255) / 256, 256, 0, s>>>(x, elems);
		CHECK(cudaStreamSynchronize(s));
		nvtxRangePop();
		if (step >= 0) {
			us.push_back((now_s() - t) * 1e6);
			us_side[on].push_back(us.back());
		}
		if (on && (step % every == every - 1 || step == steps - 1))
			CHECK(cudaProfilerStop());
	}
	if (every > 0) {
		CHECK(cudaProfilerStart());
		spin<<<1, 1, 0, s>>>(x, 20LL * 1000 * 1000); /* ~10 ms: running at the stop */
		CHECK(cudaProfilerStop());
		CHECK(cudaStreamSynchronize(s));
		for (int k = 0; k < 2; k++)
			std::sort(us_side[k].begin(), us_side[k].end());
	}
	std::sort(us.begin(), us.end());
	printf("APP launch_chain mode=%s chain=%d steps=%ld kernels=%ld us_per_step_median=%.3f "
	       "us_per_step_min=%.3f\n",
	       graph ? "graph" : "plain", k, steps, (steps + 20) * k, us[us.size() / 2], us[0]);
	if (every > 0 && !us_side[0].empty() && !us_side[1].empty())
		printf("APP launch_chain capture_every=%ld steps_on=%zu us_off=%.3f us_on=%.3f\n",
		       every, us_side[1].size(), us_side[0][us_side[0].size() / 2],
		       us_side[1][us_side[1].size() / 2]);
	if (exec)
		CHECK(cudaGraphExecDestroy(exec));
	CHECK(cudaFree(x));
	return 0;
}

/* --nvtx-pairs N: N NVTX range push/pop pairs and nothing else, after 1,000 untimed (what
 * an NVTX range costs the program; under `skip record --trace nvtx` the baseline mode's cost
 * per range). */
static int nvtx_mode(long n)
{
	for (int i = 0; i < 1000; i++) {
		nvtxRangePushA("pair");
		nvtxRangePop();
	}
	double t = now_s();
	for (long i = 0; i < n; i++) {
		nvtxRangePushA("pair");
		nvtxRangePop();
	}
	printf("APP launch_chain nvtx_pairs=%ld ns_per_pair=%.1f\n", n, (now_s() - t) * 1e9 / n);
	return 0;
}

int main(int argc, char **argv)
{
	if (arg_long(argc, argv, "--chain", 0) > 0)
		return steps_mode(argc, argv);
	if (arg_long(argc, argv, "--nvtx-pairs", 0) > 0)
		return nvtx_mode(arg_long(argc, argv, "--nvtx-pairs", 0));
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
				fprintf(stderr, "launch_chain: %ld kernels after %.1f s\n",
					launched[t], now_s() - t0);
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
