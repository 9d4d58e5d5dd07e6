/*
 * nvtx.c: operators and regions from NVTX ranges.
 *
 * Operator of an operation = the innermost NVTX range open on the launching thread when its
 * launch call started; the whole stack of open ranges is kept (an sk_stacks id). Computed in one
 * sweep: operations sorted by (process, thread, launch start) against the ranges sorted by
 * (process, thread, start), with the set of open ranges maintained as the sweep goes (ranges
 * need not nest perfectly: the innermost is the open range that started last).
 *
 * A launch with no range open on its thread (PyTorch runs backward on its autograd thread) then
 * takes the ranges open at its start on the thread that caused it, when PyTorch's sequence
 * numbers tell which (attr SEQ: the launching thread's latest range with `seq = N` started
 * before the launch, and the latest range of another thread with the same N started before
 * that one, which is the forward op of that backward op); else the ranges open on the other
 * threads of the process (attr OTHER: those of the thread whose open range started last).
 * A second sweep does this, over the operations by (process, launch start) against every
 * thread's ranges by (process, start).
 *
 * A region occurrence is a window [range start, range end]: an operation belongs to it when its
 * launch call started inside the window in the same process, whatever the thread (frameworks
 * launch from helper threads: PyTorch runs backward on its own), the innermost window when
 * several contain it.
 */
#define SK_LOG_DOMAIN "analyzer"
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static int cmp_range(const void *a, const void *b)
{
	const struct sk_range *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->end < y->end) - (x->end > y->end); /* the outer one first */
}

/* qsort_r comparisons of record indices; @ops: the run's records. */
static int cmp_op_thread(const void *a, const void *b, void *ops)
{
	const struct sk_rec *x = (const struct sk_rec *)ops + *(const uint32_t *)a;
	const struct sk_rec *y = (const struct sk_rec *)ops + *(const uint32_t *)b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return (x->launch > y->launch) - (x->launch < y->launch);
}

static int cmp_op_process(const void *a, const void *b, void *ops)
{
	const struct sk_rec *x = (const struct sk_rec *)ops + *(const uint32_t *)a;
	const struct sk_rec *y = (const struct sk_rec *)ops + *(const uint32_t *)b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (x->launch > y->launch) - (x->launch < y->launch);
}

/* Dense ranks of the threads (or processes, @by_thread 0) of the launched operations, in
 * (pid, tid) order: @ranks maps owner_key() + 1 to the rank. */
static uint64_t owner_key(const struct sk_rec *op, int by_thread)
{
	return by_thread ? ((uint64_t)op->pid << 24) | op->tid : op->pid;
}

static void ranks_build(const struct sk_loaded_run *run, int by_thread, struct sk_hash *ranks)
{
	uint64_t *distinct = NULL;
	size_t n = 0, cap = 0;

	for (size_t i = 0; i < run->nops; i++) {
		uint64_t key = owner_key(&run->ops[i], by_thread);

		if (!(run->ops[i].flags & SK_F_API) || sk_hash_get(ranks, key + 1))
			continue;
		sk_hash_xreserve(ranks, 1);
		sk_hash_put(ranks, key + 1, 0); /* cannot fail: room reserved */
		SK_VEC_XPUSH(distinct, n, cap, key);
	}
	if (n)
		qsort(distinct, n, sizeof(uint64_t), sk_cmp_i64); /* keys < 2^56: signed order */
	for (size_t j = 0; j < n; j++)
		*sk_hash_get(ranks, distinct[j] + 1) = j;
	free(distinct);
}

/*
 * Indices of the operations that have a launch call, sorted by (thread, launch start), or by
 * (process, launch start) when @by_thread is 0: a radix sort on (owner rank << 44 | launch
 * offset), or qsort_r when the launches span more than 2^44 ns (4.9 hours) or there are more
 * than 2^19 owners.
 */
