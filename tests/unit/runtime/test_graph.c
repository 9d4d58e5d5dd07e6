/*
 * test_graph.c: dependencies derived from access sets (read-after-write, write-after-read,
 * write-after-write on overlapping bytes, nothing for reads or disjoint ranges), explicit
 * edges, cycles, the transitive reduction, levels and width, and rejected inputs. The random
 * cases compare the derived graph's reachability with a brute-force pairwise conflict check.
 */
#include "helpers.h"

static struct skip_graph *g;

static void setup(void)
{
	int err;

	skip_log_init("test", NULL, 1);
	g = skip_graph_new(&err);
	cr_assert_not_null(g);
}

static void teardown(void)
{
	skip_graph_free(g);
}

TestSuite(runtime_graph, .init = setup, .fini = teardown);

static void finalize(void)
{
	cr_assert_eq(skip_graph_finalize(g), 0, "%s", skip_errmsg());
}

Test(runtime_graph, read_after_write_orders_the_reader_after_the_writer)
{
	helper_task(g, "a", "w:X");
	helper_task(g, "b", "r:X");
	finalize();
	cr_assert_str_eq(helper_preds(g, "b"), "a");
	cr_assert_eq(skip_graph_nedges(g), 1);
}

Test(runtime_graph, access_sets_read_back_with_sizes_resolved)
{
	const struct skip_access *a;
	int t = helper_task(g, "a", "r:X@512+0 w:Y@0+256");

	cr_assert_eq(skip_graph_task_access(g, t, &a), 2);
	cr_expect_eq(a[0].buffer, skip_graph_find_buffer(g, "X"));
	cr_expect_eq(a[0].offset, 512);
	cr_expect_eq(a[0].size, HELPER_BUF_BYTES - 512, "0: to the end of the buffer");
	cr_expect_eq(a[0].mode, SKIP_READ);
	cr_expect_eq(a[1].size, 256);
	cr_expect_eq(a[1].mode, SKIP_WRITE);
	cr_expect_eq(skip_graph_task_access(g, 7, &a), 0, "no task 7");
	cr_expect_null(a);
}

Test(runtime_graph, write_after_read_orders_the_writer_after_the_reader)
{
	helper_task(g, "a", "r:X");
	helper_task(g, "b", "w:X");
	finalize();
	cr_assert_str_eq(helper_preds(g, "b"), "a");
}

Test(runtime_graph, write_after_write_orders_the_writers)
{
	helper_task(g, "a", "w:X");
	helper_task(g, "b", "w:X");
	finalize();
	cr_assert_str_eq(helper_preds(g, "b"), "a");
}

Test(runtime_graph, two_readers_do_not_depend_on_each_other)
{
	helper_task(g, "a", "r:X");
	helper_task(g, "b", "r:X");
	finalize();
	cr_assert_str_eq(helper_preds(g, "b"), "");
	cr_assert_eq(skip_graph_width(g), 2);
}

Test(runtime_graph, disjoint_byte_ranges_do_not_conflict)
{
	helper_task(g, "a", "w:X@0+512");
	helper_task(g, "b", "w:X@512+512");
	helper_task(g, "c", "r:X@511+2");
	finalize();
	cr_assert_str_eq(helper_preds(g, "b"), "");
	cr_assert_str_eq(helper_preds(g, "c"), "a b");
}

Test(runtime_graph, a_read_sees_every_partial_writer_before_a_covering_one)
{
	helper_task(g, "a", "w:X");
	helper_task(g, "b", "w:X@0+512");
	helper_task(g, "c", "w:X@512+512");
	helper_task(g, "d", "r:X");
	finalize();
	cr_assert_str_eq(helper_preds(g, "d"), "b c");
	cr_assert(skip_graph_depends(g, helper_id(g, "a"), helper_id(g, "d")));
}

Test(runtime_graph, a_writer_waits_for_all_readers_since_the_last_write)
{
	helper_task(g, "a", "w:X");
	helper_task(g, "b", "r:X");
	helper_task(g, "c", "r:X");
	helper_task(g, "d", "w:X");
	finalize();
	cr_assert_str_eq(helper_preds(g, "d"), "b c");
	cr_assert_str_eq(helper_preds(g, "c"), "a");
	cr_assert(skip_graph_depends(g, helper_id(g, "a"), helper_id(g, "d")));
	cr_assert_not(skip_graph_depends(g, helper_id(g, "b"), helper_id(g, "c")));
}

