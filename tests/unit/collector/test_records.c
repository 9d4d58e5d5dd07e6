/*
 * test_records.c: the sink fed with synthetic CUPTI records of every kind it stores, checked
 * row by row; names interned once into StringIds; NVTX pairing (out of order, across threads,
 * never closed, thousands open at once); write errors counted, not fatal.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sink_fixture.h"

TestSuite(collector_records, .init = sink_setup, .fini = sink_teardown);

static char *qs(const char *sql)
{
	sqlite3_stmt *st = NULL;
	char *s = NULL;

	cr_assert_eq(sqlite3_prepare_v2(sink.db, sql, -1, &st, NULL), SQLITE_OK, "%s",
		     sqlite3_errmsg(sink.db));
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		s = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return s;
}

static CUpti_ActivityKernel10 kernel(const char *name, uint64_t start, uint64_t end, uint32_t corr)
{
	CUpti_ActivityKernel10 k;

	memset(&k, 0, sizeof(k));
	k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
	k.name = name;
	k.start = start;
	k.end = end;
	k.deviceId = 0;
	k.contextId = 1;
	k.streamId = 7;
	k.correlationId = corr;
	k.gridX = 4;
	k.gridY = k.gridZ = 1;
	k.blockX = 256;
	k.blockY = k.blockZ = 1;
	k.registersPerThread = 16;
	k.staticSharedMemory = 128;
	k.dynamicSharedMemory = 64;
	return k;
}

static CUpti_ActivityAPI api(int driver, uint32_t cbid, uint64_t s, uint64_t e, uint32_t corr,
			     uint32_t tid)
{
	CUpti_ActivityAPI a;

	memset(&a, 0, sizeof(a));
	a.kind = driver ? CUPTI_ACTIVITY_KIND_DRIVER : CUPTI_ACTIVITY_KIND_RUNTIME;
	a.cbid = cbid;
	a.start = s;
	a.end = e;
	a.processId = 1234;
	a.threadId = tid;
	a.correlationId = corr;
	return a;
}

Test(collector_records, kernel_rows_carry_every_field_and_three_names)
{
	const char *mangled = "_ZN2at6native29vectorized_elementwise_kernelILi4EfEEviT0_";
	CUpti_ActivityKernel10 k = kernel(mangled, 1000, 2500, 42);
	char *s;

	k.graphId = 3;
	k.graphNodeId = 99;
	k.queued = 900;
	k.submitted = 950;
	cr_assert_eq(sk_sink_record(&sink, (CUpti_Activity *)&k), 0);
	cr_expect_eq(q("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"), 1);
	cr_expect_eq(q("SELECT runId FROM CUPTI_ACTIVITY_KIND_KERNEL"), 7);
	cr_expect_eq(q("SELECT globalPid FROM CUPTI_ACTIVITY_KIND_KERNEL"), 1234LL << 24);
	cr_expect_eq(q("SELECT end - start FROM CUPTI_ACTIVITY_KIND_KERNEL"), 1500);
	cr_expect_eq(q("SELECT streamId FROM CUPTI_ACTIVITY_KIND_KERNEL"), 7);
	cr_expect_eq(q("SELECT correlationId FROM CUPTI_ACTIVITY_KIND_KERNEL"), 42);
	cr_expect_eq(q("SELECT gridX * blockX FROM CUPTI_ACTIVITY_KIND_KERNEL"), 1024);
	cr_expect_eq(q("SELECT staticSharedMemory + dynamicSharedMemory FROM "
		       "CUPTI_ACTIVITY_KIND_KERNEL"),
		     192);
	cr_expect_eq(q("SELECT graphId * 1000 + graphNodeId FROM CUPTI_ACTIVITY_KIND_KERNEL"),
		     3099);
	cr_expect_eq(q("SELECT submitted - queued FROM CUPTI_ACTIVITY_KIND_KERNEL"), 50);
	cr_expect_eq(q("SELECT completed IS NULL FROM CUPTI_ACTIVITY_KIND_KERNEL"), 1,
		     "an unknown timestamp (0) is stored as NULL");
	s = qs("SELECT s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = "
	       "k.shortName");
	cr_expect_str_eq(s, "vectorized_elementwise_kernel");
	free(s);
	s = qs("SELECT s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = "
	       "k.demangledName");
	cr_expect_str_eq(s, "void at::native::vectorized_elementwise_kernel<4, float>(int, float)");
	free(s);
	s = qs("SELECT s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = "
	       "k.mangledName");
	cr_expect_str_eq(s, mangled);
	free(s);
}

Test(collector_records, names_are_interned_once)
{
	CUpti_ActivityKernel10 a = kernel("add_one", 0, 10, 1), b = kernel("add_one", 20, 30, 2);
	char other[] = "add_one"; /* same text, different pointer */
	CUpti_ActivityKernel10 c = kernel(other, 40, 50, 3);

	sk_sink_record(&sink, (CUpti_Activity *)&a);
	sk_sink_record(&sink, (CUpti_Activity *)&b);
	sk_sink_record(&sink, (CUpti_Activity *)&c);
	cr_expect_eq(q("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"), 3);
	cr_expect_eq(q("SELECT count(*) FROM StringIds WHERE value = 'add_one'"), 1);
	cr_expect_eq(q("SELECT count(DISTINCT shortName) FROM CUPTI_ACTIVITY_KIND_KERNEL"), 1);
	cr_expect_eq(q("SELECT count(*) FROM StringIds"), 1,
		     "an extern \"C\" name is its own demangled, short and mangled name");
}