static uint32_t *launched_ops(const struct sk_loaded_run *run, int by_thread, size_t *n)
{
	uint32_t *idx = sk_xmalloc((run->nops + 1) * sizeof(uint32_t));
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	struct sk_hash r = {0};

	*n = 0;
	for (size_t i = 0; i < run->nops; i++) {
		if (!(run->ops[i].flags & SK_F_API))
			continue;
		idx[(*n)++] = (uint32_t)i;
		lo = run->ops[i].launch < lo ? run->ops[i].launch : lo;
		hi = run->ops[i].launch > hi ? run->ops[i].launch : hi;
	}
	ranks_build(run, by_thread, &r);
	if (*n && (uint64_t)(hi - lo) < (1ull << 44) && r.n <= (1u << 19)) {
		uint64_t *keys = sk_xmalloc(*n * sizeof(uint64_t));

		for (size_t k = 0; k < *n; k++) {
			const struct sk_rec *op = &run->ops[idx[k]];

			keys[k] = (*sk_hash_get(&r, owner_key(op, by_thread) + 1) << 44) |
				  (uint64_t)(op->launch - lo);
		}
		sk_radix_sort(keys, idx, *n);
		free(keys);
	} else {
		qsort_r(idx, *n, sizeof(uint32_t), by_thread ? cmp_op_thread : cmp_op_process,
			run->ops);
	}
	sk_hash_fini(&r);
	return idx;
}

/* The set of open ranges during a sweep, kept in start order. */
struct active {
	const struct sk_range **r;
	size_t n, cap;
	uint32_t stack; /* sk_stacks id of the current set, valid while !dirty */
	int dirty;
};

static void active_add(struct active *a, const struct sk_range *r)
{
	SK_VEC_XPUSH(a->r, a->n, a->cap, r);
	a->dirty = 1;
}

static void active_expire(struct active *a, int64_t t)
{
	size_t k = 0;

	for (size_t i = 0; i < a->n; i++)
		if (a->r[i]->end >= t)
			a->r[k++] = a->r[i];
	if (k != a->n)
		a->dirty = 1;
	a->n = k;
}

static uint32_t active_stack(struct active *a, struct sk_stacks *stacks)
{
	if (a->dirty) {
		a->stack = 0;
		for (size_t i = 0; i < a->n; i++)
			a->stack = sk_stacks_child(stacks, a->stack, a->r[i]->text);
		a->dirty = 0;
	}
	return a->stack;
}

/* The stack of the ranges of thread @tid in @a (start order), built in @stacks. */
static uint32_t thread_stack(const struct active *a, uint32_t tid, struct sk_stacks *stacks)
{
	uint32_t stack = 0;

	for (size_t i = 0; i < a->n; i++)
		if (a->r[i]->tid == tid)
			stack = sk_stacks_child(stacks, stack, a->r[i]->text);
	return stack;
}

/* ---- PyTorch's sequence numbers ---------------------------------------------------------- */

/* Where PyTorch's emit_nvtx suffix starts in @text: ", seq = N" or ", op_id = N" (N a digit
 * string), the first fields it appends to the op's name (torch/csrc/profiler/util.cpp,
 * getNvtxStr); NULL when there is none. @field: set to the field found ("seq" or "op_id"). */
static const char *torch_suffix(const char *text, const char **field)
{
	static const char *const fields[] = {", seq = ", ", op_id = "};

	for (const char *p = strchr(text, ','); p; p = strchr(p + 1, ','))
		for (size_t f = 0; f < sizeof(fields) / sizeof(fields[0]); f++) {
			size_t len = strlen(fields[f]);

			if (!strncmp(p, fields[f], len) && p[len] >= '0' && p[len] <= '9') {
				if (field)
					*field = fields[f];
				return p;
			}
		}
	return NULL;
}

int64_t sk_range_seq(const char *text)
{
	const char *f = NULL, *p = torch_suffix(text, &f);
	int64_t n = 0;

	if (!p || strcmp(f, ", seq = "))
		return -1;
	for (p += strlen(f); *p >= '0' && *p <= '9' && n < INT64_MAX / 10 - 9; p++)
		n = n * 10 + (*p - '0');
	return n;
}

uint32_t sk_operator_name(struct skip_trace *t, uint32_t text)
{
	if (t->nopname <= text) {
		size_t old = t->nopname;

		t->nopname = t->texts.n + 1 > text + 1 ? t->texts.n + 1 : text + 1;
		t->opname = sk_xrealloc(t->opname, t->nopname * sizeof(*t->opname));
		memset(t->opname + old, 0, (t->nopname - old) * sizeof(*t->opname));
	}
	if (!t->opname[text]) {
		const char *s = t->texts.s[text], *p = torch_suffix(s, NULL);
		int64_t id = text;

		if (p) {
			char *name = sk_xasprintf("%.*s", (int)(p - s), s);

			id = sk_strtab_intern(&t->texts, name, NULL);
			free(name);
			if (id < 0) /* out of memory: the whole text names it */
				id = text;
		}
		t->opname[text] = (uint32_t)id;
	}
	return t->opname[text];
}

