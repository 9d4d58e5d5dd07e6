// cublas_driver: kernels launched through the driver API: G cuBLAS SGEMMs (cuBLAS launches
// with cuLaunchKernel*) and D explicit cuLaunchKernel calls of our own kernel.
//   cublas_driver [--gemms G] [--driver-launches D]
#include "common.h"
#include <cublas_v2.h>
#include <cuda.h>

int main(int argc, char **argv)
{
	long gemms = arg_long(argc, argv, "--gemms", 5);
	long dl = arg_long(argc, argv, "--driver-launches", 10);
	const int n = 256;
	float *a, *b, *c, one = 1.0f, zero = 0.0f;
	cublasHandle_t h;
	cudaFunction_t rf;
	int elems = 1024;

	CHECK(cudaMalloc(&a, n * n * sizeof(float)));
	CHECK(cudaMalloc(&b, n * n * sizeof(float)));
	CHECK(cudaMalloc(&c, n * n * sizeof(float)));
	if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) {
		fprintf(stderr, "cublasCreate failed\n");
		return 1;
	}
	for (long i = 0; i < gemms; i++)
		cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n, &zero, c, n);
	CHECK(cudaDeviceSynchronize());
	CHECK(cudaGetFuncBySymbol(&rf, (const void *)add_one));
	for (long i = 0; i < dl; i++) {
		void *args[] = {&a, &elems};
		CUresult r = cuLaunchKernel((CUfunction)rf, 4, 1, 1, 256, 1, 1, 0, 0, args, NULL);
		if (r != CUDA_SUCCESS) {
			fprintf(stderr, "cuLaunchKernel failed: %d\n", (int)r);
			return 1;
		}
	}
	CHECK(cudaDeviceSynchronize());
	cublasDestroy(h);
	printf("APP cublas_driver gemms=%ld driver_launches=%ld\n", gemms, dl);
	return 0;
}
