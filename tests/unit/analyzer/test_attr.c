/*
 * test_attr.c: kernels launched from a thread with no NVTX range open (analyzer/nvtx.c), on
 * tests/fixtures/hand/attr_threads.sql, whose header derives every answer by hand: the range
 * of another thread (run 1), the choice between two other threads (run 2), the thread that
 * PyTorch's sequence numbers name (run 3); the report's operator table with its attribution,
 * the operators not listed and the (none) row adding up to the kernels of the regions; and the
 * emit_nvtx text helpers.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/internal.h"
#include "hand.h"
#include "unit/scratch.h"

static char dir[64];
static struct skip_trace *trace;
static struct sk_loaded_run run;

static void setup(void)
{
	sk_scratch_make(dir, sizeof(dir), "skip-attr");
	trace = hand_trace(dir, "attr_threads");
}

static void teardown(void)
{
	sk_run_free(&run);
	skip_trace_close(trace);
	trace = NULL;
	sk_scratch_remove(dir);
}

TestSuite(analyzer_attr, .init = setup, .fini = teardown);

static void load(int64_t id)
{
	cr_assert_eq(sk_run_load(trace, id, 0, &run), 0, "%s", skip_errmsg());
	sk_run_operators(trace, &run);
}

static void expect(uint32_t corr, const char *stack, enum skip_attr attr)
{
	for (size_t i = 0; i < run.nops; i++)
		if (run.ops[i].corr == corr) {
			cr_expect_str_eq(hand_stack_text(trace, run.ops[i].stack), stack,
					 "launch c%u", corr);
			cr_expect_eq(run.ops[i].attr, attr, "launch c%u: %s, want %s", corr,
				     skip_attr_name((enum skip_attr)run.ops[i].attr),
				     skip_attr_name(attr));
			return;
		}
	cr_assert_fail("no kernel with correlation id %u", corr);
}

Test(analyzer_attr, a_launch_with_no_range_on_its_thread_takes_the_other_threads_range)
{
	load(1);
	expect(1, "backward", SKIP_ATTR_THREAD);
	expect(2, "backward", SKIP_ATTR_OTHER);
	expect(3, "backward", SKIP_ATTR_OTHER);
	expect(4, "", SKIP_ATTR_NONE);
	cr_expect_eq(run.t0, 100, "other threads' ranges do not move the run's start");
}

Test(analyzer_attr, of_ranges_open_on_two_other_threads_the_one_started_last_wins)
{
	load(2);
	expect(10, "outer7", SKIP_ATTR_OTHER);
	expect(11, "outer9>inner9", SKIP_ATTR_OTHER);
	expect(12, "outer9", SKIP_ATTR_OTHER);
	expect(13, "outer7", SKIP_ATTR_OTHER);
	expect(14, "tie11", SKIP_ATTR_OTHER); /* one start: the shorter is the later */
}

Test(analyzer_attr, sequence_numbers_name_the_thread_that_caused_the_launch)
{
	load(3);
	expect(30,
	       "step>forward>aten::linear, seq = 4, op_id = 10>aten::addmm, seq = 4, op_id = 11",
	       SKIP_ATTR_THREAD);
	expect(32, "ReluBackward0, seq = 5, op_id = 20", SKIP_ATTR_THREAD);
	expect(33, "AddmmBackward0, seq = 4, op_id = 21>aten::mm, op_id = 22", SKIP_ATTR_THREAD);
	expect(34, "step>backward", SKIP_ATTR_SEQ); /* not other9, which started later */
	expect(35, "step", SKIP_ATTR_OTHER);	    /* no sequence number on thread 8 yet */
	expect(36, "step", SKIP_ATTR_SEQ);
	expect(37, "late9", SKIP_ATTR_OTHER); /* thread 7 has nothing open then */
	expect(38, "", SKIP_ATTR_NONE);
}

Test(analyzer_attr, the_emit_nvtx_suffix_is_parsed_and_left_out_of_operator_names)
{
	static const struct {
		const char *text, *name;
		int64_t seq;
	} cases[] = {
	    {"aten::addmm, seq = 4, op_id = 11", "aten::addmm", 4},
	    {"aten::mm, op_id = 22", "aten::mm", -1},
	    {"x, seq = 12", "x", 12},
	    {"step", "step", -1},
	    {"a, seq = b", "a, seq = b", -1}, /* no number: not PyTorch's */
	    {"a, b, seq = 7, op_id = 1, sizes = [[2, 3]]", "a, b", 7},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint32_t id = (uint32_t)sk_strtab_intern(&trace->texts, cases[i].text, NULL);

		cr_expect_eq(sk_range_seq(cases[i].text), cases[i].seq, "%s", cases[i].text);
		cr_expect_str_eq(trace->texts.s[sk_operator_name(trace, id)], cases[i].name, "%s",
				 cases[i].text);
	}
}

