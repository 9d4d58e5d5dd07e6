/*
 * test_timeline.c: notebooks-export's trace writers on the hand-built trace
 * tests/fixtures/hand/export.sql (every count and time in its header, worked out by hand):
 * the Perfetto and Kineto JSON parsed back with cJSON (events per category, exact timestamps,
 * names with a quote, comma, newline and non-ASCII text intact, flows paired, tracks named),
 * the region window and its errors, CSV quoting byte by byte, a query, the notebook's JSON.
 */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hand.h"
#include "skip_export.h"
#include "unit/scratch.h"

static char dir[] = "/tmp/skip-export-XXXXXX";
static struct skip_trace *trace;
static char *text;
static size_t len;
static cJSON *doc;

static void setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
	trace = hand_trace(dir, "export");
}

static void teardown(void)
{
	cJSON_Delete(doc);
	free(text);
	skip_trace_close(trace);
	sk_scratch_remove(dir);
}

TestSuite(export_timeline, .init = setup, .fini = teardown);

static void export(enum skip_timeline_format fmt, const struct skip_export_pick *pick,
		   struct skip_export_counts *c)
{
	struct skip_export_sel sel;
	FILE *f = open_memstream(&text, &len);

	cr_assert_eq(skip_export_select(trace, pick, &sel), 0, "%s", skip_errmsg());
	cr_assert_eq(skip_export_timeline(trace, "t.skip.db", &sel, fmt, f, c), 0, "%s",
		     skip_errmsg());
	fclose(f);
	skip_export_sel_fini(&sel);
	doc = cJSON_Parse(text);
	cr_assert_not_null(doc, "not JSON: %s", text);
	cr_expect_eq(c->bytes, (int64_t)len);
}

/* Events of phase @ph (and category @cat when not NULL). */
static int count(const char *ph, const char *cat)
{
	const cJSON *e;
	int n = 0;

	cJSON_ArrayForEach(e, cJSON_GetObjectItem(doc, "traceEvents"))
	{
		n += !strcmp(cJSON_GetObjectItem(e, "ph")->valuestring, ph) &&
		     (!cat || !strcmp(cJSON_GetObjectItem(e, "cat")->valuestring, cat));
	}
	return n;
}

static const cJSON *find(const char *ph, const char *name)
{
	const cJSON *e;

	cJSON_ArrayForEach(e, cJSON_GetObjectItem(doc, "traceEvents"))
	{
		if (!strcmp(cJSON_GetObjectItem(e, "ph")->valuestring, ph) &&
		    !strcmp(cJSON_GetObjectItem(e, "name")->valuestring, name))
			return e;
	}
	cr_assert_fail("no %s event named %s", ph, name);
	return NULL;
}

static double num(const cJSON *e, const char *key)
{
	return cJSON_GetNumberValue(cJSON_GetObjectItem(e, key));
}

Test(export_timeline, perfetto_has_every_record_once_with_exact_times)
{
	struct skip_export_pick pick = {0};
	struct skip_export_counts c;
	const cJSON *k;

	export(SKIP_TIMELINE_PERFETTO, &pick, &c);
	cr_expect_eq(c.events, 15);
	cr_expect_eq(c.flows, 4);
	cr_expect_eq(c.malformed, 0);
	cr_expect_eq(count("X", "kernel"), 4);
	cr_expect_eq(count("X", "cuda_runtime"), 6);
	cr_expect_eq(count("X", "nvtx"), 3);
	cr_expect_eq(count("X", "gpu_memcpy"), 1);
	cr_expect_eq(count("X", "cuda_sync"), 1);
	cr_expect_eq(count("s", "ac2g"), 4);
	cr_expect_eq(count("f", "ac2g"), 4);
	/* the kernel with a quote and a comma: [170, 180] ns, printed as exact microseconds */
	k = find("X", "k\"quoted, with comma");
	cr_expect_not_null(strstr(text, "\"ts\":0.170,\"dur\":0.010"));
	cr_expect_eq(num(k, "pid"), 100);
	cr_expect_eq(num(k, "tid"), (1 << 30) | 7); /* GPU 0 stream 7 */
	cr_expect_eq(num(cJSON_GetObjectItem(k, "args"), "correlation"), 1);
	k = find("X", "kernel\nnewline ünïcødé ✓");
	cr_expect_eq(num(k, "tid"), (1 << 30) | 8);
	k = find("X", "Memcpy HtoD (Pageable -> Device)");
	cr_expect_eq(num(cJSON_GetObjectItem(k, "args"), "bytes"), 4096);
	/* the sync is on the thread of its call (thread 8), and gets no arrow */
	k = find("X", "Stream Sync");
	cr_expect_eq(num(k, "tid"), 8);
	cr_expect_not_null(strstr(text, "\"name\":\"GPU 0 stream 8\""));
	cr_expect_not_null(strstr(text, "\"name\":\"process (pid 100, run 1)\""));
}

