/*
 * model.c: the calibration (its built-in values and the table of its keys), the latencies of a
 * recording, and an excerpt of a recorded timeline as a what-if program (internal.h), as
 * recorded or transformed: replayed as one CUDA graph, or with a kernel chain fused
 * (docs/advise-model.md defines the model).
 *
 * Host side: per launching thread, its launch calls and synchronizations in recorded order,
 * each after the recorded gap since the previous one ended and taking its recorded time (minus
 * the profiler's cost per launch when predicting an unprofiled run); a synchronization waits
 * for the operations that had ended when it returned in the recording, then returns after the
 * measured return latency. GPU side: each operation on its stream in launch order, after its
 * launch call plus the launch latency, after its stream predecessor plus the stream gap, when
 * its blocks fit the free multiprocessors. The latencies are medians read off the same
 * recording (sk_calibrate()), or the calibration's where it shows none (the fallback rule,
 * skip_advisor.h).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "internal.h"
#include "skip_runtime.h"

/* The H100 of docs/BENCHMARKS.md. Each figure is the median over closed loops on freshly started
 * machines of the loop's calibration (bench/advise/closed_loop.sh: the median over its 12
 * calibration pairs, sampled throughout the loop: alternated runs of bench/apps/advise_calib
 * and of bench/advise/launch_calib.json, bare and under skip record): four loops, fourteen for
 * launch_bare_ns; graph_node_gap_ns is the median of four measures of fill_k's chain; the
 * latencies a recording normally shows itself (fallback rule, skip_advisor.h) come from the DAG
 * suite's serial recordings. The loops' figures are in bench/advise/RESULTS.md. */
void skip_calibration_default(struct skip_calibration *c)
{
	/* host */
	c->launch_bare_ns = 3890;     /* bursts of 16 cudaLaunchKernel, bare */
	c->runtime_launch_ns = 3626;  /* launch_calib.json's bare runs, per launch */
	c->event_record_ns = 319;     /* cudaEventRecord, host */
	c->stream_wait_ns = 317;      /* cudaStreamWaitEvent, host */
	c->stream_switch_ns = 263;    /* a launch onto another busy stream after an event wait */
	c->sync_idle_ns = 511;	      /* cudaStreamSynchronize of a finished stream, host */
	c->launch_latency_ns = 2400;  /* fallback: launch return to start, stream idle */
	c->stream_gap_ns = 1350;      /* fallback: back-to-back kernels of a stream (recorded) */
	c->stream_gap_bare_ns = 1047; /* 16 back-to-back 10 us kernels on a stream, bare */
	c->sync_return_ns = 2800;     /* fallback: GPU done to cudaStreamSynchronize's return */
	/* graph */
	c->graph_launch_ns = 1871;     /* cudaGraphLaunch of a one-node graph, host */
	c->graph_launch_node_ns = 5.7; /* cudaGraphLaunch, per node after the first */
	c->graph_first_ns = 1612;      /* derived: a one-node graph's launch + sync reproduced */
	c->graph_node_gap_ns = 26;     /* 64 dependent fill_k nodes, over its duration */
	c->graph_dispatch_ns = 903;    /* between the starts of independent graph nodes */
	c->graph_root_join_ns = 1846;  /* two root nodes joined, over a chain */
	c->graph_memset_gap_ns = 1050; /* bench/apps/advise_calib ms1/ms16, 3 pairs */
	/* profiler */
	c->profiler_launch_ns = 2766; /* bursts of cudaLaunchKernel under skip record - bare */
	c->profiler_driver_launch_ns = 1618; /* launch_calib.json's runs: recorded - bare */
	/* placement */
	c->remote_read_cost = 0.60; /* fork-join copies: the join's add 30% slower */
	c->sm_share_rate = 0.69;    /* math_k beside an older math_k: 20.2 us -> 29.3 us */
	/* persistent: E5 on the H100, measured by bench/persist/calibrate.sh (docs/BENCHMARKS.md
	 * "Runtime: cost per task on a dependent chain"): the slope between chains of 1,000 and
	 * 10,000 empty tasks in each mode (AOT's and JIT's of two-block tasks, whose waits cross
	 * workers),
	 * and the one-task chain split into the launch, the barrier and the synchronize's return
	 * (sync_return_ns). */
	c->persist_launch_ns = 2643;	   /* to the first task: the resident kernel's bell */
	c->persist_epoch_ns = 97;	   /* the barrier */
	c->persist_aot_task_ns = 1396;	   /* AOT: 1.40 us a task, across workers */
	c->persist_jit_task_ns = 3561;	   /* JIT: 3.56 us a task, across workers */
	c->persist_copilot_task_ns = 1705; /* CPU co-pilot, lookahead 8: 1.71 us a task */
	c->persist_aot_local_ns = 551;	   /* AOT, one-block chain (one worker): 0.55 us */
	c->persist_jit_local_ns = 1070;	   /* JIT, one-block chain: 1.07 us */
	c->persist_span_ns = 0;		   /* the empty task's tile, AOT, one worker */
	c->persist_counter_wait_ns = 1396; /* per hop (informational): AOT's task */
	c->persist_queue_pop_ns = 2165;	   /* JIT - AOT */
	c->persist_ring_rtt_ns = 8827;	   /* the co-pilot without lookahead */
}

