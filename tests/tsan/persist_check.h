/*
 * persist_check.h: task DAGs and a self-checking task body for E5's protocol
 * (runtime/persist.h), shared by the ThreadSanitizer stress program (tests/tsan/) and the
 * unit tests (tests/unit/runtime/test_persist.c).
 *
 * The body of tile g in epoch e reads, in plain (non-atomic) memory, the value and the stamp
 * of every producer tile it depends on (all tiles of a full edge's producer, the overlapping
 * ones of a tile edge's, the row of a row edge's, computed here independently of the library),
 * checks that each was stamped in epoch e and ended before this tile began (one shared clock
 * records the order), then writes its own value, a hash of the epoch, its previous value and its
 * inputs, and its stamp. A tile that runs twice, too early, or not at all, or a missing
 * happens-before edge (which ThreadSanitizer reports on these plain accesses), shows up as a wrong
 * value, a failed check (the body returns -EPROTO and the run stops), or a race report. pc_verify()
 * compares the values with a serial computation of the same epochs. Random delays (yields, short
 * sleeps, spins) go into the bodies and, through the jitter hook, into the protocol's steps.
 */
#ifndef SKIP_TESTS_PERSIST_CHECK_H
#define SKIP_TESTS_PERSIST_CHECK_H

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/persist.h"

/* ---- DAGs ------------------------------------------------------------------------------------ */

struct pc_dag {
	int ntasks, nedges, cap;
	struct sk_persist_task *tasks; /* [ntasks] */
	struct sk_persist_edge *edges; /* [cap]; every edge goes from a lower to a higher task */
};

static inline uint64_t pc_mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static inline void pc_dag_init(struct pc_dag *d, int ntasks)
{
	d->ntasks = ntasks;
	d->nedges = 0;
	d->cap = 16;
	d->tasks = calloc((size_t)ntasks, sizeof(*d->tasks));
	d->edges = malloc(sizeof(*d->edges) * (size_t)d->cap);
	if (!d->tasks || !d->edges)
		abort();
	for (int t = 0; t < ntasks; t++)
		d->tasks[t] = (struct sk_persist_task){.ntiles = 1, .tile_us = 1};
}

static inline void pc_dag_free(struct pc_dag *d)
{
	free(d->tasks);
	free(d->edges);
}

static inline void pc_edge(struct pc_dag *d, int from, int to, unsigned flags)
{
	if (d->nedges == d->cap) {
		d->cap *= 2;
		d->edges = realloc(d->edges, sizeof(*d->edges) * (size_t)d->cap);
		if (!d->edges)
			abort();
	}
	d->edges[d->nedges++] = (struct sk_persist_edge){from, to, flags, 0};
}

/* A row edge of @rows rows (SK_PERSIST_EDGE_ROW). */
static inline void pc_row_edge(struct pc_dag *d, int from, int to, int rows)
{
	pc_edge(d, from, to, SK_PERSIST_EDGE_ROW);
	d->edges[d->nedges - 1].rows = rows;
}

static inline int pc_gcd(int a, int b)
{
	while (b) {
		int r = a % b;

		a = b;
		b = r;
	}
	return a;
}

static inline struct sk_persist_dag pc_view(const struct pc_dag *d)
{
	return (struct sk_persist_dag){d->ntasks, d->tasks, d->nedges, d->edges};
}

/* 0 -> 1 -> ... -> n-1, @tiles each; tile edges when @tile_edges. */
static inline void pc_chain(struct pc_dag *d, int n, int tiles, int tile_edges)
{
	pc_dag_init(d, n);
	for (int t = 0; t < n; t++) {
		d->tasks[t].ntiles = tiles;
		if (t)
			pc_edge(d, t - 1, t, tile_edges ? SK_PERSIST_EDGE_TILE : 0);
	}
}

