/*
 * persist_host.c: E5's host side on the CPU (persist.h): the run-time state, one thread per
 * worker standing in for the CTAs of one cooperative launch, the co-pilot, and run: start,
 * wait for every worker, report the first error. On the GPU the same steps become: allocate
 * and zero the counters and rings (device memory; the feed ring and the report rings
 * host-mapped), launch the kernel, run the co-pilot on the calling thread, synchronize.
 *
 * The co-pilot (COPILOT mode) is the calling thread. It holds the ready set of the current
 * epoch in memory of its own (so it may reset it each epoch; the shared counters it never
 * touches), feeds the ring one tile entry at a time, and reads the workers' batched reports:
 *   - a task is ready when every producer was reported done; it is fed first;
 *   - a task is speculative when every producer has been fed but some are not reported done;
 *     up to o.lookahead such tasks may be in flight. The workers gate every tile on the
 *     counters, so speculation can be early but never wrong (CCKS's speculative enqueue,
 *     without the mis-speculation it has to repair); it takes the PCIe round trip off the
 *     critical path (research/runtime.md section 7.2);
 *   - credit: the ring is never more than feed_cap entries ahead of the tiles reported done,
 *     which is what keeps the host from overwriting an entry not yet claimed (entries are
 *     claimed in order, and every completed tile claimed one);
 *   - an epoch ends when every task was reported; then the next one starts; after the last,
 *     one stop entry, which every worker sees (it is not claimed).
 */
#define SK_LOG_DOMAIN "runtime"
#include <assert.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skip_common.h"
#include "persist.h"

enum task_state { WAITING, CANDIDATE, READY, FEEDING, FED, DONE };

struct worker_arg {
	struct sk_persist *rt;
	int w;
};

struct fifo {
	int *v; /* [ntasks]: a task enters each FIFO at most once an epoch */
	int head, n;
};

struct sk_persist_host {
	pthread_t *threads;	 /* [nworkers] */
	struct worker_arg *args; /* [nworkers] */
	/* the co-pilot's, per epoch */
	int *pend_done, *pend_enq; /* [ntasks] producers not reported done / not yet fed */
	unsigned char *state;	   /* [ntasks] enum task_state */
	unsigned char *spec;	   /* [ntasks] fed speculatively */
	struct fifo ready, cand;
	int cur, cur_left; /* the task being fed and its tiles still to feed; -1: none */
	int ndone;	   /* tasks reported done this epoch */
	int spec_out;	   /* speculative tasks fed and not reported done */
	/* the co-pilot's, across epochs */
	uint64_t feed_pos;		 /* next feed ring position (all runs) */
	uint64_t run_fed, run_completed; /* tiles fed / reported done in this run */
	uint64_t spec_enqueues, max_inflight, max_spec;
	int gpu; /* sk_persist_copilot_new(): the rings are the caller's, the workers CTAs */
	int (*idle)(void *ctx); /* the GPU's: a round with nothing to do */
	void *idle_ctx;
};

static void fifo_push(struct fifo *f, int cap, int t)
{
	f->v[(f->head + f->n++) % cap] = t;
}

static int fifo_pop(struct fifo *f, int cap)
{
	int t = f->v[f->head];

	f->head = (f->head + 1) % cap;
	f->n--;
	return t;
}

void sk_persist_free(struct sk_persist *rt)
{
	int gpu = rt && rt->host && rt->host->gpu;

	if (!rt)
		return;
	if (rt->own && !gpu)
		for (int w = 0; w < rt->p->o.nworkers; w++)
			free(rt->own[w].ids);
	free(rt->own);
	if (!gpu) {
		free(rt->rep);
		free(rt->feed.slot);
	}
	if (rt->host) {
		free(rt->host->threads);
		free(rt->host->args);
		free(rt->host->pend_done);
		free(rt->host->pend_enq);
		free(rt->host->state);
		free(rt->host->spec);
		free(rt->host->ready.v);
		free(rt->host->cand.v);
		free(rt->host);
	}
	free(rt->ctr);
	free(rt->tile_done);
	free(rt->jit.slot);
	free(rt->sw);
	free(rt);
}