const char *skip_persist_mode_name(int mode)
{
	for (int i = 0; i <= mode && i < SKIP_PERSIST_NMODES && skip_persist_modes[i]; i++)
		if (i == mode)
			return skip_persist_modes[i]; /* the runtime's names */
	return "?";
}

double skip_persist_task_ns(const struct skip_calibration *c, int mode)
{
	switch (mode) {
	case SKIP_PERSIST_AOT:
		return c->persist_aot_task_ns;
	case SKIP_PERSIST_JIT:
		return c->persist_jit_task_ns;
	case SKIP_PERSIST_COPILOT:
		return c->persist_copilot_task_ns;
	default:
		return 0;
	}
}

double skip_persist_local_ns(const struct skip_calibration *c, int mode)
{
	double across = skip_persist_task_ns(c, mode);
	double local = mode == SKIP_PERSIST_AOT	  ? c->persist_aot_local_ns
		       : mode == SKIP_PERSIST_JIT ? c->persist_jit_local_ns
						  : across;

	return local < across ? local : across;
}

/* The ranges: a cost of the host or of the GPU's scheduling beyond 1 s is no measurement of a
 * launch path (the H100's are 0.03-3 us), and bounding each at 1 s keeps every sum the models
 * form of them far from int64_t's limit. remote_read_cost: up to 10 (an 11x slower kernel);
 * sm_share_rate: a pace, 0 to 1. The rows are in output order (the report's "calibration"
 * object), which is not the struct's. */
#define NS_MAX 1e9
const struct skip_calibration_key skip_calibration_keys[] = {
#define K(f, part, max, unit)                                                                      \
	{                                                                                          \
#f, offsetof(struct skip_calibration, f), part, 0, max, unit                       \
	}
    K(graph_launch_ns, "graph", NS_MAX, "ns"),
    K(graph_first_ns, "graph", NS_MAX, "ns"),
    K(graph_node_gap_ns, "graph", NS_MAX, "ns"),
    K(event_record_ns, "host", NS_MAX, "ns"),
    K(stream_wait_ns, "host", NS_MAX, "ns"),
    K(launch_latency_ns, "host", NS_MAX, "ns"),
    K(stream_gap_ns, "host", NS_MAX, "ns"),
    K(sync_return_ns, "host", NS_MAX, "ns"),
    K(sync_idle_ns, "host", NS_MAX, "ns"),
    K(profiler_launch_ns, "profiler", NS_MAX, "ns"),
    K(profiler_driver_launch_ns, "profiler", NS_MAX, "ns"),
    K(stream_switch_ns, "host", NS_MAX, "ns"),
    K(graph_launch_node_ns, "graph", NS_MAX, "ns"),
    K(graph_dispatch_ns, "graph", NS_MAX, "ns"),
    K(graph_root_join_ns, "graph", NS_MAX, "ns"),
    K(graph_memset_gap_ns, "graph", NS_MAX, "ns"),
    K(remote_read_cost, "placement", 10, "fraction"),
    K(sm_share_rate, "placement", 1, "fraction"),
    K(runtime_launch_ns, "host", NS_MAX, "ns"),
    K(stream_gap_bare_ns, "host", NS_MAX, "ns"),
    K(launch_bare_ns, "host", NS_MAX, "ns"),
    K(persist_launch_ns, "persistent", NS_MAX, "ns"),
    K(persist_epoch_ns, "persistent", NS_MAX, "ns"),
    K(persist_aot_task_ns, "persistent", NS_MAX, "ns"),
    K(persist_jit_task_ns, "persistent", NS_MAX, "ns"),
    K(persist_copilot_task_ns, "persistent", NS_MAX, "ns"),
    K(persist_aot_local_ns, "persistent", NS_MAX, "ns"),
    K(persist_jit_local_ns, "persistent", NS_MAX, "ns"),
    K(persist_span_ns, "persistent", NS_MAX, "ns"),
    K(persist_counter_wait_ns, "persistent", NS_MAX, "ns"),
    K(persist_queue_pop_ns, "persistent", NS_MAX, "ns"),
    K(persist_ring_rtt_ns, "persistent", NS_MAX, "ns"),
    {NULL, 0, NULL, 0, 0, NULL},
#undef K
};

/* "[PATH: ]'NAME': must be a number >= 0 and <= 1e+09 (ns: 1 s); got 1e+19" into
 * skip_errmsg(); @got NULL: the value was not a number. */
static int out_of_range(const char *path, const struct skip_calibration_key *k, const double *got)
{
	char g[48] = "; got something else";

	if (got)
		snprintf(g, sizeof(g), "; got %g", *got);
	return sk_fail(SKIP_E_INVAL, "%s%s'%s': must be a number >= %g and <= %g (%s%s)%s",
		       path ? path : "", path ? ": " : "", k->name, k->min, k->max, k->unit,
		       !strcmp(k->unit, "ns") ? ": 1 s" : "", g);
}

static int in_range(const struct skip_calibration_key *k, double v)
{
	return v >= k->min && v <= k->max; /* false for NaN */
}

int skip_calibration_check(const struct skip_calibration *c)
{
	for (const struct skip_calibration_key *k = skip_calibration_keys; k->name; k++) {
		double v = *(const double *)((const char *)c + k->offset);

		if (!in_range(k, v))
			return out_of_range("calibration", k, &v);
	}
	return 0;
}

static const struct skip_calibration_key *key_named(const char *name)
{
	const struct skip_calibration_key *k = skip_calibration_keys;

	while (name && k->name && strcmp(name, k->name))
		k++;
	return name && k->name ? k : NULL;
}

