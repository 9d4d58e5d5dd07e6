// gpu_bound: K kernels of about D microseconds each, launched back to back on one stream:
// the GPU is the bottleneck and launches queue up (SKIP's GPU-bound signature).
//   gpu_bound [--kernels K] [--us D]
#include "common.h"
#include <chrono>

int main(int argc, char **argv)
{
	long k = arg_long(argc, argv, "--kernels", 2000);
	double us = arg_double(argc, argv, "--us", 80);
	int khz = 0;
	float *x;

	CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
	CHECK(cudaMalloc(&x, sizeof(float)));
	long long cycles = (long long)(us * khz / 1000.0);
	spin<<<1, 32>>>(x, cycles); /* warm-up */
	CHECK(cudaDeviceSynchronize());
	auto t0 = std::chrono::steady_clock::now();
	for (long i = 0; i < k; i++)
		spin<<<1, 32>>>(x, cycles);
	CHECK(cudaDeviceSynchronize());
	double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
	printf("APP gpu_bound kernels=%ld wall_s=%.6f us_per_kernel=%.3f\n", k + 1, wall,
	       wall * 1e6 / (double)k);
	return 0;
}
