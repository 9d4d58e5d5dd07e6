/*
 * test_persistent.c: skip_predict_persistent() (advisor/persistent.c) on hand-built task DAGs
 * (a chain, a fork-join, a diamond with a grid larger than the workers, a tile edge), every
 * answer computed by hand from the list schedule; two workers sharing an SM; tasks sharing the
 * memory (their demands); and its errors;
 * skip_persist_choose() (the mode skip run's auto takes) on a wide DAG and a chain of empty
 * tasks, as skip run predicts them.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "skip_advisor.h"
#include "skip_runtime.h"

static struct skip_graph *g;
static const char kernel_symbol = 0;

static void fini(void)
{
	skip_graph_free(g);
	g = NULL;
}

TestSuite(persistent, .fini = fini);

/* A task of @grid blocks that reads buffer @in (NULL: none) and writes buffer @out. */
static void task(const char *name, unsigned grid, const char *in, const char *out)
{
	struct skip_access acc[8];
	struct skip_task_desc d = {.name = name, .access = acc};
	const char *bufs[2] = {in, out};

	if (!g)
		g = skip_graph_new(NULL);
	for (int k = 0; k < 2; k++) {
		char one[8];

		for (const char *b = bufs[k]; b && *b; b += strlen(one) + (b[strlen(one)] == ' ')) {
			int id;

			sscanf(b, "%7s", one);
			id = skip_graph_find_buffer(g, one);
			if (id < 0)
				id = skip_graph_add_buffer(g, one, 1024, SKIP_DT_U8, NULL);
			acc[d.naccess++] =
			    (struct skip_access){id, 0, 0, k ? SKIP_WRITE : SKIP_READ};
		}
	}
	d.kernel = (struct skip_kernel){.kind = SKIP_KERNEL_SYMBOL, .symbol = &kernel_symbol};
	d.grid[0] = grid;
	d.block[0] = 32;
	cr_assert_geq(skip_graph_add_task(g, &d), 0, "%s", skip_errmsg());
}

static void cal(struct skip_calibration *c)
{
	skip_calibration_default(c);
	c->persist_launch_ns = 4000;
	c->persist_epoch_ns = 1000;
	c->persist_aot_task_ns = 600;
	c->persist_jit_task_ns = 1300;
	c->persist_copilot_task_ns = 3500;
	c->persist_aot_local_ns = 600; /* as across workers: the local cost has its own test */
	c->persist_jit_local_ns = 1300;
}

static struct skip_persist_prediction predict(const double *ns, int workers, int mode)
{
	struct skip_calibration c;
	struct skip_persist_prediction p;

	cal(&c);
	cr_assert_eq(skip_predict_persistent(g, ns, NULL, workers, 0, &c, mode, &p), 0, "%s",
		     skip_errmsg());
	cr_expect_float_eq(p.launch_ns, 4000, 1e-9);
	cr_expect_float_eq(p.epoch_ns, 1000, 1e-9);
	cr_expect_float_eq(p.iteration_ns, 5000 + p.makespan_ns, 1e-6);
	return p;
}

/* a -> b -> c, 5 us each, one block: (5000 + c) x 3 whatever the workers. */
Test(persistent, chain)
{
	static const double ns[] = {5000, 5000, 5000};
	static const double per_task[] = {600, 1300, 3500};

	task("a", 1, NULL, "A");
	task("b", 1, "A", "B");
	task("c", 1, "B", "C");
	cr_assert_eq(skip_graph_finalize(g), 0, "%s", skip_errmsg());
	for (int m = 0; m < SKIP_PERSIST_NMODES; m++) {
		struct skip_persist_prediction p = predict(ns, 4, m);

		cr_expect_float_eq(p.makespan_ns, 3 * (5000 + per_task[m]), 1e-6, "%s",
				   skip_persist_mode_name(m));
		cr_expect_eq(p.tiles, 3);
	}
}

/* a -> b, c -> d; b and c of 2 blocks. AOT (600): a 1.6 us; on 4 workers b's and c's four
 * tiles run at once, 1.6 + 5.6 = 7.2, then d: 9.8 us. On 2 workers c (the longer path: 5.6 +
 * 2.6 against 3.6 + 2.6) takes both at 1.6-7.2, b's tiles follow at 7.2-10.8, d 10.8-13.4. */
