/*
 * timeline.c: one run as a public timeline (skip_analyzer.h), for the advisor: the operations
 * in launch order with their launch calls, the host synchronizations, and the occurrences of a
 * region. It reuses the report's loader; only the order and the layout are its own.
 */
#define SK_LOG_DOMAIN "analyzer"
#include <stdlib.h>
#include <string.h>

#include "internal.h"

const char *skip_trace_string(const struct skip_trace *t, int64_t id)
{
	return id >= 0 && id < t->nstrings && t->strings[id] ? t->strings[id] : "";
}

const char *skip_trace_operator(const struct skip_trace *t, uint32_t stack)
{
	if (!stack || stack >= t->stacks.n)
		return "";
	return t->texts.s[t->stacks.nodes[stack].text];
}

size_t skip_trace_repeated_ranges(struct skip_trace *t, int64_t run_id, int min_count, size_t max,
				  char ***names)
{
	sqlite3_stmt *st = NULL;
	size_t n = 0;

	*names = sk_xcalloc(max + 1, sizeof(char *));
	if (sqlite3_prepare_v2(
		t->db,
		"SELECT text FROM NVTX_EVENTS WHERE runId = ? AND eventType IN (59, 60) "
		"AND text IS NOT NULL AND text != '' GROUP BY text HAVING count(*) >= ? "
		"ORDER BY sum(coalesce(end - start, 0)) DESC, count(*) DESC, text LIMIT ?",
		-1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int(st, 2, min_count);
	sqlite3_bind_int64(st, 3, (int64_t)max);
	while (n < max && sqlite3_step(st) == SQLITE_ROW)
		(*names)[n++] = sk_xstrdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return n;
}

int64_t skip_trace_runs(struct skip_trace *t, int64_t **ids)
{
	return sk_trace_run_ids(t, ids);
}

int64_t skip_trace_repeats(struct skip_trace *t, int64_t run_id, int64_t **ids)
{
	/* Runs of the same kind only: a baseline run is no repetition of a full one. */
	static const char q3[] =
	    "WITH p AS (SELECT r.runId AS id, r.commandLine AS cmd, r.kind AS kind, (SELECT "
	    "group_concat(x, char(31)) FROM (SELECT s.name || '=' || s.value AS x FROM "
	    "SKIP_PARAMETERS s WHERE s.runId = r.runId ORDER BY s.name)) AS params FROM SKIP_RUNS "
	    "r) SELECT b.id FROM p a JOIN p b ON b.cmd = a.cmd AND b.params IS a.params AND "
	    "b.kind = a.kind WHERE a.id = ?1 ORDER BY b.id";
	static const char q2[] =
	    "WITH p AS (SELECT r.runId AS id, r.commandLine AS cmd, (SELECT group_concat(x, "
	    "char(31)) FROM (SELECT s.name || '=' || s.value AS x FROM SKIP_PARAMETERS s WHERE "
	    "s.runId = r.runId ORDER BY s.name)) AS params FROM SKIP_RUNS r) "
	    "SELECT b.id FROM p a JOIN p b ON b.cmd = a.cmd AND b.params IS a.params "
	    "WHERE a.id = ?1 ORDER BY b.id";
	sqlite3_stmt *st = NULL;
	size_t n = 0, cap = 0;

	*ids = NULL;
	SK_VEC_XRESERVE(*ids, cap, 1); /* never NULL, even for no runs */
	if (sqlite3_prepare_v2(t->db, t->has_kind ? q3 : q2, -1, &st, NULL) != SQLITE_OK) {
		(*ids)[0] = run_id; /* a trace without SKIP_RUNS or SKIP_PARAMETERS */
		return 1;
	}
	sqlite3_bind_int64(st, 1, run_id);
	while (sqlite3_step(st) == SQLITE_ROW)
		SK_VEC_XPUSH(*ids, n, cap, sqlite3_column_int64(st, 0));
	sqlite3_finalize(st);
	return n;
}

static void copy_op(const struct sk_rec *o, struct skip_op *p)
{
	p->start = o->start;
	p->end = o->end;
	p->launch = o->launch;
	p->api_end = o->api_end;
	p->submit = o->submit;
	p->pid = o->pid;
	p->tid = o->tid;
	p->corr = o->corr;
	p->stream = o->stream;
	p->name = o->name;
	p->fullname = o->fullname;
	p->blocks = o->blocks;
	p->per_sm = o->per_sm;
	p->stack = o->stack;
	p->window = o->region;
	p->device = o->device;
	p->kind = o->kind;
	p->attr = o->attr;
	p->driver = (o->flags & SK_F_DRIVER) != 0;
	p->graph = (o->flags & SK_F_GRAPH) ? ((o->flags & SK_F_GRAPH_FIRST) ? 2 : 1) : 0;
}

/* Marks each kernel's first launch call in its process (skip_op.first). */
static void mark_first_launches(struct skip_timeline *tl)
{
	struct sk_hash seen = {0}; /* (process, kernel) + 1 */

	for (size_t i = 0; i < tl->nops; i++) {
		struct skip_op *op = &tl->ops[i];
		int32_t id = op->fullname >= 0 ? op->fullname : op->name;
		uint64_t key = (((uint64_t)op->pid << 32) | (uint32_t)id) + 1;

		if (op->kind != SKIP_OP_KERNEL || op->launch == INT64_MIN || op->graph ||
		    sk_hash_get(&seen, key))
			continue;
		op->first = 1;
		sk_hash_xreserve(&seen, 1);
		sk_hash_add(&seen, key, 1); /* cannot fail: room reserved, key not 0 */
	}
	sk_hash_fini(&seen);
}

/* The operations in launch order: by launch call start (then correlation id, then GPU start);
 * those with no launch call by their GPU start. */
static void order_ops(const struct sk_loaded_run *run, struct skip_timeline *tl)
{
	uint64_t *keys = sk_xmalloc((run->nops + 1) * sizeof(uint64_t));
	uint32_t *idx = sk_xmalloc((run->nops + 1) * sizeof(uint32_t));
	int64_t lo = INT64_MAX;

	for (size_t i = 0; i < run->nops; i++) {
		const struct sk_rec *o = &run->ops[i];
		int64_t k = (o->flags & SK_F_API) ? o->launch : o->start;

		lo = k < lo ? k : lo;
	}
	for (size_t i = 0; i < run->nops; i++) {
		const struct sk_rec *o = &run->ops[i];
		int64_t k = (o->flags & SK_F_API) ? o->launch : o->start;

		keys[i] = (uint64_t)(k - lo);
		idx[i] = (uint32_t)i;
	}
	/* Stable: equal launch starts (one graph launch) keep the loader's order; a second pass
	 * on the GPU start first would be needed for a strict tie order, which nothing uses. */
	sk_radix_sort(keys, idx, run->nops);
	tl->ops = sk_xcalloc(run->nops + 1, sizeof(*tl->ops));
	for (size_t i = 0; i < run->nops; i++)
		copy_op(&run->ops[idx[i]], &tl->ops[i]);
	tl->nops = run->nops;
	free(keys);
	free(idx);
	mark_first_launches(tl);
}

static int cmp_sync_start(const void *a, const void *b)
{
	const struct skip_sync *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

int skip_timeline_load(struct skip_trace *t, int64_t run_id, const char *region,
		       struct skip_timeline **out)
{
	struct skip_timeline *tl;
	struct sk_range *win = NULL;
	struct sk_loaded_run run;
	int64_t sms;
	int err;

	*out = NULL;
	err = sk_run_load(t, run_id, 1, &run);
	if (err)
		return err;
	sk_run_operators(t, &run);
	tl = sk_xcalloc(1, sizeof(*tl));
	tl->run_id = run_id;
	tl->t0 = run.t0;
	tl->malformed = run.bad;
	if (region) {
		uint32_t text = (uint32_t)sk_strtab_find(&t->texts, region);

		tl->nwindows = text ? sk_run_regions(&run, text, &win) : 0;
		tl->windows = sk_xcalloc(tl->nwindows + 1, sizeof(*tl->windows));
		for (size_t i = 0; i < tl->nwindows; i++)
			tl->windows[i] =
			    (struct skip_window){win[i].start, win[i].end, win[i].pid, win[i].tid};
		free(win);
	}
	order_ops(&run, tl);
	tl->syncs = sk_xcalloc(run.nsyncs + 1, sizeof(*tl->syncs));
	for (size_t i = 0; i < run.nsyncs; i++)
		tl->syncs[i] = (struct skip_sync){run.syncs[i].start, run.syncs[i].end,
						  run.syncs[i].pid, run.syncs[i].tid};
	tl->nsyncs = run.nsyncs;
	tl->napi_calls = run.napi_calls;
	if (tl->nsyncs)
		qsort(tl->syncs, tl->nsyncs, sizeof(*tl->syncs), cmp_sync_start);
	sms = sk_db_int(t->db, 0, "SELECT smCount FROM TARGET_INFO_GPU ORDER BY id LIMIT 1");
	tl->sm_count = sms > 0 && sms <= SKIP_MAX_SMS ? (int)sms : 0;
	sk_run_free(&run);
	*out = tl;
	return 0;
}

void skip_timeline_free(struct skip_timeline *tl)
{
	if (!tl)
		return;
	free(tl->ops);
	free(tl->syncs);
	free(tl->windows);
	free(tl);
}
