/*
 * persist_core.c: E5's device side, written once (persist.h): what a worker (a CTA on the
 * GPU, a thread here) does in each mode, the rings, the counter waits, the tile ticket, tile
 * completion, and the watchdog. Shared memory is touched only through persist.h's atomics,
 * and the only other platform calls are the clock and the pause below, so a CUDA build can
 * compile this file as device code with those mapped (docs/persistent.md).
 *
 * Counters, all monotone 64-bit, never reset (MPK's epochs, research/runtime.md section 1.1):
 * iteration e of a run is epoch e (1, 2, ... across runs). Tile g stores e into tile_done[g]
 * when it completes (single writer: cuSync's NoAtomicAdd post); task t's done counter
 * reaches ntiles[t] * e when all its tiles of epoch e have; tiles_done reaches
 * total_tiles * e when the epoch has. A consumer waits for the target of its epoch, so
 * nothing is reset between iterations. An epoch ends before the next begins (the one barrier
 * per iteration, never one per task): a producer of epoch e + 1 must not overwrite what a
 * consumer of epoch e still reads.
 *
 * Ordering per edge (research/runtime.md section 7.3, rules 1, 3, 4 and 5): a tile's writes are
 * published by release operations on its counters and observed by acquire loads in the
 * consumer (rule 1); the JIT ring passes them on through acq_rel read-modify-writes and the
 * slots' release/acquire; the co-pilot's feed ring is written by the host only (release,
 * rule 4) and its reports by one worker each (release, rule 3); no read-modify-write touches
 * host memory (rule 5). Each choice is explained where it is made.
 */
#include <errno.h>

#include "persist.h"

/* ---- platform: the clock, the pause, the body and the jitter hook ---------------------------- */

#ifdef SK_PERSIST_GPU
/* skip_task.cuh defines, before it includes this file, SK_PERSIST_BODY(rt, t, k, g, e, w, gt)
 * (the CTA runs tile k of task t, g in the plan; gt: the task's entry when the caller has it,
 * else NULL) and AOT's asynchronous tiles: SK_PERSIST_ISSUE(rt, s, e, w) fills step s's order,
 * SK_PERSIST_ENDED(rt) says whether the tiles handed over have all ended, SK_PERSIST_GO(rt)
 * hands the order to the CTA, whose warps publish the tile when it ends, and
 * SK_PERSIST_FLUSH(rt) has them publish what they hold back. The GPU has no jitter hook. */
static __device__ uint64_t now_ns(void)
{
	uint64_t t;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

/* Backoff step @n: spin 64 times (a dependent task's wait is a few hundred ns), then sleep from
 * 32 ns doubling to 1 us (the CTAs are co-resident; a sleeping one leaves its SM's issue slots
 * to the others). */
static __device__ void pause_step(unsigned n)
{
	if (n >= 64)
		__nanosleep(32u << (n < 69 ? n - 64 : 5));
}

#define jitter(rt, w, at) ((void)0)

/* AOT's waits: look at all, wait on each, acquire what a relaxed load saw (run_step()) */
#define SK_WAIT_PASSES 3

/*
 * AOT reads its queue ahead: the next SK_STEPS_AHEAD steps are in flight into a ring in shared
 * memory (cp.async: no register holds them, so they outlive the body call), and once step i
 * has been handed over, step i + SK_STEPS_AHEAD takes its slot. A step read when it is due
 * cost a task about 1,200 cycles on the H100. The steps are plan data, never written while
 * the kernel runs.
 */
#define SK_STEPS_AHEAD 8
static __shared__ __align__(16) struct sk_persist_step sk_steps[SK_STEPS_AHEAD];
static_assert(sizeof(struct sk_persist_step) % 16 == 0, "a step is copied in 16-byte pieces");

/* Start copying step @i (none past @end: an empty group keeps one group per step). */
static __device__ void steps_fetch(const struct sk_persist_plan *p, int i, int end)
{
	if (i < end) {
		unsigned dst = (unsigned)__cvta_generic_to_shared(&sk_steps[i % SK_STEPS_AHEAD]);
		const char *src = (const char *)&p->step[i];

		for (unsigned b = 0; b < sizeof(struct sk_persist_step); b += 16)
			asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst + b),
				     "l"(src + b)
				     : "memory");
	}
	asm volatile("cp.async.commit_group;" ::: "memory");
}

/* Step @i, once its copy has landed (the SK_STEPS_AHEAD - 1 groups after it may still be in
 * flight). */
static __device__ const struct sk_persist_step *steps_get(const struct sk_persist_plan *p, int i)
{
	(void)p;
	asm volatile("cp.async.wait_group %0;" ::"n"(SK_STEPS_AHEAD - 1) : "memory");
	return &sk_steps[i % SK_STEPS_AHEAD];
}

/* No copy left in flight (an epoch's end, or a stop). */
static __device__ void steps_done(void)
{
	asm volatile("cp.async.wait_all;" ::: "memory");
}
#else
#include <sched.h>
#include <time.h>

#include "skip_common.h"

_Static_assert(SK_PERSIST_E_INVAL == SKIP_E_INVAL, "persist.h spells SKIP_E_INVAL");

static SK_PFN uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Backoff step @n of a wait: spin a little, then yield, then sleep up to 100 us. Workers here
 * are threads that may outnumber the cores (the GPU's are co-resident CTAs, which sleep
 * with __nanosleep instead of yielding). */
static SK_PFN void pause_step(unsigned n)
{
	if (n < 4) {
#if defined(__x86_64__) || defined(__i386__)
		__builtin_ia32_pause();
#endif
	} else if (n < 32) {
		sched_yield();
	} else {
		struct timespec ts = {0, (n < 40 ? 10000 : 100000)};

		nanosleep(&ts, NULL);
	}
}

#define SK_PERSIST_BODY(rt, t, k, g, e, w, gt)                                                     \
	((void)(g), (void)(gt), (rt)->h.body((rt)->h.ctx, t, k, e, w))

/* AOT's queue: read in place here (the GPU reads it ahead, above). */
#define SK_STEPS_AHEAD	       1
#define SK_WAIT_PASSES	       2 /* look, then wait: both acquire here */
#define steps_fetch(p, i, end) ((void)0)
#define steps_get(p, i)	       (&(p)->step[i])
#define steps_done()	       ((void)0)

static inline SK_PFN void jitter(struct sk_persist *rt, int w, enum sk_persist_point at)
{
	if (rt->h.jitter)
		rt->h.jitter(rt->h.ctx, w, at);
}
#endif

/* Statistics: the CPU's (on the GPU, shared counters would cost every tile a round trip). */
static inline SK_PFN void count(sk_au64 *stat)
{
#ifdef SK_PERSIST_GPU
	(void)stat;
#else
	sk_fetch_add_relaxed(stat, 1);
#endif
}

