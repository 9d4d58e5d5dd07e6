/*
 * advise.c: skip_advise(): which excerpts of the recording to model (struct sk_excerpt: the
 * regions of docs/advise-model.md), the calibration check, and the advice items with their
 * predictions (docs/advise-model.md).
 *
 * Excerpts: with --region, each occurrence of that NVTX range; otherwise the whole run for the
 * calibration and the fusion items, and as graph candidates the NVTX ranges that repeat and
 * hold two operations or more (the three longest in all) and the most frequent kernel sequence
 * between host synchronizations (a training or inference loop that synchronizes once per step). A
 * workload run is modelled by workload.c instead.
 */
#define SK_LOG_DOMAIN "advisor"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ---- excerpt sets ---------------------------------------------------------------------------- */

/* A set of excerpts modelled together (every occurrence of one thing), and what it is. */
struct excerpts {
	struct sk_excerpt *v;
	size_t n, cap;
	char *label; /* "NVTX region 'step'", for titles */
};

static void excerpts_free(struct excerpts *es)
{
	for (size_t i = 0; i < es->n; i++)
		free(es->v[i].idx);
	free(es->v);
	free(es->label);
	memset(es, 0, sizeof(*es));
}

static struct sk_excerpt *excerpt_push(struct excerpts *es, const struct skip_timeline *tl,
				       size_t cap_members)
{
	struct sk_excerpt *e;

	SK_VEC_XRESERVE(es->v, es->cap, es->n + 1);
	e = &es->v[es->n++];
	memset(e, 0, sizeof(*e));
	e->tl = tl;
	e->idx = sk_xmalloc((cap_members + 1) * sizeof(uint32_t));
	e->t0 = INT64_MAX;
	e->end = INT64_MIN;
	return e;
}

static void excerpt_add(struct sk_excerpt *e, const struct skip_timeline *tl, size_t i)
{
	const struct skip_op *op = &tl->ops[i];

	e->idx[e->n++] = (uint32_t)i;
	if (op->end > e->end)
		e->end = op->end;
}

/* The whole run: every operation, from the run's IL start. */
static void excerpts_whole(const struct skip_timeline *tl, struct excerpts *es)
{
	struct sk_excerpt *e = excerpt_push(es, tl, tl->nops);

	for (size_t i = 0; i < tl->nops; i++)
		excerpt_add(e, tl, i);
	e->t0 = tl->t0;
	for (size_t i = 0; i < tl->nops; i++)
		if (tl->ops[i].launch != INT64_MIN && tl->ops[i].launch < e->t0)
			e->t0 = tl->ops[i].launch;
	es->label = sk_xstrdup("the whole run");
}

/* Each occurrence of the region the timeline was loaded with (op->window). Occurrences that
 * launched nothing are left out. */
static void excerpts_windows(const struct skip_timeline *tl, const char *name, struct excerpts *es)
{
	size_t *count = sk_xcalloc(tl->nwindows + 1, sizeof(size_t));
	int *slot = sk_xmalloc((tl->nwindows + 1) * sizeof(int));

	for (size_t i = 0; i < tl->nops; i++)
		if (tl->ops[i].window >= 0 && (size_t)tl->ops[i].window < tl->nwindows)
			count[tl->ops[i].window]++;
	for (size_t w = 0; w < tl->nwindows; w++) {
		slot[w] = -1;
		if (!count[w])
			continue;
		slot[w] = (int)es->n;
		excerpt_push(es, tl, count[w])->t0 = tl->windows[w].start;
	}
	for (size_t i = 0; i < tl->nops; i++) {
		int w = tl->ops[i].window;

		if (w >= 0 && (size_t)w < tl->nwindows && slot[w] >= 0)
			excerpt_add(&es->v[slot[w]], tl, i);
	}
	if (!es->label)
		es->label = sk_xasprintf("NVTX region '%s'", name);
	free(count);
	free(slot);
}

struct segs {
	const uint64_t *hash;
	const size_t *len;
};

static int cmp_seg(const void *x, const void *y, void *ctx)
{
	const struct segs *sg = ctx;
	size_t a = *(const size_t *)x, b = *(const size_t *)y;

	if (sg->hash[a] != sg->hash[b])
		return sg->hash[a] < sg->hash[b] ? -1 : 1;
	if (sg->len[a] != sg->len[b])
		return sg->len[a] < sg->len[b] ? -1 : 1;
	return (a > b) - (a < b);
}

/*
 * Period detection: cut each process's launches where a host synchronization of that process
 * ended between two of them; the sequences of kernel identities between cuts that occur most
 * often (at least twice, at least two operations; ties: the longer) are the repeated region.
 * Returns the number of occurrences found (0: none).
 */
