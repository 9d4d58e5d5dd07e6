/*
 * exec/streams.c: E2, several streams with events. Tasks go in the plan's order onto the
 * streams of its assignment (KeSCo/HuntKT, streams.c); before a task its stream waits for the
 * events of the plan's cross-stream waits into it, and after a task that another task waits
 * for, its event is recorded on its stream. The plan owns the assignment and the events
 * (plan.c computes and checks them: every dependency is enforced by stream order or events).
 */
#define SK_LOG_DOMAIN "runtime"
#include <stdlib.h>

#include "exec.h"

struct streams {
	struct sk_run r;
	int *stream;	    /* [nstreams] the device's stream of each of the plan's */
	int *event;	    /* [ntasks] the event recorded after the task, -1 none */
	int *wstart, *widx; /* the waits of v: the events of tasks widx[wstart[v]..wstart[v+1]) */
};

static void streams_fini(void *state)
{
	struct streams *s = state;

	if (!s)
		return;
	free(s->stream);
	free(s->event);
	free(s->wstart);
	free(s->widx);
	free(s);
}

/* The plan's waits, grouped by the task that waits (in the plan's order of events). */
static void index_waits(struct streams *s)
{
	const struct skip_plan *p = s->r.p;

	for (int i = 0; i < p->nevents; i++)
		s->wstart[p->events[i].to + 2]++;
	for (int v = 0; v < p->ntasks; v++)
		s->wstart[v + 2] += s->wstart[v + 1];
	for (int i = 0; i < p->nevents; i++)
		s->widx[s->wstart[p->events[i].to + 1]++] = p->events[i].from;
}

static int make(struct streams *s)
{
	struct sk_dev *d = s->r.dev;
	const struct skip_plan *p = s->r.p;

	for (int i = 0; i < p->nstreams; i++)
		if ((s->stream[i] = sk_dev_stream_new(d)) < 0)
			return s->stream[i];
	for (int v = 0; v < p->ntasks; v++)
		s->event[v] = -1;
	for (int i = 0; i < p->nevents; i++) {
		int from = p->events[i].from;

		if (s->event[from] < 0 && (s->event[from] = d->ops->event_new(d, from)) < 0)
			return s->event[from];
	}
	index_waits(s);
	return 0;
}

static void *streams_prepare(const struct sk_run *r, int *err)
{
	struct streams *s = calloc(1, sizeof(*s));
	int n = r->g->ntasks;

	if (s) {
		s->r = *r;
		s->stream = malloc((size_t)r->p->nstreams * sizeof(int) + 1);
		s->event = malloc((size_t)n * sizeof(int) + 1);
		s->wstart = calloc((size_t)n + 2, sizeof(int));
		s->widx = malloc((size_t)r->p->nevents * sizeof(int) + 1);
	}
	if (!s || !s->stream || !s->event || !s->wstart || !s->widx)
		*err = sk_fail(SKIP_E_NOMEM, "out of memory");
	else
		*err = make(s);
	if (*err) {
		streams_fini(s);
		return NULL;
	}
	return s;
}

static int streams_run(void *state)
{
	struct streams *s = state;
	struct sk_dev *d = s->r.dev;
	int err = 0;

	for (int k = 0; k < s->r.g->ntasks && !err; k++) {
		int v = s->r.p->order[k], st = s->stream[s->r.p->stream[v]];

		for (int i = s->wstart[v]; i < s->wstart[v + 1] && !err; i++)
			err = d->ops->wait(d, st, s->event[s->widx[i]], v);
		if (!err)
			err = sk_dev_launch(d, st, v, 0);
		if (!err && s->event[v] >= 0)
			err = d->ops->record(d, st, s->event[v]);
	}
	return err;
}

const struct sk_executor sk_exec_streams = {
    .id = SKIP_EXEC_STREAMS,
    .info = {"streams", "E2", "KeSCo stream plan and events",
	     SKIP_PLAN_ORDER | SKIP_PLAN_STREAMS | SKIP_PLAN_ASSIGNMENT | SKIP_PLAN_EVENTS},
    .prepare = streams_prepare,
    .run = streams_run,
    .fini = streams_fini,
};
