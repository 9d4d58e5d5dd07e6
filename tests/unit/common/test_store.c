/*
 * test_store.c: the trace store: schema creation and versioning, every way opening a file can
 * fail (each with its own code and a message), merging per-process files (string ids remapped,
 * all-or-nothing), finalizing, summaries; and the --trace list.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "skip_common.h"
#include "unit/scratch.h"

static char dir[64];

static void setup(void)
{
	sk_scratch_make(dir, sizeof(dir), "skip-store");
}

static void teardown(void)
{
	sk_scratch_remove(dir);
}

TestSuite(common_store, .init = setup, .fini = teardown);

static char *path(const char *name)
{
	static char buf[4][256];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", dir, name);
	return buf[i];
}

static void write_file(const char *p, const void *data, size_t n)
{
	FILE *f = fopen(p, "wb");

	cr_assert_not_null(f);
	cr_assert_eq(fwrite(data, 1, n, f), n);
	fclose(f);
}

static sqlite3 *create(const char *name)
{
	sqlite3 *db = NULL;

	cr_assert_eq(skip_store_create(path(name), 0, &db), 0, "%s", skip_errmsg());
	return db;
}

static void exec(sqlite3 *db, const char *sql)
{
	cr_assert_eq(skip_store_exec(db, sql), 0, "%s: %s", sql, skip_errmsg());
}

Test(common_store, create_writes_the_schema_and_its_version)
{
	sqlite3 *db = create("a.skip.db");

	cr_expect_eq(sk_db_int(db, -1, "PRAGMA user_version"), SKIP_SCHEMA_VERSION);
	cr_expect_eq(
	    sk_db_int(db, -1,
		      "SELECT count(*) FROM sqlite_master WHERE type = 'table' "
		      "AND name IN ('StringIds', 'CUPTI_ACTIVITY_KIND_KERNEL', "
		      "'CUPTI_ACTIVITY_KIND_RUNTIME', 'SKIP_GPUS', "
		      "'CUPTI_ACTIVITY_KIND_MEMCPY', 'CUPTI_ACTIVITY_KIND_MEMSET', "
		      "'CUPTI_ACTIVITY_KIND_SYNCHRONIZATION', 'NVTX_EVENTS', "
		      "'TARGET_INFO_GPU', 'ThreadNames', 'SKIP_RUNS', "
		      "'SKIP_METADATA', 'SKIP_DROPS', 'SKIP_CLOCK_ANCHORS', "
		      "'ENUM_CUDA_MEMCPY_OPER', 'ENUM_CUDA_MEM_KIND', 'ENUM_CUPTI_SYNC_TYPE', "
		      "'ENUM_NSYS_EVENT_TYPE', 'ENUM_NSYS_EVENT_CLASS', 'META_DATA_EXPORT', "
		      "'TARGET_INFO_SESSION_START_TIME')"),
	    21);
	cr_expect_eq(sk_db_int(db, -1,
			       "SELECT count(*) FROM sqlite_master WHERE name = "
			       "'CUPTI_ACTIVITY_KIND_DRIVER'"),
		     0, "driver calls share the runtime table, as in nsys");
	cr_expect_eq(sk_db_int(db, -1,
			       "SELECT count(*) FROM META_DATA_EXPORT WHERE "
			       "name = 'EXPORT_PRODUCT_VERSION' AND value = 'skip " SKIP_VERSION
			       "'"),
		     1);
	cr_expect_eq(sk_db_int(db, -1,
			       "SELECT count(*) FROM pragma_table_info("
			       "'CUPTI_ACTIVITY_KIND_KERNEL') WHERE name = 'runId'"),
		     1, "every event table carries runId");
	sqlite3_close(db);
}

Test(common_store, create_refuses_an_existing_file_unless_told_to_overwrite)
{
	sqlite3 *db = create("a.skip.db");

	sqlite3_close(db);
	cr_expect_eq(skip_store_create(path("a.skip.db"), 0, &db), SKIP_E_EXISTS);
	cr_expect_null(db);
	cr_expect(strstr(skip_errmsg(), "exists"));
	cr_expect_eq(skip_store_create(path("a.skip.db"), SKIP_STORE_OVERWRITE, &db), 0);
	sqlite3_close(db);
}

Test(common_store, open_accepts_a_trace)
{
	sqlite3 *db = create("a.skip.db");

	sqlite3_close(db);
	cr_expect_eq(skip_store_open(path("a.skip.db"), SKIP_STORE_READONLY, &db), 0, "%s",
		     skip_errmsg());
	sqlite3_close(db);
}

Test(common_store, open_says_which_way_a_file_is_wrong)
{
	static const char text[] = "this is not a database, just text that is long enough to "
				   "fill an SQLite header of one hundred bytes, and then some.";
	sqlite3 *db = NULL, *other = NULL;

	cr_expect_eq(skip_store_open(path("missing.db"), 0, &db), SKIP_E_NOTFOUND);
	cr_expect(strstr(skip_errmsg(), "no such file"), "%s", skip_errmsg());

	write_file(path("text.db"), text, sizeof(text));
	cr_expect_eq(skip_store_open(path("text.db"), 0, &db), SKIP_E_NOTSQLITE);
	cr_expect(strstr(skip_errmsg(), "not an SQLite database"), "%s", skip_errmsg());

	write_file(path("empty.db"), "", 0);
	cr_expect_eq(skip_store_open(path("empty.db"), 0, &db), SKIP_E_NOTSQLITE);

	cr_assert_eq(sqlite3_open(path("foreign.db"), &other), SQLITE_OK);
	exec(other, "CREATE TABLE t(x); INSERT INTO t VALUES (1);");
	sqlite3_close(other);
	cr_expect_eq(skip_store_open(path("foreign.db"), 0, &db), SKIP_E_FOREIGN);
	cr_expect(strstr(skip_errmsg(), "not a skip trace"), "%s", skip_errmsg());

	cr_assert_eq(sqlite3_open(path("nsys.db"), &other), SQLITE_OK);
	exec(other, "CREATE TABLE StringIds(id, value); CREATE TABLE "
		    "CUPTI_ACTIVITY_KIND_KERNEL(start);");
	sqlite3_close(other);
	cr_expect_eq(skip_store_open(path("nsys.db"), 0, &db), SKIP_E_FOREIGN);
	cr_expect(strstr(skip_errmsg(), "Nsight Systems"), "%s", skip_errmsg());

	other = create("newer.skip.db");
	exec(other, "PRAGMA user_version = 99");
	sqlite3_close(other);
	cr_expect_eq(skip_store_open(path("newer.skip.db"), 0, &db), SKIP_E_NEWER);
	cr_expect(strstr(skip_errmsg(), "newer skip"), "%s", skip_errmsg());
	cr_expect_null(db);
}

Test(common_store, a_damaged_skip_trace_is_called_damaged_not_an_nsys_export)
{
	sqlite3 *db = create("runs.skip.db");

	exec(db, "DROP TABLE SKIP_RUNS;");
	sqlite3_close(db);
	cr_expect_eq(skip_store_open(path("runs.skip.db"), SKIP_STORE_READONLY, &db),
		     SKIP_E_CORRUPT);
	cr_expect(strstr(skip_errmsg(), "a damaged skip trace (its SKIP_RUNS table is missing)"),
		  "%s", skip_errmsg());

	db = create("version.skip.db");
	exec(db, "PRAGMA user_version = 0;");
	sqlite3_close(db);
	cr_expect_eq(skip_store_open(path("version.skip.db"), SKIP_STORE_READONLY, &db),
		     SKIP_E_CORRUPT);
	cr_expect(strstr(skip_errmsg(), "user_version, is 0"), "%s", skip_errmsg());
	cr_expect_null(strstr(skip_errmsg(), "Nsight"), "%s", skip_errmsg());
}

Test(common_store, a_left_over_journal_is_explained_on_a_read_only_open)
{
	sqlite3 *db = create("j.skip.db");
	pid_t pid;
	int status;

	exec(db, "PRAGMA journal_mode=DELETE; CREATE TABLE pad(x);"
		 "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 64) "
		 "INSERT INTO pad SELECT randomblob(4000) FROM n;");
	sqlite3_close(db);
	/* A writer killed in the middle of a transaction leaves a hot journal behind. */
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		sqlite3 *w = NULL;

		sqlite3_open(path("j.skip.db"), &w);
		sqlite3_exec(w,
			     "PRAGMA cache_size=1; BEGIN; DELETE FROM pad; WITH RECURSIVE "
			     "n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 64) "
			     "INSERT INTO pad SELECT randomblob(4000) FROM n;",
			     NULL, NULL, NULL);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	cr_assert_eq(access(path("j.skip.db-journal"), F_OK), 0, "no journal was left");
	cr_expect_lt(skip_store_open(path("j.skip.db"), SKIP_STORE_READONLY, &db), 0);
	cr_expect(strstr(skip_errmsg(), "a write to this file did not finish"), "%s",
		  skip_errmsg());
	cr_expect(strstr(skip_errmsg(), "PRAGMA quick_check"), "%s", skip_errmsg());
	cr_expect_null(strstr(skip_errmsg(), "readonly"), "%s", skip_errmsg());
}