static size_t excerpts_periods(const struct skip_timeline *tl, struct excerpts *es)
{
	size_t nseg = 0, *seg_start = sk_xmalloc((tl->nops + 2) * sizeof(size_t));
	uint64_t *hash = sk_xmalloc((tl->nops + 2) * sizeof(uint64_t));
	size_t *len = sk_xcalloc(tl->nops + 2, sizeof(size_t));
	size_t s = 0, best = SIZE_MAX, best_count = 0;

	/* segments: runs of launched operations of one process, cut at its synchronizations */
	for (size_t i = 0; i < tl->nops; i++) {
		const struct skip_op *op = &tl->ops[i];
		int cut = len[nseg] == 0;

		if (op->launch == INT64_MIN) {
			if (len[nseg])
				nseg++;
			continue;
		}
		if (!cut) {
			const struct skip_op *prev = &tl->ops[i - 1];

			cut = prev->pid != op->pid;
			while (s < tl->nsyncs && tl->syncs[s].start < prev->launch)
				s++;
			for (size_t k = s;
			     !cut && k < tl->nsyncs && tl->syncs[k].start < op->launch; k++)
				cut = tl->syncs[k].pid == op->pid && tl->syncs[k].end <= op->launch;
			if (cut)
				nseg++;
		}
		if (cut) {
			seg_start[nseg] = i;
			len[nseg] = 0;
			hash[nseg] = 1469598103934665603ull;
		}
		hash[nseg] ^= (uint32_t)(op->fullname >= 0 ? op->fullname : op->name) +
			      ((uint64_t)op->kind << 32);
		hash[nseg] *= 1099511628211ull;
		len[nseg]++;
	}
	if (len[nseg])
		nseg++;
	{
		size_t *ord = sk_xmalloc((nseg + 1) * sizeof(size_t));
		struct segs sg = {hash, len};

		for (size_t i = 0; i < nseg; i++)
			ord[i] = i;
		if (nseg)
			qsort_r(ord, nseg, sizeof(size_t), cmp_seg, &sg);
		for (size_t i = 0, j; i < nseg; i = j) {
			for (j = i + 1;
			     j < nseg && hash[ord[j]] == hash[ord[i]] && len[ord[j]] == len[ord[i]];
			     j++)
				;
			if (len[ord[i]] < 2 || j - i < 2)
				continue;
			if (j - i > best_count ||
			    (j - i == best_count && len[ord[i]] > len[best])) {
				best = ord[i];
				best_count = j - i;
			}
		}
		free(ord);
	}
	if (best != SIZE_MAX) {
		for (size_t b = 0; b < nseg; b++) {
			struct sk_excerpt *e;

			if (hash[b] != hash[best] || len[b] != len[best])
				continue;
			e = excerpt_push(es, tl, len[b]);
			for (size_t k = seg_start[b]; k < seg_start[b] + len[b]; k++)
				excerpt_add(e, tl, k);
			e->t0 = tl->ops[seg_start[b]].launch;
		}
		es->label = sk_xasprintf("the repeated sequence of %zu operations between host "
					 "synchronizations",
					 len[best]);
	}
	free(seg_start);
	free(hash);
	free(len);
	return best_count;
}

/* ---- modelling a set of excerpts ------------------------------------------------------------- */

/* Median model IL over the set, transformed by @x; also the total of (baseline - that) when
 * @base (per excerpt) is given. Excerpts the model cannot finish are left out. */
static double model_set(const struct sk_ctx *c, const struct excerpts *es, const struct sk_xform *x,
			int profiled, double *per, double *total_saved, const double *base)
{
	double *v = sk_xmalloc((es->n + 1) * sizeof(double)), med;
	size_t n = 0;

	if (total_saved)
		*total_saved = 0;
	for (size_t i = 0; i < es->n; i++) {
		const struct sk_excerpt *g = &es->v[i];
		int64_t il = sk_model_excerpt(g->tl, g, g->lat ? g->lat : &c->lat, &c->o.cal,
					      profiled, x, NULL);

		if (per)
			per[i] = (double)il;
		if (il < 0)
			continue;
		v[n++] = (double)il;
		if (total_saved && base && base[i] >= 0)
			*total_saved += base[i] - (double)il;
	}
	med = skip_median(v, n);
	free(v);
	return med;
}