/* skip_calibration_set() with messages prefixed by @path (NULL: none); @value NULL: not a
 * number. */
static int set_member(struct skip_calibration *c, const char *path, const char *name,
		      const double *value)
{
	const struct skip_calibration_key *k = key_named(name);

	if (!k)
		return sk_fail(SKIP_E_INVAL,
			       "%s%s'%s': unknown member (docs/skip-advise.md lists them)",
			       path ? path : "", path ? ": " : "", name ? name : "");
	if (!value || !in_range(k, *value))
		return out_of_range(path, k, value);
	*(double *)((char *)c + k->offset) = *value;
	return 0;
}

int skip_calibration_set(struct skip_calibration *c, const char *name, double value)
{
	return set_member(c, NULL, name, &value);
}

int skip_calibration_parse(const char *text, const char *path, struct skip_calibration *c)
{
	cJSON *root = NULL, *it;
	int err = skip_json_parse(text, path, &root);

	skip_calibration_default(c);
	if (err)
		return err;
	if (!cJSON_IsObject(root)) {
		cJSON_Delete(root);
		return sk_fail(SKIP_E_INVAL, "%s: not a JSON object", path);
	}
	cJSON_ArrayForEach(it, root)
	{
		if ((err = set_member(c, path, it->string,
				      cJSON_IsNumber(it) ? &it->valuedouble : NULL)))
			break;
	}
	cJSON_Delete(root);
	return err;
}

/* The upper median, v[n / 2] of the sorted values (@dflt for none), not common's skip_median():
 * a latency the model replays is a recorded sample (a duration that occurred), not an average
 * of two. Of an even count it takes the upper middle value, not skip_median_low_i64()'s lower
 * one: the advisor always has, and its outputs (the goldens included) depend on it. */
static int64_t median_or(int64_t *v, size_t n, int64_t dflt)
{
	if (!n)
		return dflt;
	qsort(v, n, sizeof(int64_t), sk_cmp_i64);
	return v[n / 2];
}

/* A synchronization's return after the GPU work it waited for: over the syncs that did wait
 * (the last operation to end before the sync returned ended after it began), the median of
 * sync end - that end. @ends and @v are scratch arrays of tl->nops + 1. */
static int64_t sync_return(const struct skip_timeline *tl, int64_t *ends, int64_t *v, int64_t dflt)
{
	size_t n = 0, nv = 0;

	for (size_t i = 0; i < tl->nops; i++)
		ends[n++] = tl->ops[i].end;
	if (n)
		qsort(ends, n, sizeof(int64_t), sk_cmp_i64);
	for (size_t s = 0; s < tl->nsyncs && n; s++) {
		const struct skip_sync *y = &tl->syncs[s];
		size_t lo = 0, hi = n;

		while (lo < hi) { /* the first end after the sync's */
			size_t mid = lo + (hi - lo) / 2;

			if (ends[mid] <= y->end)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo && ends[lo - 1] > y->start)
			v[nv++] = y->end - ends[lo - 1];
	}
	return median_or(v, nv, dflt);
}

struct hcall {
	uint64_t thread;
	int64_t start, end;
};

static int cmp_hcall(const void *a, const void *b)
{
	const struct hcall *x = a, *y = b;

	if (x->thread != y->thread)
		return (x->thread > y->thread) - (x->thread < y->thread);
	return (x->start > y->start) - (x->start < y->start);
}

/* A kernel launched by a runtime API call of its own (not a graph's). */
static int runtime_launch(const struct skip_op *op)
{
	return op->kind == SKIP_OP_KERNEL && op->launch != INT64_MIN && !op->driver && !op->graph &&
	       op->api_end >= op->launch;
}

/* The profiler's cost per runtime launch call in this recording, from its kernel launches
 * (cudaLaunchKernel and the like) that began within 2 us of the end of their thread's previous
 * one, measured as the calibration's launch_bare_ns is: per burst of such launches, the mean
 * of (each one's end - the previous one's end); the median over the bursts, less
 * launch_bare_ns. (A burst's mean, not a launch's median: a recording's slow launches make
 * its bursts slower, and the calibration's bare bursts include theirs.) The cost varies
 * between recorded processes by more than the launch itself (0.4-4.7 us in the
 * launch_chain loops of bench/advise/RESULTS.md), the bare launch much
 * less. -1 when launch_bare_ns is not measured (the fallback rule, skip_advisor.h), or unless
 * at least 16 launches, and half of them, are such: a launch loop like the calibration's (a
 * framework's launches, with its own work between them, cost more bare). */
