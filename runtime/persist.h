/*
 * persist.h: the scheduling protocol of E5, the persistent executor, as portable C11: the part
 * of issue 16 that needs no GPU. One "launch" runs a fixed set of workers (CTAs on the GPU, CPU
 * threads here) that execute task tiles for a number of iterations without returning to the
 * host; dependencies are monotone 64-bit counters (epochs, never reset), and a stuck plan ends
 * with an error after a documented timeout (the watchdog) instead of hanging.
 *
 * Three files, three roles:
 *   persist.c       plan time (host): validate a task DAG, build its CSR form, the per-task
 *                   dependency counts and the per-worker AOT queues (list scheduling by
 *                   predicted duration).
 *   persist_core.c  the device side, written once: counters, waits, the rings, the tile
 *                   ticket, completion, the watchdog and the three worker loops. It touches
 *                   shared memory only through the atomics at the end of this header, so a
 *                   CUDA build can compile the same code with those mapped to
 *                   cuda::atomic_ref / PTX (docs/persistent.md has the table).
 *   persist_host.c  the host side: state, the worker threads standing in for CTAs, the
 *                   co-pilot thread, run, termination and error reporting.
 *
 * Three modes, one plan field (struct sk_persist_opts.mode):
 *   AOT      each worker runs its own queue, fixed at plan time, and waits only on the
 *            counters of what it consumes (MPK's AOT path, Hazy's per-SM instruction lists).
 *   JIT      a device-side ready queue (lock-free MPMC ring of task ids): the tile that
 *            completes a task makes its successors ready and pushes them (MPK's JIT path).
 *   COPILOT  a host thread holds the ready set and feeds a single-producer ring ahead of the
 *            GPU (speculative enqueue of tasks whose producers still run, gated on counters),
 *            reading back batched completion reports (CCKS, over PCIe as research/runtime.md
 *            section 7.2 lays it out).
 * Tile edges (cuSync): a consumer tile waits only on the producer tiles it reads; in JIT and
 * COPILOT tiles are claimed through a per-task atomic ticket in ring order, so producer tiles
 * are always claimed before the consumer tiles that wait on them and any worker count makes
 * progress. docs/persistent.md explains the protocol, the memory ordering of every edge and
 * the watchdog.
 *
 * Internal to runtime/ (the tests include it); nothing here includes CUDA.
 */
#ifndef SKIP_RUNTIME_PERSIST_H
#define SKIP_RUNTIME_PERSIST_H

#include <stdint.h>

/*
 * Built two ways: as C11 for the host and the CPU workers, and as CUDA C++ by skip_task.cuh,
 * which compiles persist_core.c into a workload's module as the worker kernel's device code.
 * SK_PFN marks what the device side runs; SK_ALIGNED keeps the layouts identical. On the GPU,
 * SK_HOT inlines a function of a tile's path and SK_COLD keeps one out of line, so that the
 * worker kernel's registers go to the path every tile takes (a call there spills and reloads).
 */
#ifdef __CUDACC__
#include <cuda/atomic>
#define SK_PFN	       __device__
#define SK_HOT	       __forceinline__
#define SK_COLD	       __noinline__
#define SK_ALIGNED(n)  alignas(n)
#define SK_PERSIST_GPU 1
#else
#include <stdatomic.h>
#define SK_PFN
#define SK_HOT
#define SK_COLD
#define SK_ALIGNED(n) _Alignas(n)
#endif
/* The error a confused ticket stops with: SKIP_E_INVAL (checked in persist.c), spelled here
 * because the device build does not include skip_common.h. */
#define SK_PERSIST_E_INVAL (-1002)

/* ---- the plan -------------------------------------------------------------------------------- */

enum sk_persist_mode {
	SK_PERSIST_AOT,	    /* per-worker queues from plan time, counter waits */
	SK_PERSIST_JIT,	    /* device-side ready ring, successors pushed on completion */
	SK_PERSIST_COPILOT, /* a host thread feeds a ring, completions come back in batches */
	SK_PERSIST_NMODES
};

/* "aot", "jit", "copilot"; NULL for no mode. */
const char *sk_persist_mode_name(int mode);

/* Task ids share a ring word with a 40-bit sequence number, and one id means "stop". */
#define SK_PERSIST_MAX_TASKS   ((1 << 24) - 2)
#define SK_PERSIST_MAX_TILES   (1 << 20) /* per task */
#define SK_PERSIST_MAX_WORKERS 1024
#define SK_PERSIST_MAX_SMS     256 /* %smid below this (sk_persist_words.sm_ctas) */
/* The watchdog's default: no tile finishes anywhere for this long and the run ends with
 * -ETIMEDOUT. It must exceed the longest tile. */
#define SK_PERSIST_WATCHDOG_MS 5000u

struct sk_persist_task {
	int ntiles;	/* work units, each one worker's (one CTA's) share: >= 1 */
	double tile_us; /* predicted duration of one tile (AOT list scheduling only) */
};

