/*
 * test_graph_gain.c: a sweep's graph-gain table from end to end: advisor/sweep.c
 * (skip_report_add_graph_gain()) fills it, the analyzer's JSON writer prints it (valid against
 * schemas/report.schema.json) and the HTML page shows it. On a hand-built sweep
 * (tests/fixtures/hand/advise_sweep.sql, over advise_model.sql: every answer derived by hand in
 * its header), and on the recorded llama and gpt2 sweeps, whose rows must be the lines of
 * skip report's text (tests/cli/golden/report_*_sweep.txt). It sits in the export test binary,
 * the one that links the analyzer, the advisor and the exporter together.
 */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hand.h"
#include "skip_advisor.h"
#include "skip_export.h"
#include "unit/scratch.h"

static char dir[] = "/tmp/skip-gg-XXXXXX";
static struct skip_trace *trace;
static struct skip_report *rep;

static void setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void)
{
	skip_report_free(rep);
	skip_trace_close(trace);
	sk_scratch_remove(dir);
}

TestSuite(report_graph_gain, .init = setup, .fini = teardown);

/* advise_sweep.sql's calibration: advise_model.sql's, with a cheaper graph. */
static void sweep_cal(struct skip_calibration *c)
{
	skip_calibration_default(c);
	c->graph_launch_ns = 1000;
	c->graph_first_ns = 1000;
	c->graph_node_gap_ns = 91;
	c->graph_launch_node_ns = 0;
	c->graph_dispatch_ns = 0;
	c->profiler_launch_ns = 1900;
	c->stream_gap_ns = 600;
	c->persist_launch_ns = 1000;
	c->persist_epoch_ns = 500;
	c->persist_aot_task_ns = 200;
	c->persist_jit_task_ns = 400;
	c->persist_copilot_task_ns = 1000;
}

/* Analyze the hand-built sweep (each occurrence of @region, or each run) and fill the table. */
static const struct skip_graph_gains *hand_table(const char *region)
{
	struct skip_analysis_opts o = {.region = region};
	struct skip_calibration cal;

	trace = hand_trace_more(dir, "advise_model", "advise_sweep");
	cr_assert_eq(skip_analyze(trace, &o, &rep), 0, "%s", skip_errmsg());
	cr_assert_not_null(rep->sweep);
	cr_assert_null(rep->sweep->graph, "the analyzer alone leaves it out");
	sweep_cal(&cal);
	cr_assert_eq(skip_report_add_graph_gain(trace, &o, &cal, rep), 0, "%s", skip_errmsg());
	cr_assert_not_null(rep->sweep->graph);
	return rep->sweep->graph;
}

static void expect_row(const struct skip_graph_gain *g, double value, int runs, double il,
		       double unprofiled, double graph, double persist)
{
	cr_expect_float_eq(g->value, value, 1e-12);
	cr_expect_eq(g->runs, runs, "value %g", value);
	cr_expect_float_eq(g->il_ns, il, 1e-9, "value %g", value);
	cr_expect_float_eq(g->model_ns, il, 1e-9, "value %g: replayed exactly", value);
	cr_expect_float_eq(g->calibration_error, 0, 1e-12, "value %g", value);
	cr_expect_float_eq(g->unprofiled_ns, unprofiled, 1e-9, "value %g", value);
	cr_expect_float_eq(g->graph_ns, graph, 1e-9, "value %g", value);
	cr_expect_float_eq(g->gain, unprofiled / graph, 1e-12, "value %g", value);
	cr_expect_float_eq(g->persist_ns, persist, 1e-9, "value %g", value);
	cr_expect_float_eq(g->persist_gain, unprofiled / persist, 1e-12, "value %g", value);
	cr_expect_str_eq(g->persist_mode, "aot", "value %g", value);
}

Test(report_graph_gain, each_value_gets_the_medians_over_its_runs_of_each_occurrence)
{
	const struct skip_graph_gains *g = hand_table("step");

	cr_assert_eq(g->nrows, 2);
	expect_row(&g->rows[0], 1, 2, 20000, 12400, 6273, 8300);
	expect_row(&g->rows[1], 2, 1, 14000, 7900, 6273, 8300); /* run 4 has no 'step' */
	cr_expect_eq(rep->sweep->pts[1].runs, 2, "the sweep point counts run 4");
}