/* The ranges that carry a sequence number, by (process, N, start): the forward op of a backward
 * op is looked up here. */
struct seq_entry {
	uint32_t pid, tid;
	int64_t seq, start;
};

static int cmp_seq(const void *a, const void *b)
{
	const struct seq_entry *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return (x->start > y->start) - (x->start < y->start);
}

/* The thread of the latest range of process @pid with sequence number @seq that started at or
 * before @before on a thread other than @not_tid; -1 when there is none. */
static int64_t seq_cause(const struct seq_entry *v, size_t n, uint32_t pid, int64_t seq,
			 int64_t before, uint32_t not_tid)
{
	size_t lo = 0, hi = n; /* the first entry after (pid, seq, before) */

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_seq(&v[mid],
			    &(struct seq_entry){.pid = pid, .seq = seq, .start = before}) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo-- > 0 && v[lo].pid == pid && v[lo].seq == seq)
		if (v[lo].tid != not_tid)
			return v[lo].tid;
	return -1;
}

/* ---- launches with no range open on their thread ------------------------------------------ */

/* Range indices by (process, start, the longer first, thread). */
static int cmp_range_process(const void *a, const void *b, void *ranges)
{
	const struct sk_range *x = (const struct sk_range *)ranges + *(const uint32_t *)a;
	const struct sk_range *y = (const struct sk_range *)ranges + *(const uint32_t *)b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

/*
 * Give each launch that has no stack yet the ranges of another thread (attr SEQ or OTHER).
 * @seq_range[i]: 1 + the index of op i's thread's latest range with a sequence number started
 * at or before its launch, 0 when none (NULL: no range has one); @rseq: each range's number.
 */
static void attribute_other(struct skip_trace *t, struct sk_loaded_run *run,
			    const uint32_t *seq_range, const int64_t *rseq)
{
	struct active act = {0};
	struct seq_entry *sv = NULL;
	size_t n, ns = 0, ri = 0;
	uint32_t *idx = launched_ops(run, 0, &n);
	uint32_t *ridx = sk_xmalloc(run->nranges * sizeof(uint32_t));

	for (size_t i = 0; i < run->nranges; i++)
		ridx[i] = (uint32_t)i;
	qsort_r(ridx, run->nranges, sizeof(uint32_t), cmp_range_process, run->ranges);
	if (seq_range) {
		sv = sk_xmalloc(run->nranges * sizeof(*sv));
		for (size_t i = 0; i < run->nranges; i++)
			if (rseq[i] >= 0)
				sv[ns++] =
				    (struct seq_entry){run->ranges[i].pid, run->ranges[i].tid,
						       rseq[i], run->ranges[i].start};
		qsort(sv, ns, sizeof(*sv), cmp_seq);
	}
	for (size_t k = 0; k < n; k++) {
		struct sk_rec *op = &run->ops[idx[k]];
		int64_t cause = -1;

		if (k == 0 || op->pid != run->ops[idx[k - 1]].pid)
			act.n = 0;
		for (; ri < run->nranges; ri++) {
			const struct sk_range *r = &run->ranges[ridx[ri]];

			if (r->pid > op->pid || (r->pid == op->pid && r->start > op->launch))
				break;
			if (r->pid == op->pid)
				active_add(&act, r);
		}
		if (op->stack)
			continue;
		active_expire(&act, op->launch);
		if (!act.n) /* nothing open on any thread of the process */
			continue;
		if (seq_range && seq_range[idx[k]]) {
			uint32_t r = seq_range[idx[k]] - 1;

			cause = seq_cause(sv, ns, op->pid, rseq[r], run->ranges[r].start, op->tid);
			if (cause >= 0 &&
			    (op->stack = thread_stack(&act, (uint32_t)cause, &t->stacks)))
				op->attr = SKIP_ATTR_SEQ;
		}
		if (!op->stack) { /* the thread whose open range started last */
			op->stack = thread_stack(&act, act.r[act.n - 1]->tid, &t->stacks);
			op->attr = SKIP_ATTR_OTHER;
		}
	}
	free(sv);
	free(ridx);
	free(act.r);
	free(idx);
}

/* Each range's sequence number (-1 when none), or NULL when no range has one. */
static int64_t *range_seqs(const struct skip_trace *t, const struct sk_loaded_run *run)
{
	int64_t *rseq = NULL;

	for (size_t i = 0; i < run->nranges; i++) {
		int64_t s = sk_range_seq(t->texts.s[run->ranges[i].text]);

		if (s >= 0 && !rseq) {
			rseq = sk_xmalloc(run->nranges * sizeof(*rseq));
			for (size_t j = 0; j < i; j++)
				rseq[j] = -1;
		}
		if (rseq)
			rseq[i] = s;
	}
	return rseq;
}

void sk_run_operators(struct skip_trace *t, struct sk_loaded_run *run)
{
	struct active act = {0};
	size_t n, ri = 0, nloose = 0;
	uint32_t *idx, *seq_range = NULL, last_seq = 0;
	int64_t t0 = INT64_MAX, *rseq;

	if (run->nranges) /* qsort's pointer must not be NULL, even for 0 elements */
		qsort(run->ranges, run->nranges, sizeof(*run->ranges), cmp_range);
	rseq = range_seqs(t, run);
	if (rseq)
		seq_range = sk_xcalloc(run->nops + 1, sizeof(uint32_t));
	idx = launched_ops(run, 1, &n);
	for (size_t k = 0; k < n; k++) {
		struct sk_rec *op = &run->ops[idx[k]];

		if (k == 0 || op->pid != run->ops[idx[k - 1]].pid ||
		    op->tid != run->ops[idx[k - 1]].tid) {
			act.n = 0; /* a new thread: nothing open yet */
			act.dirty = 1;
			last_seq = 0;
		}
		while (ri < run->nranges &&
		       cmp_range(&run->ranges[ri], &(struct sk_range){.pid = op->pid,
								      .tid = op->tid,
								      .start = op->launch,
								      .end = INT64_MIN}) <= 0) {
			const struct sk_range *r = &run->ranges[ri++];

			if (r->pid == op->pid && r->tid == op->tid) {
				active_add(&act, r);
				if (rseq && rseq[r - run->ranges] >= 0)
					last_seq = (uint32_t)(r - run->ranges) + 1;
			}
		}
		active_expire(&act, op->launch);
		op->stack = active_stack(&act, &t->stacks);
		op->attr = op->stack ? SKIP_ATTR_THREAD : SKIP_ATTR_NONE;
		nloose += !op->stack;
		if (seq_range)
			seq_range[idx[k]] = last_seq;
		if (act.n && act.r[0]->start < t0)
			t0 = act.r[0]->start;
		if (op->launch < t0)
			t0 = op->launch;
	}
	for (size_t i = 0; i < run->nops; i++)
		if (!(run->ops[i].flags & SK_F_API) && run->ops[i].start < t0)
			t0 = run->ops[i].start;
	run->t0 =
	    t0; /* from each launch's own thread only: the other threads' ranges do not move it */
	if (nloose && run->nranges)
		attribute_other(t, run, seq_range, rseq);
	free(seq_range);
	free(rseq);
	free(act.r);
	free(idx);
}

static int cmp_window(const void *a, const void *b)
{
	const struct sk_range *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (x->start > y->start) - (x->start < y->start);
}

size_t sk_run_regions(struct sk_loaded_run *run, uint32_t text, struct sk_range **windows)
{
	struct active act = {0};
	size_t nw = 0, n, wi = 0;
	uint32_t *idx;

	*windows = sk_xmalloc((run->nranges + 1) * sizeof(**windows));
	for (size_t i = 0; i < run->nranges; i++)
		if (run->ranges[i].text == text)
			(*windows)[nw++] = run->ranges[i];
	if (!nw)
		return 0;
	qsort(*windows, nw, sizeof(**windows), cmp_window);
	idx = launched_ops(run, 0, &n);
	for (size_t k = 0; k < n; k++) {
		struct sk_rec *op = &run->ops[idx[k]];

		if (k == 0 || op->pid != run->ops[idx[k - 1]].pid)
			act.n = 0;
		while (wi < nw &&
		       ((*windows)[wi].pid < op->pid ||
			((*windows)[wi].pid == op->pid && (*windows)[wi].start <= op->launch))) {
			if ((*windows)[wi].pid == op->pid)
				active_add(&act, &(*windows)[wi]);
			wi++;
		}
		active_expire(&act, op->launch);
		if (act.n) /* the innermost: the open window that started last */
			op->region = (int32_t)(act.r[act.n - 1] - *windows);
	}
	free(act.r);
	free(idx);
	return nw;
}
