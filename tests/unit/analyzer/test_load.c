/*
 * test_load.c: the loader's check of every record (analyzer/load.c, docs/trace-format.md
 * "Well-formed records") on hand-built traces with malformed rows (tests/fixtures/hand/
 * malformed*.sql, runs_malformed.sql; the answers are in their headers): the malformed ones
 * are left out of every metric and of the timeline, and counted per table and reason in the
 * report, its JSON and one text line.
 */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hand.h"
#include "unit/scratch.h"

static char dir[64];

static void setup(void)
{
	sk_scratch_make(dir, sizeof(dir), "skip-load");
}

static void teardown(void)
{
	sk_scratch_remove(dir);
}

TestSuite(analyzer_load, .init = setup, .fini = teardown);

static struct skip_report *analyze(struct skip_trace *t, int64_t run)
{
	struct skip_analysis_opts o = {.run_id = run};
	struct skip_report *r = NULL;

	cr_assert_eq(skip_analyze(t, &o, &r), 0, "%s", skip_errmsg());
	return r;
}

/* malformed.sql's header: what was left out. */
static void expect_malformed_counts(const struct skip_malformed *m)
{
	static const struct {
		enum skip_table t;
		enum skip_bad b;
		int64_t n;
	} want[] = {
	    {SKIP_TABLE_KERNEL, SKIP_BAD_RUN_ID, 1}, {SKIP_TABLE_KERNEL, SKIP_BAD_TIME, 2},
	    {SKIP_TABLE_KERNEL, SKIP_BAD_ORDER, 1},  {SKIP_TABLE_KERNEL, SKIP_BAD_ID, 1},
	    {SKIP_TABLE_RUNTIME, SKIP_BAD_TIME, 1},  {SKIP_TABLE_RUNTIME, SKIP_BAD_ORDER, 1},
	    {SKIP_TABLE_RUNTIME, SKIP_BAD_ID, 1},    {SKIP_TABLE_MEMCPY, SKIP_BAD_ORDER, 1},
	    {SKIP_TABLE_MEMSET, SKIP_BAD_ID, 1},     {SKIP_TABLE_NVTX, SKIP_BAD_TIME, 1},
	    {SKIP_TABLE_NVTX, SKIP_BAD_ORDER, 1},
	};
	int64_t sum = 0;

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		cr_expect_eq(m->count[want[i].t][want[i].b], want[i].n, "%s %s",
			     skip_table_name(want[i].t), skip_bad_name(want[i].b));
		sum += want[i].n;
	}
	for (int t = 0; t < SKIP_TABLE_COUNT; t++)
		for (int b = 0; b < SKIP_BAD_COUNT; b++)
			sum -= m->count[t][b];
	cr_expect_eq(sum, 0, "no other table or reason counts any");
	cr_expect_eq(m->total, 12);
}

Test(analyzer_load, malformed_records_are_left_out_of_every_metric)
{
	struct skip_trace *good = hand_trace(dir, "launch");
	struct skip_trace *bad = hand_trace_more(dir, "launch", "malformed");
	struct skip_report *g = analyze(good, 0), *b = analyze(bad, 0);
	const struct skip_metrics *m = &b->regions[0].m;

	cr_assert_eq(b->nregions, 1);
	cr_expect_eq(m->il_ns, 4300, "not 5305: the range that starts at -5 is left out");
	cr_expect_eq(m->start_ns, 1000);
	cr_expect_eq(m->tklqt_ns, 2450);
	cr_expect_eq(m->kernels, 4);
	cr_expect_eq(m->memcpys + m->memsets, 0);
	cr_expect_float_eq(m->akd_ns, 150.0, 1e-9);
	cr_expect_float_eq(m->host_share, 3700.0 / 4300.0, 1e-12);
	cr_expect_eq(m->verdict, SKIP_VERDICT_CPU_BOUND);
	cr_expect_eq(memcmp(m, &g->regions[0].m, sizeof(*m)), 0, "every metric as launch.sql's");
	cr_expect_eq(b->ntop_ops, 0, "no operator: both ranges are malformed");
	cr_expect_eq(b->kernels_with_operator, 0);
	cr_expect_eq(b->distinct_kernels, 2);
	cr_expect_eq(g->malformed.total, 0);
	expect_malformed_counts(&b->malformed);
	skip_report_free(g);
	skip_report_free(b);
	skip_trace_close(good);
	skip_trace_close(bad);
}

