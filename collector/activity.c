/*
 * activity.c: which CUPTI activity kinds and API calls are recorded.
 *
 * By default only the API calls the analyzer needs are recorded: kernel launches (runtime and
 * driver, since cuBLAS and others launch through the driver API), graph launches, memcpy and
 * memset, and the synchronization and event calls. They are selected by callback id with
 * cuptiActivityEnableRuntimeApi/DriverApi, without enabling the RUNTIME/DRIVER kinds wholesale
 * (that would override the selection): PyTorch makes ~8 runtime calls per kernel, and
 * recording them all is where a collector's cost goes (shared/research/h100-cupti-probes.md).
 * Taking the same calls through their callbacks for the whole process, as a capture range does,
 * cost GPT-2 prefill more (docs/BENCHMARKS.md "Prefill at batch 1, the whole process").
 * `--trace=all-apis` records every call.
 *
 * A capture range switches the kinds on and off mid-process (sk_activity_capture), all but NVTX,
 * which stays on. The selection by id cannot be made there (enabled by id mid-process, CUPTI
 * records none), so a range takes the selected calls through their callbacks instead
 * (apicalls.c, switched by inject.c with the kinds); `--trace all-apis` still enables the
 * RUNTIME and DRIVER kinds. The same calls are recorded as without a range
 * (tests/gpu/test_record.c checks the count).
 */
#define SK_LOG_DOMAIN "collector"
#include <string.h>

#include "internal.h"

/* Substrings of API names, per category (cuptiGetCallbackName names such as
 * "cudaLaunchKernel_v7000", "cuLaunchKernelEx", "cudaMemcpyAsync_ptsz_v7000"). */
static const char *const launch_words[] = {"Launch", "Memcpy", "Memset", NULL};
static const char *const sync_words[] = {"Synchronize", "EventRecord", "StreamWaitEvent",
					 "EventQuery",	"StreamQuery", NULL};
/* Graph construction calls ("cudaGraphAddMemcpyNode") are not launches. */
static const char *const never_words[] = {"Node", NULL};

static int matches(const char *name, const char *const *words)
{
	for (int i = 0; words[i]; i++)
		if (strstr(name, words[i]))
			return 1;
	return 0;
}

/* Whether the call @name of the categories in @trace is one the default selection records. */
static int wanted(const char *name, unsigned trace)
{
	return !matches(name, never_words) &&
	       (((trace & SKIP_TRACE_CUDA) && matches(name, launch_words)) ||
		((trace & SKIP_TRACE_SYNC) && matches(name, sync_words)));
}

int sk_activity_selected(CUpti_CallbackDomain domain, unsigned trace, uint16_t *ids, int max)
{
	uint32_t size = domain == CUPTI_CB_DOMAIN_DRIVER_API ? CUPTI_DRIVER_TRACE_CBID_SIZE
							     : CUPTI_RUNTIME_TRACE_CBID_SIZE;
	int n = 0;

	for (uint32_t cbid = 1; cbid < size && n < max; cbid++) {
		const char *name = NULL;

		if (cuptiGetCallbackName(domain, cbid, &name) == CUPTI_SUCCESS && name &&
		    wanted(name, trace))
			ids[n++] = (uint16_t)cbid;
	}
	return n;
}

/* Enable the calls of @domain that the selection records; returns how many. */
static int select_apis(CUpti_CallbackDomain domain, unsigned trace)
{
	int driver = domain == CUPTI_CB_DOMAIN_DRIVER_API;
	uint16_t ids[CUPTI_DRIVER_TRACE_CBID_SIZE];
	int n = 0, k = sk_activity_selected(domain, trace, ids, (int)CUPTI_DRIVER_TRACE_CBID_SIZE);

	for (int i = 0; i < k; i++)
		if ((driver ? cuptiActivityEnableDriverApi(ids[i], 1)
			    : cuptiActivityEnableRuntimeApi(ids[i], 1)) == CUPTI_SUCCESS)
			n++;
	return n;
}

