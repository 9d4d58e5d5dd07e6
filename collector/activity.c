/*
 * activity.c: which CUPTI activity kinds and API calls are recorded.
 *
 * By default only the API calls the analyzer needs are recorded: kernel launches (runtime and
 * driver, since cuBLAS and others launch through the driver API), graph launches, memcpy and
 * memset, and the synchronization and event calls. They are selected by callback id with
 * cuptiActivityEnableRuntimeApi/DriverApi, without enabling the RUNTIME/DRIVER kinds wholesale
 * (that would override the selection): PyTorch makes ~8 runtime calls per kernel, and
 * recording them all is where a collector's cost goes (shared/research/h100-cupti-probes.md).
 * `--trace=all-apis` records every call.
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

/* Enable the calls of @domain whose names match the categories in @trace; returns how many. */
static int select_apis(CUpti_CallbackDomain domain, unsigned trace)
{
	int driver = domain == CUPTI_CB_DOMAIN_DRIVER_API;
	uint32_t size = driver ? CUPTI_DRIVER_TRACE_CBID_SIZE : CUPTI_RUNTIME_TRACE_CBID_SIZE;
	int n = 0;

	for (uint32_t cbid = 1; cbid < size; cbid++) {
		const char *name = NULL;

		if (cuptiGetCallbackName(domain, cbid, &name) != CUPTI_SUCCESS || !name)
			continue;
		if (matches(name, never_words))
			continue;
		if (!((trace & SKIP_TRACE_CUDA) && matches(name, launch_words)) &&
		    !((trace & SKIP_TRACE_SYNC) && matches(name, sync_words)))
			continue;
		if ((driver ? cuptiActivityEnableDriverApi(cbid, 1)
			    : cuptiActivityEnableRuntimeApi(cbid, 1)) == CUPTI_SUCCESS)
			n++;
	}
	return n;
}

int sk_trace_needs_cupti(unsigned trace)
{
	return (trace & (SKIP_TRACE_KINDS & ~SKIP_TRACE_NVTX)) || (trace & SKIP_TRACE_ALL_APIS);
}

int sk_activity_enable(unsigned trace)
{
	int napis = 0;

	if (trace & SKIP_TRACE_LATENCY)
		SK_CUPTI_CHECK(cuptiActivityEnableLatencyTimestamps(1));
	SK_CUPTI_CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DEVICE));
	SK_CUPTI_CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONTEXT));
	if (trace & SKIP_TRACE_CUDA) {
		/* CONCURRENT_KERNEL, never KERNEL: KERNEL serializes every kernel. */
		if (SK_CUPTI_CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)) !=
		    CUPTI_SUCCESS)
			return sk_fail(SKIP_E_CUPTI, "cannot enable kernel tracing");
		SK_CUPTI_CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY));
		SK_CUPTI_CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET));
		if (trace & SKIP_TRACE_GRAPH_LEVEL)
			SK_CUPTI_CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_GRAPH_TRACE));
	}
	if (trace & SKIP_TRACE_SYNC)
		SK_CUPTI_CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION));
	if (trace & SKIP_TRACE_NVTX) {
		SK_CUPTI_CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MARKER));
		SK_CUPTI_CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MARKER_DATA));
	}
	if (trace & SKIP_TRACE_OVERHEAD)
		SK_CUPTI_CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_OVERHEAD));
	if (trace & SKIP_TRACE_ALL_APIS) {
		SK_CUPTI_CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME));
		SK_CUPTI_CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DRIVER));
	} else if (trace & (SKIP_TRACE_CUDA | SKIP_TRACE_SYNC)) {
		napis = select_apis(CUPTI_CB_DOMAIN_RUNTIME_API, trace) +
			select_apis(CUPTI_CB_DOMAIN_DRIVER_API, trace);
		sk_dbg(1, "recording %d runtime/driver API calls", napis);
	}
	return 0;
}
