// advise_calib: the host costs skip advise's model cannot read off a recording, timed on the
// host (medians of --reps repetitions, after a warm-up), printed as one line "CALIB {json}":
//   launch_ns        an empty kernel's cudaLaunchKernel call (the stream kept short)
//   launch_loop_ns   the same in bursts of 16 launches, per launch: the call and whatever the
//                    host does between calls (a profiler's cost shows in both)
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
//   drv_args_ns      cuLaunchKernelEx of a kernel taking three pointers and a count, as the
//                    runtime launches a workload's kernels (its profiler cost is the one that
//                    matters for a recorded `skip run`)
//   wB_1_total_ns    launch a one-node graph of a 20 us kernel of B blocks of 256 threads
//   wB_10_total_ns   the same with 10 independent such nodes (B = 16, 64: the DAGs' shapes)
//   wa16_1_total_ns, wa16_10_total_ns  the same as w16 with a kernel taking 96 bytes of
//                    parameters (eight buffers, four scalars), as B&S's
//   dia1_total_ns    launch a graph of a 3 us kernel (32 blocks of 256 threads) and one
//                    fork-join level after it (A on one branch, B on another, then C after
//                    both), and synchronize;  dia8_total_ns  the same with 8 levels
//   cp1_total_ns, cp8_total_ns, cpc8_total_ns  a graph of 1, 8 independent, 8 dependent
//                    copy_k nodes (16 blocks of 256 threads, 160K floats each, their own
//                    buffers): what kernels that touch memory lose by running at once
//   fjc_total_ns, fj_total_ns  two copy_k then an add2_k of their outputs, in a chain / the
//                    copies on two branches at once (the add's duration in a recording
//                    shows what reading data written on other multiprocessors costs)
//   r2_total_ns, r2j_total_ns  two independent 3 us nodes of 32 blocks (two roots), without and
//                    with a third node after both: joining two roots' branches
//   c32_1_total_ns   launch a one-node graph of a 3 us kernel of 32 blocks of 256 threads
//   c32_16_total_ns  the same with 16 dependent such nodes
//   drv_busy_ns      cuLaunchKernelEx of a 3 us kernel onto its busy stream
//   drv_busy_switch_ns the same onto the next of 8 streams, each launch after a
//                    cudaStreamWaitEvent on the previous stream's last kernel and followed by
//                    a cudaEventRecord (the launch call alone is timed), as E2 does
//   st1_total_ns, st16_total_ns  launch one / 16 spin_k of 10 us (one block) back to back on
//                    one stream, and synchronize: the GPU is the bottleneck, so the difference
//                    per kernel over its duration is the stream's gap between kernels, bare
//   wc1_total_ns, wc64_total_ns  a graph of 1 / 64 dependent fill_k nodes (one block of 32
//                    threads writing 32 floats): graph64's chain with a kernel that writes
//                    memory, as every real kernel does
//   sw1_total_ns, sw16_total_ns  c32's chain (3 us, 32 blocks) of spin_w_k, which also writes
//                    one word when done (fill_k and spin_w_k are also launched on a stream,
//                    for their durations there in a recording)
//   ms1_total_ns, ms16_total_ns  sw1/sw16's chain with a 64-byte cudaMemsetAsync after each
//                    spin_w_k: what a small memset node adds to a graph
//   sh1_total_ns, sh2_total_ns  a graph of math_k (one block of 256 threads per multiprocessor,
//                    about 20 us) alone / beside an older math_k of three times its work, a
//                    node before it: every block of the newcomer shares its multiprocessor with
//                    an older block (the newcomer's duration in a recording gives
//                    sm_share_rate)
// bench/advise/calibrate.py turns a bare run and a run under skip record into a calibration
// file for `skip advise --calibration` (docs/skip-advise.md "Calibration"; each figure's
// derivation: docs/advise-calibration.md "Calibration: what each figure is and how it is derived").
//   advise_calib [--reps N]
#include "common.h"
#include <algorithm>
#include <cuda.h>
#include <chrono>
#include <vector>

__global__ void empty_k()
{
}

