/*
 * test_nsys_sql.c: the nsys stats reports' SQL on skip traces gives skip report's answers.
 *
 * The queries are written here from what Nsight Systems' report scripts compute (the scripts
 * ship in nsys's Target-<arch>/reports; read: cuda_gpu_kern_sum.py, cuda_api_sum.py,
 * cuda_gpu_trace.py, cuda_gpu_mem_time_sum.py, cuda_gpu_mem_size_sum.py,
 * nvtx_startend_sum.py / nvtx_sum, cuda_kern_exec_trace.py, nsys 2024.x): the tables, columns,
 * joins and grouping they use, with sum/count/min/max standing for the statistics that nsys
 * registers as SQL functions (median, stdev). Each runs on one run of a committed H100 fixture
 * written to its own file by skip_store_export_run() (nsys's tables have no runId), and its
 * answer is checked against skip report's JSON (skip_report_json(), what `skip report --json
 * --run N` prints) for that run: kernel counts and total kernel time, per-kernel totals, the
 * kernel-to-launch join finding every launched kernel, memory operations, NVTX range
 * occurrences, and no row multiplied by a TARGET_INFO_GPU join.
 */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skip_analyzer.h"
#include "skip_common.h"
#include "unit/scratch.h"

static char dir[64];

static void setup(void)
{
	sk_scratch_make(dir, sizeof(dir), "skip-nsys");
}

static void teardown(void)
{
	sk_scratch_remove(dir);
}

TestSuite(nsys_sql, .init = setup, .fini = teardown, .timeout = 120);

/* cuda_gpu_kern_sum[:base]: kernels by name (shortName for :base; demangledName otherwise). */
#define KERN_SUM                                                                                   \
	"SELECT s.value AS name, sum(k.end - k.start) AS total, count(*) AS num, "                 \
	"min(k.end - k.start), max(k.end - k.start) FROM CUPTI_ACTIVITY_KIND_KERNEL AS k "         \
	"JOIN StringIds AS s ON s.id = k.%s GROUP BY 1 ORDER BY 2 DESC, 3, 1"

/* cuda_api_sum: every CUDA API call, grouped by nameId, named without the _vNNNN suffix. */
#define API_SUM                                                                                    \
	"WITH summary AS (SELECT nameId, sum(end - start) AS total, count(*) AS num FROM "         \
	"CUPTI_ACTIVITY_KIND_RUNTIME GROUP BY 1) SELECT CASE substr(ids.value, -6, 2) WHEN '_v' "  \
	"THEN substr(ids.value, 1, length(ids.value) - 6) ELSE ids.value END AS name, "            \
	"summary.total, summary.num FROM summary JOIN StringIds AS ids ON ids.id = summary.nameId"

/* cuda_gpu_trace: kernels, memcpys and memsets with the GPU's name, memory kinds and
 * greenContextId, through LEFT JOINs on TARGET_INFO_GPU and the ENUM_* tables. */
#define GPU_TRACE                                                                                  \
	"SELECT k.start, printf('%%s (%%d)', gpu.name, k.deviceId), NULLIF(k.greenContextId, 0) "  \
	"FROM CUPTI_ACTIVITY_KIND_KERNEL AS k LEFT JOIN TARGET_INFO_GPU AS gpu ON gpu.id = "       \
	"k.deviceId UNION ALL SELECT m.start, '[CUDA memcpy ' || op.label || ']' || src.label || " \
	"dst.label || printf('%%s (%%d)', gpu.name, m.deviceId), m.greenContextId FROM "           \
	"CUPTI_ACTIVITY_KIND_MEMCPY AS m LEFT JOIN ENUM_CUDA_MEMCPY_OPER AS op ON m.copyKind = "   \
	"op.id LEFT JOIN ENUM_CUDA_MEM_KIND AS src ON m.srcKind = src.id LEFT JOIN "               \
	"ENUM_CUDA_MEM_KIND AS dst ON m.dstKind = dst.id LEFT JOIN TARGET_INFO_GPU AS gpu ON "     \
	"m.deviceId = gpu.id UNION ALL SELECT s.start, mk.label || printf('%%s (%%d)', gpu.name, " \
	"s.deviceId), s.greenContextId FROM CUPTI_ACTIVITY_KIND_MEMSET AS s LEFT JOIN "            \
	"ENUM_CUDA_MEM_KIND AS mk ON s.memKind = mk.id LEFT JOIN TARGET_INFO_GPU AS gpu ON "       \
	"s.deviceId = gpu.id ORDER BY 1"

