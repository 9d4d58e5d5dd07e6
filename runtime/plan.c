/*
 * plan.c: computing a plan for each executor, and checking that a plan (computed, or written
 * by the advisor or a person) fits its graph before anything runs. Both go by the plan members
 * the executor owns (struct skip_executor_info.fields): an executor that owns the assignment
 * gets the KeSCo/HuntKT one (streams.c) and its pruned events; one that owns "streams" alone
 * gets a pool the DAG's width; "window" and "pdl" come from the options (skip_plan_options[],
 * one row each, which plan_json.c and `skip run` read too).
 *
 * The check for the streams executor uses vector clocks: walking the launch order, each
 * task's clock is the element-wise maximum of the clock of the task before it on its stream
 * and the clocks of the tasks it waits for through events, plus its own position on its
 * stream. A dependency p -> v is enforced exactly when v's clock entry for p's stream has
 * reached p's position there. This is exact (transitive through any chain of streams and
 * events), so it also catches mistakes in the pruning of streams.c.
 */
#define SK_LOG_DOMAIN "runtime"
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define OPT(f, name, field, lo, hi, dflt, metavar, names, help)                                    \
	{                                                                                          \
		name, field, offsetof(struct skip_plan_opts, f), offsetof(struct skip_plan, f),    \
		    lo, hi, dflt, metavar, names, help                                             \
	}
const char *const skip_persist_modes[] = {"aot", "jit", "copilot", NULL};
const struct skip_plan_option skip_plan_options[] = {
    OPT(nstreams, "streams", SKIP_PLAN_STREAMS, 1, SK_MAX_STREAMS, 0, "N", NULL,
	"streams for %s (default: the DAG width, at most 16)"),
    OPT(window, "window", SKIP_PLAN_WINDOW, 1, SK_MAX_WINDOW, 32, "W", NULL,
	"window size for %s, 1-64 (default 32)"),
    OPT(pdl, "pdl", SKIP_PLAN_PDL, 0, 1, 0, NULL, NULL,
	"programmatic dependent launch between tasks marked \"pdl\" (%s)"),
    OPT(mode, "mode", SKIP_PLAN_PERSIST, 1, 3, 1, "MODE", skip_persist_modes,
	"scheduling of %s: aot (per-worker queues), jit (a ready queue on the "
	"GPU) or copilot (a host thread feeds the GPU a ring)"),
    OPT(lookahead, "lookahead", SKIP_PLAN_PERSIST, 0, 1024, 8, "K", NULL,
	"co-pilot of %s: tasks fed before their producers are reported done, at most K "
	"(default 8; 0: none)"),
    OPT(workers, "workers", SKIP_PLAN_PERSIST, 1, 1024, 0, "N", NULL,
	"worker CTAs of %s (default: one per SM, more where a level's tiles outnumber "
	"the SMs; at most as many as fit co-resident)"),
    {NULL, 0, 0, 0, 0, 0, 0, NULL, NULL, NULL},
};
#undef OPT

int skip_plan_option_value(const struct skip_plan_option *r, const char *text, int *out)
{
	char list[128];
	size_t at = 0;

	for (int i = 0; r->names && r->names[i]; i++)
		if (text && !strcmp(text, r->names[i])) {
			*out = i + 1;
			return 0;
		}
	list[0] = '\0';
	for (int i = 0; r->names && r->names[i] && at < sizeof(list); i++)
		at += (size_t)snprintf(list + at, sizeof(list) - at, "%s%s", i ? ", " : "",
				       r->names[i]);
	return sk_fail(SKIP_E_INVAL, "unknown %s '%s' (%s)", r->name, text ? text : "", list);
}

unsigned sk_plan_fields(const struct skip_plan *p)
{
	const struct skip_executor_info *e = skip_executor_info(p->executor);

	return e ? e->fields : 0;
}

struct skip_plan *sk_plan_alloc(int ntasks, int with_streams)
{
	struct skip_plan *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->ntasks = ntasks;
	p->order = calloc((size_t)ntasks + 1, sizeof(int));
	p->stream = with_streams ? calloc((size_t)ntasks + 1, sizeof(int)) : NULL;
	p->events_unpruned = p->events_step_b = -1;
	p->nstreams = 1;
	p->window = 32;
	if (!p->order || (with_streams && !p->stream)) {
		skip_plan_free(p);
		return NULL;
	}
	return p;
}