/* Takes what a workload's kernel takes (three buffers and a count) and does nothing. */
__global__ void args_k(float *a, float *b, float *c, long long n)
{
	if (n < 0)
		a[0] = b[0] + c[0];
}

/* Busy for @ns nanoseconds of the GPU's global timer. */
__global__ void spin_k(long long ns)
{
	unsigned long long t0, t;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
	do
		asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	while ((long long)(t - t0) < ns);
}

/* Writes @n floats (one per thread): the smallest kernel that touches memory. */
__global__ void fill_k(float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		out[i] = (float)i;
}

/* spin_k that writes one word when done. */
__global__ void spin_w_k(long long ns, int *out)
{
	unsigned long long t0, t;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
	do
		asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	while ((long long)(t - t0) < ns);
	if (threadIdx.x == 0)
		out[blockIdx.x] = (int)(t - t0);
}

/* A graph of @n kernel nodes captured on @s: @launch(i, stream) launches node i, each on its own
 * branch (forked from @s and joined back) when @fork, else one after the other on @s. */
template <typename F> static cudaGraphExec_t capture(cudaStream_t s, int n, bool fork, F launch)
{
	cudaStream_t side[16];
	cudaEvent_t start, join[16];
	cudaGraph_t g;
	cudaGraphExec_t e;

	CHECK(cudaEventCreateWithFlags(&start, cudaEventDisableTiming));
	CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
	CHECK(cudaEventRecord(start, s));
	for (int i = 0; i < n; i++) {
		if (!fork) {
			launch(i, s);
			continue;
		}
		CHECK(cudaStreamCreateWithFlags(&side[i], cudaStreamNonBlocking));
		CHECK(cudaEventCreateWithFlags(&join[i], cudaEventDisableTiming));
		CHECK(cudaStreamWaitEvent(side[i], start, 0));
		launch(i, side[i]);
		CHECK(cudaEventRecord(join[i], side[i]));
		CHECK(cudaStreamWaitEvent(s, join[i], 0));
	}
	CHECK(cudaStreamEndCapture(s, &g));
	CHECK(cudaGraphInstantiate(&e, g, 0));
	CHECK(cudaGraphDestroy(g));
	for (int i = 0; fork && i < n; i++) {
		CHECK(cudaStreamDestroy(side[i]));
		CHECK(cudaEventDestroy(join[i]));
	}
	CHECK(cudaEventDestroy(start));
	return e;
}

/* @n nodes of spin_k (@ns each, @blocks of @threads): independent (@fork) or a chain. */
static cudaGraphExec_t spin_nodes(cudaStream_t s, int n, bool fork, long long ns, int blocks = 4,
				  int threads = 32)
{
	return capture(s, n, fork,
		       [&](int, cudaStream_t t) { spin_k<<<blocks, threads, 0, t>>>(ns); });
}

/* out = in * 2 + 1 over n floats, grid-stride: a small memory-bound kernel like the DAGs'. */
__global__ void copy_k(const float *in, float *out, long long n)
{
	for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
	     i += (long long)gridDim.x * blockDim.x)
		out[i] = in[i] * 2.0f + 1.0f;
}

/* out = a + b over n floats, grid-stride. */
__global__ void add2_k(const float *a, const float *b, float *out, long long n)
{
	for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
	     i += (long long)gridDim.x * blockDim.x)
		out[i] = a[i] + b[i];
}

/* Double-precision arithmetic (exp, log, sqrt) on one element per thread, @reps times: a
 * kernel whose blocks are busy on the multiprocessor's arithmetic units. */
__global__ void math_k(const double *in, double *out, long long n, int reps)
{
	for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
	     i += (long long)gridDim.x * blockDim.x) {
		double x = in[i], y = 0;

		for (int r = 0; r < reps; r++)
			y += exp(-0.5 * x * x) * log(1.0 + x + r) + sqrt(x + r);
		out[i] = y;
	}
}

/* spin_k with a workload kernel's parameters (eight buffers, four scalars: 96 bytes). */
__global__ void spin_args_k(long long ns, float *a, float *b, float *c, float *d, float *e,
			    float *f, float *g, float *h, double x, double y, double z)
{
	unsigned long long t0, t;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
	do
		asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	while ((long long)(t - t0) < ns);
	if (x < 0 && threadIdx.x == 0)
		a[0] = b[0] + c[0] + d[0] + e[0] + f[0] + g[0] + h[0] + (float)(y + z);
}

