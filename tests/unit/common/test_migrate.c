/*
 * test_migrate.c: schema version 1 files (the committed H100 fixtures, and hand-built ones from
 * tests/fixtures/hand/schema_v1.sql) migrated in place to version 2, all or nothing; and
 * skip_store_export_run(), one run of a trace of either version to a file of its own.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "skip_common.h"
#include "unit/scratch.h"

static char dir[64];

static void setup(void)
{
	sk_scratch_make(dir, sizeof(dir), "skip-migrate");
}

static void teardown(void)
{
	sk_scratch_remove(dir);
}

TestSuite(common_migrate, .init = setup, .fini = teardown);

static char *path(const char *name)
{
	static char buf[4][256];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", dir, name);
	return buf[i];
}

/* A copy of the committed fixture @name in the test's directory. */
static char *copy_fixture(const char *name)
{
	char *dst = path(name), cmd[512];

	snprintf(cmd, sizeof(cmd), "cp tests/fixtures/%s %s", name, dst);
	cr_assert_eq(system(cmd), 0);
	return dst;
}

static int64_t q(sqlite3 *db, const char *sql)
{
	return sk_db_int(db, -999, sql);
}

static sqlite3 *open_ro(const char *p)
{
	sqlite3 *db = NULL;

	cr_assert_eq(skip_store_open(p, SKIP_STORE_READONLY, &db), 0, "%s", skip_errmsg());
	return db;
}

Test(common_migrate, a_read_only_open_leaves_a_version_1_file_as_it_is)
{
	sqlite3 *db = open_ro(copy_fixture("h100_cublas.skip.db"));

	cr_expect_eq(q(db, "PRAGMA user_version"), 1);
	cr_expect_eq(sk_db_has_table(db, "CUPTI_ACTIVITY_KIND_DRIVER"), 1);
	sqlite3_close(db);
}

