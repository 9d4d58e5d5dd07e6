/*
 * test_apicalls.c: the event log (evlog.c) with threads appending while the writer writes, and
 * a capture range's API calls taken through callbacks (apicalls.c): hand-made CUPTI callback
 * sequences in, the rows the sink writes out.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sink_fixture.h"

TestSuite(collector_apicalls, .init = sink_setup, .fini = sink_teardown);

/* ---- the event log ------------------------------------------------------------------------- */

#define THREADS 4
#define EVENTS	20000 /* per thread: several chunks each */

static struct sk_evlog log4 = {.lock = PTHREAD_MUTEX_INITIALIZER};

struct ev {
	uint32_t thread, seq;
	uint8_t len;
	char text[];
};

static void *appender(void *arg)
{
	uint32_t t = (uint32_t)(uintptr_t)arg;
	char text[16];

	for (uint32_t i = 0; i < EVENTS; i++) {
		struct ev e = {.thread = t, .seq = i, .len = (uint8_t)(i % 13)};

		memset(text, 'a' + (int)t, sizeof(text));
		cr_assert_eq(sk_evlog_append(&log4, &e, offsetof(struct ev, text), text, e.len), 0);
	}
	return NULL;
}

static uint32_t next[THREADS];
static size_t seen;

/* The writer's side: each event in each thread's order, 8-byte aligned, its text intact. */
static size_t check(struct sk_sink *sk, const void *ev)
{
	const struct ev *e = ev;

	(void)sk;
	cr_assert_eq((uintptr_t)ev % 8, 0);
	cr_assert_lt(e->thread, THREADS);
	cr_assert_eq(e->seq, next[e->thread], "thread %u: event %u after %u", e->thread, e->seq,
		     next[e->thread]);
	next[e->thread]++;
	cr_assert_eq(e->len, e->seq % 13);
	for (int i = 0; i < e->len; i++)
		cr_assert_eq(e->text[i], 'a' + (int)e->thread);
	seen++;
	return offsetof(struct ev, text) + e->len;
}

/* Four threads append 20,000 events each of 9 to 21 bytes (2 MB: many chunks) while the writer
 * writes what is there; in the end every event came out once, whole, in its thread's order. */
Test(collector_apicalls, events_from_threads_come_out_whole_and_in_each_threads_order)
{
	pthread_t th[THREADS];
	size_t n = 0;

	for (uintptr_t t = 0; t < THREADS; t++)
		pthread_create(&th[t], NULL, appender, (void *)t);
	for (int i = 0; i < 50; i++)
		n += sk_evlog_write(&log4, &sink, SK_K_NVTX, check);
	for (int t = 0; t < THREADS; t++)
		pthread_join(th[t], NULL);
	n += sk_evlog_write(&log4, &sink, SK_K_NVTX, check);
	cr_expect_eq(n, (size_t)THREADS * EVENTS);
	cr_expect_eq(seen, n);
	for (int t = 0; t < THREADS; t++)
		cr_expect_eq(next[t], EVENTS);
	cr_expect_eq(sink.lost[SK_K_NVTX], 0);
	cr_expect_eq(sk_evlog_write(&log4, &sink, SK_K_NVTX, check), 0, "nothing left");
}

static size_t whole_chunk(struct sk_sink *sk, const void *ev)
{
	(void)sk;
	(void)ev;
	return SK_EVLOG_CHUNK;
}

Test(collector_apicalls, an_event_larger_than_a_chunk_is_refused)
{
	static struct sk_evlog l = {.lock = PTHREAD_MUTEX_INITIALIZER};
	static char big[SK_EVLOG_CHUNK + 1];

	cr_expect_eq(sk_evlog_append(&l, big, sizeof(big), NULL, 0), -1);
	cr_expect_eq(sk_evlog_append(&l, big, SK_EVLOG_CHUNK, NULL, 0), 0, "a chunk's size fits");
	cr_expect_eq(sk_evlog_write(&l, &sink, SK_K_NVTX, whole_chunk), 1);
}

/* ---- API calls through callbacks ------------------------------------------------------------ */

/* One callback of call @cbid of @domain at @site with correlation id @corr; @data is the call's
 * correlationData (shared by its entry and exit), @ret its return value. Returns what
 * sk_apicalls_callback() returns. */
