/*
 * test_persist.c: E5's scheduling protocol (runtime/persist.h) on CPU threads. Plan time:
 * validation, the AOT queues of list scheduling (every tile once, in a topological order, the
 * critical path first, balanced), tile edges in the prediction. Run time, in every mode: chains,
 * a diamond, a wide fan-out/fan-in and random DAGs of 200 tasks, over many iterations, with 1 to
 * 8 workers (fewer than tiles, mostly), random delays in the bodies and at the protocol's steps;
 * each tile checks that every producer tile it reads finished before it began, and the values
 * must equal a serial run's (tests/tsan/persist_check.h). Then what must not hang: a cycle
 * and a missing producer end with the watchdog's -ETIMEDOUT within its timeout, naming the
 * stuck tasks, and a failing task ends the run with its error. The same protocol runs under
 * ThreadSanitizer in `make check-tsan` (tests/tsan/stress_persist.c).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>
#include <time.h>

#include "skip_common.h"
#include "skip_runtime.h"
#include "tests/tsan/persist_check.h"

static const int worker_counts[] = {1, 2, 3, 4, 5, 6, 7, 8};
#define NCOUNTS (int)(sizeof(worker_counts) / sizeof(worker_counts[0]))

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static struct sk_persist_plan *plan_of(const struct pc_dag *d, struct sk_persist_opts o)
{
	struct sk_persist_dag v = pc_view(d);
	int err;
	struct sk_persist_plan *p = sk_persist_plan_new(&v, &o, &err);

	cr_assert_not_null(p, "%s", skip_errmsg());
	return p;
}

/* Run @d under @o for @runs runs of @iters iterations with delays; assert the right result. */
static void run_checked(const struct pc_dag *d, struct sk_persist_opts o, int runs, int iters,
			uint64_t seed, struct sk_persist_stats *stats)
{
	struct sk_persist_plan *p = plan_of(d, o);
	struct sk_persist *rt;
	struct pc_check c;
	int err;

	pc_check_init(&c, d);
	c.seed = seed;
	c.delay_permille = 100;
	c.jitter_permille = 50;
	rt = sk_persist_new(p, &(struct sk_persist_hooks){pc_body, pc_jitter, &c}, &err);
	cr_assert_not_null(rt, "%s", skip_errmsg());
	for (int r = 0; r < runs; r++) {
		err = sk_persist_run(rt, iters);
		cr_assert_eq(err, 0, "%s, %d workers, run %d: %s [%s]",
			     sk_persist_mode_name(o.mode), o.nworkers, r, skip_errmsg(), c.msg);
	}
	cr_assert_eq(sk_persist_epoch(rt), (uint64_t)runs * (uint64_t)iters);
	cr_assert_eq(pc_verify(&c, (uint64_t)runs * (uint64_t)iters), 0, "%s, %d workers: %s",
		     sk_persist_mode_name(o.mode), o.nworkers, c.msg);
	if (stats)
		sk_persist_get_stats(rt, stats);
	sk_persist_free(rt);
	sk_persist_plan_free(p);
	pc_check_fini(&c);
}

/* Every mode, every worker count of worker_counts[]. */
static void run_all(const struct pc_dag *d, int runs, int iters, uint64_t seed)
{
	for (int m = 0; m < SK_PERSIST_NMODES; m++)
		for (int i = 0; i < NCOUNTS; i++) {
			struct sk_persist_opts o = SK_PERSIST_OPTS_DEFAULT;

			o.mode = (enum sk_persist_mode)m;
			o.nworkers = worker_counts[i];
			o.lookahead = i % 3 * 4; /* 0, 4, 8 */
			o.report_batch = 1 + i;
			run_checked(d, o, runs, iters, seed + (uint64_t)i, NULL);
		}
}

/* ---- plan time ------------------------------------------------------------------------------- */

Test(persist_plan, a_cycle_is_refused_with_its_tasks)
{
	struct pc_dag d;
	struct sk_persist_dag v;
	struct sk_persist_opts o = SK_PERSIST_OPTS_DEFAULT;
	int err;

	pc_chain(&d, 5, 2, 0);
	pc_edge(&d, 3, 1, 0); /* 1 -> 2 -> 3 -> 1 */
	v = pc_view(&d);
	cr_assert_null(sk_persist_plan_new(&v, &o, &err));
	cr_assert_eq(err, SKIP_E_INVAL);
	cr_assert(strstr(skip_errmsg(), "form a cycle"), "%s", skip_errmsg());
	cr_assert(strstr(skip_errmsg(), "1 -> 2 -> 3 -> 1") ||
		      strstr(skip_errmsg(), "2 -> 3 -> 1 -> 2") ||
		      strstr(skip_errmsg(), "3 -> 1 -> 2 -> 3"),
		  "%s", skip_errmsg());
	o.flags = SK_PERSIST_UNCHECKED;
	struct sk_persist_plan *p = sk_persist_plan_new(&v, &o, &err);
	cr_assert_not_null(p, "%s", skip_errmsg());
	cr_assert_eq(p->acyclic, 0);
	cr_assert_eq(p->q_off[1], p->total_tiles, "every tile is still queued");
	sk_persist_plan_free(p);
	pc_dag_free(&d);
}

