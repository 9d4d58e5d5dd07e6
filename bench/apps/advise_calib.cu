// advise_calib: the host costs skip advise's model cannot read off a recording, timed on the
// host (medians of --reps repetitions, after a warm-up), printed as one line "CALIB {json}":
//   launch_ns        an empty kernel's cudaLaunchKernel call (the stream kept short)
//   event_record_ns  cudaEventRecord;  stream_wait_ns  cudaStreamWaitEvent
//   sync_idle_ns     cudaStreamSynchronize of a stream with nothing left to do
//   stream_total_ns  launch one empty kernel on an idle stream and synchronize
//   graph_launch_ns  cudaGraphLaunch of a one-node graph (the call alone)
//   graph_total_ns   launch a one-node graph (an empty kernel) and synchronize
//   graph64_total_ns launch a graph of 64 dependent empty kernels and synchronize
//   graph64_launch_ns cudaGraphLaunch of that graph (the call alone)
//   drv_launch_ns    cuLaunchKernelEx of the empty kernel, one stream (as libskip_runtime)
//   drv_switch_ns    the same, each launch onto the next of 8 streams
//   spin1_total_ns   launch a one-node graph of a 20 us kernel (4 blocks) and synchronize
//   spin16_total_ns  the same with 16 independent such nodes (64 blocks: all fit at once)
//   chain1_total_ns  launch a one-node graph of a 5 us kernel and synchronize
//   chain16_total_ns the same with 16 dependent such nodes
//   drv_busy_ns      cuLaunchKernelEx of a 3 us kernel onto its busy stream
//   drv_busy_switch_ns the same onto the next of 8 streams, each launch after a
//                    cudaStreamWaitEvent on the previous stream's last kernel and followed by
//                    a cudaEventRecord (the launch call alone is timed), as E2 does
// bench/advise/calibrate.py turns a bare run and a run under skip record into a calibration
// file for `skip advise --calibration` (docs/skip-advise.md "Calibration").
//   advise_calib [--reps N]
#include "common.h"
#include <algorithm>
#include <cuda.h>
#include <chrono>
#include <vector>

__global__ void empty_k() {}

/* Busy for @ns nanoseconds of the GPU's global timer. */
__global__ void spin_k(long long ns)
{
	unsigned long long t0, t;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
	do
		asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	while ((long long)(t - t0) < ns);
}

static cudaGraphExec_t spin_chain(cudaStream_t s, int n, long long ns)
{
	cudaGraph_t g;
	cudaGraphExec_t e;

	CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
	for (int i = 0; i < n; i++)
		spin_k<<<4, 32, 0, s>>>(ns);
	CHECK(cudaStreamEndCapture(s, &g));
	CHECK(cudaGraphInstantiate(&e, g, 0));
	CHECK(cudaGraphDestroy(g));
	return e;
}

static cudaGraphExec_t spin_graph(cudaStream_t s, int n, long long ns)
{
	cudaStream_t side[16];
	cudaEvent_t fork, join[16];
	cudaGraph_t g;
	cudaGraphExec_t e;

	/* n independent nodes: fork onto n streams during the capture */
	CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
	CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
	CHECK(cudaEventRecord(fork, s));
	for (int i = 0; i < n; i++) {
		CHECK(cudaStreamCreateWithFlags(&side[i], cudaStreamNonBlocking));
		CHECK(cudaEventCreateWithFlags(&join[i], cudaEventDisableTiming));
		CHECK(cudaStreamWaitEvent(side[i], fork, 0));
		spin_k<<<4, 32, 0, side[i]>>>(ns);
		CHECK(cudaEventRecord(join[i], side[i]));
		CHECK(cudaStreamWaitEvent(s, join[i], 0));
	}
	CHECK(cudaStreamEndCapture(s, &g));
	CHECK(cudaGraphInstantiate(&e, g, 0));
	CHECK(cudaGraphDestroy(g));
	return e;
}

static double now_ns()
{
	return std::chrono::duration<double, std::nano>(
		       std::chrono::steady_clock::now().time_since_epoch())
		.count();
}

static double median(std::vector<double> v)
{
	std::sort(v.begin(), v.end());
	return v[v.size() / 2];
}