Test(common_store, create_never_replaces_a_file_that_is_not_regular)
{
	sqlite3 *db = NULL;

	cr_assert_eq(mkfifo(path("fifo"), 0600), 0);
	cr_expect_eq(skip_store_create(path("fifo"), SKIP_STORE_OVERWRITE, &db), SKIP_E_INVAL);
	cr_expect_null(db);
	cr_expect_eq(access(path("fifo"), F_OK), 0);
}

Test(common_store, open_rejects_a_truncated_file)
{
	sqlite3 *db = create("full.skip.db");
	char buf[8192];
	FILE *f;
	size_t n;

	exec(db, "PRAGMA journal_mode=DELETE");
	for (int i = 0; i < 200; i++)
		exec(db, "INSERT INTO StringIds(value) VALUES (hex(randomblob(200)))");
	sqlite3_close(db);
	f = fopen(path("full.skip.db"), "rb");
	cr_assert_not_null(f);
	n = fread(buf, 1, sizeof(buf), f); /* keep the first 8 KiB only */
	fclose(f);
	write_file(path("cut.skip.db"), buf, n);
	cr_expect_eq(skip_store_open(path("cut.skip.db"), 0, &db), SKIP_E_CORRUPT);
	cr_expect(strstr(skip_errmsg(), "truncated"), "%s", skip_errmsg());
}