Test(export_timeline, flows_start_at_the_call_and_end_at_the_kernel)
{
	struct skip_export_pick pick = {.run_id = 1};
	struct skip_export_counts c;
	const cJSON *e, *s = NULL;

	export(SKIP_TIMELINE_PERFETTO, &pick, &c);
	cJSON_ArrayForEach(e, cJSON_GetObjectItem(doc, "traceEvents"))
	{
		const char *ph = cJSON_GetObjectItem(e, "ph")->valuestring;

		if (!strcmp(ph, "s") && num(e, "ts") > 0.299 && num(e, "ts") < 0.301)
			s = e; /* the launch call of corr 2 starts at 300 ns */
	}
	cr_assert_not_null(s);
	cJSON_ArrayForEach(e, cJSON_GetObjectItem(doc, "traceEvents"))
	{
		if (!strcmp(cJSON_GetObjectItem(e, "ph")->valuestring, "f") &&
		    num(e, "id") == num(s, "id")) {
			cr_expect_eq(num(e, "tid"), (1 << 30) | 8);
			cr_expect_str_eq(cJSON_GetObjectItem(e, "bp")->valuestring, "e");
			cr_expect_lt(num(e, "ts") - 0.320, 1e-9);
		}
	}
	cr_expect_eq(num(s, "tid"), 7);
	cr_expect_eq(c.events, 13);
}

Test(export_timeline, a_region_window_ends_with_the_work_launched_inside)
{
	struct skip_export_pick pick = {.region = "step \"one\", ü", .occurrence = 2};
	struct skip_export_sel sel;
	struct skip_export_counts c;

	cr_assert_eq(skip_export_select(trace, &pick, &sel), 0);
	cr_expect_eq(sel.run_id, 1);
	cr_expect_eq(sel.start_ns, 2000);
	cr_expect_eq(sel.range_end, 2100);
	cr_expect_eq(sel.end_ns, 2600);
	skip_export_sel_fini(&sel);
	export(SKIP_TIMELINE_PERFETTO, &pick, &c);
	cr_expect_eq(c.events, 3);
	cr_expect_eq(c.flows, 1);
	cr_expect_not_null(strstr(text, "\"occurrence\":2"));
}

Test(export_timeline, the_first_occurrence_holds_its_ten_records)
{
	struct skip_export_pick pick = {.region = "step \"one\", ü"};
	struct skip_export_counts c;

	export(SKIP_TIMELINE_KINETO, &pick, &c);
	cr_expect_eq(c.events, 10);
	cr_expect_eq(c.flows, 3);
}

Test(export_timeline, kineto_puts_gpu_work_under_the_device_and_names_categories)
{
	struct skip_export_pick pick = {.run_id = 1};
	struct skip_export_counts c;
	const cJSON *k, *props;

	export(SKIP_TIMELINE_KINETO, &pick, &c);
	k = find("X", "k\"quoted, with comma");
	cr_expect_eq(num(k, "pid"), 0); /* device 0 */
	cr_expect_eq(num(k, "tid"), 7); /* stream 7 */
	cr_expect_eq(count("X", "user_annotation"), 2);
	cr_expect_eq(count("X", "gpu_memcpy"), 1);
	cr_expect_not_null(cJSON_GetObjectItem(doc, "deviceProperties"));
	props = cJSON_GetObjectItem(doc, "distributedInfo");
	cr_expect_eq(num(props, "rank"), 0);
	cr_expect_str_eq(cJSON_GetObjectItem(doc, "skip_export")->valuestring, "kineto");
	/* no SKIP_RUNS.start in the hand trace: times count from 0 and there is no base */
	cr_expect_null(cJSON_GetObjectItem(doc, "baseTimeNanoseconds"));
	cr_expect_not_null(strstr(text, "\"ts\":0.170,\"dur\":0.010"));
}

Test(export_timeline, a_run_without_gpu_work_and_an_empty_run_export)
{
	struct skip_export_pick two = {.run_id = 2}, three = {.run_id = 3};
	struct skip_export_counts c;

	export(SKIP_TIMELINE_PERFETTO, &two, &c);
	cr_expect_eq(c.events, 2);
	cr_expect_eq(c.flows, 0);
	cr_expect_eq(count("X", "cuda_runtime"), 1);
	cJSON_Delete(doc);
	free(text);
	doc = NULL;
	text = NULL;
	export(SKIP_TIMELINE_KINETO, &three, &c);
	cr_expect_eq(c.events, 0);
	cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "traceEvents")), 0);
}

