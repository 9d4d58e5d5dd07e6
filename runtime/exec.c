/*
 * exec.c: the table of executors (one row each, exec.h), and what runs any of them: an
 * executor found by number or name, and skip_exec_run()/skip_exec_free() on whichever device
 * it was made (the GPU: cuda_exec.c's skip_exec_new(); the recorder: launches.c). CPU only.
 */
#define SK_LOG_DOMAIN "runtime"
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"

/* The executors, in enum skip_executor order: one row X(NAME) each, for the struct
 * sk_executor sk_exec_NAME that runtime/exec/NAME.c defines. */
#define EXECUTORS(X) X(serial) X(streams) X(graph) X(window) X(persistent)

#define DECLARE(name) extern const struct sk_executor sk_exec_##name;
#define ROW(name)     &sk_exec_##name,
EXECUTORS(DECLARE)
const struct sk_executor *const sk_executors[] = {EXECUTORS(ROW)};
_Static_assert(sizeof(sk_executors) / sizeof(sk_executors[0]) == SKIP_NEXECUTORS,
	       "one row per value of enum skip_executor");

const struct sk_executor *sk_executor_of(int e)
{
	if (e < 0 || e >= SKIP_NEXECUTORS)
		return NULL;
	assert(sk_executors[e]->id == (enum skip_executor)e);
	return sk_executors[e];
}

const struct skip_executor_info *skip_executor_info(int e)
{
	const struct sk_executor *x = sk_executor_of(e);

	return x ? &x->info : NULL;
}

const char *skip_executor_name(enum skip_executor e)
{
	const struct sk_executor *x = sk_executor_of((int)e);

	return x ? x->info.name : "?";
}

const char *sk_executor_list(char *buf, size_t len, unsigned field, const char *last)
{
	char sep[16];
	int n = 0, k = 0;
	size_t at = 0;

	snprintf(sep, sizeof(sep), " %s ", last);
	for (int e = 0; e < SKIP_NEXECUTORS; e++)
		n += !field || (sk_executors[e]->info.fields & field);
	buf[0] = '\0';
	for (int e = 0; e < SKIP_NEXECUTORS && at < len; e++) {
		if (field && !(sk_executors[e]->info.fields & field))
			continue;
		at += (size_t)snprintf(buf + at, len - at, "%s%s",
				       !k	    ? ""
				       : k == n - 1 ? sep
						    : ", ",
				       sk_executors[e]->info.name);
		k++;
	}
	return buf;
}

int skip_executor_parse(const char *name)
{
	char list[128];

	for (int e = 0; name && e < SKIP_NEXECUTORS; e++)
		if (!strcmp(name, sk_executors[e]->info.name))
			return e;
	return sk_fail(SKIP_E_INVAL, "unknown executor '%s' (%s)", name ? name : "",
		       sk_executor_list(list, sizeof(list), 0, "or"));
}

/* ---- running, on any device ------------------------------------------------------------------ */

struct skip_exec {
	const struct sk_executor *e;
	const struct skip_graph *g;
	struct sk_dev *dev;
	struct skip_plan p; /* copy of the plan (arrays owned) */
	void *state;	    /* the executor's */
};

static int copy_plan(struct skip_exec *x, const struct skip_plan *p)
{
	int n = p->ntasks;

	x->p = *p;
	x->p.order = malloc((size_t)n * sizeof(int) + 1);
	x->p.stream = p->stream ? malloc((size_t)n * sizeof(int) + 1) : NULL;
	x->p.events = malloc((size_t)p->nevents * sizeof(*p->events) + 1);
	if (!x->p.order || (p->stream && !x->p.stream) || !x->p.events)
		return sk_fail(SKIP_E_NOMEM, "out of memory");
	memcpy(x->p.order, p->order, (size_t)n * sizeof(int));
	if (p->stream)
		memcpy(x->p.stream, p->stream, (size_t)n * sizeof(int));
	if (p->nevents) /* events NULL otherwise: memcpy from NULL is undefined even for 0 bytes */
		memcpy(x->p.events, p->events, (size_t)p->nevents * sizeof(*p->events));
	return 0;
}

struct skip_exec *sk_exec_new_on(const struct skip_graph *g, const struct skip_plan *p,
				 struct sk_dev *dev, int *err)
{
	struct skip_exec *x = NULL;
	int e = skip_plan_validate(g, p);

	if (!e && !(x = calloc(1, sizeof(*x))))
		e = sk_fail(SKIP_E_NOMEM, "out of memory");
	if (e) {
		dev->ops->free(dev);
		*err = e;
		return NULL;
	}
	x->e = sk_executor_of(p->executor);
	x->g = g;
	x->dev = dev;
	dev->ops->bind(dev, 0);
	e = copy_plan(x, p);
	if (!e) {
		struct sk_run r = {dev, g, &x->p};

		x->state = x->e->prepare(&r, &e);
	}
	if (e) {
		skip_exec_free(x);
		x = NULL;
	}
	*err = e;
	return x;
}

/* Wait for every stream of the device; the first error. */
static int sync_all(struct skip_exec *x)
{
	int err = 0;

	for (int s = 0; s < x->dev->nstreams; s++) {
		int e = sk_dev_sync(x->dev, s, -1);

		if (e && !err)
			err = e;
	}
	return err;
}

int skip_exec_run(struct skip_exec *x, uint64_t *elapsed_ns)
{
	uint64_t t0 = skip_clock_ns(CLOCK_MONOTONIC);
	int err, serr;

	x->dev->ops->bind(x->dev, 0);
	err = x->e->run(x->state);
	serr = sync_all(x);
	if (serr && !err)
		err = serr;
	if (elapsed_ns)
		*elapsed_ns = skip_clock_ns(CLOCK_MONOTONIC) - t0;
	return err;
}

int skip_exec_workers(const struct skip_exec *x)
{
	return x && x->e->workers ? x->e->workers(x->state) : 0;
}

int skip_exec_tile_times(const struct skip_exec *x, struct skip_tile_time *out, int max)
{
	if (max < 0 || (max > 0 && !out))
		return sk_fail(SKIP_E_INVAL, "tile times: %d entries at %p", max, (void *)out);
	return x && x->e->tile_times ? x->e->tile_times(x->state, out, max) : 0;
}

void skip_exec_free(struct skip_exec *x)
{
	if (!x)
		return;
	x->dev->ops->bind(x->dev, 0);
	x->e->fini(x->state);
	x->dev->ops->free(x->dev);
	free(x->p.order);
	free(x->p.stream);
	free(x->p.events);
	free(x);
}
