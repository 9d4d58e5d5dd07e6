// neighbours: what a kernel that starts costs the kernels already running (skip advise's
// workload model, docs/advise-model.md "Kernel starts"; ML's naive Bayes tail beside rr_dot).
// Each scenario is a CUDA graph of two roots launched together, a long kernel L (--lblocks
// blocks of 256 threads, about 40 us) and a 3 us timer spin S (--tblocks blocks), then N short
// kernels in a chain after S (--tblocks blocks each), which start and end while L runs. The
// graphs of N = 0, 1, 2, 4 and 8 are launched in turn, each graph and synchronized --reps times
// (bare, timed by events around the launch); printed: the median per N, and what it adds to
// N = 0, which is nothing if the short kernels leave L alone (they end well before it).
//   L     rowdot       one warp per row of 200 floats, 10 dot products against 8 KB of
//                      weights every block reads again and again (ML's ml_rowdot)
//         math         double-precision exp/log/sqrt per thread
//         stream       y = 2x + k over 16 MB (to another 16 MB), grid-stride
//         chase        dependent loads along a random cycle of 4 MB
//         shfl         warp shuffles and adds only
//         rowdot_smem  rowdot with the weights staged in shared memory
//         rowdot_cg    rowdot with every load past the L1 cache (ld.global.cg)
//   tail  spin  a 2 us timer spin;  mem  y = x * 0.5 + 1 over 35,000 floats (the size of ML's
//         tail kernels);  empty
// With 64 blocks each, L takes one multiprocessor of 64 TPCs and the short kernels the other
// (bench/apps/placement, scenario mlt); with 32 each, different TPCs (scenario split).
// Output: "NEIGH L/blocks tail/blocks n=N total_ns=T added_ns=T-T0" per graph.
//   neighbours [--reps N] [--long K (only L kind K, 0-6)] [--lblocks B] [--tblocks B]
#include "common.h"
#include <algorithm>
#include <vector>

#define FEATS	 200
#define CLASSES	 10
#define ROWS	 3500
#define STREAM_N (1 << 22) /* floats of stream's input and output */
#define CHASE_N	 (1 << 20) /* ints of chase's cycle */
#define NL	 7	   /* kinds of L */

static int g_lblocks = 64, g_tblocks = 64; /* --lblocks, --tblocks */

/* Waits @ns of the global timer (S, and the spin tail). */
__global__ void nb_spin(long long ns)
{
	unsigned long long t0, t;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
	do
		asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	while ((long long)(t - t0) < ns);
}

__global__ void nb_empty()
{
}

/* y = x * 0.5 + 1 over n floats, grid-stride (the mem tail). */
__global__ void nb_mem(const float *x, float *y, int n)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
		y[i] = x[i] * 0.5f + 1.0f;
}

enum { ROWDOT_L1, ROWDOT_CG, ROWDOT_SMEM };

/* out[r, c] = sum_j in[r, j] * w[c, j], one warp per row, @reps passes over the rows. MODE:
 * ROWDOT_L1 reads w (8 KB, read by every block again and again) and the rows with plain loads,
 * through the L1 cache; ROWDOT_CG with every load past it (ld.global.cg); ROWDOT_SMEM stages w
 * in shared memory first. */
template <int MODE>
__global__ void nb_rowdot(const float *in, const float *w, float *out, int rows, int reps)
{
	__shared__ float ws[MODE == ROWDOT_SMEM ? CLASSES * FEATS : 1];
	int lane = threadIdx.x & 31, warps = gridDim.x * blockDim.x / 32;

	if (MODE == ROWDOT_SMEM) {
		for (int i = threadIdx.x; i < CLASSES * FEATS; i += blockDim.x)
			ws[i] = w[i];
		__syncthreads();
	}
	for (int q = 0; q < reps * rows; q += warps) {
		int r = (q + (blockIdx.x * blockDim.x + threadIdx.x) / 32) % rows;
		float acc[CLASSES];
		const float *row = in + (long)r * FEATS;

		for (int c = 0; c < CLASSES; c++)
			acc[c] = 0.0f;
		for (int j = lane; j < FEATS; j += 32) {
			float v = MODE == ROWDOT_CG ? __ldcg(row + j) : row[j];

			for (int c = 0; c < CLASSES; c++)
				acc[c] += v * (MODE == ROWDOT_SMEM ? ws[c * FEATS + j]
					       : MODE == ROWDOT_CG ? __ldcg(w + c * FEATS + j)
								   : w[c * FEATS + j]);
		}
		for (int c = 0; c < CLASSES; c++) {
			float s = acc[c];

			for (int o = 16; o; o >>= 1)
				s += __shfl_xor_sync(0xffffffffu, s, o);
			if (lane == 0)
				out[r * CLASSES + c] = s;
		}
	}
}

