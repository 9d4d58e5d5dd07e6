/*
 * test_window.c: the E4 window scheduler's logic on a CPU backend: "streams" are the worker
 * threads and "kernels" are a function that stamps its start and end on a shared counter (with
 * random yields and spins to shake the interleavings). For thousands of seeded random graphs
 * and window/worker combinations, every pair of tasks that conflict (overlapping bytes with a
 * write, read-after-write included, or an explicit edge) must not overlap in time and must
 * keep program order; every task must run exactly once. Focused cases check that
 * read-after-write is honoured, that independent tasks do run at once, that a window of one
 * is serial, and that an error stops the dependents of the failed task.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>

#include "helpers.h"

#define MAXT 48

struct cpu_ctx {
	atomic_long clock;
	long start[MAXT], end[MAXT];
	atomic_int runs[MAXT];
	uint64_t seed;
	int fail_task;	/* this task returns an error; -1 for none */
	int slow_task;	/* this task sleeps 20 ms; -1 for none */
	int rendezvous; /* tasks 0 and 1 wait for each other to start */
	atomic_int started[2];
	atomic_int rendezvous_ok;
};

static void jitter(uint64_t h)
{
	switch (h % 4) {
	case 0:
		break;
	case 1:
		sched_yield();
		break;
	default:
		for (volatile int i = 0; i < (int)(h % 2000); i++)
			;
	}
}

/* Each of tasks 0 and 1 waits (up to 5 s, a liveness guard) until the other has started. */
static void meet(struct cpu_ctx *c, int task)
{
	struct timespec t0, t;

	atomic_store(&c->started[task], 1);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		if (atomic_load(&c->started[!task])) {
			atomic_fetch_add(&c->rendezvous_ok, 1);
			return;
		}
		sched_yield();
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec < 5);
}

static int cpu_run(void *ctxp, int worker, int task)
{
	struct cpu_ctx *c = ctxp;
	uint64_t h = c->seed * 31 + (uint64_t)task * 7919 + (uint64_t)worker;

	c->start[task] = atomic_fetch_add(&c->clock, 1);
	atomic_fetch_add(&c->runs[task], 1);
	if (c->rendezvous && task < 2)
		meet(c, task);
	if (task == c->slow_task)
		nanosleep(&(struct timespec){0, 20 * 1000 * 1000}, NULL);
	jitter(helper_rand(&h));
	c->end[task] = atomic_fetch_add(&c->clock, 1);
	return task == c->fail_task ? -5 : 0;
}

static struct skip_graph *g;
static struct cpu_ctx *ctx;

static void setup(void)
{
	skip_log_init("test", NULL, 1);
	g = skip_graph_new(NULL);
	ctx = calloc(1, sizeof(*ctx));
	ctx->fail_task = ctx->slow_task = -1;
}

static void teardown(void)
{
	skip_graph_free(g);
	free(ctx);
}

TestSuite(runtime_window, .init = setup, .fini = teardown, .timeout = 120);

static void reset_ctx(uint64_t seed)
{
	atomic_store(&ctx->clock, 0);
	for (int i = 0; i < MAXT; i++) {
		atomic_store(&ctx->runs[i], 0);
		ctx->start[i] = ctx->end[i] = -1;
	}
	ctx->seed = seed;
}

/* The test's own conflict check, independent of the scheduler's. */
static int must_order(int i, int j)
{
	const struct sk_task *a = &g->tasks[i], *b = &g->tasks[j];

	for (int k = 0; k < g->nexplicit; k++)
		if (g->explicit_edges[k].from == i && g->explicit_edges[k].to == j)
			return 1;
	for (int x = 0; x < a->naccess; x++)
		for (int y = 0; y < b->naccess; y++) {
			const struct skip_access *p = &a->access[x], *q = &b->access[y];

			if (p->buffer == q->buffer &&
			    (p->mode & SKIP_WRITE || q->mode & SKIP_WRITE) &&
			    p->offset < q->offset + q->size && q->offset < p->offset + p->size)
				return 1;
		}
	return 0;
}

static void random_graph(uint64_t seed, int n)
{
	static const char *const modes[] = {"r", "w", "rw", "r"};
	uint64_t s = seed * 0xd1342543de82ef95ULL + 3;

	for (int t = 0; t < n; t++) {
		char spec[160] = "", tok[40], name[8];
		int na = helper_below(&s, 4); /* 0..3 accesses: some tasks touch nothing */

		for (int k = 0; k < na; k++) {
			int off = helper_below(&s, 8) * 128, len = 128 * (1 + helper_below(&s, 3));

			if (off + len > HELPER_BUF_BYTES)
				len = HELPER_BUF_BYTES - off;
			snprintf(tok, sizeof(tok), "%s%s:B%d@%d+%d", k ? " " : "",
				 modes[helper_below(&s, 4)], helper_below(&s, 4), off, len);
			strcat(spec, tok);
		}
		snprintf(name, sizeof(name), "t%d", t);
		helper_task(g, name, spec);
		if (t > 2 && helper_below(&s, 6) == 0) /* an explicit edge from an earlier task */
			skip_graph_add_edge(g, helper_below(&s, t), t);
	}
	cr_assert_eq(skip_graph_finalize(g), 0, "%s", skip_errmsg());
}