/* Edge flags: tile-granular edges (cuSync's TileSync and RowSync). Without either, an edge is
 * full: every tile of the consumer waits for the whole producer task.
 *   SK_PERSIST_EDGE_TILE  consumer tile c of n_c waits only on the producer tiles j of n_p whose
 *                         share of [0, 1) overlaps its own, [c/n_c, (c+1)/n_c): one tile when
 *                         the counts are equal, a run of tiles when the producer has more.
 *   SK_PERSIST_EDGE_ROW   rows (struct sk_persist_edge.rows = R, which must divide both tile
 *                         counts): the producer's tiles are R rows of n_p/R consecutive tiles,
 *                         the consumer's R rows of n_c/R, and consumer tile c waits on the whole
 *                         producer row c / (n_c/R). A GEMM C2 = C1*B2 whose tiles are numbered
 *                         row-major reads all of a row block of C1. */
#define SK_PERSIST_EDGE_TILE 1u
#define SK_PERSIST_EDGE_ROW  2u

struct sk_persist_edge {
	int from, to;	/* producer and consumer task */
	unsigned flags; /* 0 (full), SK_PERSIST_EDGE_TILE or SK_PERSIST_EDGE_ROW */
	int rows;	/* SK_PERSIST_EDGE_ROW: R >= 1; otherwise ignored */
};

/* The input DAG; the caller owns it, the plan keeps no pointer into it. */
struct sk_persist_dag {
	int ntasks;
	const struct sk_persist_task *tasks; /* [ntasks] */
	int nedges;
	const struct sk_persist_edge *edges; /* [nedges]; a repeated edge counts once: full when
						any copy is full or two copies differ */
};

/* Option flags: accept a DAG with a cycle (for the watchdog's tests: a cycle that slipped past
 * validation; everything else is still checked); record the tile timeline on the GPU whatever
 * SKIP_E5_TILE_TIMES says (skip_probe_starts()'s worker times). */
#define SK_PERSIST_UNCHECKED  1u
#define SK_PERSIST_TILE_TIMES 2u

struct sk_persist_opts {
	enum sk_persist_mode mode;
	int nworkers;	      /* 1..SK_PERSIST_MAX_WORKERS (CTAs: one per SM on the GPU) */
	unsigned watchdog_ms; /* >= 1: no tile finished for this long ends the run */
	int lookahead;	      /* COPILOT: speculative tasks in flight at most (0: none) */
	int report_batch;     /* COPILOT: completions a worker gathers before publishing, >= 1 */
	int feed_tiles;	      /* COPILOT: ring entries; 0: derived; else >= max(ntiles, nworkers) */
	unsigned flags;	      /* SK_PERSIST_UNCHECKED, SK_PERSIST_TILE_TIMES */
};

#define SK_PERSIST_OPTS_DEFAULT                                                                    \
	((struct sk_persist_opts){.mode = SK_PERSIST_AOT,                                          \
				  .nworkers = 1,                                                   \
				  .watchdog_ms = SK_PERSIST_WATCHDOG_MS,                           \
				  .lookahead = 8,                                                  \
				  .report_batch = 8})

/* The GPU's worker CTA: its warp 0 runs the protocol (skip_task.cuh), the rest the tiles, so a
 * worker has the largest task block plus these threads. */
#define SK_PERSIST_PROTOCOL_THREADS 32

/* The GPU's task table: one entry per task, in device memory (skip_task.cuh runs them). */
struct sk_persist_gpu_task {
	void *fn;	   /* the task's entry, a skip_task_fn of the worker's module */
	const void *args;  /* its packed arguments, in device memory */
	unsigned nthreads; /* its block */
	unsigned ntiles;   /* its grid */
};

/* AOT: one queue entry as a worker reads it, in one 64-byte load: the tile, the counters it
 * waits on (the first two inline, the rest in step_wait) and, on the GPU, its task's entry
 * (filled by the device when it copies the plan). A counter c >= 0 is ctr[c].done, whose
 * target is per_epoch * e (the producer's tiles); c < 0 is tile_done[-c - 1], whose target
 * is e (one producer tile). */
#define SK_STEP_WAITS 2
struct sk_persist_step {
	int task, tile, g; /* the task, its tile, and that tile's number in the plan */
	int nwait;	   /* counters to wait on */
	int wait_off;	   /* the ones after the first SK_STEP_WAITS: step_wait[wait_off ..] */
	int ctr[SK_STEP_WAITS], per_epoch[SK_STEP_WAITS];
	unsigned flags;		       /* SK_STEP_* */
	struct sk_persist_gpu_task gt; /* GPU: the task's entry; zero on the CPU */
};
/*
 * A wait is *local* when every producer tile it reads comes earlier in the same worker's queue:
 * program order (on the GPU, the CTA barriers between tiles) already orders it, so the worker
 * skips it. A tile publishes its tile_done and its task's counter only where some other
 * worker's tile waits on them (SK_STEP_PUB_*); on the GPU a tile that publishes neither adds
 * itself to the epoch's count later, with the worker's next fence.
 */
#define SK_STEP_LOCAL(i) (1u << (i)) /* inline wait i is local */
#define SK_STEP_PUB_TILE (1u << 8)   /* another worker waits on tile_done[g] */
#define SK_STEP_PUB_CTR	 (1u << 9)   /* another worker waits on ctr[task].done */
#define SK_STEP_REMOTE	 (1u << 10)  /* some wait is not local (else the step waits on nothing) */
struct sk_persist_wait {
	int ctr, per_epoch;
	int local; /* as SK_STEP_LOCAL */
};