int sk_activity_capture_apis(unsigned trace)
{
	return !(trace & SKIP_TRACE_ALL_APIS) && (trace & (SKIP_TRACE_CUDA | SKIP_TRACE_SYNC));
}

int sk_activity_enable(unsigned trace, int capture)
{
	int err;

	if (trace & SKIP_TRACE_LATENCY)
		SK_CUPTI_CHECK(cuptiActivityEnableLatencyTimestamps(1));
	/* One record per device and context, needed to place every kernel: always on. */
	SK_CUPTI_CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DEVICE));
	SK_CUPTI_CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONTEXT));
	if (capture) {
		/* NVTX all along: a region outside the capture ranges keeps its wall interval,
		 * the program's own unprofiled time (skip report, skip advise). */
		if (trace & SKIP_TRACE_NVTX) {
			SK_CUPTI_CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MARKER));
			SK_CUPTI_CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MARKER_DATA));
		}
		return 0;
	}
	err = sk_activity_capture(trace, 0, 1);
	if (!err && sk_activity_capture_apis(trace)) {
		int n = select_apis(CUPTI_CB_DOMAIN_RUNTIME_API, trace) +
			select_apis(CUPTI_CB_DOMAIN_DRIVER_API, trace);

		sk_dbg(1, "recording %d runtime/driver API calls", n);
	}
	return err;
}

/* cuptiActivityEnable or cuptiActivityDisable. */
static CUptiResult set_kind(CUpti_ActivityKind kind, int on)
{
	return on ? cuptiActivityEnable(kind) : cuptiActivityDisable(kind);
}

int sk_activity_capture(unsigned trace, int capture, int on)
{
	if (trace & SKIP_TRACE_CUDA) {
		/* CONCURRENT_KERNEL, never KERNEL: KERNEL serializes every kernel. */
		if (SK_CUPTI_CHECK(set_kind(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, on)) !=
		    CUPTI_SUCCESS)
			return sk_fail(SKIP_E_CUPTI, "cannot %s kernel tracing",
				       on ? "enable" : "disable");
		SK_CUPTI_CHECK(set_kind(CUPTI_ACTIVITY_KIND_MEMCPY, on));
		SK_CUPTI_CHECK(set_kind(CUPTI_ACTIVITY_KIND_MEMSET, on));
		if (trace & SKIP_TRACE_GRAPH_LEVEL)
			SK_CUPTI_CHECK(set_kind(CUPTI_ACTIVITY_KIND_GRAPH_TRACE, on));
	}
	/* CUPTI's synchronization records only when asked for: no metric reads them (the
	 * analyzer takes the sync calls), and on a PyTorch training step they cost 1.29x while
	 * on and left it 1.24x slower after (docs/BENCHMARKS.md "What the on/off ratio misses"). */
	if (trace & SKIP_TRACE_SYNC_RECORDS)
		SK_CUPTI_CHECK(set_kind(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, on));
	if ((trace & SKIP_TRACE_NVTX) && !capture) {
		SK_CUPTI_CHECK(set_kind(CUPTI_ACTIVITY_KIND_MARKER, on));
		SK_CUPTI_CHECK(set_kind(CUPTI_ACTIVITY_KIND_MARKER_DATA, on));
	}
	if (trace & SKIP_TRACE_OVERHEAD)
		SK_CUPTI_CHECK(set_kind(CUPTI_ACTIVITY_KIND_OVERHEAD, on));
	if (trace & SKIP_TRACE_ALL_APIS) {
		SK_CUPTI_CHECK(set_kind(CUPTI_ACTIVITY_KIND_RUNTIME, on));
		SK_CUPTI_CHECK(set_kind(CUPTI_ACTIVITY_KIND_DRIVER, on));
	}
	/* a capture range's selected calls: inject.c switches their callbacks (apicalls.c) */
	return 0;
}
