/*
 * test_nvtx.c: analyzer/nvtx.c on tests/fixtures/hand/nvtx_kinds.sql, whose header derives
 * every answer by hand: the operator stack of each launch (nesting, equal starts, ranges that
 * overlap without nesting, push/pop and start/end ranges, domains, a range never closed, a mark
 * that is not a range), the run's t0, the region occurrences a launch belongs to (any thread of
 * the process, the innermost occurrence), the same answers through the public timeline and the
 * report's top operators, and through the qsort_r fallback for launches hours apart.
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
	sk_scratch_make(dir, sizeof(dir), "skip-nvtx");
	trace = hand_trace(dir, "nvtx_kinds");
}

static void teardown(void)
{
	sk_run_free(&run);
	skip_trace_close(trace);
	trace = NULL;
	sk_scratch_remove(dir);
}

TestSuite(analyzer_nvtx, .init = setup, .fini = teardown);

/* Load run @id and give every launch its operator stack. */
static void load(int64_t id)
{
	cr_assert_eq(sk_run_load(trace, id, 0, &run), 0, "%s", skip_errmsg());
	sk_run_operators(trace, &run);
}

/* The record of the kernel whose correlation id is @corr. */
static const struct sk_rec *kernel(uint32_t corr)
{
	for (size_t i = 0; i < run.nops; i++)
		if (run.ops[i].corr == corr)
			return &run.ops[i];
	cr_assert_fail("no kernel with correlation id %u", corr);
	return NULL;
}

/* The texts id of the NVTX range text @s, 0 when no range has it. */
static uint32_t text_id(const char *s)
{
	return (uint32_t)sk_strtab_find(&trace->texts, s);
}

/* The stack of launch c@corr and how it was found. */
static void expect_attr(uint32_t corr, const char *want, enum skip_attr attr)
{
	cr_expect_str_eq(hand_stack_text(trace, kernel(corr)->stack), want, "launch c%u", corr);
	cr_expect_eq(kernel(corr)->attr, attr, "launch c%u: attribution %s, want %s", corr,
		     skip_attr_name((enum skip_attr)kernel(corr)->attr), skip_attr_name(attr));
}

static void expect_stack(uint32_t corr, const char *want)
{
	expect_attr(corr, want, *want ? SKIP_ATTR_THREAD : SKIP_ATTR_NONE);
}

Test(analyzer_nvtx, nested_ranges_give_the_whole_stack_outermost_first)
{
	load(1);
	expect_stack(1, "outer");
	expect_stack(3, "outer>mid>twin>leaf");
}

Test(analyzer_nvtx, of_two_ranges_with_one_start_the_longer_is_outside)
{
	load(1);
	expect_stack(2, "outer>mid>twin");
}

Test(analyzer_nvtx, a_range_is_open_from_its_start_to_its_end_both_included)
{
	load(1);
	expect_stack(4, "outer>mid>twin"); /* at twin's end; leaf closed before */
	expect_stack(5, "outer>mid");	   /* 1 ns after it */
}

Test(analyzer_nvtx, of_ranges_that_overlap_without_nesting_the_later_start_is_inside)
{
	load(1);
	expect_stack(6, "a>b");
	expect_stack(7, "b");
	expect_attr(8, "async", SKIP_ATTR_OTHER); /* none on thread 7: thread 8's */
}

Test(analyzer_nvtx, a_start_end_range_belongs_to_the_thread_that_started_it)
{
	load(1);
	expect_stack(9, "async>outer");
	expect_stack(10, "async");
	/* async started on thread 8, ended on thread 9: thread 9 has none, async started last */
	expect_attr(11, "async", SKIP_ATTR_OTHER);
}

Test(analyzer_nvtx, ranges_of_every_domain_nest_together)
{
	load(1);
	expect_stack(12, "dom0>dom5");
}

Test(analyzer_nvtx, a_range_never_closed_is_open_to_the_end)
{
	load(1);
	expect_stack(13, "forever");
	expect_stack(99, "");
}

Test(analyzer_nvtx, marks_are_not_ranges)
{
	load(1);
	cr_expect_eq(run.nranges, 13);
	for (size_t i = 0; i < run.nranges; i++)
		cr_expect_str_neq(trace->texts.s[run.ranges[i].text], "mark");
}

Test(analyzer_nvtx, the_run_starts_at_the_outermost_range_open_at_a_launch)
{
	load(1);
	cr_expect_eq(run.t0, 50, "forever starts at 50; early closed before any launch");
	sk_run_free(&run);
	load(2);
	cr_expect_eq(run.t0, 500);
}

