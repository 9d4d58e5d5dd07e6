/*
 * test_torch.c: import/torch.c on hand-written torch.profiler traces. The answers come from
 * tests/fixtures/torchprof/small.json by hand: three kernels of 5.500, 2.250 and 1.125 us (8875
 * ns), launched by two cudaLaunchKernel calls (correlation 11, 12) and one cuLaunchKernel (14)
 * of process 4242; a pageable-to-device copy, a device memset, a stream synchronization; six
 * cpu_op / user_annotation ranges on threads 4242 and 4300; one H100 in deviceProperties.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "skip_import.h"
#include "unit/scratch.h"

#define SMALL FIXTURES "/torchprof/small.json"

static char dir[] = "/tmp/skip-import-test-XXXXXX";
static sqlite3 *db;

static void setup(void)
{
	char path[256];

	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/out.skip.db", dir);
	cr_assert_eq(skip_store_create(path, 0, &db), 0, "%s", skip_errmsg());
}

static void teardown(void)
{
	sqlite3_close(db);
	sk_scratch_remove(dir);
}

/* Import @path into the test's trace: the error code, with *@c filled on success. */
static int import(const char *path, struct skip_import_counts *c)
{
	struct skip_importer *im;
	int err;

	im = skip_importer_new(db, &err);
	cr_assert_not_null(im, "%s", skip_errmsg());
	err = skip_importer_add(im, path, NULL, c);
	skip_importer_free(im);
	return err;
}

/* Write @n bytes of @text to DIR/@name (gzip-compressed when @gz) and return the path. */
static const char *write_file(const char *name, const char *text, size_t n, int gz)
{
	static char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (gz) {
		gzFile f = gzopen(path, "wb");

		cr_assert_not_null(f);
		cr_assert_eq(gzwrite(f, text, (unsigned)n), (int)n);
		gzclose(f);
	} else {
		FILE *f = fopen(path, "wb");

		cr_assert_not_null(f);
		cr_assert_eq(fwrite(text, 1, n, f), n);
		fclose(f);
	}
	return path;
}

static int64_t q(const char *sql)
{
	return sk_db_int(db, -999, sql);
}

static char *read_small(size_t *n)
{
	char *text = NULL;

	cr_assert_eq(skip_read_file(SMALL, SIZE_MAX, &text, n), 0);
	return text;
}

TestSuite(import_torch, .init = setup, .fini = teardown);

Test(import_torch, kernels_copies_sets_and_calls_are_counted_by_hand)
{
	struct skip_import_counts c;

	cr_assert_eq(import(SMALL, &c), 0, "%s", skip_errmsg());
	cr_expect_eq(c.run_id, 1);
	cr_expect_eq(c.kernels, 3);
	cr_expect_eq(c.memcpys, 1);
	cr_expect_eq(c.memsets, 1);
	cr_expect_eq(c.runtime_calls, 5);
	cr_expect_eq(c.driver_calls, 1);
	cr_expect_eq(c.syncs, 1);
	cr_expect_eq(c.ranges, 6);
	cr_expect_eq(c.gpus, 1);
	/* Of 29 events, 18 are mapped and 5 are process and thread names; ignored are the
	 * gpu_user_annotation, the python_function, the Trace span, two flows and the instant. */
	cr_expect_eq(c.events, 29);
	cr_expect_eq(c.ignored, 6);
	cr_expect_eq(q("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"), 3);
	cr_expect_eq(q("SELECT sum(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL"), 8875);
	cr_expect_eq(q("SELECT start FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE correlationId = 11"),
		     108000);
	cr_expect_eq(q("SELECT end FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE correlationId = 14"),
		     129875);
}

Test(import_torch, every_gpu_operation_joins_its_launch_call_in_its_process)
{
	cr_assert_eq(import(SMALL, NULL), 0, "%s", skip_errmsg());
	cr_expect_eq(q("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE globalPid = 4242 << "
		       "24"),
		     3);
	/* runtime and driver calls share one table, as in nsys (eventClass 0 and 1) */
	cr_expect_eq(q("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN "
		       "CUPTI_ACTIVITY_KIND_RUNTIME r ON r.correlationId = k.correlationId AND "
		       "r.runId = k.runId AND r.globalTid >> 24 = k.globalPid >> 24 AND "
		       "r.eventClass = 0"),
		     2);
	cr_expect_eq(q("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN "
		       "CUPTI_ACTIVITY_KIND_RUNTIME r ON r.correlationId = k.correlationId AND "
		       "r.globalTid >> 24 = k.globalPid >> 24 AND r.eventClass = 1"),
		     1);
	cr_expect_eq(q("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY m JOIN "
		       "CUPTI_ACTIVITY_KIND_RUNTIME r ON r.correlationId = m.correlationId AND "
		       "r.globalTid >> 24 = m.globalPid >> 24 JOIN StringIds s ON s.id = r.nameId "
		       "AND s.value = 'cudaMemcpyAsync'"),
		     1);
	cr_expect_eq(q("SELECT globalTid & 16777215 FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE "
		       "correlationId = 11"),
		     4242);
	cr_expect_eq(q("SELECT cbid FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE eventClass = 1"), 307);
}