Test(persistent, fork_join)
{
	static const double ns[] = {1000, 3000, 5000, 2000};

	task("a", 1, NULL, "A");
	task("b", 2, "A", "B");
	task("c", 2, "A", "C");
	task("d", 1, "B C", "D");
	cr_assert_eq(skip_graph_finalize(g), 0, "%s", skip_errmsg());
	cr_expect_float_eq(predict(ns, 4, SKIP_PERSIST_AOT).makespan_ns, 9800, 1e-6);
	cr_expect_eq(predict(ns, 4, SKIP_PERSIST_AOT).tiles, 6);
	cr_expect_float_eq(predict(ns, 2, SKIP_PERSIST_AOT).makespan_ns, 13400, 1e-6);
	cr_expect_float_eq(predict(ns, 2, SKIP_PERSIST_AOT).iteration_ns, 18400, 1e-6);
}

/* a -> b, c -> d with b of 8 blocks on 4 workers: capped at 4 tiles, each taking b's time.
 * JIT (1300): a 0-2.3; b first (5.3 + 2.3 against c's 3.3 + 2.3), its tiles on the 4 workers
 * at 2.3-7.6; c 7.6-10.9; d 10.9-13.2: iteration 4 + 13.2 + 1 = 18.2 us. With 8 workers b's
 * 8 tiles take them all (the same 13.2); with 9, c runs beside them: c 2.3-5.6, b 2.3-7.6, d
 * 7.6-9.9. */
Test(persistent, diamond)
{
	static const double ns[] = {1000, 4000, 2000, 1000};

	task("a", 1, NULL, "A");
	task("b", 8, "A", "B");
	task("c", 1, "A", "C");
	task("d", 1, "B C", "D");
	cr_assert_eq(skip_graph_finalize(g), 0, "%s", skip_errmsg());
	cr_expect_float_eq(predict(ns, 4, SKIP_PERSIST_JIT).makespan_ns, 13200, 1e-6);
	cr_expect_float_eq(predict(ns, 4, SKIP_PERSIST_JIT).iteration_ns, 18200, 1e-6);
	cr_expect_eq(predict(ns, 4, SKIP_PERSIST_JIT).tiles, 7);
	cr_expect_float_eq(predict(ns, 8, SKIP_PERSIST_JIT).makespan_ns, 13200, 1e-6);
	cr_expect_float_eq(predict(ns, 9, SKIP_PERSIST_JIT).makespan_ns, 9900, 1e-6);
}

/*
 * a (6 blocks, 8 us) -> b (6 blocks, 4 us) on 4 workers, AOT (600 ns a task). With a tile edge
 * (b's tile k reads a's tile k) every block is a tile of its task's time over its 2 rounds plus
 * the cost: a 4.6 us, b 2.6 us. a0-a3 run 0-4.6 and a4, a5 4.6-9.2 on workers 0 and 1; b0 and
 * b1 start at 4.6 on workers 2 and 3, b2 and b3 at 7.2 there, b4 and b5 at 9.2 on 0 and 1:
 * makespan 11.8 us, 12 tiles. With a full edge (no declaration): 4 tiles each, a 8.6 and b 4.6
 * us, makespan 13.2 us.
 */
Test(persistent, a_tile_edge_lets_consumer_tiles_start_early)
{
	const double ns[] = {8000, 4000};
	struct skip_tile_edge e = {0, 1, SKIP_TILE_TILE, 0};
	struct skip_persist_prediction p;

	task("a", 6, NULL, "x");
	task("b", 6, "x", "y");
	cr_assert_eq(skip_graph_finalize(g), 0, "%s", skip_errmsg());
	p = predict(ns, 4, 0);
	cr_expect_float_eq(p.makespan_ns, 13200, 1e-6, "a full edge");
	cr_expect_eq(p.tiles, 8);
	cr_expect_eq(p.tile_edges, 0);
	fini();
	task("a", 6, NULL, "x");
	task("b", 6, "x", "y");
	cr_assert_eq(skip_graph_add_tile_edge(g, &e), 0, "%s", skip_errmsg());
	cr_assert_eq(skip_graph_finalize(g), 0, "%s", skip_errmsg());
	p = predict(ns, 4, 0);
	cr_expect_float_eq(p.makespan_ns, 11800, 1e-6, "a tile edge");
	cr_expect_eq(p.tiles, 12);
	cr_expect_eq(p.tile_edges, 1);
}

