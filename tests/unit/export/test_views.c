/*
 * test_views.c: the timeline writers on both trace schema versions (views.c). A committed
 * version 1 fixture and a copy migrated in place to version 2 (skip_store_open() for writing,
 * as the migration tests do) give the same Perfetto and Kineto documents byte for byte, with
 * the driver calls as cuda_driver and one GPU; a hand-built version 2 trace with a driver call
 * (tests/fixtures/hand/export_driver.sql, its counts in its header) gets it once, as a driver
 * call, with its arrow.
 */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hand.h"
#include "skip_export.h"
#include "unit/scratch.h"

static char dir[] = "/tmp/skip-export-v-XXXXXX";

static void setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void)
{
	sk_scratch_remove(dir);
}

TestSuite(export_views, .init = setup, .fini = teardown);

/* The timeline of @pick of the trace at @path (or @t when not NULL), malloc'ed. */
static char *timeline(const char *path, struct skip_trace *t, enum skip_timeline_format fmt,
		      const struct skip_export_pick *pick, struct skip_export_counts *c)
{
	struct skip_trace *own = NULL;
	struct skip_export_sel sel;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!t) {
		cr_assert_eq(skip_trace_open(path, &own), 0, "%s", skip_errmsg());
		t = own;
	}
	cr_assert_eq(skip_export_select(t, pick, &sel), 0, "%s", skip_errmsg());
	cr_assert_eq(skip_export_timeline(t, "t.skip.db", &sel, fmt, f, c), 0, "%s", skip_errmsg());
	fclose(f);
	skip_export_sel_fini(&sel);
	skip_trace_close(own);
	return text;
}

/* Events of phase "X" and category @cat in the JSON @text. */
static int count_cat(const char *text, const char *cat)
{
	cJSON *doc = cJSON_Parse(text);
	const cJSON *e;
	int n = 0;

	cr_assert_not_null(doc);
	cJSON_ArrayForEach(e, cJSON_GetObjectItem(doc, "traceEvents"))
	{
		n += !strcmp(cJSON_GetObjectItem(e, "ph")->valuestring, "X") &&
		     !strcmp(cJSON_GetObjectItem(e, "cat")->valuestring, cat);
	}
	cJSON_Delete(doc);
	return n;
}

/* The number of GPUs in the document's skip metadata ("otherData" or Kineto's "skip"). */
static int gpus(const char *text, const char *member)
{
	cJSON *doc = cJSON_Parse(text);
	int n = cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, member), "gpus"));

	cJSON_Delete(doc);
	return n;
}

static void copy(const char *fixture, const char *dst)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "cp tests/fixtures/%s %s", fixture, dst);
	cr_assert_eq(system(cmd), 0);
}

/* @fixture as it is (version 1) and migrated (version 2): the same document for @fmt. */
static void same_on_both(const char *fixture, int64_t run, enum skip_timeline_format fmt,
			 int64_t drivers)
{
	struct skip_export_pick pick = {.run_id = run};
	struct skip_export_counts c1, c2;
	char v1[300], v2[300], *t1, *t2;
	sqlite3 *db = NULL;

	snprintf(v1, sizeof(v1), "%s/v1.skip.db", dir);
	snprintf(v2, sizeof(v2), "%s/v2.skip.db", dir);
	copy(fixture, v1);
	copy(fixture, v2);
	cr_assert_eq(skip_store_open(v2, 0, &db), 0, "%s", skip_errmsg()); /* migrates */
	cr_assert_eq(sk_db_int(db, 0, "PRAGMA user_version"), SKIP_SCHEMA_VERSION);
	cr_assert_eq(sk_db_has_table(db, "CUPTI_ACTIVITY_KIND_DRIVER"), 0);
	sqlite3_close(db);
	t1 = timeline(v1, NULL, fmt, &pick, &c1);
	t2 = timeline(v2, NULL, fmt, &pick, &c2);
	cr_expect_eq(c1.events, c2.events);
	cr_expect_eq(c1.flows, c2.flows);
	cr_expect_eq(count_cat(t1, "cuda_driver"), drivers);
	cr_expect_eq(count_cat(t2, "cuda_driver"), drivers);
	cr_expect_eq(gpus(t1, fmt == SKIP_TIMELINE_KINETO ? "skip" : "otherData"), 1);
	cr_expect_eq(gpus(t2, fmt == SKIP_TIMELINE_KINETO ? "skip" : "otherData"), 1);
	cr_expect(!strcmp(t1, t2), "%s: version 1 and 2 documents differ", fixture);
	free(t1);
	free(t2);
}

/* h100_torch_mlp: one run, 593 runtime and 92 driver calls (sqlite3 on the fixture). */
Test(export_views, a_version_1_trace_and_its_migration_give_the_same_perfetto)
{
	same_on_both("h100_torch_mlp.skip.db", 0, SKIP_TIMELINE_PERFETTO, 92);
}

Test(export_views, a_version_1_trace_and_its_migration_give_the_same_kineto)
{
	same_on_both("h100_torch_mlp.skip.db", 0, SKIP_TIMELINE_KINETO, 92);
}

/* gpt2_sweep: 24 runs, each with its own GPU row in version 1; run 3 alone. */
Test(export_views, one_run_of_a_sweep_has_one_gpu_on_both_versions, .timeout = 60)
{
	struct skip_trace *t = NULL;
	char path[300];
	int64_t drivers;

	snprintf(path, sizeof(path), "%s/s.skip.db", dir);
	copy("gpt2_sweep.skip.db", path);
	cr_assert_eq(skip_trace_open(path, &t), 0);
	drivers = sk_db_int(skip_trace_db(t), -1,
			    "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_DRIVER WHERE runId = 3");
	skip_trace_close(t);
	cr_assert_gt(drivers, 0);
	same_on_both("gpt2_sweep.skip.db", 3, SKIP_TIMELINE_KINETO, drivers);
}

Test(export_views, a_version_2_driver_call_is_one_cuda_driver_event_with_its_arrow)
{
	struct skip_trace *t = hand_trace_more(dir, "export", "export_driver");
	struct skip_export_pick all = {0};
	struct skip_export_counts c;
	char *text;

	for (int f = SKIP_TIMELINE_PERFETTO; f <= SKIP_TIMELINE_KINETO; f++) {
		text = timeline(NULL, t, (enum skip_timeline_format)f, &all, &c);
		cr_expect_eq(c.events, 17);
		cr_expect_eq(c.flows, 5);
		cr_expect_eq(count_cat(text, "cuda_driver"), 1);
		cr_expect_eq(count_cat(text, "cuda_runtime"), 6);
		cr_expect_eq(count_cat(text, "kernel"), 5);
		cr_expect_eq(gpus(text, f == SKIP_TIMELINE_KINETO ? "skip" : "otherData"), 1);
		cr_expect_not_null(
		    strstr(text, "\"cat\":\"cuda_driver\",\"name\":\"cuLaunchKernel\""));
		free(text);
	}
	skip_trace_close(t);
}
