/*
 * skip_task.cuh: tasks as device functions, for the authors of workload modules.
 *
 * One macro, SKIP_TASK, turns a tile body into
 *   - an extern "C" __global__ kernel of the same name and parameters, which the executors
 *     E1-E4 launch as before (tile = blockIdx.x, ntiles = gridDim.x);
 *   - an entry of the module's task table (NAME__skip_task, a device function pointer, and
 *     NAME__skip_task_argsize), through which the persistent executor E5 runs one tile of the
 *     task inside its resident worker kernel.
 * The header also compiles the worker kernel, skip_persist_worker, into the module (the
 * scheduling protocol of runtime/persist_core.c, built as device code). So a module built this
 * way runs under every executor; a module without it runs under E1-E4, and E5 names the task
 * whose entry is missing.
 *
 *   #include "skip_task.cuh"
 *
 *   SKIP_TASK(vec_square, (const float *__restrict__, x), (float *__restrict__, y), (long, n))
 *   {
 *           SKIP_GRID_LOOP(i, n)
 *                   y[i] = x[i] * x[i];
 *   }
 *
 * Parameters are (type, name) pairs, at most 16 (a type may not contain a comma); a task
 * without parameters is SKIP_TASK0(name). The body sees `skip_t`, the tile it runs:
 *   skip_t.tile, skip_t.ntiles     this tile and the task's tile count (its grid)
 *   skip_t.thread, skip_t.nthreads this thread and the task's block size
 * A body must read its position only from skip_t (SKIP_GRID_LOOP, SKIP_WARP_LOOP), never from
 * blockIdx, gridDim, blockDim or threadIdx: under E5 a worker CTA runs many tiles of many
 * tasks, with its warp 0 running the scheduling protocol and warps 1.. the tile. Rules for
 * bodies under E5 (docs/persistent.md):
 *   - grids and blocks are one-dimensional; the block is at most SKIP_TASK_MAX_THREADS (256
 *     unless defined before the include); a worker has the largest block of the plan plus a
 *     warp, and its threads past a task's block skip that task's body;
 *   - a body synchronizes its threads with skip_tile_sync(skip_t), never __syncthreads()
 *     (which warp 0 never reaches); the lanes of a warp are the hardware's (skip_t.thread & 31);
 *   - shared memory: dynamic shared memory only, through skip_smem() (the worker is launched
 *     with the largest dynamic size of the plan);
 *   - skip_task_fail(code) makes the run stop with that error (code < 0), naming the tile;
 *     __trap() kills the context: the run ends with the tile the worker had started.
 * One translation unit per module includes this header with the worker; a program that
 * includes several modules' sources into one binary defines SKIP_TASK_NO_WORKER first.
 */
#ifndef SKIP_TASK_CUH
#define SKIP_TASK_CUH

#include <stddef.h>
#include <stdint.h>

/* The worker kernel's __launch_bounds__ minimum of resident workers per SM. The default, 0,
 * leaves the registers to the compiler, which keeps a worker small (more workers fit per SM) but
 * may spill a register-hungry body, called through the task table; a module of such bodies (a
 * tensor-core GEMM) defines 1 before including this header: a worker per SM, with the registers
 * its bodies need. */
#ifndef SKIP_TASK_MIN_WORKERS_PER_SM
#define SKIP_TASK_MIN_WORKERS_PER_SM 0
#endif
#ifndef SKIP_TASK_MAX_THREADS
#define SKIP_TASK_MAX_THREADS 256
#endif

struct skip_tile {
	unsigned tile, ntiles;	   /* this tile of the task, and its tile count */
	unsigned thread, nthreads; /* this thread of the tile, and the task's block */
	unsigned worker;	   /* 0: the kernel form; 1: a tile in E5's worker */
};

typedef void (*skip_task_fn)(const void *args, struct skip_tile skip_t);

/* The kernel form's tile: the block of the grid. */
static __device__ __forceinline__ struct skip_tile skip_tile_of_grid(void)
{
	struct skip_tile t = {blockIdx.x, gridDim.x, threadIdx.x, blockDim.x, 0};

	return t;
}

/* for (long i = ...; i < n; i += stride): every element exactly once over the task's tiles. */
#define SKIP_GRID_LOOP(i, n)                                                                       \
	for (long i = (long)skip_t.tile * skip_t.nthreads + skip_t.thread; i < (long)(n);          \
	     i += (long)skip_t.ntiles * skip_t.nthreads)