Test(export_timeline, bad_picks_say_what_exists)
{
	struct skip_export_pick run9 = {.run_id = 9}, none = {.region = "nope"},
				occ3 = {.region = "step \"one\", ü", .occurrence = 3};
	struct skip_export_sel sel;

	cr_expect_eq(skip_export_select(trace, &run9, &sel), SKIP_E_NOTFOUND);
	cr_expect_eq(skip_export_select(trace, &none, &sel), SKIP_E_NOTFOUND);
	cr_expect_not_null(strstr(skip_errmsg(), "'nope'"));
	cr_expect_eq(skip_export_select(trace, &occ3, &sel), SKIP_E_NOTFOUND);
	cr_expect_not_null(strstr(skip_errmsg(), "2 occurrences"), "%s", skip_errmsg());
	skip_export_sel_fini(&sel);
}

/* ---- CSV --------------------------------------------------------------------------------- */

static void csv_table(const char *table, const struct skip_export_pick *pick, int64_t *rows)
{
	struct skip_export_sel sel;
	FILE *f = open_memstream(&text, &len);

	cr_assert_eq(skip_export_select(trace, pick, &sel), 0);
	cr_assert_eq(skip_export_csv_table(trace, table, &sel, f, rows), 0, "%s", skip_errmsg());
	fclose(f);
	skip_export_sel_fini(&sel);
}

Test(export_timeline, csv_quotes_as_rfc4180_says)
{
	struct skip_export_pick pick = {0};
	int64_t rows;

	csv_table("StringIds", &pick, &rows);
	cr_expect_eq(rows, 9);
	cr_expect(!strncmp(text, "id,value\r\n", 10));
	cr_expect_not_null(strstr(text, "\r\n20,\"k\"\"quoted, with comma\"\r\n"));
	cr_expect_not_null(strstr(text, "\r\n21,\"kernel\nnewline ünïcødé ✓\"\r\n"));
	cr_expect_not_null(strstr(text, "\r\n10,kA\r\n"));
}

Test(export_timeline, csv_tables_follow_the_run_and_the_window)
{
	struct skip_export_pick run2 = {.run_id = 2},
				occ2 = {.region = "step \"one\", ü", .occurrence = 2};
	int64_t rows;

	csv_table("CUPTI_ACTIVITY_KIND_RUNTIME", &run2, &rows);
	cr_expect_eq(rows, 1);
	free(text);
	text = NULL; /* the teardown frees it */
	csv_table("CUPTI_ACTIVITY_KIND_KERNEL", &occ2, &rows);
	cr_expect_eq(rows, 1); /* kA [2500, 2600] */
	free(text);
	text = NULL;
	csv_table("StringIds", &occ2, &rows); /* no runId: every row */
	cr_expect_eq(rows, 9);
}

Test(export_timeline, csv_query_and_its_errors)
{
	FILE *f = open_memstream(&text, &len);
	int64_t rows;

	cr_assert_eq(skip_export_csv_query(trace,
					   "SELECT runId, count(*) AS n FROM "
					   "CUPTI_ACTIVITY_KIND_KERNEL GROUP BY runId;",
					   f, &rows),
		     0);
	fclose(f);
	cr_expect_eq(rows, 1);
	cr_expect_str_eq(text, "runId,n\r\n1,4\r\n");
	f = fopen("/dev/null", "w");
	cr_expect_eq(skip_export_csv_query(trace, "SELEKT 1", f, &rows), SKIP_E_INVAL);
	cr_expect_eq(skip_export_csv_query(trace, "SELECT 1; SELECT 2", f, &rows), SKIP_E_INVAL);
	cr_expect_eq(skip_export_csv_query(trace, "DELETE FROM StringIds", f, &rows), SKIP_E_INVAL);
	fclose(f);
}

Test(export_timeline, the_notebook_is_nbformat_4_with_its_parameters)
{
	struct skip_notebook_opts o = {"t \"x\".skip.db", 2, "step \"one\", ü", 1, "batch"};
	FILE *f = open_memstream(&text, &len);
	const cJSON *cells, *src;
	int code = 0;

	cr_assert_eq(skip_export_notebook(&o, f), 0);
	fclose(f);
	doc = cJSON_Parse(text);
	cr_assert_not_null(doc);
	cr_expect_eq(num(doc, "nbformat"), 4);
	cells = cJSON_GetObjectItem(doc, "cells");
	cr_expect_gt(cJSON_GetArraySize(cells), 10);
	src = cJSON_GetObjectItem(cJSON_GetArrayItem(cells, 1), "source");
	cr_expect_str_eq(cJSON_GetArrayItem(src, 1)->valuestring,
			 "TRACE = \"t \\\"x\\\".skip.db\"  # the trace, relative to this "
			 "notebook's folder\n");
	cr_expect_str_eq(cJSON_GetArrayItem(src, 2)->valuestring,
			 "RUN = 2  # the run the region cells show; None: the first\n");
	cJSON_ArrayForEach(src, cells)
	{
		code += !strcmp(cJSON_GetObjectItem(src, "cell_type")->valuestring, "code");
	}
	cr_expect_geq(code, 8);
}