/* 0 -> {1, 2} -> 3 with 4, 2, 3 and 5 tiles; the left side by tile edges. */
static inline void pc_diamond(struct pc_dag *d)
{
	static const int tiles[4] = {4, 2, 3, 5};

	pc_dag_init(d, 4);
	for (int t = 0; t < 4; t++)
		d->tasks[t].ntiles = tiles[t];
	pc_edge(d, 0, 1, SK_PERSIST_EDGE_TILE);
	pc_edge(d, 0, 2, 0);
	pc_edge(d, 1, 3, SK_PERSIST_EDGE_TILE);
	pc_edge(d, 2, 3, 0);
}

/* 0 -> 1 .. @width -> @width + 1 (fan-out, then fan-in); tiles 1..3. */
static inline void pc_fan(struct pc_dag *d, int width)
{
	pc_dag_init(d, width + 2);
	d->tasks[0].ntiles = 3;
	d->tasks[width + 1].ntiles = 2;
	for (int i = 1; i <= width; i++) {
		d->tasks[i].ntiles = 1 + i % 3;
		pc_edge(d, 0, i, i % 2 ? SK_PERSIST_EDGE_TILE : 0);
		pc_edge(d, i, width + 1, i % 4 == 0 ? SK_PERSIST_EDGE_TILE : 0);
	}
}

/* @n tasks of 1..@max_tiles tiles and random durations; each task has up to 3 producers
 * among the 40 tasks before it; one edge in three is a tile edge, one in six a row edge (of a
 * random divisor of both tile counts as its rows). */
static inline void pc_random(struct pc_dag *d, int n, int max_tiles, uint64_t seed)
{
	pc_dag_init(d, n);
	for (int t = 0; t < n; t++) {
		uint64_t r = pc_mix(seed ^ (uint64_t)t * 7919);

		d->tasks[t].ntiles = 1 + (int)(r % (uint64_t)max_tiles);
		d->tasks[t].tile_us = 0.5 + (double)(r >> 40 & 1023) / 64;
		for (int k = 0; t && k < (int)(r >> 20 & 3); k++) {
			uint64_t q = pc_mix(r + (uint64_t)k);
			int lo = t > 40 ? t - 40 : 0, from = lo + (int)(q % (uint64_t)(t - lo));

			if (q % 3 == 1 && (q >> 8 & 1)) {
				int g = pc_gcd(d->tasks[from].ntiles, d->tasks[t].ntiles), rows = 1;

				for (int x = 1 + (int)((q >> 16) % (uint64_t)g); x <= g; x++)
					if (g % x == 0) {
						rows =
						    x; /* the first divisor from a random start */
						break;
					}
				pc_row_edge(d, from, t, rows);
			} else {
				pc_edge(d, from, t, q % 3 == 0 ? SK_PERSIST_EDGE_TILE : 0);
			}
		}
	}
}

/* ---- the checking body ----------------------------------------------------------------------- */

struct pc_check {
	const struct pc_dag *d;
	int total;		   /* tiles */
	int *base;		   /* [ntasks + 1] first tile of each task */
	int *in_off, *in;	   /* producer tiles of tile g: in[in_off[g] .. in_off[g+1]) */
	uint64_t *stamp, *val;	   /* [total] written by the bodies (plain memory) */
	uint64_t *t_start, *t_end; /* [total] the clock when each tile began and ended */
	atomic_ulong clock;
	/* knobs, set before a run */
	unsigned delay_permille;  /* bodies: chance of a delay */
	unsigned jitter_permille; /* protocol points: chance of a delay */
	int fail_task;		  /* this task's tile 0 returns -EIO in fail_epoch; -1 none */
	uint64_t fail_epoch;
	int slow_task, slow_tile; /* this tile sleeps slow_us each epoch; -1 none */
	unsigned slow_us;
	uint64_t seed;
	/* results */
	atomic_int errors;
	atomic_flag msg_taken;
	char msg[256];
};

static _Thread_local uint64_t pc_rng;

static inline uint64_t pc_rand(uint64_t seed)
{
	if (!pc_rng)
		pc_rng = pc_mix(seed ^ (uint64_t)(uintptr_t)&pc_rng) | 1;
	pc_rng ^= pc_rng << 13;
	pc_rng ^= pc_rng >> 7;
	pc_rng ^= pc_rng << 17;
	return pc_rng;
}