Test(persist_plan, bad_tasks_edges_and_options_are_refused)
{
	struct sk_persist_task tasks[2] = {{1, 1}, {2, 1}};
	struct sk_persist_edge bad_edge = {0, 2, 0, 0}, self = {1, 1, 0, 0};
	struct sk_persist_opts o = SK_PERSIST_OPTS_DEFAULT;
	struct sk_persist_dag v = {2, tasks, 0, NULL};
	int err;

	tasks[0].ntiles = 0;
	cr_assert_null(sk_persist_plan_new(&v, &o, &err));
	cr_assert(strstr(skip_errmsg(), "task 0 has 0 tiles"), "%s", skip_errmsg());
	tasks[0].ntiles = 1;
	v.nedges = 1;
	v.edges = &bad_edge;
	cr_assert_null(sk_persist_plan_new(&v, &o, &err));
	cr_assert(strstr(skip_errmsg(), "edge 0 (0 -> 2"), "%s", skip_errmsg());
	v.edges = &self;
	cr_assert_null(sk_persist_plan_new(&v, &o, &err));
	cr_assert(strstr(skip_errmsg(), "cycle"), "%s", skip_errmsg());
	v.nedges = 0;
	o.nworkers = 0;
	cr_assert_null(sk_persist_plan_new(&v, &o, &err));
	o = SK_PERSIST_OPTS_DEFAULT;
	o.watchdog_ms = 0;
	cr_assert_null(sk_persist_plan_new(&v, &o, &err));
	o = SK_PERSIST_OPTS_DEFAULT;
	o.mode = SK_PERSIST_COPILOT;
	o.nworkers = 4;
	o.feed_tiles = 3; /* fewer than one stop entry per worker */
	cr_assert_null(sk_persist_plan_new(&v, &o, &err));
	cr_assert(strstr(skip_errmsg(), "at least 4"), "%s", skip_errmsg());
	cr_assert_eq(err, SKIP_E_INVAL);
}

Test(persist_plan, repeated_edges_count_once_and_a_full_copy_wins)
{
	struct pc_dag d;

	pc_chain(&d, 2, 3, 1);
	pc_edge(&d, 0, 1, 0);
	pc_edge(&d, 0, 1, SK_PERSIST_EDGE_TILE);
	struct sk_persist_plan *p = plan_of(&d, SK_PERSIST_OPTS_DEFAULT);
	cr_assert_eq(p->nedges, 1);
	cr_assert_eq(p->pred_tile[0], 0);
	sk_persist_plan_free(p);
	pc_dag_free(&d);
}

/* Every tile once; each queue in dispatch order; producers dispatched before consumers, and
 * predicted to end before them. */
static void check_queues(const struct sk_persist_plan *p, const struct pc_dag *d)
{
	struct pc_check c;
	int *seen = calloc((size_t)p->total_tiles, sizeof(int));

	pc_check_init(&c, d);
	for (int w = 0; w < p->o.nworkers; w++)
		for (int i = p->q_off[w]; i < p->q_off[w + 1]; i++) {
			int g = p->q[i];

			seen[g]++;
			if (i > p->q_off[w]) {
				int prev = p->q[i - 1];

				cr_assert_lt(p->dispatch[prev], p->dispatch[g]);
				cr_assert_geq(p->start_us[g],
					      p->start_us[prev] +
						  d->tasks[p->tile_task[prev]].tile_us - 1e-9);
			}
			for (int k = c.in_off[g]; k < c.in_off[g + 1]; k++) {
				int j = c.in[k];

				cr_assert_lt(p->dispatch[j], p->dispatch[g], "tile %d before %d", j,
					     g);
				cr_assert_geq(p->start_us[g],
					      p->start_us[j] + d->tasks[p->tile_task[j]].tile_us -
						  1e-9);
			}
		}
	for (int g = 0; g < p->total_tiles; g++)
		cr_assert_eq(seen[g], 1, "tile %d queued %d times", g, seen[g]);
	free(seen);
	pc_check_fini(&c);
}

Test(persist_plan, aot_queues_hold_every_tile_once_in_a_topological_order)
{
	for (uint64_t seed = 1; seed <= 20; seed++) {
		struct pc_dag d;
		struct sk_persist_opts o = SK_PERSIST_OPTS_DEFAULT;

		pc_random(&d, 200, 8, seed);
		o.nworkers = 1 + (int)(seed % 8);
		struct sk_persist_plan *p = plan_of(&d, o);
		check_queues(p, &d);
		sk_persist_plan_free(p);
		pc_dag_free(&d);
	}
}

Test(persist_plan, list_scheduling_balances_and_starts_the_critical_path_first)
{
	struct sk_persist_opts o = SK_PERSIST_OPTS_DEFAULT;
	struct pc_dag d;

	/* independent tasks of 3, 3, 2, 2, 2, 2 us on two workers: 7 us, not 8 */
	pc_dag_init(&d, 6);
	for (int t = 0; t < 6; t++)
		d.tasks[t].tile_us = t < 2 ? 3 : 2;
	o.nworkers = 2;
	struct sk_persist_plan *p = plan_of(&d, o);
	cr_assert_float_eq(p->makespan_us, 7.0, 1e-9);
	sk_persist_plan_free(p);
	pc_dag_free(&d);

	/* a chain 0 -> 1 of 10 us each, and four 5 us tasks 2..5 that could go first: the
	 * chain is dispatched first, so the epoch takes 20 us, not 25 */
	pc_dag_init(&d, 6);
	d.tasks[0].tile_us = d.tasks[1].tile_us = 10;
	for (int t = 2; t < 6; t++)
		d.tasks[t].tile_us = 5;
	pc_edge(&d, 0, 1, 0);
	p = plan_of(&d, o);
	cr_assert_float_eq(p->makespan_us, 20.0, 1e-9);
	cr_assert_eq(p->dispatch[0], 0);
	check_queues(p, &d);
	sk_persist_plan_free(p);
	pc_dag_free(&d);
}