/* ---- stopping: errors and the watchdog ------------------------------------------------------- */

SK_COLD SK_PFN int sk_persist_stop(struct sk_persist *rt, int err, const struct sk_persist_why *why)
{
	uint64_t expect = 0;

	/* Relaxed: the flag only says "stop". The reason is read by the thread that joins the
	 * workers, after pthread_join (GPU: after the kernel ends). */
	while (!sk_cas_relaxed(&rt->sw->abort, &expect, (uint64_t)(-(int64_t)err)))
		if (expect) /* else a weak CAS's spurious failure: try again */
			return -(int)expect;
	rt->sw->why = *why;
#ifdef SK_PERSIST_GPU
	/* the host learns of it without a copy: the why it copies after the kernel ends */
	if (rt->abort_host)
		sk_st_release(rt->abort_host, (uint64_t)(-(int64_t)err), SK_SYS);
#endif
	return err;
}

static inline SK_PFN int stopped(struct sk_persist *rt)
{
	uint64_t a = sk_ld_relaxed(&rt->sw->abort, SK_DEV);

	return a ? -(int)a : 0;
}

/* Tiles of @t done in epoch @e (clamped to 0..ntiles). */
static SK_PFN int tiles_of(struct sk_persist *rt, int t, uint64_t e)
{
	uint64_t n = (uint64_t)rt->p->ntiles[t], d = sk_ld_relaxed(&rt->ctr[t].done, SK_DEV);

	if (d <= n * (e - 1))
		return 0;
	return d >= n * e ? (int)n : (int)(d - n * (e - 1));
}

/* Nonzero when an unfinished tile of @t waits on an unfinished tile of its producer through
 * tile edge @i (pred index) in epoch @e. */
static SK_PFN int tile_edge_waits(struct sk_persist *rt, int t, int i, uint64_t e)
{
	const struct sk_persist_plan *p = rt->p;
	int q = p->pred[i];

	for (int k = 0; k < p->ntiles[t]; k++) {
		int lo, hi;

		if (sk_ld_relaxed(&rt->tile_done[p->tile_base[t] + k], SK_DEV) >= e)
			continue;
		sk_persist_tile_range(p->pred_tile[i], k, p->ntiles[t], p->ntiles[q], &lo, &hi);
		for (int j = lo; j < hi; j++)
			if (sk_ld_relaxed(&rt->tile_done[p->tile_base[q] + j], SK_DEV) < e)
				return 1;
	}
	return 0;
}

/* The first producer of @t that @t still waits on in epoch @e, or -1: unfinished, and through
 * a tile edge, with an unfinished tile that an unfinished tile of @t reads. */
static SK_PFN int unfinished_producer(struct sk_persist *rt, int t, uint64_t e)
{
	const struct sk_persist_plan *p = rt->p;

	for (int i = p->pred_off[t]; i < p->pred_off[t + 1]; i++)
		if (tiles_of(rt, p->pred[i], e) < p->ntiles[p->pred[i]] &&
		    (!p->pred_tile[i] || tile_edge_waits(rt, t, i, e)))
			return p->pred[i];
	return -1;
}

/*
 * The watchdog fired: say what is stuck. From the first unfinished task that waits on an
 * unfinished producer, follow unfinished producers until a task repeats (a cycle) or one has
 * all its producers done but has not finished itself (it never ran: a missing producer, or a
 * tile that never returns). sk_persist_why_text() words it.
 */
static SK_COLD SK_PFN int stall(struct sk_persist *rt, int worker)
{
	const struct sk_persist_plan *p = rt->p;
	uint64_t done = sk_ld_relaxed(&rt->sw->tiles_done, SK_DEV), e = done / p->total_tiles + 1;
	struct sk_persist_why why = {};
	int t = -1;

	if (e > rt->last_epoch)
		e = rt->last_epoch;
	why.kind = SK_WHY_STALL;
	why.worker = worker;
	why.epoch = e;
	why.done = done - (e - 1) * p->total_tiles;
	for (int u = 0; u < p->ntasks && t < 0; u++)
		if (tiles_of(rt, u, e) < p->ntiles[u] && unfinished_producer(rt, u, e) >= 0)
			t = u;
	for (int u = 0; u < p->ntasks && t < 0; u++)
		if (tiles_of(rt, u, e) < p->ntiles[u])
			t = u;
	while (t >= 0 && why.npath < SK_WHY_PATH) {
		for (int i = 0; i < why.npath; i++)
			if (why.path[i] == t)
				why.end = 1;
		why.path_done[why.npath] = tiles_of(rt, t, e);
		why.path[why.npath++] = t;
		if (why.end)
			break;
		t = unfinished_producer(rt, t, e);
	}
	if (!why.end && t < 0 && why.npath)
		why.end = 2;
	return sk_persist_stop(rt, -ETIMEDOUT, &why);
}

/* Tiles finished, as the watchdog counts them: the epoch's count and the tiles an AOT worker on
 * the GPU has not added to it yet. */
static inline SK_PFN uint64_t finished(struct sk_persist *rt)
{
	return sk_ld_relaxed(&rt->sw->tiles_done, SK_DEV) +
	       sk_ld_relaxed(&rt->sw->progress, SK_DEV);
}

/* Nothing is read here: the first look does (a wait's first poll is what it waits on). */
SK_PFN void sk_persist_watch_init(struct sk_persist *rt, struct sk_persist_watch *wt)
{
	(void)rt;
	wt->seen = 0;
	wt->since_ns = 0;
	wt->spins = 0;
	wt->polls = 0;
}

SK_PFN int sk_persist_watch_step(struct sk_persist *rt, struct sk_persist_watch *wt, int worker)
{
	uint64_t now, cur;
	int err;

#ifdef SK_PERSIST_GPU
	/* A look costs three loads from L2 (the abort flag, and the two counts below): between
	 * two, a GPU worker polls its word SK_WATCH_POLLS times, or it would see its producer's
	 * release about 2,000 cycles late. */
	if (++wt->polls % SK_WATCH_POLLS)
		return 0;
#endif
	if ((err = stopped(rt)))
		return err;
	pause_step(wt->spins++);
	if (wt->spins < 4)
		return 0;
	now = now_ns();
	cur = finished(rt);
	if (!wt->since_ns || cur != wt->seen) {
		if (cur != wt->seen)
			wt->spins = 0;
		wt->seen = cur;
		wt->since_ns = now;
		return 0;
	}
	if (now - wt->since_ns < rt->timeout_ns)
		return 0;
	return stall(rt, worker);
}

