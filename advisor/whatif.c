/*
 * whatif.c: the discrete-event replay behind every prediction (internal.h describes the
 * program it runs).
 *
 * Events in time order: a host thread ready for its next call; a GPU operation's end; a wake-up
 * when a stream's head operation may start. Once every event of one time is handled, the heads
 * of the streams are started when everything they wait for is done (their submission plus
 * latency, their stream predecessor and dependencies plus the gap) and enough multiprocessors
 * are free; a head that must wait for a time schedules a wake-up, one that needs
 * multiprocessors waits for an end. Ties go to the lower index, so a replay is deterministic.
 * In programs with a remote_cost, a kernel starting is placed on multiprocessors (place()),
 * which sets its duration. A kernel starting also delays the running kernels that have a
 * start_cost (charge_start()): their end moves, a new end event is queued and the old one is
 * ignored when it comes; synchronizations then wait for the end events themselves. Kernels
 * with a memory demand share the memory system (skip_memory_pace()): when one starts or ends,
 * each running one's work left is brought up to date at the pace it had, and its end moves to
 * where the new pace takes it (mem_progress(), mem_retime()).
 *
 * Every time is >= the program's t0 >= 0 (negative costs are taken as 0 by sim_init()), so -1
 * can mark a start or end not known yet; a submission is known or NOT_YET (one without a call
 * may come before t0). Sums of times saturate (add()).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

enum { EV_HOST, EV_END, EV_WAKE };

#define NOT_YET INT64_MIN /* a submission, or an earliest start, not known yet */

static int64_t add(int64_t a, int64_t b)
{
	return skip_add_sat(a, b);
}

double skip_memory_demand(double alone_ns, double pair_ns)
{
	double q;

	if (!isfinite(alone_ns) || !isfinite(pair_ns) || alone_ns <= 0 || pair_ns <= 0 ||
	    pair_ns < 1.2 * alone_ns)
		return 0;
	q = pair_ns / (2 * alone_ns);
	return q < 1 ? q : 1;
}

double skip_memory_pace(double demands)
{
	return demands > 1 ? 1 / demands : 1;
}

struct ev {
	int64_t t;
	uint64_t seq;
	int type, id;
};

struct heap {
	struct ev *v;
	size_t n, cap;
	uint64_t seq;
};

static int ev_less(const struct ev *a, const struct ev *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static void push(struct heap *h, int64_t t, int type, int id)
{
	size_t i;

	i = h->n;
	SK_VEC_XPUSH(h->v, h->n, h->cap, (struct ev){t, h->seq++, type, id});
	while (i && ev_less(&h->v[i], &h->v[(i - 1) / 2])) {
		struct ev x = h->v[i];

		h->v[i] = h->v[(i - 1) / 2];
		h->v[(i - 1) / 2] = x;
		i = (i - 1) / 2;
	}
}

static struct ev pop(struct heap *h)
{
	struct ev top = h->v[0];
	size_t i = 0;

	h->v[0] = h->v[--h->n];
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < h->n && ev_less(&h->v[l], &h->v[m]))
			m = l;
		if (r < h->n && ev_less(&h->v[r], &h->v[m]))
			m = r;
		if (m == i)
			break;
		struct ev x = h->v[i];

		h->v[i] = h->v[m];
		h->v[m] = x;
		i = m;
	}
	return top;
}

int wi_add_op(struct wi_prog *p, const struct wi_op *op)
{
	SK_VEC_XRESERVE(p->ops, p->capops, (size_t)p->nops + 1);
	p->ops[p->nops] = *op;
	if (op->stream >= p->nstreams)
		p->nstreams = op->stream + 1;
	return p->nops++;
}

int wi_add_call(struct wi_prog *p, const struct wi_call *c)
{
	SK_VEC_XRESERVE(p->calls, p->capcalls, (size_t)p->ncalls + 1);
	p->calls[p->ncalls] = *c;
	if (c->thread >= p->nthreads)
		p->nthreads = c->thread + 1;
	return p->ncalls++;
}

