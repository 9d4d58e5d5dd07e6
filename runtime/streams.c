/*
 * streams.c: the E2 stream plan, after KeSCo (ICCD 2023) as described in its journal extension
 * HuntKTm (ACM TACO 22(4) 161, 2025, doi 10.1145/3774652, section "stream scheduler").
 *
 * Assignment, level by level (levels are longest-path depths of the reduced DAG):
 *   - sources (level 0) go round-robin: the i-th source to stream i mod S;
 *   - other tasks are taken least-predecessors-first (ties: lower id); the PP-set of a task is
 *     those predecessors that are currently the last task of their stream;
 *     rule 2: one predecessor in the PP-set: that predecessor's stream;
 *     rule 3: several: the stream of the one with the fewest successors not yet assigned
 *     (ties: the lower id);
 *     an empty PP-set defers the task to the end of its level, where it goes round-robin
 *     (HuntKTm's code picks a random stream; we take the next stream round-robin whose last
 *     task is not on the current level, so that siblings are not serialized needlessly).
 * The launch order is the order of assignment, which is topological.
 *
 * Barriers (cudaEventRecord on the predecessor's stream, cudaStreamWaitEvent on the task's):
 *   a. one per predecessor on another stream;
 *   b. per other stream, only the one from the predecessor that is last on that stream;
 *   c. none from P when an earlier task T on the task's own stream has a predecessor on P's
 *      stream at or after P (T already waited for it, and stream order carries it over).
 * skip_plan_validate() then checks with vector clocks that every dependency is enforced.
 */
#define SK_LOG_DOMAIN "runtime"
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct assign_state {
	const struct skip_graph *g;
	struct skip_plan *p;
	int S;
	int *tail;	 /* [S] last task on each stream, -1 when empty */
	int *unassigned; /* [n] successors not yet assigned */
	int k;		 /* tasks placed so far */
	int rr;		 /* round-robin cursor for deferred tasks */
};

static void place(struct assign_state *st, int v, int s)
{
	const struct sk_task *t = &st->g->tasks[v];

	st->p->stream[v] = s;
	st->p->order[st->k++] = v;
	st->tail[s] = v;
	for (int i = 0; i < t->npreds; i++)
		st->unassigned[t->preds[i]]--;
}

/* Rules 2 and 3: the stream of the best predecessor in the PP-set, or -1 (deferred). */
static int pp_stream(const struct assign_state *st, int v)
{
	const struct sk_task *t = &st->g->tasks[v];
	int best = -1;

	for (int i = 0; i < t->npreds; i++) {
		int q = t->preds[i];

		if (st->tail[st->p->stream[q]] != q)
			continue;
		if (best < 0 || st->unassigned[q] < st->unassigned[best])
			best = q; /* preds are sorted by id: ties keep the lower id */
	}
	return best < 0 ? -1 : st->p->stream[best];
}

static int deferred_stream(struct assign_state *st, int level)
{
	for (int i = 0; i < st->S; i++) {
		int s = (st->rr + i) % st->S;

		if (st->tail[s] < 0 || st->g->tasks[st->tail[s]].level != level) {
			st->rr = s + 1;
			return s;
		}
	}
	return st->rr++ % st->S;
}

static int cmp_level_tasks(const void *a, const void *b, void *ctx)
{
	const struct skip_graph *g = ctx;
	int x = *(const int *)a, y = *(const int *)b;
	const struct sk_task *tx = &g->tasks[x], *ty = &g->tasks[y];

	if (tx->level != ty->level)
		return tx->level < ty->level ? -1 : 1;
	if (tx->npreds != ty->npreds)
		return tx->npreds < ty->npreds ? -1 : 1;
	return x < y ? -1 : x > y;
}

static void assign_levels(struct assign_state *st, const int *sorted, int *deferred)
{
	int n = st->g->ntasks, i = 0, nsrc = 0;

	while (i < n) {
		int level = st->g->tasks[sorted[i]].level, nd = 0;

		for (; i < n && st->g->tasks[sorted[i]].level == level; i++) {
			int v = sorted[i], s;

			if (!st->g->tasks[v].npreds) {
				place(st, v, nsrc++ % st->S);
				continue;
			}
			s = pp_stream(st, v);
			if (s < 0)
				deferred[nd++] = v;
			else
				place(st, v, s);
		}
		for (int j = 0; j < nd; j++)
			place(st, deferred[j], deferred_stream(st, level));
	}
}