/* The step of task @t's tile @k in @p. */
static const struct sk_persist_step *step_of(const struct sk_persist_plan *p, int t, int k)
{
	for (int i = 0; i < p->total_tiles; i++)
		if (p->step[i].task == t && p->step[i].tile == k)
			return &p->step[i];
	cr_assert_fail("no step for task %d tile %d", t, k);
	return NULL;
}

Test(persist_plan, a_wait_on_an_earlier_tile_of_the_same_worker_is_skipped)
{
	struct sk_persist_opts o = SK_PERSIST_OPTS_DEFAULT;
	struct sk_persist_plan *p;
	struct pc_dag d;

	/* A diamond r -> x, y -> j of 1 us tiles on two workers. List scheduling: r on worker 0
	 * (0-1 us); x and y both can start at 1 us, x (the lower number) on worker 0, y on worker
	 * 1; j starts at 2 us on either, worker 0 (the lower). So x's wait on r and j's on x are
	 * local (skipped), y's on r and j's on y are not: r and y publish their task counter, x and
	 * j publish nothing. */
	pc_dag_init(&d, 4);
	pc_edge(&d, 0, 1, 0);
	pc_edge(&d, 0, 2, 0);
	pc_edge(&d, 1, 3, 0);
	pc_edge(&d, 2, 3, 0);
	o.nworkers = 2;
	p = plan_of(&d, o);
	cr_assert_eq(p->q_off[1], 3, "worker 0 runs r, x, j");
	cr_assert_eq(step_of(p, 1, 0)->flags, SK_STEP_LOCAL(0), "x waits on r locally");
	cr_assert_eq(step_of(p, 2, 0)->flags, SK_STEP_PUB_CTR | SK_STEP_REMOTE,
		     "y waits on r across workers");
	cr_assert_eq(step_of(p, 3, 0)->nwait, 2);
	cr_assert_eq(step_of(p, 3, 0)->ctr[0], 1);
	cr_assert_eq(step_of(p, 3, 0)->flags, SK_STEP_LOCAL(0) | SK_STEP_REMOTE,
		     "j: x local, y not");
	cr_assert_eq(step_of(p, 0, 0)->flags, SK_STEP_PUB_CTR, "r: y waits on it, r on nothing");
	check_queues(p, &d);
	sk_persist_plan_free(p);
	pc_dag_free(&d);

	/* a chain of three tiles on one worker: nothing to wait on, nothing to publish */
	pc_dag_init(&d, 3);
	pc_edge(&d, 0, 1, SK_PERSIST_EDGE_TILE);
	pc_edge(&d, 1, 2, 0);
	o.nworkers = 1;
	p = plan_of(&d, o);
	for (int t = 0; t < 3; t++)
		cr_assert_eq(step_of(p, t, 0)->flags & ~(SK_STEP_LOCAL(0) | SK_STEP_LOCAL(1)), 0u,
			     "task %d publishes nothing", t);
	cr_assert_eq(step_of(p, 1, 0)->flags, SK_STEP_LOCAL(0));
	cr_assert_eq(step_of(p, 2, 0)->flags, SK_STEP_LOCAL(0));
	sk_persist_plan_free(p);
	pc_dag_free(&d);
}

/* Two tasks of @tiles tiles of 1 us on @workers: the predicted epoch with a full edge, and with
 * the edge made @flags (@rows); each queue checked. */
static void assert_makespans(int tiles, int workers, unsigned flags, int rows, double full_us,
			     double tiled_us)
{
	struct sk_persist_opts o = SK_PERSIST_OPTS_DEFAULT;
	struct pc_dag d;

	o.nworkers = workers;
	pc_chain(&d, 2, tiles, 0);
	struct sk_persist_plan *p = plan_of(&d, o);
	cr_assert_float_eq(p->makespan_us, full_us, 1e-9);
	sk_persist_plan_free(p);
	d.edges[0].flags = flags;
	d.edges[0].rows = rows;
	p = plan_of(&d, o);
	cr_assert_float_eq(p->makespan_us, tiled_us, 1e-9);
	check_queues(p, &d);
	sk_persist_plan_free(p);
	pc_dag_free(&d);
}

Test(persist_plan, tile_edges_let_consumer_tiles_start_during_the_producer)
{
	/* 3 tiles then 3 tiles of 1 us on 2 workers: a full edge needs 4 us (2 + 2), tile edges
	 * 3 us (consumer tile 0 runs beside producer tile 2) */
	assert_makespans(3, 2, SK_PERSIST_EDGE_TILE, 0, 4.0, 3.0);
}

/* ---- resident AOT ------------------------------------------------------------------------------
 */

/*
 * 24 bells of 1-3 iterations (48 in all) to a resident AOT "kernel" of @workers threads running a
 * random DAG of 60 tasks, with delays (tests/tsan/persist_check.h plays the host): lingering
 * @linger_ns; with @wait_left, the host waits for the kernel to leave before each bell. The
 * results must be a serial run's, every epoch served once; returns the launches.
 */