/* cuda_gpu_mem_time_sum (INNER JOIN on the copy kind) and cuda_gpu_mem_size_sum. */
#define MEM_SUM                                                                                    \
	"SELECT count(*), sum(bytes) FROM (SELECT '[CUDA memcpy ' || mos.label || ']' AS name, "   \
	"mcpy.bytes AS bytes FROM CUPTI_ACTIVITY_KIND_MEMCPY AS mcpy INNER JOIN "                  \
	"ENUM_CUDA_MEMCPY_OPER AS mos ON mos.id = mcpy.copyKind UNION ALL SELECT '[CUDA "          \
	"memset]', "                                                                               \
	"bytes FROM CUPTI_ACTIVITY_KIND_MEMSET)"

/* cuda_kern_exec_trace: each kernel joined to its launch call in the same process. */
#define KERN_EXEC                                                                                  \
	"SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL AS k JOIN CUPTI_ACTIVITY_KIND_RUNTIME "   \
	"AS "                                                                                      \
	"r ON k.correlationId = r.correlationId AND k.globalPid = (r.globalTid & "                 \
	"0xFFFFFFFFFF000000)"

/* nvtx_sum (start/end and push/pop ranges): domain names from eventType 75 rows of the same
 * process, text from textId or text, ranges never closed end at the last timestamp. */
#define NVTX_SUM                                                                                   \
	"WITH domains AS (SELECT min(ne.start), ne.domainId AS id, ne.globalTid AS globalTid, "    \
	"coalesce(sid.value, ne.text) AS name FROM NVTX_EVENTS AS ne LEFT JOIN StringIds AS sid "  \
	"ON ne.textId = sid.id WHERE ne.eventType = 75 GROUP BY 2, 3), maxts AS (SELECT "          \
	"max(max(start), max(end)) AS m FROM NVTX_EVENTS) SELECT coalesce(sid.value, ne.text, "    \
	"'') AS name, coalesce(d.name, '') AS domain, count(*), sum(coalesce(ne.end, (SELECT m "   \
	"FROM maxts)) - ne.start) FROM NVTX_EVENTS AS ne LEFT JOIN domains AS d ON ne.domainId = " \
	"d.id AND (ne.globalTid & 0x0000FFFFFF000000) = (d.globalTid & 0x0000FFFFFF000000) LEFT "  \
	"JOIN StringIds AS sid ON ne.textId = sid.id WHERE ne.eventType IN (59, 60) GROUP BY 1, 2"

static int64_t q(sqlite3 *db, const char *sql)
{
	return sk_db_int(db, -999, sql);
}

/* skip report --json --run @run [--region @region] on @fixture, parsed. */
static cJSON *report(const char *fixture, int64_t run, const char *region)
{
	struct skip_analysis_opts o = {.run_id = run, .region = region, .top_k = 100};
	struct skip_trace *t = NULL;
	struct skip_report *r = NULL;
	char *js;
	cJSON *doc;

	cr_assert_eq(skip_trace_open(fixture, &t), 0, "%s", skip_errmsg());
	cr_assert_eq(skip_analyze(t, &o, &r), 0, "%s", skip_errmsg());
	js = skip_report_json(r);
	doc = cJSON_Parse(js);
	cr_assert_not_null(doc);
	free(js);
	skip_report_free(r);
	skip_trace_close(t);
	return doc;
}

static double num(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItem(o, key);

	cr_assert(cJSON_IsNumber(v), "%s", key);
	return v->valuedouble;
}