/* Zeroed memory aligned for the 128-byte lines of struct sk_persist's counters. */
static void *zalloc128(size_t n)
{
	size_t size = (n + 127) / 128 * 128;
	void *m = aligned_alloc(128, size ? size : 128);

	if (m)
		memset(m, 0, size);
	return m;
}

static int alloc_host(struct sk_persist *rt)
{
	const struct sk_persist_plan *p = rt->p;
	struct sk_persist_host *h = calloc(1, sizeof(*h));
	size_t N = (size_t)p->ntasks, W = (size_t)p->o.nworkers;

	if (!(rt->host = h))
		return SKIP_E_NOMEM;
	h->threads = calloc(W, sizeof(pthread_t));
	h->args = calloc(W, sizeof(*h->args));
	h->pend_done = calloc(N, sizeof(int));
	h->pend_enq = calloc(N, sizeof(int));
	h->state = calloc(N, 1);
	h->spec = calloc(N, 1);
	h->ready.v = calloc(N, sizeof(int));
	h->cand.v = calloc(N, sizeof(int));
	if (!h->threads || !h->args || !h->pend_done || !h->pend_enq || !h->state || !h->spec ||
	    !h->ready.v || !h->cand.v)
		return SKIP_E_NOMEM;
	for (size_t w = 0; w < W; w++)
		h->args[w] = (struct worker_arg){rt, (int)w};
	return 0;
}

static int alloc_rings(struct sk_persist *rt)
{
	const struct sk_persist_plan *p = rt->p;

	rt->jit.mask = (uint64_t)p->jit_cap - 1;
	rt->jit.head = &rt->sw->jit_head;
	rt->jit.tail = &rt->sw->jit_tail;
	rt->feed.mask = (uint64_t)p->feed_cap - 1;
	rt->feed.head = &rt->sw->feed_head;
	rt->jit.slot = malloc(sizeof(sk_au64) * (size_t)p->jit_cap);
	rt->feed.slot = malloc(sizeof(sk_au64) * (size_t)p->feed_cap);
	rt->rep = zalloc128(sizeof(*rt->rep) * (size_t)p->o.nworkers);
	rt->own = calloc((size_t)p->o.nworkers, sizeof(*rt->own));
	if (!rt->jit.slot || !rt->feed.slot || !rt->rep || !rt->own)
		return SKIP_E_NOMEM;
	/* JIT slot i starts free for position i (sequence i); feed slots start empty (0) */
	for (int i = 0; i < p->jit_cap; i++)
		atomic_init(&rt->jit.slot[i], (uint64_t)i << SK_RING_TASK_BITS);
	for (int i = 0; i < p->feed_cap; i++)
		atomic_init(&rt->feed.slot[i], 0);
	for (int w = 0; w < p->o.nworkers; w++)
		if (!(rt->own[w].ids = malloc(sizeof(uint32_t) * (size_t)p->report_cap)))
			return SKIP_E_NOMEM;
	return 0;
}

struct sk_persist *sk_persist_new(const struct sk_persist_plan *p, const struct sk_persist_hooks *h,
				  int *err)
{
	struct sk_persist *rt;

	*err = 0;
	if (!p || !h || !h->body) {
		*err = sk_fail(SKIP_E_INVAL, "persistent run: no plan or no task body");
		return NULL;
	}
	rt = zalloc128(sizeof(*rt));
	if (!rt) {
		*err = sk_fail(SKIP_E_NOMEM, "out of memory");
		return NULL;
	}
	rt->p = p;
	rt->h = *h;
	rt->timeout_ns = (uint64_t)p->o.watchdog_ms * 1000000u;
	rt->sw = zalloc128(sizeof(*rt->sw));
	rt->ctr = zalloc128(sizeof(*rt->ctr) * (size_t)p->ntasks);
	rt->tile_done = calloc((size_t)p->total_tiles, sizeof(sk_au64));
	if (!rt->sw || !rt->ctr || !rt->tile_done || alloc_rings(rt) || alloc_host(rt)) {
		sk_persist_free(rt);
		*err = sk_fail(SKIP_E_NOMEM, "out of memory");
		return NULL;
	}
	return rt;
}