static inline void pc_sleep_us(unsigned us)
{
	struct timespec ts = {(time_t)(us / 1000000), (long)(us % 1000000) * 1000};

	nanosleep(&ts, NULL);
}

/* With probability @permille / 1000: a yield, a spin, or a sleep of up to 60 us. */
static inline void pc_delay(uint64_t seed, unsigned permille)
{
	uint64_t r = pc_rand(seed);

	if (r % 1000 >= permille)
		return;
	switch (r >> 16 & 3) {
	case 0:
		sched_yield();
		break;
	case 1:
		for (volatile unsigned i = 0; i < (unsigned)(r >> 24 & 4095); i++)
			;
		break;
	default:
		pc_sleep_us((unsigned)(r >> 32) % 60);
	}
}

/* The producer tiles of every tile, from the DAG, with cuSync's overlap rule for tile edges. */
static inline void pc_check_init(struct pc_check *c, const struct pc_dag *d)
{
	int n = 0, cap = 64;

	memset(c, 0, sizeof(*c));
	c->d = d;
	c->fail_task = c->slow_task = -1;
	c->base = malloc(sizeof(int) * ((size_t)d->ntasks + 1));
	if (!c->base)
		abort();
	c->base[0] = 0;
	for (int t = 1; t <= d->ntasks; t++)
		c->base[t] = c->base[t - 1] + d->tasks[t - 1].ntiles;
	c->total = c->base[d->ntasks];
	c->in_off = malloc(sizeof(int) * ((size_t)c->total + 1));
	c->in = malloc(sizeof(int) * (size_t)cap);
	c->stamp = calloc((size_t)c->total, sizeof(uint64_t));
	c->val = calloc((size_t)c->total, sizeof(uint64_t));
	c->t_start = calloc((size_t)c->total, sizeof(uint64_t));
	c->t_end = calloc((size_t)c->total, sizeof(uint64_t));
	if (!c->in_off || !c->in || !c->stamp || !c->val || !c->t_start || !c->t_end)
		abort();
	for (int t = 0; t < d->ntasks; t++)
		for (int k = 0; k < d->tasks[t].ntiles; k++) {
			c->in_off[c->base[t] + k] = n;
			for (int i = 0; i < d->nedges; i++) {
				const struct sk_persist_edge *e = &d->edges[i];
				int np = d->tasks[e->from].ntiles, nc = d->tasks[t].ntiles, lo = 0,
				    hi = np;

				if (e->to != t)
					continue;
				if (e->flags & SK_PERSIST_EDGE_TILE) {
					/* producer tile j overlaps [k/nc, (k+1)/nc) */
					lo = (int)((int64_t)k * np / nc);
					hi = (int)(((int64_t)k * np + np + nc - 1) / nc);
				} else if (e->flags & SK_PERSIST_EDGE_ROW) {
					/* tile k is in consumer row k / (nc/R): that producer row
					 */
					int row = k / (nc / e->rows);

					lo = row * np / e->rows;
					hi = (row + 1) * np / e->rows;
				}
				for (int j = lo; j < hi; j++) {
					if (n == cap &&
					    !(c->in =
						  realloc(c->in, sizeof(int) * (size_t)(cap *= 2))))
						abort();
					c->in[n++] = c->base[e->from] + j;
				}
			}
		}
	c->in_off[c->total] = n;
}

static inline void pc_check_fini(struct pc_check *c)
{
	free(c->base);
	free(c->in_off);
	free(c->in);
	free(c->stamp);
	free(c->val);
	free(c->t_start);
	free(c->t_end);
}

static inline int pc_bad(struct pc_check *c, const char *fmt, ...)
{
	va_list ap;

	atomic_fetch_add(&c->errors, 1);
	if (!atomic_flag_test_and_set(&c->msg_taken)) {
		va_start(ap, fmt);
		vsnprintf(c->msg, sizeof(c->msg), fmt, ap);
		va_end(ap);
	}
	return -EPROTO;
}

