/*
 * test_exec_persistent.c: E5's plan of a task graph (exec/persistent.c, sk_persistent_plan()),
 * built on the CPU: every edge of the reduced DAG full; a declared tile or row edge becomes
 * one; a dependency the transitive reduction dropped comes back when the path that covered it
 * now ends in a tile edge; a declared tile edge that a full path already covers is dropped;
 * and the graph refuses a tile edge between tasks that do not depend on each other, or rows
 * that do not divide both block counts. The AOT list scheduling by the plan's predicted
 * durations, against every tile counted as 1 us (schedules worked out by hand); the default
 * worker count by the tiles of a level.
 */
#include "helpers.h"
#include "runtime/exec.h"
#include "runtime/persist.h"

static struct skip_graph *g;
static struct sk_persist_plan *plan;

static void setup(void)
{
	int err;

	skip_log_init("test", NULL, 1);
	g = skip_graph_new(&err);
	cr_assert_not_null(g);
	plan = NULL;
}

static void teardown(void)
{
	sk_persist_plan_free(plan);
	skip_graph_free(g);
}

TestSuite(runtime_persistent_plan, .init = setup, .fini = teardown);

/* Task @name with accesses @spec and a grid of @blocks. */
static int task(const char *name, const char *spec, unsigned blocks)
{
	int id = helper_task(g, name, spec);

	g->tasks[id].grid[0] = blocks;
	return id;
}

static void tile_edge(const char *from, const char *to, enum skip_tile_policy policy, int rows)
{
	struct skip_tile_edge e = {helper_id(g, from), helper_id(g, to), policy, rows};

	cr_assert_eq(skip_graph_add_tile_edge(g, &e), 0, "%s", skip_errmsg());
}

static void make_plan(void)
{
	int err;

	cr_assert_eq(skip_graph_finalize(g), 0, "%s", skip_errmsg());
	plan = sk_persistent_plan(g, SK_PERSIST_AOT, 4, 8, NULL, &err);
	cr_assert_not_null(plan, "%s", skip_errmsg());
}

/* a writes X; b reads X and writes Y; c reads both: a -> b -> c, 4 tiles each, and a -> c
 * covered by that path. */
static void abc(void)
{
	task("a", "w:X", 4);
	task("b", "r:X w:Y", 4);
	task("c", "r:X r:Y", 4);
}

/* "a:full b:row3": the plan's producers of @to with their rules, by task id. */
static const char *edges_into(const char *to)
{
	static char out[256];
	int t = helper_id(g, to);

	out[0] = '\0';
	for (int i = plan->pred_off[t]; i < plan->pred_off[t + 1]; i++) {
		int r = plan->pred_tile[i];
		size_t n = strlen(out);

		snprintf(out + n, sizeof(out) - n, "%s%s:", n ? " " : "",
			 skip_graph_task_name(g, plan->pred[i]));
		n = strlen(out);
		if (r > 0)
			snprintf(out + n, sizeof(out) - n, "row%d", r);
		else
			snprintf(out + n, sizeof(out) - n, "%s",
				 r == SK_PERSIST_RULE_TILE ? "tile" : "full");
	}
	return out;
}

Test(runtime_persistent_plan, without_tile_edges_every_reduced_edge_is_full)
{
	abc();
	make_plan();
	cr_assert_eq(plan->ntasks, 3);
	cr_assert_eq(plan->ntiles[1], 4);
	cr_assert_str_eq(edges_into("b"), "a:full");
	cr_assert_str_eq(edges_into("c"), "b:full", "a -> c is covered by a -> b -> c");
	cr_assert_eq(plan->nedges, 2);
}

/* Four independent one-tile tasks on 2 workers, x 3 us and y, z, u 1 us each. By their
 * durations x goes first (rank 3) to worker 0 and y, z, u follow one another on worker 1: starts
 * 0, 0, 1, 2 us, an epoch of 3 us. Counted as 1 us each, they go in task order to the worker
 * free first (ties: the lower): x and y at 0, z and u at 1, which puts z behind the long x on
 * worker 0 (its real end: 4 us). */