/* ---- the co-pilot ---------------------------------------------------------------------------- */

static void task_reported(struct sk_persist *rt, int t)
{
	const struct sk_persist_plan *p = rt->p;
	struct sk_persist_host *h = rt->host;

	assert(h->state[t] == FED);
	h->state[t] = DONE;
	h->ndone++;
	h->run_completed += (uint64_t)p->ntiles[t];
	if (h->spec[t])
		h->spec_out--;
	for (int i = p->succ_off[t]; i < p->succ_off[t + 1]; i++) {
		int s = p->succ[i];

		if (--h->pend_done[s] == 0 && !p->lost[s] &&
		    (h->state[s] == WAITING || h->state[s] == CANDIDATE)) {
			h->state[s] = READY;
			fifo_push(&h->ready, p->ntasks, s);
		}
	}
}

/* Read every worker's published reports (acquire: rule 3's host side), then give the slots
 * back (release: the ids were read before the worker may overwrite them). */
static int drain(struct sk_persist *rt)
{
	const struct sk_persist_plan *p = rt->p;
	uint64_t mask = (uint64_t)p->report_cap - 1;
	int n = 0;

	for (int w = 0; w < p->o.nworkers; w++) {
		struct sk_persist_reports *r = &rt->rep[w];
		const uint32_t *ids = rt->own[w].ids;
		uint64_t tail = sk_ld_acquire(&r->tail, SK_SYS),
			 head = sk_ld_relaxed(&r->head, SK_SYS);

		if (head == tail)
			continue;
		for (; head != tail; head++, n++)
			task_reported(rt, (int)ids[head & mask]);
		sk_st_release(&r->head, tail, SK_SYS);
	}
	return n;
}

/* The next task to feed: a ready one, else a speculative one within the lookahead; -1. */
static int next_task(struct sk_persist *rt)
{
	struct sk_persist_host *h = rt->host;
	int n = rt->p->ntasks;

	while (h->ready.n) {
		int t = fifo_pop(&h->ready, n);

		if (h->state[t] == READY)
			return t;
	}
	while (h->cand.n && h->spec_out < rt->p->o.lookahead) {
		int t = h->cand.v[h->cand.head];

		/* On the GPU, speculative tiles go only to workers that would idle: a worker that
		 * claims one waits on its producer, and the ready tasks fed after it wait behind
		 * it in the ring (on the large ML DAG, two branches of 64-tile tasks ran one after
		 * the other). */
		if (h->gpu && h->state[t] == CANDIDATE &&
		    h->run_fed - h->run_completed + (uint64_t)rt->p->ntiles[t] >
			(uint64_t)rt->p->o.nworkers)
			break;
		fifo_pop(&h->cand, n);
		if (h->state[t] != CANDIDATE) /* became ready meanwhile: fed from there */
			continue;
		h->spec[t] = 1;
		h->spec_enqueues++;
		if (++h->spec_out > (int)h->max_spec)
			h->max_spec = (uint64_t)h->spec_out;
		return t;
	}
	return -1;
}

/* Every tile of @t is in the ring: its consumers whose producers are all fed become
 * candidates for speculation. */
static void task_fed(struct sk_persist *rt, int t)
{
	const struct sk_persist_plan *p = rt->p;
	struct sk_persist_host *h = rt->host;

	h->state[t] = FED;
	for (int i = p->succ_off[t]; i < p->succ_off[t + 1]; i++) {
		int s = p->succ[i];

		if (--h->pend_enq[s] == 0 && !p->lost[s] && h->state[s] == WAITING) {
			h->state[s] = CANDIDATE;
			fifo_push(&h->cand, p->ntasks, s);
		}
	}
}

