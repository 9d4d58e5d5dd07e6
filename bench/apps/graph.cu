// graph: K kernels captured from a stream into a CUDA graph, instantiated once and launched
// M times: K*M kernels, all from graph launches; before that, P plain stream launches.
//   graph [--kernels K] [--launches M] [--plain P]
#include "common.h"

int main(int argc, char **argv)
{
	long k = arg_long(argc, argv, "--kernels", 10);
	long m = arg_long(argc, argv, "--launches", 20);
	long plain = arg_long(argc, argv, "--plain", 0);
	cudaStream_t s;
	cudaGraph_t g;
	cudaGraphExec_t ge;
	float *x;

	CHECK(cudaMalloc(&x, 1024 * sizeof(float)));
	CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	for (long i = 0; i < plain; i++)
		add_one<<<4, 256, 0, s>>>(x, 1024);
	CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
	for (long i = 0; i < k; i++)
		add_one<<<4, 256, 0, s>>>(x, 1024);
	CHECK(cudaStreamEndCapture(s, &g));
	CHECK(cudaGraphInstantiate(&ge, g, 0));
	for (long i = 0; i < m; i++)
		CHECK(cudaGraphLaunch(ge, s));
	CHECK(cudaStreamSynchronize(s));
	printf("APP graph kernels=%ld graph_launches=%ld nodes=%ld plain=%ld\n", k * m + plain, m,
	       k, plain);
	return 0;
}
