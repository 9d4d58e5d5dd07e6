/*
 * skip_task.cuh: tasks as device functions, for the authors of workload modules.
 *
 * One macro, SKIP_TASK, turns a tile body into
 *   - an extern "C" __global__ kernel of the same name and parameters, which the executors
 *     E1-E4 launch as before (tile = blockIdx.x, ntiles = gridDim.x);
 *   - an entry of the module's task table (NAME__skip_task, a device function pointer, and
 *     NAME__skip_task_argsize), through which the persistent executor E5 runs one tile of the
 *     task inside its resident worker kernel.
 * The header also compiles the worker kernels, skip_persist_worker (AOT) and
 * skip_persist_worker_ring (JIT, co-pilot), into the module (the scheduling protocol of
 * runtime/persist_core.c, built as device code). So a module built this
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
 *   - a loop that stores in each iteration loads ahead with skip_grid_batched() (below):
 *     through the task table the compiler may not move a load above a store;
 *   - skip_task_fail(code) makes the run stop with that error (code < 0), naming the tile;
 *     __trap() kills the context: the run ends with the tile the worker had started.
 * One translation unit per module includes this header with the worker; a program that
 * includes several modules' sources into one binary defines SKIP_TASK_NO_WORKER first.
 */
#ifndef SKIP_TASK_CUH
#define SKIP_TASK_CUH

#include <stddef.h>
#include <stdint.h>

#ifndef SKIP_TASK_MAX_THREADS
#define SKIP_TASK_MAX_THREADS 256
#endif
/* The AOT worker kernel's __launch_bounds__ minimum of resident workers per SM, which sets the
 * registers of every body it calls through the task table. The default, 2 (1 for blocks above
 * 256 threads), gives them up to 112 registers (91-96 with the bundled modules) and still lets
 * two workers share an SM; left to the compiler (0), the worker took 56 and ML's row dot product
 * spilled in its loop. A module of bodies that need more (a tensor-core GEMM) defines 1 before
 * including this header: a worker per SM, with the registers its bodies need. */
#ifndef SKIP_TASK_MIN_WORKERS_PER_SM
#define SKIP_TASK_MIN_WORKERS_PER_SM (SKIP_TASK_MAX_THREADS <= 256 ? 2 : 1)
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

/*
 * SKIP_GRID_LOOP for a body that stores in each iteration, with its loads batched: each thread
 * takes B of its elements at a time, calls load(i) on all B (what load returns is held in
 * registers), then store(i, value) on each. Called through the task table, a body's pointers
 * lose __restrict__ and PTX has no other way to say two pointers do not alias, so the compiler
 * keeps every load after the store before it: a plain loop of load-then-store then waits a
 * memory latency per element under E5, where the kernel form batches its loads
 * (docs/persistent.md, "Bodies that store in a loop"). load(i) may read what store(i) writes,
 * never what another element's store writes. Both are usually lambdas that capture the body's
 * parameters by reference:
 *
 *   skip_grid_batched<4>(skip_t, n, [&](long i) { return x[i]; },
 *                        [&](long i, float v) { y[i] = v * v; });
 */
template <int B, class Load, class Store>
static __device__ __forceinline__ void skip_grid_batched(const struct skip_tile skip_t, long n,
							 Load load, Store store)
{
	const long step = (long)skip_t.ntiles * skip_t.nthreads;
	long i = (long)skip_t.tile * skip_t.nthreads + skip_t.thread;

	for (; i + (B - 1) * step < n; i += B * step) {
		decltype(load(i)) v[B];

#pragma unroll
		for (int b = 0; b < B; b++)
			v[b] = load(i + b * step);
#pragma unroll
		for (int b = 0; b < B; b++)
			store(i + b * step, v[b]);
	}
#pragma unroll 1
	for (; i < n; i += step)
		store(i, load(i));
}

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

/* A body's error (the tile's), read once the tile has ended. */
static __shared__ int sk_cmd_err;

/* Stop the run with @code (< 0) once this tile ends; the tile still completes. */
static __device__ __forceinline__ void skip_task_fail(int code)
{
	sk_cmd_err = code;
}

#ifndef SKIP_TASK_NO_WORKER