void wi_free(struct wi_prog *p)
{
	for (int i = 0; i < p->nops; i++) {
		free(p->ops[i].deps);
		free(p->ops[i].srcs);
	}
	for (int i = 0; i < p->ncalls; i++)
		free(p->calls[i].waits);
	free(p->ops);
	free(p->calls);
	memset(p, 0, sizeof(*p));
}

/* The state of a replay. */
struct sim {
	struct wi_prog *p;
	struct heap h;
	int *next_call;	    /* per thread: index into its calls */
	int **thread_calls; /* per thread: its calls in order */
	int *nthread_calls;
	int *head;	  /* per stream: the position of its next operation in stream_ops */
	int **stream_ops; /* per stream: its operations in order */
	int *nstream_ops;
	int64_t *submitted; /* per operation: submission time, NOT_YET */
	int *waiting_call;  /* per thread: a synchronization waiting for the GPU, -1 none */
	int64_t *wake_at;   /* per stream: the wake-up already queued, -1 none */
	int free_sms;
	int running;
	int *sm_load;	   /* per multiprocessor: blocks placed on it (placing()) */
	int **placed;	   /* per operation: the multiprocessors it was placed on */
	int64_t last_node; /* when the last graph node started, -1 none yet */
	int64_t *last_hit; /* per operation with a start_cost: its start or the last start that
			      cost it; NULL: no operation has a start_cost */
	char *ended;	   /* per operation (with last_hit or left): its end event has come */
	double *left;	   /* per operation with a memory demand, while it runs: its work left at
			      full pace (ns) as of since[]; NULL: no operation has a demand */
	int64_t *since;
};

/* When operation @o could start if multiprocessors allow: NOT_YET when not known yet. */
static int64_t earliest(struct sim *s, int o, int pos_in_stream)
{
	const struct wi_op *op = &s->p->ops[o];
	int64_t e = s->submitted[o];

	if (e == NOT_YET)
		return NOT_YET;
	e = add(e, op->lat);
	if (pos_in_stream > 0) {
		const struct wi_op *pred = &s->p->ops[s->stream_ops[op->stream][pos_in_stream - 1]];

		if (pred->end < 0)
			return NOT_YET;
		if (add(pred->end, op->gap) > e)
			e = add(pred->end, op->gap);
	}
	if (op->graph_node && s->last_node >= 0 && add(s->last_node, s->p->dispatch_gap) > e)
		e = add(s->last_node, s->p->dispatch_gap);
	for (int d = 0; d < op->ndeps; d++) {
		const struct wi_op *dep = &s->p->ops[op->deps[d]];
		int64_t after = add(add(dep->end, op->gap), op->join_extra);

		if (dep->end < 0)
			return NOT_YET;
		if (after > e)
			e = after;
	}
	return e;
}

/* Multiprocessors @o's blocks occupy, one each. */
static int nplaced(const struct sim *s, int o)
{
	int nsm = s->p->sms > 0 ? s->p->sms : 132;

	return s->p->ops[o].blocks < nsm ? s->p->ops[o].blocks : nsm;
}

/* Whether a shared multiprocessor slows a block (share_rate strictly between 0 and 1). */
static int sharing(const struct wi_prog *p)
{
	return p->share_rate > 0 && p->share_rate < 1;
}

/* Whether the program places kernels' blocks on multiprocessors. */
static int placing(const struct wi_prog *p)
{
	return p->remote_cost > 0 || sharing(p);
}

/* The end of a block of @d ns starting at @now on a multiprocessor where an older block runs
 * until @busy: it progresses at the program's share_rate (sharing()) until then, at full rate
 * after. */
static int64_t shared_end(const struct wi_prog *p, int64_t now, int64_t d, int64_t busy)
{
	double rho = p->share_rate, slow = rho * (double)(busy - now);

	if (busy <= now)
		return add(now, d);
	if (slow >= (double)d)
		return add(now, sk_ns((double)d / rho + 0.5));
	return add(busy, sk_ns((double)d - slow + 0.5));
}