void skip_plan_free(struct skip_plan *p)
{
	if (!p)
		return;
	free(p->order);
	free(p->stream);
	free(p->events);
	free(p->durations_us);
	free(p);
}

int *sk_plan_positions(const struct skip_plan *p)
{
	int *pos = malloc((size_t)p->ntasks * sizeof(int) + 1);

	if (!pos)
		return NULL;
	for (int k = 0; k < p->ntasks; k++)
		pos[p->order[k]] = k;
	return pos;
}

static int default_streams(const struct skip_graph *g, int requested)
{
	int s = requested > 0 ? requested : g->width;

	if (s > SK_MAX_STREAMS)
		s = SK_MAX_STREAMS;
	if (requested <= 0 && s > 16)
		s = 16;
	return s < 1 ? 1 : s;
}

/* The options @p's executor owns, from @o or their defaults (0 for a flag not given). */
static void set_options(const struct skip_plan_opts *o, struct skip_plan *p)
{
	unsigned fields = sk_plan_fields(p);

	for (const struct skip_plan_option *r = skip_plan_options; r->name; r++) {
		int v = *(const int *)((const char *)o + r->opts_offset);

		if (!(fields & r->field))
			continue;
		if (!r->metavar)
			v = !!v; /* a flag */
		else if (v == SKIP_PLAN_ZERO)
			v = 0;
		else if (!v)
			v = r->dflt;
		if (v)
			*(int *)((char *)p + r->plan_offset) = v;
	}
}

static int check_opts(const struct skip_plan_opts *o)
{
	if (!o || !skip_executor_info((int)o->executor))
		return sk_fail(SKIP_E_INVAL, "plan: unknown executor");
	for (const struct skip_plan_option *r = skip_plan_options; r->name; r++) {
		int v = *(const int *)((const char *)o + r->opts_offset);

		if (r->metavar && (v < 0 || v > r->max) && !(v == SKIP_PLAN_ZERO && r->min == 0))
			return sk_fail(SKIP_E_INVAL,
				       "plan: %s must be %d..%d (0: the default), not %d", r->name,
				       r->min, r->max, v);
	}
	return 0;
}

int skip_plan_compute(const struct skip_graph *g, const struct skip_plan_opts *o,
		      struct skip_plan **out)
{
	struct skip_plan *p;
	unsigned fields;
	int err;

	*out = NULL;
	if (!g || !g->finalized)
		return sk_fail(SKIP_E_INVAL, "plan: the graph is not finalized");
	if ((err = check_opts(o)))
		return err;
	fields = skip_executor_info((int)o->executor)->fields;
	p = sk_plan_alloc(g->ntasks, !!(fields & SKIP_PLAN_ASSIGNMENT));
	if (!p)
		return sk_fail(SKIP_E_NOMEM, "out of memory");
	p->executor = o->executor;
	memcpy(p->order, g->topo, (size_t)g->ntasks * sizeof(int));
	set_options(o, p);
	if (fields & SKIP_PLAN_STREAMS)
		p->nstreams = default_streams(g, o->nstreams);
	if (fields & SKIP_PLAN_ASSIGNMENT)
		err = sk_streams_assign(g, p->nstreams, p);
	if (!err && (fields & SKIP_PLAN_EVENTS))
		err = sk_streams_events(g, p);
	if (!err)
		err = skip_plan_validate(g, p);
	if (err) {
		skip_plan_free(p);
		return err;
	}
	*out = p;
	return 0;
}

/* ---- validation ------------------------------------------------------------------------------ */