/* @levels fork-joins after a first node: each level's two nodes (A on the first branch, B on
 * a second) follow the previous level's join node C, which waits for both: every level has
 * one dependency across branches that the critical path takes (B -> C). */
static cudaGraphExec_t diamond_graph(cudaStream_t s, cudaStream_t s2, int levels, long long ns)
{
	cudaEvent_t fork, join;
	cudaGraph_t g;
	cudaGraphExec_t e;

	CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
	CHECK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
	CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
	spin_k<<<32, 256, 0, s>>>(ns);
	for (int i = 0; i < levels; i++) {
		CHECK(cudaEventRecord(fork, s));
		CHECK(cudaStreamWaitEvent(s2, fork, 0));
		spin_k<<<32, 256, 0, s>>>(ns);
		spin_k<<<32, 256, 0, s2>>>(ns);
		CHECK(cudaEventRecord(join, s2));
		CHECK(cudaStreamWaitEvent(s, join, 0));
		spin_k<<<32, 256, 0, s>>>(ns);
	}
	CHECK(cudaStreamEndCapture(s, &g));
	CHECK(cudaGraphInstantiate(&e, g, 0));
	CHECK(cudaGraphDestroy(g));
	return e;
}

int main(int argc, char **argv)
{
	int reps = (int)arg_long(argc, argv, "--reps", 2000);
	std::vector<double> launch, rec, wait, idle, stotal, glaunch, gtotal, g64, g64l, drv, drvsw,
	    spin1, spin16, ch1, ch16, busy, busysw, loop, drvargs, w16a, w16b, w64a, w64b, c32a,
	    c32b, wa16a, wa16b, dia1, dia8, cp1, cp8, cpc1, cpc8, fjc, fj, r2, r2j, sh1, sh2, st1,
	    st16, wc1, wc64, sw1, sw16, ms1, ms16;
	cudaEvent_t rev[8];
	cudaStream_t ring[8];
	CUfunction fn;
	cudaStream_t s, s2;
	cudaEvent_t ev;

	CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
	CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
	auto empties = [&](int n) {
		return capture(s, n, false,
			       [](int, cudaStream_t t) { empty_k<<<1, 32, 0, t>>>(); });
	};
	cudaGraphExec_t g1 = empties(1), gc = empties(64);
	cudaGraphExec_t sp1 = spin_nodes(s, 1, true, 20000), sp16 = spin_nodes(s, 16, true, 20000);
	cudaGraphExec_t c1 = spin_nodes(s, 1, false, 5000), c16 = spin_nodes(s, 16, false, 5000);
	cudaGraphExec_t w16[2] = {spin_nodes(s, 1, true, 20000, 16, 256),
				  spin_nodes(s, 10, true, 20000, 16, 256)};
	cudaGraphExec_t w64[2] = {spin_nodes(s, 1, true, 20000, 64, 256),
				  spin_nodes(s, 10, true, 20000, 64, 256)};
	cudaGraphExec_t c32[2] = {spin_nodes(s, 1, false, 3000, 32, 256),
				  spin_nodes(s, 16, false, 3000, 32, 256)};
	CUfunction args_fn;
	float *buf;
	long long nargs = 1;
	void *argv_k[] = {&buf, &buf, &buf, &nargs};
	CUfunction spin_fn;
	long long spin_ns = 3000;
	void *spin_args[] = {&spin_ns};

	CHECK(cudaGetFuncBySymbol((cudaFunction_t *)&spin_fn, (const void *)spin_k));
	CHECK(cudaGetFuncBySymbol((cudaFunction_t *)&args_fn, (const void *)args_k));
	CHECK(cudaMalloc(&buf, 4096));
	auto args_nodes = [&](int n) { /* spin_k's work with B&S's 96 bytes of parameters */
				       return capture(s, n, true, [&](int, cudaStream_t t) {
					       spin_args_k<<<16, 256, 0, t>>>(20000, buf, buf, buf,
									      buf, buf, buf, buf,
									      buf, 1.0, 2.0, 3.0);
				       });
	};
	cudaGraphExec_t wa16[2] = {args_nodes(1), args_nodes(10)};
	auto fills = [&](int n) {
		return capture(s, n, false,
			       [&](int, cudaStream_t t) { fill_k<<<1, 32, 0, t>>>(buf, 32); });
	};
	cudaGraphExec_t fillg[2] = {fills(1), fills(64)};
	auto spin_writes = [&](int n) {
		return capture(s, n, false, [&](int, cudaStream_t t) {
			spin_w_k<<<32, 256, 0, t>>>(3000, (int *)buf + 64);
		});
	};
	cudaGraphExec_t spinwg[2] = {spin_writes(1), spin_writes(16)};
	auto spin_memsets = [&](int n) { /* spin_writes' chain, a 64-byte memset after each */
					 return capture(s, n, false, [&](int, cudaStream_t t) {
						 spin_w_k<<<32, 256, 0, t>>>(3000, (int *)buf + 64);
						 CHECK(cudaMemsetAsync(buf + 512, 0, 64, t));
					 });
	};
	cudaGraphExec_t msetg[2] = {spin_memsets(1), spin_memsets(16)};
	float *cbufs[16];
	for (int i = 0; i < 16; i++) {
		CHECK(cudaMalloc(&cbufs[i], 160000 * sizeof(float)));
		CHECK(cudaMemset(cbufs[i], 0, 160000 * sizeof(float)));
	}
	auto copies = [&](int n,
			  bool fork) { /* each on its own pair of buffers */
				       return capture(s, n, fork, [&](int i, cudaStream_t t) {
					       copy_k<<<16, 256, 0, t>>>(cbufs[2 * i],
									 cbufs[2 * i + 1], 160000);
				       });
	};
	cudaGraphExec_t cp[2] = {copies(1, true), copies(8, true)};
	cudaGraphExec_t cpc[2] = {copies(1, false), copies(8, false)};
	/* copies 8 -> 9 and 10 -> 11 (in a chain, or at once: on different SMs), then 9 + 11 */
	auto fj_graph = [&](bool fork) {
		float **b = cbufs + 8;

		return two_then(
		    s, s2, fork,
		    [&](cudaStream_t t) { copy_k<<<16, 256, 0, t>>>(b[0], b[1], 160000); },
		    [&](cudaStream_t t) { copy_k<<<16, 256, 0, t>>>(b[2], b[3], 160000); },
		    [&](cudaStream_t t) { add2_k<<<16, 256, 0, t>>>(b[1], b[3], b[4], 160000); });
	};
	/* two roots of 3 us (32 blocks), then, with @join, a third after both */
	auto root_join_graph = [&](bool join) {
		auto spin3 = [](cudaStream_t t) { spin_k<<<32, 256, 0, t>>>(3000); };

		return two_then(s, s2, true, spin3, spin3, [&](cudaStream_t t) {
			if (join)
				spin3(t);
		});
	};
	/* math_k: sized to about 20 us alone, one block per multiprocessor; then alone, and a
	 * node after an older one of three times the work (on other buffers) */
	int nsm = 0, mreps = 256; /* long enough for the events' own cost not to count */
	double *mbuf;
	cudaEvent_t m0, m1;
	float mms = 0;

	CHECK(cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, 0));
	long long mn = (long long)nsm * 256;
	CHECK(cudaMalloc(&mbuf, 4 * mn * sizeof(double)));
	CHECK(cudaMemset(mbuf, 0, 4 * mn * sizeof(double)));
	CHECK(cudaEventCreate(&m0));
	CHECK(cudaEventCreate(&m1));
	math_k<<<nsm, 256, 0, s>>>(mbuf, mbuf + mn, mn, mreps); /* warm-up */
	CHECK(cudaEventRecord(m0, s));
	math_k<<<nsm, 256, 0, s>>>(mbuf, mbuf + mn, mn, mreps);
	CHECK(cudaEventRecord(m1, s));
	CHECK(cudaEventSynchronize(m1));
	CHECK(cudaEventElapsedTime(&mms, m0, m1));
	if (mms > 0)
		mreps = std::max(1, (int)(mreps * 0.020 / mms + 0.5));
	cudaGraphExec_t sh[2] = {
	    capture(s, 1, true,
		    [&](int, cudaStream_t t) {
			    math_k<<<nsm, 256, 0, t>>>(mbuf, mbuf + mn, mn, mreps);
		    }),
	    capture(s, 2, true,
		    [&](int i, cudaStream_t t) { /* node 0: the older one */
						 math_k<<<nsm, 256, 0, t>>>(
						     mbuf + 2 * i * mn, mbuf + (2 * i + 1) * mn, mn,
						     i ? mreps : 3 * mreps);
		    }),
	};
	cudaGraphExec_t fjg[2] = {fj_graph(false), fj_graph(true)};
	cudaGraphExec_t rj[2] = {root_join_graph(false), root_join_graph(true)};
	cudaGraphExec_t dia[2] = {diamond_graph(s, s2, 1, 3000), diamond_graph(s, s2, 8, 3000)};
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
		for (int i = 0; i < reps / 16;
		     i++) { /* bursts: what the host loop pays per launch */
			double t = now_ns();

			for (int k = 0; k < 16; k++)
				empty_k<<<1, 32, 0, s>>>();
			if (keep)
				loop.push_back((now_ns() - t) / 16);
			CHECK(cudaStreamSynchronize(s));
		}
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
		for (int i = 0; i < reps / 8; i++) { /* on a stream: their durations, recorded */
			fill_k<<<1, 32, 0, s>>>(buf, 32);
			spin_w_k<<<32, 256, 0, s>>>(3000, (int *)buf + 64);
			CHECK(cudaStreamSynchronize(s));
		}
		for (int i = 0; i < reps / 8; i++) { /* a stream of 10 us kernels, GPU-bound */
			double t = now_ns();

			spin_k<<<1, 32, 0, s>>>(10000);
			CHECK(cudaStreamSynchronize(s));
			double t2 = now_ns();
			for (int k = 0; k < 16; k++)
				spin_k<<<1, 32, 0, s>>>(10000);
			CHECK(cudaStreamSynchronize(s));
			if (keep) {
				st1.push_back(t2 - t);
				st16.push_back(now_ns() - t2);
			}
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
		for (int i = 0; i < reps; i++) {
			CUlaunchConfig cfg = {};

			cfg.gridDimX = 32;
			cfg.gridDimY = cfg.gridDimZ = 1;
			cfg.blockDimX = 256;
			cfg.blockDimY = cfg.blockDimZ = 1;
			cfg.hStream = (CUstream)s;
			double t = now_ns();
			CUresult r = cuLaunchKernelEx(&cfg, args_fn, argv_k, nullptr);
			double dt = now_ns() - t;

			if (r != CUDA_SUCCESS) {
				fprintf(stderr, "cuLaunchKernelEx failed: %d\n", (int)r);
				return 1;
			}
			if (keep)
				drvargs.push_back(dt);
			if (i % 16 == 15)
				CHECK(cudaStreamSynchronize(s));
		}
		CHECK(cudaStreamSynchronize(s));
		struct {
			cudaGraphExec_t *g;
			std::vector<double> *a, *b;
		} pairs[] = {{w16, &w16a, &w16b},    {w64, &w64a, &w64b},  {c32, &c32a, &c32b},
			     {wa16, &wa16a, &wa16b}, {dia, &dia1, &dia8},  {cp, &cp1, &cp8},
			     {cpc, &cpc1, &cpc8},    {fjg, &fjc, &fj},	   {rj, &r2, &r2j},
			     {sh, &sh1, &sh2},	     {fillg, &wc1, &wc64}, {spinwg, &sw1, &sw16},
			     {msetg, &ms1, &ms16}};
		for (auto &pr : pairs) {
			for (int i = 0; i < reps / 4; i++) {
				double t = now_ns();

				CHECK(cudaGraphLaunch(pr.g[0], s));
				CHECK(cudaStreamSynchronize(s));
				double t2 = now_ns();
				CHECK(cudaGraphLaunch(pr.g[1], s));
				CHECK(cudaStreamSynchronize(s));
				if (keep) {
					pr.a->push_back(t2 - t);
					pr.b->push_back(now_ns() - t2);
				}
			}
		}
	}
	printf("CALIB {\"launch_ns\": %.0f, \"event_record_ns\": %.0f, \"stream_wait_ns\": %.0f, "
	       "\"sync_idle_ns\": %.0f, \"stream_total_ns\": %.0f, \"graph_launch_ns\": %.0f, "
	       "\"graph_total_ns\": %.0f, \"graph64_total_ns\": %.0f, \"graph64_launch_ns\": %.0f, "
	       "\"drv_launch_ns\": %.0f, \"drv_switch_ns\": %.0f, \"spin1_total_ns\": %.0f, "
	       "\"spin16_total_ns\": %.0f, \"chain1_total_ns\": %.0f, \"chain16_total_ns\": %.0f, "
	       "\"drv_busy_ns\": %.0f, \"drv_busy_switch_ns\": %.0f, \"drv_args_ns\": %.0f, "
	       "\"w16_1_total_ns\": %.0f, \"w16_10_total_ns\": %.0f, \"w64_1_total_ns\": %.0f, "
	       "\"w64_10_total_ns\": %.0f, \"c32_1_total_ns\": %.0f, \"c32_16_total_ns\": %.0f, "
	       "\"wa16_1_total_ns\": %.0f, \"wa16_10_total_ns\": %.0f, \"dia1_total_ns\": %.0f, "
	       "\"dia8_total_ns\": %.0f, \"cp1_total_ns\": %.0f, \"cp8_total_ns\": %.0f, "
	       "\"cpc8_total_ns\": %.0f, \"fjc_total_ns\": %.0f, \"fj_total_ns\": %.0f, "
	       "\"launch_loop_ns\": %.0f, \"r2_total_ns\": %.0f, \"r2j_total_ns\": %.0f, "
	       "\"sh1_total_ns\": %.0f, \"sh2_total_ns\": %.0f, \"st1_total_ns\": %.0f, "
	       "\"st16_total_ns\": %.0f, \"wc1_total_ns\": %.0f, \"wc64_total_ns\": %.0f, "
	       "\"sw1_total_ns\": %.0f, \"sw16_total_ns\": %.0f, \"ms1_total_ns\": %.0f, "
	       "\"ms16_total_ns\": %.0f}\n",
	       median(launch), median(rec), median(wait), median(idle), median(stotal),
	       median(glaunch), median(gtotal), median(g64), median(g64l), median(drv),
	       median(drvsw), median(spin1), median(spin16), median(ch1), median(ch16),
	       median(busy), median(busysw), median(drvargs), median(w16a), median(w16b),
	       median(w64a), median(w64b), median(c32a), median(c32b), median(wa16a), median(wa16b),
	       median(dia1), median(dia8), median(cp1), median(cp8), median(cpc8), median(fjc),
	       median(fj), median(loop), median(r2), median(r2j), median(sh1), median(sh2),
	       median(st1), median(st16), median(wc1), median(wc64), median(sw1), median(sw16),
	       median(ms1), median(ms16));
	CHECK(cudaGraphExecDestroy(g1));
	CHECK(cudaGraphExecDestroy(gc));
	for (int i = 0; i < 2; i++) {
		CHECK(cudaGraphExecDestroy(w16[i]));
		CHECK(cudaGraphExecDestroy(w64[i]));
		CHECK(cudaGraphExecDestroy(c32[i]));
		CHECK(cudaGraphExecDestroy(wa16[i]));
		CHECK(cudaGraphExecDestroy(dia[i]));
		CHECK(cudaGraphExecDestroy(fillg[i]));
		CHECK(cudaGraphExecDestroy(spinwg[i]));
		CHECK(cudaGraphExecDestroy(msetg[i]));
	}
	for (int i = 0; i < 2; i++)
		CHECK(cudaGraphExecDestroy(sh[i]));
	CHECK(cudaEventDestroy(m0));
	CHECK(cudaEventDestroy(m1));
	CHECK(cudaFree(mbuf));
	CHECK(cudaFree(buf));
	return 0;
}