/* @o's duration when it starts at @now on the multiprocessors placed[o]: its blocks that share
 * one with an older running kernel's block run slower while that runs (share_rate; a warp
 * scheduler favours older warps, so the older kernel keeps its pace); the last block's end. */
static int64_t shared_dur(struct sim *s, int o, int64_t now, int64_t d)
{
	int nsm = s->p->sms > 0 ? s->p->sms : 132, n = nplaced(s, o);
	int64_t *busy, end = add(now, d);

	if (!sharing(s->p))
		return d;
	busy = sk_xcalloc((size_t)nsm, sizeof(int64_t));
	for (int r = 0; r < s->p->nops; r++) /* the running kernels' ends, per multiprocessor */
		if (r != o && s->placed[r])
			for (int i = 0, nr = nplaced(s, r); i < nr; i++)
				if (s->p->ops[r].end > busy[s->placed[r][i]])
					busy[s->placed[r][i]] = s->p->ops[r].end;
	for (int i = 0; i < n; i++) {
		int64_t e = shared_end(s->p, now, d, busy[s->placed[o][i]]);

		end = e > end ? e : end;
	}
	free(busy);
	return end - now;
}

/* Place @o's blocks, one per multiprocessor, on the least loaded ones (lowest first), and
 * return its duration with the cost of what it reads from kernels placed elsewhere and of the
 * multiprocessors it shares with older kernels. */
static int64_t place(struct sim *s, int o, int64_t now)
{
	struct wi_op *op = &s->p->ops[o];
	int nsm = s->p->sms > 0 ? s->p->sms : 132, want = nplaced(s, o), got = 0;
	double remote = 0, f0, f1;

	if (!placing(s->p) || op->blocks <= 0)
		return op->dur;
	s->placed[o] = sk_xmalloc((size_t)want * sizeof(int));
	for (int load = 0; got < want; load++)
		for (int m = 0; m < nsm && got < want; m++)
			if (s->sm_load[m] == load)
				s->placed[o][got++] = m;
	op->first_sm = s->placed[o][0]; /* where its block 0 runs: its placement's identity */
	for (int i = 0; i < want; i++)
		s->sm_load[s->placed[o][i]]++;
	for (int i = 0; i < op->nsrcs; i++) {
		const struct wi_op *w = &s->p->ops[op->srcs[i].op];

		if (w->blocks != op->blocks || w->first_sm != op->first_sm)
			remote += op->srcs[i].bytes;
	}
	if (op->read_bytes <= 0 || s->p->remote_cost <= 0)
		return shared_dur(s, o, now, op->dur);
	f0 = 1 + s->p->remote_cost * op->serial_remote / op->read_bytes;
	f1 = 1 + s->p->remote_cost * remote / op->read_bytes;
	return shared_dur(s, o, now, sk_ns((double)op->dur * f1 / f0 + 0.5));
}

static void unplace(struct sim *s, int o)
{
	if (!s->placed[o])
		return;
	for (int i = 0, n = nplaced(s, o); i < n; i++)
		s->sm_load[s->placed[o][i]]--;
	free(s->placed[o]);
	s->placed[o] = NULL;
}

/* Kernel @o starts at @now: each other kernel running since before now with a start_cost ends
 * later by that cost, or by the time since its start or the last start that cost it if less
 * (a refill takes no longer than what was filled since). */
static void charge_start(struct sim *s, int o, int64_t now)
{
	if (s->p->ops[o].sms <= 0)
		return; /* a copy */
	for (int r = 0; r < s->p->nops; r++) {
		struct wi_op *op = &s->p->ops[r];
		int64_t d;

		if (r == o || op->start_cost <= 0 || op->start < 0 || op->start >= now ||
		    op->end <= now || s->ended[r])
			continue;
		if (s->last_hit[r] < op->start)
			s->last_hit[r] = op->start;
		d = now - s->last_hit[r] < op->start_cost ? now - s->last_hit[r] : op->start_cost;
		s->last_hit[r] = now;
		if (s->left && op->demand > 0) { /* work for mem_retime() to place */
			s->left[r] += (double)d;
			continue;
		}
		op->end = add(op->end, d);
		push(&s->h, op->end, EV_END, r);
	}
}

