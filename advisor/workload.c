/*
 * workload.c: a recording of `skip run WORKLOAD --executor serial` as models of the runtime's
 * executors (docs/advise-model.md "Workloads").
 *
 * The recording is cut into iterations: runs of the workload's task count of kernels, in the
 * serial plan's order, whose names are the tasks' kernels (the runtime's own kernels, which
 * write initial contents and compare results, are left out: skip_runtime_kernel() names them).
 * Each task gets the medians over iterations of its kernel's duration, its launch call's time
 * and the host gap before that call. From those, one what-if program per executor's plan,
 * built from what that executor submits for the plan, step by step, as the runtime reports it
 * (skip_plan_launches(): the executor itself, run on a recording device), not from a second
 * description of it:
 *   a kernel launch: a host call (the task's recorded call, or the calibrated launch) and the
 *      kernel on its stream, after the stream's previous kernel and what the stream waited for;
 *      a launch onto another stream than the previous one costs stream_switch_ns more;
 *   cudaEventRecord / cudaStreamWaitEvent: a host call each (event_record_ns, stream_wait_ns);
 *      the wait makes the stream's next kernel wait for what the event's stream had submitted;
 *   cudaGraphLaunch: one host call, then the graph's kernel nodes (its prepare steps) with
 *      their edges; a node that first joins the branches of different root nodes waits
 *      graph_root_join_ns more;
 *   cudaStreamSynchronize: the host waits for what the stream had submitted.
 * A step the model does not know (one a new executor brings), programmatic dependent launch,
 * or steps of worker threads (the window executor, whose order depends on completions) make
 * the model refuse that plan rather than guess; tests/unit/advisor/test_workload_models.c
 * checks the model against every executor's steps.
 * The serial program with the recorded (profiled) call times must reproduce the recorded
 * iteration (the calibration error); predictions take the profiler's cost per launch call out.
 * With start costs (skip_advise_opts, from skip run --probe-starts), a task's kernel ends later
 * for each other kernel that starts while it runs (whatif.c); E1 runs one kernel at a time.
 */
#define SK_LOG_DOMAIN "advisor"
#include <assert.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "skip_runtime.h"

/* What the model knows of one task, from the recording. */
struct task_stat {
	double dur;  /* its kernel on the GPU */
	double call; /* its launch call, as recorded */
	double gap;  /* host time before its launch call (after the previous call) */
	int sms;     /* multiprocessors its grid occupies */
	int blocks;  /* its grid's blocks */
	int per_sm;  /* of its blocks, resident on one multiprocessor at once (0: unknown) */
	int *src;    /* per read of data an earlier task writes: that task (the last writer) */
	double *src_bytes;
	int nsrc;
	double read_bytes;    /* everything it reads */
	double serial_remote; /* bytes of its sources whose grid differs from its own */
	double start_cost;    /* what another kernel's start costs it (skip_advise_opts) */
	double demand;	      /* its memory demand (skip_advise_opts), 0: none */
	double worker;	      /* its time alone in E5's workers (skip_advise_opts), 0: none */
};

struct wmodel {
	struct sk_ctx *c;
	const struct skip_graph *g;
	int n;
	struct task_stat *ts;
	double host_gap; /* median host gap between calls, for calls the recording lacks */
	double profiler; /* the profiler's cost per launch call of this recording */
};

static int name_matches(struct skip_trace *t, const struct skip_op *op, const char *kernel)
{
	const char *s = skip_trace_string(t, op->name), *d = skip_trace_string(t, op->fullname);
	size_t n = strlen(kernel);

	return !strcmp(s, kernel) || !strcmp(d, kernel) || (!strncmp(d, kernel, n) && d[n] == '(');
}

/* The first synchronization of the launching thread that began after @api_end. */
static const struct skip_sync *sync_after(const struct skip_timeline *tl, const struct skip_op *op)
{
	size_t lo = sk_sync_from(tl, op->api_end);
	for (; lo < tl->nsyncs; lo++)
		if (tl->syncs[lo].pid == op->pid && tl->syncs[lo].tid == op->tid)
			return &tl->syncs[lo];
	return NULL;
}

/* ---- finding the iterations ------------------------------------------------------------------ */

static int mismatch(struct skip_trace *t, const char *wname, const char **kname, int n,
		    const uint32_t *ker, size_t nk, const struct skip_timeline *tl)
{
	struct sk_strbuf want = {0}, got = {0};

	for (int k = 0; k < n && k < 6; k++)
		sk_strbuf_printf(&want, "%s%s", k ? ", " : "", kname[k] ? kname[k] : "?");
	for (size_t k = 0; k < nk && k < 6; k++)
		sk_strbuf_printf(&got, "%s%s", k ? ", " : "",
				 skip_trace_string(t, tl->ops[ker[k]].name));
	sk_fail(
	    SKIP_E_INVAL,
	    "the trace does not match workload '%s': no iteration of its %d kernels in the serial "
	    "order (%s%s) in the run, whose kernels are %s%s%s. Record `skip run WORKLOAD "
	    "--executor serial` with the --size given here",
	    wname, n, want.buf ? want.buf : "", n > 6 ? ", ..." : "", nk ? "" : "none",
	    got.buf ? got.buf : "", nk > 6 ? ", ..." : "");
	free(want.buf);
	free(got.buf);
	return SKIP_E_INVAL;
}

/* The kernels of @tl in launch order, the runtime's own left out: *@ker (caller frees) gets
 * their indices; returns their number. */
static size_t run_kernels(struct skip_trace *t, const struct skip_timeline *tl, uint32_t **ker)
{
	size_t nk = 0;

	*ker = sk_xmalloc((tl->nops + 1) * sizeof(uint32_t));
	for (size_t i = 0; i < tl->nops; i++)
		if (tl->ops[i].kind == SKIP_OP_KERNEL &&
		    !skip_runtime_kernel(skip_trace_string(t, tl->ops[i].name)))
			(*ker)[nk++] = (uint32_t)i;
	return nk;
}

/* mismatch() on the context's run (the first, or the one chosen). */
static int mismatch_of(struct sk_ctx *c, const char *wname, const char **kname, int n)
{
	uint32_t *ker;
	size_t nk = run_kernels(c->t, c->tl, &ker);
	int err = mismatch(c->t, wname, kname, n, ker, nk, c->tl);

	free(ker);
	return err;
}