/* out = in * 2 + 1 over n floats, grid-stride, @reps times: streaming reads and writes. */
__global__ void nb_stream(const float *in, float *out, int n, int reps)
{
	for (int k = 0; k < reps; k++)
		for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
		     i += gridDim.x * blockDim.x)
			out[i] = in[i] * 2.0f + (float)k;
}

/* Each thread follows @reps links of a random cycle of n ints: dependent loads (from L2). */
__global__ void nb_chase(const int *next, int *out, int reps)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	for (int k = 0; k < reps; k++)
		i = next[i];
	out[blockIdx.x * blockDim.x + threadIdx.x] = i;
}

/* Warp shuffles and adds only, @reps rounds: neither memory nor long arithmetic. */
__global__ void nb_shfl(float *out, int reps)
{
	float s = (float)threadIdx.x;

	for (int k = 0; k < reps; k++)
		for (int o = 16; o; o >>= 1)
			s += __shfl_xor_sync(0xffffffffu, s, o) * 0.5f;
	out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

/* Double-precision exp, log and sqrt, @reps rounds per element: arithmetic only. */
__global__ void nb_math(const double *in, double *out, int n, int reps)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
		double x = in[i], y = 0;

		for (int r = 0; r < reps; r++)
			y += exp(-0.5 * x * x) * log(1.0 + x + r) + sqrt(x + r);
		out[i] = y;
	}
}

struct bufs {
	float *x, *w, *out, *a, *c, *b; /* a, c: STREAM_N each */
	double *d, *dout;
	int *next, *iout;
	int reps[NL]; /* per kind of L: sized to about 40 us */
};

static void launch_long(int kind, cudaStream_t t, const bufs &b)
{
	int r = b.reps[kind];

	if (kind == 0)
		nb_rowdot<ROWDOT_L1><<<g_lblocks, 256, 0, t>>>(b.x, b.w, b.out, ROWS, r);
	else if (kind == 1)
		nb_math<<<g_lblocks, 256, 0, t>>>(b.d, b.dout, g_lblocks * 256, r);
	else if (kind == 2)
		nb_stream<<<g_lblocks, 256, 0, t>>>(b.a, b.c, STREAM_N, r);
	else if (kind == 3)
		nb_chase<<<g_lblocks, 256, 0, t>>>(b.next, b.iout, r);
	else if (kind == 4)
		nb_shfl<<<g_lblocks, 256, 0, t>>>(b.out, r);
	else if (kind == 5)
		nb_rowdot<ROWDOT_SMEM><<<g_lblocks, 256, 0, t>>>(b.x, b.w, b.out, ROWS, r);
	else
		nb_rowdot<ROWDOT_CG><<<g_lblocks, 256, 0, t>>>(b.x, b.w, b.out, ROWS, r);
}

static void launch_tail(int kind, cudaStream_t t, const bufs &b)
{
	if (kind == 0)
		nb_spin<<<g_tblocks, 256, 0, t>>>(2000);
	else if (kind == 1)
		nb_mem<<<g_tblocks, 256, 0, t>>>(b.b, b.b, ROWS * CLASSES);
	else
		nb_empty<<<g_tblocks, 256, 0, t>>>();
}

static cudaGraphExec_t build(cudaStream_t s, cudaStream_t s2, int lkind, int tkind, int n,
			     const bufs &b)
{
	return two_then(
	    s, s2, true, [&](cudaStream_t t) { launch_long(lkind, t, b); },
	    [&](cudaStream_t t) {
		    nb_spin<<<g_tblocks, 256, 0, t>>>(3000);
		    for (int i = 0; i < n; i++)
			    launch_tail(tkind, t, b);
	    },
	    [](cudaStream_t) {});
}

/* Median time of each of @n graphs from an event before its launch to one after it, the
 * graphs launched in turn (the machine is noisy: interleaved). */
static void time_graphs(const cudaGraphExec_t *e, int n, cudaStream_t s, int reps, double *med)
{
	std::vector<std::vector<double>> v(n);
	cudaEvent_t a, z;

	CHECK(cudaEventCreate(&a));
	CHECK(cudaEventCreate(&z));
	for (int i = 0; i < reps + reps / 10; i++)
		for (int k = 0; k < n; k++) {
			float ms = 0;

			CHECK(cudaEventRecord(a, s));
			CHECK(cudaGraphLaunch(e[k], s));
			CHECK(cudaEventRecord(z, s));
			CHECK(cudaEventSynchronize(z));
			CHECK(cudaEventElapsedTime(&ms, a, z));
			if (i >= reps / 10)
				v[k].push_back(ms * 1e6);
		}
	for (int k = 0; k < n; k++) {
		std::sort(v[k].begin(), v[k].end());
		med[k] = v[k][v[k].size() / 2];
	}
	CHECK(cudaEventDestroy(a));
	CHECK(cudaEventDestroy(z));
}