static int resident_rounds(int workers, uint64_t linger_ns, int wait_left, uint64_t seed,
			   int sm_shared)
{
	struct sk_persist_opts o = SK_PERSIST_OPTS_DEFAULT;
	struct sk_persist_plan *p;
	struct sk_persist *rt;
	struct pc_resident r;
	struct pc_check c;
	struct pc_dag d;
	int err;

	pc_random(&d, 60, 4, seed);
	o.nworkers = workers;
	p = plan_of(&d, o);
	pc_check_init(&c, &d);
	c.seed = seed;
	c.delay_permille = 100;
	c.jitter_permille = 50;
	rt = sk_persist_new(p, &(struct sk_persist_hooks){pc_body, pc_jitter, &c}, &err);
	cr_assert_not_null(rt, "%s", skip_errmsg());
	rt->sm_shared = sm_shared;
	pc_resident_init(&r, rt, linger_ns);
	for (int b = 0; b < 24; b++) {
		while (wait_left && r.running && !atomic_load(&r.left))
			sched_yield();
		pc_resident_ring(&r, 1 + b % 3);
		cr_assert_eq(pc_resident_wait(&r), 0, "bell %d, %d workers: [%s]", b, workers,
			     c.msg);
	}
	pc_resident_park(&r);
	cr_assert_eq(atomic_load(&r.served), 48);
	cr_assert_eq(sk_persist_epoch(rt), 48, "every epoch served once");
	cr_assert_eq(pc_verify(&c, 48), 0, "%d workers: %s", workers, c.msg);
	cr_assert_eq(atomic_load(&rt->sw->go), 0, "the last worker out cleared go");
	sk_persist_free(rt);
	sk_persist_plan_free(p);
	pc_check_fini(&c);
	pc_dag_free(&d);
	return r.launches;
}

/* Lingering 10 s, one launch serves all 24 bells; lingering 0 with the host waiting for the
 * kernel to leave, each bell has a launch of its own (each starts from the go the last worker
 * out cleared); without waiting, bells race the leaving and a new launch takes over. */
Test(persist_resident, one_kernel_serves_every_bell_and_one_that_left_is_replaced)
{
	for (int w = 1; w <= 4; w++) {
		int n;

		cr_expect_eq(resident_rounds(w, 10000000000ull, 0, 11 + (uint64_t)w, 0), 1,
			     "%d workers", w);
		cr_expect_eq(resident_rounds(w, 0, 1, 21 + (uint64_t)w, 0), 24, "%d workers", w);
		n = resident_rounds(w, 0, 0, 31 + (uint64_t)w, 0);
		cr_expect(n >= 1 && n <= 24, "%d workers: %d launches", w, n);
	}
}

/* The waits of workers that share an SM (sm_shared: relaxed looks, an acquire once met; on the
 * CPU both loads acquire) serve every bell as well. */
Test(persist_resident, shared_sm_waits_serve_every_bell)
{
	for (int w = 2; w <= 4; w++) {
		cr_expect_eq(resident_rounds(w, 10000000000ull, 0, 41 + (uint64_t)w, 1), 1,
			     "%d workers", w);
		cr_expect_eq(resident_rounds(w, 0, 1, 51 + (uint64_t)w, 1), 24, "%d workers", w);
	}
}

/* ---- run time: right results ----------------------------------------------------------------- */

Test(persist_run, every_mode_runs_chains)
{
	struct pc_dag d;

	pc_chain(&d, 12, 1, 0);
	run_all(&d, 2, 10, 1);
	pc_dag_free(&d);
	pc_chain(&d, 8, 6, 1); /* tile edges */
	run_all(&d, 1, 10, 2);
	pc_dag_free(&d);
}

/* JIT: @runs runs of @iters iterations of @d on @workers workers; the tiles kept (run by the
 * worker that made them ready, not ringed). */
static uint64_t jit_kept(const struct pc_dag *d, int workers, int runs, int iters)
{
	struct sk_persist_opts o = SK_PERSIST_OPTS_DEFAULT;
	struct sk_persist_stats st;

	o.mode = SK_PERSIST_JIT;
	o.nworkers = workers;
	run_checked(d, o, runs, iters, 7, &st);
	cr_assert_eq(st.tiles, (uint64_t)runs * (uint64_t)iters * (uint64_t)d->ntasks);
	return st.kept;
}

/*
 * JIT keeps a one-tile successor it made ready for the worker that did: a chain of one-tile
 * tasks never goes through the ring but for each run's first root (which the start pushes):
 * 3 runs x 10 iterations x 12 tasks = 360 tiles, 357 kept, with any worker count. On the
 * diamond 0 -> {1, 2} -> 3 of one tile each, one worker: 0 keeps 1 and rings 2, 1 leaves 3
 * short of 2's arrival, 2 (claimed) keeps 3, and 3, which ends the epoch, keeps the next 0:
 * 3 kept an iteration but the run's first, 2 x (3 x 10 - 1) = 58.
 */
Test(persist_run, jit_runs_a_successor_it_made_ready_without_the_ring)
{
	struct pc_dag d;

	pc_chain(&d, 12, 1, 0);
	for (int w = 1; w <= 4; w++)
		cr_expect_eq(jit_kept(&d, w, 3, 10), 357, "%d workers", w);
	pc_dag_free(&d);
	pc_dag_init(&d, 4);
	for (int t = 0; t < 4; t++)
		d.tasks[t].ntiles = 1;
	pc_edge(&d, 0, 1, 0);
	pc_edge(&d, 0, 2, 0);
	pc_edge(&d, 1, 3, 0);
	pc_edge(&d, 2, 3, 0);
	cr_expect_eq(jit_kept(&d, 1, 2, 10), 58);
	pc_dag_free(&d);
}

Test(persist_run, every_mode_runs_a_diamond)
{
	struct pc_dag d;

	pc_diamond(&d);
	run_all(&d, 3, 20, 3);
	pc_dag_free(&d);
}

Test(persist_run, every_mode_runs_a_wide_fan_out_and_in)
{
	struct pc_dag d;

	pc_fan(&d, 64);
	run_all(&d, 1, 10, 4);
	pc_dag_free(&d);
}

