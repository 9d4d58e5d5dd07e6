/*
 * exec/window.c: E4, the window scheduler, in the style of ACS-SW (Durvasula et al., "Concurrent
 * Kernel Execution on Irregular, Input-Dependent Computational Graphs", arXiv 2401.12377).
 *
 * The calling thread is the window module: it submits tasks in program order into a window of
 * W slots. On entry a task's upstream set is computed against every task still in the window:
 * a conflict is any overlap of its reads or writes with the other's writes, or of its writes
 * with the other's reads (ACS's published check compares only the newcomer's writes, which
 * misses read-after-write; we check all three), or an explicit edge. Tasks with an empty
 * upstream set are ready. Each worker thread owns one stream and has at most one task in
 * flight: it takes the oldest ready task, runs it to completion, then clears the task's bit in
 * the upstream set of every slot, which may make others ready, and frees the slot.
 *
 * Upstream sets are bit masks over the slots (W <= 64). One mutex guards the window; workers
 * wait on `work`, the window module on `space` (a slot freed or all done). Nothing is held
 * across a run call.
 *
 * The scheduler (sk_window_*, internal.h) runs tasks through a callback, so that the unit tests
 * drive it on the CPU. The executor at the end of the file gives it one worker per stream of
 * the plan's pool: a worker launches its task on its stream and waits for that stream before
 * it takes the next.
 */
#define SK_LOG_DOMAIN "runtime"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"

enum slot_state { SLOT_FREE, SLOT_PENDING, SLOT_READY, SLOT_RUNNING };

struct slot {
	int task;
	enum slot_state state;
	uint64_t upstream; /* bits of the slots this task waits for */
};

struct sk_window {
	pthread_mutex_t mu;
	pthread_cond_t work;  /* workers: a task became ready, or shutdown */
	pthread_cond_t space; /* window module: a slot was freed */
	pthread_t *threads;
	int nworkers, nstarted, W;
	sk_window_run_fn run;
	int (*init)(void *ctx, int worker);
	void *ctx;
	/* guarded by mu */
	const struct skip_graph *g;
	struct slot slots[SK_MAX_WINDOW];
	int ready[SK_MAX_WINDOW]; /* FIFO of slot indexes */
	int rhead, rcount;
	int in_window, running, done, total;
	int err, shutdown, init_err;
	int max_running, max_pending;
};

static void push_ready(struct sk_window *w, int s)
{
	w->slots[s].state = SLOT_READY;
	w->ready[(w->rhead + w->rcount++) % SK_MAX_WINDOW] = s;
	pthread_cond_signal(&w->work);
}

static int conflicts(const struct skip_graph *g, int a, int b)
{
	return sk_tasks_conflict(&g->tasks[a], &g->tasks[b]) || sk_has_explicit_edge(g, a, b);
}

/* After slot @s finished: clear it from every upstream set, wake what became ready. */
static void retire(struct sk_window *w, int s)
{
	uint64_t bit = 1ULL << s;

	w->slots[s].state = SLOT_FREE;
	w->in_window--;
	w->running--;
	w->done++;
	for (int i = 0; i < w->W; i++) {
		struct slot *o = &w->slots[i];

		if (o->state != SLOT_PENDING || !(o->upstream & bit))
			continue;
		o->upstream &= ~bit;
		if (!o->upstream)
			push_ready(w, i);
	}
	pthread_cond_signal(&w->space);
}

struct worker_arg {
	struct sk_window *w;
	int id;
};