Test(runtime_graph, read_write_of_one_buffer_in_one_task_is_not_a_self_edge)
{
	helper_task(g, "a", "rw:X");
	helper_task(g, "b", "r:X w:X");
	finalize();
	cr_assert_str_eq(helper_preds(g, "a"), "");
	cr_assert_str_eq(helper_preds(g, "b"), "a");
}

Test(runtime_graph, explicit_edges_join_tasks_without_shared_buffers)
{
	int a = helper_task(g, "a", "w:X"), b = helper_task(g, "b", "w:Y");

	cr_assert_eq(skip_graph_add_edge(g, b, a), 0);
	finalize();
	cr_assert_str_eq(helper_preds(g, "a"), "b");
	cr_assert_eq(g->topo[0], b, "the order puts b first");
}

Test(runtime_graph, a_cycle_is_reported_with_its_path)
{
	int a = helper_task(g, "a", "w:X"), b = helper_task(g, "b", "r:X");

	cr_assert_eq(skip_graph_add_edge(g, b, a), 0);
	cr_assert_eq(skip_graph_finalize(g), SKIP_E_INVAL);
	cr_assert_str_eq(skip_errmsg(), "cycle: a -> b -> a");
	cr_assert_eq(skip_graph_nedges(g), 0, "a failed finalize leaves no DAG");
}

Test(runtime_graph, redundant_edges_are_reduced_but_reachability_kept)
{
	int a = helper_task(g, "a", ""), b = helper_task(g, "b", ""), c = helper_task(g, "c", "");

	skip_graph_add_edge(g, a, b);
	skip_graph_add_edge(g, b, c);
	skip_graph_add_edge(g, a, c);
	skip_graph_add_edge(g, a, c);
	finalize();
	cr_assert_str_eq(helper_preds(g, "c"), "b");
	cr_assert_eq(skip_graph_nedges(g), 2);
	cr_assert(skip_graph_depends(g, a, c));
	cr_assert_not(skip_graph_depends(g, c, a));
}

Test(runtime_graph, levels_are_longest_paths_and_width_the_widest_level)
{
	helper_task(g, "a", "w:X");
	helper_task(g, "b", "r:X w:Y");
	helper_task(g, "c", "r:X w:Z");
	helper_task(g, "d", "r:Y r:Z");
	helper_task(g, "e", "w:Q");
	finalize();
	cr_assert_eq(skip_graph_level(g, helper_id(g, "a")), 0);
	cr_assert_eq(skip_graph_level(g, helper_id(g, "b")), 1);
	cr_assert_eq(skip_graph_level(g, helper_id(g, "c")), 1);
	cr_assert_eq(skip_graph_level(g, helper_id(g, "d")), 2);
	cr_assert_eq(skip_graph_level(g, helper_id(g, "e")), 0);
	cr_assert_eq(skip_graph_width(g), 2);
}

/* ---- rejected input -------------------------------------------------------------------------- */

static struct skip_task_desc desc(const char *name, const struct skip_access *acc, int n)
{
	struct skip_task_desc d = {.name = name, .access = acc, .naccess = n};

	d.kernel = (struct skip_kernel){.kind = SKIP_KERNEL_SYMBOL, .symbol = &helper_symbol};
	d.grid[0] = d.block[0] = 1;
	return d;
}

Test(runtime_graph, an_access_outside_its_buffer_is_rejected)
{
	struct skip_access acc = {helper_buf(g, "X"), 1000, 100, SKIP_READ};
	struct skip_task_desc d = desc("a", &acc, 1);

	cr_assert_eq(skip_graph_add_task(g, &d), SKIP_E_INVAL);
	cr_assert(strstr(skip_errmsg(), "outside buffer 'X' (1024 bytes)"), "%s", skip_errmsg());
}

