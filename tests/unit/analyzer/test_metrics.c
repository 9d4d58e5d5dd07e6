/*
 * test_metrics.c: every metric of skip report on hand-built traces (the .sql files in
 * tests/fixtures/hand) whose answers were computed by hand; the expected values are derived in the
 * comments at the top of each .sql file.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hand.h"
#include "unit/scratch.h"

static char dir[64];
static struct skip_trace *trace;
static struct skip_report *rep;

static void setup(void)
{
	sk_scratch_make(dir, sizeof(dir), "skip-an");
}

static void teardown(void)
{
	skip_report_free(rep);
	skip_trace_close(trace);
	rep = NULL;
	trace = NULL;
	sk_scratch_remove(dir);
}

TestSuite(analyzer_metrics, .init = setup, .fini = teardown);

/* Build a trace from tests/fixtures/hand/common.sql + NAME.sql and open it. */
static void load(const char *name)
{
	trace = hand_trace(dir, name);
}

static int analyze(int64_t run, const char *region)
{
	struct skip_analysis_opts o = {.run_id = run, .region = region};

	skip_report_free(rep);
	rep = NULL;
	return skip_analyze(trace, &o, &rep);
}

static const struct skip_metrics *only(void)
{
	cr_assert_eq(rep->nregions, 1);
	return &rep->regions[0].m;
}

Test(analyzer_metrics, launch_bound_stream_tklqt_split_and_idle_attribution)
{
	const struct skip_metrics *m;

	load("launch");
	cr_assert_eq(analyze(0, NULL), 0, "%s", skip_errmsg());
	m = only();
	cr_expect_eq(m->kernels, 4);
	cr_expect_eq(m->launched, 4);
	cr_expect_eq(m->t_api_ns, 1600);
	cr_expect_eq(m->t_queue_ns, 850);
	cr_expect_eq(m->tklqt_ns, 2450);
	cr_expect_eq(m->tklqt_ns, m->t_api_ns + m->t_queue_ns);
	cr_expect_eq(m->queue_pos_ns, 900);
	cr_expect_eq(m->neg_queue, 1);
	cr_expect_eq(m->neg_launch, 0);
	cr_expect_eq(m->kernel_ns, 600);
	cr_expect_float_eq(m->akd_ns, 150.0, 1e-9);
	cr_expect_eq(m->median_t_api_ns, 400);
	cr_expect_eq(m->short_kernels, 4);
	cr_expect_eq(m->short_kernel_ns, 600);
	cr_expect_eq(m->start_ns, 1000);
	cr_expect_eq(m->end_ns, 5300);
	cr_expect_eq(m->il_ns, 4300);
	cr_expect_eq(m->busy_ns, 600);
	cr_expect_eq(m->idle_ns, 3700);
	cr_expect_eq(m->il_minus_kernel_ns, 3700);
	cr_expect_eq(m->host_wait_ns, 1850);
	cr_expect_eq(m->sync_stall_ns, 950);
	cr_expect_eq(m->device_latency_ns, 900);
	cr_expect_eq(m->launch_latency_ns, 900);
	cr_expect_eq(m->host_wait_ns + m->sync_stall_ns + m->device_latency_ns, m->idle_ns);
	cr_expect_float_eq(m->host_share, 3700.0 / 4300.0, 1e-12);
	cr_expect_float_eq(m->launches_per_s, 4 / 4300e-9, 1e-3);
	cr_expect_eq(m->verdict, SKIP_VERDICT_CPU_BOUND);
	cr_expect_eq(rep->verdict, SKIP_VERDICT_CPU_BOUND);
	cr_expect_str_eq(rep->gpu, "Hand GPU");
}

Test(analyzer_metrics, overlapping_streams_count_busy_time_once)
{
	const struct skip_metrics *m;

	load("streams");
	cr_assert_eq(analyze(0, NULL), 0, "%s", skip_errmsg());
	m = only();
	cr_expect_eq(m->il_ns, 1900);
	cr_expect_eq(m->busy_ns, 1300, "the union, not the sum, of overlapping intervals");
	cr_expect_eq(m->kernel_ns, 1600);
	cr_expect_eq(m->il_minus_kernel_ns, 300);
	cr_expect_eq(m->idle_ns, 600);
	cr_expect_eq(m->host_wait_ns, 300);
	cr_expect_eq(m->device_latency_ns, 300);
	cr_expect_eq(m->launch_latency_ns, 200);
	cr_expect_eq(m->sync_stall_ns, 0);
	cr_expect_float_eq(m->host_share, 500.0 / 1900.0, 1e-12);
	cr_expect_eq(m->verdict, SKIP_VERDICT_GPU_BOUND);
	cr_expect_eq(m->memcpys, 1);
	cr_expect_eq(m->kernels, 3);
	cr_expect_eq(m->tklqt_ns, 550);
	cr_expect_eq(m->t_api_ns, 300);
	cr_expect_eq(m->t_queue_ns, 250);
	cr_expect_float_eq(m->akd_ns, 1600.0 / 3.0, 1e-9);
	cr_expect_eq(m->short_kernels, 0, "a kernel exactly as long as the median is not short");
	cr_expect_eq(m->ndevices, 1);
}