/* A want row of the operator table. */
struct row {
	const char *name;
	enum skip_attr attr;
	int64_t count;
};

static struct skip_report *analyze(int64_t run_id, const char *region, int top_k)
{
	struct skip_analysis_opts o = {.run_id = run_id, .region = region, .top_k = top_k};
	struct skip_report *r = NULL;

	cr_assert_eq(skip_analyze(trace, &o, &r), 0, "%s", skip_errmsg());
	return r;
}

/* The table is @want, then the others and (none): all add up to the regions' kernels. */
static void expect_table(const struct skip_report *r, const struct row *want, size_t n,
			 int64_t rest, int64_t none)
{
	int64_t sum = r->ops_rest.count + r->ops_none.count, kernels = 0;

	cr_assert_eq(r->ntop_ops, n);
	for (size_t i = 0; i < n; i++) {
		cr_expect_str_eq(r->top_ops[i].name, want[i].name, "row %zu", i);
		cr_expect_eq(r->top_ops[i].attr, want[i].attr, "row %zu (%s)", i, want[i].name);
		cr_expect_eq(r->top_ops[i].count, want[i].count, "row %zu (%s)", i, want[i].name);
		cr_expect_eq(r->top_ops[i].total_ns, 10 * want[i].count, "row %zu", i);
		sum += r->top_ops[i].count;
	}
	cr_expect_eq(r->ops_rest.count, rest);
	cr_expect_eq(r->ops_rest.total_ns, 10 * rest);
	cr_expect_eq(r->ops_none.count, none);
	cr_expect_eq(r->ops_none.total_ns, 10 * none);
	for (size_t i = 0; i < r->nregions; i++)
		kernels += r->regions[i].m.kernels;
	cr_expect_eq(sum, kernels, "the rows add up to the regions' kernels");
}

Test(analyzer_attr, the_operator_table_adds_up_with_its_none_row)
{
	static const struct row run1[] = {{"backward", SKIP_ATTR_OTHER, 2},
					  {"backward", SKIP_ATTR_THREAD, 1}};
	static const struct row run2[] = {{"outer7", SKIP_ATTR_OTHER, 2},
					  {"inner9", SKIP_ATTR_OTHER, 1},
					  {"outer9", SKIP_ATTR_OTHER, 1},
					  {"tie11", SKIP_ATTR_OTHER, 1}};
	struct skip_report *r = analyze(1, NULL, 0);

	expect_table(r, run1, 2, 0, 1);
	cr_expect_eq(r->kernels_with_operator, 3);
	skip_report_free(r);
	r = analyze(1, "backward", 0);
	expect_table(r, run1, 2, 0, 0);
	skip_report_free(r);
	r = analyze(2, NULL, 0);
	expect_table(r, run2, 4, 0, 0);
	skip_report_free(r);
}

Test(analyzer_attr, the_operator_table_names_pytorch_ops_without_their_numbers)
{
	static const struct row all[] = {{"ReluBackward0", SKIP_ATTR_THREAD, 1},
					 {"aten::addmm", SKIP_ATTR_THREAD, 1},
					 {"aten::mm", SKIP_ATTR_THREAD, 1},
					 {"aten::relu", SKIP_ATTR_THREAD, 1},
					 {"backward", SKIP_ATTR_SEQ, 1},
					 {"late9", SKIP_ATTR_OTHER, 1},
					 {"step", SKIP_ATTR_SEQ, 1},
					 {"step", SKIP_ATTR_OTHER, 1}};
	static const struct row back[] = {{"ReluBackward0", SKIP_ATTR_THREAD, 1},
					  {"aten::mm", SKIP_ATTR_THREAD, 1},
					  {"backward", SKIP_ATTR_SEQ, 1}};
	struct skip_report *r = analyze(3, NULL, 0);

	expect_table(r, all, 8, 0, 1);
	cr_expect_eq(r->kernels_by_attr[SKIP_ATTR_THREAD], 4);
	cr_expect_eq(r->kernels_by_attr[SKIP_ATTR_SEQ], 2);
	cr_expect_eq(r->kernels_by_attr[SKIP_ATTR_OTHER], 2);
	cr_expect_eq(r->kernels_by_attr[SKIP_ATTR_NONE], 1);
	skip_report_free(r);
	r = analyze(3, NULL, 3);
	expect_table(r, all, 3, 5, 1);
	cr_expect_eq(r->nops_rest, 5);
	skip_report_free(r);
	r = analyze(3, "backward", 0);
	expect_table(r, back, 3, 0, 0);
	skip_report_free(r);
}