static int call(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, CUpti_ApiCallbackSite site,
		uint32_t corr, uint64_t *data, uint32_t *ret)
{
	CUpti_CallbackData cb;

	memset(&cb, 0, sizeof(cb));
	cb.callbackSite = site;
	cb.correlationId = corr;
	cb.correlationData = data;
	cb.functionReturnValue = ret;
	return sk_apicalls_callback(domain, cbid, &cb);
}

#define RT  CUPTI_CB_DOMAIN_RUNTIME_API
#define DRV CUPTI_CB_DOMAIN_DRIVER_API
#define IN  CUPTI_API_ENTER
#define OUT CUPTI_API_EXIT

/*
 * In one range: cudaLaunchKernel (11) with the runtime's own cuLaunchKernel (12) inside it, then
 * cuLaunchKernelEx (13) from the program, returning 700; cudaMalloc is not a selected call; an
 * exit whose entry came before the range (its correlationData never set) is left out. Then a
 * range ends inside cudaLaunchKernel (14) and the next one starts: that call's open state is
 * stale, and cuLaunchKernel (15) in the new range is the program's. Rows: 11 (runtime), 13 and
 * 15 (driver), each on this thread, ending after it started; none once the callbacks are off.
 */
Test(collector_apicalls, the_selected_calls_become_runtime_and_driver_rows)
{
	uint64_t d11 = 0, d12 = 0, d13 = 0, d14 = 0, d15 = 0, stale = 0;
	uint32_t ok = 0, err = 700;
	uint32_t tid = (uint32_t)syscall(SYS_gettid);
	char sql[200];

	sk_apicalls_select(NULL, SKIP_TRACE_DEFAULT, 1);
	cr_assert_eq(call(RT, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, IN, 11, &d11, &ok),
		     1);
	cr_assert_eq(call(DRV, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, IN, 12, &d12, &ok), 1);
	cr_assert_eq(call(DRV, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, OUT, 12, &d12, &ok), 1);
	cr_assert_eq(call(RT, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, OUT, 11, &d11, &ok),
		     1);
	cr_assert_eq(call(DRV, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, IN, 13, &d13, &err), 1);
	cr_assert_eq(call(DRV, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, OUT, 13, &d13, &err), 1);
	cr_expect_eq(call(RT, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, IN, 20, &stale, &ok), 0,
		     "not a selected call: the caller's to handle");
	cr_expect_eq(call(DRV, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, OUT, 21, &stale, &ok), 1);
	cr_assert_eq(call(RT, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, IN, 14, &d14, &ok),
		     1);
	sk_apicalls_select(NULL, SKIP_TRACE_DEFAULT, 0);
	cr_expect_eq(call(DRV, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, IN, 16, &stale, &ok), 0,
		     "off between ranges");
	sk_apicalls_select(NULL, SKIP_TRACE_DEFAULT, 1);
	cr_assert_eq(call(DRV, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, IN, 15, &d15, &ok), 1);
	cr_assert_eq(call(DRV, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, OUT, 15, &d15, &ok), 1);
	sk_apicalls_select(NULL, SKIP_TRACE_DEFAULT, 0);

	cr_expect_eq(sk_apicalls_write(&sink), 3);
	cr_assert_eq(sk_sink_commit(&sink), 0);
	cr_expect_eq(q("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME"), 3);
	cr_expect_eq(
	    q("SELECT eventClass FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE correlationId = 11"), 0,
	    "a runtime call");
	cr_expect_eq(
	    q("SELECT sum(eventClass) FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE correlationId "
	      "IN (13, 15)"),
	    2, "driver calls");
	cr_expect_eq(
	    q("SELECT returnValue FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE correlationId = 13"), 700);
	cr_expect_eq(
	    q("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = "
	      "r.nameId WHERE s.value LIKE 'cuLaunchKernel%'"),
	    2, "named by CUPTI's callback names");
	cr_expect_eq(
	    q("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE start > 0 AND end >= "
	      "start AND runId = 7"),
	    3);
	snprintf(sql, sizeof(sql),
		 "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE globalTid & 16777215 = %u",
		 tid);
	cr_expect_eq(q(sql), 3, "the calling thread");
	cr_expect_eq(q("SELECT start FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE correlationId = 11"),
		     (long long)d11, "the start taken at the entry");
}