Test(runtime_graph, unknown_buffers_names_and_kernels_are_rejected)
{
	struct skip_access acc = {7, 0, 0, SKIP_READ};
	struct skip_task_desc d = desc("a", &acc, 1);

	cr_assert_eq(skip_graph_add_task(g, &d), SKIP_E_INVAL);
	cr_assert(strstr(skip_errmsg(), "no buffer 7"), "%s", skip_errmsg());
	helper_task(g, "a", "");
	d = desc("a", NULL, 0);
	cr_assert_eq(skip_graph_add_task(g, &d), SKIP_E_INVAL);
	cr_assert_str_eq(skip_errmsg(), "task 'a' defined twice");
	d = desc("b", NULL, 0);
	d.kernel.symbol = NULL;
	cr_assert_eq(skip_graph_add_task(g, &d), SKIP_E_INVAL);
	d = desc("b", NULL, 0);
	d.block[0] = 2048;
	cr_assert_eq(skip_graph_add_task(g, &d), SKIP_E_INVAL);
	cr_assert(strstr(skip_errmsg(), "2048 threads per block"), "%s", skip_errmsg());
	cr_assert_eq(skip_graph_add_edge(g, 0, 0), SKIP_E_INVAL);
	cr_assert_eq(skip_graph_ntasks(g), 1);
}

Test(runtime_graph, buffers_need_a_unique_name_and_whole_elements)
{
	cr_assert_geq(skip_graph_add_buffer(g, "x", 16, SKIP_DT_F32, NULL), 0);
	cr_assert_eq(skip_graph_add_buffer(g, "x", 16, SKIP_DT_F32, NULL), SKIP_E_INVAL);
	cr_assert_eq(skip_graph_add_buffer(g, "y", 6, SKIP_DT_F64, NULL), SKIP_E_INVAL);
	cr_assert_eq(skip_graph_add_buffer(g, "z", 0, SKIP_DT_U8, NULL), SKIP_E_INVAL);
}

/* Names are found through an index (graph.c); this fills it past several rehashes, with names
 * that share prefixes, and checks every lookup, the misses and the duplicates. */
Test(runtime_graph, thousands_of_names_are_found_and_duplicates_rejected)
{
	enum { N = 5000 };
	struct skip_task_desc d;
	char name[32];

	for (int i = 0; i < N; i++) {
		snprintf(name, sizeof(name), "buf%d", i);
		cr_assert_eq(skip_graph_add_buffer(g, name, 16, SKIP_DT_U8, NULL), i);
		snprintf(name, sizeof(name), "task%d", i);
		cr_assert_eq(helper_task(g, name, ""), i);
	}
	for (int i = 0; i < N; i++) {
		snprintf(name, sizeof(name), "task%d", i);
		cr_assert_eq(skip_graph_find_task(g, name), i, "%s", name);
		cr_assert_eq(skip_graph_find_task(g, name + 1), SKIP_E_NOTFOUND, "%s", name + 1);
		snprintf(name, sizeof(name), "buf%d", i);
		cr_assert_eq(skip_graph_find_buffer(g, name), i, "%s", name);
		cr_assert_eq(skip_graph_find_task(g, name), SKIP_E_NOTFOUND, "%s", name);
	}
	cr_assert_eq(skip_graph_add_buffer(g, "buf4999", 16, SKIP_DT_U8, NULL), SKIP_E_INVAL);
	d = desc("task4321", NULL, 0);
	cr_assert_eq(skip_graph_add_task(g, &d), SKIP_E_INVAL);
	cr_assert_str_eq(skip_errmsg(), "task 'task4321' defined twice");
	cr_assert_eq(skip_graph_find_task(g, NULL), SKIP_E_NOTFOUND);
	finalize();
	cr_assert_eq(skip_graph_find_task(g, "task1234"), 1234);
	cr_assert_eq(skip_graph_ntasks(g), N);
}

Test(runtime_graph, a_finalized_graph_takes_no_more_tasks)
{
	helper_task(g, "a", "w:X");
	finalize();
	cr_assert_eq(skip_graph_add_buffer(g, "y", 16, SKIP_DT_U8, NULL), SKIP_E_INVAL);
	cr_assert_eq(skip_graph_finalize(g), SKIP_E_INVAL);
}