static cudaGraphExec_t chain_graph(cudaStream_t s, int n)
{
	cudaGraph_t g;
	cudaGraphExec_t e;

	CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
	for (int i = 0; i < n; i++)
		empty_k<<<1, 32, 0, s>>>();
	CHECK(cudaStreamEndCapture(s, &g));
	CHECK(cudaGraphInstantiate(&e, g, 0));
	CHECK(cudaGraphDestroy(g));
	return e;
}

int main(int argc, char **argv)
{
	int reps = (int)arg_long(argc, argv, "--reps", 2000);
	std::vector<double> launch, rec, wait, idle, stotal, glaunch, gtotal, g64, g64l, drv, drvsw,
		spin1, spin16, ch1, ch16, busy, busysw;
	cudaEvent_t rev[8];
	cudaStream_t ring[8];
	CUfunction fn;
	cudaStream_t s, s2;
	cudaEvent_t ev;

	CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
	CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
	cudaGraphExec_t g1 = chain_graph(s, 1), gc = chain_graph(s, 64);
	cudaGraphExec_t sp1 = spin_graph(s, 1, 20000), sp16 = spin_graph(s, 16, 20000);
	cudaGraphExec_t c1 = spin_chain(s, 1, 5000), c16 = spin_chain(s, 16, 5000);
	CUfunction spin_fn;
	long long spin_ns = 3000;
	void *spin_args[] = { &spin_ns };

	CHECK(cudaGetFuncBySymbol((cudaFunction_t *)&spin_fn, (const void *)spin_k));
	for (int i = 0; i < 8; i++)
		CHECK(cudaEventCreateWithFlags(&rev[i], cudaEventDisableTiming));

	for (int i = 0; i < 8; i++)
		CHECK(cudaStreamCreateWithFlags(&ring[i], cudaStreamNonBlocking));
	CHECK(cudaGetFuncBySymbol((cudaFunction_t *)&fn, (const void *)empty_k));
	CHECK(cudaDeviceSynchronize());
	for (int round = 0; round < 2; round++) { /* round 0 warms up */
		bool keep = round == 1;

		for (int i = 0; i < reps; i++) {
			double t = now_ns();

			empty_k<<<1, 32, 0, s>>>();
			if (keep)
				launch.push_back(now_ns() - t);
			if (i % 16 == 15)
				CHECK(cudaStreamSynchronize(s));
		}
		CHECK(cudaStreamSynchronize(s));
		for (int i = 0; i < reps; i++) {
			double t = now_ns();

			CHECK(cudaEventRecord(ev, s));
			double t2 = now_ns();
			CHECK(cudaStreamWaitEvent(s2, ev, 0));
			double t3 = now_ns();

			if (keep) {
				rec.push_back(t2 - t);
				wait.push_back(t3 - t2);
			}
		}
		CHECK(cudaDeviceSynchronize());
		for (int i = 0; i < reps; i++) {
			double t = now_ns();

			CHECK(cudaStreamSynchronize(s));
			if (keep)
				idle.push_back(now_ns() - t);
		}
		for (int i = 0; i < reps; i++) {
			double t = now_ns();

			empty_k<<<1, 32, 0, s>>>();
			CHECK(cudaStreamSynchronize(s));
			if (keep)
				stotal.push_back(now_ns() - t);
		}
		for (int i = 0; i < reps; i++) {
			double t = now_ns();

			CHECK(cudaGraphLaunch(g1, s));
			double t2 = now_ns();
			CHECK(cudaStreamSynchronize(s));
			double t3 = now_ns();

			if (keep) {
				glaunch.push_back(t2 - t);
				gtotal.push_back(t3 - t);
			}
		}
		for (int i = 0; i < reps / 4; i++) {
			double t = now_ns();

			CHECK(cudaGraphLaunch(gc, s));
			double t2 = now_ns();
			CHECK(cudaStreamSynchronize(s));
			if (keep) {
				g64.push_back(now_ns() - t);
				g64l.push_back(t2 - t);
			}
		}
		for (int sw = 0; sw < 2; sw++) {
			for (int i = 0; i < reps; i++) {
				CUlaunchConfig cfg = {};
				CUstream st = (CUstream)(sw ? ring[i % 8] : s);

				cfg.gridDimX = cfg.gridDimY = cfg.gridDimZ = 1;
				cfg.blockDimX = 32;
				cfg.blockDimY = cfg.blockDimZ = 1;
				cfg.hStream = st;
				double t = now_ns();
				CUresult r = cuLaunchKernelEx(&cfg, fn, nullptr, nullptr);
				double dt = now_ns() - t;

				if (r != CUDA_SUCCESS) {
					fprintf(stderr, "cuLaunchKernelEx failed: %d\n", (int)r);
					return 1;
				}
				if (keep)
					(sw ? drvsw : drv).push_back(dt);
				if (i % 16 == 15)
					CHECK(cudaDeviceSynchronize());
			}
			CHECK(cudaDeviceSynchronize());
		}
		for (int i = 0; i < reps / 4; i++) {
			double t = now_ns();

			CHECK(cudaGraphLaunch(c1, s));
			CHECK(cudaStreamSynchronize(s));
			double t2 = now_ns();
			CHECK(cudaGraphLaunch(c16, s));
			CHECK(cudaStreamSynchronize(s));
			if (keep) {
				ch1.push_back(t2 - t);
				ch16.push_back(now_ns() - t2);
			}
		}
		for (int sw = 0; sw < 2; sw++) {
			for (int i = 0; i < reps; i++) {
				CUlaunchConfig cfg = {};
				cudaStream_t st = sw ? ring[i % 8] : s;

				cfg.gridDimX = 4;
				cfg.gridDimY = cfg.gridDimZ = 1;
				cfg.blockDimX = 32;
				cfg.blockDimY = cfg.blockDimZ = 1;
				cfg.hStream = (CUstream)st;
				if (sw && i)
					CHECK(cudaStreamWaitEvent(st, rev[(i - 1) % 8], 0));
				double t = now_ns();
				CUresult r = cuLaunchKernelEx(&cfg, spin_fn, spin_args, nullptr);
				double dt = now_ns() - t;

				if (r != CUDA_SUCCESS) {
					fprintf(stderr, "cuLaunchKernelEx failed: %d\n", (int)r);
					return 1;
				}
				if (sw)
					CHECK(cudaEventRecord(rev[i % 8], st));
				if (keep && i % 16)
					(sw ? busysw : busy).push_back(dt);
				if (i % 16 == 15)
					CHECK(cudaDeviceSynchronize());
			}
			CHECK(cudaDeviceSynchronize());
		}
		for (int i = 0; i < reps / 4; i++) {
			double t = now_ns();

			CHECK(cudaGraphLaunch(sp1, s));
			CHECK(cudaStreamSynchronize(s));
			double t2 = now_ns();
			CHECK(cudaGraphLaunch(sp16, s));
			CHECK(cudaStreamSynchronize(s));
			if (keep) {
				spin1.push_back(t2 - t);
				spin16.push_back(now_ns() - t2);
			}
		}
	}
	printf("CALIB {\"launch_ns\": %.0f, \"event_record_ns\": %.0f, \"stream_wait_ns\": %.0f, "
	       "\"sync_idle_ns\": %.0f, \"stream_total_ns\": %.0f, \"graph_launch_ns\": %.0f, "
	       "\"graph_total_ns\": %.0f, \"graph64_total_ns\": %.0f, \"graph64_launch_ns\": %.0f, "
	       "\"drv_launch_ns\": %.0f, \"drv_switch_ns\": %.0f, \"spin1_total_ns\": %.0f, "
	       "\"spin16_total_ns\": %.0f, \"chain1_total_ns\": %.0f, \"chain16_total_ns\": %.0f, "
	       "\"drv_busy_ns\": %.0f, \"drv_busy_switch_ns\": %.0f}\n",
	       median(launch), median(rec), median(wait), median(idle), median(stotal),
	       median(glaunch), median(gtotal), median(g64), median(g64l), median(drv),
	       median(drvsw), median(spin1), median(spin16), median(ch1), median(ch16),
	       median(busy), median(busysw));
	CHECK(cudaGraphExecDestroy(g1));
	CHECK(cudaGraphExecDestroy(gc));
	return 0;
}