Test(persist_run, every_mode_runs_random_dags_of_200_tasks)
{
	for (uint64_t seed = 11; seed <= 13; seed++) {
		struct sk_persist_dag v;
		struct pc_dag d;

		pc_random(&d, 200, 6, seed);
		v = pc_view(&d);
		cr_assert_gt(v.nedges, 200, "a DAG, not a list of independent tasks");
		run_all(&d, 2, 8, seed);
		pc_dag_free(&d);
	}
}

Test(persist_run, counters_carry_over_between_runs_by_epoch)
{
	struct pc_dag d;

	pc_random(&d, 60, 4, 99);
	for (int m = 0; m < SK_PERSIST_NMODES; m++) {
		struct sk_persist_opts o = SK_PERSIST_OPTS_DEFAULT;

		o.mode = (enum sk_persist_mode)m;
		o.nworkers = 4;
		run_checked(&d, o, 5, 3, 5, NULL); /* epochs 1..15, five launches */
	}
	pc_dag_free(&d);
}

Test(persist_run, one_worker_runs_tile_edges_in_any_mode)
{
	struct pc_dag d;

	/* 8 tiles -> 8 tiles -> 3 tiles by tile edges: with one worker, the ticket order alone
	 * (producer tiles claimed first) must keep it from waiting on itself */
	pc_chain(&d, 3, 8, 1);
	d.tasks[2].ntiles = 3;
	for (int m = 0; m < SK_PERSIST_NMODES; m++) {
		struct sk_persist_opts o = SK_PERSIST_OPTS_DEFAULT;

		o.mode = (enum sk_persist_mode)m;
		o.lookahead = 8;
		run_checked(&d, o, 1, 20, 6, NULL);
	}
	pc_dag_free(&d);
}

Test(persist_run, a_small_feed_ring_runs_on_credit)
{
	struct pc_dag d;
	struct sk_persist_opts o = SK_PERSIST_OPTS_DEFAULT;
	struct sk_persist_stats st;

	pc_random(&d, 100, 7, 21);
	o.mode = SK_PERSIST_COPILOT;
	o.nworkers = 3;
	o.feed_tiles = 7; /* the largest task's tiles: rounded up to 8 entries */
	run_checked(&d, o, 1, 5, 7, &st);
	cr_assert_leq(st.max_inflight, 8);
	pc_dag_free(&d);
}

Test(persist_run, the_copilot_speculates_only_within_its_lookahead_and_batches_reports)
{
	struct pc_dag d;
	struct sk_persist_opts o = SK_PERSIST_OPTS_DEFAULT;
	struct sk_persist_stats st;

	pc_chain(&d, 30, 2, 0);
	o.mode = SK_PERSIST_COPILOT;
	o.nworkers = 2;
	o.lookahead = 0;
	o.report_batch = 1;
	run_checked(&d, o, 1, 5, 8, &st);
	cr_assert_eq(st.spec_enqueues, 0);
	cr_assert_eq(st.max_speculative, 0);
	cr_assert_eq(st.reports, 30 * 5);
	cr_assert_eq(st.report_batches, st.reports, "a batch of one publishes every report");
	/* with a lookahead of 4, each epoch feeds tasks 1..4 speculatively as soon as task 0
	 * is fed, before any report can come back; later ones are speculative or not depending
	 * on when the reports arrive, but never more than 4 at a time */
	o.lookahead = 4;
	o.report_batch = 8;
	run_checked(&d, o, 1, 5, 9, &st);
	cr_assert_geq(st.spec_enqueues, 5 * 4);
	cr_assert_leq(st.spec_enqueues, 5 * 29);
	cr_assert_eq(st.max_speculative, 4);
	cr_assert_eq(st.reports, 30 * 5);
	cr_assert_leq(st.report_batches, st.reports);
	pc_dag_free(&d);
}

/*
 * Run @d (task 0 producing for task 1) once in @mode on 2 workers with producer tile @slow
 * sleeping 30 ms; returns how many of consumer tiles [0, @nfree) started before it ended (they
 * do not read it), and asserts that consumer tiles [@nfree, ntiles) started after it ended and
 * that the values are right.
 */
static int overlap_slow_tile(const struct pc_dag *d, int mode, int slow, int nfree)
{
	struct sk_persist_opts o = SK_PERSIST_OPTS_DEFAULT;
	struct sk_persist_plan *p;
	struct sk_persist *rt;
	struct pc_check c;
	int err, n = 0, base = d->tasks[0].ntiles;

	o.mode = (enum sk_persist_mode)mode;
	o.nworkers = 2;
	o.lookahead = 4;
	p = plan_of(d, o);
	pc_check_init(&c, d);
	c.slow_task = 0;
	c.slow_tile = slow;
	c.slow_us = 30000;
	rt = sk_persist_new(p, &(struct sk_persist_hooks){pc_body, NULL, &c}, &err);
	cr_assert_not_null(rt);
	cr_assert_eq(sk_persist_run(rt, 1), 0, "%s", skip_errmsg());
	for (int k = 0; k < nfree; k++)
		n += c.t_start[base + k] < c.t_end[slow];
	for (int k = nfree; k < d->tasks[1].ntiles; k++)
		cr_assert_gt(c.t_start[base + k], c.t_end[slow], "%s: consumer tile %d",
			     sk_persist_mode_name(mode), k);
	cr_assert_eq(pc_verify(&c, 1), 0, "%s", c.msg);
	sk_persist_free(rt);
	sk_persist_plan_free(p);
	pc_check_fini(&c);
	return n;
}