/* Iterations: *@first gets, per iteration, the index into @ker of its first kernel. */
static size_t find_iterations(struct skip_trace *t, const struct skip_timeline *tl,
			      const uint32_t *ker, size_t nk, const char **kname, int n,
			      size_t **first)
{
	size_t ni = 0;

	*first = sk_xmalloc((nk / (size_t)n + 1) * sizeof(size_t));
	for (size_t i = 0; i + (size_t)n <= nk;) {
		int k = 0;

		for (; k < n; k++) {
			const struct skip_op *op = &tl->ops[ker[i + (size_t)k]];

			if (!kname[k] || !name_matches(t, op, kname[k]) ||
			    op->launch == INT64_MIN || op->stream != tl->ops[ker[i]].stream ||
			    op->tid != tl->ops[ker[i]].tid)
				break;
		}
		if (k < n) {
			i++;
			continue;
		}
		(*first)[ni++] = i;
		i += (size_t)n;
	}
	return ni;
}

/* ---- the programs ---------------------------------------------------------------------------- */

/* The host time of task @v's launch call, after its gap @gap: as recorded when @profiled; else
 * (the fallback rule, skip_advisor.h) the calibrated launch of skip run less the gap, or when
 * that is not measured the recorded call less the profiler's cost. */
static int64_t host_cost(const struct wmodel *m, int v, double gap, int profiled)
{
	double rt = m->c->o.cal.runtime_launch_ns, d = m->ts[v].call;

	if (!profiled)
		d = sk_measured(rt) ? rt - gap : d - m->profiler;
	return sk_ns(d < 100 ? 100 : d);
}

/* Between back-to-back kernels of a stream: the recording's, or when predicting an unprofiled
 * run the calibrated bare gap when measured (the profiler lengthens it; the fallback rule). */
static int64_t stream_gap(const struct wmodel *m, int profiled)
{
	double bare = m->c->o.cal.stream_gap_bare_ns;

	return !profiled && sk_measured(bare) ? sk_ns(bare) : m->c->lat.stream_gap;
}

static int add_call(struct wi_prog *p, double gap, int64_t dur)
{
	struct wi_call w = {.thread = 0, .gap = sk_ns(gap), .dur = dur};

	return wi_add_call(p, &w);
}

static int add_sync(struct wi_prog *p, const struct wmodel *m, double gap, const int *waits,
		    int nwaits)
{
	struct wi_call w = {.thread = 0,
			    .gap = sk_ns(gap),
			    .is_sync = 1,
			    .dur = sk_ns(m->c->o.cal.sync_idle_ns),
			    .ret = m->c->lat.sync_ret};

	w.waits = sk_xmalloc(((size_t)nwaits + 1) * sizeof(int));
	if (nwaits) /* waits may be NULL then */
		memcpy(w.waits, waits, (size_t)nwaits * sizeof(int));
	w.nwaits = nwaits;
	return wi_add_call(p, &w);
}

/* Run and free @p: the host time from its first call to its last call's return, or -1. */
static int64_t host_time(struct wi_prog *p)
{
	int64_t t = wi_simulate(p) < 0 ? -1 : p->host_end - p->t0;

	wi_free(p);
	return t;
}

/* @o reads what earlier tasks wrote: its sources, as operations of the program (@op_of). */
static void set_srcs(const struct wmodel *m, int v, const int *op_of, struct wi_op *o)
{
	const struct task_stat *t = &m->ts[v];

	o->blocks = t->blocks;
	o->start_cost = sk_ns(t->start_cost + 0.5);
	o->demand = t->demand;
	o->read_bytes = t->read_bytes;
	o->serial_remote = t->serial_remote;
	o->nsrcs = t->nsrc;
	o->srcs = sk_xmalloc(((size_t)t->nsrc + 1) * sizeof(*o->srcs));
	for (int i = 0; i < t->nsrc; i++)
		o->srcs[i] = (struct wi_src){op_of[t->src[i]], t->src_bytes[i]};
}

/* ---- the programs: what the executor submits, as a what-if program --------------------------- */

/* Some of the program's operations: what a synchronization, a record or a stream's next
 * operation waits for. */
struct opset {
	int *op;
	int n;
	size_t cap;
};

static void opset_add(struct opset *s, int op)
{
	SK_VEC_XPUSH(s->op, s->n, s->cap, op);
}

static void opset_set(struct opset *to, const struct opset *from)
{
	to->n = 0;
	for (int i = 0; i < from->n; i++)
		opset_add(to, from->op[i]);
}

/* One iteration's program, built from the executor's steps (skip_plan_launches()). */
struct build {
	const struct wmodel *m;
	const struct skip_launches *l;
	const char *exec; /* its name, for messages */
	struct wi_prog *p;
	int profiled;
	int *op_of;	     /* [n] each task's operation */
	struct opset *front; /* [nstreams] what a synchronize or a record of the stream waits for */
	char *front_graph;   /* [nstreams] front is a graph's last nodes, not the stream's own */
	struct opset
	    *pending;	     /* [nstreams] what the stream's next operation waits for (its waits) */
	struct opset *event; /* [nevents] what a wait for the event waits for */
	int nstreams, nevents;
	int launches;	   /* kernel launches so far */
	int prev_stream;   /* of the last one */
	int graph_streams; /* the program's streams taken by graph nodes (after the executor's) */
	struct skip_step *calls; /* [nrun] the step each host call of the program stands for */
	int *op_task;		 /* [capops] the task each operation is the kernel of */
	size_t capops;
};

/* Operation @op is task @v's kernel. */
static void op_is(struct build *b, int op, int v)
{
	SK_VEC_XRESERVE(b->op_task, b->capops, (size_t)op + 1);
	b->op_task[op] = v;
}

static int refuse(const struct build *b, const char *why)
{
	return sk_fail(SKIP_E_UNSUPPORTED, "the model does not follow the %s executor: %s", b->exec,
		       why);
}

/* A host call for step @s. */
static int step_call(struct build *b, const struct skip_step *s, double gap, int64_t dur)
{
	int c = add_call(b->p, gap, dur);

	b->calls[c] = *s;
	return c;
}

