/*
 * launches.c: what the runtime launches, known without a GPU. skip_plan_launches() runs a
 * plan's executor on a device that only writes down each request (a struct skip_step), so the
 * report is the executor's own sequence, not a description of it: the advisor's models of the
 * executors are built from it. Also the runtime's own kernels (builtin.cu), by name.
 *
 * The recorder answers every request at once and without error: a kernel is done as soon as
 * it is launched. Worker threads (the window executor's) record under a mutex, each step
 * marked with its thread (set by bind(), in a thread-local).
 */
#define SK_LOG_DOMAIN "runtime"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"
#include "persist.h"

const char *const sk_builtin_names[SK_NBUILTINS] = {
    [SK_BUILTIN_FILL] = "sk_fill",
    [SK_BUILTIN_RANDOM] = "sk_random",
    [SK_BUILTIN_COMPARE] = "sk_compare",
    [SK_BUILTIN_SPIN] = "sk_spin",
};

int skip_runtime_kernel(const char *name)
{
	for (int i = 0; name && i < SK_NBUILTINS; i++)
		if (!strcmp(name, sk_builtin_names[i]))
			return 1;
	return 0;
}

/* ---- the recording device -------------------------------------------------------------------- */

struct recorder {
	struct sk_dev d; /* first: the executor's view */
	pthread_mutex_t mu;
	struct skip_launches *l;
	int running; /* 0: steps go to l->prepare; 1: to l->run */
	size_t capprepare, caprun;
	int nevents, ngraphs, npersist;
	int *event_task; /* [nevents] */
	size_t capevents;
	int maxthread;
};

/* The thread that records (bind()); 0 until a worker says otherwise. */
static _Thread_local int rec_thread;

static struct recorder *rec(struct sk_dev *d)
{
	return (struct recorder *)d;
}

/* Append @s (its thread filled in) to the current phase. 0 or SKIP_E_NOMEM. */
static int push(struct sk_dev *d, struct skip_step s)
{
	struct recorder *r = rec(d);
	struct skip_step **v = r->running ? &r->l->run : &r->l->prepare;
	int *n = r->running ? &r->l->nrun : &r->l->nprepare;
	size_t *cap = r->running ? &r->caprun : &r->capprepare;
	int err;

	s.thread = rec_thread;
	pthread_mutex_lock(&r->mu);
	err = SK_VEC_PUSH(*v, *n, *cap, s);
	pthread_mutex_unlock(&r->mu);
	return err;
}

/* A step; -1 for the members its kind has not. */
static struct skip_step step(enum skip_step_kind kind, int stream, int task, int from, int event,
			     int graph, unsigned flags)
{
	return (struct skip_step){kind, 0, stream, task, from, event, graph, flags};
}

static int rec_bind(struct sk_dev *d, int thread)
{
	struct recorder *r = rec(d);

	rec_thread = thread;
	pthread_mutex_lock(&r->mu);
	if (thread > r->maxthread)
		r->maxthread = thread;
	pthread_mutex_unlock(&r->mu);
	return 0;
}

static int rec_stream_new(struct sk_dev *d)
{
	int err = push(d, step(SKIP_STEP_STREAM, d->nstreams, -1, -1, -1, -1, 0));

	return err ? err : d->nstreams++;
}

static int rec_event_new(struct sk_dev *d, int task)
{
	struct recorder *r = rec(d);
	int i = r->nevents, err;

	if ((err = SK_VEC_RESERVE(r->event_task, r->capevents, i + 1)) ||
	    (err = push(d, step(SKIP_STEP_EVENT, -1, task, -1, i, -1, 0))))
		return err;
	r->event_task[i] = task;
	return r->nevents++;
}

static int rec_graph_new(struct sk_dev *d)
{
	struct recorder *r = rec(d);
	int err = push(d, step(SKIP_STEP_GRAPH, -1, -1, -1, -1, r->ngraphs, 0));

	return err ? err : r->ngraphs++;
}

static int rec_graph_node(struct sk_dev *d, int graph, int task)
{
	return push(d, step(SKIP_STEP_NODE, -1, task, -1, -1, graph, 0));
}

static int rec_graph_edge(struct sk_dev *d, int graph, int from, int to, unsigned flags)
{
	return push(d, step(SKIP_STEP_EDGE, -1, to, from, -1, graph, flags));
}

static int rec_graph_ready(struct sk_dev *d, int graph, int stream)
{
	return push(d, step(SKIP_STEP_INSTANTIATE, stream, -1, -1, -1, graph, 0));
}

static int rec_launch(struct sk_dev *d, int stream, int task, unsigned flags)
{
	return push(d, step(SKIP_STEP_LAUNCH, stream, task, -1, -1, -1, flags));
}

static int rec_record(struct sk_dev *d, int stream, int event)
{
	return push(d, step(SKIP_STEP_RECORD, stream, rec(d)->event_task[event], -1, event, -1, 0));
}

static int rec_wait(struct sk_dev *d, int stream, int event, int task)
{
	return push(d, step(SKIP_STEP_WAIT, stream, task, rec(d)->event_task[event], event, -1, 0));
}

static int rec_graph_launch(struct sk_dev *d, int stream, int graph)
{
	return push(d, step(SKIP_STEP_GRAPH_LAUNCH, stream, -1, -1, -1, graph, 0));
}

static int rec_sync(struct sk_dev *d, int stream, int task)
{
	return push(d, step(SKIP_STEP_SYNC, stream, task, -1, -1, -1, 0));
}

/* E5 as if on the H100 that the advisor's calibration describes: its 132 SMs, and as many
 * workers as fit there with skip_task.cuh's default build, two per SM under AOT, one under JIT
 * and the co-pilot. */
#define REC_PERSIST_SMS 132

