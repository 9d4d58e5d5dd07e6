/*
 * common.h: shared by the bundled CUDA programs in bench/apps. They are the subjects of the
 * GPU tests (tests/gpu) and of the benchmarks: each prints what it launched as one line
 * "APP key=value ..." on stdout, so a test can compare the trace with what really happened.
 */
#ifndef SKIP_BENCH_APPS_COMMON_H
#define SKIP_BENCH_APPS_COMMON_H

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include <vector>

#include "../check.h"

/* "--name value" from argv, or @dflt. */
static inline long arg_long(int argc, char **argv, const char *name, long dflt)
{
	for (int i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i], name))
			return strtol(argv[i + 1], NULL, 10);
	return dflt;
}

static inline double arg_double(int argc, char **argv, const char *name, double dflt)
{
	for (int i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i], name))
			return strtod(argv[i + 1], NULL);
	return dflt;
}

static inline int arg_flag(int argc, char **argv, const char *name)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], name))
			return 1;
	return 0;
}

/* The host's steady clock, ns. */
static inline double now_ns()
{
	return std::chrono::duration<double, std::nano>(
		   std::chrono::steady_clock::now().time_since_epoch())
	    .count();
}

/* The median of @v (the upper one of an even count), 0 when empty. */
static inline double median(std::vector<double> v)
{
	std::sort(v.begin(), v.end());
	return v.empty() ? 0.0 : v[v.size() / 2];
}

/* A tiny kernel: one add per element, so launch cost dominates when n is small. */
__global__ void add_one(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] += 1.0f;
}

/* A kernel that spins for about @cycles clock cycles (a GPU-bound stand-in). */
__global__ void spin(float *x, long long cycles)
{
	long long t0 = clock64();
	while (clock64() - t0 < cycles)
		;
	if (threadIdx.x == 0 && blockIdx.x == 0)
		x[0] += 1.0f;
}

/* Two kernels, @first on @s and @second on @s2 (at once, two branches) or on @s after it
 * (@fork false), then @after on @s once both are done. */
template <typename A, typename B, typename C>
static cudaGraphExec_t two_then(cudaStream_t s, cudaStream_t s2, bool fork, A first, B second,
				C after)
{
	cudaEvent_t f, j;
	cudaGraph_t g;
	cudaGraphExec_t e;

	CHECK(cudaEventCreateWithFlags(&f, cudaEventDisableTiming));
	CHECK(cudaEventCreateWithFlags(&j, cudaEventDisableTiming));
	CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
	CHECK(cudaEventRecord(f, s));
	CHECK(cudaStreamWaitEvent(s2, f, 0));
	first(s);
	second(fork ? s2 : s);
	CHECK(cudaEventRecord(j, s2));
	CHECK(cudaStreamWaitEvent(s, j, 0));
	after(s);
	CHECK(cudaStreamEndCapture(s, &g));
	CHECK(cudaGraphInstantiate(&e, g, 0));
	CHECK(cudaGraphDestroy(g));
	CHECK(cudaEventDestroy(f));
	CHECK(cudaEventDestroy(j));
	return e;
}

#endif