static inline uint64_t pc_start_value(int g, uint64_t epoch, uint64_t prev)
{
	return pc_mix((uint64_t)g * 1000003u ^ epoch << 32 ^ prev);
}

static inline int pc_body(void *ctx, int task, int tile, uint64_t epoch, int worker)
{
	struct pc_check *c = ctx;
	int g = c->base[task] + tile;
	uint64_t start = atomic_fetch_add(&c->clock, 1), acc;

	(void)worker;
	if (c->stamp[g] != epoch - 1)
		return pc_bad(c, "task %d tile %d: epoch %llu, but its stamp says %llu", task, tile,
			      (unsigned long long)epoch, (unsigned long long)c->stamp[g]);
	acc = pc_start_value(g, epoch, c->val[g]);
	for (int i = c->in_off[g]; i < c->in_off[g + 1]; i++) {
		int j = c->in[i];

		if (c->stamp[j] != epoch || c->t_end[j] >= start)
			return pc_bad(c,
				      "task %d tile %d (epoch %llu) began at %llu, before its "
				      "producer tile %d finished epoch %llu (stamp %llu, end %llu)",
				      task, tile, (unsigned long long)epoch,
				      (unsigned long long)start, j, (unsigned long long)epoch,
				      (unsigned long long)c->stamp[j],
				      (unsigned long long)c->t_end[j]);
		acc = pc_mix(acc + c->val[j]);
	}
	pc_delay(c->seed, c->delay_permille);
	if (task == c->slow_task && tile == c->slow_tile)
		pc_sleep_us(c->slow_us);
	if (task == c->fail_task && tile == 0 && epoch == c->fail_epoch)
		return -EIO;
	for (int i = c->in_off[g]; i < c->in_off[g + 1]; i++)
		if (c->stamp[c->in[i]] !=
		    epoch) /* overwritten by a later epoch: a missing WAR edge */
			return pc_bad(c, "task %d tile %d: producer tile %d changed while it ran",
				      task, tile, c->in[i]);
	c->val[g] = acc;
	c->t_start[g] = start;
	c->t_end[g] = atomic_fetch_add(&c->clock, 1);
	c->stamp[g] = epoch;
	return 0;
}

static inline void pc_jitter(void *ctx, int worker, enum sk_persist_point at)
{
	struct pc_check *c = ctx;

	(void)worker;
	(void)at;
	pc_delay(c->seed, c->jitter_permille);
}

static inline struct sk_persist_hooks pc_hooks(struct pc_check *c)
{
	return (struct sk_persist_hooks){pc_body, c->jitter_permille ? pc_jitter : NULL, c};
}

/* 0 if every tile ran @epochs epochs and holds the value a serial run gives; else -1 with
 * c->msg set. */
static inline int pc_verify(struct pc_check *c, uint64_t epochs)
{
	uint64_t *ref = calloc((size_t)c->total, sizeof(uint64_t));
	int bad = -1;

	if (!ref)
		abort();
	if (atomic_load(&c->errors))
		goto out;
	for (uint64_t e = 1; e <= epochs; e++)
		for (int g = 0; g < c->total;
		     g++) { /* edges go forwards: index order is a topological one */
			uint64_t acc = pc_start_value(g, e, ref[g]);

			for (int i = c->in_off[g]; i < c->in_off[g + 1]; i++)
				acc = pc_mix(acc + ref[c->in[i]]);
			ref[g] = acc;
		}
	for (int g = 0; g < c->total; g++)
		if (c->stamp[g] != epochs || c->val[g] != ref[g]) {
			snprintf(c->msg, sizeof(c->msg),
				 "tile %d: stamp %llu (want %llu), value %s the serial one", g,
				 (unsigned long long)c->stamp[g], (unsigned long long)epochs,
				 c->val[g] == ref[g] ? "equal to" : "differs from");
			goto out;
		}
	bad = 0;
out:
	free(ref);
	return bad;
}