static int rec_persist_fit(struct sk_dev *d, int mode, int *nthreads, int *sms)
{
	*sms = REC_PERSIST_SMS;
	*nthreads = 1;
	for (int i = 0; i < d->g->ntasks; i++)
		if ((int)d->g->tasks[i].block[0] > *nthreads)
			*nthreads = (int)d->g->tasks[i].block[0];
	return mode == SK_PERSIST_AOT ? 2 * REC_PERSIST_SMS : REC_PERSIST_SMS;
}

static int rec_persist_new(struct sk_dev *d, const struct sk_persist_plan *plan)
{
	(void)plan;
	return rec(d)->npersist++;
}

static int rec_persist_launch(struct sk_dev *d, int stream, int state)
{
	return push(d, step(SKIP_STEP_PERSIST, stream, -1, -1, -1, state, 0));
}

/* The executor is done; what it recorded stays for skip_plan_launches(). */
static void rec_free(struct sk_dev *d)
{
	(void)d;
}

static const struct sk_dev_ops rec_ops = {
    .bind = rec_bind,
    .stream_new = rec_stream_new,
    .event_new = rec_event_new,
    .graph_new = rec_graph_new,
    .graph_node = rec_graph_node,
    .graph_edge = rec_graph_edge,
    .graph_ready = rec_graph_ready,
    .launch = rec_launch,
    .record = rec_record,
    .wait = rec_wait,
    .graph_launch = rec_graph_launch,
    .sync = rec_sync,
    .persist_fit = rec_persist_fit,
    .persist_new = rec_persist_new,
    .persist_launch = rec_persist_launch,
    .free = rec_free,
};

/* ---- the report ------------------------------------------------------------------------------ */

void skip_launches_free(struct skip_launches *l)
{
	if (!l)
		return;
	free(l->prepare);
	free(l->run);
	free(l);
}

int skip_plan_launches(const struct skip_graph *g, const struct skip_plan *p,
		       struct skip_launches **out)
{
	struct recorder r = {.d = {.ops = &rec_ops, .g = g}};
	struct skip_exec *x;
	int err = 0;

	*out = NULL;
	if (!(r.l = calloc(1, sizeof(*r.l))))
		return sk_fail(SKIP_E_NOMEM, "out of memory");
	pthread_mutex_init(&r.mu, NULL);
	rec_thread = 0;
	x = sk_exec_new_on(g, p, &r.d, &err);
	if (x) {
		r.running = 1;
		r.l->workers = skip_exec_workers(x);
		err = skip_exec_run(x, NULL);
		skip_exec_free(x); /* joins the workers: nothing records after this */
	}
	rec_thread = 0;
	pthread_mutex_destroy(&r.mu);
	free(r.event_task);
	r.l->nthreads = r.maxthread + 1;
	if (err) {
		skip_launches_free(r.l);
		return err;
	}
	*out = r.l;
	return 0;
}

/* ---- as text --------------------------------------------------------------------------------- */

static const char *tname(const struct skip_graph *g, int task)
{
	const char *s = skip_graph_task_name(g, task);

	return s ? s : "?";
}

const char *skip_step_format(const struct skip_graph *g, const struct skip_step *s, char *buf,
			     size_t len)
{
	char th[32] = "";
	const char *pdl = s->flags & SKIP_STEP_PDL ? " (pdl)" : "";

	if (s->thread)
		snprintf(th, sizeof(th), "[worker %d] ", s->thread - 1);
	switch (s->kind) {
	case SKIP_STEP_STREAM:
		snprintf(buf, len, "%smake stream %d", th, s->stream);
		break;
	case SKIP_STEP_EVENT:
		snprintf(buf, len, "%smake event %d of '%s'", th, s->event, tname(g, s->task));
		break;
	case SKIP_STEP_GRAPH:
		snprintf(buf, len, "%smake graph %d", th, s->graph);
		break;
	case SKIP_STEP_NODE:
		snprintf(buf, len, "%sgraph %d: node '%s'", th, s->graph, tname(g, s->task));
		break;
	case SKIP_STEP_EDGE:
		snprintf(buf, len, "%sgraph %d: edge '%s' -> '%s'%s", th, s->graph,
			 tname(g, s->from), tname(g, s->task), pdl);
		break;
	case SKIP_STEP_INSTANTIATE:
		snprintf(buf, len, "%sinstantiate graph %d on stream %d", th, s->graph, s->stream);
		break;
	case SKIP_STEP_LAUNCH:
		snprintf(buf, len, "%slaunch '%s' on stream %d%s", th, tname(g, s->task), s->stream,
			 pdl);
		break;
	case SKIP_STEP_RECORD:
		snprintf(buf, len, "%srecord event %d of '%s' on stream %d", th, s->event,
			 tname(g, s->task), s->stream);
		break;
	case SKIP_STEP_WAIT:
		snprintf(buf, len, "%sstream %d waits for event %d of '%s' before '%s'", th,
			 s->stream, s->event, tname(g, s->from), tname(g, s->task));
		break;
	case SKIP_STEP_GRAPH_LAUNCH:
		snprintf(buf, len, "%slaunch graph %d on stream %d", th, s->graph, s->stream);
		break;
	case SKIP_STEP_SYNC:
		snprintf(buf, len, "%ssync stream %d%s%s%s", th, s->stream,
			 s->task >= 0 ? " after '" : "", s->task >= 0 ? tname(g, s->task) : "",
			 s->task >= 0 ? "'" : "");
		break;
	case SKIP_STEP_PERSIST:
		snprintf(buf, len, "%spersistent kernel %d runs every task on stream %d", th,
			 s->graph, s->stream);
		break;
	default:
		snprintf(buf, len, "%sstep %d", th, (int)s->kind);
		break;
	}
	return buf;
}