/* Whether operation @r has started and its end has not come. */
static int running_op(const struct sim *s, int r)
{
	return s->p->ops[r].start >= 0 && !s->ended[r];
}

/* The pace of the running operations with a memory demand (skip_memory_pace()). */
static double mem_pace(const struct sim *s)
{
	double d = 0;

	for (int r = 0; r < s->p->nops; r++)
		if (s->p->ops[r].demand > 0 && running_op(s, r))
			d += s->p->ops[r].demand;
	return skip_memory_pace(d);
}

/* Before the running set changes: each running operation with a demand has done the work of
 * the time since it was last brought up to date, at @pace. */
static void mem_progress(struct sim *s, int64_t now, double pace)
{
	for (int r = 0; r < s->p->nops; r++)
		if (s->p->ops[r].demand > 0 && running_op(s, r)) {
			s->left[r] -= (double)(now - s->since[r]) * pace;
			s->left[r] = s->left[r] > 0 ? s->left[r] : 0;
			s->since[r] = now;
		}
}

/* After it changed: each one's end where the new pace takes its work left, queued (the end
 * queued before is then ignored, or taken once where it is the same). */
static void mem_retime(struct sim *s, int64_t now)
{
	double pace = mem_pace(s);

	for (int r = 0; r < s->p->nops; r++)
		if (s->p->ops[r].demand > 0 && running_op(s, r)) {
			int64_t end = add(now, sk_ns(ceil(s->left[r] / pace)));

			if (end != s->p->ops[r].end) {
				s->p->ops[r].end = end;
				push(&s->h, end, EV_END, r);
			}
		}
}

static void dispatch(struct sim *s, int64_t now)
{
	for (int st = 0; st < s->p->nstreams; st++) {
		int pos = s->head[st], o, mem;
		int64_t e;

		if (pos >= s->nstream_ops[st])
			continue;
		o = s->stream_ops[st][pos];
		mem = s->left != NULL; /* a start may change the pace, or charge one that has one */
		if (s->p->ops[o].start >= 0)
			continue; /* running */
		e = earliest(s, o, pos);
		if (e == NOT_YET)
			continue;
		if (e > now) {
			if (s->wake_at[st] != e) { /* one wake-up per stream and time */
				s->wake_at[st] = e;
				push(&s->h, e, EV_WAKE, st);
			}
			continue;
		}
		if (s->p->ops[o].sms > s->free_sms && s->running)
			continue; /* waits for an end */
		if (mem)	  /* before @o runs: the pace without it */
			mem_progress(s, now, mem_pace(s));
		s->p->ops[o].start = now;
		s->p->ops[o].end = add(now, place(s, o, now));
		if (mem) {
			s->left[o] = (double)(s->p->ops[o].end - now);
			s->since[o] = now;
		}
		if (s->last_hit)
			charge_start(s, o, now);
		if (s->p->ops[o].graph_node)
			s->last_node = now;
		s->free_sms -= s->p->ops[o].sms;
		s->running++;
		push(&s->h, s->p->ops[o].end, EV_END, o);
		if (mem)
			mem_retime(s, now);
	}
}

/* A synchronization is done when every operation it waits for has ended. */
static int64_t sync_done(struct sim *s, const struct wi_call *c)
{
	int64_t last = 0;

	for (int i = 0; i < c->nwaits; i++) {
		int64_t e = s->p->ops[c->waits[i]].end;

		if (e < 0 || s->p->ops[c->waits[i]].start < 0 ||
		    (s->ended && !s->ended[c->waits[i]]))
			return -1;
		last = e > last ? e : last;
	}
	return last;
}

/* A synchronization's return: its own time, or the return latency after what it waited for. */
static int64_t sync_end(const struct wi_call *c, int64_t done)
{
	int64_t own = add(c->start, c->dur), ret = add(done, c->ret);

	return own > ret ? own : ret;
}

