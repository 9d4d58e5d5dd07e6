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

void sk_run_operators(struct skip_trace *t, struct sk_loaded_run *run)
{
	struct active act = {0};
	size_t n, ri = 0;
	uint32_t *idx;
	int64_t t0 = INT64_MAX;

	if (run->nranges) /* qsort's pointer must not be NULL, even for 0 elements */
		qsort(run->ranges, run->nranges, sizeof(*run->ranges), cmp_range);
	idx = launched_ops(run, 1, &n);
	for (size_t k = 0; k < n; k++) {
		struct sk_rec *op = &run->ops[idx[k]];

		if (k == 0 || op->pid != run->ops[idx[k - 1]].pid ||
		    op->tid != run->ops[idx[k - 1]].tid) {
			act.n = 0; /* a new thread: nothing open yet */
			act.dirty = 1;
		}
		while (ri < run->nranges &&
		       cmp_range(&run->ranges[ri], &(struct sk_range){.pid = op->pid,
								      .tid = op->tid,
								      .start = op->launch,
								      .end = INT64_MIN}) <= 0) {
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