/* Feed tile entries while there is work and credit; returns how many. */
static int feed(struct sk_persist *rt)
{
	struct sk_persist_host *h = rt->host;
	uint64_t cap = (uint64_t)rt->p->feed_cap;
	int n = 0;

	for (;;) {
		if (h->cur < 0) {
			if ((h->cur = next_task(rt)) < 0)
				break;
			h->cur_left = rt->p->ntiles[h->cur];
			h->state[h->cur] = FEEDING;
		}
		if (h->gpu) { /* one entry a task: the dispatcher makes its tiles' entries */
			uint64_t nt = (uint64_t)h->cur_left;

			if (h->run_fed + nt - h->run_completed > cap)
				break; /* out of credit until reports come back */
			sk_persist_ring_put(&rt->feed, h->feed_pos++, (uint32_t)h->cur);
			h->run_fed += nt;
			h->cur_left = 0;
			n++;
			if (h->run_fed - h->run_completed > h->max_inflight)
				h->max_inflight = h->run_fed - h->run_completed;
		}
		while (h->cur_left && h->run_fed - h->run_completed < cap) {
			if (rt->h.jitter)
				rt->h.jitter(rt->h.ctx, -1, SK_AT_FEED);
			sk_persist_ring_put(&rt->feed, h->feed_pos++, (uint32_t)h->cur);
			h->run_fed++;
			h->cur_left--;
			n++;
			if (h->run_fed - h->run_completed > h->max_inflight)
				h->max_inflight = h->run_fed - h->run_completed;
		}
		if (h->cur_left)
			break; /* out of credit until reports come back */
		task_fed(rt, h->cur);
		h->cur = -1;
	}
	return n;
}

static int copilot_epoch(struct sk_persist *rt)
{
	const struct sk_persist_plan *p = rt->p;
	struct sk_persist_host *h = rt->host;
	struct sk_persist_watch wt;

	for (int t = 0; t < p->ntasks; t++) {
		h->pend_done[t] = h->pend_enq[t] = p->pred_off[t + 1] - p->pred_off[t];
		h->state[t] = WAITING;
		h->spec[t] = 0;
	}
	h->ready.head = h->ready.n = h->cand.head = h->cand.n = 0;
	h->ndone = h->spec_out = 0;
	h->cur = -1;
	for (int i = 0; i < p->nroots; i++)
		if (!p->lost[p->roots[i]]) {
			h->state[p->roots[i]] = READY;
			fifo_push(&h->ready, p->ntasks, p->roots[i]);
		}
	sk_persist_watch_init(rt, &wt);
	while (h->ndone < p->ntasks) {
		int err = sk_ld_relaxed(&rt->sw->abort, SK_DEV) ? -1 : 0;

		if (err)
			return err;
		if (rt->h.jitter)
			rt->h.jitter(rt->h.ctx, -1, SK_AT_HOST);
		if (drain(rt) + feed(rt)) {
			sk_persist_watch_init(rt, &wt);
			continue;
		}
		/* the GPU's co-pilot spins: a report waits for it, not it for a backoff step */
		if ((err = h->idle ? h->idle(h->idle_ctx) : sk_persist_watch_step(rt, &wt, -1)))
			return err;
	}
	return 0;
}

static int copilot(struct sk_persist *rt)
{
	struct sk_persist_host *h = rt->host;
	int err = 0;

	h->run_fed = h->run_completed = 0;
	for (uint64_t e = rt->first_epoch; e <= rt->last_epoch && !err; e++)
		err = copilot_epoch(rt);
	if (err && !h->gpu)
		return err; /* the threads see the abort */
	/* everything reported: the ring is empty, and holds the stop entry, which every worker
	 * sees and none claims (on the GPU also after an error, so that workers waiting on the
	 * ring leave; an entry not claimed may be overwritten, the run is over) */
	sk_persist_ring_put(&rt->feed, h->feed_pos++, SK_RING_STOP);
	return err;
}