/* Recorded IL, the model of the recording and its error, for one set. */
static void calibrate_set(const struct sk_ctx *c, const struct excerpts *es, double *recorded,
			  double *replay, double *error)
{
	double *rec = sk_xmalloc((es->n + 1) * sizeof(double));
	double *rep = sk_xmalloc((es->n + 1) * sizeof(double));
	double *err = sk_xmalloc((es->n + 1) * sizeof(double));
	size_t ne = 0;

	model_set(c, es, NULL, 1, rep, NULL, NULL);
	for (size_t i = 0; i < es->n; i++) {
		rec[i] = (double)sk_excerpt_il(es->v[i].tl, &es->v[i]);
		if (rep[i] >= 0 && rec[i] > 0)
			err[ne++] = fabs(rep[i] - rec[i]) / rec[i];
	}
	*error = skip_median(err, ne);
	*recorded = skip_median(rec, es->n);
	for (size_t i = 0, k = 0; i < es->n; i++)
		if (rep[i] >= 0)
			rep[k++] = rep[i];
	*replay = skip_median(rep, ne);
	free(rec);
	free(rep);
	free(err);
}

/* The unprofiled time the items of a set start from: the model's @b, or, with baseline runs
 * (c->unprofiled_ns), their measured wall interval; each excerpt's @base then scales with it so
 * that the items' total saved time stays the sum over the excerpts. */
static double unprofiled(const struct sk_ctx *c, double b, double *base, size_t n)
{
	double k;

	if (c->o.profiled || c->unprofiled_ns <= 0 || b <= 0)
		return b;
	k = c->unprofiled_ns / b;
	for (size_t i = 0; i < n; i++)
		if (base[i] >= 0)
			base[i] *= k;
	return c->unprofiled_ns;
}

/* ---- items ----------------------------------------------------------------------------------- */

/* The median number of operations in an excerpt of @es. */
static double median_members(const struct excerpts *es)
{
	double *v = sk_xmalloc((es->n + 1) * sizeof(double)), med;

	for (size_t i = 0; i < es->n; i++)
		v[i] = (double)es->v[i].n;
	med = skip_median(v, es->n);
	free(v);
	return med;
}

/* "N operations each" of @es, or, where its occurrences differ (a first step that also
 * compiles), "N operations (median; MIN to MAX)". Caller frees. */
static char *members_of(const struct excerpts *es)
{
	size_t lo = SIZE_MAX, hi = 0;

	for (size_t i = 0; i < es->n; i++) {
		lo = es->v[i].n < lo ? es->v[i].n : lo;
		hi = es->v[i].n > hi ? es->v[i].n : hi;
	}
	if (!es->n || lo == hi)
		return sk_xasprintf("%zu operations each", es->n ? hi : 0);
	return sk_xasprintf("%g operations (median; %zu to %zu)", median_members(es), lo, hi);
}

static const char graph_assumptions[] =
    "every launch in the region is captured once and replayed with one cudaGraphLaunch (the "
    "region's host work before its first launch, between the launches and from its last "
    "launch to the next call is the captured code's and is not repeated, and the region "
    "does not synchronize with the host inside; synchronizations after its last launch "
    "stay); kernels keep their "
    "recorded durations; the graph's launch, first-node latency, per-node gap and node "
    "dispatch rate are the calibration's (docs/skip-advise.md)";

static const char persist_assumptions[] =
    "the region's kernels are recompiled as tasks of one resident (persistent) kernel; each "
    "stretch of the process's kernel and memset launches (from any of its threads) with no "
    "host synchronization or copy between them becomes one launch of it (persist_launch_ns), "
    "and the host work between those launches is not repeated (synchronizations, copies and "
    "the host time before them "
    "stay); a task keeps its kernel's (or memset's) recorded duration and starts the mode's "
    "per-task cost (persist_aot_task_ns, persist_jit_task_ns, persist_copilot_task_ns) after "
    "its stream predecessor, the first after the launch latency; a counter barrier "
    "(persist_epoch_ns) ends each launch; streams keep their order, and cross-stream events "
    "are not modelled (as in the recording's model); the workers are sized for the largest "
    "kernel (registers, shared memory), so a kernel that ran more blocks per multiprocessor "
    "than they hold runs its grid in more tile waves than recorded, which is not counted, nor "
    "is claiming the tiles beyond one wave; the calibration's per-task costs are dependent "
    "chains of empty tasks (docs/advise-model.md)";

/* The persistent item: @es run as persistent kernels in each mode; the item predicts the
 * fastest mode's median IL and lists the others. */