/* One iteration on @workers workers of which @sms SMs hold two, AOT, sm_share_rate @rate. */
static double shared_makespan(const double *ns, int workers, int sms, double rate)
{
	struct skip_calibration c;
	struct skip_persist_prediction p;

	cal(&c);
	c.sm_share_rate = rate;
	cr_assert_eq(skip_predict_persistent(g, ns, NULL, workers, sms, &c, SKIP_PERSIST_AOT, &p),
		     0, "%s", skip_errmsg());
	cr_expect_float_eq(p.iteration_ns, 5000 + p.makespan_ns, 1e-6);
	return p.makespan_ns;
}

/*
 * Three workers on two SMs: workers 0 and 2 share one. x (3 blocks, 10 us) -> y (1 block, 1 us),
 * AOT (600 ns a task), sm_share_rate 0.5. The plan puts x's tiles on workers 0, 1, 2 at 0 and y
 * on worker 0 at 10.6. Re-timed: x on 0 and 1 end at 10.6; x on 2 is the newer beside 0's,
 * from 0.6 at half pace until 10.6 (5 us done), the other 5 at full pace: 15.6; y then starts
 * at 15.6 and ends at 17.2 (2's tile has ended). Unshared (132 SMs, or a rate of 1): 12.2.
 */
Test(persistent, workers_sharing_an_sm_slow_the_newer_tile)
{
	static const double ns[] = {10000, 1000};

	task("x", 3, NULL, "X");
	task("y", 1, "X", "Y");
	cr_assert_eq(skip_graph_finalize(g), 0, "%s", skip_errmsg());
	cr_expect_float_eq(shared_makespan(ns, 3, 2, 0.5), 17200, 1e-6);
	cr_expect_float_eq(shared_makespan(ns, 3, 2, 1), 12200, 1e-6, "full pace");
	cr_expect_float_eq(shared_makespan(ns, 3, 0, 0.5), 12200, 1e-6, "the H100's 132 SMs");
	cr_expect_float_eq(shared_makespan(ns, 2, 2, 0.5), 12200, 1e-6, "a worker per SM");
}

/*
 * a (2 blocks, 8 us), b (1 block, 3 us) -> c (1 block, 1 us) on three workers, 0 and 2 sharing
 * an SM, rate 0.5. The plan: a's tiles on 0 and 1 at 0-8.6, b on 2 at 0-3.6, c on 2 at 3.6-5.2
 * (makespan 8.6). Re-timed: b, beside a's older tile until 8.6, does its 3 us at half pace
 * within that: 0.6 + 6 = 6.6; c starts at 6.6, from 7.2 at half pace until 8.6 (0.7 us done),
 * the other 0.3 at full pace: 8.9.
 */
Test(persistent, a_tile_that_ends_beside_an_older_one_delays_its_successor)
{
	static const double ns[] = {8000, 3000, 1000};

	task("a", 2, NULL, "A");
	task("b", 1, NULL, "B");
	task("c", 1, "B", "C");
	cr_assert_eq(skip_graph_finalize(g), 0, "%s", skip_errmsg());
	cr_expect_float_eq(shared_makespan(ns, 3, 2, 0.5), 8900, 1e-6);
	cr_expect_float_eq(shared_makespan(ns, 3, 3, 0.5), 8600, 1e-6, "unshared");
}

/* One iteration on @workers workers (one an SM), AOT, with the tasks' memory demands @demand. */
static double demand_makespan_on(const double *ns, const double *demand, int workers)
{
	struct skip_calibration c;
	struct skip_persist_prediction p;

	cal(&c);
	cr_assert_eq(skip_predict_persistent(g, ns, demand, workers, 132, &c, SKIP_PERSIST_AOT, &p),
		     0, "%s", skip_errmsg());
	return p.makespan_ns;
}

static double demand_makespan(const double *ns, const double *demand)
{
	return demand_makespan_on(ns, demand, 132);
}