int main(int argc, char **argv)
{
	int reps = (int)arg_long(argc, argv, "--reps", 400);
	int only = (int)arg_long(argc, argv, "--long", -1);

	g_lblocks = (int)std::min(132L, std::max(1L, arg_long(argc, argv, "--lblocks", 64)));
	g_tblocks = (int)std::min(132L, std::max(1L, arg_long(argc, argv, "--tblocks", 64)));
	if (reps < 10 || only >= NL) {
		fprintf(stderr, "neighbours: --reps must be at least 10 and --long 0 to %d\n",
			NL - 1);
		return 2;
	}
	const char *lname[] = {"rowdot", "math",	"stream",   "chase",
			       "shfl",	 "rowdot_smem", "rowdot_cg"},
		   *tname[] = {"spin", "mem", "empty"};
	const int ns[] = {0, 1, 2, 4, 8};
	cudaStream_t s, s2;
	bufs b;

	CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
	CHECK(cudaMalloc(&b.x, (size_t)ROWS * FEATS * sizeof(float)));
	CHECK(cudaMalloc(&b.w, CLASSES * FEATS * sizeof(float)));
	CHECK(cudaMalloc(&b.out, ROWS * CLASSES * sizeof(float)));
	CHECK(cudaMalloc(&b.a, STREAM_N * sizeof(float)));
	CHECK(cudaMalloc(&b.c, STREAM_N * sizeof(float)));
	CHECK(cudaMalloc(&b.next, CHASE_N * sizeof(int)));
	CHECK(cudaMalloc(&b.iout, 132 * 256 * sizeof(int)));
	{ /* one random cycle over CHASE_N ints */
		std::vector<int> perm(CHASE_N), nx(CHASE_N);

		for (int i = 0; i < CHASE_N; i++)
			perm[i] = i;
		srand(7);
		for (int i = CHASE_N - 1; i > 0; i--)
			std::swap(perm[i], perm[rand() % (i + 1)]);
		for (int i = 0; i < CHASE_N; i++)
			nx[perm[i]] = perm[(i + 1) % CHASE_N];
		CHECK(cudaMemcpy(b.next, nx.data(), CHASE_N * sizeof(int), cudaMemcpyHostToDevice));
	}
	CHECK(cudaMalloc(&b.b, ROWS * CLASSES * sizeof(float)));
	CHECK(cudaMemset(b.b, 0, ROWS * CLASSES * sizeof(float)));
	CHECK(cudaMalloc(&b.d, 132 * 256 * sizeof(double)));
	CHECK(cudaMalloc(&b.dout, 132 * 256 * sizeof(double)));
	CHECK(cudaMemset(b.x, 0, (size_t)ROWS * FEATS * sizeof(float)));
	CHECK(cudaMemset(b.a, 0, STREAM_N * sizeof(float)));
	CHECK(cudaMemset(b.w, 0, CLASSES * FEATS * sizeof(float)));
	CHECK(cudaMemset(b.d, 0, 132 * 256 * sizeof(double)));
	for (int l = 0; l < NL; l++) { /* size each long kernel to about 40 us */
		cudaEvent_t a, z;
		float ms = 0;

		b.reps[l] = 16;
		CHECK(cudaEventCreate(&a));
		CHECK(cudaEventCreate(&z));
		for (int k = 0; k < 3; k++) {
			launch_long(l, s, b);
			CHECK(cudaEventRecord(a, s));
			launch_long(l, s, b);
			CHECK(cudaEventRecord(z, s));
			CHECK(cudaEventSynchronize(z));
			CHECK(cudaEventElapsedTime(&ms, a, z));
			if (ms > 0)
				b.reps[l] = std::max(1, (int)(b.reps[l] * 0.040 / ms + 0.5));
		}
		CHECK(cudaEventDestroy(a));
		CHECK(cudaEventDestroy(z));
	}
	for (int l = 0; l < NL; l++)
		for (int t = 0; t < 3 && (only < 0 || only == l); t++) {
			cudaGraphExec_t e[5];
			double med[5];

			for (int k = 0; k < 5; k++)
				e[k] = build(s, s2, l, t, ns[k], b);
			time_graphs(e, 5, s, reps, med);
			for (int k = 0; k < 5; k++) {
				printf("NEIGH %s/%d %s/%d n=%d total_ns=%.0f added_ns=%.0f\n",
				       lname[l], g_lblocks, tname[t], g_tblocks, ns[k], med[k],
				       med[k] - med[0]);
				CHECK(cudaGraphExecDestroy(e[k]));
			}
		}
	printf("APP neighbours reps=%d\n", reps);
	for (void *p : {(void *)b.x, (void *)b.w, (void *)b.out, (void *)b.a, (void *)b.c,
			(void *)b.b, (void *)b.d, (void *)b.dout, (void *)b.next, (void *)b.iout})
		CHECK(cudaFree(p));
	CHECK(cudaStreamDestroy(s));
	CHECK(cudaStreamDestroy(s2));
	return 0;
}