static void on_launch(struct build *b, const struct skip_step *s)
{
	const struct wmodel *m = b->m;
	int v = s->task, x = s->stream, first = !b->launches++;
	double gap = first ? 0 : m->ts[v].gap;
	struct wi_op o = {.dur = sk_ns(m->ts[v].dur),
			  .sms = m->ts[v].sms,
			  .stream = x,
			  .lat = m->c->lat.launch,
			  .gap = stream_gap(m, b->profiled)};
	struct opset deps = {0};

	opset_set(&deps, &b->pending[x]);
	for (int i = 0; b->front_graph[x] && i < b->front[x].n; i++)
		opset_add(&deps, b->front[x].op[i]);
	o.deps = deps.op; /* NULL when none */
	o.ndeps = deps.n;
	set_srcs(m, v, b->op_of, &o);
	o.call = step_call(
	    b, s, gap,
	    host_cost(m, v, gap, b->profiled) +
		(!first && x != b->prev_stream ? sk_ns(m->c->o.cal.stream_switch_ns) : 0));
	b->prev_stream = x;
	b->op_of[v] = wi_add_op(b->p, &o);
	op_is(b, b->op_of[v], v);
	b->front[x].n = b->pending[x].n = 0;
	b->front_graph[x] = 0;
	opset_add(&b->front[x], b->op_of[v]);
}

/* The root group of task @v (path halving). */
static int find_group(int *group, int v)
{
	while (group[v] != v) {
		group[v] = group[group[v]];
		v = group[v];
	}
	return v;
}

/* The kernel nodes of graph @gr (in the order they were added) and, per task, the sources of
 * its edges (in the order they were added): *@node and *@src (caller frees), *@nsrc[v]. */
static int graph_of(const struct build *b, int gr, int **node, int ***src, int **nsrc)
{
	const struct skip_launches *l = b->l;
	int n = b->m->n, nn = 0;

	*node = sk_xmalloc(((size_t)n + 1) * sizeof(int));
	*src = sk_xcalloc((size_t)n + 1, sizeof(int *));
	*nsrc = sk_xcalloc((size_t)n + 1, sizeof(int));
	for (int i = 0; i < l->nprepare; i++) {
		const struct skip_step *s = &l->prepare[i];

		if (s->graph != gr)
			continue;
		if (s->kind == SKIP_STEP_NODE)
			(*node)[nn++] = s->task;
		if (s->kind != SKIP_STEP_EDGE)
			continue;
		(*src)[s->task] =
		    sk_xrealloc((*src)[s->task], ((size_t)(*nsrc)[s->task] + 1) * sizeof(int));
		(*src)[s->task][(*nsrc)[s->task]++] = s->from;
	}
	return nn;
}

/* Graph node @v, after @call: its edges' sources as dependencies (and what the stream waited
 * for, for a root), joining root groups as it goes. */
static void graph_node(struct build *b, int v, int k, int call, int x, const int *src, int nsrc,
		       int *group)
{
	const struct wmodel *m = b->m;
	struct wi_op o = {.dur = sk_ns(m->ts[v].dur),
			  .sms = m->ts[v].sms,
			  .stream = b->nstreams + b->graph_streams + k,
			  .call = call,
			  .lat = m->c->lat.graph_first,
			  .gap = m->c->lat.node_gap,
			  .graph_node = 1};
	struct opset deps = {0};

	group[v] = v; /* a root starts its own group */
	for (int i = 0; i < nsrc; i++) {
		int r = find_group(group, src[i]);

		opset_add(&deps, b->op_of[src[i]]);
		if (i == 0) {
			group[v] = r;
		} else if (r != find_group(group, v)) { /* joins another root's branches */
			o.join_extra = sk_ns(m->c->o.cal.graph_root_join_ns);
			group[r] = find_group(group, v);
		}
	}
	for (int i = 0; !nsrc && i < b->pending[x].n; i++)
		opset_add(&deps, b->pending[x].op[i]);
	for (int i = 0; !nsrc && b->front_graph[x] && i < b->front[x].n; i++)
		opset_add(&deps, b->front[x].op[i]);
	o.deps = deps.op; /* NULL when none */
	o.ndeps = deps.n;
	set_srcs(m, v, b->op_of, &o);
	b->op_of[v] = wi_add_op(b->p, &o);
	op_is(b, b->op_of[v], v);
}

/* cudaGraphLaunch: one call, then the graph's nodes; the stream's front becomes its sinks. */
static void on_graph_launch(struct build *b, const struct skip_step *s)
{
	const struct skip_calibration *cal = &b->m->c->o.cal;
	int *node, **src, *nsrc, x = s->stream, n = b->m->n;
	int nn = graph_of(b, s->graph, &node, &src, &nsrc);
	int *group = sk_xmalloc(((size_t)n + 1) * sizeof(int)); /* root groups (union-find) */
	char *has_succ = sk_xcalloc((size_t)n + 1, 1), *in = sk_xcalloc((size_t)n + 1, 1);
	int call = step_call(b, s, b->p->ncalls ? b->m->host_gap : 0,
			     sk_ns(cal->graph_launch_ns + (nn - 1) * cal->graph_launch_node_ns));

	for (int k = 0; k < nn; k++) { /* in the order the executor added the nodes */
		graph_node(b, node[k], k, call, x, src[node[k]], nsrc[node[k]], group);
		in[node[k]] = 1;
		for (int i = 0; i < nsrc[node[k]]; i++)
			has_succ[src[node[k]][i]] = 1;
	}
	b->graph_streams += nn;
	b->front[x].n = b->pending[x].n = 0;
	b->front_graph[x] = 1;
	for (int v = 0; v < n; v++)
		if (in[v] && !has_succ[v])
			opset_add(&b->front[x], b->op_of[v]);
	for (int v = 0; v < n; v++)
		free(src[v]);
	free(src);
	free(nsrc);
	free(node);
	free(group);
	free(has_succ);
	free(in);
}

