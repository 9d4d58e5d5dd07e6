/*
 * gemm_pair.cu: a tiled bf16 GEMM with fp32 accumulation on the tensor cores, written as a
 * task (runtime/skip_task.cuh), for the MLP pair of bench/gemm_pair (cuSync's producer and
 * consumer GEMMs):
 *
 *   gemm_bf16(A, B, C, M, N, K, act):  C[M x N] = act(A[M x K] * B[K x N])
 *
 * all row-major bf16, act 0 (none) or 1 (GeLU, tanh form, on the fp32 sum before rounding).
 *
 * One tile is one BM x BN = 128 x 128 block of C, and tiles are numbered row-major:
 * tile = rowblock * (N / 128) + colblock, so that the row policy of tile edges (a consumer
 * tile of row block r waits on the producer tiles of row block r) holds. The grid must be the
 * tile count, (M / 128) * (N / 128); a tile past it does nothing. M and N must be multiples of
 * 128, K of 32, and the block 256 threads (8 warps); otherwise the task does nothing (under E5
 * it fails with SKIP_E_INVAL, naming the tile).
 *
 * The tile: 8 warps in 2 (rows) x 4 (columns), each a 64 x 32 block of C as 4 x 2 wmma
 * fragments of 16 x 16 x 16 (bf16 in, fp32 accumulators). The K loop goes through shared
 * memory in steps of 32, four stages deep: each thread copies two 16-byte pieces of A and two
 * of B per step with cp.async, three steps ahead of the one the warps multiply. Rows of the
 * staged A and B are padded by 16 bytes, so that the fragment loads of a warp spread over the
 * banks. After the K loop the accumulators go through shared memory (fp32, over the stages),
 * and each thread writes 8 chunks of 8 bf16 (16 bytes) of C: a row of the tile is 16
 * consecutive threads' chunks.
 *
 * Shared memory: GEMM_PAIR_SMEM bytes of dynamic shared memory (the workload's "shared"),
 * taken through skip_smem() and aligned to 128 bytes inside it. Thread numbering, the tile and
 * the barrier come from skip_t, so the same body is the kernel E1-E4 launch and a tile of E5.
 */
#include <cuda_bf16.h>
#include <mma.h>
#include <stdint.h>

/* the GEMM needs its registers: one worker per SM (skip_task.cuh) */
#define SKIP_TASK_MIN_WORKERS_PER_SM 1
#include "skip_task.cuh"

#define GP_BM	   128
#define GP_BN	   128
#define GP_BK	   32
#define GP_STAGES  4
#define GP_THREADS 256
#define GP_LDA	   (GP_BK + 8) /* bf16 elements per staged row of A (80 bytes) */
#define GP_LDB	   (GP_BN + 8) /* of B (272 bytes) */
#define GP_LDC	   (GP_BN + 4) /* floats per staged row of C */
#define GP_A_STAGE (GP_BM * GP_LDA)
#define GP_B_STAGE (GP_BK * GP_LDB)
#define GP_PIPE	   (GP_STAGES * (GP_A_STAGE + GP_B_STAGE) * 2) /* bytes */
/* The dynamic shared memory a task asks for: the stages, and room to align them. */
#define GEMM_PAIR_SMEM (GP_PIPE + 128)

static_assert(GP_BM * GP_LDC * 4 <= GP_PIPE, "the staged C fits over the pipeline");
static_assert(GEMM_PAIR_SMEM == 75904, "bench/gemm_pair/*.json give this as \"shared\"");

using namespace nvcuda;

/* GeLU, tanh form (Hendrycks and Gimpel, arXiv 1606.08415). */
static __device__ __forceinline__ float gp_gelu(float x)
{
	return 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
}

static __device__ __forceinline__ void gp_cp16(void *smem, const void *gmem)
{
	unsigned s = (unsigned)__cvta_generic_to_shared(smem);

	asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(s), "l"(gmem) : "memory");
}

static __device__ __forceinline__ void gp_commit(void)
{
	asm volatile("cp.async.commit_group;" ::: "memory");
}

/* Wait until at most @n of this thread's groups are still in flight. */
template <int n> static __device__ __forceinline__ void gp_wait(void)
{
	asm volatile("cp.async.wait_group %0;" ::"n"(n) : "memory");
}

/* Copy step @kt of the K loop (A's columns and B's rows kt*32..+32) into stage @s. */
static __device__ __forceinline__ void gp_load(__nv_bfloat16 *sa, __nv_bfloat16 *sb,
					       const __nv_bfloat16 *__restrict__ A,
					       const __nv_bfloat16 *__restrict__ B, int N, int K,
					       int m0, int n0, int kt, int s, unsigned tid)
{
	int k0 = kt * GP_BK;

#pragma unroll
	for (int i = 0; i < 2; i++) {
		int c = (int)tid + i * GP_THREADS;
		int ar = c / (GP_BK / 8), ac = c % (GP_BK / 8) * 8; /* 4 chunks per row of A */
		int br = c / (GP_BN / 8), bc = c % (GP_BN / 8) * 8; /* 16 per row of B */

		gp_cp16(sa + s * GP_A_STAGE + ar * GP_LDA + ac, A + (long)(m0 + ar) * K + k0 + ac);
		gp_cp16(sb + s * GP_B_STAGE + br * GP_LDB + bc, B + (long)(k0 + br) * N + n0 + bc);
	}
}