Test(report_graph_gain, without_a_region_each_whole_run_is_modelled)
{
	const struct skip_graph_gains *g = hand_table(NULL);

	cr_assert_eq(g->nrows, 2);
	expect_row(&g->rows[0], 1, 2, 20000, 12400, 6273, 8300);
	expect_row(&g->rows[1], 2, 2, 9500, 5500, 4636.5, 6500);
}

Test(report_graph_gain, filling_it_again_replaces_the_table)
{
	struct skip_analysis_opts o = {.region = "step"};

	hand_table("step");
	cr_assert_eq(skip_report_add_graph_gain(trace, &o, NULL, rep), 0);
	cr_assert_eq(rep->sweep->graph->nrows, 2, "the built-in calibration models both values");
	cr_expect_gt(rep->sweep->graph->rows[0].graph_ns, 0);
}

Test(report_graph_gain, a_calibration_out_of_range_leaves_the_report_unchanged)
{
	struct skip_analysis_opts o = {.region = "step"};
	struct skip_calibration cal;
	char *json;

	trace = hand_trace_more(dir, "advise_model", "advise_sweep");
	cr_assert_eq(skip_analyze(trace, &o, &rep), 0, "%s", skip_errmsg());
	sweep_cal(&cal);
	cal.graph_launch_ns = 1e19;
	cr_expect_eq(skip_report_add_graph_gain(trace, &o, &cal, rep), SKIP_E_INVAL);
	cr_expect(strstr(skip_errmsg(), "graph_launch_ns"), "%s", skip_errmsg());
	cr_expect_null(rep->sweep->graph);
	json = skip_report_json(rep);
	cr_expect_null(strstr(json, "graph_gain"), "no table, no member");
	free(json);
}

Test(report_graph_gain, a_report_without_a_sweep_gets_no_table)
{
	struct skip_analysis_opts o = {.run_id = 1, .region = "step"};

	trace = hand_trace_more(dir, "advise_model", "advise_sweep");
	cr_assert_eq(skip_analyze(trace, &o, &rep), 0, "%s", skip_errmsg());
	cr_assert_null(rep->sweep);
	cr_expect_eq(skip_report_add_graph_gain(trace, &o, NULL, rep), 0);
	cr_expect_null(rep->sweep);
}

/* ---- the table in the JSON and the HTML ---------------------------------------------------- */

static cJSON *schema(void)
{
	char *text = hand_slurp("schemas/report.schema.json");
	cJSON *s = cJSON_Parse(text);

	free(text);
	cr_assert_not_null(s, "schemas/report.schema.json does not parse");
	return s;
}

/* The report's JSON, validated against the schema; its sweep.graph_gain array is checked
 * against the table, row by row. */
static void expect_json(const struct skip_report *r)
{
	cJSON *sc = schema(), *doc, *rows;
	char err[512], *json = skip_report_json(r);
	const struct skip_graph_gains *g = r->sweep->graph;
	static const char *const keys[] = {
	    "value",	     "runs",	 "il_ns", "model_ns",	   "calibration_error",
	    "unprofiled_ns", "graph_ns", "gain",  "persistent_ns", "persistent_gain"};

	doc = cJSON_Parse(json);
	cr_assert_not_null(doc);
	cr_expect_eq(skip_json_validate(sc, doc, err, sizeof(err)), 0, "%s", err);
	rows = cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "sweep"), "graph_gain");
	cr_assert_not_null(rows);
	cr_assert_eq((size_t)cJSON_GetArraySize(rows), g->nrows);
	for (size_t i = 0; i < g->nrows; i++) {
		const struct skip_graph_gain *w = &g->rows[i];
		const double want[] = {
		    w->value,	      w->runs,	   w->il_ns, w->model_ns,   w->calibration_error,
		    w->unprofiled_ns, w->graph_ns, w->gain,  w->persist_ns, w->persist_gain};
		cJSON *row = cJSON_GetArrayItem(rows, (int)i);

		cr_expect_str_eq(cJSON_GetObjectItem(row, "persistent_mode")->valuestring,
				 w->persist_mode, "row %zu", i);
		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			cr_expect_float_eq(cJSON_GetObjectItem(row, keys[k])->valuedouble, want[k],
					   1e-9 * (1 + want[k]), "row %zu %s", i, keys[k]);
	}
	cJSON_Delete(doc);
	cJSON_Delete(sc);
	free(json);
}