static int64_t profiler_launch(const struct skip_timeline *tl, const struct skip_calibration *cal,
			       int64_t *v)
{
	struct hcall *h;
	size_t n = 0, nv = 0, nb = 0;
	int64_t cost = -1, sum = 0;

	if (!sk_measured(cal->launch_bare_ns))
		return -1;
	for (size_t i = 0; i < tl->nops; i++)
		n += runtime_launch(&tl->ops[i]);
	h = sk_xmalloc((n + 1) * sizeof(*h));
	n = 0;
	for (size_t i = 0; i < tl->nops; i++) {
		const struct skip_op *op = &tl->ops[i];

		if (runtime_launch(op))
			h[n++] = (struct hcall){((uint64_t)op->pid << 32) | op->tid, op->launch,
						op->api_end};
	}
	if (n)
		qsort(h, n, sizeof(*h), cmp_hcall);
	for (size_t i = 1, len = 0; i <= n; i++) { /* v[]: each burst's mean */
		int b2b = i < n && h[i].thread == h[i - 1].thread && h[i].start >= h[i - 1].end &&
			  h[i].start - h[i - 1].end < 2000;

		if (b2b) {
			sum = skip_add_sat(sum, h[i].end - h[i - 1].end);
			len++;
			nv++;
		} else if (len) {
			v[nb++] = sum / (int64_t)len;
			sum = 0;
			len = 0;
		}
	}
	if (nv >= 16 && 2 * nv >= n) {
		cost = median_or(v, nb, 0) - sk_ns(cal->launch_bare_ns);
		cost = cost > 0 ? cost : 0;
	}
	free(h);
	return cost;
}

/* The API calls recorded per launch call: the launch calls (a graph launch's kernels share
 * one), plus the calls that are neither launches nor synchronizations (event records, stream
 * waits, --trace all-apis' every call), spread over them. A synchronization's own cost is not
 * counted: the model gives it the calibration's bare duration. At least 1. */
static double calls_per_launch(const struct skip_timeline *tl)
{
	size_t launches = 0, other;

	for (size_t i = 0; i < tl->nops; i++)
		launches += tl->ops[i].launch != INT64_MIN && tl->ops[i].graph != 1;
	if (!launches || tl->napi_calls <= launches + tl->nsyncs)
		return 1;
	other = tl->napi_calls - launches - tl->nsyncs;
	return 1 + (double)other / (double)launches;
}

/* The latencies of this recording: launch latency from operations whose launch came after
 * their stream was idle, stream gap from the others, graph costs from graph launches, the
 * profiler's cost per launch from back-to-back launches (profiler_launch()). */
void sk_calibrate(const struct skip_timeline *tl, const struct skip_calibration *cal,
		  struct sk_lat *l)
{
	int64_t *a = sk_xmalloc((tl->nops + 1) * sizeof(int64_t));
	int64_t *b = sk_xmalloc((tl->nops + 1) * sizeof(int64_t));
	int64_t *g = sk_xmalloc((tl->nops + 1) * sizeof(int64_t));
	size_t na = 0, nb = 0, ng = 0;

	for (size_t i = 0; i < tl->nops; i++) {
		const struct skip_op *op = &tl->ops[i];
		const struct skip_op *prev = NULL;

		if (op->kind != SKIP_OP_KERNEL || op->launch == INT64_MIN)
			continue;
		for (size_t j = i; j-- > 0 && i - j < 64;) /* the stream predecessor, nearby */
			if (tl->ops[j].stream == op->stream && tl->ops[j].pid == op->pid) {
				prev = &tl->ops[j];
				break;
			}
		if (op->graph == 1) {
			if (prev && prev->graph && op->start >= prev->end)
				g[ng++] = op->start - prev->end;
			continue;
		}
		if (!prev || op->api_end >= prev->end) {
			if (op->start >= op->api_end)
				a[na++] = op->start - op->api_end;
		} else if (op->start >= prev->end) {
			b[nb++] = op->start - prev->end;
		}
	}
	l->launch = median_or(a, na, sk_ns(cal->launch_latency_ns));
	l->stream_gap = median_or(b, nb, sk_ns(cal->stream_gap_ns));
	l->node_gap = median_or(g, ng, sk_ns(cal->graph_node_gap_ns));
	na = 0;
	for (size_t i = 0; i < tl->nops; i++) /* api_end is INT64_MIN without a launch call */
		if (tl->ops[i].graph == 2 && tl->ops[i].launch != INT64_MIN &&
		    tl->ops[i].start >= tl->ops[i].api_end)
			a[na++] = tl->ops[i].start - tl->ops[i].api_end;
	l->graph_first = median_or(a, na, sk_ns(cal->graph_first_ns));
	l->sync_ret = sync_return(tl, a, g, sk_ns(cal->sync_return_ns));
	l->profiler_launch = profiler_launch(tl, cal, a);
	l->calls_per_launch = calls_per_launch(tl);
	free(a);
	free(b);
	free(g);
}

double sk_profiler_cost(const struct sk_lat *l, const struct skip_calibration *cal, int driver)
{
	double per_call = driver ? cal->profiler_driver_launch_ns : cal->profiler_launch_ns;

	if (!driver && l->profiler_launch >= 0)
		return (double)l->profiler_launch;
	return per_call * (l->calls_per_launch >= 1 ? l->calls_per_launch : 1);
}

/* ---- building a program ---------------------------------------------------------------------- */

struct keyed {
	uint64_t *keys;
	int n;
};

static int key_index(struct keyed *k, uint64_t key)
{
	for (int i = 0; i < k->n; i++)
		if (k->keys[i] == key)
			return i;
	k->keys = sk_xrealloc(k->keys, (size_t)(k->n + 1) * sizeof(uint64_t));
	k->keys[k->n] = key;
	return k->n++;
}

/* A host call before it is placed on its thread. */
struct pcall {
	int64_t start, end; /* recorded */
	int thread;
	int sync;    /* index into the timeline's syncs, -1 for a launch */
	int dropped; /* removed by a transformation (its gap carries on) */
	int64_t dur; /* as modelled */
};