/* One step of a run; 0, or SKIP_E_UNSUPPORTED for a step the model does not know. */
static int on_step(struct build *b, const struct skip_step *s)
{
	const struct skip_calibration *cal = &b->m->c->o.cal;

	if (s->thread)
		return refuse(b,
			      "its launches come from worker threads, in an order that the GPU's "
			      "completions decide");
	if (s->stream < 0 || s->stream >= b->nstreams)
		return refuse(b, "a step on a stream it did not make");
	switch (s->kind) {
	case SKIP_STEP_LAUNCH:
		if (s->flags & SKIP_STEP_PDL)
			return refuse(b, "programmatic dependent launch is not modelled");
		on_launch(b, s);
		return 0;
	case SKIP_STEP_RECORD:
		step_call(b, s, b->m->host_gap, sk_ns(cal->event_record_ns));
		opset_set(&b->event[s->event], &b->front[s->stream]);
		return 0;
	case SKIP_STEP_WAIT:
		step_call(b, s, b->m->host_gap, sk_ns(cal->stream_wait_ns));
		for (int i = 0; i < b->event[s->event].n; i++)
			opset_add(&b->pending[s->stream], b->event[s->event].op[i]);
		return 0;
	case SKIP_STEP_GRAPH_LAUNCH:
		on_graph_launch(b, s);
		return 0;
	case SKIP_STEP_SYNC: {
		const struct opset *f = &b->front[s->stream];
		int c = add_sync(b->p, b->m, b->m->host_gap, f->op, f->n);

		b->calls[c] = *s;
		return 0;
	}
	case SKIP_STEP_PERSIST:
		return refuse(b, "its tiles are scheduled inside one resident kernel, in an order "
				 "that the workers' counters decide");
	default:
		return refuse(b, "a step of a kind the model does not know");
	}
}

/* What the executor makes once: streams, events and graphs are counted; anything else (a
 * launch before the runs) the model does not know. */
static int on_prepare(struct build *b)
{
	for (int i = 0; i < b->l->nprepare; i++) {
		const struct skip_step *s = &b->l->prepare[i];

		switch (s->kind) {
		case SKIP_STEP_STREAM:
			b->nstreams++;
			break;
		case SKIP_STEP_EVENT:
			b->nevents++;
			break;
		case SKIP_STEP_EDGE:
			if (s->flags & SKIP_STEP_PDL)
				return refuse(b, "programmatic dependent launch is not modelled");
			break;
		case SKIP_STEP_GRAPH:
		case SKIP_STEP_NODE:
		case SKIP_STEP_INSTANTIATE:
			break;
		default:
			return refuse(b, "it submits work before its runs");
		}
	}
	return 0;
}

static void build_fini(struct build *b)
{
	for (int i = 0; b->front && i < b->nstreams; i++) {
		free(b->front[i].op);
		free(b->pending[i].op);
	}
	for (int i = 0; b->event && i < b->nevents; i++)
		free(b->event[i].op);
	free(b->front);
	free(b->front_graph);
	free(b->pending);
	free(b->event);
	free(b->op_of);
}

/*
 * The program of one iteration of @plan into @p (set up by the caller), from what its
 * executor submits. *@calls and *@op_task (either may be NULL; else the caller frees them)
 * get, per host call of @p, the step it stands for and, per operation, the task it is the
 * kernel of. 0, or a negative code with skip_errmsg() set (SKIP_E_UNSUPPORTED: the executor
 * does something the model does not know).
 */
static int build_program(const struct wmodel *m, const struct skip_plan *plan, int profiled,
			 struct wi_prog *p, struct skip_step **calls, int **op_task)
{
	struct build b = {
	    .m = m, .p = p, .profiled = profiled, .exec = skip_executor_name(plan->executor)};
	struct skip_launches *l = NULL;
	int err = skip_plan_launches(m->g, plan, &l);

	if (!err) {
		b.l = l;
		err = on_prepare(&b);
	}
	if (!err) {
		b.op_of = sk_xmalloc(((size_t)m->n + 1) * sizeof(int));
		b.front = sk_xcalloc((size_t)b.nstreams + 1, sizeof(*b.front));
		b.front_graph = sk_xcalloc((size_t)b.nstreams + 1, 1);
		b.pending = sk_xcalloc((size_t)b.nstreams + 1, sizeof(*b.pending));
		b.event = sk_xcalloc((size_t)b.nevents + 1, sizeof(*b.event));
		b.calls = sk_xcalloc((size_t)l->nrun + 1, sizeof(*b.calls));
	}
	for (int i = 0; !err && i < l->nrun; i++)
		err = on_step(&b, &l->run[i]);
	build_fini(&b);
	skip_launches_free(l);
	if (calls && !err)
		*calls = b.calls;
	else
		free(b.calls);
	if (op_task && !err)
		*op_task = b.op_task;
	else
		free(b.op_task);
	return err;
}

/* A block's pace beside an older kernel's block: sm_share_rate, or full pace when that is not
 * measured (the fallback rule). */
static double share_rate(const struct skip_calibration *cal)
{
	return sk_measured(cal->sm_share_rate) ? cal->sm_share_rate : 1;
}

/* The host time of one iteration of @plan (its first call to the last synchronize's return),
 * or -1 when it cannot be modelled. */
static int64_t model_plan(const struct wmodel *m, const struct skip_plan *plan, int profiled)
{
	const struct skip_calibration *cal = &m->c->o.cal;
	struct wi_prog p = {.sms = m->c->tl->sm_count,
			    .dispatch_gap = sk_ns(cal->graph_dispatch_ns),
			    .remote_cost = cal->remote_read_cost,
			    .share_rate = share_rate(cal)};

	if (build_program(m, plan, profiled, &p, NULL, NULL)) {
		wi_free(&p);
		return -1;
	}
	return host_time(&p);
}

/* ---- the statistics -------------------------------------------------------------------------- */

/* A run of the workload in the trace: its kernels (the runtime's own left out) and where its
 * iterations start among them. */
struct wrun {
	const struct skip_timeline *tl;
	struct skip_timeline *owned; /* loaded here (not the context's), freed with it */
	uint32_t *ker;
	size_t nk, ni, *first;
};

/* The @k-th kernel of iteration @i of the runs taken together. */
static const struct skip_op *iter_op(const struct wrun *runs, int nruns, size_t i, int k)
{
	for (int r = 0; r < nruns; i -= runs[r++].ni)
		if (i < runs[r].ni)
			return &runs[r].tl->ops[runs[r].ker[runs[r].first[i] + (size_t)k]];
	return NULL;
}