/* A slow last producer tile: consumer tiles that read other producer tiles run meanwhile. */
Test(persist_run, consumer_tiles_overlap_the_producer_through_tile_edges)
{
	struct pc_dag d;

	pc_chain(&d, 2, 8, 1);
	for (int m = 0; m < SK_PERSIST_NMODES; m++) /* consumer tile k reads producer tile k */
		cr_assert_geq(overlap_slow_tile(&d, m, 7, 7), 1,
			      "%s: no consumer tile ran beside producer tile 7",
			      sk_persist_mode_name(m));
	pc_dag_free(&d);
}

/* ---- run time: what must not hang ------------------------------------------------------------ */

#define WATCHDOG_MS 200u
#define MARGIN_S    2.0 /* thread wake-ups and joins on a loaded machine */

/* Run a plan that cannot finish; assert -ETIMEDOUT within the watchdog, and @needle in the
 * message. @lose: a task the plan forgets, or -1; @cycle: add 30 -> 25 to close 25 -> ... -> 30. */
static void must_time_out(int lose, int cycle, const char *needle)
{
	for (int m = 0; m < SK_PERSIST_NMODES; m++)
		for (int nw = 1; nw <= 4; nw += 3) {
			struct sk_persist_opts o = SK_PERSIST_OPTS_DEFAULT;
			struct pc_check c;
			struct pc_dag d;
			struct sk_persist_plan *p;
			struct sk_persist *rt;
			double t0, dt;
			int err;

			pc_chain(&d, 40, 2, 0);
			if (cycle)
				pc_edge(&d, 30, 25, SK_PERSIST_EDGE_TILE);
			o.mode = (enum sk_persist_mode)m;
			o.nworkers = nw;
			o.watchdog_ms = WATCHDOG_MS;
			o.flags = SK_PERSIST_UNCHECKED;
			p = plan_of(&d, o);
			if (lose >= 0)
				cr_assert_eq(sk_persist_plan_lose(p, lose), 0);
			pc_check_init(&c, &d);
			c.jitter_permille = 20;
			rt = sk_persist_new(p, &(struct sk_persist_hooks){pc_body, pc_jitter, &c},
					    &err);
			cr_assert_not_null(rt);
			t0 = now_s();
			err = sk_persist_run(rt, 3);
			dt = now_s() - t0;
			cr_assert_eq(err, -ETIMEDOUT, "%s/%d: %d %s", sk_persist_mode_name(m), nw,
				     err, skip_errmsg());
			cr_assert_lt(dt, WATCHDOG_MS / 1000.0 + MARGIN_S, "%s: %.3f s",
				     sk_persist_mode_name(m), dt);
			cr_assert_geq(dt, WATCHDOG_MS / 1000.0 * 0.9);
			cr_assert(strstr(skip_errmsg(), needle), "%s/%d: %s",
				  sk_persist_mode_name(m), nw, skip_errmsg());
			cr_assert_eq(atomic_load(&c.errors), 0, "%s", c.msg);
			cr_assert_eq(sk_persist_run(rt, 1), SKIP_E_INVAL, "the state is spent");
			sk_persist_free(rt);
			sk_persist_plan_free(p);
			pc_check_fini(&c);
			pc_dag_free(&d);
		}
}

Test(persist_watchdog, a_cycle_ends_with_the_watchdog_error_naming_it)
{
	must_time_out(-1, 1,
		      "task 25 (0 of 2 tiles done), which waits on task 30 (0 of 2 tiles "
		      "done), which waits on task 29");
	must_time_out(-1, 1, ": a cycle");
}

Test(persist_watchdog, a_missing_producer_ends_with_the_watchdog_error_naming_it)
{
	must_time_out(17, 0,
		      "task 18 (0 of 2 tiles done), which waits on task 17 (0 of 2 tiles "
		      "done), whose producers are done but which has not finished");
	must_time_out(0, 0, "task 0 (0 of 2 tiles done), whose producers are done");
}

Test(persist_watchdog, a_failing_task_stops_every_worker_with_its_error)
{
	for (int m = 0; m < SK_PERSIST_NMODES; m++)
		for (int nw = 1; nw <= 8; nw *= 2) {
			struct sk_persist_opts o = SK_PERSIST_OPTS_DEFAULT;
			struct pc_check c;
			struct pc_dag d;
			struct sk_persist_plan *p;
			struct sk_persist *rt;
			char want[64];
			double t0;
			int err;

			pc_random(&d, 120, 5, 31);
			o.mode = (enum sk_persist_mode)m;
			o.nworkers = nw;
			p = plan_of(&d, o);
			pc_check_init(&c, &d);
			c.fail_task = 40;
			c.fail_epoch = 3;
			c.delay_permille = 50;
			rt = sk_persist_new(p, &(struct sk_persist_hooks){pc_body, NULL, &c}, &err);
			cr_assert_not_null(rt);
			t0 = now_s();
			err = sk_persist_run(rt, 6);
			/* well inside the 5 s watchdog: the workers stopped on the error, not on it
			 */
			cr_assert_lt(now_s() - t0, 2.0);
			cr_assert_eq(err, -EIO, "%s/%d: %d %s", sk_persist_mode_name(m), nw, err,
				     skip_errmsg());
			snprintf(want, sizeof(want), "task 40 tile 0 (epoch 3) failed");
			cr_assert(strstr(skip_errmsg(), want), "%s", skip_errmsg());
			cr_assert_eq(atomic_load(&c.errors), 0, "%s", c.msg);
			cr_assert_lt(sk_persist_epoch(rt), 3);
			cr_assert_eq(sk_persist_run(rt, 1), SKIP_E_INVAL);
			sk_persist_free(rt);
			sk_persist_plan_free(p);
			pc_check_fini(&c);
			pc_dag_free(&d);
		}
}

