/*
 * nvtx.c: the baseline mode's NVTX ranges, recorded without CUPTI.
 *
 * When SKIP_TRACE asks for NVTX and nothing else (`skip record --trace nvtx`, and the baseline
 * runs of `skip record --baseline`), the collector enables no CUPTI activity and subscribes to
 * no callback: its NVTX entry (InitializeInjectionNvtx2, reached through NVTX_INJECTION64_PATH in
 * every library that uses NVTX, PyTorch's included) fills NVTX's function tables with the
 * handlers below instead of forwarding to CUPTI. A handler takes the time (the trace clock, as
 * CUPTI's records are pinned to) and appends one small event to an in-memory log under one
 * mutex; the writer thread turns the log into the same MARKER records CUPTI would give
 * (sk_sink_record), so the rows, their range pairing and their types (59, 60, 34) are the
 * full mode's. Colors, categories and payloads are not kept: the mode times regions.
 *
 * Memory: the log is an event log (evlog.c), taken whole by the writer and freed after
 * writing; domain and registered-string handles are malloc'ed once and live as long as the
 * process (NVTX hands them back at any time). Plain malloc, NULL handled: an event that cannot be
 * stored is counted as lost (SKIP_DROPS, kind nvtx).
 */
#define SK_LOG_DOMAIN "collector"
#define NVTX_NO_IMPL
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <wchar.h>

#include <nvtx3/nvToolsExt.h>

#include "internal.h"

#define TEXT_MAX    1024 /* longer messages are cut */
#define STACK_MAX   64	 /* push/pop depth kept per thread and domain */
#define DOMAINS_MAX 8	 /* domains with a push/pop stack per thread */

enum ev_type { EV_START, EV_END, EV_MARK };

struct ev {
	uint64_t ts;
	uint32_t id;
	uint32_t tid;
	const char *domain; /* NULL: the default domain */
	uint16_t len;	    /* text bytes (no NUL) */
	uint8_t type;	    /* enum ev_type */
	char text[];
};

static struct sk_evlog evlog = {.lock = PTHREAD_MUTEX_INITIALIZER};
static uint32_t next_id;

struct domain { /* an nvtxDomainHandle_t */
	char *name;
};
struct string { /* an nvtxStringHandle_t */
	char *text;
};

/* Per thread: its id and one push/pop stack per domain. */
static __thread uint32_t my_tid;
static __thread struct {
	const struct domain *domain;
	uint32_t ids[STACK_MAX];
	int depth; /* may exceed STACK_MAX: the ids past it are not kept */
} stacks[DOMAINS_MAX];

static uint32_t tid(void)
{
	if (!my_tid)
		my_tid = (uint32_t)syscall(SYS_gettid);
	return my_tid;
}

static void put(enum ev_type type, uint32_t id, const struct domain *d, const char *text,
		size_t len)
{
	struct ev e = {.ts = skip_clock_ns(SKIP_TRACE_CLOCK),
		       .id = id,
		       .domain = d ? d->name : NULL,
		       .len = (uint16_t)len,
		       .type = (uint8_t)type};

	if (!sk_g.active || sk_g.finished)
		return;
	e.tid = tid();
	sk_evlog_append(&evlog, &e, offsetof(struct ev, text), text, len);
}

static uint32_t new_id(void)
{
	return __atomic_add_fetch(&next_id, 1, __ATOMIC_RELAXED);
}

/* The message of @a as narrow text in @buf (wide characters past ASCII become '?'). */
static const char *message(const nvtxEventAttributes_t *a, char *buf, size_t *len)
{
	const char *s = "";

	*len = 0;
	if (!a)
		return s;
	if (a->messageType == NVTX_MESSAGE_TYPE_ASCII && a->message.ascii)
		s = a->message.ascii;
	else if (a->messageType == NVTX_MESSAGE_TYPE_REGISTERED && a->message.registered)
		s = ((const struct string *)(const void *)a->message.registered)->text;
	else if (a->messageType == NVTX_MESSAGE_TYPE_UNICODE && a->message.unicode) {
		const wchar_t *w = a->message.unicode;

		while (w[*len] && *len < TEXT_MAX) {
			buf[*len] = w[*len] > 0 && w[*len] < 128 ? (char)w[*len] : '?';
			(*len)++;
		}
		return buf;
	}
	*len = strnlen(s, TEXT_MAX);
	return s;
}

static const char *wide(const wchar_t *w, char *buf, size_t *len)
{
	nvtxEventAttributes_t a = {.messageType = NVTX_MESSAGE_TYPE_UNICODE};

	a.message.unicode = w;
	return message(&a, buf, len);
}

