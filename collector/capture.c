/*
 * capture.c: when an NVTX capture range (skip record --capture-range nvtx:NAME:FIRST:COUNT)
 * starts and stops.
 *
 * Every push and pop of the process's threads comes here (CUPTI's NVTX callbacks, enabled by
 * inject.c). Pushes of NAME are counted across the process. Recording starts when occurrence
 * FIRST - 1 ends (its pop, on its thread) and stops when occurrence FIRST + COUNT begins (its
 * push), so that occurrences FIRST to FIRST + COUNT - 1 lie wholly inside the capture range
 * whichever side of a callback NVTX takes its timestamps; with FIRST 1 it starts at the first
 * push, and that occurrence may begin just before the range. A pop belongs to the push it
 * closes on its thread and in its domain: from occurrence FIRST - 1's push on, its thread
 * counts the pushes and pops of that domain until the depth is back to none.
 *
 * Names are compared as ASCII messages (nvtxRangePushA, and the Ex forms with an ASCII message);
 * wide and registered-string messages are never NAME. Thread-safe: the count is atomic, the
 * rest is the calling thread's.
 */
#define NVTX_NO_IMPL
#include <string.h>

#include <nvtx3/nvToolsExt.h>

#include <generated_nvtx_meta.h>

#include "internal.h"

/* The message of an event's attributes when it is ASCII, else NULL. */
static const char *ascii(const nvtxEventAttributes_t *a)
{
	return a && a->messageType == NVTX_MESSAGE_TYPE_ASCII ? a->message.ascii : NULL;
}

int sk_trigger_push(struct sk_trigger *t, struct sk_trigger_thread *th, const void *domain,
		    const char *name)
{
	uint64_t n;
	int act = 0;

	if (th->depth > 0 && th->domain == domain)
		th->depth++;
	if (!name || strcmp(name, t->cap->name) != 0)
		return 0;
	n = atomic_fetch_add(&t->seen, 1) + 1;
	if (n + 1 == t->cap->first) { /* its pop starts the range */
		th->domain = domain;
		th->depth = 1;
	}
	if (n == t->cap->first)
		act = SK_TRIGGER_START; /* FIRST 1, or occurrence FIRST - 1 still open elsewhere */
	if (t->cap->count && n == t->cap->first + t->cap->count)
		act = SK_TRIGGER_STOP;
	return act;
}

int sk_trigger_pop(struct sk_trigger_thread *th, const void *domain)
{
	if (th->depth <= 0 || th->domain != domain)
		return 0;
	return --th->depth == 0 ? SK_TRIGGER_START : 0;
}

int sk_trigger_nvtx(struct sk_trigger *t, struct sk_trigger_thread *th, CUpti_CallbackId cbid,
		    const void *params)
{
	switch (cbid) {
	case CUPTI_CBID_NVTX_nvtxRangePushA:
		return sk_trigger_push(t, th, NULL,
				       ((const nvtxRangePushA_params *)params)->message);
	case CUPTI_CBID_NVTX_nvtxRangePushW:
		return sk_trigger_push(t, th, NULL, NULL);
	case CUPTI_CBID_NVTX_nvtxRangePushEx:
		return sk_trigger_push(
		    t, th, NULL, ascii(((const nvtxRangePushEx_params *)params)->eventAttrib));
	case CUPTI_CBID_NVTX_nvtxDomainRangePushEx: {
		const nvtxDomainRangePushEx_params *p = params;

		return sk_trigger_push(t, th, p->domain, ascii(p->core.eventAttrib));
	}
	case CUPTI_CBID_NVTX_nvtxRangePop:
		return sk_trigger_pop(th, NULL);
	case CUPTI_CBID_NVTX_nvtxDomainRangePop:
		return sk_trigger_pop(th, ((const nvtxDomainRangePop_params *)params)->domain);
	default:
		return 0;
	}
}

const CUpti_CallbackId sk_trigger_cbids[SK_TRIGGER_NCBIDS] = {
    CUPTI_CBID_NVTX_nvtxRangePushA,  CUPTI_CBID_NVTX_nvtxRangePushW,
    CUPTI_CBID_NVTX_nvtxRangePushEx, CUPTI_CBID_NVTX_nvtxDomainRangePushEx,
    CUPTI_CBID_NVTX_nvtxRangePop,    CUPTI_CBID_NVTX_nvtxDomainRangePop,
};