static void persist_item(struct sk_ctx *c, struct skip_advice_report *r, struct excerpts *es,
			 const char *members, double cerr)
{
	double *base = sk_xmalloc((es->n + 1) * sizeof(double)), b, pm[SKIP_PERSIST_NMODES];
	double saved[SKIP_PERSIST_NMODES];
	int best = -1;
	struct skip_advice *a;
	char d[SKIP_PERSIST_NMODES][32];

	b = model_set(c, es, NULL, c->o.profiled, base, NULL, NULL);
	b = unprofiled(c, b, base, es->n);
	for (int m = 0; m < SKIP_PERSIST_NMODES; m++) {
		struct sk_xform x = {.kind = SK_X_PERSIST, .mode = m};

		pm[m] = model_set(c, es, &x, c->o.profiled, NULL, &saved[m], base);
		skip_fmt_duration(d[m], sizeof(d[m]), pm[m], 4);
		if (pm[m] > 0 && (best < 0 || pm[m] < pm[best]))
			best = m;
	}
	free(base);
	if (b <= 0 || best < 0)
		return;
	a = sk_item_push(r);
	a->kind = SKIP_ADVICE_PERSIST;
	a->title = sk_xasprintf("run %s as persistent kernels, mode %s (%zu occurrence%s, %s; "
				"aot %s, jit %s, copilot %s)",
				es->label, skip_persist_mode_name(best), es->n,
				es->n == 1 ? "" : "s", members, d[SKIP_PERSIST_AOT],
				d[SKIP_PERSIST_JIT], d[SKIP_PERSIST_COPILOT]);
	a->assumptions = sk_xstrdup(persist_assumptions);
	a->regions = es->n;
	a->calibration_error = cerr;
	a->persist_mode = best;
	for (int m = 0; m < SKIP_PERSIST_NMODES; m++) {
		a->persist_il_ns[m] = pm[m];
		a->persist_saved_ns[m] = saved[m];
	}
	sk_item_set(a, b, pm[best], saved[best]);
}

/* The graph item of @es, and its persistent item (persist_item()). */
static void graph_item(struct sk_ctx *c, struct skip_advice_report *r, struct excerpts *es)
{
	struct sk_xform x = {.kind = SK_X_GRAPH};
	double *base = sk_xmalloc((es->n + 1) * sizeof(double)), b, g, saved, rec, rep, cerr;
	struct skip_advice *a;
	char *members;

	b = model_set(c, es, NULL, c->o.profiled, base, NULL, NULL);
	b = unprofiled(c, b, base, es->n);
	g = model_set(c, es, &x, c->o.profiled, NULL, &saved, base);
	calibrate_set(c, es, &rec, &rep, &cerr);
	free(base);
	members = members_of(es);
	persist_item(c, r, es, members, cerr);
	if (b <= 0 || g <= 0) {
		free(members);
		return;
	}
	a = sk_item_push(r);
	a->kind = SKIP_ADVICE_GRAPH;
	a->title = sk_xasprintf("replay %s as one CUDA graph (%zu occurrence%s, %s)", es->label,
				es->n, es->n == 1 ? "" : "s", members);
	free(members);
	a->assumptions = sk_xstrdup(graph_assumptions);
	a->regions = es->n;
	a->calibration_error = cerr;
	sk_item_set(a, b, g, saved);
}

static void fusion_items(struct sk_ctx *c, struct skip_advice_report *r, struct excerpts *es)
{
	double *base = sk_xmalloc((es->n + 1) * sizeof(double));
	double bm = model_set(c, es, NULL, c->o.profiled, base, NULL, NULL);
	double b = unprofiled(c, bm, NULL, 0), pace = bm > 0 ? b / bm : 1;

	for (size_t i = 0; i < r->nchains && (int)i < c->o.top; i++) {
		const struct skip_chain *ch = &r->chains[i];
		struct sk_xform x = {.kind = SK_X_FUSE, .chain = ch->ids, .len = ch->len};
		struct sk_strbuf sb = {0};
		struct skip_advice *a;
		double saved, f = model_set(c, es, &x, c->o.profiled, NULL, &saved, base);
		int over = -1;

		if (f <= 0 || b <= 0)
			continue;
		/* the fused run keeps the host's pace: the measured one's, where known */
		f *= pace;
		saved *= pace;
		if (f >= b) { /* the launches it removes are not what the region waits for */
			r->fusion_no_gain++;
			continue;
		}
		if (ch->len <= 3)
			for (int k = 0; k < ch->len; k++)
				sk_strbuf_printf(&sb, "%s%s", k ? " -> " : "", ch->names[k]);
		else
			sk_strbuf_printf(&sb, "%s -> ... -> %s", ch->names[0],
					 ch->names[ch->len - 1]);
		for (size_t k = 0; k < r->nitems; k++) /* a better chain listed with it */
			if (r->items[k].kind == SKIP_ADVICE_FUSION && over < 0 &&
			    sk_chains_overlap(&r->chains[r->items[k].chain], ch))
				over = r->items[k].chain;
		if (over >= 0)
			sk_strbuf_printf(&sb,
					 " (PS %.2f, %lld occurrences; overlaps chain %d: "
					 "their savings do not add)",
					 ch->ps, (long long)ch->count, over + 1);
		else
			sk_strbuf_printf(&sb, " (PS %.2f, %lld occurrences)", ch->ps,
					 (long long)ch->count);
		a = sk_item_push(r);
		a->kind = SKIP_ADVICE_FUSION;
		a->chain = (int)i;
		a->overlaps = over;
		a->title = sk_xasprintf("fuse chain %zu, %d kernels: %s", i + 1, ch->len,
					sb.buf ? sb.buf : "");
		free(sb.buf);
		a->assumptions = sk_xstrdup(
		    "each occurrence becomes one launch of a kernel that takes the chain's summed "
		    "duration (an upper bound: fusing usually also saves memory traffic); the "
		    "launches it removes took their recorded time, and where the unprofiled time "
		    "is measured (baseline runs, unrecorded occurrences) the fused run is the "
		    "model's scaled by the measured time over the modelled one; that the kernels' "
		    "data allow fusing is not checked");
		a->regions = es->n;
		a->calibration_error = r->calibration_error;
		sk_item_set(a, b, f, saved);
	}
	free(base);
}