static void check_run(uint64_t seed, int W, int nw)
{
	for (int i = 0; i < g->ntasks; i++) {
		cr_assert_eq(atomic_load(&ctx->runs[i]), 1,
			     "seed %llu W %d workers %d: t%d ran %d times",
			     (unsigned long long)seed, W, nw, i, atomic_load(&ctx->runs[i]));
		for (int j = i + 1; j < g->ntasks; j++)
			if (must_order(i, j))
				cr_assert_lt(ctx->end[i], ctx->start[j],
					     "seed %llu W %d workers %d: t%d [%ld, %ld] and t%d "
					     "[%ld, %ld] conflict but overlap or are reordered",
					     (unsigned long long)seed, W, nw, i, ctx->start[i],
					     ctx->end[i], j, ctx->start[j], ctx->end[j]);
	}
}

Test(runtime_window, random_graphs_never_run_conflicting_tasks_out_of_order)
{
	static const int windows[] = {1, 2, 3, 8, 32, 64}, workers[] = {1, 2, 3, 4, 8};
	struct sk_window *w[6][5];
	int err, cases = 0;

	for (int a = 0; a < 6; a++)
		for (int b = 0; b < 5; b++) {
			w[a][b] = sk_window_new(workers[b], windows[a], cpu_run, NULL, ctx, &err);
			cr_assert_not_null(w[a][b], "%s", skip_errmsg());
		}
	for (uint64_t seed = 1; seed <= 3000; seed++) {
		int a = (int)(seed % 6), b = (int)(seed / 6 % 5);

		skip_graph_free(g);
		g = skip_graph_new(NULL);
		random_graph(seed, 8 + (int)(seed % (MAXT - 8)));
		reset_ctx(seed);
		cr_assert_eq(sk_window_run(w[a][b], g, g->topo), 0);
		check_run(seed, windows[a], workers[b]);
		cases++;
	}
	for (int a = 0; a < 6; a++)
		for (int b = 0; b < 5; b++)
			sk_window_free(w[a][b]);
	cr_assert_eq(cases, 3000);
}

Test(runtime_window, a_reader_waits_for_a_slow_writer_in_the_window)
{
	struct sk_window *w;
	int err;

	helper_task(g, "write", "w:X@0+64");
	helper_task(g, "read", "r:X@32+64");
	cr_assert_eq(skip_graph_finalize(g), 0);
	ctx->slow_task = 0;
	reset_ctx(1);
	w = sk_window_new(2, 8, cpu_run, NULL, ctx, &err);
	cr_assert_eq(sk_window_run(w, g, g->topo), 0);
	cr_assert_lt(ctx->end[0], ctx->start[1], "read-after-write was not honoured");
	sk_window_free(w);
}

Test(runtime_window, independent_tasks_run_at_the_same_time)
{
	struct sk_window *w;
	int err, running, pending;

	helper_task(g, "a", "r:X w:Y");
	helper_task(g, "b", "r:X w:Z");
	cr_assert_eq(skip_graph_finalize(g), 0);
	ctx->rendezvous = 1;
	reset_ctx(1);
	w = sk_window_new(2, 2, cpu_run, NULL, ctx, &err);
	cr_assert_eq(sk_window_run(w, g, g->topo), 0);
	cr_assert_eq(atomic_load(&ctx->rendezvous_ok), 2, "a and b never ran at once");
	sk_window_stats(w, &running, &pending);
	cr_assert_eq(running, 2);
	cr_assert_eq(pending, 2);
	sk_window_free(w);
}

Test(runtime_window, a_window_of_one_is_serial)
{
	struct sk_window *w;
	int err, running, pending;

	for (int i = 0; i < 12; i++) {
		char name[8];

		snprintf(name, sizeof(name), "t%d", i);
		helper_task(g, name, "");
	}
	cr_assert_eq(skip_graph_finalize(g), 0);
	reset_ctx(5);
	w = sk_window_new(4, 1, cpu_run, NULL, ctx, &err);
	cr_assert_eq(sk_window_run(w, g, g->topo), 0);
	for (int i = 1; i < 12; i++)
		cr_assert_lt(ctx->end[i - 1], ctx->start[i]);
	sk_window_stats(w, &running, &pending);
	cr_assert_eq(running, 1);
	cr_assert_eq(pending, 1);
	sk_window_free(w);
}

Test(runtime_window, an_error_stops_the_dependents_of_the_failed_task)
{
	struct sk_window *w;
	int err;

	helper_task(g, "a", "w:X");
	helper_task(g, "b", "r:X w:Y");
	helper_task(g, "c", "r:Y w:Z");
	helper_task(g, "other", "w:Q");
	cr_assert_eq(skip_graph_finalize(g), 0);
	ctx->fail_task = 0;
	reset_ctx(9);
	w = sk_window_new(2, 4, cpu_run, NULL, ctx, &err);
	cr_assert_eq(sk_window_run(w, g, g->topo), -5);
	cr_assert_eq(atomic_load(&ctx->runs[1]), 0, "b ran after a failed");
	cr_assert_eq(atomic_load(&ctx->runs[2]), 0, "c ran after a failed");
	ctx->fail_task = -1;
	reset_ctx(10);
	cr_assert_eq(sk_window_run(w, g, g->topo), 0, "the window is usable after a failure");
	sk_window_free(w);
}

Test(runtime_window, bad_sizes_are_rejected)
{
	int err;

	cr_assert_null(sk_window_new(0, 8, cpu_run, NULL, ctx, &err));
	cr_assert_eq(err, SKIP_E_INVAL);
	cr_assert_null(sk_window_new(2, 65, cpu_run, NULL, ctx, &err));
	cr_assert_eq(err, SKIP_E_INVAL);
}