/* Run @run of @fixture to its own file, opened read-only. */
static sqlite3 *one_run(const char *fixture, int64_t run)
{
	char out[256];
	sqlite3 *db = NULL;

	snprintf(out, sizeof(out), "%s/run%lld.skip.db", dir, (long long)run);
	cr_assert_eq(skip_store_export_run(fixture, run, out, 1), 0, "%s", skip_errmsg());
	cr_assert_eq(sqlite3_open_v2(out, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	return db;
}

/* Every top_kernels_by_time entry is the cuda_gpu_kern_sum:base row of its name. */
static void check_kernel_rows(sqlite3 *db, const cJSON *doc, const char *fixture)
{
	char sql[1024];
	const cJSON *e;
	int seen = 0;

	snprintf(sql, sizeof(sql), KERN_SUM, "shortName");
	cJSON_ArrayForEach(e, cJSON_GetObjectItem(doc, "top_kernels_by_time"))
	{
		sqlite3_stmt *st = NULL;
		const char *name = cJSON_GetObjectItem(e, "name")->valuestring;
		int found = 0;

		cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK, "%s",
			     sqlite3_errmsg(db));
		while (sqlite3_step(st) == SQLITE_ROW)
			if (!strcmp((const char *)sqlite3_column_text(st, 0), name)) {
				found = 1;
				cr_expect_eq(sqlite3_column_int64(st, 1),
					     (int64_t)num(e, "total_ns"), "%s %s total", fixture,
					     name);
				cr_expect_eq(sqlite3_column_int64(st, 2),
					     (int64_t)num(e, "kernels"), "%s %s instances", fixture,
					     name);
				cr_expect_eq(sqlite3_column_int64(st, 3),
					     (int64_t)num(e, "min_ns"));
				cr_expect_eq(sqlite3_column_int64(st, 4),
					     (int64_t)num(e, "max_ns"));
			}
		sqlite3_finalize(st);
		cr_expect(found, "%s: %s in cuda_gpu_kern_sum:base", fixture, name);
		seen++;
	}
	cr_expect_eq(seen, (int)num(doc, "distinct_kernels"), "%s: every kernel name compared",
		     fixture);
}

/* The reports on run @run of @fixture against skip report's answers for it. */
static void check_run(const char *fixture, int64_t run)
{
	cJSON *doc = report(fixture, run, NULL);
	const cJSON *reg = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "regions"), 0);
	sqlite3 *db = one_run(fixture, run);
	char sql[2048];
	int64_t kernels = (int64_t)num(reg, "kernels");
	int64_t ops = kernels + (int64_t)num(reg, "memcpys") + (int64_t)num(reg, "memsets");

	cr_assert_not_null(reg);
	snprintf(sql, sizeof(sql), "SELECT coalesce(sum(num), 0) FROM (" KERN_SUM ")",
		 "demangledName");
	cr_expect_eq(q(db, sql), kernels, "%s run %lld: cuda_gpu_kern_sum instances", fixture,
		     (long long)run);
	snprintf(sql, sizeof(sql), "SELECT coalesce(sum(total), 0) FROM (" KERN_SUM ")",
		 "demangledName");
	cr_expect_eq(q(db, sql), (int64_t)num(reg, "kernel_ns"),
		     "%s run %lld: cuda_gpu_kern_sum total time", fixture, (long long)run);
	check_kernel_rows(db, doc, fixture);
	cr_expect_eq(q(db, KERN_EXEC), (int64_t)num(reg, "launched_kernels"),
		     "%s run %lld: the kernel-to-launch join", fixture, (long long)run);
	cr_expect_eq(num(reg, "kernels_without_launch_call"), 0);
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM (" GPU_TRACE ")");
	cr_expect_eq(q(db, sql), ops, "%s run %lld: cuda_gpu_trace rows, none multiplied", fixture,
		     (long long)run);
	cr_expect_eq(q(db, "SELECT count(*) FROM (" MEM_SUM ")"), 1);
	cr_expect_eq(q(db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY m LEFT JOIN "
			   "ENUM_CUDA_MEMCPY_OPER o ON o.id = m.copyKind WHERE o.label IS NULL"),
		     0, "every copy kind has its label");
	{
		sqlite3_stmt *st = NULL;

		cr_assert_eq(sqlite3_prepare_v2(db, MEM_SUM, -1, &st, NULL), SQLITE_OK, "%s",
			     sqlite3_errmsg(db));
		cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
		cr_expect_eq(sqlite3_column_int64(st, 0), ops - kernels,
			     "%s run %lld: memory operations", fixture, (long long)run);
		sqlite3_finalize(st);
	}
	/* cuda_api_sum: every call of the run, the driver's launches among them. */
	snprintf(sql, sizeof(sql), "SELECT sum(num) FROM (" API_SUM ")");
	cr_expect_eq(q(db, sql), q(db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME"));
	snprintf(sql, sizeof(sql),
		 "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN "
		 "CUPTI_ACTIVITY_KIND_RUNTIME r ON k.correlationId = r.correlationId AND "
		 "k.globalPid = (r.globalTid & 0xFFFFFFFFFF000000) WHERE r.eventClass = 1");
	if (q(db, sql) > 0)
		cr_expect_eq(q(db, "SELECT count(*) FROM (" API_SUM ") WHERE name = "
				   "'cuLaunchKernel'"),
			     1, "%s: cuda_api_sum lists the driver's launches", fixture);
	sqlite3_close(db);
	cJSON_Delete(doc);
}

Test(nsys_sql, torch_mlp)
{
	check_run("tests/fixtures/h100_torch_mlp.skip.db", 1);
}

Test(nsys_sql, cublas)
{
	check_run("tests/fixtures/h100_cublas.skip.db", 1);
}

Test(nsys_sql, memops)
{
	check_run("tests/fixtures/h100_memops.skip.db", 1);
}

Test(nsys_sql, nvtx_threads)
{
	check_run("tests/fixtures/h100_nvtx_threads.skip.db", 1);
}

Test(nsys_sql, llama1b_sweep_run_by_run)
{
	for (int64_t run = 1; run <= 24; run += 23)
		check_run("tests/fixtures/llama1b_sweep.skip.db", run);
}

/* nvtx_sum's instances of each range are skip report --region's occurrences of it. */
Test(nsys_sql, nvtx_sum_counts_the_regions_skip_report_finds)
{
	const char *f = "tests/fixtures/h100_nvtx_threads.skip.db";
	sqlite3 *db = one_run(f, 1);
	sqlite3_stmt *st = NULL;
	int rows = 0;

	cr_assert_eq(sqlite3_prepare_v2(db, NVTX_SUM, -1, &st, NULL), SQLITE_OK, "%s",
		     sqlite3_errmsg(db));
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		cJSON *doc = report(f, 1, name);
		int n = cJSON_GetArraySize(cJSON_GetObjectItem(doc, "regions"));

		cr_expect_eq(sqlite3_column_int64(st, 2), n + (int64_t)num(doc, "empty_regions"),
			     "%s: instances", name);
		if (!strcmp(name, "dom-range"))
			cr_expect_str_eq((const char *)sqlite3_column_text(st, 1), "skip-test",
					 "the range's domain, from its eventType 75 row");
		cJSON_Delete(doc);
		rows++;
	}
	sqlite3_finalize(st);
	cr_expect_eq(rows, 5, "inner, outer-0, outer-1, cross, dom-range");
	sqlite3_close(db);
}