/*
 * JIT: a task as a completing tile reads it, in one 32-byte load: its tiles, its producers
 * (arrivals an epoch), its successors succ[succ_off .. succ_end) and flags. A successor made
 * ready that is SK_JT_KEEP (one tile, no tile-edge producer, not lost) may be run next by the
 * worker that made it ready, without a trip through the ring.
 */
#define SK_JT_KEEP     1u /* one tile, no tile-edge producer, not lost */
#define SK_JT_LOST     2u /* sk_persist_plan_lose() */
#define SK_JT_TILE_OUT 4u /* some successor reads it through a tile edge (tile_done) */
#define SK_JT_TILE_IN  8u /* it reads some producer through a tile edge */
struct sk_persist_jtask {
	SK_ALIGNED(16) int ntiles;
	int need;		/* producers */
	int succ_off, succ_end; /* successors */
	unsigned flags;		/* SK_JT_* */
	int tile_base;		/* its first plan tile */
	int pad[2];
};

/*
 * The plan: immutable once built (sk_persist_plan_lose() aside), read by every worker. CSR
 * arrays of predecessors and successors (sorted, duplicates merged), the tiles' numbering
 * (tile g of the plan is tile g - tile_base[t] of task tile_task[g]) and the AOT queues.
 */
struct sk_persist_plan {
	struct sk_persist_opts o;
	int ntasks, nedges, total_tiles, max_tiles;
	int *ntiles;	      /* [ntasks] */
	int *tile_base;	      /* [ntasks + 1] first plan tile of each task */
	int *tile_task;	      /* [total_tiles] */
	int *pred_off, *pred; /* CSR: predecessors of t are pred[pred_off[t] .. pred_off[t+1]) */
	int *pred_tile;	      /* [nedges] tile rule: 0 full, else as in sk_persist_tile_range() */
	int *succ_off, *succ; /* CSR: successors */
	int *succ_tile;	      /* [nedges] */
	unsigned char *lost;  /* [ntasks] sk_persist_plan_lose() */
	int *roots, nroots;   /* tasks without predecessors */
	int *topo;	      /* [ntasks] a topological order (partial with a cycle) */
	int acyclic;	      /* 0 only with SK_PERSIST_UNCHECKED */
	/* AOT: worker w runs plan tiles q[q_off[w] .. q_off[w+1]) in order, every epoch. The
	 * queues are subsequences of one topological order of the tiles (dispatch[g] is g's
	 * place in it), which is what makes any AOT plan deadlock-free. */
	int *q_off, *q;
	struct sk_persist_step *step;	   /* [total_tiles] q's entries, flattened (q_off too) */
	struct sk_persist_wait *step_wait; /* [nstep_wait] their waits past the first two */
	int nstep_wait;
	int *dispatch;	    /* [total_tiles] */
	double *start_us;   /* [total_tiles] predicted start, from the list scheduling */
	double makespan_us; /* predicted length of one epoch */
	struct sk_persist_jtask *jtask; /* [ntasks] JIT: what a completing tile reads of a task */
	int jit_cap;	/* JIT ring entries: a power of two >= total_tiles + nworkers (the stops) */
	int feed_cap;	/* COPILOT ring entries: a power of two */
	int report_cap; /* COPILOT report ring entries per worker: a power of two */
};

/*
 * Build the plan of @dag under @o: validates (task and tile counts, edge ends, a cycle unless
 * SK_PERSIST_UNCHECKED, option ranges), computes the CSR form, the roots, a topological order
 * and the AOT queues by list scheduling: tiles are dispatched in order of priority (the
 * predicted length of the longest path from the tile's task to the end of the DAG, a task
 * counting tile_us * ceil(ntiles / nworkers)), each ready tile to the worker where it can start
 * first (ties: the lowest worker), where "ready" means every producer tile it waits on is
 * dispatched, and its start is the latest predicted end of those. Returns the plan (free with
 * sk_persist_plan_free()), or NULL with *@err SKIP_E_INVAL (skip_errmsg() names the task, the
 * edge or the cycle) or SKIP_E_NOMEM. Thread-safe (no shared state).
 */
struct sk_persist_plan *sk_persist_plan_new(const struct sk_persist_dag *dag,
					    const struct sk_persist_opts *o, int *err);
void sk_persist_plan_free(struct sk_persist_plan *p);

/*
 * For the watchdog's tests, a missing producer: the plan forgets @task. It leaves the AOT
 * queues and is never pushed or fed; its consumers still wait on it. Call before
 * sk_persist_new(). 0, or SKIP_E_NOMEM (the plan is then unusable).
 */
int sk_persist_plan_lose(struct sk_persist_plan *p, int task);

/*
 * How long task @t held a worker in a run of @p: over each worker, its tiles' earliest body
 * start to their latest end in the tile timeline @tt (skip_runtime.h, indexed by plan tile, as
 * skip_exec_tile_times() gives it), the longest of those, in ns; 0 when no tile of @t was timed.
 * Tiles not timed (start 0, an end before the start, a worker out of range) are passed over.
 * @lo and @hi are the caller's scratch of [nworkers]. For skip run --probe-starts (worker_ns).
 */