static int check_order(const struct skip_graph *g, const struct skip_plan *p, int *pos)
{
	int n = g->ntasks;

	for (int v = 0; v < n; v++)
		pos[v] = -1;
	for (int k = 0; k < n; k++) {
		int v = p->order[k];

		if (v < 0 || v >= n)
			return sk_fail(SKIP_E_INVAL, "plan: order[%d]: no task %d", k, v);
		if (pos[v] >= 0)
			return sk_fail(SKIP_E_INVAL, "plan: order: task '%s' appears twice",
				       g->tasks[v].name);
		pos[v] = k;
	}
	for (int v = 0; v < n; v++)
		for (int i = 0; i < g->tasks[v].npreds; i++) {
			int q = g->tasks[v].preds[i];

			if (pos[q] > pos[v])
				return sk_fail(
				    SKIP_E_INVAL,
				    "plan: order: '%s' is launched before '%s', which it depends "
				    "on (a cycle with the dependency %s -> %s)",
				    g->tasks[v].name, g->tasks[q].name, g->tasks[q].name,
				    g->tasks[v].name);
		}
	return 0;
}

static int check_events(const struct skip_graph *g, const struct skip_plan *p, const int *pos)
{
	for (int i = 0; i < p->nevents; i++) {
		int a = p->events[i].from, b = p->events[i].to;

		if (a < 0 || a >= g->ntasks || b < 0 || b >= g->ntasks)
			return sk_fail(SKIP_E_INVAL, "plan: events[%d]: no such task", i);
		if (a == b)
			return sk_fail(SKIP_E_INVAL, "plan: events[%d]: '%s' waits for itself", i,
				       g->tasks[a].name);
		if (pos[a] > pos[b])
			return sk_fail(SKIP_E_INVAL,
				       "plan: events[%d]: '%s' waits for '%s', which is launched "
				       "after it: that makes a cycle with the launch order",
				       i, g->tasks[b].name, g->tasks[a].name);
	}
	return 0;
}

static int *sort_events_by_target(const struct skip_plan *p, int n, int **start)
{
	int *idx = malloc((size_t)p->nevents * sizeof(int) + 1);
	int *st = calloc((size_t)n + 2, sizeof(int));

	if (!idx || !st) {
		free(idx);
		free(st);
		return NULL;
	}
	for (int i = 0; i < p->nevents; i++)
		st[p->events[i].to + 2]++;
	for (int v = 0; v < n; v++)
		st[v + 2] += st[v + 1];
	for (int i = 0; i < p->nevents; i++)
		idx[st[p->events[i].to + 1]++] = i;
	*start = st; /* events of v: idx[st[v] .. st[v+1]) */
	return idx;
}

/* Vector clocks over the launch order; see the comment at the top. */
static int check_enforced(const struct skip_graph *g, const struct skip_plan *p)
{
	int n = g->ntasks, S = p->nstreams, err = 0, *st = NULL;
	int *vc = calloc((size_t)n * (size_t)S + 1, sizeof(int)),
	    *tail = malloc((size_t)S * sizeof(int));
	int *count = calloc((size_t)S, sizeof(int)), *spos = malloc((size_t)n * sizeof(int) + 1);
	int *idx = sort_events_by_target(p, n, &st);

	if (!vc || !tail || !count || !spos || !idx) {
		err = sk_fail(SKIP_E_NOMEM, "out of memory");
		goto out;
	}
	for (int s = 0; s < S; s++)
		tail[s] = -1;
	for (int k = 0; k < n && !err; k++) {
		int v = p->order[k], x = p->stream[v];
		int *cv = vc + (size_t)v * S;

		if (tail[x] >= 0)
			memcpy(cv, vc + (size_t)tail[x] * S, (size_t)S * sizeof(int));
		for (int i = st[v]; i < st[v + 1]; i++) {
			const int *cf = vc + (size_t)p->events[idx[i]].from * S;

			for (int s = 0; s < S; s++)
				cv[s] = cf[s] > cv[s] ? cf[s] : cv[s];
		}
		cv[x] = spos[v] = ++count[x];
		tail[x] = v;
		for (int i = 0; i < g->tasks[v].npreds && !err; i++) {
			int q = g->tasks[v].preds[i];

			if (cv[p->stream[q]] < spos[q])
				err = sk_fail(
				    SKIP_E_INVAL,
				    "plan: the dependency %s -> %s is not enforced: '%s' runs on "
				    "stream %d, '%s' on stream %d, and no event orders them",
				    g->tasks[q].name, g->tasks[v].name, g->tasks[q].name,
				    p->stream[q], g->tasks[v].name, x);
		}
	}
out:
	free(vc);
	free(tail);
	free(count);
	free(spos);
	free(idx);
	free(st);
	return err;
}