Test(collector_records, runtime_and_driver_calls_share_the_runtime_table_with_names)
{
	CUpti_ActivityAPI r =
	    api(0, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 100, 180, 42, 555);
	CUpti_ActivityAPI d = api(1, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, 200, 260, 43, 555);
	char *s;

	cr_assert_eq(sk_sink_record(&sink, (CUpti_Activity *)&r), 0);
	cr_assert_eq(sk_sink_record(&sink, (CUpti_Activity *)&d), 0);
	cr_expect_eq(q("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE eventClass = 0"), 1);
	cr_expect_eq(q("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE eventClass = 1"), 1);
	cr_expect_eq(q("SELECT count(DISTINCT globalTid) FROM CUPTI_ACTIVITY_KIND_RUNTIME"), 1);
	cr_expect_eq(q("SELECT globalTid FROM CUPTI_ACTIVITY_KIND_RUNTIME LIMIT 1"),
		     (1234LL << 24) | 555);
	cr_expect_eq(q("SELECT end - start FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE eventClass = 1"),
		     60);
	s = qs("SELECT s.value FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = "
	       "r.nameId WHERE r.eventClass = 0");
	cr_expect_str_eq(s, "cudaLaunchKernel_v7000");
	free(s);
	s = qs("SELECT s.value FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = "
	       "r.nameId JOIN ENUM_NSYS_EVENT_CLASS c ON c.id = r.eventClass WHERE c.name = "
	       "'TRACE_PROCESS_EVENT_CUDA_DRIVER'");
	cr_expect_str_eq(s, "cuLaunchKernel");
	free(s);
}

Test(collector_records, thread_ids_wider_than_24_bits_get_stable_synthetic_numbers)
{
	CUpti_ActivityAPI a = api(0, 1, 0, 1, 1, 0xF7654321u), b = api(0, 1, 2, 3, 2, 0xF7654321u);
	CUpti_ActivityAPI c = api(0, 1, 4, 5, 3, 0xE1234567u);

	sk_sink_record(&sink, (CUpti_Activity *)&a);
	sk_sink_record(&sink, (CUpti_Activity *)&b);
	sk_sink_record(&sink, (CUpti_Activity *)&c);
	cr_expect_eq(q("SELECT count(DISTINCT globalTid) FROM CUPTI_ACTIVITY_KIND_RUNTIME"), 2);
	cr_expect_eq(q("SELECT min(globalTid & 16777215) FROM CUPTI_ACTIVITY_KIND_RUNTIME"),
		     0xF00000);
	cr_expect_eq(q("SELECT max(globalTid >> 24) FROM CUPTI_ACTIVITY_KIND_RUNTIME"), 1234);
}