struct skip_tile_time;
double sk_persist_worker_span(const struct sk_persist_plan *p, const struct skip_tile_time *tt,
			      int t, uint64_t *lo, uint64_t *hi);

/* ---- running it ------------------------------------------------------------------------------ */

/* Places in the protocol where the jitter hook is called (tests delay there). */
enum sk_persist_point {
	SK_AT_CLAIM,	/* a worker took a ring entry, before its tile ticket */
	SK_AT_WAIT,	/* before a tile's counter waits */
	SK_AT_COMPLETE, /* between a tile's own counter and its task's counter */
	SK_AT_PUBLISH,	/* between reserving ring slots and publishing them */
	SK_AT_REPORT,	/* COPILOT: before a worker publishes its reports */
	SK_AT_HOST,	/* COPILOT: the host's loop, every round */
	SK_AT_FEED	/* COPILOT: the host, before each entry it publishes */
};

struct sk_persist_hooks {
	/* Run tile @tile of @task for epoch @epoch (1, 2, ...) on @worker. 0, or a negative code
	 * that stops the run. Called concurrently from every worker. */
	int (*body)(void *ctx, int task, int tile, uint64_t epoch, int worker);
	/* NULL, or called at the points above (@worker -1: the co-pilot), concurrently. */
	void (*jitter)(void *ctx, int worker, enum sk_persist_point at);
	void *ctx;
};

struct sk_persist_stats {
	uint64_t tiles;		  /* tiles run, all runs */
	uint64_t waits;		  /* counter waits that found the counter short and spun */
	uint64_t spec_enqueues;	  /* COPILOT: tasks fed before their producers were reported done */
	uint64_t reports;	  /* COPILOT: task completions reported */
	uint64_t report_batches;  /* COPILOT: report publications (one release store each) */
	uint64_t max_inflight;	  /* COPILOT: most tiles fed and not yet reported done */
	uint64_t max_speculative; /* COPILOT: most speculative tasks in flight (<= lookahead) */
	uint64_t kept; /* JIT: tiles run next by the worker that made them ready (not ringed) */
};

struct sk_persist;

/*
 * The run-time state of @p (counters, rings, report rings) for @h. @p and @h->ctx must outlive
 * it. NULL and *@err SKIP_E_NOMEM or SKIP_E_INVAL (no body). Free with sk_persist_free().
 */
struct sk_persist *sk_persist_new(const struct sk_persist_plan *p, const struct sk_persist_hooks *h,
				  int *err);
void sk_persist_free(struct sk_persist *rt);

/*
 * One launch: @niters (>= 1) iterations, epochs sk_persist_epoch() + 1 onwards, on
 * o.nworkers threads (and, for COPILOT, the calling thread as the co-pilot). Counters carry
 * over from earlier runs. Returns 0; or the first error a body returned; or -ETIMEDOUT from
 * the watchdog when no tile finished for o.watchdog_ms (skip_errmsg() says which task waits on
 * what: a cycle, or a producer that never ran); or a pthread error. Every thread has stopped
 * when it returns. After an error the state is spent: later runs return SKIP_E_INVAL. Not
 * thread-safe on one @rt.
 */
int sk_persist_run(struct sk_persist *rt, int niters);

/* Epochs completed so far. */
uint64_t sk_persist_epoch(const struct sk_persist *rt);
void sk_persist_get_stats(const struct sk_persist *rt, struct sk_persist_stats *out);

/* ---- the atomics the protocol is written on -------------------------------------------------- */
/*
 * Every access persist_core.c makes to memory another worker or the host writes goes through
 * these (and nothing else). @scope says where the word lives and who else touches it:
 * SK_DEV device memory, workers only (PTX .gpu); SK_SYS host-mapped memory shared with the
 * host (PTX .sys). On the CPU both are the same; a CUDA build maps each function to
 * cuda::atomic_ref<T, thread_scope_device or _system> with the named order (table in
 * docs/persistent.md). Atomic read-modify-writes appear only with SK_DEV: nothing RMWs host
 * memory, which PCIe cannot do coherently (hostNativeAtomicSupported = 0 on the H100 box).
 */
enum sk_scope { SK_DEV, SK_SYS };

#ifdef SK_PERSIST_GPU
typedef uint64_t sk_au64;

/* cuda::atomic_ref at the word's scope: SK_DEV thread_scope_device (PTX .gpu), SK_SYS
 * thread_scope_system (.sys). */
#define SK_AREF(a, s, body)                                                                        \
	((s) == SK_SYS ? cuda::atomic_ref<uint64_t, cuda::thread_scope_system>(*(a)).body          \
		       : cuda::atomic_ref<uint64_t, cuda::thread_scope_device>(*(a)).body)