/*
 * x (64 blocks, 100 us) and y (64 blocks, 50 us), independent, on 132 workers: 128 tiles from
 * 0, bodies from 0.6 (AOT's 600 ns). Demands 1 and 1: the bodies' demands add up to 64 / 64 +
 * 64 / 64 = 2, pace 1/2: y's 50 us end at 0.6 + 100 = 100.6 with x at 50 done, x's other 50
 * alone: 150.6. Demands 0.5 and 0.5 add up to 1: no slowing, 100.6; 1 and 0 (y not limited by
 * the memory): x at pace 1, 100.6; 0.75 and 0.75 (1.5, pace 2/3): y ends at 0.6 + 75 = 75.6 with
 * x at 50, then x alone: 125.6. No demands (NULL): 100.6. z (1 block, 10 us) after x starts
 * once every tile of x has ended: 150.6 + 10.6.
 */
Test(persistent, tasks_with_a_memory_demand_share_the_memory)
{
	static const double ns[] = {100000, 50000, 10000};

	task("x", 64, NULL, "X");
	task("y", 64, NULL, "Y");
	cr_assert_eq(skip_graph_finalize(g), 0, "%s", skip_errmsg());
	cr_expect_float_eq(demand_makespan(ns, (double[]){1, 1}), 150600, 1e-3);
	cr_expect_float_eq(demand_makespan(ns, (double[]){0.5, 0.5}), 100600, 1e-3);
	cr_expect_float_eq(demand_makespan(ns, (double[]){1, 0}), 100600, 1e-3);
	cr_expect_float_eq(demand_makespan(ns, (double[]){0.75, 0.75}), 125600, 1e-3);
	cr_expect_float_eq(demand_makespan(ns, NULL), 100600, 1e-3);
	fini();
	task("x", 64, NULL, "X");
	task("y", 64, NULL, "Y");
	task("z", 1, "X", "Z");
	cr_assert_eq(skip_graph_finalize(g), 0, "%s", skip_errmsg());
	cr_expect_float_eq(demand_makespan(ns, (double[]){1, 1, 0}), 161200, 1e-3);
}

/*
 * The event-by-event re-timing (used where tiles slow each other) on random DAGs where nothing
 * slows them (one task's demand 0.5: the bodies' demands never add up to more than 1): it
 * gives each tile the start the plan's list scheduling gave it, so the same makespan.
 */
Test(persistent, the_re_timing_keeps_the_plans_times_when_nothing_slows)
{
	unsigned seed = 12345;

	for (int round = 0; round < 20; round++) {
		double ns[40], demand[40] = {0.5}, plain, timed;
		int n = 10 + round, workers;

		for (int t = 0; t < n; t++) {
			char name[8], out[8], in[32] = "";

			for (int k = 0; k < 2 && t > 0; k++) {
				seed = seed * 1103515245u + 12345u;
				if ((seed >> 16) % 3 == 0)
					snprintf(in + strlen(in), sizeof(in) - strlen(in), "%sB%u",
						 *in ? " " : "", (seed >> 8) % (unsigned)t);
			}
			seed = seed * 1103515245u + 12345u;
			snprintf(name, sizeof(name), "t%d", t);
			snprintf(out, sizeof(out), "B%d", t);
			task(name, 1 + (seed >> 16) % 6, *in ? in : NULL, out);
			ns[t] = 500 + (seed >> 4) % 8500;
		}
		cr_assert_eq(skip_graph_finalize(g), 0, "%s", skip_errmsg());
		seed = seed * 1103515245u + 12345u;
		workers = 2 + (int)((seed >> 16) % 7);
		plain = demand_makespan_on(ns, NULL, workers);
		timed = demand_makespan_on(ns, demand, workers);
		cr_expect_float_eq(timed, plain, 1e-6 * plain, "round %d: %d tasks on %d workers",
				   round, n, workers);
		fini();
	}
}

/*
 * The local cost: a -> b -> c, one block each, 5 us, then d (2 blocks) after c, on 4 workers,
 * AOT 600 across and 200 where every producer tile ran on the tile's worker. a (a root, 600),
 * b and c on a's worker 0 (200 each): 5.6, 10.8, 16.0; d's two tiles on workers 0 and 1: the
 * one on 0 waits only on c there (200: 21.2), the one on 1 across (600: 21.6). Makespan 21.6
 * us; with the local cost as across, 4 x 5.6 = 22.4.
 */