Test(collector_records, memcpy_memset_sync_graph_and_overhead_rows)
{
	CUpti_ActivityMemcpy6 m;
	CUpti_ActivityMemset4 s;
	CUpti_ActivitySynchronization2 y;
	CUpti_ActivityGraphTrace2 g;
	CUpti_ActivityOverhead3 o;
	CUpti_ActivityContext3 ctx;

	memset(&m, 0, sizeof(m));
	m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
	m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
	m.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
	m.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
	m.bytes = 1 << 20;
	m.start = 10;
	m.end = 90;
	m.correlationId = 5;
	memset(&s, 0, sizeof(s));
	s.kind = CUPTI_ACTIVITY_KIND_MEMSET;
	s.value = 7;
	s.bytes = 4096;
	s.start = 100;
	s.end = 110;
	memset(&ctx, 0, sizeof(ctx));
	ctx.kind = CUPTI_ACTIVITY_KIND_CONTEXT;
	ctx.contextId = 1;
	ctx.deviceId = 3;
	memset(&y, 0, sizeof(y));
	y.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
	y.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
	y.contextId = 1;
	y.streamId = 7;
	y.cudaEventId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
	y.start = 200;
	y.end = 300;
	memset(&g, 0, sizeof(g));
	g.kind = CUPTI_ACTIVITY_KIND_GRAPH_TRACE;
	g.graphId = 9;
	g.start = 400;
	g.end = 500;
	memset(&o, 0, sizeof(o));
	o.kind = CUPTI_ACTIVITY_KIND_OVERHEAD;
	o.overheadKind = CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH;
	o.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
	o.objectId.pt.threadId = 77;
	o.start = 600;
	o.end = 650;
	cr_assert_eq(sk_sink_record(&sink, (CUpti_Activity *)&m), 0);
	cr_assert_eq(sk_sink_record(&sink, (CUpti_Activity *)&s), 0);
	cr_assert_eq(sk_sink_record(&sink, (CUpti_Activity *)&ctx), 0);
	cr_assert_eq(sk_sink_record(&sink, (CUpti_Activity *)&y), 0);
	cr_assert_eq(sk_sink_record(&sink, (CUpti_Activity *)&g), 0);
	cr_assert_eq(sk_sink_record(&sink, (CUpti_Activity *)&o), 0);
	cr_expect_eq(q("SELECT bytes FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE copyKind = 1 AND "
		       "srcKind = 0 AND dstKind = 2"),
		     1 << 20);
	cr_expect_eq(q("SELECT value * 10000 + bytes FROM CUPTI_ACTIVITY_KIND_MEMSET"), 74096);
	cr_expect_eq(q("SELECT deviceId FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"), 3,
		     "the device comes from the context record");
	cr_expect_eq(q("SELECT eventId IS NULL FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"), 1);
	cr_expect_eq(q("SELECT graphId FROM CUDA_GRAPH_TRACE"), 9);
	cr_expect_eq(
	    q("SELECT count(*) FROM PROFILER_OVERHEAD o JOIN StringIds s ON s.id = o.nameId "
	      "WHERE s.value = 'CUPTI_BUFFER_FLUSH' AND (o.globalTid & 16777215) = 77"),
	    1);
}

static CUpti_ActivityMarker2 marker(unsigned flags, uint32_t id, uint64_t ts, uint32_t tid,
				    const char *name, const char *domain)
{
	CUpti_ActivityMarker2 m;

	memset(&m, 0, sizeof(m));
	m.kind = CUPTI_ACTIVITY_KIND_MARKER;
	m.flags = (CUpti_ActivityFlag)flags;
	m.id = id;
	m.timestamp = ts;
	m.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
	m.objectId.pt.processId = 1234;
	m.objectId.pt.threadId = tid;
	m.name = name;
	m.domain = domain;
	return m;
}