static __device__ inline uint64_t sk_ld_relaxed(sk_au64 *a, enum sk_scope s)
{
	return SK_AREF(a, s, load(cuda::memory_order_relaxed));
}
static __device__ inline uint64_t sk_ld_acquire(sk_au64 *a, enum sk_scope s)
{
	return SK_AREF(a, s, load(cuda::memory_order_acquire));
}
static __device__ inline void sk_st_release(sk_au64 *a, uint64_t v, enum sk_scope s)
{
	SK_AREF(a, s, store(v, cuda::memory_order_release));
}
static __device__ inline uint64_t sk_fetch_add_relaxed(sk_au64 *a, uint64_t v)
{
	return cuda::atomic_ref<uint64_t, cuda::thread_scope_device>(*a).fetch_add(
	    v, cuda::memory_order_relaxed);
}
static __device__ inline uint64_t sk_fetch_add_acq_rel(sk_au64 *a, uint64_t v)
{
	return cuda::atomic_ref<uint64_t, cuda::thread_scope_device>(*a).fetch_add(
	    v, cuda::memory_order_acq_rel);
}
static __device__ inline int sk_cas_relaxed(sk_au64 *a, uint64_t *expect, uint64_t v)
{
	return cuda::atomic_ref<uint64_t, cuda::thread_scope_device>(*a).compare_exchange_weak(
	    *expect, v, cuda::memory_order_relaxed, cuda::memory_order_relaxed);
}
/* GPU only: publish AOT tiles with one release fence, then *@a = @v (when @a), *@b += 1 (when
 * @b) and *@c += @n as relaxed writes that return nothing (st and red: the thread does not wait
 * for them). Same ordering as a release store and release adds: what came before the fence is
 * visible to whoever acquires any of them. */
static __device__ inline void sk_publish(sk_au64 *a, uint64_t v, sk_au64 *b, sk_au64 *c, uint64_t n)
{
	cuda::atomic_thread_fence(cuda::memory_order_release, cuda::thread_scope_device);
	if (a)
		asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(a), "l"(v) : "memory");
	if (b)
		asm volatile("red.relaxed.gpu.global.add.u64 [%0], 1;" ::"l"(b) : "memory");
	asm volatile("red.relaxed.gpu.global.add.u64 [%0], %1;" ::"l"(c), "l"(n) : "memory");
}
/* A wait's look that does not acquire yet: GPU, relaxed loads that do not order each other,
 * then, once all were met, one sk_fence_acquire() (the loads read the release stores, the
 * fence after them synchronizes with those) or, AOT, an acquire load of each counter. */
static __device__ inline uint64_t sk_ld_scan(sk_au64 *a)
{
	return sk_ld_relaxed(a, SK_DEV);
}
static __device__ inline void sk_fence_acquire(void)
{
	cuda::atomic_thread_fence(cuda::memory_order_acquire, cuda::thread_scope_device);
}
/*
 * JIT's publication, fence-based on the GPU: sk_fence_acq_rel() (fence.acq_rel.gpu), then
 * read-modify-writes and stores that are relaxed on the GPU (a fence then a relaxed write is
 * a release; a relaxed read then a fence is an acquire: one fence orders many of them) and
 * acq_rel / release on the CPU, where ThreadSanitizer does not model fences.
 */
static __device__ inline void sk_fence_acq_rel(void)
{
	cuda::atomic_thread_fence(cuda::memory_order_acq_rel, cuda::thread_scope_device);
}
static __device__ inline uint64_t sk_fetch_add_fenced(sk_au64 *a, uint64_t v)
{
	return sk_fetch_add_relaxed(a, v);
}
static __device__ inline void sk_st_fenced(sk_au64 *a, uint64_t v)
{
	asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(a), "l"(v) : "memory");
}
/* *@a += @v, relaxed, not waited for (GPU: red; a count that orders nothing). */
static __device__ inline void sk_add_relaxed(sk_au64 *a, uint64_t v)
{
	asm volatile("red.relaxed.gpu.global.add.u64 [%0], %1;" ::"l"(a), "l"(v) : "memory");
}
#else
typedef _Atomic uint64_t sk_au64;

static inline uint64_t sk_ld_relaxed(sk_au64 *a, enum sk_scope s)
{
	(void)s;
	return atomic_load_explicit(a, memory_order_relaxed);
}
static inline uint64_t sk_ld_acquire(sk_au64 *a, enum sk_scope s)
{
	(void)s;
	return atomic_load_explicit(a, memory_order_acquire);
}
static inline void sk_st_release(sk_au64 *a, uint64_t v, enum sk_scope s)
{
	(void)s;
	atomic_store_explicit(a, v, memory_order_release);
}
static inline uint64_t sk_fetch_add_relaxed(sk_au64 *a, uint64_t v)
{
	return atomic_fetch_add_explicit(a, v, memory_order_relaxed);
}
static inline uint64_t sk_fetch_add_acq_rel(sk_au64 *a, uint64_t v)
{
	return atomic_fetch_add_explicit(a, v, memory_order_acq_rel);
}
static inline int sk_cas_relaxed(sk_au64 *a, uint64_t *expect, uint64_t v)
{
	return atomic_compare_exchange_weak_explicit(a, expect, v, memory_order_relaxed,
						     memory_order_relaxed);
}
/* The CPU's: acquire loads and no fence (ThreadSanitizer does not model fences). */
static inline uint64_t sk_ld_scan(sk_au64 *a)
{
	return sk_ld_acquire(a, SK_DEV);
}
static inline void sk_fence_acquire(void)
{
}
/* JIT's publication (the GPU's comment): no fence; the operations carry the ordering. */
static inline void sk_fence_acq_rel(void)
{
}
static inline uint64_t sk_fetch_add_fenced(sk_au64 *a, uint64_t v)
{
	return atomic_fetch_add_explicit(a, v, memory_order_acq_rel);
}
static inline void sk_st_fenced(sk_au64 *a, uint64_t v)
{
	atomic_store_explicit(a, v, memory_order_release);
}
static inline void sk_add_relaxed(sk_au64 *a, uint64_t v)
{
	atomic_fetch_add_explicit(a, v, memory_order_relaxed);
}
#endif

