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
#define SK_LOG_DOMAIN "runtime"
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "skip_common.h"
#include "persist.h"

/* ---- platform: the clock and the pause (GPU: %globaltimer and __nanosleep) ------------------- */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Backoff step @n of a wait: spin a little, then yield, then sleep up to 100 us. Workers here
 * are threads that may outnumber the cores (the GPU's are co-resident CTAs, which sleep
 * with __nanosleep instead of yielding). */
static void pause_step(unsigned n)
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

static inline void jitter(struct sk_persist *rt, int w, enum sk_persist_point at)
{
	if (rt->h.jitter)
		rt->h.jitter(rt->h.ctx, w, at);
}

static inline void count(sk_au64 *stat)
{
	sk_fetch_add_relaxed(stat, 1);
}

/* ---- stopping: errors and the watchdog ------------------------------------------------------- */

int sk_persist_abort(struct sk_persist *rt, int err, const char *fmt, ...)
{
	uint64_t expect = 0;
	va_list ap;

	/* Relaxed: the flag only says "stop". The message is read by the thread that joins the
	 * workers, after pthread_join (GPU: after the kernel ends). */
	while (!sk_cas_relaxed(&rt->abort, &expect, (uint64_t)(-(int64_t)err)))
		if (expect) /* else a weak CAS's spurious failure: try again */
			return -(int)expect;
	va_start(ap, fmt);
	vsnprintf(rt->diag, sizeof(rt->diag), fmt, ap);
	va_end(ap);
	return err;
}

static inline int stopped(struct sk_persist *rt)
{
	uint64_t a = sk_ld_relaxed(&rt->abort, SK_DEV);

	return a ? -(int)a : 0;
}

/* Tiles of @t done in epoch @e (clamped to 0..ntiles). */
static int tiles_of(struct sk_persist *rt, int t, uint64_t e)
{
	uint64_t n = (uint64_t)rt->p->ntiles[t], d = sk_ld_relaxed(&rt->ctr[t].done, SK_DEV);

	if (d <= n * (e - 1))
		return 0;
	return d >= n * e ? (int)n : (int)(d - n * (e - 1));
}

/* The first producer of @t still unfinished in epoch @e, or -1. */
static int unfinished_producer(struct sk_persist *rt, int t, uint64_t e)
{
	const struct sk_persist_plan *p = rt->p;

	for (int i = p->pred_off[t]; i < p->pred_off[t + 1]; i++)
		if (tiles_of(rt, p->pred[i], e) < p->ntiles[p->pred[i]])
			return p->pred[i];
	return -1;
}

/*
 * The watchdog fired: say what is stuck. From the first unfinished task that waits on an
 * unfinished producer, follow unfinished producers until a task repeats (a cycle) or one has
 * all its producers done but has not finished itself (it never ran: a missing producer, or a
 * tile that never returns).
 */
static int stall(struct sk_persist *rt, int worker)
{
	const struct sk_persist_plan *p = rt->p;
	uint64_t done = sk_ld_relaxed(&rt->tiles_done, SK_DEV), e = done / p->total_tiles + 1;
	char msg[sizeof(rt->diag)], who[32];
	const char *tail = "";
	int path[16], n = 0, len, t = -1, end = 0;

	if (e > rt->last_epoch)
		e = rt->last_epoch;
	if (worker >= 0)
		snprintf(who, sizeof(who), "worker %d", worker);
	else
		snprintf(who, sizeof(who), "the co-pilot");
	len = snprintf(msg, sizeof(msg),
		       "watchdog: no tile finished for %llu ms (epoch %llu, %llu of %d tiles done; "
		       "seen by %s)",
		       (unsigned long long)(rt->timeout_ns / 1000000), (unsigned long long)e,
		       (unsigned long long)(done - (e - 1) * p->total_tiles), p->total_tiles, who);
	for (int u = 0; u < p->ntasks && t < 0; u++)
		if (tiles_of(rt, u, e) < p->ntiles[u] && unfinished_producer(rt, u, e) >= 0)
			t = u;
	for (int u = 0; u < p->ntasks && t < 0; u++)
		if (tiles_of(rt, u, e) < p->ntiles[u])
			t = u;
	while (t >= 0 && n < 16) {
		for (int i = 0; i < n; i++)
			if (path[i] == t)
				end = 1;
		path[n++] = t;
		if (end)
			break;
		t = unfinished_producer(rt, t, e);
	}
	for (int i = 0; i < n && len < (int)sizeof(msg); i++)
		len += snprintf(msg + len, sizeof(msg) - (size_t)len,
				"%s task %d (%d of %d tiles done)", i ? ", which waits on" : ":",
				path[i], tiles_of(rt, path[i], e), p->ntiles[path[i]]);
	if (end)
		tail = ": a cycle";
	else if (t < 0 && n)
		tail = ", whose producers are done but which has not finished: it was never "
		       "scheduled (a missing producer), or one of its tiles never returned";
	else if (n)
		tail = " ...";
	if (len < (int)sizeof(msg))
		snprintf(msg + len, sizeof(msg) - (size_t)len, "%s", tail);
	return sk_persist_abort(rt, -ETIMEDOUT, "%s", msg);
}

