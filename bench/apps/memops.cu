// memops: host<->device copies (pageable and pinned), a device-to-device copy, async copies
// and memsets, with known counts and bytes.
//   memops [--bytes B] [--rounds R]
#include "common.h"

int main(int argc, char **argv)
{
	size_t bytes = (size_t)arg_long(argc, argv, "--bytes", 1 << 20);
	long rounds = arg_long(argc, argv, "--rounds", 3);
	char *h = (char *)malloc(bytes), *hp, *d1, *d2;
	cudaStream_t s;

	memset(h, 1, bytes);
	CHECK(cudaMallocHost(&hp, bytes));
	CHECK(cudaMalloc(&d1, bytes));
	CHECK(cudaMalloc(&d2, bytes));
	CHECK(cudaStreamCreate(&s));
	for (long r = 0; r < rounds; r++) {
		CHECK(cudaMemcpy(d1, h, bytes, cudaMemcpyHostToDevice));	  // H2D pageable
		CHECK(cudaMemcpyAsync(d2, hp, bytes, cudaMemcpyHostToDevice, s)); // H2D pinned
		CHECK(cudaMemcpyAsync(d2, d1, bytes, cudaMemcpyDeviceToDevice, s));
		CHECK(cudaMemsetAsync(d1, 0, bytes, s));
		CHECK(cudaMemset(d2, 7, bytes));
		CHECK(cudaMemcpyAsync(hp, d2, bytes, cudaMemcpyDeviceToHost, s)); // D2H pinned
		CHECK(cudaStreamSynchronize(s));
	}
	printf("APP memops memcpys=%ld memsets=%ld memcpy_bytes=%zu htod=%ld dtoh=%ld dtod=%ld\n",
	       4 * rounds, 2 * rounds, 4 * bytes * rounds, 2 * rounds, rounds, rounds);
	free(h);
	return 0;
}