static int cmp_item(const void *x, const void *y)
{
	const struct skip_advice *a = x, *b = y;
	double ra = sk_item_rank(a), rb = sk_item_rank(b);

	if (ra != rb)
		return ra > rb ? -1 : 1;
	return (int)a->kind - (int)b->kind;
}

/* A repeated sequence whose host time between launches exceeds this an operation (PyTorch's
 * eager dispatch costs 5-40 us an operation) holds the program's own work, not launch overhead:
 * a benchmark loop's (an autotuner's), not a candidate to capture. */
#define SK_PERIOD_HOST_MAX_NS 100000.0

/* Median over @es of the host time from the first launch call's start to the last one's end,
 * per operation after the first. */
static double period_host_ns(const struct skip_timeline *tl, const struct excerpts *es)
{
	double *v = sk_xmalloc((es->n + 1) * sizeof(double)), med;
	size_t nv = 0;

	for (size_t i = 0; i < es->n; i++) {
		int64_t lo = INT64_MAX, hi = INT64_MIN;
		size_t n = 0;

		for (size_t k = 0; k < es->v[i].n; k++) {
			const struct skip_op *op = &tl->ops[es->v[i].idx[k]];

			if (op->launch == INT64_MIN)
				continue;
			lo = op->launch < lo ? op->launch : lo;
			hi = op->api_end > hi ? op->api_end : hi;
			n++;
		}
		if (n >= 2)
			v[nv++] = (double)(hi - lo) / (double)(n - 1);
	}
	med = nv ? skip_median(v, nv) : 0;
	free(v);
	return med;
}

/* Excerpt sets that are graph candidates when no --region was given. */
static void graph_candidates(struct sk_ctx *c, struct skip_advice_report *r)
{
	struct excerpts per = {0};
	char **names = NULL;
	size_t nn = skip_trace_repeated_ranges(c->t, c->tl->run_id, 2, 3, &names);

	for (size_t i = 0; i < nn; i++) {
		struct skip_timeline *wt = NULL;
		struct excerpts es = {0};

		if (!skip_timeline_load(c->t, c->tl->run_id, names[i], &wt) && wt->nwindows) {
			struct sk_ctx wc = *c;

			wc.tl = wt;
			excerpts_windows(wt, names[i], &es);
			if (es.n >= 2 && median_members(&es) >= 2) /* an operator's range: no */
				graph_item(&wc, r, &es);
		}
		excerpts_free(&es);
		skip_timeline_free(wt);
		free(names[i]);
	}
	free(names);
	if (excerpts_periods(c->tl, &per) >= 2 &&
	    period_host_ns(c->tl, &per) <= SK_PERIOD_HOST_MAX_NS)
		graph_item(c, r, &per);
	excerpts_free(&per);
}

static int has_kernels(const struct skip_timeline *tl)
{
	for (size_t i = 0; i < tl->nops; i++)
		if (tl->ops[i].kind == SKIP_OP_KERNEL)
			return 1;
	return 0;
}

static void set_defaults(struct skip_advise_opts *o)
{
	if (!o->min_len)
		o->min_len = 2;
	if (!o->max_len)
		o->max_len = 8;
	if (o->min_ps <= 0)
		o->min_ps = 1.0;
	if (!o->top)
		o->top = 5;
	static const struct skip_calibration unset;

	if (!memcmp(&o->cal, &unset, sizeof(unset))) /* all zero: not given */
		skip_calibration_default(&o->cal);
}