Test(persistent, a_task_after_producers_on_its_worker_starts_at_the_local_cost)
{
	static const double ns[] = {5000, 5000, 5000, 5000};
	struct skip_calibration c;
	struct skip_persist_prediction p;

	task("a", 1, NULL, "A");
	task("b", 1, "A", "B");
	task("c", 1, "B", "C");
	task("d", 2, "C", "D");
	cr_assert_eq(skip_graph_finalize(g), 0, "%s", skip_errmsg());
	cal(&c);
	c.persist_aot_local_ns = 200;
	cr_assert_eq(skip_predict_persistent(g, ns, NULL, 4, 132, &c, SKIP_PERSIST_AOT, &p), 0,
		     "%s", skip_errmsg());
	cr_expect_float_eq(p.makespan_ns, 21600, 1e-6);
	c.persist_aot_local_ns = 600;
	cr_assert_eq(skip_predict_persistent(g, ns, NULL, 4, 132, &c, SKIP_PERSIST_AOT, &p), 0,
		     "%s", skip_errmsg());
	cr_expect_float_eq(p.makespan_ns, 22400, 1e-6);
	/* a local cost above the one across is taken as that one */
	c.persist_aot_local_ns = 5000;
	cr_expect_float_eq(skip_persist_local_ns(&c, SKIP_PERSIST_AOT), 600, 1e-9);
	cr_expect_float_eq(skip_persist_local_ns(&c, SKIP_PERSIST_COPILOT), 3500, 1e-9);
}

/*
 * synth.py's chain of 500 spin tasks of 2 us (BENCHMARKS.md "Synthetic graphs"), the built-in
 * calibration: the list schedule keeps the chain on worker 0, so the first task costs 1396
 * across, the other 499 the local 551 (AOT) or 1070 (JIT): aot 2643 + 3396 + 499 x 2551 + 97 =
 * 1279085 ns, jit 2643 + 5561 + 499 x 3070 + 97 = 1540231 ns, copilot (one cost) 2643 + 500 x
 * 3705 + 97 = 1855240 ns. Measured on the H100: 1.243, 1.586 and 1.921 ms (+2.9%, -2.9%,
 * -3.4%); every task charged the cost across workers, aot and jit came to 1.701 and 2.783 ms.
 */
Test(persistent, a_chain_of_one_block_tasks_runs_at_the_local_cost)
{
	static double ns[500];
	struct skip_persist_choice ch;

	for (int t = 0; t < 500; t++) {
		char name[8], in[8], out[8];

		snprintf(name, sizeof(name), "t%d", t);
		snprintf(in, sizeof(in), "B%d", t - 1);
		snprintf(out, sizeof(out), "B%d", t);
		task(name, 1, t ? in : NULL, out);
		ns[t] = 2000;
	}
	cr_assert_eq(skip_graph_finalize(g), 0, "%s", skip_errmsg());
	cr_assert_eq(skip_persist_choose(g, ns, 0, NULL, 3, &ch), 0, "%s", skip_errmsg());
	cr_expect_float_eq(ch.pred[SKIP_PERSIST_AOT].iteration_ns, 1279085, 1e-3);
	cr_expect_float_eq(ch.pred[SKIP_PERSIST_JIT].iteration_ns, 1540231, 1e-3);
	cr_expect_float_eq(ch.pred[SKIP_PERSIST_COPILOT].iteration_ns, 1855240, 1e-3);
	cr_expect_eq(ch.mode, SKIP_PERSIST_AOT);
}

