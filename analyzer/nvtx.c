/*
 * nvtx.c: operators and regions from NVTX ranges.
 *
 * Operator of an operation = the innermost NVTX range open on the launching thread when its
 * launch call started; the whole stack of open ranges is kept (an sk_stacks id). Computed in one
 * sweep: operations sorted by (process, thread, launch start) against the ranges sorted by
 * (process, thread, start), with the set of open ranges maintained as the sweep goes (ranges
 * need not nest perfectly: the innermost is the open range that started last).
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

static int load_ranges(struct skip_trace *t, struct sk_run *run)
{
	sqlite3_stmt *st = sk_run_scan(t, "NVTX_EVENTS", "start, end, globalTid, text, eventType",
				       run->run_id);
	size_t cap = 0;

	if (!st)
		return SKIP_E_DB;
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct sk_range *r;
		int type = sqlite3_column_int(st, 4);
		int64_t gtid = sqlite3_column_int64(st, 2);
		const char *text = (const char *)sqlite3_column_text(st, 3);

		if (type != 59 && type != 60)
			continue;
		if (run->nranges == cap) {
			cap = cap ? cap * 2 : 256;
			run->ranges = sk_xrealloc(run->ranges, cap * sizeof(*run->ranges));
		}
		r = &run->ranges[run->nranges++];
		r->start = sqlite3_column_int64(st, 0);
		r->end = sqlite3_column_type(st, 1) == SQLITE_NULL ? INT64_MAX
								    : sqlite3_column_int64(st, 1);
		r->pid = (uint32_t)(gtid >> 24);
		r->tid = (uint32_t)(gtid & 0xFFFFFF);
		r->text = sk_names_intern(&t->texts, text ? text : "");
	}
	return sk_scan_done(t, st);
}

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

/* qsort has no context argument: the run being sorted. Single-threaded by design. */
static const struct sk_op *sort_ops;

static int cmp_op_thread(const void *a, const void *b)
{
	const struct sk_op *x = &sort_ops[*(const uint32_t *)a], *y = &sort_ops[*(const uint32_t *)b];

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return (x->launch > y->launch) - (x->launch < y->launch);
}

static int cmp_op_process(const void *a, const void *b)
{
	const struct sk_op *x = &sort_ops[*(const uint32_t *)a], *y = &sort_ops[*(const uint32_t *)b];

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (x->launch > y->launch) - (x->launch < y->launch);
}

/* Indices of the operations that have a launch call, sorted by @cmp. */
static uint32_t *launched_ops(const struct sk_run *run, int (*cmp)(const void *, const void *),
			      size_t *n)
{
	uint32_t *idx = sk_xmalloc((run->nops + 1) * sizeof(uint32_t));

	*n = 0;
	for (size_t i = 0; i < run->nops; i++)
		if (run->ops[i].flags & SK_F_API)
			idx[(*n)++] = (uint32_t)i;
	sort_ops = run->ops;
	qsort(idx, *n, sizeof(uint32_t), cmp);
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
	if (a->n == a->cap) {
		a->cap = a->cap ? a->cap * 2 : 16;
		a->r = sk_xrealloc(a->r, a->cap * sizeof(*a->r));
	}
	a->r[a->n++] = r;
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

int sk_run_operators(struct skip_trace *t, struct sk_run *run)
{
	struct active act = { 0 };
	size_t n, ri = 0;
	uint32_t *idx;
	int64_t t0 = INT64_MAX;
	int err = load_ranges(t, run);

	if (err)
		return err;
	qsort(run->ranges, run->nranges, sizeof(*run->ranges), cmp_range);
	idx = launched_ops(run, cmp_op_thread, &n);
	for (size_t k = 0; k < n; k++) {
		struct sk_op *op = &run->ops[idx[k]];

		if (k == 0 || op->pid != run->ops[idx[k - 1]].pid ||
		    op->tid != run->ops[idx[k - 1]].tid) {
			act.n = 0; /* a new thread: nothing open yet */
			act.dirty = 1;
		}
		while (ri < run->nranges &&
		       cmp_range(&run->ranges[ri],
				 &(struct sk_range){ .pid = op->pid, .tid = op->tid,
						     .start = op->launch, .end = INT64_MIN }) <= 0) {
			const struct sk_range *r = &run->ranges[ri++];

			if (r->pid == op->pid && r->tid == op->tid)
				active_add(&act, r);
		}
		active_expire(&act, op->launch);
		op->stack = active_stack(&act, &t->stacks);
		if (act.n && act.r[0]->start < t0)
			t0 = act.r[0]->start;
		if (op->launch < t0)
			t0 = op->launch;
	}
	for (size_t i = 0; i < run->nops; i++)
		if (!(run->ops[i].flags & SK_F_API) && run->ops[i].start < t0)
			t0 = run->ops[i].start;
	run->t0 = t0;
	free(act.r);
	free(idx);
	return 0;
}

static int cmp_window(const void *a, const void *b)
{
	const struct sk_range *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (x->start > y->start) - (x->start < y->start);
}

size_t sk_run_regions(struct sk_run *run, uint32_t text, struct sk_range **windows)
{
	struct active act = { 0 };
	size_t nw = 0, n, wi = 0;
	uint32_t *idx;

	*windows = sk_xmalloc((run->nranges + 1) * sizeof(**windows));
	for (size_t i = 0; i < run->nranges; i++)
		if (run->ranges[i].text == text)
			(*windows)[nw++] = run->ranges[i];
	if (!nw)
		return 0;
	qsort(*windows, nw, sizeof(**windows), cmp_window);
	idx = launched_ops(run, cmp_op_process, &n);
	for (size_t k = 0; k < n; k++) {
		struct sk_op *op = &run->ops[idx[k]];

		if (k == 0 || op->pid != run->ops[idx[k - 1]].pid)
			act.n = 0;
		while (wi < nw && ((*windows)[wi].pid < op->pid ||
				   ((*windows)[wi].pid == op->pid &&
				    (*windows)[wi].start <= op->launch))) {
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