/* ---- rings ----------------------------------------------------------------------------------- */

static inline SK_PFN uint64_t ring_word(uint64_t seq, uint32_t task)
{
	return seq << SK_RING_TASK_BITS | task;
}

/* a - b for 40-bit sequence numbers (wrapping). */
static inline SK_PFN int64_t seq_diff(uint64_t a, uint64_t b)
{
	return (int64_t)((a - b) << SK_RING_TASK_BITS) >> SK_RING_TASK_BITS;
}

/*
 * Claim the entry at the head. The word is read (acquire: it synchronizes with the release
 * that published it, so whatever the publisher wrote before is visible) before the CAS that
 * takes the position; the CAS can be relaxed, since it only decides which consumer owns the
 * entry. A slot is filled for position pos when its sequence is pos + 1; older means empty
 * (not yet published: consumers never skip ahead, so entries are claimed in position order,
 * which the tile-ticket argument relies on), newer means the head moved on. (JIT claims by
 * position instead: jit_claim().)
 */
SK_PFN int sk_persist_ring_pop(struct sk_persist_ring *r)
{
	uint64_t pos = sk_ld_relaxed(r->head, SK_DEV);

	for (;;) {
		uint64_t w = sk_ld_acquire(&r->slot[pos & r->mask], SK_DEV);
		int64_t d = seq_diff(w >> SK_RING_TASK_BITS, pos + 1);

		if (d == 0) {
			/* COPILOT's stop entry stays: every worker sees it (work_ring()) */
			if ((w & SK_RING_STOP) == SK_RING_STOP)
				return (int)SK_RING_STOP;
			if (!sk_cas_relaxed(r->head, &pos, pos + 1))
				continue; /* pos now holds the head */
			return (int)(w & SK_RING_STOP);
		}
		if (d < 0)
			return -1;
		pos = sk_ld_relaxed(r->head, SK_DEV);
	}
}

SK_PFN void sk_persist_ring_put(struct sk_persist_ring *r, uint64_t pos, uint32_t task)
{
	/* Host to device (rule 4): one release store of a word that carries its own position */
	sk_st_release(&r->slot[pos & r->mask], ring_word(pos + 1, task), SK_SYS);
}

/*
 * JIT: push @n entries of @task (one per tile). Positions are reserved with one fetch_add on
 * the tail (relaxed: the reservation orders nothing), then each slot is written with
 * sk_st_fenced(): the caller has fenced (sk_fence_acq_rel()) after everything the tile's
 * worker must see, so on the GPU a relaxed store releases it. A slot needs no freeing: the
 * ring holds a whole epoch's tiles and a run's stop entries (jit_cap >= total_tiles +
 * nworkers), so the entry a slot held before is of an earlier epoch (or run), whose entries
 * were all claimed before it ended, and every push of a later epoch happens after that end
 * (the tile that ends an epoch acquires every tile of it before it makes the next one's roots
 * ready); an old entry reads as empty (older).
 */
static SK_PFN void ring_push(struct sk_persist *rt, struct sk_persist_ring *r, int task, int n,
			     int w)
{
	uint64_t pos = sk_fetch_add_relaxed(r->tail, (uint64_t)n);

	jitter(rt, w, SK_AT_PUBLISH);
	for (int i = 0; i < n; i++, pos++)
		sk_st_fenced(&r->slot[pos & r->mask], ring_word(pos + 1, (uint32_t)task));
}

/*
 * JIT: take the next position with a fetch_add on the head and wait for its entry (acquire: it
 * synchronizes with the release that published it). No CAS is retried, so a claim costs the
 * contended head line one read-modify-write, and an idle worker waits on a slot of its own.
 * Positions are taken in order, so entries are still claimed in ring order (the tile-ticket
 * argument), and every position taken gets an entry: the tile that ends a run's last epoch
 * pushes a stop entry for each worker, which each takes once and leaves on. The task id,
 * SK_RING_STOP, or -1 when the run stops (an error, the watchdog).
 */
static SK_PFN int jit_claim(struct sk_persist *rt, int w)
{
	struct sk_persist_ring *r = &rt->jit;
	uint64_t pos = sk_fetch_add_relaxed(r->head, 1), v;
	sk_au64 *slot = &r->slot[pos & r->mask];
	struct sk_persist_watch wt;

	sk_persist_watch_init(rt, &wt);
	while (seq_diff((v = sk_ld_acquire(slot, SK_DEV)) >> SK_RING_TASK_BITS, pos + 1) != 0)
		if (sk_persist_watch_step(rt, &wt, w))
			return -1;
	return (int)(v & SK_RING_STOP);
}

/* ---- co-pilot reports ------------------------------------------------------------------------ */

/* Publish worker @w's gathered reports: one release store of the tail (rule 3: the ids are
 * written before it; GPU: st.release.sys, after fence.sc.sys in the CUDA mapping). */
static SK_PFN void flush_reports(struct sk_persist *rt, int w)
{
	struct sk_persist_reporter *o;

	if (rt->p->o.mode != SK_PERSIST_COPILOT || w < 0)
		return;
	o = &rt->own[w];
	if (o->local == o->published)
		return;
	jitter(rt, w, SK_AT_REPORT);
	sk_st_release(&rt->rep[w].tail, o->local, SK_SYS);
	o->published = o->local;
	count(&rt->sw->n_batches);
}

/* Worker @w reports that @task completed; published every report_batch, or when it idles. */
static SK_PFN int report(struct sk_persist *rt, int w, int task)
{
	struct sk_persist_reporter *o = &rt->own[w];
	uint64_t cap = (uint64_t)rt->p->report_cap;
	struct sk_persist_watch wt;

	sk_persist_watch_init(rt, &wt);
	while (o->local - o->head_seen >= cap) {
		int err;

		flush_reports(rt, w);
		/* acquire: the host read those ids before it released the head (no overwrite) */
		o->head_seen = sk_ld_acquire(&rt->rep[w].head, SK_SYS);
		if (o->local - o->head_seen >= cap && (err = sk_persist_watch_step(rt, &wt, w)))
			return err;
	}
	o->ids[o->local & (cap - 1)] = (uint32_t)task;
	o->local++;
	count(&rt->sw->n_reports);
	if (o->local - o->published >= (uint64_t)rt->p->o.report_batch)
		flush_reports(rt, w);
	return 0;
}

/* ---- tiles ----------------------------------------------------------------------------------- */

/* A wait's look at *@a: an acquire load, or a relaxed one where another worker shares the SM
 * (rt->sm_shared; the wait then acquires once met, sk_ld_acquire() of the same counter). */