/* ---- row edges (cuSync's RowSync) --------------------------------------------------------------
 */

Test(persist_plan, the_tile_ranges_are_the_hand_computed_ones)
{
	int lo, hi;

	/* rows: tile 5 of 12 in 3 rows (4 tiles each) is in row 1; with 6 producer tiles (2 a
	 * row), row 1 is tiles 2 and 3 */
	sk_persist_tile_range(3, 5, 12, 6, &lo, &hi);
	cr_assert(lo == 2 && hi == 4, "[%d, %d)", lo, hi);
	/* the same tile, proportional: its share [5/12, 6/12) overlaps producer tile 2 only
	 * ([2/6, 3/6)) */
	sk_persist_tile_range(SK_PERSIST_RULE_TILE, 5, 12, 6, &lo, &hi);
	cr_assert(lo == 2 && hi == 3, "[%d, %d)", lo, hi);
	/* seen from producer tile 3 of 6 (row 1): consumer tiles 4..7 read it */
	sk_persist_tile_range(3, 3, 6, 12, &lo, &hi);
	cr_assert(lo == 4 && hi == 8, "[%d, %d)", lo, hi);
	/* one row: every tile reads all of the producer */
	sk_persist_tile_range(1, 11, 12, 6, &lo, &hi);
	cr_assert(lo == 0 && hi == 6, "[%d, %d)", lo, hi);
}

/* skip run --probe-starts's worker_ns: how long a task held one worker, from a hand timeline. */
Test(persist_plan, a_tasks_worker_span_is_its_longest_stretch_on_one_worker)
{
	struct sk_persist_opts o = SK_PERSIST_OPTS_DEFAULT;
	struct pc_dag d;
	struct sk_persist_plan *p;
	uint64_t lo[3], hi[3];
	/* plan tiles 0-1 are task 0's, 2-5 task 1's (tile_base) */
	struct skip_tile_time tt[6] = {
	    {0, 0, 0, 0, 0}, /* task 0: nothing timed */
	    {0, 1, 1, 0, 0},
	    {1, 0, 0, 1000, 1300}, /* worker 0: 1000 to 1800, two tiles: 800 */
	    {1, 1, 0, 1300, 1800},
	    {1, 2, 1, 1100, 1650}, /* worker 1: 550 */
	    {1, 3, 2, 0, 5000},	   /* not timed (start 0) */
	};

	pc_dag_init(&d, 2);
	d.tasks[0].ntiles = 2;
	d.tasks[1].ntiles = 4;
	pc_edge(&d, 0, 1, 0);
	o.nworkers = 3;
	p = plan_of(&d, o);
	cr_assert(p->tile_base[1] == 2 && p->tile_base[2] == 6);
	cr_expect_float_eq(sk_persist_worker_span(p, tt, 1, lo, hi), 800, 1e-9);
	cr_expect_float_eq(sk_persist_worker_span(p, tt, 0, lo, hi), 0, 1e-9);
	/* worker 0's second tile ends before it starts (a torn record): worker 0 holds 300, so
	 * worker 1's 550 is the longest; a worker out of range is passed over too */
	tt[3].end_ns = 1200;
	tt[4].worker = 3;
	tt[5] = (struct skip_tile_time){1, 3, 1, 2000, 2550};
	cr_expect_float_eq(sk_persist_worker_span(p, tt, 1, lo, hi), 550, 1e-9);
	sk_persist_plan_free(p);
	pc_dag_free(&d);
}

Test(persist_plan, a_row_edge_waits_on_its_producer_row_in_every_step)
{
	struct sk_persist_opts o = SK_PERSIST_OPTS_DEFAULT;
	struct pc_dag d;

	pc_dag_init(&d, 2);
	d.tasks[0].ntiles = 6;
	d.tasks[1].ntiles = 12;
	pc_row_edge(&d, 0, 1, 3);
	o.nworkers = 4;
	struct sk_persist_plan *p = plan_of(&d, o);
	cr_assert_eq(p->nedges, 1);
	cr_assert_eq(p->pred_tile[0], 3);
	cr_assert_eq(p->succ_tile[0], 3);
	for (int i = 0; i < p->total_tiles; i++) {
		const struct sk_persist_step *s = &p->step[i];

		if (s->task != 1)
			continue;
		/* consumer tile k: row k / 4, producer tiles 2 * row and 2 * row + 1, as the
		 * tile_done counters -(g) - 1 */
		cr_assert_eq(s->nwait, 2);
		cr_assert_eq(s->ctr[0], -(2 * (s->tile / 4)) - 1, "tile %d", s->tile);
		cr_assert_eq(s->ctr[1], -(2 * (s->tile / 4) + 1) - 1, "tile %d", s->tile);
		cr_assert_eq(s->per_epoch[0], 1);
	}
	check_queues(p, &d);
	sk_persist_plan_free(p);
	pc_dag_free(&d);
}