struct sk_persist *sk_persist_copilot_new(const struct sk_persist_plan *p, sk_au64 *feed_slots,
					  struct sk_persist_reports *rep, uint32_t *ids,
					  int (*idle)(void *ctx), void *ctx, int *err)
{
	struct sk_persist *rt = zalloc128(sizeof(*rt));

	*err = 0;
	if (rt)
		rt->p = p;
	if (!rt || !(rt->sw = zalloc128(sizeof(*rt->sw))) ||
	    !(rt->own = calloc((size_t)p->o.nworkers, sizeof(*rt->own))) || alloc_host(rt)) {
		sk_persist_free(rt); /* nothing of the caller's is in it yet */
		*err = sk_fail(SKIP_E_NOMEM, "out of memory");
		return NULL;
	}
	rt->host->gpu = 1;
	rt->host->idle = idle;
	rt->host->idle_ctx = ctx;
	rt->timeout_ns = (uint64_t)p->o.watchdog_ms * 1000000u;
	rt->feed.slot = feed_slots;
	rt->feed.mask = (uint64_t)p->feed_cap - 1;
	rt->rep = rep;
	for (int w = 0; w < p->o.nworkers; w++)
		rt->own[w].ids = ids + (size_t)w * (size_t)p->report_cap;
	return rt;
}

int sk_persist_copilot_run(struct sk_persist *rt, uint64_t first, int niters)
{
	rt->first_epoch = first;
	rt->last_epoch = first + (uint64_t)niters - 1;
	return copilot(rt);
}

/* ---- stopping ---------------------------------------------------------------------------------
 */

int sk_persist_abort(struct sk_persist *rt, int err, const char *fmt, ...)
{
	struct sk_persist_why why = {.kind = SK_WHY_TEXT};
	va_list ap;
	int got = sk_persist_stop(rt, err, &why);

	if (got != err || rt->sw->why.kind != SK_WHY_TEXT)
		return got;
	va_start(ap, fmt);
	vsnprintf(rt->diag, sizeof(rt->diag), fmt, ap);
	va_end(ap);
	return err;
}

/* "task 3", or "task 'name'" where the state has names. */
static const char *task_text(const struct sk_persist *rt, int t, char *buf, size_t n)
{
	if (rt->names && t >= 0 && t < rt->p->ntasks)
		snprintf(buf, n, "task '%s'", rt->names[t]);
	else
		snprintf(buf, n, "task %d", t);
	return buf;
}

static const char *who(int worker, char *buf, size_t n)
{
	if (worker < 0)
		return "the co-pilot";
	snprintf(buf, n, "worker %d", worker);
	return buf;
}

void sk_persist_why_text(struct sk_persist *rt)
{
	const struct sk_persist_why *y = &rt->sw->why;
	char *m = rt->diag, wbuf[32], tbuf[160];
	size_t cap = sizeof(rt->diag);
	int len = 0;

	switch (y->kind) {
	case SK_WHY_BODY:
		snprintf(m, cap, "%s tile %d (epoch %llu) failed on worker %d: %s",
			 task_text(rt, y->task, tbuf, sizeof(tbuf)), y->tile,
			 (unsigned long long)y->epoch, y->worker,
			 skip_strerror(-(int)sk_ld_relaxed(&rt->sw->abort, SK_DEV)));
		break;
	case SK_WHY_TICKET:
		snprintf(m, cap, "%s: ticket %llu is epoch %llu, outside the run's %llu..%llu",
			 task_text(rt, y->task, tbuf, sizeof(tbuf)), (unsigned long long)y->ticket,
			 (unsigned long long)y->epoch, (unsigned long long)y->first,
			 (unsigned long long)y->last);
		break;
	case SK_WHY_STALL:
		len =
		    snprintf(m, cap,
			     "watchdog: no tile finished for %llu ms (epoch %llu, %llu of %d tiles "
			     "done; seen by %s)",
			     (unsigned long long)(rt->timeout_ns / 1000000),
			     (unsigned long long)y->epoch, (unsigned long long)y->done,
			     rt->p->total_tiles, who(y->worker, wbuf, sizeof(wbuf)));
		for (int i = 0; i < y->npath && len < (int)cap; i++)
			len += snprintf(m + len, cap - (size_t)len, "%s %s (%d of %d tiles done)",
					i ? ", which waits on" : ":",
					task_text(rt, y->path[i], tbuf, sizeof(tbuf)),
					y->path_done[i], rt->p->ntiles[y->path[i]]);
		if (len < (int)cap)
			snprintf(m + len, cap - (size_t)len, "%s",
				 y->end == 1   ? ": a cycle"
				 : y->end == 2 ? ", whose producers are done but which has not "
						 "finished: it was never scheduled (a missing "
						 "producer), or one of its tiles never returned"
				 : y->npath    ? " ..."
					       : "");
		break;
	case SK_WHY_TRAP:
		snprintf(m, cap,
			 "the GPU stopped the kernel (a trap or a fault) while %s ran %s tile "
			 "%d (epoch %llu)",
			 who(y->worker, wbuf, sizeof(wbuf)),
			 task_text(rt, y->task, tbuf, sizeof(tbuf)), y->tile,
			 (unsigned long long)y->epoch);
		break;
	default: /* TEXT: already there */
		break;
	}
}