Test(import_torch, kernel_fields_and_names_follow_kineto_args)
{
	cr_assert_eq(import(SMALL, NULL), 0, "%s", skip_errmsg());
	cr_expect_eq(q("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds d ON "
		       "d.id = k.demangledName JOIN StringIds s ON s.id = k.shortName WHERE "
		       "k.correlationId = 11 AND d.value = 'void at::native::gemm<float, "
		       "4>(float*, int)' AND s.value = 'gemm'"),
		     1);
	cr_expect_eq(q("SELECT gridX * 1000000 + blockX * 1000 + blockY FROM "
		       "CUPTI_ACTIVITY_KIND_KERNEL WHERE correlationId = 14"),
		     1032002);
	cr_expect_eq(q("SELECT registersPerThread + staticSharedMemory + dynamicSharedMemory FROM "
		       "CUPTI_ACTIVITY_KIND_KERNEL WHERE correlationId = 14"),
		     8 + 48);
	cr_expect_eq(q("SELECT streamId * 100 + deviceId * 10 + contextId FROM "
		       "CUPTI_ACTIVITY_KIND_KERNEL WHERE correlationId = 12"),
		     701);
	/* Absent, not invented: Kineto's "queued" is not on the events' time base. */
	cr_expect_eq(q("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE queued IS NULL AND "
		       "submitted IS NULL AND completed IS NULL AND mangledName IS NULL AND "
		       "graphId IS NULL"),
		     3);
	cr_expect_eq(q("SELECT copyKind * 100 + srcKind * 10 + dstKind FROM "
		       "CUPTI_ACTIVITY_KIND_MEMCPY WHERE bytes = 4096 AND flags IS NULL"),
		     102);
	cr_expect_eq(q("SELECT memKind FROM CUPTI_ACTIVITY_KIND_MEMSET WHERE bytes = 1024"), 2);
	cr_expect_eq(q("SELECT syncType * 1000 + streamId FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION "
		       "WHERE correlationId = 15 AND start = 131000 AND end = 146000"),
		     3007);
}

Test(import_torch, ranges_keep_their_threads_and_odd_names)
{
	sqlite3_stmt *st;

	cr_assert_eq(import(SMALL, NULL), 0, "%s", skip_errmsg());
	cr_expect_eq(q("SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 59 AND globalTid = "
		       "endGlobalTid AND end IS NOT NULL"),
		     6);
	cr_expect_eq(q("SELECT start * 1000000 + end FROM NVTX_EVENTS WHERE text = 'aten::addmm'"),
		     102000LL * 1000000 + 110500);
	cr_expect_eq(q("SELECT globalTid & 16777215 FROM NVTX_EVENTS WHERE text LIKE "
		       "'autograd::%'"),
		     4300);
	cr_assert_eq(sqlite3_prepare_v2(db, "SELECT count(*) FROM NVTX_EVENTS WHERE text = ?", -1,
					&st, NULL),
		     SQLITE_OK);
	sqlite3_bind_text(st, 1, "my \"region\", with\nnewline \xc3\xbc \xc3\xbc", -1,
			  SQLITE_STATIC);
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
	cr_expect_eq(sqlite3_column_int(st, 0), 1, "quotes, comma, newline and UTF-8 survive");
	sqlite3_finalize(st);
}