Test(persistent, errors)
{
	static const double ns[] = {1000, -1};
	struct skip_persist_prediction p;

	task("a", 1, NULL, "A");
	task("b", 1, "A", "B");
	cr_expect_eq(skip_predict_persistent(g, ns, NULL, 4, 0, NULL, 0, &p), SKIP_E_INVAL,
		     "not finalized");
	cr_assert_eq(skip_graph_finalize(g), 0, "%s", skip_errmsg());
	cr_expect_eq(skip_predict_persistent(g, ns, NULL, 4, 0, NULL, 0, &p), SKIP_E_INVAL);
	cr_expect_not_null(strstr(skip_errmsg(), "task 'b': a duration of -1 ns"), "%s",
			   skip_errmsg());
	cr_expect_eq(skip_predict_persistent(g, (double[]){1, 1}, NULL, 0, 0, NULL, 0, &p),
		     SKIP_E_INVAL);
	cr_expect_eq(skip_predict_persistent(g, (double[]){1, 1}, NULL, 4, 0, NULL, 3, &p),
		     SKIP_E_INVAL);
	cr_expect_eq(skip_predict_persistent(g, (double[]){1, 1}, NULL, 4, 0, NULL, 0, &p), 0, "%s",
		     skip_errmsg());
	/* a on worker 0, then b after it there: 1396 across, 551 on a's worker */
	cr_expect_float_eq(p.iteration_ns, 2643 + (1 + 1396) + (1 + 551) + 97, 1e-6,
			   "the built-in calibration");
}

/* r -> b1..b4 (2 blocks each) -> j, empty tasks (skip run's auto: no durations) on 4 workers:
 * r's tile, b's 8 tiles in two rounds of 4, then j: 4 tiles one after another, each the mode's
 * per-task cost c; an iteration is 4000 + 4c + 1000. With JIT's c 100 (AOT 1500, co-pilot
 * 3400): aot 4000 + 6000 + 1000 = 11000, jit 4000 + 400 + 1000 = 5400, copilot 4000 + 13600
 * + 1000 = 18600: jit. */
Test(persistent, a_tiny_jit_cost_picks_jit_on_a_wide_dag)
{
	static const double ns[6] = {0};
	struct skip_calibration c;
	struct skip_persist_choice ch;

	task("r", 1, NULL, "R");
	task("b1", 2, "R", "B1");
	task("b2", 2, "R", "B2");
	task("b3", 2, "R", "B3");
	task("b4", 2, "R", "B4");
	task("j", 1, "B1 B2 B3 B4", "J");
	cr_assert_eq(skip_graph_finalize(g), 0, "%s", skip_errmsg());
	cal(&c);
	c.persist_aot_task_ns = 1500;
	c.persist_jit_task_ns = 100;
	c.persist_copilot_task_ns = 3400;
	cr_assert_eq(skip_persist_choose(g, ns, 4, &c, 3, &ch), 0, "%s", skip_errmsg());
	cr_expect_eq(ch.mode, SKIP_PERSIST_JIT);
	cr_expect_eq(ch.nmodes, 3);
	cr_expect_float_eq(ch.pred[SKIP_PERSIST_AOT].iteration_ns, 11000, 1e-6);
	cr_expect_float_eq(ch.pred[SKIP_PERSIST_JIT].iteration_ns, 5400, 1e-6);
	cr_expect_float_eq(ch.pred[SKIP_PERSIST_COPILOT].iteration_ns, 18600, 1e-6);
	cr_expect_eq(ch.pred[SKIP_PERSIST_JIT].tiles, 10);
	/* on 8 workers b's tiles take one round: 4000 + 3 x 100 + 1000 */
	cr_assert_eq(skip_persist_choose(g, ns, 8, &c, 3, &ch), 0, "%s", skip_errmsg());
	cr_expect_float_eq(ch.pred[SKIP_PERSIST_JIT].iteration_ns, 5300, 1e-6);
	cr_expect_eq(ch.mode, SKIP_PERSIST_JIT);
}

/* a -> b -> c, empty, with the built-in calibration (launch 2643, barrier 97; a task: AOT
 * 1396, JIT 3561, co-pilot 1705; after a producer on the same worker, as b and c run: AOT 551,
 * JIT 1070): aot 2643 + 1396 + 2 x 551 + 97 = 5238, jit 2643 + 3561 + 2 x 1070 + 97 = 8441,
 * copilot 2643 + 5115 + 97 = 7855: aot, of two modes or three. */