/* Per task, medians over every iteration of every run. */
static void task_stats(struct wmodel *m, const struct wrun *runs, int nruns, const int *order,
		       double *recorded)
{
	size_t ni = 0, ng = 0;
	double *v, *gaps;
	int sms = runs[0].tl->sm_count > 0 ? runs[0].tl->sm_count : 132;

	for (int r = 0; r < nruns; r++)
		ni += runs[r].ni;
	v = sk_xmalloc((ni + 1) * sizeof(double));
	gaps = sk_xmalloc(((size_t)m->n * ni + 1) * sizeof(double));
	for (int k = 0; k < m->n; k++) {
		struct task_stat *s = &m->ts[order[k]];
		const struct skip_op *op0 = iter_op(runs, nruns, 0, k);

		for (size_t i = 0; i < ni; i++) {
			const struct skip_op *op = iter_op(runs, nruns, i, k);

			v[i] = (double)(op->end - op->start);
		}
		s->dur = skip_median(v, ni);
		for (size_t i = 0; i < ni; i++) {
			const struct skip_op *op = iter_op(runs, nruns, i, k);

			v[i] = (double)(op->api_end - op->launch);
		}
		s->call = skip_median(v, ni);
		for (size_t i = 0; i < ni && k > 0; i++) {
			const struct skip_op *op = iter_op(runs, nruns, i, k);
			const struct skip_op *pr = iter_op(runs, nruns, i, k - 1);

			v[i] = (double)(op->launch - pr->api_end);
			gaps[ng++] = v[i];
		}
		s->gap = k > 0 ? skip_median(v, ni) : 0;
		s->sms = sk_sm_need(op0, sms);
		s->blocks = (int)op0->blocks;
		s->per_sm = (int)op0->per_sm;
	}
	m->host_gap = skip_median(gaps, ng);
	for (int r = 0, i = 0; r < nruns; r++) /* first launch to the synchronize's return */
		for (size_t j = 0; j < runs[r].ni; j++, i++) {
			const struct skip_op *a = iter_op(runs, nruns, (size_t)i, 0);
			const struct skip_op *z = iter_op(runs, nruns, (size_t)i, m->n - 1);
			const struct skip_sync *y = sync_after(runs[r].tl, z);

			v[i] = (double)((y && y->end >= z->end ? y->end
							       : z->end + m->c->lat.sync_ret) -
					a->launch);
		}
	*recorded = skip_median(v, ni);
	free(v);
	free(gaps);
}

/* Per task, in the serial @order: what it reads, and which earlier task last wrote each range
 * it reads (any topological order gives the same writers: the access sets order them). */
static void task_sources(struct wmodel *m, const int *order)
{
	for (int k = 0; k < m->n; k++) {
		struct task_stat *s = &m->ts[order[k]];
		const struct skip_access *a, *b;
		int na = skip_graph_task_access(m->g, order[k], &a);

		s->src = sk_xmalloc(((size_t)na + 1) * sizeof(int));
		s->src_bytes = sk_xmalloc(((size_t)na + 1) * sizeof(double));
		for (int i = 0; i < na; i++) {
			if (!(a[i].mode & SKIP_READ))
				continue;
			s->read_bytes += (double)a[i].size;
			for (int j = k - 1; j >= 0; j--) {
				int nb = skip_graph_task_access(m->g, order[j], &b), hit = 0;

				for (int x = 0; x < nb && !hit; x++)
					hit = (b[x].mode & SKIP_WRITE) &&
					      b[x].buffer == a[i].buffer &&
					      b[x].offset < a[i].offset + a[i].size &&
					      a[i].offset < b[x].offset + b[x].size;
				if (!hit)
					continue;
				s->src[s->nsrc] = order[j];
				s->src_bytes[s->nsrc++] = (double)a[i].size;
				if (m->ts[order[j]].blocks != s->blocks)
					s->serial_remote += (double)a[i].size;
				break;
			}
		}
	}
}

/* The options' start costs onto the tasks they name. */
static int start_costs(struct wmodel *m, const struct skip_advise_opts *o, const char *wname)
{
	if (o->nstarts && o->starts_workload && strcmp(o->starts_workload, wname))
		return sk_fail(SKIP_E_INVAL,
			       "the start costs are a probe of workload '%s', not of '%s' (run "
			       "skip run --probe-starts on this workload)",
			       o->starts_workload, wname);
	for (int i = 0; i < o->nstarts; i++) {
		int v = 0;

		while (v < m->n && strcmp(skip_graph_task_name(m->g, v), o->start_tasks[i]))
			v++;
		if (v == m->n)
			return sk_fail(SKIP_E_INVAL,
				       "the start costs name task '%s', which workload '%s' lacks",
				       o->start_tasks[i], wname);
		if (!(o->start_costs_ns[i] <= 1e9)) /* NaN too */
			return sk_fail(
			    SKIP_E_INVAL,
			    "the start cost of task '%s' is %g ns: more than 1 s is no "
			    "measurement of a kernel start (skip run --probe-starts gives "
			    "them)",
			    o->start_tasks[i], o->start_costs_ns[i]);
		m->ts[v].start_cost = o->start_costs_ns[i] > 0 ? o->start_costs_ns[i] : 0;
		if (o->start_demands && !(o->start_demands[i] >= 0 && o->start_demands[i] <= 1))
			return sk_fail(SKIP_E_INVAL,
				       "the memory demand of task '%s' is %g: a share of the "
				       "memory's throughput, 0 to 1 (skip run --probe-starts "
				       "measures it)",
				       o->start_tasks[i], o->start_demands[i]);
		m->ts[v].demand = o->start_demands ? o->start_demands[i] : 0;
		if (o->start_worker_ns &&
		    !(o->start_worker_ns[i] >= 0 && o->start_worker_ns[i] <= 1e12))
			return sk_fail(SKIP_E_INVAL,
				       "task '%s' ran %g ns in E5's workers: a time of 0 to 1000 s "
				       "(skip run --probe-starts measures it)",
				       o->start_tasks[i], o->start_worker_ns[i]);
		m->ts[v].worker = o->start_worker_ns ? o->start_worker_ns[i] : 0;
	}
	return 0;
}

/* "name value, name value" for the tasks whose double at @off in struct task_stat is > 0, each
 * value printed with @fmt; NULL when there are none. The caller frees it. */
static char *task_values(const struct wmodel *m, size_t off, const char *fmt)
{
	struct sk_strbuf sb = {0};

	for (int v = 0; v < m->n; v++) {
		double x = *(const double *)((const char *)&m->ts[v] + off);

		if (x <= 0)
			continue;
		sk_strbuf_printf(&sb, "%s%s ", sb.buf ? ", " : "", skip_graph_task_name(m->g, v));
		sk_strbuf_printf(&sb, fmt, x);
	}
	return sb.buf;
}