Test(collector_records, nvtx_starts_and_ends_pair_into_ranges_in_any_order)
{
	CUpti_ActivityMarker2 recs[] = {
	    marker(CUPTI_ACTIVITY_FLAG_MARKER_START, 1, 100, 11, "outer", NULL),
	    marker(CUPTI_ACTIVITY_FLAG_MARKER_START, 2, 110, 11, "inner", NULL),
	    marker(CUPTI_ACTIVITY_FLAG_MARKER_END, 3, 170, 12, NULL, NULL), /* end first */
	    marker(CUPTI_ACTIVITY_FLAG_MARKER_END, 2, 150, 11, NULL, NULL),
	    marker(CUPTI_ACTIVITY_FLAG_MARKER_START, 3, 120, 11, "cross", NULL),
	    marker(CUPTI_ACTIVITY_FLAG_MARKER_END, 1, 200, 11, NULL, NULL),
	    marker(CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS, 4, 130, 11, "mark", "mydomain"),
	    marker(CUPTI_ACTIVITY_FLAG_MARKER_START, 5, 300, 11, "never-closed", NULL),
	};
	CUpti_ActivityMarkerData2 data;

	memset(&data, 0, sizeof(data));
	data.kind = CUPTI_ACTIVITY_KIND_MARKER_DATA;
	data.id = 1;
	data.payloadKind = CUPTI_METRIC_VALUE_KIND_UINT64;
	data.payload.metricValueUint64 = 42;
	data.color = 0xff00ff00;
	data.category = 3;
	for (size_t i = 0; i < sizeof(recs) / sizeof(recs[0]); i++) {
		cr_assert_eq(sk_sink_record(&sink, (CUpti_Activity *)&recs[i]), 0);
		if (i == 0)
			cr_assert_eq(sk_sink_record(&sink, (CUpti_Activity *)&data), 0);
	}
	cr_expect_eq(q("SELECT end - start FROM NVTX_EVENTS WHERE text = 'outer'"), 100);
	cr_expect_eq(q("SELECT eventType FROM NVTX_EVENTS WHERE text = 'outer'"), 59);
	cr_expect_eq(q("SELECT uint64Value + category FROM NVTX_EVENTS WHERE text = 'outer'"), 45);
	cr_expect_eq(q("SELECT color FROM NVTX_EVENTS WHERE text = 'outer'"), 0xff00ff00LL);
	cr_expect_eq(q("SELECT end - start FROM NVTX_EVENTS WHERE text = 'inner'"), 40);
	cr_expect_eq(q("SELECT eventType FROM NVTX_EVENTS WHERE text = 'cross'"), 60,
		     "a range ended on another thread is a start/end range");
	cr_expect_eq(q("SELECT endGlobalTid & 16777215 FROM NVTX_EVENTS WHERE text = 'cross'"), 12);
	cr_expect_eq(q("SELECT eventType FROM NVTX_EVENTS WHERE text = 'mark'"), 34);
	cr_expect_eq(q("SELECT domainId FROM NVTX_EVENTS WHERE text = 'mark'"), 1);
	cr_expect_eq(q("SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 75 AND text = "
		       "'mydomain' AND domainId = 1"),
		     1);
	cr_expect_eq(q("SELECT count(*) FROM NVTX_EVENTS WHERE text = 'never-closed'"), 0,
		     "an open range waits for its end");
	sk_sink_close(&sink, 0);
	cr_assert_eq(skip_store_open(path, 0, &sink.db), 0);
	cr_expect_eq(q("SELECT count(*) FROM NVTX_EVENTS WHERE text = 'never-closed' AND end IS "
		       "NULL"),
		     1, "ranges still open at exit are written with a NULL end");
	sqlite3_close(sink.db);
	sink.db = NULL;
}

/* Thousands of ranges open at once, closed in a scrambled order, then as many again reusing
 * the freed entries: each pairs with its own start, and the ones never closed are written at
 * exit. */
Test(collector_records, many_ranges_open_at_once_pair_up_and_entries_are_reused)
{
	enum { N = 3000 };
	char text[32];

	for (int round = 0; round < 2; round++) {
		for (uint32_t i = 1; i <= N; i++) {
			CUpti_ActivityMarker2 m;

			snprintf(text, sizeof(text), "r%u", round * N + i);
			m = marker(CUPTI_ACTIVITY_FLAG_MARKER_START, round * N + i, 1000 * i, 11,
				   text, NULL);
			cr_assert_eq(sk_sink_record(&sink, (CUpti_Activity *)&m), 0);
		}
		for (uint32_t k = 0; k < N; k++) {
			uint32_t i = 1 + (k * 7919) % N; /* 7919 is prime: a permutation of 1..N */
			CUpti_ActivityMarker2 m;

			if (i > N - 10)
				continue; /* the last ten of each round stay open */
			m = marker(CUPTI_ACTIVITY_FLAG_MARKER_END, round * N + i, 1000 * i + i, 11,
				   NULL, NULL);
			cr_assert_eq(sk_sink_record(&sink, (CUpti_Activity *)&m), 0);
		}
	}
	cr_expect_eq(q("SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 59"), 2 * (N - 10));
	cr_expect_eq(q("SELECT count(*) FROM NVTX_EVENTS WHERE end - start = "
		       "(CAST(substr(text, 2) AS INTEGER) - 1) % 3000 + 1"),
		     2 * (N - 10), "each range lasts as many ns as its number in its round");
	cr_expect_eq(sink.nmarkers, N + 10, "the second round reuses the entries the first freed");
	sk_sink_close(&sink, 0);
	cr_assert_eq(skip_store_open(path, 0, &sink.db), 0);
	cr_expect_eq(q("SELECT count(*) FROM NVTX_EVENTS WHERE end IS NULL"), 20);
	sqlite3_close(sink.db);
	sink.db = NULL;
}