static int count(const char *s, const char *what)
{
	int n = 0;

	for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

/* The HTML page holds the table: a header row and one row per table row. */
static void expect_html(const struct skip_report *r)
{
	char *buf = NULL, *t, *e;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	cr_assert_not_null(f);
	cr_assert_eq(skip_export_html(r, f), 0);
	fclose(f);
	t = strstr(buf, "<table class='graph-gain'>");
	cr_assert_not_null(t);
	e = strstr(t, "</table>");
	cr_assert_not_null(e);
	*e = '\0';
	cr_expect_eq((size_t)count(t, "<tr>"), r->sweep->graph->nrows + 1);
	free(buf);
}

Test(report_graph_gain, the_hand_built_table_goes_to_the_json_and_the_page)
{
	char *json;

	hand_table("step");
	expect_json(rep);
	expect_html(rep);
	rep->sweep->graph->nrows = 0; /* an empty table is still a member */
	json = skip_report_json(rep);
	cr_expect(strstr(json, "\"graph_gain\":\t[]"), "%s", json);
	free(json);
}

/* The text line skip report prints for @g (cli/cmd_report.c, print_sweep_graph()). */
static void text_line(char *buf, size_t n, const struct skip_graph_gain *g)
{
	char a[32], b[32], c[32], d[32], e[32];

	snprintf(buf, n, "  %8g %10s %10s %7.1f%% %12s %10s %7.2fx %12s %7s %7.2fx\n", g->value,
		 skip_fmt_duration(a, sizeof(a), g->il_ns, 4),
		 skip_fmt_duration(b, sizeof(b), g->model_ns, 4), 100 * g->calibration_error,
		 skip_fmt_duration(c, sizeof(c), g->unprofiled_ns, 4),
		 skip_fmt_duration(d, sizeof(d), g->graph_ns, 4), g->gain,
		 skip_fmt_duration(e, sizeof(e), g->persist_ns, 4), g->persist_mode,
		 g->persist_gain);
}

/* A recorded sweep with --region prefill and the built-in calibration, as skip report runs it:
 * every value modelled, each row a line of the golden text, the JSON valid, the page full. */
static void recorded(const char *model)
{
	struct skip_analysis_opts o = {.region = "prefill", .top_k = 5};
	char path[256], line[256], *golden;
	const struct skip_graph_gains *g;

	snprintf(path, sizeof(path), "tests/fixtures/%s_sweep.skip.db", model);
	cr_assert_eq(skip_trace_open(path, &trace), 0, "%s", skip_errmsg());
	cr_assert_eq(skip_analyze(trace, &o, &rep), 0, "%s", skip_errmsg());
	cr_assert_eq(skip_report_add_graph_gain(trace, &o, NULL, rep), 0, "%s", skip_errmsg());
	g = rep->sweep->graph;
	cr_expect_eq(g->nrows, rep->sweep->npts, "%s: every value modelled", model);
	snprintf(path, sizeof(path), "tests/cli/golden/report_%s_sweep.txt", model);
	golden = hand_slurp(path);
	for (size_t i = 0; i < g->nrows; i++) {
		text_line(line, sizeof(line), &g->rows[i]);
		cr_expect(strstr(golden, line), "%s: no line '%s' in %s", model, line, path);
	}
	free(golden);
	expect_json(rep);
	expect_html(rep);
	skip_report_free(rep);
	skip_trace_close(trace);
	rep = NULL;
	trace = NULL;
}

Test(report_graph_gain, recorded_sweeps_print_the_lines_of_skip_reports_text, .timeout = 120)
{
	recorded("llama1b");
	recorded("gpt2");
}