Test(analyzer_load, a_launch_call_out_of_range_leaves_its_kernel_without_one)
{
	struct skip_trace *t = hand_trace_more(dir, "launch", "malformed_api");
	struct skip_report *r = analyze(t, 0);
	const struct skip_metrics *m = &r->regions[0].m;

	cr_assert_eq(r->nregions, 1);
	cr_expect_eq(m->kernels, 5);
	cr_expect_eq(m->launched, 4);
	cr_expect_eq(m->no_api, 1);
	cr_expect_eq(m->t_api_ns, 1600);
	cr_expect_eq(m->t_queue_ns, 850);
	cr_expect_eq(m->tklqt_ns, 2450);
	cr_expect_eq(m->kernel_ns, 700);
	cr_expect_float_eq(m->akd_ns, 140.0, 1e-9);
	cr_expect_eq(m->short_kernels, 5);
	cr_expect_eq(m->short_kernel_ns, 700);
	cr_expect_eq(m->start_ns, 1000);
	cr_expect_eq(m->il_ns, 4500, "not -9223371911.5 s");
	cr_expect_eq(m->busy_ns, 700);
	cr_expect_eq(m->idle_ns, 3800);
	cr_expect_eq(m->host_wait_ns, 1850);
	cr_expect_eq(m->sync_stall_ns, 950);
	cr_expect_eq(m->device_latency_ns, 1000);
	cr_expect_eq(m->launch_latency_ns, 900);
	cr_expect_eq(m->il_minus_kernel_ns, 3800);
	cr_expect_float_eq(m->host_share, 3700.0 / 4500.0, 1e-12);
	cr_expect_float_eq(m->launches_per_s, 5e9 / 4500.0, 1e-3);
	cr_expect_eq(m->verdict, SKIP_VERDICT_CPU_BOUND);
	cr_expect_eq(r->malformed.count[SKIP_TABLE_RUNTIME][SKIP_BAD_TIME], 1);
	cr_expect_eq(r->malformed.total, 1);
	skip_report_free(r);
	skip_trace_close(t);
}

Test(analyzer_load, the_timeline_leaves_malformed_records_out)
{
	struct skip_trace *t = hand_trace_more(dir, "launch", "malformed");
	struct skip_timeline *tl = NULL;

	cr_assert_eq(skip_timeline_load(t, 1, "outer", &tl), 0, "%s", skip_errmsg());
	cr_expect_eq(tl->nops, 4);
	cr_expect_eq(tl->nsyncs, 1);
	cr_expect_eq(tl->nwindows, 0, "the range 'outer' is malformed");
	cr_expect_eq(tl->t0, 1000);
	for (size_t i = 0; i < tl->nops; i++) {
		const struct skip_op *op = &tl->ops[i];

		cr_expect(op->start >= 0 && op->end >= op->start && op->end < SKIP_TIME_MAX);
		cr_expect(op->launch >= 0 && op->api_end >= op->launch, "op %zu", i);
	}
	expect_malformed_counts(&tl->malformed);
	skip_timeline_free(tl);
	skip_trace_close(t);
}

/* A GPU row with two billion multiprocessors: the count is unknown (0), never sized for. */
Test(analyzer_load, an_implausible_sm_count_is_taken_as_unknown)
{
	struct skip_trace *good = hand_trace_more(dir, "launch", "sms_132");
	struct skip_trace *bad = hand_trace_more(dir, "launch", "implausible_sms");
	struct skip_timeline *tl = NULL;

	cr_assert_eq(skip_timeline_load(bad, 1, NULL, &tl), 0, "%s", skip_errmsg());
	cr_expect_eq(tl->sm_count, 0);
	skip_timeline_free(tl);
	skip_trace_close(bad);
	/* the same trace with a plausible count keeps it */
	cr_assert_eq(skip_timeline_load(good, 1, NULL, &tl), 0, "%s", skip_errmsg());
	cr_expect_eq(tl->sm_count, 132);
	skip_timeline_free(tl);
	skip_trace_close(good);
}