/* ---- the run-time state: persist_core.c and persist_host.c only ------------------------------ */

/* One task's counters, alone on a 128-byte line (they are the hot words). All monotone. */
struct sk_persist_ctr {
	SK_ALIGNED(128) sk_au64 done; /* tiles completed, all epochs: ntiles * e once epoch e is */
	sk_au64 ticket; /* JIT, COPILOT: tiles claimed; tile = v % ntiles, epoch v / ntiles + 1 */
	sk_au64 arrive; /* JIT: producer arrivals: npreds * e once ready in epoch e */
};

/* A ring of task ids. A slot holds one word, seq << 24 | task, seq 40 bits (compared modulo
 * 2^40, so positions may wrap): seq == pos + 1 means "entry for position pos". */
#define SK_RING_TASK_BITS 24
#define SK_RING_STOP	  ((1u << SK_RING_TASK_BITS) - 1) /* COPILOT: "the run is over" */
struct sk_persist_ring {
	sk_au64 *slot; /* [mask + 1] */
	uint64_t mask; /* capacity - 1 */
	sk_au64 *head; /* next position to claim: consumers' CAS (device memory) */
	sk_au64 *tail; /* JIT: next position to reserve: producers' fetch_add */
};

/* One worker's completion reports to the co-pilot: single producer (the worker), single
 * consumer (the host). The two published positions live in host memory (host-mapped on the
 * GPU), each on its own line; what only the worker reads stays with the worker (struct
 * sk_persist_reporter, device memory on the GPU), so that a report costs the GPU no read
 * across PCIe. */
struct sk_persist_reports {
	SK_ALIGNED(128) sk_au64 tail; /* published reports: the worker's release store */
	SK_ALIGNED(128) sk_au64 head; /* reports the host has read: its release store */
};
struct sk_persist_reporter {
	uint64_t local;	    /* reports written (>= the published tail) */
	uint64_t published; /* the tail last published */
	uint64_t head_seen; /* the host's head, last read */
	uint32_t *ids;	    /* [report_cap] completed task ids, in host memory */
};

struct sk_persist_host; /* persist_host.c: threads and the co-pilot's ready set */

/* Why a run stopped, as the thread that stopped it saw it: plain numbers, so that the device
 * can write it; the host makes the message (sk_persist_why_text()) once every worker has
 * stopped. */
enum sk_persist_why_kind {
	SK_WHY_NONE,
	SK_WHY_TEXT,   /* the host's own reason, already in diag */
	SK_WHY_BODY,   /* a task's body failed: task, tile, epoch, worker */
	SK_WHY_TICKET, /* a ticket outside the run: task, ticket, first and last epoch */
	SK_WHY_STALL,  /* the watchdog: epoch, done (tiles of the epoch), worker, the path */
	SK_WHY_TRAP,   /* the GPU: the context died (a trap); the last tile started, per worker */
};
#define SK_WHY_PATH 16
struct sk_persist_why {
	int kind;
	int task, tile, worker; /* worker -1: the co-pilot */
	uint64_t epoch, ticket, first, last, done;
	int npath; /* STALL: tasks on the path, each waiting on the next */
	int end;   /* STALL: 1 the path closes a cycle; 2 its last task's producers are done */
	int path[SK_WHY_PATH], path_done[SK_WHY_PATH]; /* task and its tiles done */
};

/* The GPU's: the tile a worker last began, in host-mapped memory, so that the host can name
 * it when a trap has killed the context. */
struct sk_persist_started {
	uint64_t epoch;
	int task, tile; /* with epoch: one 16-byte store on the GPU */
	int running;	/* 1 from the tile's start to its end */
	int pad[3];
};

/* The words that every worker and the host write, each alone on its line (device memory).
 * Everything else of struct sk_persist is read-only while workers run, so that a GPU worker
 * reads it from its own copy in shared memory: an acquire load invalidates the L1, and every
 * later read of the state would otherwise be a trip to L2. */
/*
 * GPU, AOT: the kernel stays resident between runs (cuda_persist.c, skip_task.cuh). The host
 * rings a host-mapped bell (the last epoch it asks for; SK_BELL_STOP: leave), worker 0's
 * protocol thread (the porter) lets the workers run up to it through sw->go and reports the
 * last complete epoch in a host-mapped word; after linger_ns without a bell it says so in
 * another and the kernel ends.
 */
#define SK_BELL_STOP	     (1ull << 63)
#define SK_GO_EXIT	     (~0ull)
#define SK_PERSIST_LINGER_NS 200000u /* the default; SKIP_E5_LINGER_US sets it */