static int slot_of(const struct domain *d)
{
	for (int i = 0; i < DOMAINS_MAX; i++)
		if (stacks[i].domain == d || (!stacks[i].domain && !stacks[i].depth)) {
			stacks[i].domain = d;
			return i;
		}
	return DOMAINS_MAX - 1; /* more domains than slots: they share the last */
}

static int push(const struct domain *d, const char *text, size_t len)
{
	int s = slot_of(d);
	uint32_t id = new_id();

	if (stacks[s].depth < STACK_MAX)
		stacks[s].ids[stacks[s].depth] = id;
	put(EV_START, id, d, text, len);
	return stacks[s].depth++;
}

static int pop(const struct domain *d)
{
	int s = slot_of(d);

	if (stacks[s].depth <= 0)
		return -1;
	stacks[s].depth--;
	if (stacks[s].depth < STACK_MAX)
		put(EV_END, stacks[s].ids[stacks[s].depth], d, "", 0);
	return stacks[s].depth;
}

static uint32_t start(const struct domain *d, const char *text, size_t len)
{
	uint32_t id = new_id();

	put(EV_START, id, d, text, len);
	return id;
}

/* ---- the NVTX entry points ------------------------------------------------------------- */

static void mark_ex(const nvtxEventAttributes_t *a)
{
	char buf[TEXT_MAX];
	size_t len;
	const char *s = message(a, buf, &len);

	put(EV_MARK, new_id(), NULL, s, len);
}
static void mark_a(const char *m)
{
	put(EV_MARK, new_id(), NULL, m ? m : "", m ? strnlen(m, TEXT_MAX) : 0);
}
static void mark_w(const wchar_t *m)
{
	char buf[TEXT_MAX];
	size_t len = 0;
	const char *s = m ? wide(m, buf, &len) : "";

	put(EV_MARK, new_id(), NULL, s, len);
}
static nvtxRangeId_t start_ex(const nvtxEventAttributes_t *a)
{
	char buf[TEXT_MAX];
	size_t len;
	const char *s = message(a, buf, &len);

	return start(NULL, s, len);
}
static nvtxRangeId_t start_a(const char *m)
{
	return start(NULL, m ? m : "", m ? strnlen(m, TEXT_MAX) : 0);
}
static nvtxRangeId_t start_w(const wchar_t *m)
{
	char buf[TEXT_MAX];
	size_t len = 0;
	const char *s = m ? wide(m, buf, &len) : "";

	return start(NULL, s, len);
}
static void end(nvtxRangeId_t id)
{
	put(EV_END, (uint32_t)id, NULL, "", 0);
}
static int push_ex(const nvtxEventAttributes_t *a)
{
	char buf[TEXT_MAX];
	size_t len;
	const char *s = message(a, buf, &len);

	return push(NULL, s, len);
}
static int push_a(const char *m)
{
	return push(NULL, m ? m : "", m ? strnlen(m, TEXT_MAX) : 0);
}
static int push_w(const wchar_t *m)
{
	char buf[TEXT_MAX];
	size_t len = 0;
	const char *s = m ? wide(m, buf, &len) : "";

	return push(NULL, s, len);
}
static int pop_default(void)
{
	return pop(NULL);
}

static void d_mark_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
	char buf[TEXT_MAX];
	size_t len;
	const char *s = message(a, buf, &len);

	put(EV_MARK, new_id(), (const struct domain *)(const void *)d, s, len);
}
static nvtxRangeId_t d_start_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
	char buf[TEXT_MAX];
	size_t len;
	const char *s = message(a, buf, &len);

	return start((const struct domain *)(const void *)d, s, len);
}
static void d_end(nvtxDomainHandle_t d, nvtxRangeId_t id)
{
	put(EV_END, (uint32_t)id, (const struct domain *)(const void *)d, "", 0);
}
static int d_push_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
	char buf[TEXT_MAX];
	size_t len;
	const char *s = message(a, buf, &len);

	return push((const struct domain *)(const void *)d, s, len);
}
static int d_pop(nvtxDomainHandle_t d)
{
	return pop((const struct domain *)(const void *)d);
}
static char *dup_n(const char *s, size_t len)
{
	char *p = malloc(len + 1);

	if (p) {
		memcpy(p, s, len);
		p[len] = '\0';
	}
	return p;
}
static nvtxStringHandle_t d_register_a(nvtxDomainHandle_t d, const char *s)
{
	struct string *h = malloc(sizeof(*h));

	(void)d;
	if (h && !(h->text = dup_n(s ? s : "", s ? strnlen(s, TEXT_MAX) : 0))) {
		free(h);
		h = NULL;
	}
	return (nvtxStringHandle_t)(void *)h;
}
static nvtxStringHandle_t d_register_w(nvtxDomainHandle_t d, const wchar_t *w)
{
	char buf[TEXT_MAX + 1];
	size_t len = 0;
	const char *s = w ? wide(w, buf, &len) : "";

	buf[len] = '\0';
	return d_register_a(d, w ? buf : s);
}
static nvtxDomainHandle_t d_create_a(const char *name)
{
	struct domain *h = malloc(sizeof(*h));

	if (h && !(h->name = dup_n(name ? name : "", name ? strnlen(name, TEXT_MAX) : 0))) {
		free(h);
		h = NULL;
	}
	return (nvtxDomainHandle_t)(void *)h;
}
static nvtxDomainHandle_t d_create_w(const wchar_t *w)
{
	char buf[TEXT_MAX + 1];
	size_t len = 0;

	if (w)
		wide(w, buf, &len);
	buf[len] = '\0';
	return d_create_a(buf);
}
static void d_destroy(nvtxDomainHandle_t d)
{
	(void)d; /* kept: events of the domain may still be waiting for the writer */
}
static void initialize(const void *reserved)
{
	(void)reserved;
}