void sk_persist_watch_init(struct sk_persist *rt, struct sk_persist_watch *wt)
{
	wt->seen = sk_ld_relaxed(&rt->tiles_done, SK_DEV);
	wt->since_ns = 0;
	wt->spins = 0;
}

int sk_persist_watch_step(struct sk_persist *rt, struct sk_persist_watch *wt, int worker)
{
	uint64_t now, cur;
	int err = stopped(rt);

	if (err)
		return err;
	pause_step(wt->spins++);
	if (wt->spins < 4)
		return 0;
	now = now_ns();
	cur = sk_ld_relaxed(&rt->tiles_done, SK_DEV);
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

static inline uint64_t ring_word(uint64_t seq, uint32_t task)
{
	return seq << SK_RING_TASK_BITS | task;
}

/* a - b for 40-bit sequence numbers (wrapping). */
static inline int64_t seq_diff(uint64_t a, uint64_t b)
{
	return (int64_t)((a - b) << SK_RING_TASK_BITS) >> SK_RING_TASK_BITS;
}

/*
 * Claim the entry at the head. The word is read (acquire: it synchronizes with the release
 * that published it, so whatever the publisher wrote before is visible) before the CAS that
 * takes the position; the CAS can be relaxed, since it only decides which consumer owns the
 * entry. A slot is filled for position pos when its sequence is pos + 1; older means empty
 * (not yet published: consumers never skip ahead, so entries are claimed in position order,
 * which the tile-ticket argument relies on), newer means the head moved on.
 */
int sk_persist_ring_pop(struct sk_persist_ring *r, int release, enum sk_scope s)
{
	uint64_t pos = sk_ld_relaxed(&r->head, SK_DEV);

	for (;;) {
		sk_au64 *slot = &r->slot[pos & r->mask];
		uint64_t w = sk_ld_acquire(slot, s);
		int64_t d = seq_diff(w >> SK_RING_TASK_BITS, pos + 1);

		if (d == 0) {
			if (!sk_cas_relaxed(&r->head, &pos, pos + 1))
				continue; /* pos now holds the head */
			/* JIT: free the slot for position pos + capacity (release: the read above
			 * happens before the next producer's write) */
			if (release)
				sk_st_release(slot, ring_word(pos + r->mask + 1, 0), s);
			return (int)(w & SK_RING_STOP);
		}
		if (d < 0)
			return -1;
		pos = sk_ld_relaxed(&r->head, SK_DEV);
	}
}

void sk_persist_ring_put(struct sk_persist_ring *r, uint64_t pos, uint32_t task)
{
	/* Host to device (rule 4): one release store of a word that carries its own position */
	sk_st_release(&r->slot[pos & r->mask], ring_word(pos + 1, task), SK_SYS);
}

/*
 * JIT: push @n entries of @task (one per tile). Positions are reserved with one fetch_add on
 * the tail (relaxed: the reservation orders nothing), then each slot is published with a
 * release store once its consumer of the previous lap has freed it (it has, unless a
 * consumer stalls between claim and release: the ring holds a whole epoch's tiles, and an
 * epoch's entries are all claimed before the next epoch's are pushed).
 */
static int ring_push(struct sk_persist *rt, struct sk_persist_ring *r, int task, int n, int w)
{
	uint64_t pos = sk_fetch_add_relaxed(&r->tail, (uint64_t)n);

	jitter(rt, w, SK_AT_PUBLISH);
	for (int i = 0; i < n; i++, pos++) {
		sk_au64 *slot = &r->slot[pos & r->mask];
		struct sk_persist_watch wt;

		sk_persist_watch_init(rt, &wt);
		while (seq_diff(sk_ld_acquire(slot, SK_DEV) >> SK_RING_TASK_BITS, pos) != 0) {
			int err = sk_persist_watch_step(rt, &wt, w);

			if (err)
				return err;
		}
		sk_st_release(slot, ring_word(pos + 1, (uint32_t)task), SK_DEV);
	}
	return 0;
}

/* ---- co-pilot reports ------------------------------------------------------------------------ */

/* Publish worker @w's gathered reports: one release store of the tail (rule 3: the ids are
 * written before it; GPU: st.release.sys, after fence.sc.sys in the CUDA mapping). */
static void flush_reports(struct sk_persist *rt, int w)
{
	struct sk_persist_reports *r;

	if (rt->p->o.mode != SK_PERSIST_COPILOT || w < 0)
		return;
	r = &rt->rep[w];
	if (r->local == sk_ld_relaxed(&r->tail, SK_SYS))
		return;
	jitter(rt, w, SK_AT_REPORT);
	sk_st_release(&r->tail, r->local, SK_SYS);
	count(&rt->n_batches);
}

/* Worker @w reports that @task completed; published every report_batch, or when it idles. */
static int report(struct sk_persist *rt, int w, int task)
{
	struct sk_persist_reports *r = &rt->rep[w];
	uint64_t cap = (uint64_t)rt->p->report_cap;
	struct sk_persist_watch wt;

	sk_persist_watch_init(rt, &wt);
	while (r->local - r->head_seen >= cap) {
		int err;

		flush_reports(rt, w);
		/* acquire: the host read those ids before it released the head (no overwrite) */
		r->head_seen = sk_ld_acquire(&r->head, SK_SYS);
		if (r->local - r->head_seen >= cap && (err = sk_persist_watch_step(rt, &wt, w)))
			return err;
	}
	r->ids[r->local & (cap - 1)] = (uint32_t)task;
	r->local++;
	count(&rt->n_reports);
	if (r->local - sk_ld_relaxed(&r->tail, SK_SYS) >= (uint64_t)rt->p->o.report_batch)
		flush_reports(rt, w);
	return 0;
}

/* ---- tiles ----------------------------------------------------------------------------------- */

/* Wait until *@a >= @target (acquire: rule 1, the consumer side). A worker of the co-pilot
 * publishes its reports before it blocks, so the host never waits on them. */
static int wait_ge(struct sk_persist *rt, sk_au64 *a, uint64_t target, int w)
{
	struct sk_persist_watch wt;

	if (sk_ld_acquire(a, SK_DEV) >= target)
		return 0;
	count(&rt->n_waits);
	flush_reports(rt, w);
	sk_persist_watch_init(rt, &wt);
	do {
		int err = sk_persist_watch_step(rt, &wt, w);

		if (err)
			return err;
	} while (sk_ld_acquire(a, SK_DEV) < target);
	return 0;
}

/* Tile @k of @t, epoch @e: wait for exactly the producer tiles it reads. */
static int wait_inputs(struct sk_persist *rt, int t, int k, uint64_t e, int w)
{
	const struct sk_persist_plan *p = rt->p;

	jitter(rt, w, SK_AT_WAIT);
	for (int i = p->pred_off[t]; i < p->pred_off[t + 1]; i++) {
		int q = p->pred[i], lo, hi, err = 0;

		if (!p->pred_tile[i]) {
			err = wait_ge(rt, &rt->ctr[q].done, (uint64_t)p->ntiles[q] * e, w);
		} else {
			sk_persist_tile_range(k, p->ntiles[t], p->ntiles[q], &lo, &hi);
			for (int j = lo; j < hi && !err; j++)
				err = wait_ge(rt, &rt->tile_done[p->tile_base[q] + j], e, w);
		}
		if (err)
			return err;
	}
	return 0;
}

/*
 * Run tile @k of @t in epoch @e and publish it: tile_done[g] = e (release: rule 1's producer
 * side; on the GPU after __syncthreads(), by one thread), then the task's and the epoch's
 * counters with acq_rel read-modify-writes: release to publish this tile, acquire so that the
 * tile that completes a task (or an epoch) has seen every other tile's writes before it makes
 * successors ready, and passes them on. Sets *@task_end and *@epoch_end when this tile was the
 * task's or the epoch's last.
 */
static int run_tile(struct sk_persist *rt, int w, int t, int k, uint64_t e, int *task_end,
		    int *epoch_end)
{
	const struct sk_persist_plan *p = rt->p;
	int err = wait_inputs(rt, t, k, e, w);
	uint64_t old;

	if (err)
		return err;
	if ((err = stopped(rt)))
		return err;
	err = rt->h.body(rt->h.ctx, t, k, e, w);
	if (err)
		return sk_persist_abort(rt, err,
					"task %d tile %d (epoch %llu) failed on worker %d: %s", t,
					k, (unsigned long long)e, w, skip_strerror(err));
	sk_st_release(&rt->tile_done[p->tile_base[t] + k], e, SK_DEV);
	jitter(rt, w, SK_AT_COMPLETE);
	old = sk_fetch_add_acq_rel(&rt->ctr[t].done, 1);
	*task_end = old + 1 == (uint64_t)p->ntiles[t] * e;
	old = sk_fetch_add_acq_rel(&rt->tiles_done, 1);
	*epoch_end = old + 1 == (uint64_t)p->total_tiles * e;
	count(&rt->n_tiles);
	return 0;
}

/* ---- JIT: readiness by arrivals -------------------------------------------------------------- */

static int arrive(struct sk_persist *rt, int w, int t, uint64_t e);

/*
 * Make @t ready in epoch @e: its tiles' entries go into the ring, then its tile-edge consumers
 * count it as arrived (they may start now and wait per tile: their entries land behind
 * these, so producer tiles are claimed first). Recursion follows chains of tile edges only
 * (GPU: an explicit stack).
 */
static int push_task(struct sk_persist *rt, int w, int t, uint64_t e)
{
	const struct sk_persist_plan *p = rt->p;
	int err;

	if (p->lost[t])
		return 0;
	if ((err = ring_push(rt, &rt->jit, t, p->ntiles[t], w)))
		return err;
	for (int i = p->succ_off[t]; i < p->succ_off[t + 1] && !err; i++)
		if (p->succ_tile[i])
			err = arrive(rt, w, p->succ[i], e);
	return err;
}

/* A producer of @t arrived (completed, or pushed for a tile edge). acq_rel: the arrival that
 * makes @t ready has seen every earlier one and their writes. */
static int arrive(struct sk_persist *rt, int w, int t, uint64_t e)
{
	const struct sk_persist_plan *p = rt->p;
	uint64_t need = (uint64_t)(p->pred_off[t + 1] - p->pred_off[t]);

	if (sk_fetch_add_acq_rel(&rt->ctr[t].arrive, 1) + 1 == need * e)
		return push_task(rt, w, t, e);
	return 0;
}

static int push_roots(struct sk_persist *rt, int w, uint64_t e)
{
	int err = 0;

	for (int i = 0; i < rt->p->nroots && !err; i++)
		err = push_task(rt, w, rt->p->roots[i], e);
	return err;
}

int sk_persist_jit_start(struct sk_persist *rt)
{
	return push_roots(rt, -1, rt->first_epoch);
}

/* ---- the workers ----------------------------------------------------------------------------- */

/*
 * Claim a tile of @t through its ticket and run it. The ticket (relaxed fetch_add: it only
 * numbers the claims) gives tiles in claim order, so with entries claimed in ring order a
 * producer's tiles are all claimed before any tile of a consumer pushed or fed behind it; the
 * unfinished claimed tile earliest in ring order waits on nothing unfinished, so it runs,
 * whatever the number of workers.
 */
static int claim_and_run(struct sk_persist *rt, int w, int t)
{
	const struct sk_persist_plan *p = rt->p;
	uint64_t v = sk_fetch_add_relaxed(&rt->ctr[t].ticket, 1),
		 e = v / (uint64_t)p->ntiles[t] + 1;
	int k = (int)(v % (uint64_t)p->ntiles[t]), task_end = 0, epoch_end = 0, err;

	if (e < rt->first_epoch || e > rt->last_epoch)
		return sk_persist_abort(
		    rt, SKIP_E_INVAL,
		    "task %d: ticket %llu is epoch %llu, outside the run's %llu..%llu", t,
		    (unsigned long long)v, (unsigned long long)e,
		    (unsigned long long)rt->first_epoch, (unsigned long long)rt->last_epoch);
	if ((err = run_tile(rt, w, t, k, e, &task_end, &epoch_end)))
		return err;
	if (p->o.mode == SK_PERSIST_COPILOT)
		return task_end ? report(rt, w, t) : 0;
	for (int i = p->succ_off[t]; task_end && i < p->succ_off[t + 1] && !err; i++)
		if (!p->succ_tile[i])
			err = arrive(rt, w, p->succ[i], e);
	if (!err && epoch_end && e < rt->last_epoch)
		err = push_roots(rt, w, e + 1);
	return err;
}

/* AOT: the worker's queue, every epoch; between epochs, wait for the epoch's end. */
static void work_aot(struct sk_persist *rt, int w)
{
	const struct sk_persist_plan *p = rt->p;

	for (uint64_t e = rt->first_epoch; e <= rt->last_epoch; e++) {
		for (int i = p->q_off[w]; i < p->q_off[w + 1]; i++) {
			int g = p->q[i], t = p->tile_task[g], task_end, epoch_end;

			if (run_tile(rt, w, t, g - p->tile_base[t], e, &task_end, &epoch_end))
				return;
		}
		if (e < rt->last_epoch &&
		    wait_ge(rt, &rt->tiles_done, (uint64_t)p->total_tiles * e, w))
			return;
	}
}

/* JIT and COPILOT: claim entries until the run is over. */
static void work_ring(struct sk_persist *rt, int w)
{
	int copilot = rt->p->o.mode == SK_PERSIST_COPILOT;
	struct sk_persist_ring *r = copilot ? &rt->feed : &rt->jit;
	uint64_t end = (uint64_t)rt->p->total_tiles * rt->last_epoch;
	struct sk_persist_watch wt;

	sk_persist_watch_init(rt, &wt);
	while (!stopped(rt)) {
		int t = sk_persist_ring_pop(r, !copilot, copilot ? SK_SYS : SK_DEV);

		if (t < 0) {
			flush_reports(rt, w);
			/* JIT ends when the last epoch has; the co-pilot sends stop entries */
			if (!copilot && sk_ld_acquire(&rt->tiles_done, SK_DEV) >= end)
				break;
			if (sk_persist_watch_step(rt, &wt, w))
				break;
			continue;
		}
		if (t == (int)SK_RING_STOP)
			break;
		jitter(rt, w, SK_AT_CLAIM);
		if (claim_and_run(rt, w, t))
			break;
		sk_persist_watch_init(rt, &wt);
	}
	flush_reports(rt, w);
}

void sk_persist_work(struct sk_persist *rt, int w)
{
	if (rt->p->o.mode == SK_PERSIST_AOT)
		work_aot(rt, w);
	else
		work_ring(rt, w);
}