/* Where the persistent item's task times come from: the probe's times in E5's workers for
 * the tasks it timed, the recording for the rest. */
static char *worker_note(const struct wmodel *m)
{
	char *list = task_values(m, offsetof(struct task_stat, worker), "%.0f ns"), *note, *less;
	double span = m->c->o.cal.persist_span_ns;
	int timed = 0;

	for (int v = 0; v < m->n; v++)
		timed += m->ts[v].worker > 0;
	if (!list)
		return sk_xstrdup(
		    "the recorded kernel times: the bodies may run slower or faster in "
		    "a worker; skip run --probe-starts times them there, for --starts");
	less = span > 0
		   ? sk_xasprintf(", less an empty task's %.0f ns there (persist_span_ns)", span)
		   : sk_xstrdup("");
	note = sk_xasprintf(
	    "alone in E5's workers, from skip run --probe-starts: %s%s; %s", list, less,
	    timed == m->n ? "every task" : "the others their recorded kernel times");
	free(list);
	free(less);
	return note;
}

/* What the model assumes of kernel starts: the probed costs, or that there are none. */
static char *starts_note(const struct wmodel *m)
{
	char *list = task_values(m, offsetof(struct task_stat, start_cost), "%.0f ns"), *note;

	if (!list)
		return sk_xstrdup(
		    "a kernel that starts costs the running ones nothing (one that "
		    "re-reads data through its L1 cache loses about 1-2 us per start on "
		    "the H100: give skip run --probe-starts's figures with --starts)");
	note = sk_xasprintf("a kernel that starts costs each running kernel what skip run "
			    "--probe-starts measured for it, at most the time since the previous "
			    "start (%s; the others nothing)",
			    list);
	free(list);
	return note;
}

/* What the model assumes of the memory system: the probed demands, or that it is not shared. */
static char *demand_note(const struct wmodel *m)
{
	char *list = task_values(m, offsetof(struct task_stat, demand), "%.2f"), *note;

	if (!list)
		return sk_xstrdup("kernels share the GPU by the multiprocessors their grids occupy "
				  "(the memory system is not shared: skip run --probe-starts "
				  "measures which kernels it limits, given with --starts)");
	note =
	    sk_xasprintf("kernels share the GPU by the multiprocessors their grids occupy, and "
			 "those with a memory demand (the share of its throughput each takes "
			 "alone, from skip run --probe-starts: %s) share the memory: while "
			 "the running ones' demands add up to D > 1, each runs at 1/D of its pace",
			 list);
	free(list);
	return note;
}

/* ---- items ----------------------------------------------------------------------------------- */

/* What the kernels are assumed to do, for every item; @times says what time each takes. */
static char *kernel_words(const struct wmodel *m, const char *times)
{
	const struct skip_calibration *cal = &m->c->o.cal;
	char *starts = starts_note(m), *demands = demand_note(m), *kernels;

	kernels = sk_xasprintf(
	    "kernels keep %s when they run beside others, but one that reads data a kernel on "
	    "other multiprocessors wrote takes "
	    "up to %.0f%% longer (in proportion to those reads; blocks go one per multiprocessor, "
	    "least loaded first, so a serial run's kernels reuse their predecessors'); a block "
	    "placed on a multiprocessor where an older kernel's block runs progresses at %.0f%% "
	    "of its pace until that one ends; %s; %s",
	    times, 100 * cal->remote_read_cost, 100 * share_rate(cal), demands, starts);
	free(starts);
	free(demands);
	return kernels;
}

static char *streams_title(const struct wmodel *m, const struct skip_plan *plan, const char *w)
{
	(void)m;
	return sk_xasprintf("run workload '%s' on %d streams with %d event%s (E2, the KeSCo/HuntKT "
			    "stream assignment)",
			    w, plan->nstreams, plan->nevents, plan->nevents == 1 ? "" : "s");
}

static char *streams_assumptions(const struct wmodel *m, const char *kernels)
{
	const struct skip_calibration *cal = &m->c->o.cal;
	char *launch = m->c->o.profiled ? sk_xstrdup("launch calls take their recorded time")
		       : sk_measured(cal->runtime_launch_ns)
			   ? sk_xasprintf("a launch takes %.0f ns on the host with the time "
					  "before it (skip run's, calibrated)",
					  cal->runtime_launch_ns)
			   : sk_xasprintf("launch calls take their recorded time less the "
					  "profiler's %.0f ns",
					  m->profiler);
	char *a = sk_xasprintf(
	    "%s; %s; cudaEventRecord %.0f ns, cudaStreamWaitEvent %.0f ns, a synchronize "
	    "of a finished stream %.0f ns on the host; a waiting kernel starts %lld ns "
	    "after the event's kernel ends",
	    kernels, launch, cal->event_record_ns, cal->stream_wait_ns, cal->sync_idle_ns,
	    (long long)stream_gap(m, m->c->o.profiled));

	free(launch);
	return a;
}

static char *graph_title(const struct wmodel *m, const struct skip_plan *plan, const char *w)
{
	(void)plan;
	return sk_xasprintf("run workload '%s' as one CUDA graph (E3: %d kernel nodes, %d edges)",
			    w, m->n, skip_graph_nedges(m->g));
}

static char *graph_assumptions(const struct wmodel *m, const char *kernels)
{
	const struct skip_calibration *cal = &m->c->o.cal;

	return sk_xasprintf(
	    "%s; cudaGraphLaunch takes %.0f ns on the host, the first nodes start %lld ns "
	    "after it returns, a node %lld ns after its last dependency ends (%.0f ns more "
	    "where it first joins the branches of different root nodes) and %.0f ns after "
	    "the previous node started; the synchronize returns %lld ns after the last node",
	    kernels, cal->graph_launch_ns, (long long)m->c->lat.graph_first,
	    (long long)m->c->lat.node_gap, cal->graph_root_join_ns, cal->graph_dispatch_ns,
	    (long long)m->c->lat.sync_ret);
}

/* The executors advised for a workload, in this order, against the recorded serial run: the
 * kind of item and its words. Their models are all model_plan()'s. */