/* A per-process part file as the collector writes it: its own string ids. */
static void make_part(const char *name, int run, int pid, const char *kname, int nkernels)
{
	sqlite3 *db = create(name);
	char sql[1024];

	exec(db, "INSERT INTO StringIds(id, value) VALUES (1, 'padding'), (2, 'cudaLaunchKernel')");
	snprintf(sql, sizeof(sql), "INSERT INTO StringIds(id, value) VALUES (3, '%s')", kname);
	exec(db, sql);
	for (int i = 0; i < nkernels; i++) {
		snprintf(
		    sql, sizeof(sql),
		    "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL(runId, start, end, deviceId, "
		    "contextId, streamId, correlationId, globalPid, demangledName, shortName, "
		    "mangledName, registersPerThread, gridX, gridY, gridZ, blockX, blockY, "
		    "blockZ, staticSharedMemory, dynamicSharedMemory) VALUES (%d, %d, %d, 0, 1, "
		    "7, %d, %lld, 3, 3, NULL, 8, 1, 1, 1, 32, 1, 1, 0, 0);"
		    "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME(runId, start, end, eventClass, "
		    "globalTid, correlationId, nameId, returnValue, cbid) VALUES (%d, %d, %d, 0, "
		    "%lld, %d, 2, 0, 211);",
		    run, 100 * i + 50, 100 * i + 60, i + 1, (long long)pid << 24, run, 100 * i,
		    100 * i + 5, ((long long)pid << 24) | pid, i + 1);
		exec(db, sql);
	}
	snprintf(sql, sizeof(sql),
		 "INSERT INTO SKIP_DROPS VALUES (%d, %lld, 'any', 'cupti_buffer_full', 2);"
		 "INSERT INTO SKIP_PROCESSES(runId, globalPid, pid, name) VALUES (%d, %lld, %d, "
		 "'app')",
		 run, (long long)pid << 24, run, (long long)pid << 24, pid);
	exec(db, sql);
	sqlite3_close(db);
}

