/*
 * test_capture.c: the NVTX capture range's trigger (collector/capture.c), fed pushes and pops as
 * CUPTI's NVTX callbacks would, with the answers worked out by hand in each test.
 */
#define NVTX_NO_IMPL
#include <criterion/criterion.h>
#include <string.h>

#include <nvtx3/nvToolsExt.h>

#include <generated_nvtx_meta.h>

#include "collector/internal.h"

static struct skip_capture cap;
static struct sk_trigger trig;

static void setup(const char *spec)
{
	cr_assert_eq(skip_capture_parse(spec, &cap), 0, "%s", skip_errmsg());
	memset(&trig, 0, sizeof(trig));
	trig.cap = &cap;
}

/* One step: push 'step', a nested push and pop of 'fwd', pop. Returns the actions seen, in
 * order, as START (1) and STOP (2) digits of a decimal number. */
static int step(struct sk_trigger_thread *th)
{
	int acts = 0, a;

	if ((a = sk_trigger_push(&trig, th, NULL, "step")))
		acts = acts * 10 + a;
	if ((a = sk_trigger_push(&trig, th, NULL, "fwd")))
		acts = acts * 10 + a;
	if ((a = sk_trigger_pop(th, NULL)))
		acts = acts * 10 + a;
	if ((a = sk_trigger_pop(th, NULL)))
		acts = acts * 10 + a;
	return acts;
}

/* nvtx:step:3:2 on one thread: step 2's pop starts the range (steps 3 and 4 lie inside), step
 * 5's push stops it; the nested 'fwd' pops do not end step 2 early. */
Test(collector_capture, the_range_starts_after_occurrence_first_minus_1_and_stops_before_the_next)
{
	struct sk_trigger_thread th = {0};

	setup("nvtx:step:3:2");
	cr_expect_eq(step(&th), 0, "step 1");
	cr_expect_eq(step(&th), SK_TRIGGER_START, "step 2 ends: start");
	cr_expect_eq(step(&th), SK_TRIGGER_START, "step 3's push: start again (a no-op)");
	cr_expect_eq(step(&th), 0, "step 4");
	cr_expect_eq(step(&th), SK_TRIGGER_STOP, "step 5 begins: stop");
	cr_expect_eq(step(&th), 0, "step 6");
	cr_expect_eq(atomic_load(&trig.seen), 6);
}

/* nvtx:step (FIRST 1, to the end): the first push starts it; nothing stops it. */
Test(collector_capture, without_first_and_count_the_first_push_starts_it_for_good)
{
	struct sk_trigger_thread th = {0};

	setup("nvtx:step");
	cr_expect_eq(step(&th), SK_TRIGGER_START);
	for (int i = 0; i < 5; i++)
		cr_expect_eq(step(&th), 0);
}

/* nvtx:step:2:1 with steps on two threads: occurrence 1 on thread A, 2 on B (pushed while 1 is
 * still open), 3 on A. A's pop of occurrence 1 starts it (B's push of 2 already did: START
 * twice); A's push of 3 stops it. Pops on B never touch A's state. */
Test(collector_capture, occurrences_are_counted_across_threads_and_pops_per_thread)
{
	struct sk_trigger_thread a = {0}, b = {0};

	setup("nvtx:step:2:1");
	cr_expect_eq(sk_trigger_push(&trig, &a, NULL, "step"), 0, "1 on A");
	cr_expect_eq(sk_trigger_push(&trig, &b, NULL, "step"), SK_TRIGGER_START, "2 on B");
	cr_expect_eq(sk_trigger_pop(&b, NULL), 0, "B's pop is not A's");
	cr_expect_eq(sk_trigger_pop(&a, NULL), SK_TRIGGER_START, "1 ends on A");
	cr_expect_eq(sk_trigger_push(&trig, &a, NULL, "step"), SK_TRIGGER_STOP, "3 on A");
}

/* A domain's pops do not close the default domain's range, and the same name in a domain
 * counts; wide messages are never NAME. */
Test(collector_capture, pops_belong_to_their_domain_and_wide_messages_never_match)
{
	struct sk_trigger_thread th = {0};
	int dom;

	setup("nvtx:step:2:1");
	cr_expect_eq(sk_trigger_push(&trig, &th, NULL, NULL), 0, "a wide 'step'");
	cr_expect_eq(sk_trigger_push(&trig, &th, NULL, "step"), 0, "occurrence 1");
	cr_expect_eq(sk_trigger_push(&trig, &th, &dom, "other"), 0);
	cr_expect_eq(sk_trigger_pop(&th, &dom), 0, "the domain's pop");
	cr_expect_eq(sk_trigger_pop(&th, NULL), SK_TRIGGER_START, "occurrence 1 ends");
	cr_expect_eq(sk_trigger_push(&trig, &th, &dom, "step"), SK_TRIGGER_START,
		     "occurrence 2, in a domain, counts");
	cr_expect_eq(sk_trigger_pop(&th, &dom), 0);
	cr_expect_eq(sk_trigger_push(&trig, &th, NULL, "step"), SK_TRIGGER_STOP, "occurrence 3");
}

/* The CUPTI form: each callback's parameters, ASCII and Ex messages. */
Test(collector_capture, cupti_callbacks_give_the_message_and_domain)
{
	struct sk_trigger_thread th = {0};
	nvtxEventAttributes_t attr = {0};
	nvtxRangePushA_params pa = {.message = "step"};
	nvtxRangePushEx_params pe = {.eventAttrib = &attr};
	nvtxDomainRangePushEx_params pd = {.domain = (nvtxDomainHandle_t)&th, .core = {&attr}};
	nvtxDomainRangePop_params pp = {.domain = (nvtxDomainHandle_t)&th};

	attr.version = NVTX_VERSION;
	attr.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
	attr.messageType = NVTX_MESSAGE_TYPE_ASCII;
	attr.message.ascii = "step";
	setup("nvtx:step:3:1");
	cr_expect_eq(sk_trigger_nvtx(&trig, &th, CUPTI_CBID_NVTX_nvtxRangePushA, &pa), 0);
	cr_expect_eq(sk_trigger_nvtx(&trig, &th, CUPTI_CBID_NVTX_nvtxRangePop, NULL), 0);
	cr_expect_eq(sk_trigger_nvtx(&trig, &th, CUPTI_CBID_NVTX_nvtxDomainRangePushEx, &pd), 0);
	cr_expect_eq(sk_trigger_nvtx(&trig, &th, CUPTI_CBID_NVTX_nvtxDomainRangePop, &pp),
		     SK_TRIGGER_START, "occurrence 2 (in a domain) ends");
	cr_expect_eq(sk_trigger_nvtx(&trig, &th, CUPTI_CBID_NVTX_nvtxRangePushEx, &pe),
		     SK_TRIGGER_START);
	cr_expect_eq(sk_trigger_nvtx(&trig, &th, CUPTI_CBID_NVTX_nvtxRangePop, NULL), 0);
	attr.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
	cr_expect_eq(sk_trigger_nvtx(&trig, &th, CUPTI_CBID_NVTX_nvtxRangePushEx, &pe), 0,
		     "a registered string is not NAME");
	attr.messageType = NVTX_MESSAGE_TYPE_ASCII;
	cr_expect_eq(sk_trigger_nvtx(&trig, &th, CUPTI_CBID_NVTX_nvtxRangePushEx, &pe),
		     SK_TRIGGER_STOP, "occurrence 4");
	cr_expect_eq(sk_trigger_nvtx(&trig, &th, CUPTI_CBID_NVTX_nvtxMarkA, &pa), 0);
}