int sk_streams_assign(const struct skip_graph *g, int nstreams, struct skip_plan *p)
{
	struct assign_state st = {.g = g, .p = p, .S = nstreams};
	int n = g->ntasks, err = 0;
	int *sorted = malloc((size_t)n * sizeof(int) + 1),
	    *deferred = malloc((size_t)n * sizeof(int) + 1);

	st.tail = malloc((size_t)nstreams * sizeof(int));
	st.unassigned = malloc((size_t)n * sizeof(int) + 1);
	if (!sorted || !deferred || !st.tail || !st.unassigned) {
		err = sk_fail(SKIP_E_NOMEM, "out of memory");
		goto out;
	}
	for (int s = 0; s < nstreams; s++)
		st.tail[s] = -1;
	for (int v = 0; v < n; v++) {
		sorted[v] = v;
		st.unassigned[v] = g->tasks[v].nsuccs;
	}
	if (n > 1)
		qsort_r(sorted, (size_t)n, sizeof(int), cmp_level_tasks, (void *)g);
	p->nstreams = nstreams;
	assign_levels(&st, sorted, deferred);
	/* only streams that got a task count */
	for (int v = 0, used = 0; v < n; v++)
		if (p->stream[v] + 1 > used)
			p->nstreams = used = p->stream[v] + 1;
out:
	free(sorted);
	free(deferred);
	free(st.tail);
	free(st.unassigned);
	return err;
}

/* ---- barriers -------------------------------------------------------------------------------- */

struct event_state {
	const struct skip_graph *g;
	struct skip_plan *p;
	int S;
	int *spos; /* [n] 1-based position of each task on its stream */
	int *last; /* [S] step b: index of the kept predecessor per stream, for one task */
	int *seen; /* [S * S] step c: seen[x*S + s] = latest position on s some task on x waited for
		    */
	size_t cap; /* of p->events */
};

static int push_event(struct event_state *st, int from, int to)
{
	struct skip_plan *p = st->p;

	return SK_VEC_PUSH(p->events, p->nevents, st->cap, (struct skip_plan_event){from, to});
}

/* Steps a-c for task @v; returns 0 or SKIP_E_NOMEM. */
static int task_events(struct event_state *st, int v)
{
	const struct sk_task *t = &st->g->tasks[v];
	int x = st->p->stream[v], S = st->S;

	for (int s = 0; s < S; s++)
		st->last[s] = -1;
	for (int i = 0; i < t->npreds; i++) { /* a, then b: the last predecessor per stream */
		int q = t->preds[i], s = st->p->stream[q];

		if (s == x)
			continue;
		st->p->events_unpruned++;
		if (st->last[s] < 0 || st->spos[q] > st->spos[st->last[s]])
			st->last[s] = q;
	}
	for (int s = 0; s < S; s++) {
		int q = st->last[s];

		if (q < 0)
			continue;
		st->p->events_step_b++;
		if (st->seen[x * S + s] >= st->spos[q]) /* c: implied by an earlier task on x */
			continue;
		if (push_event(st, q, v))
			return SKIP_E_NOMEM;
	}
	for (int i = 0; i < t->npreds; i++) {
		int q = t->preds[i], s = st->p->stream[q];

		if (st->spos[q] > st->seen[x * S + s])
			st->seen[x * S + s] = st->spos[q];
	}
	return 0;
}

int sk_streams_events(const struct skip_graph *g, struct skip_plan *p)
{
	struct event_state st = {.g = g, .p = p, .S = p->nstreams};
	int n = g->ntasks, S = p->nstreams, err = 0;
	int *count = calloc((size_t)S, sizeof(int));

	st.spos = malloc((size_t)n * sizeof(int) + 1);
	st.last = malloc((size_t)S * sizeof(int));
	st.seen = calloc((size_t)S * (size_t)S, sizeof(int));
	if (!count || !st.spos || !st.last || !st.seen) {
		err = sk_fail(SKIP_E_NOMEM, "out of memory");
		goto out;
	}
	for (int k = 0; k < n; k++)
		st.spos[p->order[k]] = ++count[p->stream[p->order[k]]];
	free(p->events);
	p->events = NULL;
	p->nevents = p->events_unpruned = p->events_step_b = 0;
	for (int k = 0; k < n && !err; k++)
		err = task_events(&st, p->order[k]);
out:
	free(count);
	free(st.spos);
	free(st.last);
	free(st.seen);
	return err;
}
