/*
 * exec/serial.c: E1, the reference. Every task on one stream, in the plan's (topological)
 * order. With the plan's "pdl", a task whose predecessor in that order is also marked "pdl" is
 * launched with programmatic stream serialization, so that it may start while that one ends.
 */
#define SK_LOG_DOMAIN "runtime"
#include <stdlib.h>

#include "exec.h"

struct serial {
	struct sk_run r;
	int stream;
	unsigned char *pdl; /* [ntasks] launch the task with SKIP_STEP_PDL */
};

static void serial_fini(void *state)
{
	struct serial *s = state;

	if (s)
		free(s->pdl);
	free(s);
}

static void *serial_prepare(const struct sk_run *r, int *err)
{
	const struct skip_graph *g = r->g;
	struct serial *s = calloc(1, sizeof(*s));

	if (!s || !(s->pdl = calloc((size_t)g->ntasks + 1, 1))) {
		free(s);
		*err = sk_fail(SKIP_E_NOMEM, "out of memory");
		return NULL;
	}
	s->r = *r;
	for (int k = 1; r->p->pdl && k < g->ntasks; k++) {
		int v = r->p->order[k], u = r->p->order[k - 1];

		s->pdl[v] =
		    (g->tasks[v].flags & SKIP_TASK_PDL) && (g->tasks[u].flags & SKIP_TASK_PDL);
	}
	if ((s->stream = sk_dev_stream_new(r->dev)) < 0) {
		*err = s->stream;
		serial_fini(s);
		return NULL;
	}
	return s;
}

static int serial_run(void *state)
{
	struct serial *s = state;
	int err = 0;

	for (int k = 0; k < s->r.g->ntasks && !err; k++) {
		int v = s->r.p->order[k];

		err = sk_dev_launch(s->r.dev, s->stream, v, s->pdl[v] ? SKIP_STEP_PDL : 0);
	}
	return err;
}

const struct sk_executor sk_exec_serial = {
    .id = SKIP_EXEC_SERIAL,
    .info = {"serial", "E1", "the reference", SKIP_PLAN_ORDER | SKIP_PLAN_PDL},
    .prepare = serial_prepare,
    .run = serial_run,
    .fini = serial_fini,
};