SKIP_TASK(gemm_bf16, (const __nv_bfloat16 *__restrict__, A), (const __nv_bfloat16 *__restrict__, B),
	  (__nv_bfloat16 *__restrict__, C), (int, M), (int, N), (int, K), (int, act))
{
	const unsigned tid = skip_t.thread, warp = tid / 32;
	const int wm = (int)warp / 4, wn = (int)warp % 4; /* the warp's 64 x 32 block */
	const int ncol = N / GP_BN, ktiles = K / GP_BK;
	unsigned char *base = (unsigned char *)skip_smem();
	__nv_bfloat16 *sa, *sb;
	float *sc;
	int m0, n0;

	if (M % GP_BM || N % GP_BN || K % GP_BK || M <= 0 || N <= 0 || K <= 0 ||
	    skip_t.nthreads != GP_THREADS) {
		if (tid == 0)
			skip_task_fail(-1002); /* SKIP_E_INVAL */
		return;
	}
	if (skip_t.tile >= (unsigned)(M / GP_BM * ncol))
		return;
	m0 = (int)skip_t.tile / ncol * GP_BM;
	n0 = (int)skip_t.tile % ncol * GP_BN;
	base += (128 - (uintptr_t)base % 128) % 128;
	sa = (__nv_bfloat16 *)base;
	sb = sa + GP_STAGES * GP_A_STAGE;
	sc = (float *)base;

	wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[4][2];

#pragma unroll
	for (int i = 0; i < 4; i++)
#pragma unroll
		for (int j = 0; j < 2; j++)
			wmma::fill_fragment(acc[i][j], 0.0f);

#pragma unroll
	for (int s = 0; s < GP_STAGES - 1; s++) {
		if (s < ktiles)
			gp_load(sa, sb, A, B, N, K, m0, n0, s, s, tid);
		gp_commit();
	}
	for (int kt = 0; kt < ktiles; kt++) {
		const int s = kt % GP_STAGES, next = kt + GP_STAGES - 1;

		gp_wait<GP_STAGES - 2>(); /* this thread's copies of step kt are in */
		skip_tile_sync(skip_t);	  /* everyone's are, and step kt-1's stage is free */
		if (next < ktiles)
			gp_load(sa, sb, A, B, N, K, m0, n0, next, next % GP_STAGES, tid);
		gp_commit(); /* an empty group past the end keeps the count */

		const __nv_bfloat16 *a = sa + s * GP_A_STAGE + wm * 64 * GP_LDA;
		const __nv_bfloat16 *b = sb + s * GP_B_STAGE + wn * 32;

#pragma unroll
		for (int kk = 0; kk < GP_BK; kk += 16) {
			wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major>
			    fb[2];

#pragma unroll
			for (int j = 0; j < 2; j++)
				wmma::load_matrix_sync(fb[j], b + kk * GP_LDB + j * 16, GP_LDB);
#pragma unroll
			for (int i = 0; i < 4; i++) {
				wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16,
					       wmma::row_major>
				    fa;

				wmma::load_matrix_sync(fa, a + i * 16 * GP_LDA + kk, GP_LDA);
#pragma unroll
				for (int j = 0; j < 2; j++)
					wmma::mma_sync(acc[i][j], fa, fb[j], acc[i][j]);
			}
		}
	}
	gp_wait<0>();
	skip_tile_sync(skip_t); /* every warp is done with the stages: C goes over them */

#pragma unroll
	for (int i = 0; i < 4; i++)
#pragma unroll
		for (int j = 0; j < 2; j++)
			wmma::store_matrix_sync(sc + (wm * 64 + i * 16) * GP_LDC + wn * 32 + j * 16,
						acc[i][j], GP_LDC, wmma::mem_row_major);
	skip_tile_sync(skip_t);

#pragma unroll 2
	for (int c = (int)tid; c < GP_BM * GP_BN / 8; c += GP_THREADS) {
		const int r = c / (GP_BN / 8), col = c % (GP_BN / 8) * 8;
		const float *src = sc + r * GP_LDC + col;
		__align__(16) __nv_bfloat162 out[4];

#pragma unroll
		for (int e = 0; e < 4; e++) {
			float x = src[2 * e], y = src[2 * e + 1];

			if (act) {
				x = gp_gelu(x);
				y = gp_gelu(y);
			}
			out[e] = __floats2bfloat162_rn(x, y);
		}
		*(uint4 *)(C + (long)(m0 + r) * N + n0 + col) = *(const uint4 *)out;
	}
}