static int check_streams(const struct skip_graph *g, const struct skip_plan *p, const int *pos)
{
	int err;

	if (!p->stream)
		return sk_fail(SKIP_E_INVAL, "plan: a streams plan needs a stream for every task");
	if (p->nstreams < 1 || p->nstreams > SK_MAX_STREAMS)
		return sk_fail(SKIP_E_INVAL, "plan: streams must be 1..%d, not %d", SK_MAX_STREAMS,
			       p->nstreams);
	for (int v = 0; v < g->ntasks; v++)
		if (p->stream[v] < 0 || p->stream[v] >= p->nstreams)
			return sk_fail(
			    SKIP_E_INVAL,
			    "plan: task '%s' is on stream %d; the plan has streams 0..%d",
			    g->tasks[v].name, p->stream[v], p->nstreams - 1);
	if (p->nevents < 0 || (p->nevents && !p->events))
		return sk_fail(SKIP_E_INVAL, "plan: bad event list");
	err = check_events(g, p, pos);
	return err ? err : check_enforced(g, p);
}

int sk_plan_check_layout(const struct skip_graph *g, const struct skip_plan *p)
{
	int *pos = malloc((size_t)g->ntasks * sizeof(int) + 1), err;

	if (!pos)
		return sk_fail(SKIP_E_NOMEM, "out of memory");
	err = check_order(g, p, pos);
	if (!err && (sk_plan_fields(p) & SKIP_PLAN_ASSIGNMENT)) {
		if (p->nstreams < 1 || p->nstreams > SK_MAX_STREAMS)
			err = sk_fail(SKIP_E_INVAL, "plan: streams must be 1..%d, not %d",
				      SK_MAX_STREAMS, p->nstreams);
		for (int v = 0; v < g->ntasks && !err; v++)
			if (p->stream[v] < 0 || p->stream[v] >= p->nstreams)
				err = sk_fail(
				    SKIP_E_INVAL,
				    "plan: task '%s' is on stream %d; the plan has streams 0..%d",
				    g->tasks[v].name, p->stream[v], p->nstreams - 1);
	}
	free(pos);
	return err;
}

int skip_plan_validate(const struct skip_graph *g, const struct skip_plan *p)
{
	unsigned fields;
	int *pos, err;

	if (!g || !g->finalized)
		return sk_fail(SKIP_E_INVAL, "plan: the graph is not finalized");
	if (!p || !skip_executor_info((int)p->executor))
		return sk_fail(SKIP_E_INVAL, "plan: unknown executor");
	if (p->ntasks != g->ntasks)
		return sk_fail(SKIP_E_INVAL, "plan: made for %d tasks, the graph has %d", p->ntasks,
			       g->ntasks);
	fields = sk_plan_fields(p);
	if ((fields & SKIP_PLAN_WINDOW) && (p->window < 1 || p->window > SK_MAX_WINDOW ||
					    p->nstreams < 1 || p->nstreams > SK_MAX_STREAMS))
		return sk_fail(SKIP_E_INVAL,
			       "plan: window must be 1..%d and streams 1..%d (got %d and %d)",
			       SK_MAX_WINDOW, SK_MAX_STREAMS, p->window, p->nstreams);
	pos = malloc((size_t)g->ntasks * sizeof(int) + 1);
	if (!pos)
		return sk_fail(SKIP_E_NOMEM, "out of memory");
	err = check_order(g, p, pos);
	if (!err && (fields & SKIP_PLAN_ASSIGNMENT))
		err = check_streams(g, p, pos);
	free(pos);
	for (int v = 0; !err && p->durations_us && v < g->ntasks; v++)
		if (!(fields & SKIP_PLAN_DURATIONS) ||
		    !(p->durations_us[v] >= 0 && p->durations_us[v] <= 1e9))
			err = sk_fail(SKIP_E_INVAL, "plan: durations_us: %s",
				      fields & SKIP_PLAN_DURATIONS
					  ? "a time from 0 to 1e9 us for each task expected"
					  : "only a persistent plan has them");
	return err;
}