Test(collector_records, device_records_fill_target_info_gpu)
{
	CUpti_ActivityDevice5 d;

	memset(&d, 0, sizeof(d));
	d.kind = CUPTI_ACTIVITY_KIND_DEVICE;
	d.name = "NVIDIA H100 80GB HBM3";
	d.numMultiprocessors = 132;
	d.computeCapabilityMajor = 9;
	d.globalMemorySize = 85ull << 30;
	d.coreClockRate = 1980000;
	cr_assert_eq(sk_sink_record(&sink, (CUpti_Activity *)&d), 0);
	cr_expect_eq(q("SELECT smCount * 10 + computeMajor FROM TARGET_INFO_GPU WHERE name = "
		       "'NVIDIA H100 80GB HBM3'"),
		     1329);
	cr_expect_eq(q("SELECT clockRate FROM TARGET_INFO_GPU"), 1980000000LL);
	cr_expect_eq(q("SELECT count(*) FROM SKIP_GPUS WHERE runId = 7 AND smCount = 132"), 1,
		     "the process's own row");
	cr_assert_eq(sk_sink_record(&sink, (CUpti_Activity *)&d), 0);
	cr_expect_eq(q("SELECT count(*) FROM SKIP_GPUS"), 2);
	cr_expect_eq(q("SELECT count(*) FROM TARGET_INFO_GPU"), 1, "one row per GPU, as nsys");
}

Test(collector_records, drops_are_stored_per_kind_and_cause_and_replaced)
{
	cr_assert_eq(sk_sink_set_drops(&sink, "any", "cupti_buffer_full", 5), 0);
	cr_assert_eq(sk_sink_set_drops(&sink, "any", "cupti_buffer_full", 9), 0);
	cr_assert_eq(sk_sink_set_drops(&sink, "kernel", "write_error", 2), 0);
	cr_expect_eq(q("SELECT count FROM SKIP_DROPS WHERE cause = 'cupti_buffer_full'"), 9);
	cr_expect_eq(q("SELECT sum(count) FROM SKIP_DROPS"), 11);
	cr_expect_eq(
	    q("SELECT count(*) FROM SKIP_DROPS WHERE runId = 7 AND globalPid = 1234 << 24"), 2);
}

Test(collector_records, a_write_error_turns_writing_off_and_counts_the_loss)
{
	CUpti_ActivityKernel10 k = kernel("k", 0, 1, 1);
	char logged[1024] = "";
	FILE *log = tmpfile();

	/* The error line goes to a file this test reads, not to the test run's output. */
	cr_assert_not_null(log);
	skip_log_init("test", log, 1);
	/* Make every insert fail: the table disappears under the prepared statement. */
	cr_assert_eq(sk_sink_record(&sink, (CUpti_Activity *)&k), 0);
	sqlite3_exec(sink.db, "DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL", NULL, NULL, NULL);
	cr_expect_lt(sk_sink_record(&sink, (CUpti_Activity *)&k), 0);
	cr_expect(sink.failed);
	cr_expect_eq(sink.lost[SK_K_KERNEL], 1);
	cr_expect_lt(sk_sink_record(&sink, (CUpti_Activity *)&k), 0, "writing stays off");
	rewind(log);
	cr_expect_gt(fread(logged, 1, sizeof(logged) - 1, log), 0);
	cr_expect(strstr(logged, "writing kernel failed"), "%s", logged);
	cr_expect(strstr(logged, "what was committed is kept"), "%s", logged);
	skip_log_init("test", NULL, 1);
	fclose(log);
}

Test(collector_records, transactions_commit_what_was_written)
{
	CUpti_ActivityKernel10 k = kernel("k", 0, 1, 1);
	sqlite3 *other = NULL;

	cr_assert_eq(sk_sink_begin(&sink), 0);
	sk_sink_record(&sink, (CUpti_Activity *)&k);
	cr_assert_eq(sqlite3_open_v2(path, &other, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	cr_expect_eq(sk_db_int(other, -1, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"), 0,
		     "not visible before the commit");
	cr_assert_eq(sk_sink_commit(&sink), 0);
	cr_expect_eq(sk_db_int(other, -1, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"), 1);
	sqlite3_close(other);
}