static void host_step(struct sim *s, int th, int64_t now)
{
	struct wi_call *c;
	int k = s->next_call[th];

	if (k >= s->nthread_calls[th])
		return;
	c = &s->p->calls[s->thread_calls[th][k]];
	c->start = add(now, c->gap);
	if (c->is_sync) {
		int64_t done = sync_done(s, c);

		if (done < 0) {
			s->waiting_call[th] = s->thread_calls[th][k];
			return;
		}
		c->end = sync_end(c, done);
	} else {
		c->end = add(c->start, c->dur);
	}
	s->next_call[th]++;
	push(&s->h, c->end, EV_HOST, th);
}

static void resume_waiting(struct sim *s, int64_t now)
{
	for (int th = 0; th < s->p->nthreads; th++) {
		struct wi_call *c;
		int64_t done;

		if (s->waiting_call[th] < 0)
			continue;
		c = &s->p->calls[s->waiting_call[th]];
		done = sync_done(s, c);
		if (done < 0)
			continue;
		s->waiting_call[th] = -1;
		c->end = sync_end(c, done);
		if (c->end < now)
			c->end = now;
		s->next_call[th]++;
		push(&s->h, c->end, EV_HOST, th);
	}
}

static void sim_init(struct sim *s, struct wi_prog *p)
{
	memset(s, 0, sizeof(*s));
	s->p = p;
	s->next_call = sk_xcalloc((size_t)p->nthreads + 1, sizeof(int));
	s->waiting_call = sk_xmalloc(((size_t)p->nthreads + 1) * sizeof(int));
	s->thread_calls = sk_xcalloc((size_t)p->nthreads + 1, sizeof(int *));
	s->nthread_calls = sk_xcalloc((size_t)p->nthreads + 1, sizeof(int));
	s->head = sk_xcalloc((size_t)p->nstreams + 1, sizeof(int));
	s->stream_ops = sk_xcalloc((size_t)p->nstreams + 1, sizeof(int *));
	s->nstream_ops = sk_xcalloc((size_t)p->nstreams + 1, sizeof(int));
	s->submitted = sk_xmalloc(((size_t)p->nops + 1) * sizeof(int64_t));
	s->wake_at = sk_xmalloc(((size_t)p->nstreams + 1) * sizeof(int64_t));
	for (int st = 0; st < p->nstreams; st++)
		s->wake_at[st] = -1;
	s->free_sms = p->sms > 0 ? p->sms : 132;
	s->last_node = -1;
	s->sm_load = sk_xcalloc((size_t)s->free_sms, sizeof(int));
	s->placed = sk_xcalloc((size_t)p->nops + 1, sizeof(int *));
	for (int th = 0; th < p->nthreads; th++) {
		s->waiting_call[th] = -1;
		s->thread_calls[th] = sk_xmalloc(((size_t)p->ncalls + 1) * sizeof(int));
	}
	for (int i = 0; i < p->ncalls; i++) {
		struct wi_call *c = &p->calls[i];

		s->thread_calls[c->thread][s->nthread_calls[c->thread]++] = i;
		c->start = c->end = -1;
		c->gap = c->gap > 0 ? c->gap : 0;
		c->dur = c->dur > 0 ? c->dur : 0;
		c->ret = c->ret > 0 ? c->ret : 0;
	}
	p->dispatch_gap = p->dispatch_gap > 0 ? p->dispatch_gap : 0;
	for (int st = 0; st < p->nstreams; st++)
		s->stream_ops[st] = sk_xmalloc(((size_t)p->nops + 1) * sizeof(int));
	for (int o = 0; o < p->nops; o++) {
		if (p->ops[o].start_cost > 0 && !s->last_hit)
			s->last_hit = sk_xcalloc((size_t)p->nops, sizeof(int64_t));
		if (p->ops[o].demand > 0 && p->ops[o].sms > 0 && !s->left) {
			s->left = sk_xcalloc((size_t)p->nops, sizeof(double));
			s->since = sk_xcalloc((size_t)p->nops, sizeof(int64_t));
		}
	}
	if (s->last_hit || s->left)
		s->ended = sk_xcalloc((size_t)p->nops + 1, 1);
	for (int o = 0; o < p->nops; o++) {
		struct wi_op *op = &p->ops[o];

		s->stream_ops[op->stream][s->nstream_ops[op->stream]++] = o;
		op->start = op->end = -1;
		op->first_sm = -1;
		op->dur = op->dur > 0 ? op->dur : 0;
		op->lat = op->lat > 0 ? op->lat : 0;
		op->gap = op->gap > 0 ? op->gap : 0;
		op->join_extra = op->join_extra > 0 ? op->join_extra : 0;
		s->submitted[o] = op->call < 0 ? op->submit_at : NOT_YET;
	}
}