Test(analyzer_nvtx, an_occurrence_holds_the_launches_of_every_thread_of_its_process)
{
	static const struct {
		uint32_t corr;
		int32_t region;
	} want[] = {{1, 0},  {2, 0}, {3, 0},  {4, 0},  {5, 0},	{6, -1},  {7, -1},
		    {8, -1}, {9, 1}, {10, 0}, {11, 0}, {12, 0}, {13, -1}, {99, -1}};
	struct sk_range *win = NULL;
	size_t nw;

	load(1);
	nw = sk_run_regions(&run, text_id("outer"), &win);
	cr_assert_eq(nw, 3, "two in process 100, one in process 101");
	cr_expect_eq(win[0].start, 100);
	cr_expect_eq(win[1].start, 600);
	cr_expect_eq(win[2].pid, 101);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		cr_expect_eq(kernel(want[i].corr)->region, want[i].region, "launch c%u",
			     want[i].corr);
	free(win);
	cr_expect_eq(sk_run_regions(&run, text_id("mark"), &win), 0);
	free(win);
}

Test(analyzer_nvtx, the_public_timeline_carries_the_innermost_operator_and_the_window)
{
	struct skip_timeline *tl = NULL;
	size_t seen = 0;

	cr_assert_eq(skip_timeline_load(trace, 1, "outer", &tl), 0, "%s", skip_errmsg());
	cr_expect_eq(tl->t0, 50);
	cr_assert_eq(tl->nwindows, 3);
	for (size_t i = 0; i < tl->nops; i++) {
		const struct skip_op *op = &tl->ops[i];

		if (op->corr == 3) {
			cr_expect_str_eq(skip_trace_operator(trace, op->stack), "leaf");
			cr_expect_eq(op->window, 0);
			seen++;
		} else if (op->corr == 9) {
			cr_expect_str_eq(skip_trace_operator(trace, op->stack), "outer");
			cr_expect_eq(op->window, 1);
			seen++;
		} else if (op->corr == 11) {
			cr_expect_str_eq(skip_trace_operator(trace, op->stack), "async");
			cr_expect_eq(op->attr, SKIP_ATTR_OTHER);
			cr_expect_eq(op->window, 0);
			seen++;
		}
	}
	cr_expect_eq(seen, 3);
	skip_timeline_free(tl);
}

Test(analyzer_nvtx, the_report_groups_kernels_by_their_innermost_range)
{
	static const struct {
		const char *name;
		enum skip_attr attr;
		int64_t count;
	} want[] = {{"async", SKIP_ATTR_OTHER, 2},    {"b", SKIP_ATTR_THREAD, 2},
		    {"outer", SKIP_ATTR_THREAD, 2},   {"twin", SKIP_ATTR_THREAD, 2},
		    {"async", SKIP_ATTR_THREAD, 1},   {"dom5", SKIP_ATTR_THREAD, 1},
		    {"forever", SKIP_ATTR_THREAD, 1}, {"leaf", SKIP_ATTR_THREAD, 1},
		    {"mid", SKIP_ATTR_THREAD, 1}};
	struct skip_analysis_opts o = {.run_id = 1};
	struct skip_report *r = NULL;

	cr_assert_eq(skip_analyze(trace, &o, &r), 0, "%s", skip_errmsg());
	cr_expect_eq(r->regions[0].m.kernels, 14);
	cr_expect_eq(r->kernels_with_operator, 13);
	cr_expect_eq(r->kernels_by_attr[SKIP_ATTR_THREAD], 11);
	cr_expect_eq(r->kernels_by_attr[SKIP_ATTR_OTHER], 2);
	cr_expect_eq(r->kernels_by_attr[SKIP_ATTR_SEQ], 0);
	cr_expect_eq(r->kernels_by_attr[SKIP_ATTR_NONE], 1, "the kernel with no launch call");
	cr_expect_eq(r->ops_none.count, 1);
	cr_expect_eq(r->ops_none.total_ns, 10);
	cr_expect_eq(r->nops_rest, 0);
	cr_assert_eq(r->ntop_ops, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < r->ntop_ops; i++) {
		cr_expect_str_eq(r->top_ops[i].name, want[i].name, "operator %zu", i);
		cr_expect_eq(r->top_ops[i].attr, want[i].attr, "operator %zu", i);
		cr_expect_eq(r->top_ops[i].count, want[i].count, "%s", want[i].name);
		cr_expect_eq(r->top_ops[i].total_ns, 10 * want[i].count, "%s", want[i].name);
	}
	cr_expect_eq(r->regions[0].m.start_ns, 50);
	skip_report_free(r);
}

Test(analyzer_nvtx, launches_hours_apart_take_the_qsort_r_path_with_the_same_answers)
{
	struct sk_range *win = NULL;

	load(2);
	expect_stack(20, "span");
	expect_stack(21, "span>late");
	expect_attr(22, "span", SKIP_ATTR_OTHER);
	cr_assert_eq(sk_run_regions(&run, text_id("span"), &win), 1);
	cr_expect_eq(kernel(20)->region, 0);
	cr_expect_eq(kernel(21)->region, 0);
	cr_expect_eq(kernel(22)->region, 0, "thread 8, same process");
	free(win);
	for (size_t i = 0; i < run.nops; i++)
		run.ops[i].region = -1;
	cr_assert_eq(sk_run_regions(&run, text_id("late"), &win), 1);
	cr_expect_eq(kernel(20)->region, -1);
	cr_expect_eq(kernel(21)->region, 0);
	cr_expect_eq(kernel(22)->region, -1);
	free(win);
}
