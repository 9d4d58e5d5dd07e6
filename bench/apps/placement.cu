// placement: which multiprocessors the GPU gives the blocks of kernels that run at once, for
// skip advise's workload model (docs/advise-model.md "Placement and remote reads"). Each block
// of probe_k writes its %smid, then waits @ns on the global timer, so every block holds its SM
// until the kernel's time is up. Each scenario is a CUDA graph shaped like a DAG of the suite,
// launched --reps times; per kernel it prints the SMs of the first launch (as ranges) and, over
// all launches, how many of a later kernel's SMs an earlier one of the same launch had:
//   bs     10 independent nodes of 16 blocks, 20 us each (B&S: 160 blocks on 132 SMs)
//   ml     A (64 blocks, 14 us) and B (64 blocks, 40 us) as roots, C (64 blocks, 40 us) after A
//          (ML's normalize, nb_dot and rr_dot)
//   mlt    ml with a chain of two short nodes (64 blocks, 2 us) after B, while C runs (ML's
//          naive Bayes tail beside rr_dot)
//   split  A (32 blocks, 40 us) and B (32 blocks, 3 us) as roots, then two 2 us nodes of 32
//          blocks after B, while A runs (bench/apps/neighbours --lblocks 32 --tblocks 32)
//   fj     two roots of 16 blocks (5 us), then one node after both (advise_calib's copies)
//   chain  two nodes of 64 blocks (5 us), one after the other
// Output: one line "PLACEMENT scenario kernel sms=..." per kernel (kernels A, B, ... in the
// order above), then "OVERLAP scenario later earlier shared=mean of blocks" per pair that
// shares any SM.
//   placement [--reps N]
#include "common.h"
#include <algorithm>
#include <vector>

__global__ void probe_k(int *sm, long long ns)
{
	unsigned long long t0, t;

	if (threadIdx.x == 0) {
		unsigned s;

		asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
		sm[blockIdx.x] = (int)s;
	}
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
	do
		asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	while ((long long)(t - t0) < ns);
}

struct node {
	int blocks;
	long long ns;
	int after;	 /* index of the node it follows, -1: a root */
	int after2 = -1; /* a second one, or -1 */
};

/* The scenario's graph: each node on its own captured branch, after its predecessor. */
static cudaGraphExec_t build(cudaStream_t s, const std::vector<node> &nodes, int **bufs)
{
	std::vector<cudaStream_t> br(nodes.size());
	std::vector<cudaEvent_t> done(nodes.size());
	cudaEvent_t start;
	cudaGraph_t g;
	cudaGraphExec_t e;

	CHECK(cudaEventCreateWithFlags(&start, cudaEventDisableTiming));
	CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
	CHECK(cudaEventRecord(start, s));
	for (size_t i = 0; i < nodes.size(); i++) {
		CHECK(cudaStreamCreateWithFlags(&br[i], cudaStreamNonBlocking));
		CHECK(cudaEventCreateWithFlags(&done[i], cudaEventDisableTiming));
		CHECK(cudaStreamWaitEvent(br[i], nodes[i].after < 0 ? start : done[nodes[i].after],
					  0));
		if (nodes[i].after2 >= 0)
			CHECK(cudaStreamWaitEvent(br[i], done[nodes[i].after2], 0));
		probe_k<<<nodes[i].blocks, 256, 0, br[i]>>>(bufs[i], nodes[i].ns);
		CHECK(cudaEventRecord(done[i], br[i]));
	}
	for (size_t i = 0; i < nodes.size(); i++)
		CHECK(cudaStreamWaitEvent(s, done[i], 0));
	CHECK(cudaStreamEndCapture(s, &g));
	CHECK(cudaGraphInstantiate(&e, g, 0));
	CHECK(cudaGraphDestroy(g));
	for (size_t i = 0; i < nodes.size(); i++) {
		CHECK(cudaStreamDestroy(br[i]));
		CHECK(cudaEventDestroy(done[i]));
	}
	CHECK(cudaEventDestroy(start));
	return e;
}

static void print_ranges(const char *scen, int k, std::vector<int> v)
{
	std::sort(v.begin(), v.end());
	printf("PLACEMENT %s %c sms=", scen, 'A' + k);
	for (size_t i = 0; i < v.size();) {
		size_t j = i;

		while (j + 1 < v.size() && v[j + 1] <= v[j] + 1)
			j++;
		printf(i ? ",%d" : "%d", v[i]);
		if (j > i)
			printf("-%d", v[j]);
		i = j + 1;
	}
	printf("\n");
}

static void scenario(cudaStream_t s, const char *name, const std::vector<node> &nodes, int reps)
{
	size_t n = nodes.size();
	std::vector<int *> bufs(n);
	std::vector<std::vector<double>> shared(n * n);

	for (size_t i = 0; i < n; i++)
		CHECK(cudaMalloc(&bufs[i], 1024 * sizeof(int)));
	cudaGraphExec_t e = build(s, nodes, bufs.data());
	for (int r = 0; r < reps; r++) {
		std::vector<std::vector<int>> sms(n);

		CHECK(cudaGraphLaunch(e, s));
		CHECK(cudaStreamSynchronize(s));
		for (size_t i = 0; i < n; i++) {
			sms[i].resize(nodes[i].blocks);
			CHECK(cudaMemcpy(sms[i].data(), bufs[i], nodes[i].blocks * sizeof(int),
					 cudaMemcpyDeviceToHost));
			if (r == 0)
				print_ranges(name, (int)i, sms[i]);
		}
		for (size_t i = 0; i < n; i++)
			for (size_t j = 0; j < i; j++) {
				int c = 0;

				for (int a : sms[i])
					c += std::count(sms[j].begin(), sms[j].end(), a) > 0;
				shared[i * n + j].push_back(c);
			}
	}
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < i; j++) {
			double sum = 0;

			for (double c : shared[i * n + j])
				sum += c;
			if (sum > 0)
				printf("OVERLAP %s %c %c shared=%.1f of %d\n", name,
				       (char)('A' + i), (char)('A' + j), sum / reps,
				       nodes[i].blocks);
		}
	CHECK(cudaGraphExecDestroy(e));
	for (size_t i = 0; i < n; i++)
		CHECK(cudaFree(bufs[i]));
}

int main(int argc, char **argv)
{
	int reps = (int)arg_long(argc, argv, "--reps", 20);
	cudaStream_t s;
	std::vector<node> bs;

	CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	for (int i = 0; i < 10; i++)
		bs.push_back({16, 20000, -1});
	scenario(s, "bs", bs, reps);
	scenario(s, "ml", {{64, 14000, -1}, {64, 40000, -1}, {64, 40000, 0}}, reps);
	scenario(s, "mlt",
		 {{64, 14000, -1}, {64, 40000, -1}, {64, 40000, 0}, {64, 2000, 1}, {64, 2000, 3}},
		 reps);
	scenario(s, "split", {{32, 40000, -1}, {32, 3000, -1}, {32, 2000, 1}, {32, 2000, 2}}, reps);
	scenario(s, "fj", {{16, 5000, -1}, {16, 5000, -1}, {16, 5000, 0, 1}}, reps);
	scenario(s, "chain", {{64, 5000, -1}, {64, 5000, 0}}, reps);
	printf("APP placement reps=%d\n", reps);
	CHECK(cudaStreamDestroy(s));
	return 0;
}
