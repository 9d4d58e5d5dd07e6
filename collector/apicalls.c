/*
 * apicalls.c: a capture range's API calls, recorded through CUPTI's callbacks.
 *
 * Outside a capture range the selected API calls (activity.c, sk_activity_selected()) are CUPTI
 * activity records enabled by callback id. That selection only works at start-up: enabled by id
 * mid-process, CUPTI records none (measured on the H100, CUDA 13.0), and enabling the RUNTIME and
 * DRIVER kinds wholesale inside each range, then turning the rest off by id, cost a PyTorch
 * training step 1.30x inside the range, against 1.10x this way (docs/BENCHMARKS.md "What the
 * on/off ratio misses"). So inside a range the collector subscribes to the selected calls'
 * callbacks instead, which CUPTI switches on and off at any time, and makes the same records
 * itself: the call's start at its entry and its end at its exit on the trace clock (the one CUPTI's
 * records are pinned to), the calling thread, CUPTI's correlation id for the call (the one its
 * kernel carries) and the return value. A driver call made inside a runtime call on the same thread
 * (the runtime's own) is not a call of the program and is left out, as CUPTI's records leave it.
 *
 * Memory: the records go into an event log (evlog.c), taken whole by the writer
 * (sk_apicalls_write) and freed after writing. A record that cannot be stored is counted as
 * lost (SKIP_DROPS, kind runtime).
 */
#define SK_LOG_DOMAIN "collector"
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"

static struct sk_evlog evlog = {.lock = PTHREAD_MUTEX_INITIALIZER};
static struct {
	uint64_t gen; /* ranges begun: a thread's runtime-call state of an earlier one is stale */
	uint64_t since_ns; /* the trace clock when the callbacks were last switched on */
	/* the calls whose callbacks are on: [0] runtime, [1] driver, by callback id */
	uint8_t on[2][(int)CUPTI_DRIVER_TRACE_CBID_SIZE > (int)CUPTI_RUNTIME_TRACE_CBID_SIZE
			  ? (int)CUPTI_DRIVER_TRACE_CBID_SIZE
			  : (int)CUPTI_RUNTIME_TRACE_CBID_SIZE];
} g;

static __thread uint32_t my_tid;
/* The selected runtime calls open on this thread (entered, not yet exited) in range @gen. */
static __thread struct {
	uint64_t gen;
	int depth;
} rt;

/* The selected calls' ids, per domain, listed at the first switch (the selection is the
 * process's SKIP_TRACE, fixed): a range's start and stop then do no name lookups. */
static struct {
	int listed;
	unsigned trace;
	uint32_t n[2];
	uint16_t id[2][sizeof(g.on[0])];
} sel;

static void list_selected(unsigned trace)
{
	sel.trace = trace;
	sel.listed = 1;
	for (int d = 0; d < 2; d++)
		sel.n[d] = (uint32_t)sk_activity_selected(
		    d ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API, trace, sel.id[d],
		    (int)sizeof(sel.id[d]) / (int)sizeof(sel.id[d][0]));
}

int sk_apicalls_select(CUpti_SubscriberHandle sub, unsigned trace, int on)
{
	int n = 0;

	if (!sel.listed || sel.trace != trace)
		list_selected(trace);
	if (on) {
		__atomic_store_n(&g.since_ns, skip_clock_ns(SKIP_TRACE_CLOCK), __ATOMIC_RELAXED);
		__atomic_add_fetch(&g.gen, 1, __ATOMIC_RELAXED);
	}
	for (int d = 0; d < 2; d++) {
		CUpti_CallbackDomain domain =
		    d ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API;

		for (uint32_t i = 0; i < sel.n[d]; i++) {
			uint32_t cbid = sel.id[d][i];

			__atomic_store_n(&g.on[d][cbid], (uint8_t)on, __ATOMIC_RELAXED);
			if (SK_CUPTI_CHECK(cuptiEnableCallback((uint32_t)on, sub, domain, cbid)) ==
			    CUPTI_SUCCESS)
				n++;
		}
	}
	return n;
}

int sk_apicalls_callback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
			 const CUpti_CallbackData *cb)
{
	int d = domain == CUPTI_CB_DOMAIN_DRIVER_API;
	uint64_t now, gen;
	CUpti_ActivityAPI r;

	if ((domain != CUPTI_CB_DOMAIN_RUNTIME_API && !d) ||
	    cbid >= (d ? CUPTI_DRIVER_TRACE_CBID_SIZE : CUPTI_RUNTIME_TRACE_CBID_SIZE) ||
	    !__atomic_load_n(&g.on[d][cbid], __ATOMIC_RELAXED))
		return 0;
	now = skip_clock_ns(SKIP_TRACE_CLOCK);
	gen = __atomic_load_n(&g.gen, __ATOMIC_RELAXED);
	if (rt.gen != gen) { /* the first selected call on this thread in this range */
		rt.gen = gen;
		rt.depth = 0;
	}
	if (cb->callbackSite == CUPTI_API_ENTER) {
		rt.depth += !d;
		*cb->correlationData = now;
		return 1;
	}
	if (!d && rt.depth > 0)
		rt.depth--;
	/* the runtime's own driver call; or a call entered before the callbacks were on, whose
	 * correlationData CUPTI did not set */
	if ((d && rt.depth > 0) || *cb->correlationData > now ||
	    *cb->correlationData < __atomic_load_n(&g.since_ns, __ATOMIC_RELAXED))
		return 1;
	if (!my_tid)
		my_tid = (uint32_t)syscall(SYS_gettid);
	memset(&r, 0, sizeof(r));
	r.kind = d ? CUPTI_ACTIVITY_KIND_DRIVER : CUPTI_ACTIVITY_KIND_RUNTIME;
	r.cbid = cbid;
	r.start = *cb->correlationData;
	r.end = now;
	r.processId = (uint32_t)getpid();
	r.threadId = my_tid;
	r.correlationId = cb->correlationId;
	r.returnValue = cb->functionReturnValue ? *(const uint32_t *)cb->functionReturnValue : 0;
	sk_evlog_append(&evlog, &r, sizeof(r), NULL, 0);
	return 1;
}

static size_t put_call(struct sk_sink *sink, const void *ev)
{
	sk_sink_record(sink, ev);
	return sizeof(CUpti_ActivityAPI);
}

size_t sk_apicalls_write(struct sk_sink *sink)
{
	return sk_evlog_write(&evlog, sink, SK_K_RUNTIME, put_call);
}