static int pick_run(struct skip_trace *t, int64_t want, int64_t *run)
{
	int64_t *ids = NULL, n = skip_trace_runs(t, &ids);
	int found = 0;

	for (int64_t i = 0; i < n && !found; i++)
		found = !want || ids[i] == want;
	*run = want ? want : n > 0 ? ids[0] : 0;
	free(ids);
	if (n <= 0)
		return sk_fail(SKIP_E_EMPTY, "the trace has no runs");
	if (!found && skip_trace_is_baseline(t, want))
		return sk_fail(
		    SKIP_E_NOTFOUND,
		    "run %lld is a baseline run (skip record --baseline): it holds NVTX "
		    "ranges only; advise a full run, whose --region prediction takes its "
		    "unprofiled time from the baseline runs",
		    (long long)want);
	if (!found)
		return sk_fail(SKIP_E_NOTFOUND, "no run %lld in the trace (skip info lists them)",
			       (long long)want);
	return 0;
}

static int region_missing(struct skip_trace *t, int64_t run, const char *region)
{
	char **names = NULL;
	size_t n = skip_trace_repeated_ranges(t, run, 1, 5, &names);
	struct sk_strbuf sb = {0};

	for (size_t i = 0; i < n; i++) {
		sk_strbuf_printf(&sb, "%s'%s'", i ? ", " : "", names[i]);
		free(names[i]);
	}
	free(names);
	sk_fail(SKIP_E_NOTFOUND, "no NVTX range '%s' in run %lld%s%s%s", region, (long long)run,
		n ? " (its longest ranges: " : " (it has no NVTX ranges)", n ? sb.buf : "",
		n ? ")" : "");
	free(sb.buf);
	return SKIP_E_NOTFOUND;
}

/* The other runs whose excerpts a set of an NVTX region's occurrences pools, with their
 * latencies. */
struct pool {
	struct skip_timeline **tl;
	struct sk_lat **lat;
	size_t n;
};

static void pool_free(struct pool *p)
{
	for (size_t i = 0; i < p->n; i++) {
		skip_timeline_free(p->tl[i]);
		free(p->lat[i]);
	}
	free(p->tl);
	free(p->lat);
	memset(p, 0, sizeof(*p));
}

/* Add to @es the occurrences of the region in every repetition of the run (skip record
 * --repeat N: one process is noisier than several pooled) that has some, each with its own
 * run's latencies. Returns the runs the set then covers. */
static size_t pool_runs(const struct sk_ctx *c, struct excerpts *es, struct pool *p)
{
	int64_t *ids = NULL, n = skip_trace_repeats(c->t, c->tl->run_id, &ids);
	size_t runs = 1;

	for (int64_t i = 0; i < n; i++) {
		struct skip_timeline *tl = NULL;
		size_t from = es->n;

		if (ids[i] == c->tl->run_id || skip_timeline_load(c->t, ids[i], c->o.region, &tl))
			continue;
		if (!tl->nwindows || !has_kernels(tl)) {
			skip_timeline_free(tl);
			continue;
		}
		p->tl = sk_xrealloc(p->tl, (p->n + 1) * sizeof(*p->tl));
		p->lat = sk_xrealloc(p->lat, (p->n + 1) * sizeof(*p->lat));
		p->tl[p->n] = tl;
		p->lat[p->n] = sk_xmalloc(sizeof(struct sk_lat));
		sk_calibrate(tl, &c->o.cal, p->lat[p->n]);
		excerpts_windows(tl, c->o.region, es);
		for (size_t k = from; k < es->n; k++)
			es->v[k].lat = p->lat[p->n];
		p->n++;
		runs++;
	}
	free(ids);
	return runs;
}

/*
 * The region's occurrences outside every capture range (skip record --capture-range: the same
 * processes, unrecorded) of the run and, unless --run chose it, its repetitions (the runs whose
 * recorded occurrences are pooled), when the run has occurrences inside one too: their median
 * wall interval becomes the unprofiled time. A process runs slower after a range than before
 * the first (docs/BENCHMARKS.md "What the on/off ratio misses"), so where at least
 * SKIP_ADVISE_BEFORE_MIN occurrences ended before their run's first range, the median is over
 * those alone. Returns 1 when it did.
 */
static int uncaptured_source(struct sk_ctx *c, struct skip_advice_report *r)
{
	int64_t *ids = NULL, n;
	double *all = NULL, *before = NULL;
	size_t nall = 0, nbefore = 0, own = 0;

	if (!c->o.region || !skip_trace_has_captures(c->t))
		return 0;
	n = c->o.run_id ? 0 : skip_trace_repeats(c->t, c->tl->run_id, &ids);
	if (n <= 0) { /* the run alone */
		free(ids);
		ids = sk_xmalloc(sizeof(*ids));
		ids[0] = c->tl->run_id;
		n = 1;
	}
	for (int64_t i = 0; i < n; i++) {
		double *w = NULL, *b = NULL;
		size_t nb = 0,
		       k = skip_trace_uncaptured_walls(c->t, ids[i], c->o.region, &w, &b, &nb);

		if (ids[i] == c->tl->run_id)
			own = k;
		all = sk_xrealloc(all, (nall + k + 1) * sizeof(double));
		before = sk_xrealloc(before, (nbefore + nb + 1) * sizeof(double));
		if (k)
			memcpy(all + nall, w, k * sizeof(double));
		if (nb)
			memcpy(before + nbefore, b, nb * sizeof(double));
		nall += k;
		nbefore += nb;
		free(w);
		free(b);
	}
	if (nall && c->tl->nwindows > own) { /* some occurrence was recorded, some not */
		r->uncaptured_before = nbefore >= SKIP_ADVISE_BEFORE_MIN;
		r->uncaptured = r->uncaptured_before ? nbefore : nall;
		c->unprofiled_ns = skip_median(r->uncaptured_before ? before : all, r->uncaptured);
		r->unprofiled_ns = c->unprofiled_ns;
		r->unprofiled_source = "uncaptured";
	}
	free(all);
	free(before);
	free(ids);
	return r->uncaptured > 0;
}