static SK_HOT SK_PFN uint64_t look(const struct sk_persist *rt, sk_au64 *a)
{
	return rt->sm_shared ? sk_ld_scan(a) : sk_ld_acquire(a, SK_DEV);
}

/* Wait until *@a >= @target (acquire: rule 1, the consumer side). A worker of the co-pilot
 * publishes its reports before it blocks, so the host never waits on them. */
static SK_HOT SK_PFN int wait_ge(struct sk_persist *rt, sk_au64 *a, uint64_t target, int w)
{
	struct sk_persist_watch wt;

	if (look(rt, a) >= target)
		goto met;
	count(&rt->sw->n_waits);
	flush_reports(rt, w);
	sk_persist_watch_init(rt, &wt);
	do {
		int err = sk_persist_watch_step(rt, &wt, w);

		if (err)
			return err;
	} while (look(rt, a) < target);
met:
	if (rt->sm_shared)
		(void)sk_ld_acquire(a, SK_DEV);
	return 0;
}

/*
 * One look at *@a for AOT's waits: >= @target? On the GPU an acquire load once the tile
 * handed over before has ended (SK_PERSIST_ENDED()) and no other worker shares the SM
 * (rt->sm_shared), a relaxed one otherwise, since an acquire load invalidates the L1 that a
 * running tile reads through and a wait is many loads; *@relaxed is set when a relaxed load
 * found it met (run_step() acquires it later). On the CPU, acquire.
 */
static SK_HOT SK_PFN int poll(const struct sk_persist *rt, sk_au64 *a, uint64_t target,
			      int *relaxed)
{
#ifdef SK_PERSIST_GPU
	int ended = SK_PERSIST_ENDED(rt) && !rt->sm_shared;
	int met = (ended ? sk_ld_acquire(a, SK_DEV) : sk_ld_scan(a)) >= target;

	*relaxed |= met && !ended;
	return met;
#else
	(void)rt;
	(void)relaxed;
	return sk_ld_acquire(a, SK_DEV) >= target;
#endif
}

/* wait_ge() with poll()'s loads. */
static SK_HOT SK_PFN int wait_poll(struct sk_persist *rt, sk_au64 *a, uint64_t target, int w,
				   int *relaxed)
{
	struct sk_persist_watch wt;

	sk_persist_watch_init(rt, &wt);
	while (!poll(rt, a, target, relaxed)) {
		int err = sk_persist_watch_step(rt, &wt, w);

		if (err)
			return err;
	}
	return 0;
}

/* Tile @k of @t, epoch @e: wait for exactly the producer tiles it reads. */
static SK_PFN int wait_inputs(struct sk_persist *rt, int t, int k, uint64_t e, int w)
{
	const struct sk_persist_plan *p = rt->p;
	/* JIT pushes a task once its full-edge producers have completed (arrive() after their
	 * last tile, acq_rel, then the ring's release and acquire): only tile edges wait */
	int full_done = p->o.mode == SK_PERSIST_JIT;

	jitter(rt, w, SK_AT_WAIT);
	for (int i = p->pred_off[t]; i < p->pred_off[t + 1]; i++) {
		int q = p->pred[i], lo, hi, err = 0;

		if (!p->pred_tile[i]) {
			if (full_done)
				continue;
			err = wait_ge(rt, &rt->ctr[q].done, (uint64_t)p->ntiles[q] * e, w);
		} else {
			sk_au64 *done = &rt->tile_done[p->tile_base[q]];
			int met = 1;

			sk_persist_tile_range(p->pred_tile[i], k, p->ntiles[t], p->ntiles[q], &lo,
					      &hi);
			/* a row of producer tiles: look at all of them at once first */
			for (int j = lo; j < hi; j++)
				met &= sk_ld_scan(&done[j]) >= e;
			if (met)
				sk_fence_acquire();
			for (int j = lo; j < hi && !err && !met; j++)
				err = wait_ge(rt, &done[j], e, w);
		}
		if (err)
			return err;
	}
	return 0;
}

/* Run tile @k of @t (plan tile @g) in epoch @e: 0, or the error that stops the run. */
static SK_HOT SK_PFN int run_body(struct sk_persist *rt, int w, int t, int k, int g, uint64_t e,
				  const struct sk_persist_gpu_task *gt)
{
	int err;

#ifdef SK_PERSIST_GPU
	/* a load on the critical path of every tile: every 32nd tile looks (and every wait) */
	if (g % 32 == 0 && (err = stopped(rt)))
		return err;
#else
	if ((err = stopped(rt)))
		return err;
#endif
	err = SK_PERSIST_BODY(rt, t, k, g, e, w, gt);
	if (err) {
		struct sk_persist_why why = {};

		why.kind = SK_WHY_BODY;
		why.task = t;
		why.tile = k;
		why.epoch = e;
		why.worker = w;
		return sk_persist_stop(rt, err, &why);
	}
	return 0;
}

/*
 * AOT on the CPU and the co-pilot: run tile @k of @t in epoch @e and publish it: tile_done[g]
 * = e (release: rule 1's producer side; on the GPU after the CTA's barrier, by one thread),
 * then the task's and the epoch's counters with acq_rel read-modify-writes: release to
 * publish this tile, acquire so that the tile that completes a task has seen every other
 * tile's writes. Sets *@task_end (when not NULL) when this tile was the task's last. (JIT:
 * jit_complete(); AOT on the GPU publishes in skip_task.cuh.)
 */
static SK_PFN int finish_tile(struct sk_persist *rt, int w, int t, int k, int g, uint64_t e,
			      const struct sk_persist_gpu_task *gt, int *task_end)
{
	const struct sk_persist_plan *p = rt->p;
	uint64_t old;
	int err = run_body(rt, w, t, k, g, e, gt);

	if (err)
		return err;
#ifdef SK_PERSIST_GPU
	/* The co-pilot counts epochs itself (tiles_done is the watchdog's here), and a task of
	 * one tile ends with it: one release fence and writes the worker does not wait for. */
	if (p->o.mode == SK_PERSIST_COPILOT && p->ntiles[t] == 1) {
		sk_publish(&rt->tile_done[g], e, &rt->ctr[t].done, &rt->sw->tiles_done, 1);
		*task_end = 1;
		return 0;
	}
#endif
	sk_st_release(&rt->tile_done[g], e, SK_DEV);
	jitter(rt, w, SK_AT_COMPLETE);
	old = sk_fetch_add_acq_rel(&rt->ctr[t].done, 1);
	if (task_end)
		*task_end = old + 1 == (uint64_t)p->ntiles[t] * e;
	sk_fetch_add_acq_rel(&rt->sw->tiles_done, 1);
	count(&rt->sw->n_tiles);
	return 0;
}