Test(runtime_persistent_plan, aot_places_tiles_by_the_predicted_durations)
{
	const double dur[] = {3, 1, 1, 1}, by_dur[] = {0, 0, 1, 2}, equal[] = {0, 0, 1, 1};
	int err;

	task("x", "w:X", 1);
	task("y", "w:Y", 1);
	task("z", "w:Z", 1);
	task("u", "w:U", 1);
	cr_assert_eq(skip_graph_finalize(g), 0, "%s", skip_errmsg());
	for (int k = 0; k < 2; k++) {
		const double *want = k ? equal : by_dur;

		plan = sk_persistent_plan(g, SK_PERSIST_AOT, 2, 8, k ? NULL : dur, &err);
		cr_assert_not_null(plan, "%s", skip_errmsg());
		for (int t = 0; t < 4; t++)
			cr_expect_float_eq(plan->start_us[t], want[t], 1e-9, "%s: tile %d",
					   k ? "1 us each" : "by duration", t);
		cr_expect_float_eq(plan->makespan_us, k ? 2.0 : 3.0, 1e-9);
		sk_persist_plan_free(plan);
		plan = NULL;
	}
	{ /* the public form the advisor predicts with */
		double makespan = -1;
		int tiles = -1;

		cr_assert_eq(skip_persist_schedule(g, 2, dur, &makespan, &tiles), 0, "%s",
			     skip_errmsg());
		cr_expect_float_eq(makespan, 3.0, 1e-9);
		cr_expect_eq(tiles, 4);
		cr_expect_eq(skip_persist_schedule(g, 0, dur, &makespan, &tiles), SKIP_E_INVAL);
		cr_expect_eq(skip_persist_schedule(g, 2, NULL, &makespan, &tiles), SKIP_E_INVAL);
	}
}

/* A task of 4 tiles predicted at 8 us runs in 2 rounds on 2 workers: 4 us a tile, starts 0, 0,
 * 4, 4, an epoch of 8 us; a task of 1 tile on 2 workers keeps its whole time (1 round). */
Test(runtime_persistent_plan, a_tile_counts_the_task_time_over_its_rounds)
{
	const double dur[] = {8, 5}, want[] = {0, 0, 4, 4, 8};
	int err;

	task("v", "w:V", 4);
	task("s", "r:V w:S", 1);
	cr_assert_eq(skip_graph_finalize(g), 0, "%s", skip_errmsg());
	plan = sk_persistent_plan(g, SK_PERSIST_AOT, 2, 8, dur, &err);
	cr_assert_not_null(plan, "%s", skip_errmsg());
	for (int t = 0; t < 5; t++)
		cr_expect_float_eq(plan->start_us[t], want[t], 1e-9, "tile %d", t);
	cr_expect_float_eq(plan->makespan_us, 13.0, 1e-9);
}

/* Levels: {a 6, b 5} 11 tiles, {c 3} 3 tiles (c reads both). On 8 SMs the 11 tiles of level 0
 * outnumber them: 11 workers if 16 fit, 9 if 9 fit; on 12 SMs, 12 (one per SM). Fewer fit than
 * SMs: that many. */
Test(runtime_persistent_plan, more_workers_than_sms_where_a_level_has_more_tiles)
{
	task("a", "w:X", 6);
	task("b", "w:Y", 5);
	task("c", "r:X r:Y w:Z", 3);
	cr_expect_eq(skip_persist_workers(g, 8, 16), SKIP_E_INVAL, "not finalized");
	cr_assert_eq(skip_graph_finalize(g), 0, "%s", skip_errmsg());
	cr_expect_eq(skip_persist_workers(g, 8, 16), 11);
	cr_expect_eq(skip_persist_workers(g, 8, 9), 9);
	cr_expect_eq(skip_persist_workers(g, 12, 24), 12);
	cr_expect_eq(skip_persist_workers(g, 12, 4), 4);
	cr_expect_eq(skip_persist_workers(g, 0, 4), SKIP_E_INVAL);
	cr_expect_eq(skip_persist_workers(NULL, 8, 16), SKIP_E_INVAL);
}

Test(runtime_persistent_plan, a_gemm_pair_gets_its_row_edge)
{
	/* C1 = A*B1 in 12 tiles, C2 = C1*B2 in 12 tiles, 3 row blocks of 4 tiles */
	task("gemm1", "r:A r:B1 w:C1", 12);
	task("gemm2", "r:C1 r:B2 w:C2", 12);
	tile_edge("gemm1", "gemm2", SKIP_TILE_ROW, 3);
	make_plan();
	cr_assert_str_eq(edges_into("gemm2"), "gemm1:row3");
	for (int i = 0; i < plan->total_tiles; i++)
		if (plan->step[i].task == 1 && plan->step[i].tile == 5) {
			/* tile 5 is in row 1: producer tiles 4..7 */
			cr_assert_eq(plan->step[i].nwait, 4);
			cr_assert_eq(plan->step[i].ctr[0], -4 - 1);
			cr_assert_eq(plan->step[i].ctr[1], -5 - 1);
		}
}