/* ---- run ------------------------------------------------------------------------------------- */

static void *worker_main(void *arg)
{
	struct worker_arg *a = arg;

	sk_persist_work(a->rt, a->w);
	return NULL;
}

uint64_t sk_persist_epoch(const struct sk_persist *rt)
{
	return sk_ld_relaxed(&rt->sw->tiles_done, SK_DEV) / (uint64_t)rt->p->total_tiles;
}

int sk_persist_run(struct sk_persist *rt, int niters)
{
	const struct sk_persist_plan *p = rt->p;
	struct sk_persist_host *h = rt->host;
	int started = 0, err = 0;
	uint64_t ab;

	if (rt->spent)
		return sk_fail(SKIP_E_INVAL, "persistent run: an earlier run stopped on an error, "
					     "which left its counters mid-epoch; make a new state");
	if (niters < 1)
		return sk_fail(SKIP_E_INVAL, "persistent run: %d iterations", niters);
	rt->first_epoch = sk_persist_epoch(rt) + 1;
	rt->last_epoch = rt->first_epoch + (uint64_t)niters - 1;
	if (p->o.mode == SK_PERSIST_JIT && (err = sk_persist_jit_start(rt)))
		sk_persist_abort(rt, err, "cannot push the roots of epoch %llu",
				 (unsigned long long)rt->first_epoch);
	while (!err && started < p->o.nworkers) {
		err = pthread_create(&h->threads[started], NULL, worker_main, &h->args[started]);
		if (err) /* the started ones see the abort and leave */
			sk_persist_abort(rt, -err, "cannot start worker thread %d of %d", started,
					 p->o.nworkers);
		else
			started++;
	}
	if (!err && p->o.mode == SK_PERSIST_COPILOT)
		(void)copilot(rt); /* its error is the abort's, reported below */
	for (int w = 0; w < started; w++)
		pthread_join(h->threads[w], NULL);
	ab = sk_ld_relaxed(&rt->sw->abort, SK_DEV);
	if (ab) {
		rt->spent = 1;
		sk_persist_why_text(rt);
		return sk_fail(-(int)ab, "persistent run (%s, %d workers): %s",
			       sk_persist_mode_name(p->o.mode), p->o.nworkers, rt->diag);
	}
	assert(sk_persist_epoch(rt) == rt->last_epoch);
	return 0;
}

void sk_persist_get_stats(const struct sk_persist *rt, struct sk_persist_stats *out)
{
	sk_au64 *n_tiles = &rt->sw->n_tiles, *n_waits = &rt->sw->n_waits;
	sk_au64 *n_reports = &rt->sw->n_reports, *n_batches = &rt->sw->n_batches;

	*out = (struct sk_persist_stats){
	    .tiles = sk_ld_relaxed(n_tiles, SK_DEV),
	    .waits = sk_ld_relaxed(n_waits, SK_DEV),
	    .spec_enqueues = rt->host->spec_enqueues,
	    .reports = sk_ld_relaxed(n_reports, SK_DEV),
	    .report_batches = sk_ld_relaxed(n_batches, SK_DEV),
	    .max_inflight = rt->host->max_inflight,
	    .max_speculative = rt->host->max_spec,
	    .kept = sk_ld_relaxed(&rt->sw->n_kept, SK_DEV),
	};
}