/* On the whole sweep (not one run), nsys SQL sums over every run: the reason for
 * skip_store_export_run(). The join on TARGET_INFO_GPU still multiplies nothing. */
Test(nsys_sql, on_a_whole_sweep_the_reports_sum_over_runs)
{
	char p[256], sql[2048];
	sqlite3 *db = NULL;

	snprintf(p, sizeof(p), "cp tests/fixtures/llama1b_sweep.skip.db %s/all.skip.db", dir);
	cr_assert_eq(system(p), 0);
	snprintf(p, sizeof(p), "%s/all.skip.db", dir);
	cr_assert_eq(skip_store_open(p, 0, &db), 0, "%s", skip_errmsg()); /* migrates it */
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM (" GPU_TRACE ")");
	cr_expect_eq(q(db, sql),
		     q(db, "SELECT (SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL) + (SELECT "
			   "count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY) + (SELECT count(*) FROM "
			   "CUPTI_ACTIVITY_KIND_MEMSET)"));
	cr_expect_eq(q(db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"), 61152);
	cr_expect_eq(q(db, KERN_EXEC), 61152, "every kernel finds its launch call");
	sqlite3_close(db);
}

/* skip report on a version 1 fixture as it is (read-only: the readers take every version) and
 * on a migrated copy of it: the same JSON, but for the file name. */
static char *report_text(const char *path)
{
	cJSON *doc = report(path, 0, NULL);
	char *s;

	cJSON_DeleteItemFromObject(doc, "file");
	s = cJSON_PrintUnformatted(doc);
	cJSON_Delete(doc);
	return s;
}

Test(nsys_sql, every_fixture_reports_the_same_before_and_after_migration)
{
	static const char *const names[] = {
	    "h100_torch_mlp", "h100_cublas",	  "h100_memops",       "h100_nvtx_threads",
	    "h100_graph",     "h100_two_streams", "h100_launch_chain", "llama1b_sweep",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char src[256], dst[256], cmd[600];
		char *before, *after;
		sqlite3 *db = NULL;

		snprintf(src, sizeof(src), "tests/fixtures/%s.skip.db", names[i]);
		snprintf(dst, sizeof(dst), "%s/%s.skip.db", dir, names[i]);
		snprintf(cmd, sizeof(cmd), "cp %s %s", src, dst);
		cr_assert_eq(system(cmd), 0);
		cr_assert_eq(skip_store_open(dst, 0, &db), 0, "%s", skip_errmsg());
		cr_expect_eq(sk_db_int(db, -1, "PRAGMA user_version"), SKIP_SCHEMA_VERSION);
		sqlite3_close(db);
		before = report_text(src);
		after = report_text(dst);
		cr_expect_str_eq(after, before, "%s", names[i]);
		free(before);
		free(after);
	}
}
