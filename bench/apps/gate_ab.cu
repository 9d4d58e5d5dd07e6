// gate_ab: a training step stand-in for the A/B runs of skip gate (bench/gate/ab.sh). Each step
// is one NVTX range "step" on one stream: three big kernels that spin for fixed cycle counts
// (ab_gemm ~600 us, ab_attention ~150 us, ab_norm ~30 us at the GPU's clock rate), 16 tiny
// ab_elementwise kernels, then a cudaStreamSynchronize, as a loop that reads its loss does.
// Warm-up steps come first, in an NVTX range "warmup".
//   gate_ab [--steps S] [--warmup W] [--slow PCT] [--slow-kernel NAME] [--extra-launches N]
//   --slow PCT           the kernel NAME spins PCT% longer (default 0)
//   --slow-kernel NAME   ab_gemm (default), ab_attention or ab_norm
//   --extra-launches N   N more launches per step of the tiny kernel ab_tiny, after the big
//                        kernels; the big kernels' cycle counts stay as they were
// It prints "APP gate_ab steps=S slow=PCT slow_kernel=NAME extra=N us_per_step=X" (the median
// wall time per step, host clock).
#include "common.h"
#include <nvtx3/nvToolsExt.h>
#include <string>

__device__ static void spin_for(long long cycles, float *x)
{
	long long t0 = clock64();

	while (clock64() - t0 < cycles)
		;
	if (threadIdx.x == 0 && blockIdx.x == 0)
		x[0] += 1.0f;
}

/* One kernel per name, so that the trace (and skip diff) tells them apart. */
__global__ void ab_gemm(float *x, long long cycles)
{
	spin_for(cycles, x);
}

__global__ void ab_attention(float *x, long long cycles)
{
	spin_for(cycles, x);
}

__global__ void ab_norm(float *x, long long cycles)
{
	spin_for(cycles, x);
}

__global__ void ab_elementwise(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		x[i] = x[i] * 0.5f + 1.0f;
}

__global__ void ab_tiny(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		x[i] += 1.0f;
}

struct big {
	const char *name;
	double us; /* spin time at the clock rate the device reports */
	void (*fn)(float *, long long);
	long long cycles;
};

static void step(cudaStream_t s, big *bigs, float *x, int elems, long extra)
{
	int blocks = (elems + 255) / 256;

	bigs[2].fn<<<1, 32, 0, s>>>(x, bigs[2].cycles); /* norm */
	bigs[0].fn<<<1, 32, 0, s>>>(x, bigs[0].cycles); /* gemm */
	for (int i = 0; i < 8; i++)
		ab_elementwise<<<blocks, 256, 0, s>>>(x, elems);
	bigs[1].fn<<<1, 32, 0, s>>>(x, bigs[1].cycles); /* attention */
	for (int i = 0; i < 8; i++)
		ab_elementwise<<<blocks, 256, 0, s>>>(x, elems);
	for (long i = 0; i < extra; i++)
		ab_tiny<<<blocks, 256, 0, s>>>(x, elems);
	CHECK(cudaGetLastError());
	CHECK(cudaStreamSynchronize(s));
}

int main(int argc, char **argv)
{
	long steps = arg_long(argc, argv, "--steps", 50);
	long warmup = arg_long(argc, argv, "--warmup", 5);
	long extra = arg_long(argc, argv, "--extra-launches", 0);
	double slow = arg_double(argc, argv, "--slow", 0);
	std::string slow_name = "ab_gemm";
	big bigs[] = {{"ab_gemm", 600, ab_gemm, 0},
		      {"ab_attention", 150, ab_attention, 0},
		      {"ab_norm", 30, ab_norm, 0}};
	const int elems = 4096;
	std::vector<double> us;
	cudaStream_t s;
	int khz = 0, found = 0;
	float *x;

	for (int i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i], "--slow-kernel"))
			slow_name = argv[i + 1];
	if (steps < 1 || warmup < 0 || extra < 0 || slow < 0 || slow > 1000) {
		fprintf(stderr, "gate_ab: --steps >= 1, --warmup >= 0, --extra-launches >= 0, "
				"--slow 0..1000\n");
		return 2;
	}
	CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
	for (big &b : bigs) {
		double factor = slow_name == b.name ? 1 + slow / 100 : 1;

		found |= slow_name == b.name;
		b.cycles = (long long)(b.us * factor * khz / 1000.0);
	}
	if (!found) {
		fprintf(stderr, "gate_ab: --slow-kernel takes ab_gemm, ab_attention or ab_norm\n");
		return 2;
	}
	CHECK(cudaMalloc(&x, elems * sizeof(float)));
	CHECK(cudaMemset(x, 0, elems * sizeof(float)));
	CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	nvtxRangePushA("warmup");
	for (long i = 0; i < warmup; i++)
		step(s, bigs, x, elems, extra);
	nvtxRangePop();
	for (long i = 0; i < steps; i++) {
		double t0 = now_ns();

		nvtxRangePushA("step");
		step(s, bigs, x, elems, extra);
		nvtxRangePop();
		us.push_back((now_ns() - t0) / 1000);
	}
	printf("APP gate_ab steps=%ld slow=%g slow_kernel=%s extra=%ld us_per_step=%.3f\n", steps,
	       slow, slow_name.c_str(), extra, median(us));
	CHECK(cudaStreamDestroy(s));
	CHECK(cudaFree(x));
	return 0;
}