static void sim_fini(struct sim *s)
{
	for (int th = 0; th < s->p->nthreads; th++)
		free(s->thread_calls[th]);
	for (int st = 0; st < s->p->nstreams; st++)
		free(s->stream_ops[st]);
	free(s->next_call);
	free(s->waiting_call);
	free(s->thread_calls);
	free(s->nthread_calls);
	free(s->head);
	free(s->stream_ops);
	free(s->nstream_ops);
	free(s->submitted);
	free(s->wake_at);
	for (int o = 0; o < s->p->nops; o++)
		free(s->placed[o]);
	free(s->placed);
	free(s->sm_load);
	free(s->last_hit);
	free(s->ended);
	free(s->left);
	free(s->since);
	free(s->h.v);
}

/* A host call ended: its operations are submitted. */
static void submit_ops_of(struct sim *s, int call, int64_t t, int **by_call, int *nby_call)
{
	for (int i = 0; i < nby_call[call]; i++)
		s->submitted[by_call[call][i]] = t;
}

int64_t wi_simulate(struct wi_prog *p)
{
	struct sim s;
	int **by_call = sk_xcalloc((size_t)p->ncalls + 1, sizeof(int *));
	int *nby_call = sk_xcalloc((size_t)p->ncalls + 1, sizeof(int));
	int64_t il = 0;

	sim_init(&s, p);
	for (int o = 0; o < p->nops; o++) {
		int c = p->ops[o].call;

		if (c < 0)
			continue;
		by_call[c] = sk_xrealloc(by_call[c], (size_t)(nby_call[c] + 1) * sizeof(int));
		by_call[c][nby_call[c]++] = o;
	}
	for (int th = 0; th < p->nthreads; th++)
		host_step(&s, th, p->t0);
	dispatch(&s, p->t0);
	while (s.h.n) {
		struct ev e = pop(&s.h);

		if (e.type == EV_HOST) {
			int th = e.id;
			int c = s.thread_calls[th][s.next_call[th] - 1];

			submit_ops_of(&s, c, e.t, by_call, nby_call);
			host_step(&s, th, e.t);
		} else if (e.type == EV_END && e.t == p->ops[e.id].end && /* else moved */
			   !(s.ended && s.ended[e.id])) { /* a second event at the same end */
			struct wi_op *op = &p->ops[e.id];
			int mem = s.left && op->demand > 0;

			if (mem)
				mem_progress(&s, e.t, mem_pace(&s));
			if (s.ended)
				s.ended[e.id] = 1;
			if (mem)
				mem_retime(&s, e.t);
			s.free_sms += op->sms;
			s.running--;
			unplace(&s, e.id);
			s.head[op->stream]++;
			resume_waiting(&s, e.t);
		}
		if (!s.h.n || s.h.v[0].t > e.t) /* everything at this time is done first */
			dispatch(&s, e.t);
	}
	p->host_end = p->t0;
	for (int c = 0; c < p->ncalls; c++) {
		if (p->calls[c].end < 0)
			il = -1;
		else if (p->calls[c].end > p->host_end)
			p->host_end = p->calls[c].end;
	}
	for (int o = 0; o < p->nops && il >= 0; o++) {
		if (p->ops[o].end < 0) {
			il = -1;
			break;
		}
		if (p->ops[o].end - p->t0 > il)
			il = p->ops[o].end - p->t0;
	}
	for (int c = 0; c < p->ncalls; c++)
		free(by_call[c]);
	free(by_call);
	free(nby_call);
	sim_fini(&s);
	return il;
}
