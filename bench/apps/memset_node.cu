// memset_node: what a 4-byte memset node costs in a CUDA graph before a small kernel and before
// a kernel shaped like cuDNN's attention kernel in a transformers prefill (48 blocks of 384
// threads, 131 KB of dynamic shared memory), and what a switch between the two kernels costs;
// timed with events around each replay, no profiler (docs/BENCHMARKS.md, "skip advise:
// predicted graph gain against a measured replay").
//   memset_node [--units U] [--rounds R]
// Each graph repeats one unit U times (default 32); the variants are replayed in turn, R rounds
// (default 300, the first 20 left out), and each prints the median time a unit:
//   APP memset_node variant=NAME unit_us=M q1_us=A q3_us=B
#include "common.h"

static __global__ void small_k(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		x[i] = x[i] * 0.5f + 1.0f;
}

static __global__ void __launch_bounds__(384) big_smem_k(float *x)
{
	extern __shared__ float sm[];

	sm[threadIdx.x] = x[blockIdx.x * 384 + threadIdx.x];
	__syncthreads();
	x[blockIdx.x * 384 + threadIdx.x] = sm[383 - threadIdx.x] * 0.5f;
}

enum { SMALL = 1, BIG = 2, MEMSET4 = 4, MEMSET64K = 8 };
static const struct {
	const char *name;
	int parts;
} variants[] = {
    {"small", SMALL},
    {"memset4+small", MEMSET4 | SMALL},
    {"big", BIG},
    {"memset4+big", MEMSET4 | BIG},
    {"small+big", SMALL | BIG},
    {"memset64K+big", MEMSET64K | BIG},
};
static const int NV = (int)(sizeof(variants) / sizeof(variants[0]));

int main(int argc, char **argv)
{
	int units = (int)arg_long(argc, argv, "--units", 32);
	int rounds = (int)arg_long(argc, argv, "--rounds", 300), n = 48 * 384, big = 131 * 1024;
	float *x, *y;
	cudaStream_t s;
	cudaEvent_t a, b;
	cudaGraphExec_t ex[NV];
	std::vector<float> t[NV];

	if (units < 1 || rounds < 21) {
		fprintf(stderr, "memset_node: --units >= 1 and --rounds >= 21\n");
		return 2;
	}
	CHECK(cudaMalloc(&x, (size_t)(n + 65536) * sizeof(float)));
	CHECK(cudaMalloc(&y, 64));
	CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	CHECK(cudaFuncSetAttribute(big_smem_k, cudaFuncAttributeMaxDynamicSharedMemorySize, big));
	for (int v = 0; v < NV; v++) {
		cudaGraph_t g;
		int p = variants[v].parts;

		CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
		for (int i = 0; i < units; i++) {
			if (p & MEMSET4)
				CHECK(cudaMemsetAsync(y, 0, 4, s));
			if (p & MEMSET64K)
				CHECK(cudaMemsetAsync(x + n, 0, 65536, s));
			if (p & SMALL)
				small_k<<<(n + 255) / 256, 256, 0, s>>>(x, n);
			if (p & BIG)
				big_smem_k<<<48, 384, big, s>>>(x);
		}
		CHECK(cudaStreamEndCapture(s, &g));
		CHECK(cudaGraphInstantiate(&ex[v], g, 0));
		CHECK(cudaGraphDestroy(g));
	}
	CHECK(cudaEventCreate(&a));
	CHECK(cudaEventCreate(&b));
	for (int r = 0; r < rounds; r++)
		for (int v = 0; v < NV; v++) {
			float ms;

			CHECK(cudaEventRecord(a, s));
			CHECK(cudaGraphLaunch(ex[v], s));
			CHECK(cudaEventRecord(b, s));
			CHECK(cudaEventSynchronize(b));
			CHECK(cudaEventElapsedTime(&ms, a, b));
			if (r >= 20)
				t[v].push_back(ms * 1000.0f / (float)units);
		}
	for (int v = 0; v < NV; v++) {
		std::vector<float> &u = t[v];

		std::sort(u.begin(), u.end());
		printf("APP memset_node variant=%s unit_us=%.3f q1_us=%.3f q3_us=%.3f\n",
		       variants[v].name, u[u.size() / 2], u[u.size() / 4], u[u.size() * 3 / 4]);
		CHECK(cudaGraphExecDestroy(ex[v]));
	}
	return 0;
}