/* Set slot @cbid of @module's table to @fn, when the library's table has that slot. */
static void set(const NvtxExportTableCallbacks *cb, NvtxCallbackModule module, unsigned cbid,
		NvtxFunctionPointer fn)
{
	NvtxFunctionTable table = NULL;
	unsigned int size = 0;

	if (!cb->GetModuleFunctionTable(module, &table, &size) || !table || cbid >= size ||
	    !table[cbid])
		return;
	*table[cbid] = fn;
}

#define FN(f) ((NvtxFunctionPointer)(void (*)(void))(f))

int sk_nvtx_attach(void *get_export_table)
{
	NvtxGetExportTableFunc_t get = (NvtxGetExportTableFunc_t)get_export_table;
	const NvtxExportTableCallbacks *cb = get ? get(NVTX_ETID_CALLBACKS) : NULL;
	static const struct {
		NvtxCallbackModule module;
		unsigned cbid;
	} slots[] = {
	    {NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_MarkEx},
	    {NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_MarkA},
	    {NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_MarkW},
	    {NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangeStartEx},
	    {NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangeStartA},
	    {NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangeStartW},
	    {NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangeEnd},
	    {NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePushEx},
	    {NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePushA},
	    {NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePushW},
	    {NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePop},
	    {NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainMarkEx},
	    {NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRangeStartEx},
	    {NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRangeEnd},
	    {NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRangePushEx},
	    {NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRangePop},
	    {NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRegisterStringA},
	    {NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRegisterStringW},
	    {NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainCreateA},
	    {NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainCreateW},
	    {NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainDestroy},
	    {NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_Initialize},
	};
	const NvtxFunctionPointer fns[] = {
	    FN(mark_ex),     FN(mark_a),       FN(mark_w),	 FN(start_ex),	 FN(start_a),
	    FN(start_w),     FN(end),	       FN(push_ex),	 FN(push_a),	 FN(push_w),
	    FN(pop_default), FN(d_mark_ex),    FN(d_start_ex),	 FN(d_end),	 FN(d_push_ex),
	    FN(d_pop),	     FN(d_register_a), FN(d_register_w), FN(d_create_a), FN(d_create_w),
	    FN(d_destroy),   FN(initialize),
	};

	if (!cb || cb->struct_size < sizeof(*cb) || !cb->GetModuleFunctionTable)
		return 0;
	for (size_t i = 0; i < sizeof(slots) / sizeof(slots[0]); i++)
		set(cb, slots[i].module, slots[i].cbid, fns[i]);
	return 1;
}

/* ---- the writer's side ---------------------------------------------------------------------- */

/* One logged event as the MARKER record CUPTI would give; returns its size in the log. */
static size_t put_marker(struct sk_sink *sink, const void *ev)
{
	const struct ev *e = ev;
	size_t len = e->len;
	char text[TEXT_MAX + 1];
	CUpti_ActivityMarker2 mk;

	memset(&mk, 0, sizeof(mk));
	memcpy(text, e->text, len);
	text[len] = '\0';
	mk.kind = CUPTI_ACTIVITY_KIND_MARKER;
	mk.flags = e->type == EV_START ? CUPTI_ACTIVITY_FLAG_MARKER_START
		   : e->type == EV_END ? CUPTI_ACTIVITY_FLAG_MARKER_END
				       : CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS;
	mk.timestamp = e->ts;
	mk.id = e->id;
	mk.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
	mk.objectId.pt.processId = sink->pid;
	mk.objectId.pt.threadId = e->tid;
	mk.name = e->type == EV_END ? NULL : text;
	mk.domain = e->domain;
	sk_sink_record(sink, (const CUpti_Activity *)&mk);
	return offsetof(struct ev, text) + len;
}

size_t sk_nvtx_write(struct sk_sink *sink)
{
	return sk_evlog_write(&evlog, sink, SK_K_NVTX, put_marker);
}