Test(import_torch, the_run_the_gpu_and_the_threads_are_described)
{
	cr_assert_eq(import(SMALL, NULL), 0, "%s", skip_errmsg());
	cr_expect_eq(q("SELECT start * 1000000 + end FROM SKIP_RUNS WHERE runId = 1 AND pid = 4242 "
		       "AND status = 'ok' AND label = 'small.json'"),
		     100000LL * 1000000 + 150000);
	cr_expect_eq(q("SELECT startUtcNs FROM SKIP_RUNS"), 1700000000000000000LL + 100000);
	cr_expect_eq(q("SELECT count(*) FROM TARGET_INFO_GPU"), 1, "one row per GPU, as nsys");
	cr_expect_eq(q("SELECT smCount * 1000 + maxWarpsPerSm FROM SKIP_GPUS WHERE id = 0 "
		       "AND globalPid = 4242 << 24 AND computeMajor = 9 AND name = 'NVIDIA H100 "
		       "80GB HBM3' AND uuid IS NULL AND clockRate IS NULL"),
		     132064);
	cr_expect_eq(q("SELECT count(*) FROM ThreadNames"), 2, "the GPU's stream row is no thread");
	cr_expect_eq(q("SELECT count(*) FROM ThreadNames t JOIN StringIds s ON s.id = t.nameId "
		       "WHERE s.value = 'thread 4300 (pt_autograd_0)' AND t.globalTid = (4242 << "
		       "24) | 4300"),
		     1);
	cr_expect_eq(q("SELECT count(*) FROM SKIP_PROCESSES WHERE pid = 4242 AND name = "
		       "'python3'"),
		     1);
	cr_expect_eq(q("SELECT count(*) FROM SKIP_METADATA WHERE runId = 1 AND key = "
		       "'unavailable' AND value = 'dropped_records,submitted,exit_status'"),
		     1);
	cr_expect_eq(q("SELECT count(*) FROM SKIP_METADATA WHERE runId = 1 AND key = 'rank' AND "
		       "value = '0'"),
		     1);
}

Test(import_torch, several_inputs_are_repetitions_in_one_file)
{
	struct skip_importer *im;
	int err;

	im = skip_importer_new(db, &err);
	cr_assert_not_null(im);
	for (int i = 0; i < 3; i++)
		cr_assert_eq(skip_importer_add(im, SMALL, NULL, NULL), 0, "%s", skip_errmsg());
	skip_importer_free(im);
	cr_expect_eq(q("SELECT count(*) FROM SKIP_RUNS"), 3);
	cr_expect_eq(q("SELECT sum(repetition) FROM SKIP_RUNS"), 0 + 1 + 2);
	cr_expect_eq(q("SELECT count(DISTINCT commandLine) FROM SKIP_RUNS"), 1);
	cr_expect_eq(q("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE runId = 3"), 3);
	cr_expect_eq(q("SELECT count(*) FROM StringIds WHERE value = 'gemm'"), 1,
		     "names are stored once for all runs");
}

Test(import_torch, gzip_is_read_and_a_truncated_stream_is_named)
{
	size_t n = 0;
	char *text = read_small(&n);
	const char *gz = write_file("small.json.gz", text, n, 1);
	struct skip_import_counts c;
	FILE *f;
	long size;

	cr_assert_eq(import(gz, &c), 0, "%s", skip_errmsg());
	cr_expect_eq(c.kernels, 3);
	/* Cut the compressed file in half. */
	f = fopen(gz, "rb");
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fclose(f);
	cr_assert_eq(truncate(gz, size / 2), 0);
	cr_expect_eq(import(gz, NULL), SKIP_E_INVAL);
	cr_expect_not_null(strstr(skip_errmsg(), "gzip stream is truncated"), "%s", skip_errmsg());
	free(text);
}

Test(import_torch, timestamps_keep_every_nanosecond)
{
	const char *t = "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"a\", "
			"\"pid\": 1, \"tid\": 2, \"ts\": 1700000000123456.789, \"dur\": "
			"0.001}]}";

	cr_assert_eq(import(write_file("abs.json", t, strlen(t), 0), NULL), 0, "%s", skip_errmsg());
	cr_expect_eq(q("SELECT start FROM NVTX_EVENTS"), 1700000000123456789LL);
	cr_expect_eq(q("SELECT end FROM NVTX_EVENTS"), 1700000000123456790LL);
}

/* Bad inputs: the code, a part of the one-line message, and nothing left in the trace. */
struct bad_case {
	const char *text;
	int err;
	const char *msg;
};