Test(analyzer_load, malformed_rows_between_runs_are_counted_with_the_run_they_lie_in)
{
	struct skip_trace *t = hand_trace(dir, "runs_malformed");
	struct skip_report *r = analyze(t, 0);

	cr_assert_eq(r->nregions, 2);
	cr_expect_eq(r->regions[0].m.il_ns, 1000);
	cr_expect_eq(r->regions[1].m.il_ns, 2000);
	cr_expect_eq(r->malformed.count[SKIP_TABLE_KERNEL][SKIP_BAD_RUN_ID], 1);
	cr_expect_eq(r->malformed.total, 1);
	skip_report_free(r);
	r = analyze(t, 1);
	cr_expect_eq(r->regions[0].m.il_ns, 1000);
	cr_expect_eq(r->malformed.total, 1);
	skip_report_free(r);
	r = analyze(t, 2);
	cr_expect_eq(r->regions[0].m.il_ns, 2000);
	cr_expect_eq(r->malformed.total, 0);
	skip_report_free(r);
	skip_trace_close(t);
}

/* @doc follows schemas/report.schema.json. */
static void expect_valid(const cJSON *doc)
{
	char *text = hand_slurp("schemas/report.schema.json"), err[512];
	cJSON *schema = cJSON_Parse(text);

	cr_assert_not_null(schema);
	cr_expect_eq(skip_json_validate(schema, doc, err, sizeof(err)), 0, "%s", err);
	cJSON_Delete(schema);
	free(text);
}

static char *print_line(const struct skip_malformed *m)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	cr_assert_not_null(f);
	skip_malformed_print(f, m);
	fclose(f);
	return buf;
}

Test(analyzer_load, the_counts_go_to_json_and_to_one_text_line_only_when_some)
{
	struct skip_trace *good = hand_trace(dir, "launch");
	struct skip_trace *bad = hand_trace_more(dir, "launch", "malformed_api");
	struct skip_report *g = analyze(good, 0), *b = analyze(bad, 0);
	char *js = skip_report_json(b), *line = print_line(&b->malformed);
	cJSON *doc = cJSON_Parse(js), *mr = cJSON_GetObjectItem(doc, "malformed_records"), *e;

	cr_expect_str_eq(line, "left out 1 malformed record (docs/trace-format.md): 1 "
			       "CUPTI_ACTIVITY_KIND_RUNTIME (time not in [0, 2^62) ns)\n");
	cr_assert_not_null(mr);
	cr_expect_eq(cJSON_GetObjectItem(mr, "total")->valuedouble, 1);
	e = cJSON_GetArrayItem(cJSON_GetObjectItem(mr, "records"), 0);
	cr_assert_not_null(e);
	cr_expect_str_eq(cJSON_GetObjectItem(e, "table")->valuestring,
			 "CUPTI_ACTIVITY_KIND_RUNTIME");
	cr_expect_str_eq(cJSON_GetObjectItem(e, "reason")->valuestring, "time_out_of_range");
	cr_expect_eq(cJSON_GetObjectItem(e, "count")->valuedouble, 1);
	expect_valid(doc);
	cJSON_Delete(doc);
	free(js);
	free(line);
	js = skip_report_json(g);
	line = print_line(&g->malformed);
	cr_expect_str_eq(line, "", "nothing left out: no line");
	cr_expect_null(strstr(js, "malformed_records"), "nor a JSON member");
	free(js);
	free(line);
	skip_report_free(g);
	skip_report_free(b);
	skip_trace_close(good);
	skip_trace_close(bad);
}

Test(analyzer_load, the_json_of_every_table_and_reason_follows_the_schema)
{
	struct skip_trace *t = hand_trace_more(dir, "launch", "malformed");
	struct skip_report *r = analyze(t, 0);
	char *js = skip_report_json(r);
	cJSON *doc = cJSON_Parse(js);

	cr_assert_not_null(doc);
	expect_valid(doc);
	cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(
			 cJSON_GetObjectItem(doc, "malformed_records"), "records")),
		     11);
	cJSON_Delete(doc);
	free(js);
	skip_report_free(r);
	skip_trace_close(t);
}