static int cmp_pcall(const void *a, const void *b)
{
	const struct pcall *x = a, *y = b;

	if (x->thread != y->thread)
		return x->thread - y->thread;
	return (x->start > y->start) - (x->start < y->start);
}

struct builder {
	const struct skip_timeline *tl;
	const struct sk_excerpt *e;
	const struct sk_lat *l;
	const struct skip_calibration *cal;
	int profiled;
	int x_mode;	  /* SK_X_PERSIST: enum skip_persist_mode */
	struct pcall *pc; /* launch calls first, then syncs */
	int npc;
	int *op_call;	/* per member: index into pc, -1 none */
	int carry_gaps; /* a dropped call's gap before it moves to the next call */
	int graph_call; /* the graph's launch call (graph_host()), -1 none */
	/* the calls whose host time before them, and after the launches they stand for, is the
	 * replaced code's own and goes (place_calls()): the graph's, or the first and the last
	 * persistent kernel's; -1 none */
	int head_call, tail_call;
	struct keyed threads, streams, slkeys;
	struct {
		int *v, n;
	} * sl; /* per stream of slkeys: its launched members (sync_waits) */
	/* SK_X_PERSIST: the persistent kernels (persist_host()) */
	int *seg;      /* per member: its segment, -1 none */
	int *seg_call; /* per segment: the launch call that launches it (index into pc) */
	int nseg;
};

int64_t sk_excerpt_il(const struct skip_timeline *tl, const struct sk_excerpt *e)
{
	int64_t end = e->end;
	size_t lo;
	struct keyed th = {0}; /* the threads that launched in it */

	for (size_t k = 0; k < e->n; k++)
		if (tl->ops[e->idx[k]].launch != INT64_MIN)
			key_index(&th, ((uint64_t)tl->ops[e->idx[k]].pid << 24) |
					   tl->ops[e->idx[k]].tid);
	lo = sk_sync_from(tl, e->t0);
	for (size_t s = lo; s < tl->nsyncs && tl->syncs[s].start <= e->end; s++) {
		const struct skip_sync *y = &tl->syncs[s];

		for (int i = 0; i < th.n; i++)
			if (th.keys[i] == (((uint64_t)y->pid << 24) | y->tid) && y->end > end)
				end = y->end;
	}
	free(th.keys);
	return end - e->t0;
}

/* One host call per launch call: the kernels of one graph launch (same process, correlation id
 * and call start, adjacent in launch order) share it. */
static void add_launch_calls(struct builder *b)
{
	const struct skip_op *prev = NULL;

	b->pc = sk_xmalloc((b->e->n + b->tl->nsyncs + 1) * sizeof(*b->pc));
	for (size_t k = 0; k < b->e->n; k++) {
		const struct skip_op *op = &b->tl->ops[b->e->idx[k]];

		b->op_call[k] = -1;
		if (op->launch == INT64_MIN)
			continue;
		if (prev && prev->pid == op->pid && prev->corr == op->corr &&
		    prev->launch == op->launch) {
			b->op_call[k] = b->npc - 1;
			continue;
		}
		prev = op;
		b->op_call[k] = b->npc;
		b->pc[b->npc] = (struct pcall){
		    .start = op->launch,
		    .end = op->api_end,
		    .sync = -1,
		    .thread = key_index(&b->threads, ((uint64_t)op->pid << 24) | op->tid),
		    .dur = op->api_end - op->launch,
		};
		if (!b->profiled)
			b->pc[b->npc].dur -= sk_ns(sk_profiler_cost(b->l, b->cal, op->driver));
		if (b->pc[b->npc].dur < 100)
			b->pc[b->npc].dur = 100;
		b->npc++;
	}
}

static void add_sync_calls(struct builder *b)
{
	size_t lo = sk_sync_from(b->tl, b->e->t0);
	for (size_t s = lo; s < b->tl->nsyncs && b->tl->syncs[s].start <= b->e->end; s++) {
		const struct skip_sync *y = &b->tl->syncs[s];
		int th = -1;

		for (int i = 0; i < b->threads.n && th < 0; i++)
			if (b->threads.keys[i] == (((uint64_t)y->pid << 24) | y->tid))
				th = i;
		if (th < 0)
			continue; /* a thread that launched nothing in the excerpt */
		b->pc[b->npc++] = (struct pcall){.start = y->start,
						 .end = y->end,
						 .thread = th,
						 .sync = (int)s,
						 .dur = sk_ns(b->cal->sync_idle_ns)};
	}
}

/* The operations a synchronization waited for: per stream, the last one launched before it
 * began that had ended when it returned (stream order implies the ones before it). */
static void sync_waits(struct builder *b, const struct pcall *c, struct wi_call *w)
{
	if (!b->sl) { /* the members of each stream, in launch order, once per program */
		b->sl = sk_xcalloc(b->e->n + 1, sizeof(*b->sl));
		for (size_t k = 0; k < b->e->n; k++) {
			const struct skip_op *op = &b->tl->ops[b->e->idx[k]];
			int s =
			    key_index(&b->slkeys, ((uint64_t)op->pid << 32) |
						      ((uint64_t)op->device << 24) | op->stream);

			if (op->launch == INT64_MIN)
				continue;
			b->sl[s].v =
			    sk_xrealloc(b->sl[s].v, (size_t)(b->sl[s].n + 1) * sizeof(int));
			b->sl[s].v[b->sl[s].n++] = (int)k;
		}
	}
	w->waits = sk_xmalloc(((size_t)b->slkeys.n + 1) * sizeof(int));
	for (int s = 0; s < b->slkeys.n; s++) {
		const int *v = b->sl[s].v;
		int lo = 0, hi = b->sl[s].n;

		while (lo < hi) { /* members whose launch returned before the sync began */
			int mid = lo + (hi - lo) / 2;

			if (b->tl->ops[b->e->idx[v[mid]]].api_end <= c->start)
				lo = mid + 1;
			else
				hi = mid;
		}
		while (lo > 0 && b->tl->ops[b->e->idx[v[lo - 1]]].end > c->end)
			lo--;
		if (lo > 0)
			w->waits[w->nwaits++] = v[lo - 1];
	}
	w->is_sync = 1;
	w->ret = b->l->sync_ret;
}