/* One warp per item: item w of n. */
#define SKIP_WARP_LOOP(w, n)                                                                       \
	for (long w = ((long)skip_t.tile * skip_t.nthreads + skip_t.thread) / 32; w < (long)(n);   \
	     w += (long)skip_t.ntiles * skip_t.nthreads / 32)

/* __syncthreads() for a tile: in E5's worker, the threads that run the tile (warp 0 runs the
 * protocol and never reaches a body's barrier, so a body must use this, not __syncthreads). */
static __device__ __forceinline__ void skip_tile_sync(const struct skip_tile skip_t)
{
	if (!skip_t.worker)
		__syncthreads();
	else
		asm volatile("barrier.sync 2, %0;" ::"r"((skip_t.nthreads + 31) / 32 * 32) : "memory");
}

/* The tile's dynamic shared memory. */
static __device__ __forceinline__ void *skip_smem(void)
{
	extern __shared__ unsigned char skip_smem_bytes[];

	return skip_smem_bytes;
}

/* ---- the parameter lists: (type, name) pairs ------------------------------------------------- */

#define SK_T_CAT_(a, b) a##b
#define SK_T_CAT(a, b)	SK_T_CAT_(a, b)
#define SK_T_N_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, n, ...) n
#define SK_T_N(...)	SK_T_N_(__VA_ARGS__, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
/* m(pair) for each pair, separated by s() */
#define SK_T_MAP(m, s, ...) SK_T_CAT(SK_T_MAP_, SK_T_N(__VA_ARGS__))(m, s, __VA_ARGS__)
#define SK_T_MAP_1(m, s, x)	 m x
#define SK_T_MAP_2(m, s, x, ...)	 m x s() SK_T_MAP_1(m, s, __VA_ARGS__)
#define SK_T_MAP_3(m, s, x, ...)	 m x s() SK_T_MAP_2(m, s, __VA_ARGS__)
#define SK_T_MAP_4(m, s, x, ...)	 m x s() SK_T_MAP_3(m, s, __VA_ARGS__)
#define SK_T_MAP_5(m, s, x, ...)	 m x s() SK_T_MAP_4(m, s, __VA_ARGS__)
#define SK_T_MAP_6(m, s, x, ...)	 m x s() SK_T_MAP_5(m, s, __VA_ARGS__)
#define SK_T_MAP_7(m, s, x, ...)	 m x s() SK_T_MAP_6(m, s, __VA_ARGS__)
#define SK_T_MAP_8(m, s, x, ...)	 m x s() SK_T_MAP_7(m, s, __VA_ARGS__)
#define SK_T_MAP_9(m, s, x, ...)	 m x s() SK_T_MAP_8(m, s, __VA_ARGS__)
#define SK_T_MAP_10(m, s, x, ...) m x s() SK_T_MAP_9(m, s, __VA_ARGS__)
#define SK_T_MAP_11(m, s, x, ...) m x s() SK_T_MAP_10(m, s, __VA_ARGS__)
#define SK_T_MAP_12(m, s, x, ...) m x s() SK_T_MAP_11(m, s, __VA_ARGS__)
#define SK_T_MAP_13(m, s, x, ...) m x s() SK_T_MAP_12(m, s, __VA_ARGS__)
#define SK_T_MAP_14(m, s, x, ...) m x s() SK_T_MAP_13(m, s, __VA_ARGS__)
#define SK_T_MAP_15(m, s, x, ...) m x s() SK_T_MAP_14(m, s, __VA_ARGS__)
#define SK_T_MAP_16(m, s, x, ...) m x s() SK_T_MAP_15(m, s, __VA_ARGS__)
#define SK_T_COMMA()		  ,
#define SK_T_NONE()
#define SK_T_PARAM(type, name) type name
#define SK_T_FIELD(type, name) type name;
#define SK_T_NAME(type, name)  name
#define SK_T_FROM(type, name)  skip_a->name

/* The task table's entry: a module with the worker only (a program that compiles the kernels
 * in for the runtime API, with SKIP_TASK_NO_WORKER, has no use for it). */
#ifdef SKIP_TASK_NO_WORKER
#define SK_T_ENTRY(name, argsize)
#else
#define SK_T_ENTRY(name, argsize)                                                                  \
	extern "C" __device__ skip_task_fn name##__skip_task = name##__skip_entry;                 \
	extern "C" __device__ unsigned name##__skip_task_argsize = argsize;