/* GPU, AOT: the worker's tiles that published nothing go into the epoch's count (after the
 * tiles handed over before). */
static SK_HOT SK_PFN void flush_pending(struct sk_persist *rt)
{
#ifdef SK_PERSIST_GPU
	SK_PERSIST_FLUSH(rt);
#else
	(void)rt;
#endif
}

/*
 * AOT: step @s in epoch @e, its waits read from the step itself; the local ones (producer
 * tiles earlier in this worker's queue) are skipped. On the GPU the tile's order is filled
 * before the waits (it depends on none of them) and handed to the CTA after them; the CTA's
 * warps run it and publish it (skip_task.cuh) while this thread goes on to the next step. A
 * tile publishes only what another worker waits on, with one release fence, together with
 * the tiles before it that published nothing; those count only for the watchdog until then.
 */
static SK_HOT SK_PFN int run_step(struct sk_persist *rt, int w, const struct sk_persist_step *s,
				  uint64_t e)
{
	const struct sk_persist_plan *p = rt->p;
	int err, relaxed = 0; /* a counter was found met by a relaxed load */

#ifdef SK_PERSIST_GPU
	SK_PERSIST_ISSUE(rt, s, e, w);
#endif
	jitter(rt, w, SK_AT_WAIT);
	/* every wait at once first (a row of producer tiles is many), then one by one; then, on
	 * the GPU, an acquire load of each counter that a relaxed load found met (poll()) */
	for (int pass = 0; pass < SK_WAIT_PASSES && (s->flags & SK_STEP_REMOTE); pass++) {
		int met = 1;

		for (int i = 0; i < s->nwait; i++) {
			struct sk_persist_wait x = {0, 0, 0};
			sk_au64 *a;
			uint64_t target;

			if (i < SK_STEP_WAITS)
				x = (struct sk_persist_wait){s->ctr[i], s->per_epoch[i],
							     (s->flags & SK_STEP_LOCAL(i)) != 0};
			else
				x = p->step_wait[s->wait_off + i - SK_STEP_WAITS];
			if (x.local)
				continue;
			a = x.ctr >= 0 ? &rt->ctr[x.ctr].done : &rt->tile_done[-x.ctr - 1];
			target = (uint64_t)x.per_epoch * e;
			if (pass == 0)
				met &= poll(rt, a, target, &relaxed);
			else if (pass == 1 && (err = wait_poll(rt, a, target, w, &relaxed)))
				return err;
			else if (pass == 2)
				(void)sk_ld_acquire(a, SK_DEV);
		}
		if (pass == 0 && met)
			pass++; /* nothing to wait for */
		else if (pass == 0)
			relaxed = 0; /* pass 1 reads each counter again */
		if (pass == 1 && !relaxed)
			break;
	}
#ifdef SK_PERSIST_GPU
	/* a load on the critical path of every tile: every 32nd tile looks (and every wait) */
	if (s->g % 32 == 0 && (err = stopped(rt)))
		return err;
	SK_PERSIST_GO(rt);
	return 0;
#else
	return finish_tile(rt, w, s->task, s->tile, s->g, e, &s->gt, NULL);
#endif
}

/* ---- JIT: readiness by arrivals -------------------------------------------------------------- */

/* A JIT worker's own state. */
struct sk_jit {
	int keep;			    /* the one-tile task it runs next, which it made ready
					     * (-1: none) */
	uint64_t keep_e;		    /* that task's epoch */
	struct sk_persist_jtask keep_jt;    /* its record */
	struct sk_persist_gpu_task keep_gt; /* GPU: its entry, read with the record */
	uint64_t pending;		    /* tiles it ran and has not added to tiles_done yet */
};

/* GPU: @t's entry into *@gt (one load of the task table, which the body needs); the CPU has
 * none. */
static inline SK_PFN void task_entry(struct sk_persist *rt, int t, struct sk_persist_gpu_task *gt)
{
#ifdef SK_PERSIST_GPU
	*gt = rt->gtask[t];
#else
	(void)rt;
	(void)t;
	(void)gt;
#endif
}

/*
 * @t was made ready in epoch @e: its tile-edge consumers count it as arrived (they may start
 * now and wait per tile: their entries land behind @t's, and a kept tile is as good as
 * claimed); the arrival that completes one (acq_rel: it has seen every earlier one and their
 * writes; the fence then releases them to the ring) pushes it and goes on to its own. Tile
 * edges are rare, so this is out of line, the one recursive call of the protocol.
 */
static SK_COLD SK_PFN void tile_arrivals(struct sk_persist *rt, int w, int t, uint64_t e)
{
	const struct sk_persist_plan *p = rt->p;

	for (int i = p->succ_off[t]; i < p->succ_off[t + 1]; i++) {
		int c = p->succ[i];
		const struct sk_persist_jtask jc = p->jtask[c];

		if (!p->succ_tile[i] ||
		    sk_fetch_add_acq_rel(&rt->ctr[c].arrive, 1) + 1 != (uint64_t)jc.need * e)
			continue;
		sk_fence_acq_rel();
		if (jc.flags & SK_JT_LOST)
			continue;
		ring_push(rt, &rt->jit, c, jc.ntiles, w);
		if (jc.flags & SK_JT_TILE_OUT)
			tile_arrivals(rt, w, c, e);
	}
}

/* Keep @t (record @jt) for @j's worker to run next, in epoch @e; its ticket is counted,
 * relaxed, since no one else claims it this epoch. */
static inline SK_PFN void keep_task(struct sk_persist *rt, int t, const struct sk_persist_jtask *jt,
				    uint64_t e, struct sk_jit *j)
{
	task_entry(rt, t, &j->keep_gt);
	sk_add_relaxed(&rt->ctr[t].ticket, 1);
	j->keep = t;
	j->keep_e = e;
	j->keep_jt = *jt;
	count(&rt->sw->n_kept);
}

/*
 * Make @t (record @jt) ready in epoch @e. The caller has fenced (sk_fence_acq_rel()) after
 * everything a worker that runs @t must see. A task that SK_JT_KEEP allows goes to @j's keep
 * when it is free (the worker runs it next, a trip through the ring saved); otherwise its
 * tiles' entries go into the ring. Then its tile-edge consumers arrive (tile_arrivals()).
 */
static inline SK_PFN void push_task(struct sk_persist *rt, int w, int t,
				    const struct sk_persist_jtask *jt, uint64_t e, struct sk_jit *j)
{
	if (jt->flags & SK_JT_LOST)
		return;
	if (j && j->keep < 0 && (jt->flags & SK_JT_KEEP))
		keep_task(rt, t, jt, e, j);
	else
		ring_push(rt, &rt->jit, t, jt->ntiles, w);
	if (jt->flags & SK_JT_TILE_OUT)
		tile_arrivals(rt, w, t, e);
}