Test(persistent, the_built_in_calibration_picks_aot_on_a_chain)
{
	static const double ns[3] = {0};
	struct skip_persist_choice ch;

	task("a", 1, NULL, "A");
	task("b", 1, "A", "B");
	task("c", 1, "B", "C");
	cr_assert_eq(skip_graph_finalize(g), 0, "%s", skip_errmsg());
	cr_assert_eq(skip_persist_choose(g, ns, 132, NULL, 3, &ch), 0, "%s", skip_errmsg());
	cr_expect_eq(ch.mode, SKIP_PERSIST_AOT);
	cr_expect_float_eq(ch.pred[SKIP_PERSIST_AOT].iteration_ns, 5238, 1e-6);
	cr_expect_float_eq(ch.pred[SKIP_PERSIST_JIT].iteration_ns, 8441, 1e-6);
	cr_expect_float_eq(ch.pred[SKIP_PERSIST_COPILOT].iteration_ns, 7855, 1e-6);
	cr_assert_eq(skip_persist_choose(g, ns, 132, NULL, 2, &ch), 0, "%s", skip_errmsg());
	cr_expect_eq(ch.mode, SKIP_PERSIST_AOT);
	cr_expect_eq(ch.nmodes, 2);
}

/* Only the modes asked for compete, and a tie goes to the earlier mode. */
Test(persistent, the_choice_takes_the_first_modes_and_the_earlier_of_a_tie)
{
	static const double ns[2] = {2000, 2000};
	struct skip_calibration c;
	struct skip_persist_choice ch;

	task("a", 1, NULL, "A");
	task("b", 1, "A", "B");
	cr_assert_eq(skip_graph_finalize(g), 0, "%s", skip_errmsg());
	cal(&c);
	c.persist_copilot_task_ns = 10; /* the fastest, but not one of the first two */
	cr_assert_eq(skip_persist_choose(g, ns, 4, &c, 2, &ch), 0, "%s", skip_errmsg());
	cr_expect_eq(ch.mode, SKIP_PERSIST_AOT, "600 against 1300 a task");
	cr_assert_eq(skip_persist_choose(g, ns, 4, &c, 3, &ch), 0, "%s", skip_errmsg());
	cr_expect_eq(ch.mode, SKIP_PERSIST_COPILOT);
	cr_expect_float_eq(ch.pred[SKIP_PERSIST_COPILOT].iteration_ns, 4000 + 2 * 2010 + 1000,
			   1e-6);
	c.persist_jit_task_ns = c.persist_aot_task_ns;
	cr_assert_eq(skip_persist_choose(g, ns, 4, &c, 2, &ch), 0, "%s", skip_errmsg());
	cr_expect_eq(ch.mode, SKIP_PERSIST_AOT, "a tie");
	cr_expect_eq(skip_persist_choose(g, ns, 4, &c, 0, &ch), SKIP_E_INVAL);
	cr_expect_eq(skip_persist_choose(g, ns, 4, &c, SKIP_PERSIST_NMODES + 1, &ch), SKIP_E_INVAL);
	cr_expect_eq(ch.mode, -1);
	cr_expect_eq(skip_persist_choose(g, ns, -1, &c, 2, &ch), SKIP_E_INVAL, "no workers");
}

/* Without workers each mode is predicted on its default on an H100 (132 SMs): the widest
 * level's tiles where they outnumber the SMs, as many as fit (AOT two an SM, 264; JIT one,
 * 132; the co-pilot one, less its dispatcher's CTA, 131). a (200 blocks) -> b (1 block). */
Test(persistent, without_workers_each_mode_takes_its_default)
{
	static const double ns[2] = {0};
	struct skip_persist_choice ch;

	task("a", 200, NULL, "A");
	task("b", 1, "A", "B");
	cr_assert_eq(skip_graph_finalize(g), 0, "%s", skip_errmsg());
	cr_assert_eq(skip_persist_choose(g, ns, 0, NULL, 3, &ch), 0, "%s", skip_errmsg());
	cr_expect_eq(ch.pred[SKIP_PERSIST_AOT].workers, 200);
	cr_expect_eq(ch.pred[SKIP_PERSIST_JIT].workers, 132);
	cr_expect_eq(ch.pred[SKIP_PERSIST_COPILOT].workers, 131);
	cr_assert_eq(skip_persist_choose(g, ns, 16, NULL, 3, &ch), 0, "%s", skip_errmsg());
	cr_expect_eq(ch.pred[SKIP_PERSIST_JIT].workers, 16, "the plan's, for every mode");
}