struct sk_persist_words {
	SK_ALIGNED(128) sk_au64 tiles_done; /* tiles completed, every task, all epochs */
	SK_ALIGNED(128)
	sk_au64 progress;	       /* AOT on the GPU, JIT: tiles not yet in tiles_done (the
					* watchdog's; relaxed, orders nothing) */
	SK_ALIGNED(128) sk_au64 abort; /* 0, or minus the error that stops every thread */
	SK_ALIGNED(128) sk_au64 jit_head, jit_tail; /* the rings' (struct sk_persist_ring) */
	SK_ALIGNED(128) sk_au64 feed_head;
	SK_ALIGNED(128) sk_au64 leavers; /* COPILOT: workers that saw the stop entry, all runs */
	SK_ALIGNED(128)
	sk_au64 feed_copied; /* COPILOT on the GPU: host entries (tasks) the
			      * dispatcher read, and */
	sk_au64 feed_made;   /* the device entries (tiles) it made of them */
	SK_ALIGNED(128)
	sk_au64 go;    /* resident AOT: the last epoch the porter let the workers run,
			* or SK_GO_EXIT; 0 between kernels */
	sk_au64 exits; /* resident AOT: workers that left, all kernels */
	SK_ALIGNED(128)
	sk_au64 n_tiles, n_waits, n_reports, n_batches, n_kept; /* statistics, relaxed */
	struct sk_persist_why why; /* written once, by the thread that set abort */
	/* AOT on the GPU (sk_persist.sm_order), zeroed before each launch: the CTAs each SM has
	 * seen, and the worker numbers given out from either end */
	SK_ALIGNED(128) unsigned sm_ctas[SK_PERSIST_MAX_SMS];
	unsigned n_first, n_second;
};

struct sk_persist {
	const struct sk_persist_plan *p;
	struct sk_persist_words *sw; /* the shared words */
	struct sk_persist_hooks h;
	struct sk_persist_ctr *ctr;	  /* [ntasks] */
	sk_au64 *tile_done;		  /* [total_tiles] the epoch each tile last completed */
	struct sk_persist_ring jit;	  /* JIT ready ring (device memory) */
	struct sk_persist_ring feed;	  /* COPILOT feed ring: slots in host memory, head on device
					   * (on the GPU: slots in device memory, which the
					   * dispatcher fills from hfeed) */
	struct sk_persist_ring hfeed;	  /* COPILOT on the GPU: the host's ring, as the device sees
					   * it (slots host-mapped; no head or tail) */
	struct sk_persist_reports *rep;	  /* [nworkers] COPILOT, host memory */
	struct sk_persist_reporter *own;  /* [nworkers] COPILOT, each worker's own */
	uint64_t first_epoch, last_epoch; /* of the current run: set before the workers start */
	uint64_t timeout_ns;		  /* the watchdog */
	struct sk_persist_host *host;
	int spent; /* a run failed: the counters are mid-epoch */
	/* the GPU's (NULL or 0 on the CPU) */
	int sm_order;  /* AOT on the GPU: number the workers by SM (skip_task.cuh) */
	int sm_shared; /* AOT on the GPU, more workers than SMs: an SM runs two, so waits poll
			* with relaxed loads (an acquire load invalidates the L1 that the other
			* worker's tile reads through) and acquire once met */
	const struct sk_persist_gpu_task *gtask; /* [ntasks] device memory */
	struct sk_persist_started *started;	 /* [nworkers] host-mapped */
	uint64_t *tile_times; /* NULL, or [3 * total_tiles] host-mapped: each tile's body start and
			       * end (%globaltimer) and worker in the last epoch that ran it
			       * (skip_exec_tile_times()) */
	sk_au64 *abort_host;  /* host-mapped: abort, mirrored */
	/* resident AOT's (the CPU's tests set them: tests/tsan/persist_check.h) */
	sk_au64 *bell;	    /* host-mapped, resident AOT: the last epoch the host asked for */
	sk_au64 *served;    /* host-mapped, resident AOT: the last epoch complete */
	sk_au64 *left;	    /* host-mapped, resident AOT: 1 once the porter let the kernel end */
	uint64_t linger_ns; /* resident AOT: how long the porter waits for a bell */
	const char *const *names; /* host: [ntasks] for messages, or NULL */
	/* last: a GPU worker copies what comes before it (skip_task.cuh) */
	char diag[512]; /* the message: the host's, from sw->why */
};

/* A thread's watchdog while it waits: the progress it last saw and since when. */
struct sk_persist_watch {
	uint64_t seen;	   /* tiles_done */
	uint64_t since_ns; /* when it last changed, as this thread saw it (0: not looked yet) */
	unsigned spins;	   /* backoff steps so far */
	unsigned polls;	   /* GPU: polls since the wait began (SK_WATCH_POLLS a look) */
};
#define SK_WATCH_POLLS 32

/*
 * The GPU's co-pilot: the host side of a COPILOT run whose workers are CTAs. @feed_slots
 * [feed_cap], @rep [nworkers] and @ids [nworkers * report_cap] are the host's view of the
 * host-mapped rings the workers use. @idle(@ctx) is called in each round that found nothing to
 * do, instead of the CPU's backoff and watchdog (the co-pilot spins: a report waits for it, not
 * it for a backoff step): 0 to go on, or the error that stops the co-pilot; it must stop it
 * once the kernel has stopped. NULL and *@err SKIP_E_NOMEM. Free with sk_persist_free().
 */