#endif

/*
 * The parameters' struct has the kernel's parameter layout (each at its natural alignment,
 * in order), which is how E5 packs a task's arguments: the runtime checks the size against
 * NAME__skip_task_argsize and, where the driver tells, each offset.
 */
#define SKIP_TASK(name, ...)                                                                       \
	struct name##__skip_args {                                                                 \
		SK_T_MAP(SK_T_FIELD, SK_T_NONE, __VA_ARGS__)                                       \
	};                                                                                         \
	static __device__ __forceinline__ void name##__skip_body(                                  \
	    const struct skip_tile skip_t, SK_T_MAP(SK_T_PARAM, SK_T_COMMA, __VA_ARGS__));         \
	extern "C" __global__ void name(SK_T_MAP(SK_T_PARAM, SK_T_COMMA, __VA_ARGS__))             \
	{                                                                                          \
		name##__skip_body(skip_tile_of_grid(),                                             \
				  SK_T_MAP(SK_T_NAME, SK_T_COMMA, __VA_ARGS__));                   \
	}                                                                                          \
	static __device__ void name##__skip_entry(const void *skip_p, struct skip_tile skip_t)     \
	{                                                                                          \
		const struct name##__skip_args *skip_a = (const struct name##__skip_args *)skip_p;  \
		name##__skip_body(skip_t, SK_T_MAP(SK_T_FROM, SK_T_COMMA, __VA_ARGS__));           \
	}                                                                                          \
	SK_T_ENTRY(name, sizeof(struct name##__skip_args))                             \
	static __device__ __forceinline__ void name##__skip_body(                                  \
	    const struct skip_tile skip_t, SK_T_MAP(SK_T_PARAM, SK_T_COMMA, __VA_ARGS__))

#define SKIP_TASK0(name)                                                                           \
	static __device__ __forceinline__ void name##__skip_body(const struct skip_tile skip_t);   \
	extern "C" __global__ void name(void)                                                      \
	{                                                                                          \
		name##__skip_body(skip_tile_of_grid());                                            \
	}                                                                                          \
	static __device__ void name##__skip_entry(const void *skip_p, struct skip_tile skip_t)     \
	{                                                                                          \
		(void)skip_p;                                                                      \
		name##__skip_body(skip_t);                                                         \
	}                                                                                          \
	SK_T_ENTRY(name, 0)                                                            \
	static __device__ __forceinline__ void name##__skip_body(const struct skip_tile skip_t)

/* ---- the worker kernel ----------------------------------------------------------------------- */

/* The current tile's order from the protocol thread to the CTA, and a body's error. */
static __shared__ int sk_cmd_task, sk_cmd_tile, sk_cmd_err;

/* Stop the run with @code (< 0) once this tile ends; the tile still completes. */
static __device__ __forceinline__ void skip_task_fail(int code)
{
	sk_cmd_err = code;
}

#ifndef SKIP_TASK_NO_WORKER

struct sk_persist;
struct sk_persist_gpu_task;
static __device__ int sk_gpu_body(struct sk_persist *rt, int t, int k, uint64_t e, int w,
				  const struct sk_persist_gpu_task *gt);
#define SK_PERSIST_BODY(rt, t, k, e, w, gt) sk_gpu_body(rt, t, k, e, w, gt)
#include "persist_core.c"

/* The layouts the worker was compiled with; the runtime checks them against its own. */
extern "C" __device__ unsigned skip_persist_abi[4] = {
    sizeof(struct sk_persist), sizeof(struct sk_persist_words), sizeof(struct sk_persist_plan),
    sizeof(struct sk_persist_step)};

/* Every thread of the CTA, including the protocol thread: a named barrier that threads in
 * different branches may reach (the non-.aligned form). */
static __device__ __forceinline__ void sk_cta_bar(void)
{
	asm volatile("barrier.sync 1;" ::: "memory");
}

/* The tile the protocol thread hands the CTA: the task's entry. */
static __shared__ struct sk_persist_gpu_task sk_cmd_gt;

/* Warps 1.. run the tile, as threads 0.. of it; warp 0 is the protocol's. */
static __device__ __forceinline__ void sk_gpu_tile(int k)
{
	const struct sk_persist_gpu_task g = sk_cmd_gt;
	unsigned tid = threadIdx.x - SK_PERSIST_PROTOCOL_THREADS;

	if (threadIdx.x >= SK_PERSIST_PROTOCOL_THREADS && tid < g.nthreads) {
		struct skip_tile tile = {(unsigned)k, g.ntiles, tid, g.nthreads, 1};

		((skip_task_fn)g.fn)(g.args, tile);
	}
}

/* The protocol thread's body call: the CTA runs tile @k of @t, and the error it raised. The
 * last tile each worker started goes to host memory first, for the message after a trap. */
static __device__ int sk_gpu_body(struct sk_persist *rt, int t, int k, uint64_t e, int w,
				  const struct sk_persist_gpu_task *gt)
{
	int err;

	if (rt->started) {
		volatile struct sk_persist_started *s = &rt->started[w];

		s->task = t;
		s->tile = k;
		s->epoch = e;
		s->running = 1;
	}
	sk_cmd_gt = gt ? *gt : rt->gtask[t];
	sk_cmd_task = t;
	sk_cmd_tile = k;
	sk_cta_bar(); /* the other warps run the tile */
	sk_cta_bar();
	if (rt->started)
		((volatile struct sk_persist_started *)&rt->started[w])->running = 0;
	err = sk_cmd_err;
	sk_cmd_err = 0;
	return err;
}

static_assert(offsetof(struct sk_persist, diag) % 8 == 0 && sizeof(struct sk_persist_plan) % 8 == 0,
	      "the worker copies the state in 8-byte words");

/* @n bytes (a multiple of 8) from @src to @dst, a share for each thread of the CTA. */
static __device__ __forceinline__ void sk_gpu_copy(void *dst, const void *src, size_t n)
{
	for (size_t i = threadIdx.x; i < n / 8; i += blockDim.x)
		((uint64_t *)dst)[i] = ((const uint64_t *)src)[i];
}

/*
 * One CTA per worker, all co-resident (a cooperative launch). Thread 0 runs the protocol
 * (persist_core.c) and, at each tile, calls the whole CTA in through sk_gpu_body(); the other
 * threads wait for those calls and leave on task -1. @first_epoch and @niters are this launch's.
 * @dispatcher: the CTA that is the co-pilot's dispatcher (sk_persist_dispatch(), thread 0
 * alone), or -1. @rt is in device memory and not written (its shared words are behind rt->sw).
 */
extern "C" __global__ void __launch_bounds__(SKIP_TASK_MAX_THREADS + SK_PERSIST_PROTOCOL_THREADS,
					    SKIP_TASK_MIN_WORKERS_PER_SM)
    skip_persist_worker(struct sk_persist *rt, uint64_t first_epoch, int niters, int dispatcher)
{
	/* The state and the plan the protocol reads, copied to shared memory once: the shared
	 * words stay where they are (rt->sw), everything read-only is read from here, beyond
	 * the reach of the L1 invalidation that each acquire load makes. */
	__shared__ struct sk_persist srt;
	__shared__ struct sk_persist_plan sp;

	if ((int)blockIdx.x == dispatcher && threadIdx.x)
		return; /* the co-pilot's dispatcher: thread 0 alone */
	if ((int)blockIdx.x == dispatcher) {
		srt = *rt;
		sp = *rt->p;
	} else { /* a worker: every thread copies a share (not the host's message) */
		sk_gpu_copy(&srt, rt, offsetof(struct sk_persist, diag));
		sk_gpu_copy(&sp, rt->p, sizeof(sp));
		__syncthreads();
	}
	if (threadIdx.x == 0) {
		sk_cmd_err = 0;
		srt.p = &sp;
		srt.first_epoch = first_epoch;
		srt.last_epoch = first_epoch + (uint64_t)niters - 1;
		if ((int)blockIdx.x == dispatcher) {
			sk_persist_dispatch(&srt);
			return;
		}
		if (blockIdx.x == 0 && sp.o.mode == SK_PERSIST_JIT)
			sk_persist_jit_start(&srt);
		sk_persist_work(&srt, (int)blockIdx.x);
		sk_cmd_task = -1;
		sk_cta_bar();
		return;
	}
	for (;;) {
		sk_cta_bar();
		if (sk_cmd_task < 0)
			return;
		sk_gpu_tile(sk_cmd_tile);
		sk_cta_bar();
	}
}

#endif /* SKIP_TASK_NO_WORKER */
#endif /* SKIP_TASK_CUH */