Test(runtime_persistent_plan, a_dropped_dependency_comes_back_behind_a_tile_edge)
{
	/* c reads X (a's) and Y (b's); the reduction drops a -> c (a -> b -> c). With b -> c a
	 * tile edge, a tile of c no longer waits for all of b, nor so for all of a: a -> c
	 * returns, full. */
	abc();
	tile_edge("a", "b", SKIP_TILE_TILE, 0);
	tile_edge("b", "c", SKIP_TILE_TILE, 0);
	make_plan();
	cr_assert_str_eq(helper_preds(g, "c"), "b", "the graph itself stays reduced");
	cr_assert_str_eq(edges_into("b"), "a:tile");
	cr_assert_str_eq(edges_into("c"), "a:full b:tile");
}

Test(runtime_persistent_plan, a_tile_edge_that_a_full_path_covers_is_dropped)
{
	/* c's tile edge from a: a -> b -> c is full all the way, which orders c after all of a */
	abc();
	tile_edge("a", "c", SKIP_TILE_TILE, 0);
	make_plan();
	cr_assert_str_eq(edges_into("c"), "b:full");
}

Test(runtime_persistent_plan, a_tile_edge_the_reduction_kept_replaces_the_full_one)
{
	/* a -> c and b -> c, no path between a and b: both stay, one becomes a tile edge */
	task("a", "w:X", 6);
	task("b", "w:Y", 2);
	task("c", "r:X r:Y", 3);
	tile_edge("a", "c", SKIP_TILE_TILE, 0);
	make_plan();
	cr_assert_str_eq(edges_into("c"), "a:tile b:full");
}

Test(runtime_persistent_plan, a_tile_edge_needs_a_dependency_and_dividing_rows)
{
	struct skip_tile_edge e;

	task("a", "w:X", 6);
	task("b", "w:Y", 4);
	task("c", "r:X", 4);
	e = (struct skip_tile_edge){0, 1, SKIP_TILE_TILE, 0};
	cr_assert_eq(skip_graph_add_tile_edge(g, &e), 0);
	cr_assert_eq(skip_graph_finalize(g), SKIP_E_INVAL);
	cr_assert(strstr(skip_errmsg(), "tile edge 'a' -> 'b': 'b' does not depend on 'a'"), "%s",
		  skip_errmsg());
	g->ntile_edges = 0;
	e = (struct skip_tile_edge){0, 2, SKIP_TILE_ROW, 4};
	cr_assert_eq(skip_graph_add_tile_edge(g, &e), 0);
	cr_assert_eq(skip_graph_finalize(g), SKIP_E_INVAL);
	cr_assert(strstr(skip_errmsg(), "4 rows must divide both the 6 blocks of 'a' and the 4 "
					"of 'c'"),
		  "%s", skip_errmsg());
	g->tile_edges[0].rows = 2;
	cr_assert_eq(skip_graph_finalize(g), 0, "%s", skip_errmsg());
}

Test(runtime_persistent_plan, bad_declarations_are_refused_when_added)
{
	struct skip_tile_edge e = {0, 1, SKIP_TILE_ROW, 0};

	task("a", "w:X", 6);
	task("b", "r:X", 6);
	cr_assert_eq(skip_graph_add_tile_edge(g, &e), SKIP_E_INVAL, "row without rows");
	e = (struct skip_tile_edge){0, 1, SKIP_TILE_TILE, 2};
	cr_assert_eq(skip_graph_add_tile_edge(g, &e), SKIP_E_INVAL, "tile with rows");
	e = (struct skip_tile_edge){0, 0, SKIP_TILE_TILE, 0};
	cr_assert_eq(skip_graph_add_tile_edge(g, &e), SKIP_E_INVAL, "to itself");
	e = (struct skip_tile_edge){0, 5, SKIP_TILE_TILE, 0};
	cr_assert_eq(skip_graph_add_tile_edge(g, &e), SKIP_E_INVAL, "no task 5");
	e = (struct skip_tile_edge){0, 1, SKIP_TILE_TILE, 0};
	cr_assert_eq(skip_graph_add_tile_edge(g, &e), 0);
	cr_assert_eq(skip_graph_add_tile_edge(g, &e), SKIP_E_INVAL);
	cr_assert(strstr(skip_errmsg(), "declared twice"), "%s", skip_errmsg());
}