struct sk_persist;
struct sk_persist_step;
struct sk_persist_gpu_task;
static __device__ __forceinline__ void
sk_gpu_issue(struct sk_persist *rt, const struct sk_persist_step *s, uint64_t e, int w);
static __device__ __forceinline__ void sk_gpu_go(void);
static __device__ __forceinline__ void sk_gpu_idle(void);
static __device__ __forceinline__ int sk_gpu_ended(void);
static __device__ __forceinline__ void sk_gpu_flush(void);
static __device__ __forceinline__ int sk_gpu_body(struct sk_persist *rt, int t, int k, int g,
						  uint64_t e, int w,
						  const struct sk_persist_gpu_task *gt);
#define SK_PERSIST_ISSUE(rt, s, e, w)	       sk_gpu_issue(rt, s, e, w)
#define SK_PERSIST_GO(rt)		       sk_gpu_go()
#define SK_PERSIST_ENDED(rt)		       sk_gpu_ended()
#define SK_PERSIST_FLUSH(rt)		       sk_gpu_flush()
#define SK_PERSIST_BODY(rt, t, k, g, e, w, gt) sk_gpu_body(rt, t, k, g, e, w, gt)
#include "persist_core.c"

/* The layouts the worker was compiled with; the runtime checks them against its own. */
extern "C" __device__ unsigned skip_persist_abi[4] = {
    sizeof(struct sk_persist), sizeof(struct sk_persist_words), sizeof(struct sk_persist_plan),
    sizeof(struct sk_persist_step)};

/*
 * The protocol thread's orders to the CTA, one per barrier 1 (which every thread reaches), in
 * two slots used in turn: order n is read from slot n % 2 after the barrier that hands it over
 * and is done with before the next, so the protocol thread fills slot n % 2 again only after
 * the barrier of order n + 1. A tile order of AOT is asynchronous: warps 1.. run it, meet at
 * barrier 3, and the first of them (the publisher) publishes it, while the protocol thread
 * goes on to the next step; JIT's and the co-pilot's are synchronous (barrier 1 again after
 * the tile: the protocol thread publishes).
 */
enum { SK_CMD_TILE, SK_CMD_SYNC, SK_CMD_FLUSH, SK_CMD_EXIT };
struct sk_cmd {
	struct sk_persist_gpu_task gt; /* the task's entry */
	uint64_t e;		       /* the epoch */
	int kind;		       /* SK_CMD_* */
	int task, tile, g, w;	       /* the tile (g: in the plan), the worker */
	unsigned flags;		       /* AOT: the step's SK_STEP_PUB_* */
};
static __shared__ struct sk_cmd sk_cmds[2];
static __shared__ unsigned sk_cmd_n;	 /* orders handed over (the protocol thread's) */
static __shared__ unsigned sk_cmd_ended; /* AOT: orders whose tile has ended (atomics only) */

/* Every thread of the CTA, including the protocol thread: a named barrier that threads in
 * different branches may reach (the non-.aligned form). */
static __device__ __forceinline__ void sk_cta_bar(void)
{
	asm volatile("barrier.sync 1;" ::: "memory");
}

/* The tile threads (warps 1..) only: every one of them has finished the tile. */
static __device__ __forceinline__ void sk_tile_bar(void)
{
	asm volatile(
	    "barrier.sync 3, %0;" ::"r"((blockDim.x + 31) / 32 * 32 - SK_PERSIST_PROTOCOL_THREADS)
	    : "memory");
}

/* The protocol thread's next order, to fill before sk_gpu_go() hands it over. */
static __device__ __forceinline__ struct sk_cmd *sk_gpu_next(void)
{
	return &sk_cmds[sk_cmd_n & 1];
}

static __device__ __forceinline__ void sk_gpu_go(void)
{
	sk_cmd_n++;
	sk_cta_bar();
}

/* AOT: every order handed over has been read and its tile has ended (its publication may
 * still be under way). Read-modify-writes, which compute-sanitizer's racecheck knows to be
 * atomic (it takes a relaxed load and store for a race). */
static __device__ __forceinline__ int sk_gpu_ended(void)
{
	return atomicAdd(&sk_cmd_ended, 0u) == sk_cmd_n;
}

/* AOT: until sk_gpu_ended(). */
static __device__ __forceinline__ void sk_gpu_idle(void)
{
	while (!sk_gpu_ended())
		;
}