static const struct bad_case bad_cases[] = {
    {"", SKIP_E_INVAL, "the file is empty"},
    {"null", SKIP_E_INVAL, "bad.json:1:1: not a JSON object"},
    {"{}", SKIP_E_INVAL, "no traceEvents"},
    {"{\"a\": [1, 2], \"b\": {\"c\": null}}", SKIP_E_INVAL, "not a torch.profiler trace"},
    {"[]", SKIP_E_EMPTY, "no events in traceEvents"},
    {"{\"traceEvents\": []}", SKIP_E_EMPTY, "no events"},
    {"{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"blink\", \"name\": \"x\", \"ts\": 1, "
     "\"dur\": 1}]}",
     SKIP_E_INVAL, "none of its 1 events is a torch.profiler event"},
    {"{\"traceEvents\": [\n{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"x\", \"pid\": 1, "
     "\"tid\": 1, \"ts\": 1, \"dur\": 1},\n{\"ph\": \"X\",",
     SKIP_E_INVAL, "bad.json:3:12: the text ends early (a truncated file?)"},
    {"{\"traceEvents\": [{\"ph\": \"X\",}]}", SKIP_E_INVAL, "JSON syntax error in an event"},
    {"{\"traceEvents\": [{\"ph\": \"M\"} {\"ph\": \"M\"}]}", SKIP_E_INVAL, "expected ',' or ']'"},
    {"{\"traceEvents\": {}}", SKIP_E_INVAL, "traceEvents is not an array"},
    {"{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 1, "
     "\"dur\": 1, \"args\": {\"device\": 0, \"context\": 1, \"stream\": 7}}]}",
     SKIP_E_INVAL, "event 0 (cat 'kernel', name 'k'): no 'correlation' in args"},
    {"{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"a\", \"pid\": 1, "
     "\"tid\": 1, \"dur\": 1}]}",
     SKIP_E_INVAL, "no 'ts'"},
    {"{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"a\", \"pid\": 1, "
     "\"tid\": 1, \"ts\": -1, \"dur\": 1}]}",
     SKIP_E_INVAL, "'ts' -1 is not a time"},
    {"{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"a\", \"pid\": 1, "
     "\"tid\": 1, \"ts\": 1, \"dur\": \"1\"}]}",
     SKIP_E_INVAL, "'dur' \"1\" is not a duration"},
    {"{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"c\", \"pid\": "
     "\"p\", \"tid\": 1, \"ts\": 1, \"dur\": 1, \"args\": {\"cbid\": 1, \"correlation\": 2}}]}",
     SKIP_E_INVAL, "'pid' is not an integer"},
    {"{\"traceEvents\": [{\"cat\": \"cpu_op\"}]}", SKIP_E_INVAL, "no 'ph'"},
    {"{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 1, "
     "\"dur\": 1, \"args\": {\"device\": 0, \"context\": 1, \"stream\": 7, \"correlation\": 1, "
     "\"registers per thread\": 1, \"shared memory\": 0, \"grid\": [1, 1], \"block\": [1, 1, "
     "1]}}]}",
     SKIP_E_INVAL, "'grid' is not an array of 3 integers"},
    {"{\"traceEvents\": []} x", SKIP_E_INVAL, "text after the end of the JSON value"},
    {"{\"traceEvents\": [], \"deviceProperties\": [}", SKIP_E_INVAL, "a bracket does not match"},
};

Test(import_torch, bad_inputs_are_one_line_and_leave_nothing)
{
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *bc = &bad_cases[i];
		int err = import(write_file("bad.json", bc->text, strlen(bc->text), 0), NULL);

		cr_expect_eq(err, bc->err, "%s: %d", bc->text, err);
		cr_expect_not_null(strstr(skip_errmsg(), bc->msg), "%s: '%s' lacks '%s'", bc->text,
				   skip_errmsg(), bc->msg);
		cr_expect_null(strchr(skip_errmsg(), '\n'), "one line: %s", skip_errmsg());
		cr_expect_eq(q("SELECT (SELECT count(*) FROM SKIP_RUNS) + (SELECT count(*) FROM "
			       "NVTX_EVENTS) + (SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL) + "
			       "(SELECT count(*) FROM StringIds)"),
			     0, "%s: a failed import leaves nothing", bc->text);
	}
}

Test(import_torch, a_text_over_the_limit_is_refused)
{
	struct skip_import_opts o = {.max_bytes = 1000};
	struct skip_importer *im;
	int err;

	im = skip_importer_new(db, &err);
	cr_expect_eq(skip_importer_add(im, SMALL, &o, NULL), SKIP_E_INVAL);
	cr_expect_not_null(strstr(skip_errmsg(), "--max-mb raises the limit"), "%s", skip_errmsg());
	skip_importer_free(im);
}

Test(import_torch, events_of_other_categories_need_no_fields)
{
	const char *t = "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"overhead\", \"args\": 3}, "
			"{\"ph\": \"i\"}, {\"ph\": \"X\"}, {\"ph\": \"X\", \"cat\": \"cpu_op\", "
			"\"name\": \"a\", \"pid\": 1, \"tid\": 2, \"ts\": 1, \"dur\": 1}]}";
	struct skip_import_counts c;

	cr_assert_eq(import(write_file("other.json", t, strlen(t), 0), &c), 0, "%s", skip_errmsg());
	cr_expect_eq(c.events, 4);
	cr_expect_eq(c.ignored, 3);
	cr_expect_eq(c.ranges, 1);
}