/* Place the calls on their threads, in recorded order, with the gaps; a dropped call's gap is
 * carried to the next call of its thread. Returns the map pcall -> program call (-1 dropped). */
static int *place_calls(struct builder *b, struct wi_prog *p)
{
	int *order = sk_xmalloc((size_t)(b->npc + 1) * sizeof(int));
	int *to_prog = sk_xmalloc((size_t)(b->npc + 1) * sizeof(int));
	struct pcall *sorted = sk_xmalloc((size_t)(b->npc + 1) * sizeof(*sorted));
	int64_t prev_end = 0, carry = 0;
	int th = -1, after_tail = 0;

	for (int i = 0; i < b->npc; i++) {
		sorted[i] = b->pc[i];
		sorted[i].sync = i; /* sorted copies carry their original index here */
	}
	if (b->npc)
		qsort(sorted, (size_t)b->npc, sizeof(*sorted), cmp_pcall);
	for (int i = 0; i < b->npc; i++) {
		const struct pcall *c = &b->pc[sorted[i].sync];
		struct wi_call w = {.thread = c->thread};

		order[i] = sorted[i].sync;
		if (c->thread != th) {
			th = c->thread;
			prev_end = b->e->t0;
			carry = 0;
			after_tail = 0;
		}
		w.gap = skip_add_sat(carry, c->start > prev_end ? c->start - prev_end : 0);
		prev_end = c->end > prev_end ? c->end : prev_end;
		to_prog[order[i]] = -1;
		if (c->dropped) {
			carry = b->carry_gaps ? w.gap : 0;
			continue;
		}
		carry = 0;
		/* A graph (or persistent kernels): the host time before its launch and between the
		 * last captured launch and the call after it (the captured code's own) is not
		 * repeated. */
		if (sorted[i].sync == b->head_call || after_tail)
			w.gap = 0;
		after_tail = sorted[i].sync == b->tail_call;
		w.dur = c->dur;
		if (c->sync >= 0)
			sync_waits(b, c, &w);
		to_prog[order[i]] = wi_add_call(p, &w);
	}
	free(order);
	free(sorted);
	return to_prog;
}

/* ---- transformations ------------------------------------------------------------------------ */

/* One CUDA graph: the excerpt's first launch call launches it; every other launch call and the
 * synchronizations inside the excerpt go (a captured excerpt cannot synchronize). */
static int graph_host(struct builder *b)
{
	int first = -1;
	int64_t last_launch = INT64_MIN;

	for (int i = 0; i < b->npc; i++)
		if (b->pc[i].sync < 0 && b->pc[i].start > last_launch)
			last_launch = b->pc[i].start;
	for (int i = 0; i < b->npc; i++) {
		if (b->pc[i].sync < 0 && (first < 0 || b->pc[i].start < b->pc[first].start))
			first = i;
		/* synchronizations after the last launch stay: they wait for the graph */
		b->pc[i].dropped = b->pc[i].sync < 0 || b->pc[i].start < last_launch;
	}
	b->carry_gaps = 0; /* the host work between the captured launches is not repeated */
	if (first >= 0) {
		b->pc[first].dropped = 0;
		b->pc[first].dur = sk_ns(b->cal->graph_launch_ns +
					 (double)(b->e->n - 1) * b->cal->graph_launch_node_ns);
		for (size_t k = 0; k < b->e->n; k++)
			if (b->op_call[k] >= 0)
				b->op_call[k] = first;
	}
	return first;
}

/*
 * Persistent kernels: the excerpt's kernel and memset launches (a memset is a task that writes
 * memory), of every thread of its process, in launch order, are cut into segments where a host
 * synchronization of the process ended between two launches, or where a copy was launched
 * (which may be to or from the host: it stays a launch of its own); each segment becomes one
 * persistent kernel, launched by its first launch call (persist_launch_ns). The segment's other
 * launch calls go, with the host time between them (as for a graph: not repeated, whichever
 * thread made them: PyTorch's backward launches from its autograd thread); the synchronizations
 * stay, and the host time between segments. As for a graph, the host time before the first
 * segment's launch and after the last segment's last launch (the replaced code's own) goes.
 */