static SK_PFN void push_roots(struct sk_persist *rt, int w, uint64_t e, struct sk_jit *j)
{
	for (int i = 0; i < rt->p->nroots; i++) {
		int t = rt->p->roots[i];
		const struct sk_persist_jtask jt = rt->p->jtask[t];

		push_task(rt, w, t, &jt, e, j);
	}
}

SK_COLD SK_PFN int sk_persist_jit_start(struct sk_persist *rt)
{
	/* before any worker claims: what they read was written before the run */
	push_roots(rt, -1, rt->first_epoch, NULL);
	return 0;
}

/*
 * JIT: tile @k of @t (record @jt) ran in epoch @e on worker @w: publish it and make ready
 * what it completes. @s: @t's one successor through a full edge when @t has one tile and no
 * other successor (read before the body ran), else -1.
 * - Held back: when @s has one tile, waits on @t alone, can be kept and has no tile-edge
 *   consumer (push_task() would make them arrive), nobody but @w reads what the tile wrote
 *   before @w runs @s, so it publishes nothing: the counts are added relaxed, the epoch's
 *   with @w's next publication (*pending; the watchdog counts it in progress meanwhile).
 * - Otherwise one fence releases the tile (and those held back), then tile_done (where a tile
 *   edge reads it), the task's and the epoch's counts are written (relaxed on the GPU). The
 *   tile that completes the task adds an arrival to each full-edge successor and makes the
 *   ones it completes ready, after a second fence (acquire) where others' writes are involved
 *   (the task had other tiles, or the successor other producers); the tile that completes the
 *   epoch makes the next one's roots ready, after that fence.
 */
static SK_PFN void jit_complete(struct sk_persist *rt, int w, int t,
				const struct sk_persist_jtask *jt, int s, int k, uint64_t e,
				struct sk_jit *j)
{
	const struct sk_persist_plan *p = rt->p;
	uint64_t old, all, n = 1 + j->pending, epoch = (uint64_t)p->total_tiles * e;
	int acquired = 0;

	count(&rt->sw->n_tiles);
	if (s >= 0 && j->keep < 0) {
		const struct sk_persist_jtask js = p->jtask[s];

		if (js.need == 1 && (js.flags & (SK_JT_KEEP | SK_JT_TILE_OUT)) == SK_JT_KEEP) {
			sk_add_relaxed(&rt->ctr[t].done, 1);
			sk_add_relaxed(&rt->ctr[s].arrive, 1);
			sk_add_relaxed(&rt->sw->progress, 1);
			j->pending++;
			keep_task(rt, s, &js, e, j);
			return;
		}
	}
	sk_fence_acq_rel();
	if (jt->flags & SK_JT_TILE_OUT)
		sk_st_fenced(&rt->tile_done[jt->tile_base + k], e);
	jitter(rt, w, SK_AT_COMPLETE);
	old = sk_fetch_add_fenced(&rt->ctr[t].done, 1);
	all = sk_fetch_add_fenced(&rt->sw->tiles_done, n);
	j->pending = 0;
	if (old + 1 == (uint64_t)jt->ntiles * e) {
		for (int i = jt->succ_off; i < jt->succ_end; i++) {
			struct sk_persist_jtask js;

			if (p->succ_tile[i]) /* it arrived when this task was made ready */
				continue;
			js = p->jtask[p->succ[i]];
			if (sk_fetch_add_fenced(&rt->ctr[p->succ[i]].arrive, 1) + 1 !=
			    (uint64_t)js.need * e)
				continue;
			if (!acquired && (jt->ntiles > 1 || js.need > 1)) {
				sk_fence_acq_rel();
				acquired = 1;
			}
			push_task(rt, w, p->succ[i], &js, e, j);
		}
	}
	if (all < epoch && all + n >= epoch) {
		if (!acquired)
			sk_fence_acq_rel(); /* every tile of the epoch, for its write-after-reads */
		if (e < rt->last_epoch)
			push_roots(rt, w, e + 1, j);
		else /* the run is over: a stop entry for each worker's last claim */
			ring_push(rt, &rt->jit, (int)SK_RING_STOP, p->o.nworkers, w);
	}
}

/* JIT: run tile @k of @t (record @jt, entry @gt: NULL on the CPU) in epoch @e on worker @w,
 * claimed or kept, and complete it; 0, or the error that stops the run. */
static SK_PFN int jit_run(struct sk_persist *rt, int w, int t, const struct sk_persist_jtask *jt,
			  const struct sk_persist_gpu_task *gt, int k, uint64_t e, struct sk_jit *j)
{
	const struct sk_persist_plan *p = rt->p;
	/* read before the body, used after it */
	int s = jt->ntiles == 1 && jt->succ_end - jt->succ_off == 1 && !(jt->flags & SK_JT_TILE_OUT)
		    ? p->succ[jt->succ_off]
		    : -1;
	int err = 0;

	if (jt->flags & SK_JT_TILE_IN)
		err = wait_inputs(rt, t, k, e, w);
	if (!err)
		err = run_body(rt, w, t, k, jt->tile_base + k, e, gt);
	if (!err)
		jit_complete(rt, w, t, jt, s, k, e, j);
	return err;
}

/* ---- the workers ----------------------------------------------------------------------------- */

/* A ticket outside the run's epochs: the protocol is confused; stop with the numbers. */
static SK_COLD SK_PFN int ticket_error(struct sk_persist *rt, int w, int t, uint64_t v, uint64_t e)
{
	struct sk_persist_why why = {};

	why.kind = SK_WHY_TICKET;
	why.task = t;
	why.ticket = v;
	why.epoch = e;
	why.first = rt->first_epoch;
	why.last = rt->last_epoch;
	why.worker = w;
	return sk_persist_stop(rt, SK_PERSIST_E_INVAL, &why);
}

/*
 * Claim a tile of @t through its ticket and run it. The ticket (relaxed fetch_add: it only
 * numbers the claims) gives tiles in claim order, so with entries claimed in ring order a
 * producer's tiles are all claimed before any tile of a consumer pushed or fed behind it; the
 * unfinished claimed tile earliest in ring order waits on nothing unfinished, so it runs,
 * whatever the number of workers.
 */