static void *worker_main(void *argp)
{
	struct worker_arg *a = argp;
	struct sk_window *w = a->w;
	int id = a->id, ierr = w->init ? w->init(w->ctx, id) : 0;

	free(a);
	pthread_mutex_lock(&w->mu);
	if (ierr && !w->init_err)
		w->init_err = ierr;
	for (;;) {
		int s, task, err = 0, skip;

		while (!w->rcount && !w->shutdown)
			pthread_cond_wait(&w->work, &w->mu);
		if (w->shutdown)
			break;
		s = w->ready[w->rhead];
		w->rhead = (w->rhead + 1) % SK_MAX_WINDOW;
		w->rcount--;
		w->slots[s].state = SLOT_RUNNING;
		task = w->slots[s].task;
		skip = w->err != 0 || ierr != 0; /* after a failure: drain without running */
		if (++w->running > w->max_running)
			w->max_running = w->running;
		pthread_mutex_unlock(&w->mu);
		if (!skip)
			err = w->run(w->ctx, id, task);
		pthread_mutex_lock(&w->mu);
		if (err && !w->err)
			w->err = err;
		if (ierr && !w->err)
			w->err = ierr;
		retire(w, s);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

struct sk_window *sk_window_new(int nworkers, int window, sk_window_run_fn run,
				int (*init)(void *ctx, int worker), void *ctx, int *err)
{
	struct sk_window *w;

	*err = 0;
	if (nworkers < 1 || nworkers > SK_MAX_STREAMS || window < 1 || window > SK_MAX_WINDOW ||
	    !run) {
		*err = sk_fail(SKIP_E_INVAL, "window: %d workers, %d slots (1..%d and 1..%d)",
			       nworkers, window, SK_MAX_STREAMS, SK_MAX_WINDOW);
		return NULL;
	}
	w = calloc(1, sizeof(*w));
	if (!w || !(w->threads = calloc((size_t)nworkers, sizeof(pthread_t)))) {
		free(w);
		*err = sk_fail(SKIP_E_NOMEM, "out of memory");
		return NULL;
	}
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->work, NULL);
	pthread_cond_init(&w->space, NULL);
	w->nworkers = nworkers;
	w->W = window;
	w->run = run;
	w->init = init;
	w->ctx = ctx;
	for (int i = 0; i < nworkers; i++) {
		struct worker_arg *a = malloc(sizeof(*a));

		if (a)
			*a = (struct worker_arg){w, i};
		if (!a || pthread_create(&w->threads[i], NULL, worker_main, a)) {
			free(a);
			*err = sk_fail(SKIP_E_NOMEM, "window: cannot start worker thread %d", i);
			sk_window_free(w);
			return NULL;
		}
		w->nstarted++;
	}
	return w;
}

/* Put @task into a free slot (the caller holds mu and has checked there is one). */
static void enter(struct sk_window *w, int task)
{
	int s = 0;
	uint64_t up = 0;

	while (w->slots[s].state != SLOT_FREE)
		s++;
	for (int i = 0; i < w->W; i++)
		if (w->slots[i].state != SLOT_FREE && conflicts(w->g, w->slots[i].task, task))
			up |= 1ULL << i;
	w->slots[s] = (struct slot){task, SLOT_PENDING, up};
	if (++w->in_window > w->max_pending)
		w->max_pending = w->in_window;
	if (!up)
		push_ready(w, s);
}

int sk_window_run(struct sk_window *w, const struct skip_graph *g, const int *order)
{
	int err;

	pthread_mutex_lock(&w->mu);
	w->g = g;
	w->done = w->err = w->running = w->in_window = 0;
	w->max_running = w->max_pending = 0;
	w->total = g->ntasks;
	for (int k = 0; k < g->ntasks; k++) {
		while (w->in_window == w->W)
			pthread_cond_wait(&w->space, &w->mu);
		enter(w, order[k]);
	}
	while (w->done < w->total)
		pthread_cond_wait(&w->space, &w->mu);
	err = w->err ? w->err : w->init_err;
	w->g = NULL;
	pthread_mutex_unlock(&w->mu);
	return err;
}

void sk_window_stats(const struct sk_window *w, int *max_running, int *max_pending)
{
	*max_running = w->max_running;
	*max_pending = w->max_pending;
}

void sk_window_free(struct sk_window *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->mu);
	w->shutdown = 1;
	pthread_cond_broadcast(&w->work);
	pthread_mutex_unlock(&w->mu);
	for (int i = 0; i < w->nstarted; i++)
		pthread_join(w->threads[i], NULL);
	pthread_cond_destroy(&w->work);
	pthread_cond_destroy(&w->space);
	pthread_mutex_destroy(&w->mu);
	free(w->threads);
	free(w);
}

/* ---- the executor ---------------------------------------------------------------------------- */

struct window {
	struct sk_run r;
	int *stream; /* [nstreams] the device's stream of each worker */
	struct sk_window *win;
};

static void window_fini(void *state)
{
	struct window *x = state;

	if (!x)
		return;
	sk_window_free(x->win);
	free(x->stream);
	free(x);
}

static int window_init(void *ctx, int worker)
{
	struct window *x = ctx;

	return x->r.dev->ops->bind(x->r.dev, worker + 1);
}

static int window_task(void *ctx, int worker, int task)
{
	struct window *x = ctx;
	int err = sk_dev_launch(x->r.dev, x->stream[worker], task, 0);

	return err ? err : sk_dev_sync(x->r.dev, x->stream[worker], task);
}

static void *window_prepare(const struct sk_run *r, int *err)
{
	struct window *x = calloc(1, sizeof(*x));
	int n = r->p->nstreams;

	*err = 0;
	if (!x || !(x->stream = malloc((size_t)n * sizeof(int)))) {
		free(x);
		*err = sk_fail(SKIP_E_NOMEM, "out of memory");
		return NULL;
	}
	x->r = *r;
	for (int i = 0; i < n && !*err; i++)
		if ((x->stream[i] = sk_dev_stream_new(r->dev)) < 0)
			*err = x->stream[i];
	if (!*err)
		x->win = sk_window_new(n, r->p->window, window_task, window_init, x, err);
	if (*err) {
		window_fini(x);
		return NULL;
	}
	return x;
}

static int window_run(void *state)
{
	struct window *x = state;

	return sk_window_run(x->win, x->r.g, x->r.p->order);
}

const struct sk_executor sk_exec_window = {
    .id = SKIP_EXEC_WINDOW,
    .info = {"window", "E4", "ACS-style window scheduler",
	     SKIP_PLAN_ORDER | SKIP_PLAN_STREAMS | SKIP_PLAN_WINDOW},
    .prepare = window_prepare,
    .run = window_run,
    .fini = window_fini,
};