Test(persist_plan, rows_that_do_not_divide_both_tile_counts_are_refused)
{
	struct sk_persist_opts o = SK_PERSIST_OPTS_DEFAULT;
	struct sk_persist_dag v;
	struct pc_dag d;
	int err;

	pc_dag_init(&d, 2);
	d.tasks[0].ntiles = 6;
	d.tasks[1].ntiles = 12;
	pc_row_edge(&d, 0, 1, 4); /* divides 12, not 6 */
	v = pc_view(&d);
	cr_assert_null(sk_persist_plan_new(&v, &o, &err));
	cr_assert_eq(err, SKIP_E_INVAL);
	cr_assert(strstr(skip_errmsg(), "row edge 0 -> 1: 4 rows must divide both the "
					"producer's 6 tiles and the consumer's 12"),
		  "%s", skip_errmsg());
	d.edges[0].rows = 0;
	cr_assert_null(sk_persist_plan_new(&v, &o, &err));
	d.edges[0].flags = SK_PERSIST_EDGE_TILE | SK_PERSIST_EDGE_ROW;
	d.edges[0].rows = 3;
	cr_assert_null(sk_persist_plan_new(&v, &o, &err));
	cr_assert(strstr(skip_errmsg(), "flags 0x3"), "%s", skip_errmsg());
	pc_dag_free(&d);
}

Test(persist_plan, copies_of_an_edge_with_two_rules_make_it_full)
{
	struct pc_dag d;

	pc_chain(&d, 2, 4, 1);
	pc_row_edge(&d, 0, 1, 2);
	struct sk_persist_plan *p = plan_of(&d, SK_PERSIST_OPTS_DEFAULT);
	cr_assert_eq(p->nedges, 1);
	cr_assert_eq(p->pred_tile[0], 0);
	sk_persist_plan_free(p);
	pc_dag_free(&d);
	pc_chain(&d, 2, 4, 0);
	d.nedges = 0;
	pc_row_edge(&d, 0, 1, 2);
	pc_row_edge(&d, 0, 1, 2);
	p = plan_of(&d, SK_PERSIST_OPTS_DEFAULT);
	cr_assert_eq(p->nedges, 1);
	cr_assert_eq(p->pred_tile[0], 2, "the same rule twice stays a row edge");
	sk_persist_plan_free(p);
	pc_dag_free(&d);
}

Test(persist_plan, row_edges_let_a_row_start_once_its_producer_row_is_done)
{
	/* 4 then 4 tiles of 1 us on 3 workers. Full: the producer takes 2 us (3 tiles, then 1),
	 * the consumer 2 more: 4 us. Rows of 2: consumer row 0 (tiles 0, 1) needs producer
	 * tiles 0 and 1 (done at 1 us) and runs beside producer tile 3 (1-2 us); row 1 runs
	 * 2-3 us: 3 us */
	assert_makespans(4, 3, SK_PERSIST_EDGE_ROW, 2, 4.0, 3.0);
}

Test(persist_run, every_mode_runs_row_edges)
{
	struct pc_dag d;

	/* 6 -> 12 -> 4 -> 8 tiles: rows of 3, 2 and 4 (the last a row edge of one tile a row
	 * on the producer side), beside a full edge 0 -> 3 */
	pc_dag_init(&d, 4);
	d.tasks[0].ntiles = 6;
	d.tasks[1].ntiles = 12;
	d.tasks[2].ntiles = 4;
	d.tasks[3].ntiles = 8;
	pc_row_edge(&d, 0, 1, 3);
	pc_row_edge(&d, 1, 2, 2);
	pc_row_edge(&d, 2, 3, 4);
	pc_edge(&d, 0, 3, 0);
	run_all(&d, 2, 10, 17);
	pc_dag_free(&d);
}

/* A slow producer row: consumer tiles of the other rows run meanwhile, those of its row after. */
Test(persist_run, consumer_rows_overlap_a_slow_producer_row)
{
	struct pc_dag d;

	/* producer rows {0, 1} {2, 3} {4, 5}; consumer rows 0-3, 4-7, 8-11 */
	pc_dag_init(&d, 2);
	d.tasks[0].ntiles = 6;
	d.tasks[1].ntiles = 12;
	pc_row_edge(&d, 0, 1, 3);
	for (int m = 0; m < SK_PERSIST_NMODES; m++) /* producer tile 5 is row 2 */
		cr_assert_geq(overlap_slow_tile(&d, m, 5, 8), 1,
			      "%s: no consumer tile ran beside producer tile 5",
			      sk_persist_mode_name(m));
	pc_dag_free(&d);
}

Test(persist_watchdog, a_missing_producer_behind_a_row_edge_is_named)
{
	for (int m = 0; m < SK_PERSIST_NMODES; m++) {
		struct sk_persist_opts o = SK_PERSIST_OPTS_DEFAULT;
		struct pc_check c;
		struct pc_dag d;
		struct sk_persist_plan *p;
		struct sk_persist *rt;
		int err;

		/* 0 -> 1 by rows of 2, 1 -> 2 full; task 0 never runs */
		pc_chain(&d, 3, 4, 0);
		d.edges[0].flags = SK_PERSIST_EDGE_ROW;
		d.edges[0].rows = 2;
		o.mode = (enum sk_persist_mode)m;
		o.nworkers = 2;
		o.watchdog_ms = WATCHDOG_MS;
		p = plan_of(&d, o);
		cr_assert_eq(sk_persist_plan_lose(p, 0), 0);
		pc_check_init(&c, &d);
		rt = sk_persist_new(p, &(struct sk_persist_hooks){pc_body, NULL, &c}, &err);
		cr_assert_not_null(rt);
		cr_assert_eq(sk_persist_run(rt, 1), -ETIMEDOUT);
		cr_assert(strstr(skip_errmsg(), "task 1 (0 of 4 tiles done), which waits on task 0 "
						"(0 of 4 tiles done), whose producers are done"),
			  "%s: %s", sk_persist_mode_name(m), skip_errmsg());
		sk_persist_free(rt);
		sk_persist_plan_free(p);
		pc_check_fini(&c);
		pc_dag_free(&d);
	}
}