/*
 * Where the unprofiled time of the region comes from: the occurrences of the recorded run
 * outside its capture ranges (uncaptured_source()); else the baseline runs of the run's
 * configuration (skip record --baseline) when they hold the region as often per run as the
 * recorded run does, their median wall interval over every occurrence; else the model's
 * estimate (the profiler's cost per launch taken out). Sets r's source members.
 */
static void unprofiled_source(struct sk_ctx *c, struct skip_advice_report *r)
{
	int64_t *ids = NULL, n;
	double *all = NULL;
	size_t nall = 0;

	r->unprofiled_source = c->o.profiled ? "profiled" : "estimate";
	if (c->o.profiled || c->o.workload || uncaptured_source(c, r))
		return;
	n = skip_trace_baseline_runs(c->t, c->tl->run_id, &ids);
	r->baseline_runs = (size_t)n;
	if (n > 0 && !c->o.region)
		r->unprofiled_note = sk_xasprintf(
		    "the trace has %lld baseline run%s: with --region NAME the unprofiled time "
		    "comes from them",
		    (long long)n, n == 1 ? "" : "s");
	for (int64_t i = 0; c->o.region && i < n && !r->unprofiled_note; i++) {
		double *w = NULL;
		size_t k = skip_trace_range_walls(c->t, ids[i], c->o.region, &w);

		if (k != c->tl->nwindows)
			r->unprofiled_note = sk_xasprintf(
			    "baseline run %lld holds %zu occurrence%s of '%s', recorded run %lld "
			    "holds %zu: they did not do the same work, so the estimate is used",
			    (long long)ids[i], k, k == 1 ? "" : "s", c->o.region,
			    (long long)c->tl->run_id, c->tl->nwindows);
		all = sk_xrealloc(all, (nall + k + 1) * sizeof(double));
		memcpy(all + nall, w, k * sizeof(double));
		nall += k;
		free(w);
	}
	if (c->o.region && n > 0 && !r->unprofiled_note && nall) {
		c->unprofiled_ns = skip_median(all, nall);
		r->unprofiled_ns = c->unprofiled_ns;
		r->unprofiled_source = "baseline";
	}
	free(all);
	free(ids);
}

/* The fusion chains of the run and of the repetitions its excerpt set pools. */
static size_t chains_of(const struct sk_ctx *c, const struct pool *p, struct skip_chain **out)
{
	const struct skip_timeline **tls = sk_xmalloc((p->n + 1) * sizeof(*tls));
	size_t n;

	tls[0] = c->tl;
	for (size_t i = 0; i < p->n; i++)
		tls[i + 1] = p->tl[i];
	n = sk_find_chains(c->t, tls, p->n + 1, c->o.min_len, c->o.max_len, c->o.min_ps, out);
	free(tls);
	return n;
}

int skip_advise(struct skip_trace *t, const struct skip_advise_opts *opts,
		struct skip_advice_report **out)
{
	struct sk_ctx c = {.t = t, .o = *opts};
	struct skip_advice_report *r;
	struct excerpts es = {0};
	struct skip_timeline *tl = NULL;
	struct pool pool = {0};
	int64_t run;
	int err;