Test(common_store, merge_remaps_string_ids_and_keeps_every_row)
{
	sqlite3 *out = create("out.skip.db");
	char *v;
	sqlite3_stmt *st = NULL;

	make_part("p10-r1.skip.db", 1, 10, "kernel_a", 3);
	make_part("p11-r1.skip.db", 1, 11, "kernel_b", 2);
	exec(out, "INSERT INTO StringIds(id, value) VALUES (1, 'already-here')");
	cr_assert_eq(skip_store_merge(out, path("p10-r1.skip.db")), 0, "%s", skip_errmsg());
	cr_assert_eq(skip_store_merge(out, path("p11-r1.skip.db")), 0, "%s", skip_errmsg());
	cr_expect_eq(sk_db_int(out, -1, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"), 5);
	cr_expect_eq(sk_db_int(out, -1, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME"), 5);
	cr_expect_eq(sk_db_int(out, -1,
			       "SELECT count(*) FROM StringIds WHERE value = "
			       "'cudaLaunchKernel'"),
		     1, "a string both files hold is stored once");
	cr_expect_eq(sk_db_int(out, -1,
			       "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN "
			       "StringIds s ON s.id = k.shortName WHERE s.value = "
			       "'kernel_b' AND (k.globalPid >> 24) = 11"),
		     2, "names still point at the right strings after the remap");
	cr_expect_eq(sk_db_int(out, -1,
			       "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE "
			       "mangledName IS NULL"),
		     5, "NULL name ids stay NULL");
	cr_expect_eq(sk_db_int(out, -1, "SELECT sum(count) FROM SKIP_DROPS"), 4,
		     "drops of both processes add up");
	cr_expect_eq(sk_db_int(out, -1, "SELECT count(*) FROM SKIP_PROCESSES"), 2);
	cr_assert_eq(
	    sqlite3_prepare_v2(out, "SELECT value FROM StringIds WHERE id = 1", -1, &st, NULL),
	    SQLITE_OK);
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
	v = (char *)sqlite3_column_text(st, 0);
	cr_expect_str_eq(v, "already-here", "existing strings keep their ids");
	sqlite3_finalize(st);
	sqlite3_close(out);
}

Test(common_store, a_failed_merge_leaves_the_destination_unchanged)
{
	sqlite3 *out = create("out.skip.db"), *bad;

	make_part("p10-r1.skip.db", 1, 10, "kernel_a", 3);
	cr_assert_eq(skip_store_merge(out, path("p10-r1.skip.db")), 0);
	/* A part whose KERNEL table lost a NOT NULL column value: the copy fails midway. */
	make_part("p12-r1.skip.db", 1, 12, "kernel_c", 2);
	cr_assert_eq(sqlite3_open(path("p12-r1.skip.db"), &bad), SQLITE_OK);
	exec(bad, "ALTER TABLE CUPTI_ACTIVITY_KIND_RUNTIME RENAME TO old_runtime;"
		  "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME AS SELECT * FROM old_runtime;"
		  "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET start = NULL;");
	sqlite3_close(bad);
	cr_expect_lt(skip_store_merge(out, path("p12-r1.skip.db")), 0);
	cr_expect(strstr(skip_errmsg(), "p12-r1.skip.db: merge failed: "), "%s", skip_errmsg());
	cr_expect(strstr(skip_errmsg(), "NOT NULL"), "the SQLite reason is kept: %s",
		  skip_errmsg());
	cr_expect_eq(sk_db_int(out, -1, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"), 3,
		     "the kernels of the failed part were rolled back");
	cr_expect_eq(sk_db_int(out, -1, "SELECT count(*) FROM StringIds WHERE value = 'kernel_c'"),
		     0);
	cr_expect_eq(access(path("p12-r1.skip.db"), F_OK), 0, "the source is left in place");
	sqlite3_close(out);
}

Test(common_store, merge_refuses_files_that_are_not_traces)
{
	sqlite3 *out = create("out.skip.db");

	write_file(path("junk.skip.db"), "junk", 4);
	cr_expect_eq(skip_store_merge(out, path("junk.skip.db")), SKIP_E_NOTSQLITE);
	cr_expect_eq(skip_store_merge(out, path("none.skip.db")), SKIP_E_NOTFOUND);
	sqlite3_close(out);
}

Test(common_store, finalize_indexes_and_leaves_one_self_contained_file)
{
	sqlite3 *db = create("a.skip.db");
	char wal[300];

	cr_assert_eq(skip_store_finalize(db), 0, "%s", skip_errmsg());
	cr_expect_eq(sk_db_int(db, -1,
			       "SELECT count(*) FROM sqlite_master WHERE type = 'index' "
			       "AND name = 'KERNEL_run_corr'"),
		     1);
	sqlite3_close(db);
	snprintf(wal, sizeof(wal), "%s-wal", path("a.skip.db"));
	cr_expect_neq(access(wal, F_OK), 0, "no -wal file after finalize");
}

Test(common_store, summary_counts_what_the_file_holds)
{
	sqlite3 *out = create("out.skip.db");
	struct skip_store_summary s;

	make_part("p10-r1.skip.db", 1, 10, "kernel_a", 3);
	cr_assert_eq(skip_store_merge(out, path("p10-r1.skip.db")), 0);
	exec(out, "INSERT INTO SKIP_RUNS(runId, commandLine, status) VALUES (1, 'app', 'ok'), "
		  "(2, 'app', 'failed');"
		  "INSERT INTO NVTX_EVENTS(runId, start, end, eventType, globalTid) VALUES "
		  "(1, 0, 10, 59, 1), (1, 5, NULL, 34, 1);"
		  "INSERT INTO SKIP_GPUS(runId, globalPid, id, name) VALUES (1, 1, 0, 'GPU X')");
	cr_assert_eq(skip_store_summarize(out, &s), 0);
	cr_expect_eq(s.runs, 2);
	cr_expect_eq(s.failed_runs, 1);
	cr_expect_eq(s.processes, 1);
	cr_expect_eq(s.kernels, 3);
	cr_expect_eq(s.runtime_calls, 3);
	cr_expect_eq(s.nvtx_ranges, 1);
	cr_expect_eq(s.nvtx_marks, 1);
	cr_expect_eq(s.dropped, 2);
	cr_expect_eq(s.span_ns, 260, "first API start 0 to last kernel end 260");
	cr_expect_str_eq(s.gpu, "GPU X");
	sqlite3_close(out);
}

Test(common_store, metadata_rows_are_replaced_by_key)
{
	sqlite3 *db = create("a.skip.db");

	cr_assert_eq(skip_store_meta_set(db, 1, 0, "k", "v1"), 0);
	cr_assert_eq(skip_store_meta_set(db, 1, 0, "k", "v2"), 0);
	cr_expect_eq(sk_db_int(db, -1,
			       "SELECT count(*) FROM SKIP_METADATA WHERE key = 'k' AND "
			       "value = 'v2'"),
		     1);
	cr_expect_eq(sk_db_int(db, -1, "SELECT count(*) FROM SKIP_METADATA"), 1);
	sqlite3_close(db);
}

Test(common_trace_opts, kinds_replace_the_defaults_and_options_add_to_them)
{
	unsigned bits = 0;
	char buf[128];

	cr_assert_eq(skip_trace_opts_parse(NULL, &bits), 0);
	cr_expect_eq(bits, SKIP_TRACE_DEFAULT);
	cr_assert_eq(skip_trace_opts_parse("all-apis", &bits), 0);
	cr_expect_eq(bits, SKIP_TRACE_DEFAULT | SKIP_TRACE_ALL_APIS);
	cr_assert_eq(skip_trace_opts_parse("cuda,latency", &bits), 0);
	cr_expect_eq(bits, SKIP_TRACE_CUDA | SKIP_TRACE_LATENCY);
	cr_assert_eq(skip_trace_opts_parse("none", &bits), 0);
	cr_expect_eq(bits, 0u);
	cr_assert_eq(skip_trace_opts_parse("default,graph-level", &bits), 0);
	skip_trace_opts_format(bits, buf, sizeof(buf));
	cr_expect_str_eq(buf, "cuda,nvtx,sync,overhead,graph-level");
	cr_assert_eq(skip_trace_opts_parse("sync-records", &bits), 0);
	cr_expect_eq(bits, SKIP_TRACE_DEFAULT | SKIP_TRACE_SYNC_RECORDS);
	cr_expect(skip_trace_needs_cupti(SKIP_TRACE_NVTX | SKIP_TRACE_SYNC_RECORDS));
	skip_trace_opts_format(bits, buf, sizeof(buf));
	cr_expect_str_eq(buf, "cuda,nvtx,sync,overhead,sync-records");
	cr_expect_eq(skip_trace_opts_parse("cuda,bogus", &bits), SKIP_E_INVAL);
	cr_expect(strstr(skip_errmsg(), "'bogus'"), "%s", skip_errmsg());
}

Test(common_capture, modes_names_and_occurrences_parse)
{
	struct skip_capture c;

	cr_assert_eq(skip_capture_parse(NULL, &c), 0);
	cr_expect_eq(c.mode, SKIP_CAPTURE_NONE);
	cr_assert_eq(skip_capture_parse("none", &c), 0);
	cr_expect_eq(c.mode, SKIP_CAPTURE_NONE);
	cr_assert_eq(skip_capture_parse("cudaProfilerApi", &c), 0);
	cr_expect_eq(c.mode, SKIP_CAPTURE_PROFILER);
	cr_assert_eq(skip_capture_parse("nvtx:step", &c), 0);
	cr_expect_eq(c.mode, SKIP_CAPTURE_NVTX);
	cr_expect_str_eq(c.name, "step");
	cr_expect_eq(c.first, 1);
	cr_expect_eq(c.count, 0, "to the end");
	cr_assert_eq(skip_capture_parse("nvtx:step:11", &c), 0);
	cr_expect_eq(c.first, 11);
	cr_expect_eq(c.count, 0);
	cr_assert_eq(skip_capture_parse("nvtx:step:11:20", &c), 0);
	cr_expect_str_eq(c.name, "step");
	cr_expect_eq(c.first, 11);
	cr_expect_eq(c.count, 20);
	cr_assert_eq(skip_capture_parse("nvtx:a:b:3:4", &c), 0, "a name may hold ':'");
	cr_expect_str_eq(c.name, "a:b");
	cr_expect_eq(c.first, 3);
	cr_expect_eq(c.count, 4);
	cr_assert_eq(skip_capture_parse("nvtx:train step 7x", &c), 0);
	cr_expect_str_eq(c.name, "train step 7x");
	cr_expect_eq(skip_capture_parse("nvtx:", &c), SKIP_E_INVAL);
	cr_assert_eq(skip_capture_parse("nvtx:12", &c), 0, "a name of digits alone is a name");
	cr_expect_str_eq(c.name, "12");
	cr_expect_eq(c.first, 1);
	cr_expect_eq(skip_capture_parse("nvtx::3", &c), SKIP_E_INVAL, "no name");
	cr_expect_eq(skip_capture_parse("nvtx:step:0", &c), SKIP_E_INVAL);
	cr_expect(strstr(skip_errmsg(), "numbers from 1"), "%s", skip_errmsg());
	cr_expect_eq(skip_capture_parse("nvtx:step:99999999999999999999999", &c), SKIP_E_INVAL);
	cr_expect_eq(skip_capture_parse("cudaprofilerapi", &c), SKIP_E_INVAL);
	cr_expect(strstr(skip_errmsg(), "nvtx:NAME[:FIRST[:COUNT]]"), "%s", skip_errmsg());
}

Test(common_errors, strerror_covers_codes_and_errno)
{
	cr_expect_str_eq(skip_strerror(SKIP_E_NEWER), "written by a newer version of skip");
	cr_expect_str_eq(skip_strerror(-2), "No such file or directory");
	cr_expect_str_eq(skip_strerror(12345), "unknown error");
	cr_expect_eq(sk_fail(SKIP_E_INVAL, "bad %d", 7), SKIP_E_INVAL);
	cr_expect_str_eq(skip_errmsg(), "bad 7");
}

Test(common_util, strbuf_grows_and_formats)
{
	struct sk_strbuf sb = {0};

	for (int i = 0; i < 1000; i++)
		cr_assert_eq(sk_strbuf_printf(&sb, "%d,", i % 10), 0);
	cr_expect_eq(sb.len, 2000);
	cr_expect_eq(strncmp(sb.buf, "0,1,2,", 6), 0);
	cr_expect_eq(sb.buf[sb.len], '\0');
	free(sb.buf);
}
