// two_streams: K kernels on stream A, an event recorded on A, stream B waits for it, then K
// kernels on B; R rounds; a final device synchronize.
//   two_streams [--kernels K] [--rounds R]
#include "common.h"

int main(int argc, char **argv)
{
	long k = arg_long(argc, argv, "--kernels", 20);
	long rounds = arg_long(argc, argv, "--rounds", 5);
	cudaStream_t a, b;
	cudaEvent_t ev;
	float *x, *y;

	CHECK(cudaMalloc(&x, 4096 * sizeof(float)));
	CHECK(cudaMalloc(&y, 4096 * sizeof(float)));
	CHECK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
	CHECK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
	CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
	for (long r = 0; r < rounds; r++) {
		for (long i = 0; i < k; i++)
			add_one<<<16, 256, 0, a>>>(x, 4096);
		CHECK(cudaEventRecord(ev, a));
		CHECK(cudaStreamWaitEvent(b, ev, 0));
		for (long i = 0; i < k; i++)
			add_one<<<16, 256, 0, b>>>(y, 4096);
		CHECK(cudaStreamSynchronize(b));
	}
	CHECK(cudaDeviceSynchronize());
	printf("APP two_streams kernels=%ld per_stream=%ld event_records=%ld waits=%ld "
	       "stream_syncs=%ld\n",
	       2 * k * rounds, k * rounds, rounds, rounds, rounds);
	return 0;
}