	*out = NULL;
	set_defaults(&c.o);
	if ((err = skip_calibration_check(&c.o.cal)) || (err = pick_run(t, c.o.run_id, &run)))
		return err;
	if ((err = skip_timeline_load(t, run, c.o.region, &tl)))
		return err;
	c.tl = tl;
	if (!has_kernels(c.tl)) {
		skip_timeline_free(tl);
		return sk_fail(SKIP_E_EMPTY, "run %lld has no kernels: nothing to advise on",
			       (long long)run);
	}
	if (c.o.region && !c.tl->nwindows) {
		skip_timeline_free(tl);
		return region_missing(t, run, c.o.region);
	}
	sk_calibrate(c.tl, &c.o.cal, &c.lat);
	r = sk_xcalloc(1, sizeof(*r));
	r->run_id = run;
	r->runs = 1;
	r->region = c.o.region ? sk_xstrdup(c.o.region) : NULL;
	r->cal = c.o.cal;
	r->best_plan = -1;
	r->profiled = c.o.profiled;
	r->launch_latency_ns = (double)c.lat.launch;
	r->stream_gap_ns = (double)c.lat.stream_gap;
	r->sync_return_ns = (double)c.lat.sync_ret;
	r->profiler_launch_ns = (double)c.lat.profiler_launch;
	r->calls_per_launch = c.lat.calls_per_launch;
	unprofiled_source(&c, r);
	if (c.o.workload) {
		r->nchains = chains_of(&c, &pool, &r->chains); /* the first run's */
		err = sk_workload_advise(&c, r);
	} else {
		if (c.o.region) {
			excerpts_windows(c.tl, c.o.region, &es);
			if (!c.o.run_id)
				r->runs = pool_runs(&c, &es, &pool);
		} else {
			excerpts_whole(c.tl, &es);
		}
		r->nchains = chains_of(&c, &pool, &r->chains);
		r->regions = es.n;
		calibrate_set(&c, &es, &r->recorded_il_ns, &r->replay_il_ns, &r->calibration_error);
		if (c.o.region)
			graph_item(&c, r, &es);
		else
			graph_candidates(&c, r);
		fusion_items(&c, r, &es);
	}
	excerpts_free(&es);
	skip_timeline_free(tl);
	pool_free(&pool);
	if (err) {
		skip_advice_free(r);
		return err;
	}
	if (r->nitems)
		qsort(r->items, r->nitems, sizeof(*r->items), cmp_item);
	r->best_plan = sk_pick_plan(r->items, r->nitems, SK_PERSIST_PLAN_MARGIN, &r->plan_note);
	*out = r;
	return 0;
}

int sk_pick_plan(const struct skip_advice *items, size_t n, double margin, char **note)
{
	int other = -1, persist = -1;

	*note = NULL;
	for (size_t i = 0; i < n; i++) {
		int *best = items[i].kind == SKIP_ADVICE_PERSIST ? &persist : &other;

		if (items[i].plan_json && (*best < 0 || items[i].speedup > items[*best].speedup))
			*best = (int)i;
	}
	if (persist < 0)
		return other;
	if (other < 0 || items[persist].speedup > items[other].speedup * (1 + margin))
		return persist;
	if (items[persist].speedup > items[other].speedup)
		*note = sk_xasprintf(
		    "the plan is %s (%.2fx), not persistent (%.2fx): a persistent plan is taken "
		    "only when predicted more than %.0f%% faster than the best other plan (its "
		    "model's error on small DAGs, docs/advise-model.md)",
		    skip_advice_kind_name(items[other].kind), items[other].speedup,
		    items[persist].speedup, margin * 100);
	return other;
}

int skip_predict_graph(const struct skip_timeline *tl, const struct skip_calibration *cal,
		       int profiled, struct skip_graph_prediction *out)
{
	struct sk_ctx c = {.tl = tl};
	struct excerpts es = {0};
	struct sk_xform x = {.kind = SK_X_GRAPH};

	memset(out, 0, sizeof(*out));
	if (cal)
		c.o.cal = *cal;
	set_defaults(&c.o);
	c.o.profiled = profiled;
	if (skip_calibration_check(&c.o.cal))
		return SKIP_E_INVAL;
	if (!has_kernels(tl))
		return sk_fail(SKIP_E_EMPTY, "no kernels");
	sk_calibrate(tl, &c.o.cal, &c.lat);
	if (tl->nwindows)
		excerpts_windows(tl, "", &es);
	else
		excerpts_whole(tl, &es);
	out->regions = es.n;
	calibrate_set(&c, &es, &out->recorded_ns, &out->replay_ns, &out->calibration_error);
	out->baseline_ns = model_set(&c, &es, NULL, profiled, NULL, NULL, NULL);
	out->graph_ns = model_set(&c, &es, &x, profiled, NULL, NULL, NULL);
	out->persist_mode = -1;
	for (int m = 0; m < SKIP_PERSIST_NMODES; m++) {
		struct sk_xform px = {.kind = SK_X_PERSIST, .mode = m};
		double v = model_set(&c, &es, &px, profiled, NULL, NULL, NULL);

		if (v > 0 && (out->persist_mode < 0 || v < out->persist_ns)) {
			out->persist_ns = v;
			out->persist_mode = m;
		}
	}
	excerpts_free(&es);
	return out->graph_ns > 0 ? 0 : sk_fail(SKIP_E_EMPTY, "no region launched anything");
}