struct sk_persist *sk_persist_copilot_new(const struct sk_persist_plan *p, sk_au64 *feed_slots,
					  struct sk_persist_reports *rep, uint32_t *ids,
					  int (*idle)(void *ctx), void *ctx, int *err);
/*
 * Feed epochs @first .. @first + @niters - 1 to the GPU's workers and read their reports, then
 * the stop entry. Returns 0 once every task of every epoch was reported, or the error of @idle
 * (the stop entry is still fed, so that workers waiting on the ring leave).
 */
int sk_persist_copilot_run(struct sk_persist *rt, uint64_t first, int niters);

/*
 * COPILOT on the GPU: the dispatcher (warp 0 of one more CTA) reads the host's feed ring
 * (hfeed: one entry a task) and makes an entry for each of the task's tiles in the device ring
 * the workers claim from (feed), so that one warp reads host memory across PCIe, 32 slots a
 * load, and the workers poll L2 (research/runtime.md section 7.2). It leaves once it has passed the
 * stop entry on, or the run stops.
 */
SK_PFN void sk_persist_dispatch(struct sk_persist *rt);
/* Worker @w's whole run in the plan's mode: a CPU thread's (the GPU's two worker kernels call
 * their mode's loop themselves, skip_task.cuh). */
void sk_persist_work(struct sk_persist *rt, int w);
/*
 * Resident AOT (the GPU's kernel that stays between runs; the CPU's tests): worker @w serves
 * the host's bells (rt->bell: the last epoch asked for, SK_BELL_STOP to leave) from epoch
 * @next on; worker 0, the porter, lets the others run through sw->go, reports each last
 * complete epoch in rt->served and, after rt->linger_ns without a bell, says it leaves in
 * rt->left. @rt is the worker's own copy of the state (a CTA's in shared memory; a thread's
 * on the CPU), whose first and last epochs it sets.
 */
SK_PFN void sk_persist_resident(struct sk_persist *rt, int w, uint64_t next);
/* JIT, before the workers start: push the roots of the run's first epoch (later epochs' roots
 * are pushed by the tile that ends the epoch before). */
SK_PFN int sk_persist_jit_start(struct sk_persist *rt);
/* Stop the run with @err and @why unless it is already stopping; the first caller's reason
 * wins. Returns the error the run stops with. */
SK_PFN int sk_persist_stop(struct sk_persist *rt, int err, const struct sk_persist_why *why);
/* The host's version (persist_host.c): the reason as text, kind SK_WHY_TEXT. */
int sk_persist_abort(struct sk_persist *rt, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The message for rt->why into rt->diag (host, after every worker stopped). */
void sk_persist_why_text(struct sk_persist *rt);
SK_PFN void sk_persist_watch_init(struct sk_persist *rt, struct sk_persist_watch *wt);
/* One backoff step of a waiting thread (@worker, or -1 for the co-pilot), called after each
 * poll (on the GPU it looks only every SK_WATCH_POLLS calls); trips the watchdog after
 * timeout_ns without progress. Returns 0 to keep waiting, or the error the run stops with. */
SK_PFN int sk_persist_watch_step(struct sk_persist *rt, struct sk_persist_watch *wt, int worker);
/* COPILOT: claim the next entry of @r (its slots in the workers' memory): the task id, or -1
 * when there is none yet; SK_RING_STOP is not claimed. The feeder reuses slots by credit. */
SK_PFN int sk_persist_ring_pop(struct sk_persist_ring *r);
/* COPILOT host: publish @task at position @pos of @r (the caller checked the slot is free). */
SK_PFN void sk_persist_ring_put(struct sk_persist_ring *r, uint64_t pos, uint32_t task);
/* An edge's tile rule in the plan (pred_tile, succ_tile): 0 full, SK_PERSIST_RULE_TILE
 * proportional (SK_PERSIST_EDGE_TILE), R >= 1 rows of R (SK_PERSIST_EDGE_ROW). */
#define SK_PERSIST_RULE_TILE (-1)

/*
 * The producer tiles [*lo, *hi) of @np that consumer tile @c of @nc reads through a tile edge
 * whose rule is @rule (nonzero). The one place the ranges are computed: the waits, the AOT
 * list scheduling and its steps, and the watchdog's message use it. Both rules are
 * symmetric: with the roles swapped (@c a producer tile, @nc and @np exchanged) it gives the
 * consumer tiles that read producer tile @c.
 */
static inline SK_PFN void sk_persist_tile_range(int rule, int c, int nc, int np, int *lo, int *hi)
{
	if (rule > 0) { /* rows: row c / (nc/R), which is tiles [r * np/R, (r + 1) * np/R) */
		int per = np / rule;

		*lo = c / (nc / rule) * per;
		*hi = *lo + per;
		return;
	}
	*lo = (int)((int64_t)c * np / nc);
	*hi = (int)((((int64_t)c + 1) * np + nc - 1) / nc);
}

#endif /* SKIP_RUNTIME_PERSIST_H */