/*
 * Resident AOT on CPU threads: the host side of the GPU's resident kernel (cuda_persist.c's
 * ring, wait and park, with a join where the GPU's stream would queue the next kernel) around
 * the workers' sk_persist_resident(). Each worker gets its own copy of the state, as a CTA
 * does in shared memory; the bell, served and left words are this struct's.
 */
struct pc_worker {
	struct sk_persist own;
	int w;
	uint64_t next;
	pthread_t th;
};
struct pc_resident {
	struct sk_persist *rt;
	struct pc_worker *wk; /* [nworkers] */
	sk_au64 bell, served, left;
	uint64_t epochs; /* rung so far */
	int running;	 /* a "kernel" (the worker threads) was started and not joined */
	int launches;
};

static inline void *pc_resident_worker(void *a)
{
	struct pc_worker *k = a;

	sk_persist_resident(&k->own, k->w, k->next);
	return NULL;
}

static inline void pc_resident_init(struct pc_resident *r, struct sk_persist *rt,
				    uint64_t linger_ns)
{
	memset(r, 0, sizeof(*r));
	r->rt = rt;
	r->wk = calloc((size_t)rt->p->o.nworkers, sizeof(*r->wk));
	if (!r->wk)
		abort();
	atomic_init(&r->bell, 0);
	atomic_init(&r->served, 0);
	atomic_init(&r->left, 0);
	rt->bell = &r->bell;
	rt->served = &r->served;
	rt->left = &r->left;
	rt->linger_ns = linger_ns;
}

static inline void pc_resident_join(struct pc_resident *r)
{
	for (int w = 0; r->running && w < r->rt->p->o.nworkers; w++)
		pthread_join(r->wk[w].th, NULL);
	r->running = 0;
}

/* A new "kernel" for the epochs after the last served one. */
static inline void pc_resident_launch(struct pc_resident *r)
{
	uint64_t next = atomic_load(&r->served) + 1;

	atomic_store(&r->left, 0);
	for (int w = 0; w < r->rt->p->o.nworkers; w++) {
		struct pc_worker *k = &r->wk[w];

		k->own = *r->rt;
		k->w = w;
		k->next = next;
		if (pthread_create(&k->th, NULL, pc_resident_worker, k))
			abort();
	}
	r->running = 1;
	r->launches++;
}

/* Ring for @n more iterations; a kernel that left serves no more: a new one follows it. */
static inline void pc_resident_ring(struct pc_resident *r, int n)
{
	atomic_store_explicit(&r->bell, r->epochs + (uint64_t)n, memory_order_release);
	if (r->running && atomic_load_explicit(&r->left, memory_order_acquire))
		pc_resident_join(r);
	if (!r->running)
		pc_resident_launch(r);
	r->epochs += (uint64_t)n;
}

/* Until every epoch rung is served: 0; -1 when the run stopped on an error. */
static inline int pc_resident_wait(struct pc_resident *r)
{
	for (;;) {
		if (atomic_load_explicit(&r->served, memory_order_acquire) >= r->epochs)
			return 0;
		if (atomic_load_explicit(&r->rt->sw->abort, memory_order_relaxed)) {
			pc_resident_join(r);
			return -1;
		}
		if (atomic_load_explicit(&r->left, memory_order_acquire)) {
			if (atomic_load_explicit(&r->served, memory_order_acquire) >= r->epochs)
				return 0;
			pc_resident_join(r);
			pc_resident_launch(r);
			continue;
		}
		sched_yield();
	}
}

/* The stop bit: the kernel ends after the epochs rung; then the bell is plain again. */
static inline void pc_resident_park(struct pc_resident *r)
{
	atomic_store_explicit(&r->bell, r->epochs | SK_BELL_STOP, memory_order_release);
	pc_resident_join(r);
	atomic_store_explicit(&r->bell, r->epochs, memory_order_release);
	free(r->wk);
	r->wk = NULL;
}

#endif /* SKIP_TESTS_PERSIST_CHECK_H */