static void persist_host(struct builder *b)
{
	int cur = -1;
	size_t last = 0;

	b->seg = sk_xmalloc((b->e->n + 1) * sizeof(int));
	b->seg_call = sk_xmalloc((b->e->n + 1) * sizeof(int));
	for (size_t k = 0; k < b->e->n; k++) {
		const struct skip_op *op = &b->tl->ops[b->e->idx[k]];
		int c = b->op_call[k];

		b->seg[k] = -1;
		if (c < 0)
			continue; /* no launch call: it starts when it started */
		if (op->kind == SKIP_OP_MEMCPY) {
			cur = -1; /* a launch of its own (to or from the host, maybe), and a cut */
			continue;
		}
		if (cur >= 0 && sk_sync_between(b->tl, &b->tl->ops[b->e->idx[last]], op))
			cur = -1;
		if (cur < 0) {
			cur = b->nseg;
			b->seg_call[b->nseg++] = c;
			b->pc[c].dur = sk_ns(b->cal->persist_launch_ns);
		} else if (c != b->seg_call[cur]) {
			b->pc[c].dropped = 1;
		}
		b->seg[k] = cur;
		last = k;
	}
	b->carry_gaps = 0; /* the host work between the absorbed launches is not repeated */
	for (int s = 0; s < b->nseg; s++) {
		int c = b->seg_call[s];

		if (b->head_call < 0 || b->pc[c].start < b->pc[b->head_call].start)
			b->head_call = c;
		if (b->tail_call < 0 || b->pc[c].start > b->pc[b->tail_call].start)
			b->tail_call = c;
	}
}

static int32_t op_id(const struct skip_op *op)
{
	return op->fullname >= 0 ? op->fullname : op->name;
}

/* Fused chains: greedy, non-overlapping, per stream in launch order. merged[k] = the member
 * that takes k's work, or k; the launch calls of absorbed kernels are dropped. */
static void fuse(struct builder *b, const int32_t *chain, int len, int *merged)
{
	for (size_t k = 0; k < b->e->n; k++)
		merged[k] = (int)k;
	for (size_t k = 0; k < b->e->n; k++) {
		const struct skip_op *op = &b->tl->ops[b->e->idx[k]];
		size_t pos[16];
		int m = 0;

		if (merged[k] != (int)k || op->kind != SKIP_OP_KERNEL || op->graph ||
		    op_id(op) != chain[0])
			continue;
		pos[m++] = k;
		for (size_t j = k + 1; j < b->e->n && m < len; j++) {
			const struct skip_op *q = &b->tl->ops[b->e->idx[j]];

			if (q->stream != op->stream || q->pid != op->pid)
				continue;
			if (q->kind != SKIP_OP_KERNEL || q->graph || op_id(q) != chain[m] ||
			    sk_sync_between(b->tl, &b->tl->ops[b->e->idx[pos[m - 1]]], q))
				break; /* as the chains were found: not across a synchronization */
			pos[m++] = j;
		}
		if (m < len)
			continue;
		for (m = 1; m < len && !b->tl->ops[b->e->idx[pos[m]]].first; m++)
			;
		if (m < len)
			continue; /* its code loads at that launch anyway: left unfused */
		for (int i = 1; i < len; i++) {
			merged[pos[i]] = (int)k;
			if (b->op_call[pos[i]] >= 0)
				b->pc[b->op_call[pos[i]]].dropped = 1;
		}
	}
}

/* ---- the program ---------------------------------------------------------------------------- */

int sk_sm_need(const struct skip_op *op, int sms)
{
	uint32_t per = op->per_sm ? op->per_sm : 1, need;

	if (op->kind != SKIP_OP_KERNEL)
		return 0;
	need = (op->blocks + per - 1) / per;
	return need < 1 ? 1 : need > (uint32_t)sms ? sms : (int)need;
}

static void add_ops(struct builder *b, struct wi_prog *p, const int *to_prog, const int *merged,
		    int graph_call, int *member_op)
{
	char *first_on_stream = sk_xcalloc(64, 1);
	int sms = b->tl->sm_count > 0 ? b->tl->sm_count : 132;

	for (size_t k = 0; k < b->e->n; k++) {
		const struct skip_op *op = &b->tl->ops[b->e->idx[k]];
		struct wi_op o = {.dur = op->end - op->start, .call = -1};

		member_op[k] = -1;
		if (merged && merged[k] != (int)k) {
			p->ops[member_op[merged[k]]].dur =
			    skip_add_sat(p->ops[member_op[merged[k]]].dur, op->end - op->start);
			member_op[k] = member_op[merged[k]];
			continue;
		}
		o.stream = key_index(&b->streams, ((uint64_t)op->pid << 32) |
						      ((uint64_t)op->device << 24) | op->stream);
		o.sms = sk_sm_need(op, sms);
		if (b->op_call[k] >= 0)
			o.call = to_prog[b->op_call[k]];
		o.lat = b->l->launch;
		o.gap = b->l->stream_gap;
		if (graph_call >= 0 || op->graph) { /* a node of a graph */
			int first = o.stream < 64 && !first_on_stream[o.stream];

			if (o.stream < 64)
				first_on_stream[o.stream] = 1;
			o.lat = first || op->graph == 2 ? b->l->graph_first : 0;
			o.gap = b->l->node_gap;
			if (op->kind == SKIP_OP_MEMSET && op->blocks < SK_SMALL_MEMSET)
				o.gap = skip_add_sat(o.gap, sk_ns(b->cal->graph_memset_gap_ns));
			o.graph_node = graph_call >= 0; /* dispatched in turn */
		}
		if (o.call < 0) { /* no launch call: it starts when it started */
			o.submit_at = op->start - o.lat;
		}
		member_op[k] = wi_add_op(p, &o);
	}
	free(first_on_stream);
}