static const struct offer {
	const char *executor; /* skip_executor_parse() */
	enum skip_advice_kind kind;
	char *(*title)(const struct wmodel *m, const struct skip_plan *plan, const char *wname);
	char *(*assumptions)(const struct wmodel *m, const char *kernels);
} offers[] = {
    {"streams", SKIP_ADVICE_STREAMS, streams_title, streams_assumptions},
    {"graph", SKIP_ADVICE_DAGGRAPH, graph_title, graph_assumptions},
};
#define NOFFERS (sizeof(offers) / sizeof(offers[0]))

static void plan_item(struct skip_advice_report *r, const struct wmodel *m, const struct offer *f,
		      const struct skip_plan *plan, double base, double pred, const char *wname)
{
	struct skip_advice *a;
	char *kernels;

	if (base <= 0 || pred <= 0)
		return; /* a model that could not finish (-1) predicts nothing */
	a = sk_item_push(r);
	kernels = kernel_words(m, "their recorded durations (medians over the iterations)");
	a->kind = f->kind;
	a->title = f->title(m, plan, wname);
	a->assumptions = f->assumptions(m, kernels);
	free(kernels);
	a->regions = r->regions;
	a->calibration_error = r->calibration_error;
	sk_item_set(a, base, pred, (base - pred) * (double)r->regions);
	a->plan_json = skip_plan_to_json(m->g, plan);
}

/* E5's default AOT workers (skip_persist_workers()) on @sms SMs: its worker fits two per SM
 * as skip_task.cuh builds it, unless a task's kernel fits only one block per SM (then neither
 * does a worker that runs it: its module is built for one per SM). */
static int aot_workers(const struct wmodel *m, int sms)
{
	int per_sm = 2;

	for (int v = 0; v < m->n; v++)
		if (m->ts[v].per_sm == 1)
			per_sm = 1;
	return skip_persist_workers(m->g, sms, per_sm * sms);
}

/*
 * The persistent item: the workload as one resident kernel (E5), in each mode E5 runs (aot,
 * jit), predicted by skip_predict_persistent() on E5's default workers (AOT's by aot_workers(),
 * JIT's one per SM: its kernel fits one) from the tasks' times alone in E5's workers where the
 * probe gave them, else their recorded durations. The faster mode's plan, which carries those
 * times. The host waits as for a graph.
 */
static void persistent_item(struct skip_advice_report *r, const struct wmodel *m, double base,
			    const char *wname)
{
	const struct skip_calibration *cal = &m->c->o.cal;
	int sms = m->c->tl->sm_count > 0 ? m->c->tl->sm_count : 132, best = SKIP_PERSIST_AOT, err;
	int workers = aot_workers(m, sms);
	struct skip_persist_choice ch = {0};
	struct skip_plan_opts po = {.executor = SKIP_EXEC_PERSISTENT};
	double *dur = sk_xcalloc((size_t)m->n + 1, sizeof(double)), pred[SKIP_PERSIST_NMODES];
	double *demand = sk_xcalloc((size_t)m->n + 1, sizeof(double));
	const struct skip_persist_prediction *pp = ch.pred;
	struct skip_plan *plan = NULL;
	struct skip_advice *a;
	char *kernels, *timed;

	for (int v = 0; v < m->n; v++) {
		/* a time in the workers holds an empty task's span: the per-task cost counts it */
		dur[v] =
		    m->ts[v].worker > 0 ? m->ts[v].worker - cal->persist_span_ns : m->ts[v].dur;
		dur[v] = dur[v] > 0 ? dur[v] : 0;
		demand[v] = m->ts[v].demand;
	}
	err = workers < 1 ? workers
			  : skip_predict_persistent(m->g, dur, demand, workers, sms, cal,
						    SKIP_PERSIST_AOT, &ch.pred[SKIP_PERSIST_AOT]);
	if (!err &&
	    !(err = skip_predict_persistent(m->g, dur, demand, sms, sms, cal, SKIP_PERSIST_JIT,
					    &ch.pred[SKIP_PERSIST_JIT])) &&
	    pp[SKIP_PERSIST_JIT].iteration_ns < pp[SKIP_PERSIST_AOT].iteration_ns)
		best = SKIP_PERSIST_JIT;
	for (int md = SKIP_PERSIST_AOT; md <= SKIP_PERSIST_JIT; md++)
		pred[md] = err ? -1 : pp[md].iteration_ns + (double)m->c->lat.sync_ret;
	po.mode = best + 1; /* the plan's modes count from 1: aot, jit */
	free(demand);
	if (base <= 0 || err || skip_plan_compute(m->g, &po, &plan)) {
		free(dur);
		return;
	}
	/* the tasks' times go into the plan: E5's AOT places tiles by them as predicted here */
	for (int v = 0; v < m->n; v++)
		dur[v] /= 1e3;
	plan->durations_us = dur;
	a = sk_item_push(r);
	kernels = kernel_words(m, "the times named below");
	timed = worker_note(m);
	a->kind = SKIP_ADVICE_PERSIST;
	a->title = sk_xasprintf("run workload '%s' as one persistent kernel (E5, mode %s: %d "
				"workers, %d tiles; aot %.1f us, jit %.1f us)",
				wname, skip_persist_mode_name(best),
				best == SKIP_PERSIST_AOT ? workers : sms, pp[best].tiles,
				pred[SKIP_PERSIST_AOT] / 1e3, pred[SKIP_PERSIST_JIT] / 1e3);
	a->assumptions = sk_xasprintf(
	    "%s; %s (%s), list-scheduled on %d workers as E5's plan schedules them (one per SM, "
	    "more where a level's tiles outnumber the SMs, two of them on an SM, the newer "
	    "tile at %.0f%% of its pace until the older ends; the plan carries these "
	    "times, durations_us); a tile "
	    "starts %.0f ns after its producers end (persist_%s_task_ns), after one cooperative "
	    "launch of %.0f ns on the host; an iteration ends with a %.0f ns barrier and the "
	    "synchronize returns %lld ns after it; the module must be built with "
	    "runtime/skip_task.cuh",
	    kernels,
	    pp[best].tile_edges
		? "every block a tile that takes its task's time over the task's rounds "
		  "on the workers, a consumer tile waiting only on the producer tiles it reads "
		  "(the workload's tile edges)"
		: "each task's blocks become tiles (at most one per worker) that take the task's "
		  "time",
	    timed, best == SKIP_PERSIST_AOT ? workers : sms, 100 * share_rate(cal),
	    skip_persist_task_ns(cal, best), skip_persist_mode_name(best), cal->persist_launch_ns,
	    cal->persist_epoch_ns, (long long)m->c->lat.sync_ret);
	free(kernels);
	free(timed);
	a->regions = r->regions;
	a->calibration_error = r->calibration_error;
	a->persist_mode = best;
	for (int md = 0; md < SKIP_PERSIST_NMODES; md++)
		a->persist_il_ns[md] = md <= SKIP_PERSIST_JIT ? pred[md] : -1;
	sk_item_set(a, base, pred[best], (base - pred[best]) * (double)r->regions);
	a->plan_json = skip_plan_to_json(m->g, plan);
	skip_plan_free(plan);
}