/* AOT: tile s of epoch @e on worker @w, filled before the step's waits (it depends on none). */
static __device__ __forceinline__ void
sk_gpu_issue(struct sk_persist *rt, const struct sk_persist_step *s, uint64_t e, int w)
{
	struct sk_cmd *c = sk_gpu_next();

	(void)rt;
	c->gt = s->gt;
	c->e = e;
	c->kind = SK_CMD_TILE;
	c->task = s->task;
	c->tile = s->tile;
	c->g = s->g;
	c->w = w;
	c->flags = s->flags;
}

/* AOT: the publisher adds the tiles that published nothing to the epoch's count. */
static __device__ __forceinline__ void sk_gpu_flush(void)
{
	sk_gpu_idle();
	sk_gpu_next()->kind = SK_CMD_FLUSH;
	sk_gpu_go();
}

/* JIT and the co-pilot: the CTA runs tile @k of @t (@g in the plan); the error it raised. */
static __device__ __forceinline__ int sk_gpu_body(struct sk_persist *rt, int t, int k, int g,
						  uint64_t e, int w,
						  const struct sk_persist_gpu_task *gt)
{
	struct sk_cmd *c = sk_gpu_next();
	int err;

	c->gt = gt ? *gt : rt->gtask[t];
	c->e = e;
	c->kind = SK_CMD_SYNC;
	c->task = t;
	c->tile = k;
	c->g = g;
	c->w = w;
	sk_gpu_go(); /* the other warps run the tile */
	sk_cta_bar();
	err = sk_cmd_err;
	sk_cmd_err = 0;
	return err;
}

/*
 * Warps 1.. run tile order @c, as threads 0.. of it (warp 0 is the protocol's). The first of
 * them records it in host memory while it runs (epoch, task and tile in one store, then
 * running), for the message after a trap.
 */
static __device__ __forceinline__ void sk_gpu_tile(struct sk_persist *rt, const struct sk_cmd *c)
{
	unsigned tid = threadIdx.x - SK_PERSIST_PROTOCOL_THREADS;
	struct sk_persist_started *st = rt->started ? &rt->started[c->w] : NULL;

	if (threadIdx.x < SK_PERSIST_PROTOCOL_THREADS)
		return;
	if (tid == 0 && st) {
		asm volatile("st.volatile.global.v2.u64 [%0], {%1, %2};" ::"l"(st), "l"(c->e),
			     "l"((uint64_t)(unsigned)c->task | (uint64_t)(unsigned)c->tile << 32)
			     : "memory");
		((volatile struct sk_persist_started *)st)->running = 1;
	}
	if (tid == 0 && rt->tile_times) { /* the timeline: its end in sk_gpu_tile_end() */
		uint64_t now;

		asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
		rt->tile_times[3 * c->g] = now;
		rt->tile_times[3 * c->g + 2] = (uint64_t)c->w;
	}
	if (tid < c->gt.nthreads) {
		struct skip_tile tile = {(unsigned)c->tile, c->gt.ntiles, tid, c->gt.nthreads, 1};

		((skip_task_fn)c->gt.fn)(c->gt.args, tile);
	}
	if (tid == 0 && st)
		((volatile struct sk_persist_started *)st)->running = 0;
}

/* The tile timeline (rt->tile_times): order @c's tile has ended, seen by the first tile
 * thread after every tile thread has finished it (AOT's publisher; under JIT and the co-pilot
 * after a barrier of the tile threads that only a recording run makes). */
static __device__ __forceinline__ void sk_gpu_tile_end(struct sk_persist *rt, const struct sk_cmd *c)
{
	uint64_t now;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
	rt->tile_times[3 * c->g + 1] = now;
}

/*
 * AOT, the publisher, once every tile thread has finished order @c: its tile_done and its
 * task's counter where another worker waits on them, with the epoch's count (and the tiles
 * before it that published nothing, *@pending), after one release fence (sk_publish); else
 * it only counts for the watchdog until then. A body's error stops the run instead.
 */