/*
 * The persistent kernels' tasks (persist_host()'s segments), once add_ops() made them: a task
 * is submitted by its segment's launch and starts the mode's per-task cost @task after what it
 * waits for: the launch's return plus the launch latency; its stream predecessor's end (plus
 * the stream gap when that one is not of its segment); the end of the previous persistent
 * kernel. Each segment then ends with its epoch barrier, an operation of
 * persist_epoch_ns after the last task of each of its streams, which the synchronizations that
 * waited for one of its tasks wait for instead (@wait_op, per member). */
static void persist_ops(struct builder *b, struct wi_prog *p, const int *to_prog,
			const int *member_op, int *wait_op)
{
	int64_t task = sk_ns(skip_persist_task_ns(b->cal, b->x_mode));
	int base = p->nops, nst = p->nstreams;
	int *stream_seg = sk_xmalloc(((size_t)nst + 1) * sizeof(int));
	int *last = sk_xmalloc(((size_t)b->nseg * nst + 1) * sizeof(int)); /* [seg][stream] */

	for (int i = 0; i < nst; i++)
		stream_seg[i] = -1;
	for (size_t i = 0; i < (size_t)b->nseg * nst; i++)
		last[i] = -1;
	for (size_t k = 0; k < b->e->n; k++) {
		int sg = b->seg[k];
		struct wi_op *o;

		wait_op[k] = member_op[k];
		if (sg < 0)
			continue;
		wait_op[k] = base + sg;
		o = &p->ops[member_op[k]];
		o->call = to_prog[b->seg_call[sg]];
		o->lat = skip_add_sat(b->l->launch, task);
		o->gap = stream_seg[o->stream] == sg ? task : skip_add_sat(b->l->stream_gap, task);
		stream_seg[o->stream] = sg;
		last[(size_t)sg * nst + o->stream] = member_op[k];
		if (sg > 0) { /* after the previous persistent kernel */
			o->deps = sk_xmalloc(sizeof(int));
			o->deps[0] = base + sg - 1;
			o->ndeps = 1;
		}
	}
	for (int sg = 0; sg < b->nseg; sg++) {
		struct wi_op o = {.dur = sk_ns(b->cal->persist_epoch_ns),
				  .stream = nst + sg,
				  .call = to_prog[b->seg_call[sg]]};

		o.deps = sk_xmalloc(((size_t)nst + 1) * sizeof(int));
		for (int st = 0; st < nst; st++)
			if (last[(size_t)sg * nst + st] >= 0)
				o.deps[o.ndeps++] = last[(size_t)sg * nst + st];
		wi_add_op(p, &o);
	}
	free(stream_seg);
	free(last);
}

/* Synchronizations wait for program operations, not members. */
static void remap_waits(struct wi_prog *p, const int *member_op)
{
	for (int c = 0; c < p->ncalls; c++)
		for (int i = 0; i < p->calls[c].nwaits; i++)
			p->calls[c].waits[i] = member_op[p->calls[c].waits[i]];
}

int64_t sk_model_excerpt(const struct skip_timeline *tl, const struct sk_excerpt *e,
			 const struct sk_lat *l, const struct skip_calibration *cal, int profiled,
			 const struct sk_xform *x, int64_t *host_end)
{
	struct builder b = {.tl = tl,
			    .e = e,
			    .l = l,
			    .cal = cal,
			    .profiled = profiled,
			    .carry_gaps = 1,
			    .graph_call = -1,
			    .head_call = -1,
			    .tail_call = -1};
	struct wi_prog p = {
	    .t0 = e->t0, .sms = tl->sm_count, .dispatch_gap = sk_ns(cal->graph_dispatch_ns)};
	int *merged = NULL, *to_prog, *member_op, *wait_op = NULL, graph_call = -1;
	int64_t il;

	b.op_call = sk_xmalloc((e->n + 1) * sizeof(int));
	add_launch_calls(&b);
	add_sync_calls(&b);
	if (x && x->kind == SK_X_GRAPH)
		b.head_call = b.tail_call = b.graph_call = graph_call = graph_host(&b);
	if (x && x->kind == SK_X_FUSE) {
		merged = sk_xmalloc((e->n + 1) * sizeof(int));
		fuse(&b, x->chain, x->len, merged);
	}
	if (x && x->kind == SK_X_PERSIST) {
		b.x_mode = x->mode;
		persist_host(&b);
	}
	to_prog = place_calls(&b, &p);
	member_op = sk_xmalloc((e->n + 1) * sizeof(int));
	add_ops(&b, &p, to_prog, merged, graph_call, member_op);
	if (b.seg) {
		wait_op = sk_xmalloc((e->n + 1) * sizeof(int));
		persist_ops(&b, &p, to_prog, member_op, wait_op);
	}
	remap_waits(&p, wait_op ? wait_op : member_op);
	il = wi_simulate(&p);
	if (il >= 0 && p.host_end - p.t0 > il) /* a synchronization returned after the GPU */
		il = p.host_end - p.t0;
	if (host_end)
		*host_end = p.host_end - p.t0;
	wi_free(&p);
	free(member_op);
	free(to_prog);
	free(merged);
	free(wait_op);
	free(b.seg);
	free(b.seg_call);
	free(b.op_call);
	free(b.pc);
	free(b.threads.keys);
	free(b.streams.keys);
	for (int s = 0; b.sl && s < b.slkeys.n; s++)
		free(b.sl[s].v);
	free(b.sl);
	free(b.slkeys.keys);
	return il;
}