static inline SK_PFN int claim_and_run(struct sk_persist *rt, int w, int t, struct sk_jit *j)
{
	const struct sk_persist_plan *p = rt->p;
	/* the ticket, the task's record and its entry: three reads at once */
	uint64_t v = sk_fetch_add_relaxed(&rt->ctr[t].ticket, 1);
	const struct sk_persist_jtask jt = p->jtask[t];
	struct sk_persist_gpu_task gt;
	uint64_t e = v / (uint64_t)jt.ntiles + 1;
	int k = (int)(v % (uint64_t)jt.ntiles), task_end = 0, err;

	task_entry(rt, t, &gt);
	if (e < rt->first_epoch || e > rt->last_epoch)
		return ticket_error(rt, w, t, v, e);
	if (p->o.mode == SK_PERSIST_JIT)
		return jit_run(rt, w, t, &jt, rt->gtask ? &gt : NULL, k, e, j);
	if ((err = wait_inputs(rt, t, k, e, w)) ||
	    (err =
		 finish_tile(rt, w, t, k, jt.tile_base + k, e, rt->gtask ? &gt : NULL, &task_end)))
		return err;
	return task_end ? report(rt, w, t) : 0;
}

/* AOT: the worker's queue, every epoch; between epochs, wait for the epoch's end. Out of line
 * on the GPU: one copy of the tile loop, for the resident kernel and a launch alike. */
static SK_COLD SK_PFN void work_aot(struct sk_persist *rt, int w)
{
	const struct sk_persist_plan *p = rt->p;

	for (uint64_t e = rt->first_epoch; e <= rt->last_epoch; e++) {
		int i = p->q_off[w], end = p->q_off[w + 1];

		for (int j = 0; j < SK_STEPS_AHEAD; j++)
			steps_fetch(p, i + j, end);
		for (; i < end; i++) {
			if (run_step(rt, w, steps_get(p, i), e)) {
				steps_done();
				return;
			}
			steps_fetch(p, i + SK_STEPS_AHEAD, end);
		}
		steps_done();
		flush_pending(rt); /* before the barrier that waits for them */
		if (e < rt->last_epoch &&
		    wait_ge(rt, &rt->sw->tiles_done, (uint64_t)p->total_tiles * e, w))
			return;
	}
}

/* ---- resident AOT: between runs ------------------------------------------------------------- */

/* A worker's pause in the resident kernel's idle waits, poll @n. The porter does not sleep on
 * the GPU (the bell's latency); the others sleep 128 ns after 64 polls. The CPU's threads yield
 * (they may outnumber the cores). */
static inline SK_PFN void resident_pause(unsigned n, int porter)
{
#ifdef SK_PERSIST_GPU
	if (!porter && n >= 64)
		__nanosleep(128);
#else
	(void)porter;
	if (n >= 64)
		pause_step(n < 1024 ? 4 : 32);
#endif
}

/* The porter (worker 0's protocol thread): wait for the host's bell to ask for epoch @next or
 * later and let the workers run up to it (sw->go); 0: leave (the host's stop, an error, or
 * linger_ns without a bell). One load of host memory at a time. */
static SK_PFN uint64_t porter_wait(struct sk_persist *rt, uint64_t next)
{
	uint64_t since = now_ns();

	for (unsigned n = 1;; n++) {
		uint64_t b = sk_ld_acquire(rt->bell, SK_SYS), want = b & ~SK_BELL_STOP;

		if (want >= next) { /* a stop comes after the epochs rung before it */
			sk_st_release(&rt->sw->go, want, SK_DEV);
			return want;
		}
		if (b & SK_BELL_STOP)
			return 0;
		if (now_ns() - since > rt->linger_ns || (n % 16 == 0 && stopped(rt)))
			return 0;
		resident_pause(n, 1);
	}
}

/* Any other worker: wait for the porter's go to reach @next; 0: leave. */
static SK_PFN uint64_t go_wait(struct sk_persist *rt, uint64_t next)
{
	for (unsigned n = 0;; n++) {
		uint64_t g = look(rt, &rt->sw->go);

		if (rt->sm_shared && (g == SK_GO_EXIT || g >= next))
			g = sk_ld_acquire(&rt->sw->go, SK_DEV);
		if (g == SK_GO_EXIT)
			return 0;
		if (g >= next)
			return g;
		if (n % 64 == 63 && stopped(rt))
			return 0;
		resident_pause(n, 0);
	}
}

/*
 * Resident AOT: worker @w serves the host's bells from epoch @next on. After its queue, the
 * porter waits for every tile of the epochs it let run (the epoch barrier of the next bell:
 * go is released only after it) and tells the host (release, system scope). The last worker
 * to leave clears go for the next kernel.
 */
SK_PFN void sk_persist_resident(struct sk_persist *rt, int w, uint64_t next)
{
	for (;;) {
		uint64_t last = w == 0 ? porter_wait(rt, next) : go_wait(rt, next);

		if (!last)
			break;
		rt->first_epoch = next;
		rt->last_epoch = last;
		work_aot(rt, w);
		if (w == 0 &&
		    !wait_ge(rt, &rt->sw->tiles_done, (uint64_t)rt->p->total_tiles * last, 0))
			sk_st_release(rt->served, last, SK_SYS);
		if (stopped(rt))
			break;
		next = last + 1;
	}
	if (w == 0) {
		sk_st_release(rt->left, 1, SK_SYS);
		sk_st_release(&rt->sw->go, SK_GO_EXIT, SK_DEV);
	}
	if ((sk_fetch_add_relaxed(&rt->sw->exits, 1) + 1) % (uint64_t)rt->p->o.nworkers == 0)
		sk_st_release(&rt->sw->go, 0, SK_DEV);
}

/* JIT and COPILOT: claim entries until the run is over. */
static SK_COLD SK_PFN void work_ring(struct sk_persist *rt, int w)
{
	int copilot = rt->p->o.mode == SK_PERSIST_COPILOT;
	struct sk_persist_ring *r = &rt->feed;
	struct sk_persist_watch wt;
#ifdef SK_PERSIST_GPU
	/* in shared memory, where it costs the protocol thread no registers */
	static __shared__ struct sk_jit own;
#else
	struct sk_jit own;
#endif
	struct sk_jit *j = &own;

	own = (struct sk_jit){.keep = -1};

	sk_persist_watch_init(rt, &wt);
	/* the abort flag is read while the ring is empty, and by every 32nd tile (run_body()) */
	for (;;) {
		int t;

		if (j->keep >= 0) { /* JIT: the task this worker made ready last */
			const struct sk_persist_jtask jt = j->keep_jt;
			const struct sk_persist_gpu_task gt = j->keep_gt;

			t = j->keep;
			j->keep = -1;
			if (jit_run(rt, w, t, &jt, rt->gtask ? &gt : NULL, 0, j->keep_e, j))
				break;
			continue;
		}
		if (!copilot) { /* JIT: the next position's entry; a stop entry ends the run */
			if ((t = jit_claim(rt, w)) < 0 || t == (int)SK_RING_STOP)
				break;
			jitter(rt, w, SK_AT_CLAIM);
			if (claim_and_run(rt, w, t, j))
				break;
			continue;
		}
		if ((t = sk_persist_ring_pop(r)) < 0) {
			if (stopped(rt))
				break;
			flush_reports(rt, w); /* before it waits: the host may wait on them */
			if (sk_persist_watch_step(rt, &wt, w))
				break;
			continue;
		}
		if (t == (int)SK_RING_STOP) {
			/* one entry stops every worker; the last to see it moves the head past it,
			 * for the next run (which starts after this one's workers have stopped) */
			if ((sk_fetch_add_relaxed(&rt->sw->leavers, 1) + 1) %
				(uint64_t)rt->p->o.nworkers ==
			    0)
				sk_fetch_add_relaxed(r->head, 1);
			break;
		}
		jitter(rt, w, SK_AT_CLAIM);
		if (claim_and_run(rt, w, t, j))
			break;
		sk_persist_watch_init(rt, &wt);
	}
	flush_reports(rt, w);
}