static __device__ __forceinline__ void sk_gpu_publish(struct sk_persist *rt, const struct sk_cmd *c,
						      uint64_t *pending, unsigned n)
{
	const struct sk_cmd o = *c;
	int err = sk_cmd_err;

	sk_cmd_err = 0;
	/* the order and the body's error are read: the protocol thread may go on */
	atomicExch(&sk_cmd_ended, n + 1);
	c = &o;
	if (rt->tile_times && c->kind == SK_CMD_TILE)
		sk_gpu_tile_end(rt, c);
	if (c->kind == SK_CMD_FLUSH) {
		if (*pending)
			sk_publish(NULL, 0, NULL, &rt->sw->tiles_done, *pending);
		*pending = 0;
		return;
	}
	if (err) {
		struct sk_persist_why why = {};

		why.kind = SK_WHY_BODY;
		why.task = c->task;
		why.tile = c->tile;
		why.epoch = c->e;
		why.worker = c->w;
		sk_persist_stop(rt, err, &why);
		return;
	}
	if (!(c->flags & (SK_STEP_PUB_TILE | SK_STEP_PUB_CTR))) {
		++*pending;
		sk_add_relaxed(&rt->sw->progress, 1);
		return;
	}
	sk_publish(c->flags & SK_STEP_PUB_TILE ? &rt->tile_done[c->g] : NULL, c->e,
		   c->flags & SK_STEP_PUB_CTR ? &rt->ctr[c->task].done : NULL, &rt->sw->tiles_done,
		   1 + *pending);
	*pending = 0;
}

static_assert(offsetof(struct sk_persist_started, task) == 8 &&
		  offsetof(struct sk_persist_started, tile) == 12 &&
		  sizeof(struct sk_persist_started) % 16 == 0,
	      "a started record's epoch, task and tile are one 16-byte store");
static_assert(offsetof(struct sk_persist, diag) % 8 == 0 && sizeof(struct sk_persist_plan) % 8 == 0,
	      "the worker copies the state in 8-byte words");

/*
 * AOT: this CTA's worker number, by SM. A cooperative launch puts two CTAs on an SM in
 * blockIdx order from the first SMs on (on the H100, CTAs 0 and 8 share one), but AOT's
 * placement fills the lowest worker numbers first: so the first CTA on each SM takes the next
 * number from 0 up, in the order the CTAs start, a second one from @nworkers - 1 down, and a
 * plan that needs no more tiles at once than there are SMs runs them on SMs of their own. With
 * a worker per SM the order alone pays: a dependent chain of two-tile tasks waits 1.40 us a task
 * across workers numbered so, 1.77 numbered by blockIdx (H100; docs/persistent.md). A
 * permutation of 0 .. nworkers - 1 (the counters are zeroed before each launch).
 */
static __device__ __forceinline__ int sk_gpu_worker_by_sm(struct sk_persist_words *sw,
							  int nworkers)
{
	unsigned smid;

	asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
	if (atomicAdd(&sw->sm_ctas[smid % SK_PERSIST_MAX_SMS], 1u) == 0)
		return (int)atomicAdd(&sw->n_first, 1u);
	return nworkers - 1 - (int)atomicAdd(&sw->n_second, 1u);
}

/* @n bytes (a multiple of 8) from @src to @dst, a share for each thread of the CTA. */
static __device__ __forceinline__ void sk_gpu_copy(void *dst, const void *src, size_t n)
{
	for (size_t i = threadIdx.x; i < n / 8; i += blockDim.x)
		((uint64_t *)dst)[i] = ((const uint64_t *)src)[i];
}

/*
 * One CTA per worker, all co-resident (a cooperative launch). Thread 0 runs the protocol
 * (persist_core.c) and hands each tile to the other threads as an order (struct sk_cmd); they
 * run it (and under AOT publish it) and leave on SK_CMD_EXIT. Two kernels, so that each mode's
 * protocol gets the registers (and the stack) it needs alone: skip_persist_worker runs AOT,
 * skip_persist_worker_ring JIT and the co-pilot. @first_epoch and @niters are this launch's;
 * niters 0 (AOT only): resident, serving the host's bells from @first_epoch on.
 * @dispatcher: the CTA that is the co-pilot's dispatcher (sk_persist_dispatch(), warp 0
 * alone), or -1. @rt is in device memory and not written (its shared words are behind rt->sw).
 */