Test(analyzer_metrics, kernels_days_apart_take_the_qsort_r_path_with_the_same_answers)
{
	const int64_t T = 300000000000000; /* beyond the radix sort's 2^48 ns */
	const struct skip_metrics *m;

	load("far_apart");
	cr_assert_eq(analyze(0, NULL), 0, "%s", skip_errmsg());
	m = only();
	cr_expect_eq(m->il_ns, T + 300);
	cr_expect_eq(m->kernels, 3);
	cr_expect_eq(m->ndevices, 2);
	cr_expect_eq(m->busy_ns, 200, "device 0, the busier, kernels sorted by start");
	cr_expect_eq(m->idle_ns, T + 100);
	cr_expect_eq(m->host_wait_ns, T - 100);
	cr_expect_eq(m->device_latency_ns, 200);
	cr_expect_eq(m->launch_latency_ns, 200);
	cr_expect_eq(m->tklqt_ns, 500);
}

Test(analyzer_metrics, top_kernels_by_time_and_by_count)
{
	load("streams");
	cr_assert_eq(analyze(0, NULL), 0);
	cr_assert_eq(rep->ntop_time, 2);
	cr_expect_str_eq(rep->top_by_time[0].name, "kA");
	cr_expect_eq(rep->top_by_time[0].count, 2);
	cr_expect_eq(rep->top_by_time[0].total_ns, 1100);
	cr_expect_eq(rep->top_by_time[0].min_ns, 100);
	cr_expect_eq(rep->top_by_time[0].max_ns, 1000);
	cr_expect_str_eq(rep->top_by_time[1].name, "kB");
	cr_expect_eq(rep->top_by_time[1].total_ns, 500);
	cr_expect_str_eq(rep->top_by_count[0].name, "kA");
	cr_expect_eq(rep->distinct_kernels, 2);
}

Test(analyzer_metrics, operators_are_the_innermost_range_on_the_launching_thread)
{
	static const struct {
		const char *name;
		int64_t gpu_ns;
	} want[] = {{"bwd", 20},   {"step", 20}, {"fwd", 10},
		    {"inner", 10}, {"open", 10}, {"worker", 10}};

	load("nvtx");
	cr_assert_eq(analyze(0, NULL), 0, "%s", skip_errmsg());
	cr_expect_eq(only()->kernels, 7);
	cr_expect_eq(only()->no_api, 1, "a kernel with no launch call is counted, not dropped");
	cr_expect_eq(only()->kernel_ns, 95);
	cr_expect_eq(only()->start_ns, 0, "the run starts at its first operator");
	cr_expect_eq(only()->il_ns, 995);
	cr_expect_eq(rep->kernels_with_operator, 6);
	cr_assert_eq(rep->ntop_ops, 6);
	for (size_t i = 0; i < 6; i++) {
		cr_expect_str_eq(rep->top_ops[i].name, want[i].name, "operator %zu", i);
		cr_expect_eq(rep->top_ops[i].total_ns, want[i].gpu_ns, "operator %s", want[i].name);
		cr_expect_eq(rep->top_ops[i].count, 1);
	}
	cr_expect_eq(rep->top_ops[2].launch_ns, 20, "fwd: k1 started 20 after its launch call");
}

Test(analyzer_metrics, a_region_holds_what_was_launched_inside_it_on_any_thread)
{
	const struct skip_metrics *m;

	load("nvtx");
	cr_assert_eq(analyze(0, "step"), 0, "%s", skip_errmsg());
	m = only();
	cr_expect_str_eq(rep->regions[0].name, "step");
	cr_expect_eq(m->kernels, 6);
	cr_expect_eq(m->start_ns, 0);
	cr_expect_eq(m->il_ns, 990);
	cr_assert_eq(analyze(0, "fwd"), 0, "%s", skip_errmsg());
	m = only();
	cr_expect_eq(m->kernels, 3);
	cr_expect_eq(m->start_ns, 100);
	cr_expect_eq(m->il_ns, 330);
}

Test(analyzer_metrics, empty_occurrences_are_counted_and_left_out_of_the_statistics)
{
	load("nvtx");
	cr_assert_eq(analyze(0, "mixed"), 0, "%s", skip_errmsg());
	cr_expect_eq(rep->nregions, 2);
	cr_expect_eq(rep->nempty, 1);
	cr_expect_eq(rep->regions[1].m.verdict, SKIP_VERDICT_EMPTY);
	cr_expect_eq(rep->stats[SKIP_M_IL].n, 1);
	cr_expect_float_eq(rep->stats[SKIP_M_IL].median, 75.0, 1e-9, "k6 ends at 75");
}