/*
 * The host's release of an entry, the dispatcher's acquire of it (.sys), its release of the
 * tiles' entries into the device ring and a worker's acquire (.gpu): one chain. The host feeds
 * a task only when the tiles in flight leave room for all of its tiles (credit, counted in
 * tiles), so a device slot is overwritten only once the tile that claimed its last entry has
 * been reported done.
 */
#ifdef SK_PERSIST_GPU
/*
 * On the GPU the dispatcher is warp 0 of its CTA. A thread's strong loads of host memory wait
 * for each other (a PCIe round trip each; 16 of them a poll made a dependent chain's task
 * 4 times slower), but one load instruction of the warp reads 32 slots, pos + lane, in one:
 * the leading entries it finds are passed on at once, each by its lane, at the device
 * positions a prefix sum of their tiles gives: 10,000 independent empty tasks cost 0.43 us a
 * task, 1.86 with one slot a poll (H100). The warp reads 32 slots after a poll that found an
 * entry; while the ring is empty lane 0 polls alone, which keeps the idle traffic on PCIe a
 * slot a round trip.
 */
SK_COLD SK_PFN void sk_persist_dispatch(struct sk_persist *rt)
{
	const unsigned all = 0xffffffffu, lane = threadIdx.x & 31;
	uint64_t pos = sk_ld_relaxed(&rt->sw->feed_copied, SK_DEV);
	uint64_t made = sk_ld_relaxed(&rt->sw->feed_made, SK_DEV);
	struct sk_persist_watch wt;
	unsigned idle = 0;
	int stop = 0, wide = 0;

	sk_persist_watch_init(rt, &wt);
	while (!stop) {
		/* a ring of fewer than 32 slots: as many lanes */
		int look = (wide || lane == 0) && lane <= rt->hfeed.mask;
		uint64_t v =
		    look ? sk_ld_acquire(&rt->hfeed.slot[(pos + lane) & rt->hfeed.mask], SK_SYS)
			 : 0;
		uint32_t t = (uint32_t)(v & SK_RING_STOP);
		unsigned got = __ballot_sync(
		    all, look && seq_diff(v >> SK_RING_TASK_BITS, pos + lane + 1) == 0);
		unsigned lead = got == all ? all : (1u << (__ffs(~got) - 1)) - 1;
		unsigned stops = __ballot_sync(all, t == SK_RING_STOP) & lead;
		int n, k, sum;

		if (stops) { /* the stop entry is the last this run passes on */
			lead &= (stops & -stops) * 2 - 1;
			stop = 1;
		}
		wide = lead != 0;
		if (!lead) {
			int err = 0;

			/* no pause: a backoff step (and the watchdog) every 256 polls */
			if (++idle % 256 == 0 && lane == 0)
				err = sk_persist_watch_step(rt, &wt, -1);
			if (__shfl_sync(all, err, 0))
				break;
			continue;
		}
		n = __popc(lead);
		k = (int)lane < n ? t == SK_RING_STOP ? 1 : rt->p->ntiles[t] : 0;
		sum = k; /* inclusive prefix sum of the tiles */
		for (int o = 1; o < 32; o *= 2) {
			int y = __shfl_up_sync(all, sum, (unsigned)o);

			sum += (int)lane >= o ? y : 0;
		}
		for (int i = 0; i < k; i++) {
			uint64_t at = made + (uint64_t)(sum - k + i);

			sk_st_release(&rt->feed.slot[at & rt->feed.mask], ring_word(at + 1, t),
				      SK_DEV);
		}
		made += (uint64_t)__shfl_sync(all, sum, 31);
		pos += (uint64_t)n;
		idle = 0;
	}
	/* where the next launch starts */
	if (lane == 0) {
		sk_st_release(&rt->sw->feed_copied, pos, SK_DEV);
		sk_st_release(&rt->sw->feed_made, made, SK_DEV);
	}
}
#else
/* On the CPU, one thread and one slot at a time. */
SK_COLD SK_PFN void sk_persist_dispatch(struct sk_persist *rt)
{
	uint64_t pos = sk_ld_relaxed(&rt->sw->feed_copied, SK_DEV);
	uint64_t made = sk_ld_relaxed(&rt->sw->feed_made, SK_DEV);
	struct sk_persist_watch wt;
	unsigned idle = 0;
	int stop = 0;

	sk_persist_watch_init(rt, &wt);
	while (!stop) {
		uint64_t v = sk_ld_acquire(&rt->hfeed.slot[pos & rt->hfeed.mask], SK_SYS);
		uint32_t t = (uint32_t)(v & SK_RING_STOP);

		if (seq_diff(v >> SK_RING_TASK_BITS, pos + 1) == 0) {
			int n = t == SK_RING_STOP ? 1 : rt->p->ntiles[t];

			stop = t == SK_RING_STOP;
			for (int i = 0; i < n; i++, made++)
				sk_st_release(&rt->feed.slot[made & rt->feed.mask],
					      ring_word(made + 1, t), SK_DEV);
			pos++;
			idle = 0;
			continue;
		}
		/* poll without a pause: a backoff step (and the watchdog) every 256 polls */
		if (++idle % 256 == 0 && sk_persist_watch_step(rt, &wt, -1))
			break;
	}
	/* where the next launch starts */
	sk_st_release(&rt->sw->feed_copied, pos, SK_DEV);
	sk_st_release(&rt->sw->feed_made, made, SK_DEV);
}
#endif

#ifndef SK_PERSIST_GPU
void sk_persist_work(struct sk_persist *rt, int w)
{
	if (rt->p->o.mode == SK_PERSIST_AOT)
		work_aot(rt, w);
	else
		work_ring(rt, w);
}
#endif
