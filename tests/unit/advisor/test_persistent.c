/*
 * test_persistent.c: skip_predict_persistent() (advisor/persistent.c) on hand-built task DAGs
 * (a chain, a fork-join, a diamond with a grid larger than the workers), every answer computed
 * by hand from the list schedule, and its errors.
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
	struct skip_access acc[3];
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
}

static struct skip_persist_prediction predict(const double *ns, int workers, int mode)
{
	struct skip_calibration c;
	struct skip_persist_prediction p;

	cal(&c);
	cr_assert_eq(skip_predict_persistent(g, ns, workers, &c, mode, &p), 0, "%s", skip_errmsg());
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

Test(persistent, errors)
{
	static const double ns[] = {1000, -1};
	struct skip_persist_prediction p;

	task("a", 1, NULL, "A");
	task("b", 1, "A", "B");
	cr_expect_eq(skip_predict_persistent(g, ns, 4, NULL, 0, &p), SKIP_E_INVAL, "not finalized");
	cr_assert_eq(skip_graph_finalize(g), 0, "%s", skip_errmsg());
	cr_expect_eq(skip_predict_persistent(g, ns, 4, NULL, 0, &p), SKIP_E_INVAL);
	cr_expect_not_null(strstr(skip_errmsg(), "task 'b': a duration of -1 ns"), "%s",
			   skip_errmsg());
	cr_expect_eq(skip_predict_persistent(g, (double[]){1, 1}, 0, NULL, 0, &p), SKIP_E_INVAL);
	cr_expect_eq(skip_predict_persistent(g, (double[]){1, 1}, 4, NULL, 3, &p), SKIP_E_INVAL);
	cr_expect_eq(skip_predict_persistent(g, (double[]){1, 1}, 4, NULL, 0, &p), 0, "%s",
		     skip_errmsg());
	cr_expect_float_eq(p.iteration_ns, 11800 + 2 * (1 + 1500) + 1000, 1e-6,
			   "the built-in calibration");
}