/* ---- random graphs against a brute-force oracle ---------------------------------------------- */

#define RN 24 /* tasks */

static int oracle_conflict(const struct skip_graph *gr, int i, int j)
{
	const struct sk_task *a = &gr->tasks[i], *b = &gr->tasks[j];

	for (int x = 0; x < a->naccess; x++)
		for (int y = 0; y < b->naccess; y++) {
			const struct skip_access *p = &a->access[x], *q = &b->access[y];

			if (p->buffer == q->buffer && ((p->mode | q->mode) & SKIP_WRITE) &&
			    p->offset < q->offset + q->size && q->offset < p->offset + p->size)
				return 1;
		}
	return 0;
}

static void random_graph(uint64_t seed)
{
	static const char *const bufs[] = {"A", "B", "C"};
	uint64_t s = seed * 2654435761ULL + 1;

	for (int t = 0; t < RN; t++) {
		char spec[128] = "", name[8], tok[40];
		int n = 1 + helper_below(&s, 3);

		for (int k = 0; k < n; k++) {
			int off = helper_below(&s, 16) * 64, len = 64 * (1 + helper_below(&s, 4));
			static const char *const modes[] = {"r", "w", "rw"};

			if (off + len > HELPER_BUF_BYTES)
				len = HELPER_BUF_BYTES - off;
			snprintf(tok, sizeof(tok), "%s%s:%s@%d+%d", k ? " " : "",
				 modes[helper_below(&s, 3)], bufs[helper_below(&s, 3)], off, len);
			strcat(spec, tok);
		}
		snprintf(name, sizeof(name), "t%d", t);
		helper_task(g, name, spec);
	}
}

Test(runtime_graph, random_graphs_order_exactly_the_conflicting_pairs)
{
	for (uint64_t seed = 1; seed <= 400; seed++) {
		int reach[RN][RN] = {{0}};

		skip_graph_free(g);
		g = skip_graph_new(NULL);
		random_graph(seed);
		finalize();
		/* transitive closure of the pairwise conflicts (Floyd-Warshall) */
		for (int j = 0; j < RN; j++)
			for (int i = 0; i < j; i++)
				reach[i][j] = oracle_conflict(g, i, j);
		for (int k = 0; k < RN; k++)
			for (int i = 0; i < RN; i++)
				for (int j = 0; j < RN; j++)
					reach[i][j] |= reach[i][k] && reach[k][j];
		for (int i = 0; i < RN; i++)
			for (int j = 0; j < RN; j++)
				cr_assert_eq(skip_graph_depends(g, i, j), i < j && reach[i][j],
					     "seed %llu: t%d -> t%d", (unsigned long long)seed, i,
					     j);
	}
}

Test(runtime_graph, registered_buffers_and_loaded_functions_are_accepted)
{
	static char fake_device_memory[64], fake_function;
	struct skip_access acc;
	struct skip_arg arg;
	struct skip_task_desc d;
	int b = skip_graph_register_buffer(g, "mine", fake_device_memory, 64, SKIP_DT_U8, NULL);

	cr_assert_geq(b, 0, "%s", skip_errmsg());
	cr_assert_eq(skip_graph_buffer_ptr(g, b), fake_device_memory);
	cr_assert_eq(skip_graph_register_buffer(g, "null", NULL, 64, SKIP_DT_U8, NULL),
		     SKIP_E_INVAL);
	acc = (struct skip_access){b, 16, 16, SKIP_WRITE};
	arg = (struct skip_arg){.kind = SKIP_ARG_BUFFER, .buffer = b, .offset = 16};
	d = desc("f", &acc, 1);
	d.kernel = (struct skip_kernel){.kind = SKIP_KERNEL_FUNCTION, .function = &fake_function};
	d.args = &arg;
	d.nargs = 1;
	cr_assert_eq(skip_graph_add_task(g, &d), 0, "%s", skip_errmsg());
	arg.offset = 64;
	d.name = "g";
	cr_assert_eq(skip_graph_add_task(g, &d), SKIP_E_INVAL, "an argument past the buffer's end");
	finalize();
	cr_assert_eq(g->tasks[0].access[0].size, 16);
}