Test(common_migrate, the_driver_calls_join_the_runtime_table_and_nothing_is_lost)
{
	char *p = copy_fixture("h100_cublas.skip.db");
	sqlite3 *db = open_ro(p);
	int64_t rt = q(db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME");
	int64_t drv = q(db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_DRIVER");
	int64_t k = q(db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL");
	int64_t gpus = q(db, "SELECT count(*) FROM TARGET_INFO_GPU");
	struct skip_store_summary before, after;

	cr_assert_eq(skip_store_summarize(db, &before), 0);
	sqlite3_close(db);
	cr_assert_gt(drv, 0, "the fixture has driver calls (cuBLAS launches with cuLaunchKernel)");
	cr_assert_eq(skip_store_open(p, 0, &db), 0, "%s", skip_errmsg());
	cr_expect_eq(q(db, "PRAGMA user_version"), SKIP_SCHEMA_VERSION);
	cr_expect_eq(sk_db_has_table(db, "CUPTI_ACTIVITY_KIND_DRIVER"), 0);
	cr_expect_eq(q(db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME"), rt + drv);
	cr_expect_eq(q(db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE eventClass = 1"),
		     drv);
	cr_expect_eq(q(db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"), k);
	cr_expect_eq(q(db, "SELECT count(*) FROM SKIP_GPUS"), gpus);
	cr_expect_eq(q(db, "SELECT count(*) FROM TARGET_INFO_GPU"), 1);
	cr_expect_eq(q(db, "SELECT count(*) FROM pragma_table_info('CUPTI_ACTIVITY_KIND_KERNEL') "
			   "WHERE name = 'greenContextId'"),
		     1);
	cr_expect_eq(q(db, "SELECT count(*) FROM ENUM_CUDA_MEMCPY_OPER"), 14);
	cr_expect_eq(q(db, "SELECT utcEpochNs = (SELECT min(startUtcNs) FROM SKIP_RUNS) FROM "
			   "TARGET_INFO_SESSION_START_TIME"),
		     1);
	cr_expect_eq(q(db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k WHERE NOT EXISTS "
			   "(SELECT 1 FROM CUPTI_ACTIVITY_KIND_RUNTIME r WHERE r.correlationId = "
			   "k.correlationId AND k.globalPid = (r.globalTid & 0xFFFFFFFFFF000000))"),
		     0, "nsys's kernel-to-call join finds every kernel's call");
	cr_assert_eq(skip_store_summarize(db, &after), 0);
	cr_expect_eq(after.runtime_calls, before.runtime_calls);
	cr_expect_eq(after.driver_calls, before.driver_calls);
	cr_expect_eq(after.driver_calls, drv);
	cr_expect_eq(after.span_ns, before.span_ns);
	cr_expect_str_eq(after.gpu, before.gpu);
	sqlite3_close(db);
}

Test(common_migrate, a_sweep_keeps_its_runs_in_rowid_order_and_one_gpu_row)
{
	char *p = copy_fixture("llama1b_sweep.skip.db");
	sqlite3 *db = NULL;

	cr_assert_eq(skip_store_open(p, 0, &db), 0, "%s", skip_errmsg());
	cr_expect_eq(q(db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME a JOIN "
			   "CUPTI_ACTIVITY_KIND_RUNTIME b ON b.rowid = a.rowid + 1 WHERE b.runId < "
			   "a.runId"),
		     0, "the analyzer's binary search over rowids needs runIds in order");
	cr_expect_eq(q(db, "SELECT count(*) FROM SKIP_GPUS"), 24);
	cr_expect_eq(q(db, "SELECT count(*) FROM TARGET_INFO_GPU"), 1);
	cr_expect_eq(q(db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN TARGET_INFO_GPU "
			   "g ON g.id = k.deviceId"),
		     61152, "a join on the device id does not multiply kernels");
	sqlite3_close(db);
}

/* A version 1 file from hand: schema_v1.sql, one run with one runtime and one driver call. */
static char *hand_v1(const char *name, const char *more)
{
	char *p = path(name);
	sqlite3 *db = NULL;
	FILE *f = fopen("tests/fixtures/hand/schema_v1.sql", "rb");
	char *sql;
	long n;

	cr_assert_not_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	sql = calloc(1, (size_t)n + 1);
	cr_assert_eq(fread(sql, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	cr_assert_eq(sqlite3_open(p, &db), SQLITE_OK);
	cr_assert_eq(skip_store_exec(db, sql), 0, "%s", skip_errmsg());
	cr_assert_eq(
	    skip_store_exec(
		db,
		"PRAGMA user_version = 1;"
		"INSERT INTO SKIP_RUNS(runId, commandLine, status, startUtcNs) VALUES "
		"(1, 'app', 'ok', 5000), (2, 'app', 'ok', 7000);"
		"INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel_v7000'), "
		"(2, 'cuLaunchKernel'), (3, 'k');"
		"INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES "
		"(1, 10, 20, 0, 16777216, 1, 1, 0, 211), (2, 10, 20, 0, 16777216, 1, 1, 0, 211);"
		"INSERT INTO CUPTI_ACTIVITY_KIND_DRIVER VALUES "
		"(1, 30, 40, 1, 16777216, 2, 2, 0, 307), (2, 5, 8, 1, 16777216, 2, 2, 0, 307);"
		"INSERT INTO TARGET_INFO_GPU(runId, globalPid, id, name) VALUES "
		"(1, 16777216, 0, 'G'), (2, 16777216, 0, 'G');"),
	    0, "%s", skip_errmsg());
	if (more)
		cr_assert_eq(skip_store_exec(db, more), 0, "%s", skip_errmsg());
	sqlite3_close(db);
	free(sql);
	return p;
}

static char *slurp(const char *p, long *n)
{
	FILE *f = fopen(p, "rb");
	char *buf;

	cr_assert_not_null(f);
	fseek(f, 0, SEEK_END);
	*n = ftell(f);
	rewind(f);
	buf = malloc((size_t)*n + 1);
	cr_assert_eq(fread(buf, 1, (size_t)*n, f), (size_t)*n);
	fclose(f);
	return buf;
}

Test(common_migrate, hand_built_calls_are_ordered_by_run_then_start)
{
	char *p = hand_v1("v1.skip.db", NULL);
	sqlite3 *db = NULL;

	cr_assert_eq(skip_store_open(p, 0, &db), 0, "%s", skip_errmsg());
	/* Run 2's driver call starts first (5 ns): it comes first of run 2, after run 1's two. */
	{
		sqlite3_stmt *st = NULL;

		cr_assert_eq(
		    sqlite3_prepare_v2(db,
				       "SELECT group_concat(runId || ':' || start || ':' || "
				       "eventClass, ' ') FROM (SELECT * FROM "
				       "CUPTI_ACTIVITY_KIND_RUNTIME ORDER BY rowid)",
				       -1, &st, NULL),
		    SQLITE_OK);
		cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
		cr_expect_str_eq((const char *)sqlite3_column_text(st, 0),
				 "1:10:0 1:30:1 2:5:1 2:10:0");
		sqlite3_finalize(st);
	}
	cr_expect_eq(q(db, "SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME"), 5000);
	cr_expect_eq(q(db, "SELECT count(*) FROM TARGET_INFO_GPU"), 1);
	sqlite3_close(db);
}

Test(common_migrate, a_failed_migration_leaves_the_file_byte_for_byte_as_it_was)
{
	/* A damaged version 1 file: its driver table lacks the cbid column, so the copy fails
	 * after the tables were renamed and created. */
	char *p = hand_v1("bad.skip.db", "CREATE TABLE d2 AS SELECT runId, start, end, eventClass, "
					 "globalTid, correlationId, nameId, returnValue FROM "
					 "CUPTI_ACTIVITY_KIND_DRIVER;"
					 "DROP TABLE CUPTI_ACTIVITY_KIND_DRIVER;"
					 "ALTER TABLE d2 RENAME TO CUPTI_ACTIVITY_KIND_DRIVER;");
	long n0, n1;
	char *before = slurp(p, &n0), *after;
	sqlite3 *db = NULL;

	cr_expect_lt(skip_store_open(p, 0, &db), 0);
	cr_expect_null(db);
	cr_expect(strstr(skip_errmsg(), "from schema 1 to 3"), "%s", skip_errmsg());
	after = slurp(p, &n1);
	cr_expect_eq(n1, n0);
	cr_expect(n1 == n0 && memcmp(before, after, (size_t)n0) == 0, "file unchanged");
	db = open_ro(p);
	cr_expect_eq(q(db, "PRAGMA user_version"), 1);
	sqlite3_close(db);
	free(before);
	free(after);
}

/* ---- skip_store_export_run --------------------------------------------------------------- */

Test(common_migrate, one_run_of_a_version_1_sweep_goes_to_a_file_of_its_own)
{
	sqlite3 *src = open_ro("tests/fixtures/llama1b_sweep.skip.db"), *db;
	int64_t k = q(src, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE runId = 3");
	int64_t api = q(src, "SELECT (SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE "
			     "runId = 3) + (SELECT count(*) FROM CUPTI_ACTIVITY_KIND_DRIVER WHERE "
			     "runId = 3)");
	int64_t mc = q(src, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE runId = 3");

	sqlite3_close(src);
	cr_assert_gt(k, 0);
	cr_assert_eq(
	    skip_store_export_run("tests/fixtures/llama1b_sweep.skip.db", 3, path("r3.skip.db"), 0),
	    0, "%s", skip_errmsg());
	db = open_ro(path("r3.skip.db"));
	cr_expect_eq(q(db, "PRAGMA user_version"), SKIP_SCHEMA_VERSION);
	cr_expect_eq(q(db, "SELECT count(*) FROM SKIP_RUNS"), 1);
	cr_expect_eq(q(db, "SELECT runId FROM SKIP_RUNS"), 3);
	cr_expect_eq(q(db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"), k);
	cr_expect_eq(q(db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME"), api);
	cr_expect_eq(q(db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY"), mc);
	cr_expect_eq(q(db, "SELECT count(*) FROM SKIP_PARAMETERS"), 1, "the run's sweep value");
	cr_expect_eq(q(db, "SELECT count(*) FROM TARGET_INFO_GPU"), 1);
	cr_expect_eq(q(db, "SELECT count(*) FROM SKIP_METADATA WHERE runId = 0"), 3,
		     "the recording-wide rows come along");
	cr_expect_eq(q(db, "SELECT count(*) FROM SKIP_METADATA WHERE runId NOT IN (0, 3)"), 0);
	sqlite3_close(db);
}

Test(common_migrate, a_version_2_file_exports_the_same_run)
{
	char *p = hand_v1("v1.skip.db", NULL);
	sqlite3 *db = NULL;

	cr_assert_eq(skip_store_open(p, 0, &db), 0, "%s", skip_errmsg());
	sqlite3_close(db);
	cr_assert_eq(skip_store_export_run(p, 2, path("r2.skip.db"), 0), 0, "%s", skip_errmsg());
	db = open_ro(path("r2.skip.db"));
	cr_expect_eq(q(db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE runId = 2"), 2);
	cr_expect_eq(q(db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME"), 2);
	cr_expect_eq(q(db, "SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME"), 7000,
		     "the run's own start");
	sqlite3_close(db);
}

Test(common_migrate, a_missing_run_or_an_input_as_output_writes_nothing)
{
	char *p = strdup(hand_v1("v1.skip.db", NULL)); /* path()'s buffers are reused */

	cr_expect_eq(skip_store_export_run(p, 9, path("r9.skip.db"), 0), SKIP_E_NOTFOUND);
	cr_expect(strstr(skip_errmsg(), "no run 9 (runs 1 to 2)"), "%s", skip_errmsg());
	cr_expect_neq(access(path("r9.skip.db"), F_OK), 0);
	cr_expect_eq(skip_store_export_run(p, 1, p, 1), SKIP_E_INVAL, "never over its input");
	cr_expect_eq(skip_store_export_run(p, 1, path("r1.skip.db"), 0), 0, "%s", skip_errmsg());
	cr_expect_eq(skip_store_export_run(p, 1, path("r1.skip.db"), 0), SKIP_E_EXISTS);
	cr_expect_eq(skip_store_export_run(p, 1, path("r1.skip.db"), 1), 0, "%s", skip_errmsg());
	free(p);
}

/* A version 2 file: a current one without SKIP_RUNS.kind, its user_version set back. */
static char *hand_v2(const char *name)
{
	char *p = path(name);
	sqlite3 *db = NULL;

	cr_assert_eq(skip_store_create(p, SKIP_STORE_OVERWRITE, &db), 0, "%s", skip_errmsg());
	cr_assert_eq(skip_store_exec(db, "INSERT INTO SKIP_RUNS(runId, commandLine, status) "
					 "VALUES (1, 'app', 'ok'), (2, 'app', 'ok');"
					 "ALTER TABLE SKIP_RUNS DROP COLUMN kind;"
					 "PRAGMA user_version = 2;"),
		     0, "%s", skip_errmsg());
	sqlite3_close(db);
	return p;
}

Test(common_migrate, a_version_2_file_gets_the_run_kind_column_and_every_run_is_full)
{
	char *p = hand_v2("v2.skip.db");
	sqlite3 *db = open_ro(p);
	struct skip_store_summary s;

	cr_expect_eq(q(db, "PRAGMA user_version"), 2);
	cr_expect_eq(sk_db_has_column(db, "SKIP_RUNS", "kind"), 0);
	cr_assert_eq(skip_store_summarize(db, &s), 0);
	cr_expect_eq(s.runs, 2);
	cr_expect_eq(s.baseline_runs, 0, "no kind column: no baseline run");
	sqlite3_close(db);
	cr_assert_eq(skip_store_open(p, 0, &db), 0, "%s", skip_errmsg());
	cr_expect_eq(q(db, "PRAGMA user_version"), 3);
	cr_expect_eq(sk_db_has_column(db, "SKIP_RUNS", "kind"), 1);
	cr_expect_eq(q(db, "SELECT count(*) FROM SKIP_RUNS WHERE kind = 'full'"), 2);
	sqlite3_close(db);
}
