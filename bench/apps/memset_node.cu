// memset_node: what a 4-byte memset node costs in a CUDA graph before a small kernel and before
// a kernel shaped like cuDNN's attention kernel in a transformers prefill (48 blocks of 384
// threads, 131 KB of dynamic shared memory), and what a switch between the two kernels costs;
// and whether the memset costs more after a kernel that wrote 2 or 16 MB (w2, w16) than after
// one that wrote little, against a 4-byte write by a kernel (k4) in its place; timed with
// events around each replay, no profiler (docs/BENCHMARKS.md, "Where a replay's time goes").
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

static __global__ void write_k(float *z, long n)
{
	for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n;
	     i += (long)gridDim.x * blockDim.x)
		z[i] = (float)i;
}

static __global__ void k4(int *y)
{
	*y = 0;
}

enum { SMALL = 1, BIG = 2, MEMSET4 = 4, MEMSET64K = 8, W2 = 16, W16 = 32, K4 = 64 };
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
    {"w2+small", W2 | SMALL},
    {"w2+memset4+small", W2 | MEMSET4 | SMALL},
    {"w16+small", W16 | SMALL},
    {"w16+memset4+small", W16 | MEMSET4 | SMALL},
    {"w16+k4+small", W16 | K4 | SMALL},
    {"w16+big", W16 | BIG},
    {"w16+memset4+big", W16 | MEMSET4 | BIG},
};
static const int NV = (int)(sizeof(variants) / sizeof(variants[0]));

int main(int argc, char **argv)
{
	int units = (int)arg_long(argc, argv, "--units", 32);
	int rounds = (int)arg_long(argc, argv, "--rounds", 300), n = 48 * 384, big = 131 * 1024;
	float *x, *y, *z;
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
	CHECK(cudaMalloc(&z, (size_t)16 << 20));
	CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	CHECK(cudaFuncSetAttribute(big_smem_k, cudaFuncAttributeMaxDynamicSharedMemorySize, big));
	for (int v = 0; v < NV; v++) {
		cudaGraph_t g;
		int p = variants[v].parts;

		CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
		for (int i = 0; i < units; i++) {
			if (p & (W2 | W16))
				write_k<<<264, 256, 0, s>>>(z, (long)((p & W16) ? 16 : 2) << 18);
			if (p & K4)
				k4<<<1, 1, 0, s>>>((int *)y);
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