int sk_workload_advise(struct sk_ctx *c, struct skip_advice_report *r)
{
	struct skip_plan_opts po = {.executor = SKIP_EXEC_SERIAL};
	struct skip_plan *serial = NULL;
	struct skip_workload *w;
	struct wmodel m = {.c = c};
	const char **kname = NULL;
	struct wrun *runs = NULL;
	int64_t *ids = NULL, nids = 0;
	int nruns = 0;
	size_t ni = 0;
	double recorded, replay, base;
	int err = 0;

	w = skip_workload_load(c->o.workload, c->o.size, NULL, 0, NULL, &err);
	if (!w)
		return err;
	m.g = skip_workload_graph(w);
	m.n = skip_graph_ntasks(m.g);
	r->workload = sk_xstrdup(skip_workload_name(w));
	if ((err = skip_plan_compute(m.g, &po, &serial)))
		goto out;
	kname = sk_xcalloc((size_t)m.n + 1, sizeof(char *));
	for (int k = 0; k < m.n; k++)
		kname[k] = skip_graph_task_kernel(m.g, serial->order[k], NULL, NULL);
	/* the chosen run; with none chosen, every repetition of the first run that holds
	 * iterations (skip record --repeat N: one recording's process is noisier than several
	 * pooled; a sweep's other parameter values are not repetitions) */
	if (!c->o.run_id)
		nids = skip_trace_repeats(c->t, c->tl->run_id, &ids);
	runs = sk_xcalloc((size_t)(nids > 1 ? nids : 1), sizeof(*runs));
	for (int64_t i = 0; i < (nids > 1 ? nids : 1); i++) {
		struct wrun *u = &runs[nruns];

		u->tl = c->tl;
		if (nids > 1 && ids[i] != c->tl->run_id) {
			if (skip_timeline_load(c->t, ids[i], NULL, &u->owned))
				continue; /* not a run this model can use: left out */
			u->tl = u->owned;
		}
		u->nk = run_kernels(c->t, u->tl, &u->ker);
		u->ni =
		    m.n ? find_iterations(c->t, u->tl, u->ker, u->nk, kname, m.n, &u->first) : 0;
		if (u->ni) {
			ni += u->ni;
			nruns++;
			continue;
		}
		free(u->ker);
		free(u->first);
		skip_timeline_free(u->owned);
		memset(u, 0, sizeof(*u));
	}
	if (!ni) { /* no run matched: say what the context's run holds */
		err = mismatch_of(c, r->workload, kname, m.n);
		goto out;
	}
	m.ts = sk_xcalloc((size_t)m.n + 1, sizeof(*m.ts));
	m.profiler = sk_profiler_cost(&c->lat, &c->o.cal, iter_op(runs, nruns, 0, 0)->driver);
	task_stats(&m, runs, nruns, serial->order, &recorded);
	task_sources(&m, serial->order);
	if ((err = start_costs(&m, &c->o, r->workload)))
		goto out;
	r->regions = ni;
	r->runs = (size_t)nruns;
	r->recorded_il_ns = recorded;
	replay = (double)model_plan(&m, serial, 1);
	r->replay_il_ns = replay;
	r->calibration_error =
	    recorded > 0 ? (replay > recorded ? replay - recorded : recorded - replay) / recorded
			 : 0;
	base = (double)model_plan(&m, serial, c->o.profiled);
	for (size_t i = 0; i < NOFFERS && !err; i++) {
		struct skip_plan *plan = NULL;

		po.executor = skip_executor_parse(offers[i].executor);
		assert(po.executor >= 0);
		if (!(err = skip_plan_compute(m.g, &po, &plan)))
			plan_item(r, &m, &offers[i], plan, base,
				  (double)model_plan(&m, plan, c->o.profiled), r->workload);
		skip_plan_free(plan);
	}
	if (!err)
		persistent_item(r, &m, base, r->workload);
out:
	skip_plan_free(serial);
	free(kname);
	for (int i = 0; i < nruns; i++) {
		free(runs[i].ker);
		free(runs[i].first);
		skip_timeline_free(runs[i].owned);
	}
	free(runs);
	free(ids);
	for (int v = 0; m.ts && v < m.n; v++) {
		free(m.ts[v].src);
		free(m.ts[v].src_bytes);
	}
	free(m.ts);
	skip_workload_free(w);
	return err;
}

/* ---- for the tests --------------------------------------------------------------------------- */

int sk_model_view(const struct skip_graph *g, const struct skip_plan *plan, double dur_ns,
		  struct sk_model_view *v)
{
	struct skip_timeline tl = {.sm_count = 132};
	struct sk_ctx c = {.tl = &tl};
	struct wmodel m = {.c = &c, .g = g, .n = skip_graph_ntasks(g), .host_gap = 500};
	int err;

	memset(v, 0, sizeof(*v));
	skip_calibration_default(&c.o.cal);
	sk_calibrate(&tl, &c.o.cal, &c.lat);
	m.ts = sk_xcalloc((size_t)m.n + 1, sizeof(*m.ts));
	for (int t = 0; t < m.n; t++)
		m.ts[t] = (struct task_stat){
		    .dur = dur_ns, .call = 3000, .gap = 500, .sms = 1, .blocks = 1};
	v->prog =
	    (struct wi_prog){.sms = tl.sm_count, .dispatch_gap = sk_ns(c.o.cal.graph_dispatch_ns)};
	err = build_program(&m, plan, 1, &v->prog, &v->calls, &v->op_task);
	free(m.ts);
	if (err)
		sk_model_view_fini(v);
	return err;
}

void sk_model_view_fini(struct sk_model_view *v)
{
	wi_free(&v->prog);
	free(v->calls);
	free(v->op_task);
	memset(v, 0, sizeof(*v));
}