template <int RING>
static __device__ __forceinline__ void sk_worker(struct sk_persist *rt, uint64_t first_epoch,
						 int niters, int dispatcher)
{
	/* The state and the plan the protocol reads, copied to shared memory once: the shared
	 * words stay where they are (rt->sw), everything read-only is read from here, beyond
	 * the reach of the L1 invalidation that each acquire load makes. */
	__shared__ struct sk_persist srt;
	__shared__ struct sk_persist_plan sp;

	if (RING && (int)blockIdx.x == dispatcher && threadIdx.x >= 32)
		return; /* the co-pilot's dispatcher: warp 0 alone */
	if (RING && (int)blockIdx.x == dispatcher) {
		if (threadIdx.x == 0) {
			srt = *rt;
			sp = *rt->p;
			srt.p = &sp;
			srt.first_epoch = first_epoch;
			srt.last_epoch = first_epoch + (uint64_t)niters - 1;
		}
		__syncwarp();
		sk_persist_dispatch(&srt);
		return;
	}
	/* a worker: every thread copies a share (not the host's message) */
	sk_gpu_copy(&srt, rt, offsetof(struct sk_persist, diag));
	sk_gpu_copy(&sp, rt->p, sizeof(sp));
	__syncthreads();
	if (threadIdx.x == 0) {
		sk_cmd_err = 0;
		sk_cmd_n = 0;
		sk_cmd_ended = 0;
		srt.p = &sp;
		srt.first_epoch = first_epoch;
		srt.last_epoch = first_epoch + (uint64_t)niters - 1;
		if (RING) {
			if (blockIdx.x == 0 && sp.o.mode == SK_PERSIST_JIT)
				sk_persist_jit_start(&srt);
			work_ring(&srt, (int)blockIdx.x);
		} else {
			int w = srt.sm_order ? sk_gpu_worker_by_sm(srt.sw, sp.o.nworkers)
					     : (int)blockIdx.x;

			if (!niters)
				sk_persist_resident(&srt, w, first_epoch);
			else
				work_aot(&srt, w);
		}
		if (!RING) /* JIT's and the co-pilot's orders are synchronous */
			sk_gpu_idle();
		sk_gpu_next()->kind = SK_CMD_EXIT;
		sk_gpu_go();
		return;
	}
	/* the other threads: the orders, in turn (see struct sk_cmd) */
	uint64_t pending = 0; /* the publisher's: tiles run and not yet in tiles_done */

	for (unsigned n = 0;; n++) {
		const struct sk_cmd *c = &sk_cmds[n & 1];

		sk_cta_bar();
		if (c->kind == SK_CMD_EXIT)
			return;
		if (c->kind != SK_CMD_FLUSH)
			sk_gpu_tile(&srt, c);
		if (RING) {
			if (srt.tile_times && c->kind == SK_CMD_SYNC &&
			    threadIdx.x >= SK_PERSIST_PROTOCOL_THREADS) {
				sk_tile_bar();
				if (threadIdx.x == SK_PERSIST_PROTOCOL_THREADS)
					sk_gpu_tile_end(&srt, c);
			}
			sk_cta_bar();
			continue;
		}
		if (threadIdx.x < SK_PERSIST_PROTOCOL_THREADS)
			continue;
		sk_tile_bar();
		if (threadIdx.x == SK_PERSIST_PROTOCOL_THREADS)
			sk_gpu_publish(&srt, c, &pending, n);
	}
}

/* AOT's registers as SKIP_TASK_MIN_WORKERS_PER_SM says; JIT's and the co-pilot's protocol
 * keeps more state across a tile (the next task, its record and entry), which spills below a
 * register file of its own: a worker per SM (the default plan's shape; runtime/cuda_persist.c
 * fits a plan to its mode's kernel). */
extern "C" __global__ void
__launch_bounds__(SKIP_TASK_MAX_THREADS + SK_PERSIST_PROTOCOL_THREADS, SKIP_TASK_MIN_WORKERS_PER_SM)
    skip_persist_worker(struct sk_persist *rt, uint64_t first_epoch, int niters, int dispatcher)
{
	sk_worker<0>(rt, first_epoch, niters, dispatcher);
}
extern "C" __global__ void
__launch_bounds__(SKIP_TASK_MAX_THREADS + SK_PERSIST_PROTOCOL_THREADS, 1)
    skip_persist_worker_ring(struct sk_persist *rt, uint64_t first_epoch, int niters,
			     int dispatcher)
{
	sk_worker<1>(rt, first_epoch, niters, dispatcher);
}

#endif /* SKIP_TASK_NO_WORKER */
#endif /* SKIP_TASK_CUH */