Test(analyzer_metrics, a_region_without_gpu_work_or_a_missing_region_is_an_error)
{
	load("nvtx");
	cr_expect_eq(analyze(0, "idle"), SKIP_E_EMPTY);
	cr_expect(strstr(skip_errmsg(), "'idle' holds no GPU work"), "%s", skip_errmsg());
	cr_expect_eq(analyze(0, "nope"), SKIP_E_NOTFOUND);
	cr_expect(strstr(skip_errmsg(), "no NVTX range named 'nope'"), "%s", skip_errmsg());
	cr_expect(strstr(skip_errmsg(), "'step'"), "the message lists the ranges: %s",
		  skip_errmsg());
}

Test(analyzer_metrics, a_graph_launch_counts_once_in_tklqt)
{
	const struct skip_metrics *m;

	load("graph");
	cr_assert_eq(analyze(0, NULL), 0, "%s", skip_errmsg());
	m = only();
	cr_expect_eq(m->kernels, 4);
	cr_expect_eq(m->launched, 2);
	cr_expect_eq(m->graph_nodes, 2);
	cr_expect_eq(m->tklqt_ns, 1700);
	cr_expect_eq(m->t_api_ns, 1050);
	cr_expect_eq(m->t_queue_ns, 650);
	cr_expect_eq(m->busy_ns, 300);
	cr_expect_eq(m->il_ns, 1650);
	cr_expect_eq(m->host_wait_ns, 1000);
	cr_expect_eq(m->device_latency_ns, 350);
	cr_expect_eq(m->launch_latency_ns, 200);
	cr_expect_float_eq(m->host_share, 1200.0 / 1650.0, 1e-12);
	cr_expect_eq(m->no_api, 0, "graph kernels are linked to their graph launch");
}

Test(analyzer_metrics, repetitions_give_mean_median_min_max_and_stdev)
{
	const struct skip_stat *s;

	load("runs");
	cr_assert_eq(analyze(0, NULL), 0, "%s", skip_errmsg());
	cr_expect_eq(rep->nregions, 3, "the empty fourth run is skipped");
	cr_expect_eq(rep->runs, 4);
	cr_expect_eq(rep->failed_runs, 1);
	cr_expect_eq(rep->dropped, 3);
	s = &rep->stats[SKIP_M_IL];
	cr_expect_eq(s->n, 3);
	cr_expect_float_eq(s->mean, 7000.0 / 3.0, 1e-9);
	cr_expect_float_eq(s->median, 2000.0, 1e-9);
	cr_expect_float_eq(s->min, 1000.0, 1e-9);
	cr_expect_float_eq(s->max, 4000.0, 1e-9);
	cr_expect_float_eq(s->stdev, 1527.525231651947, 1e-6);
	cr_assert_eq(analyze(2, NULL), 0);
	cr_expect_eq(only()->il_ns, 2000);
	cr_expect_eq(rep->runs, 1);
}

Test(analyzer_metrics, unknown_and_empty_runs_are_errors)
{
	load("runs");
	cr_expect_eq(analyze(9, NULL), SKIP_E_NOTFOUND);
	cr_expect(strstr(skip_errmsg(), "no run 9"), "%s", skip_errmsg());
	cr_expect_eq(analyze(4, NULL), SKIP_E_EMPTY);
	cr_expect(strstr(skip_errmsg(), "run 4 has no kernels"), "%s", skip_errmsg());
}

Test(analyzer_metrics, a_trace_without_kernels_is_an_error)
{
	sqlite3 *db = NULL;
	char path[128];

	snprintf(path, sizeof(path), "%s/empty.skip.db", dir);
	cr_assert_eq(skip_store_create(path, 0, &db), 0);
	skip_store_exec(db,
			"INSERT INTO SKIP_RUNS(runId, commandLine, status) VALUES (1, 'x', 'ok')");
	sqlite3_close(db);
	cr_assert_eq(skip_trace_open(path, &trace), 0);
	cr_expect_eq(analyze(0, NULL), SKIP_E_EMPTY);
	cr_expect(strstr(skip_errmsg(), "no kernels"), "%s", skip_errmsg());
}

Test(analyzer_metrics, the_threshold_decides_the_verdict)
{
	struct skip_analysis_opts o = {.threshold = 0.9};

	load("launch");
	cr_assert_eq(skip_analyze(trace, &o, &rep), 0);
	cr_expect_eq(rep->verdict, SKIP_VERDICT_GPU_BOUND, "0.86 is below 0.9");
	cr_expect_float_eq(rep->threshold, 0.9, 1e-12);
}
