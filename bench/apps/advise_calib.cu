// advise_calib: the host costs skip advise's model cannot read off a recording, timed on the
// host (medians of --reps repetitions, after a warm-up), printed as one line "CALIB {json}":
//   launch_ns        an empty kernel's cudaLaunchKernel call (the stream kept short)
//   event_record_ns  cudaEventRecord;  stream_wait_ns  cudaStreamWaitEvent
//   sync_idle_ns     cudaStreamSynchronize of a stream with nothing left to do
//   stream_total_ns  launch one empty kernel on an idle stream and synchronize
//   graph_launch_ns  cudaGraphLaunch of a one-node graph (the call alone)
//   graph_total_ns   launch a one-node graph (an empty kernel) and synchronize
//   graph64_total_ns launch a graph of 64 dependent empty kernels and synchronize
// bench/advise/calibrate.py turns a bare run and a run under skip record into a calibration
// file for `skip advise --calibration` (docs/skip-advise.md "Calibration").
//   advise_calib [--reps N]
#include "common.h"
#include <algorithm>
#include <chrono>
#include <vector>

__global__ void empty_k() {}

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
	std::vector<double> launch, rec, wait, idle, stotal, glaunch, gtotal, g64;
	cudaStream_t s, s2;
	cudaEvent_t ev;

	CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
	CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
	cudaGraphExec_t g1 = chain_graph(s, 1), gc = chain_graph(s, 64);
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
			CHECK(cudaStreamSynchronize(s));
			if (keep)
				g64.push_back(now_ns() - t);
		}
	}
	printf("CALIB {\"launch_ns\": %.0f, \"event_record_ns\": %.0f, \"stream_wait_ns\": %.0f, "
	       "\"sync_idle_ns\": %.0f, \"stream_total_ns\": %.0f, \"graph_launch_ns\": %.0f, "
	       "\"graph_total_ns\": %.0f, \"graph64_total_ns\": %.0f}\n",
	       median(launch), median(rec), median(wait), median(idle), median(stotal),
	       median(glaunch), median(gtotal), median(g64));
	CHECK(cudaGraphExecDestroy(g1));
	CHECK(cudaGraphExecDestroy(gc));
	return 0;
}
