/*
 * load.c: one run into memory. GPU operations (kernels, memcpys, memsets) are read with single
 * scans over the run's rowid range, the launch calls (runtime and driver) likewise, and each
 * operation is joined to its call through a hash on (process, correlation id) - correlation ids
 * are unique within a process only. Host synchronizations (calls that wait for the GPU) are kept
 * as spans for idle attribution. Graph-launched kernels share their graph launch's correlation
 * id; the first of each launch (by start) is marked.
 */
#define SK_LOG_DOMAIN "analyzer"
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct sk_api {
	int64_t start, end;
	uint32_t corr, pid, tid;
	int32_t name;
};

struct api_hash {
	uint64_t *keys; /* (pid << 32 | corr) + 1; 0 = empty */
	uint32_t *vals; /* index into the api array */
	size_t mask;
};

static uint64_t mix(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return k;
}

static void hash_init(struct api_hash *h, size_t n)
{
	size_t cap = 16;

	while (cap < n * 2)
		cap *= 2;
	h->keys = sk_xcalloc(cap, sizeof(uint64_t));
	h->vals = sk_xmalloc(cap * sizeof(uint32_t));
	h->mask = cap - 1;
}

static void hash_put(struct api_hash *h, uint32_t pid, uint32_t corr, uint32_t idx)
{
	uint64_t key = (((uint64_t)pid << 32) | corr) + 1;
	size_t i = mix(key) & h->mask;

	while (h->keys[i] && h->keys[i] != key)
		i = (i + 1) & h->mask;
	h->keys[i] = key;
	h->vals[i] = idx;
}

static int64_t hash_get(const struct api_hash *h, uint32_t pid, uint32_t corr)
{
	uint64_t key = (((uint64_t)pid << 32) | corr) + 1;
	size_t i = mix(key) & h->mask;

	while (h->keys[i]) {
		if (h->keys[i] == key)
			return h->vals[i];
		i = (i + 1) & h->mask;
	}
	return -1;
}

/* "SELECT ... FROM T WHERE rowid BETWEEN lo AND hi AND runId = ?": a run's rows are stored
 * together (skip record merges run by run), so this is one sequential scan. */
sqlite3_stmt *sk_run_scan(struct skip_trace *t, const char *table, const char *cols,
			  int64_t run_id)
{
	char sql[1024];
	sqlite3_stmt *st = NULL;
	int64_t lo, hi;

	snprintf(sql, sizeof(sql), "SELECT min(rowid) FROM %s WHERE runId = %lld", table,
		 (long long)run_id);
	lo = sk_db_int(t->db, 0, sql);
	snprintf(sql, sizeof(sql), "SELECT max(rowid) FROM %s WHERE runId = %lld", table,
		 (long long)run_id);
	hi = sk_db_int(t->db, -1, sql);
	snprintf(sql, sizeof(sql),
		 "SELECT %s FROM %s WHERE rowid BETWEEN %lld AND %lld AND runId = %lld", cols, table,
		 (long long)lo, (long long)hi, (long long)run_id);
	if (sqlite3_prepare_v2(t->db, sql, -1, &st, NULL) != SQLITE_OK) {
		sk_fail(SKIP_E_DB, "%s: %s", t->path, sqlite3_errmsg(t->db));
		return NULL;
	}
	return st;
}

int sk_scan_done(struct skip_trace *t, sqlite3_stmt *st)
{
	int rc = sqlite3_finalize(st);

	if (rc == SQLITE_OK)
		return 0;
	return sk_fail((rc & 0xff) == SQLITE_CORRUPT ? SKIP_E_CORRUPT : SKIP_E_DB,
		       "%s: reading the trace failed: %s", t->path, sqlite3_errstr(rc));
}

static struct sk_op *op_push(struct sk_run *run, size_t *cap)
{
	if (run->nops == *cap) {
		*cap = *cap ? *cap * 2 : 4096;
		run->ops = sk_xrealloc(run->ops, *cap * sizeof(*run->ops));
	}
	memset(&run->ops[run->nops], 0, sizeof(run->ops[0]));
	return &run->ops[run->nops++];
}

static int load_ops(struct skip_trace *t, struct sk_run *run, int kind, size_t *cap)
{
	static const char *const tables[] = { "CUPTI_ACTIVITY_KIND_KERNEL",
					      "CUPTI_ACTIVITY_KIND_MEMCPY",
					      "CUPTI_ACTIVITY_KIND_MEMSET" };
	const char *cols = kind == SK_OP_KERNEL
				   ? "start, end, deviceId, correlationId, globalPid, shortName, "
				     "graphId, submitted"
				   : "start, end, deviceId, correlationId, globalPid, -1, graphId, "
				     "NULL";
	sqlite3_stmt *st = sk_run_scan(t, tables[kind], cols, run->run_id);

	if (!st)
		return SKIP_E_DB;
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct sk_op *op = op_push(run, cap);

		op->start = sqlite3_column_int64(st, 0);
		op->end = sqlite3_column_int64(st, 1);
		op->device = (uint16_t)sqlite3_column_int(st, 2);
		op->corr = (uint32_t)sqlite3_column_int64(st, 3);
		op->pid = (uint32_t)(sqlite3_column_int64(st, 4) >> 24);
		op->name = (int32_t)sqlite3_column_int64(st, 5);
		op->kind = (uint8_t)kind;
		op->launch = op->api_end = op->submit = SK_NONE;
		op->region = -1;
		if (sqlite3_column_type(st, 6) != SQLITE_NULL)
			op->flags |= SK_F_GRAPH;
		if (sqlite3_column_type(st, 7) != SQLITE_NULL) {
			op->submit = sqlite3_column_int64(st, 7);
			op->flags |= SK_F_HW_SUBMIT;
		}
	}
	return sk_scan_done(t, st);
}

/* Calls that make the host wait for the GPU. */
static int is_sync_call(const char *name)
{
	return name && (strstr(name, "Synchronize") ||
			((strncmp(name, "cudaMemcpy", 10) == 0 || strncmp(name, "cuMemcpy", 8) == 0 ||
			  strncmp(name, "cudaMemset", 10) == 0) &&
			 !strstr(name, "Async")));
}

static int load_apis(struct skip_trace *t, struct sk_run *run, struct sk_api **apis, size_t *n)
{
	static const char *const tables[] = { "CUPTI_ACTIVITY_KIND_RUNTIME",
					      "CUPTI_ACTIVITY_KIND_DRIVER" };
	size_t cap = 0, scap = 0;
	int err = 0;

	for (int i = 0; i < 2 && !err; i++) {
		sqlite3_stmt *st = sk_run_scan(t, tables[i],
					    "start, end, correlationId, globalTid, nameId",
					    run->run_id);

		if (!st)
			return SKIP_E_DB;
		while (sqlite3_step(st) == SQLITE_ROW) {
			struct sk_api *a;
			int64_t gtid = sqlite3_column_int64(st, 3);
			int64_t name = sqlite3_column_int64(st, 4);

			if (*n == cap) {
				cap = cap ? cap * 2 : 4096;
				*apis = sk_xrealloc(*apis, cap * sizeof(**apis));
			}
			a = &(*apis)[(*n)++];
			a->start = sqlite3_column_int64(st, 0);
			a->end = sqlite3_column_int64(st, 1);
			a->corr = (uint32_t)sqlite3_column_int64(st, 2);
			a->pid = (uint32_t)(gtid >> 24);
			a->tid = (uint32_t)(gtid & 0xFFFFFF);
			a->name = (int32_t)name;
			if (name > 0 && name < t->nstrings && is_sync_call(t->strings[name])) {
				if (run->nsyncs == scap) {
					scap = scap ? scap * 2 : 256;
					run->syncs = sk_xrealloc(run->syncs,
								 scap * sizeof(*run->syncs));
				}
				run->syncs[run->nsyncs++] = (struct sk_span){ a->start, a->end,
									      a->pid };
			}
		}
		err = sk_scan_done(t, st);
	}
	return err;
}

static int cmp_span_end(const void *a, const void *b)
{
	const struct sk_span *x = a, *y = b;

	return (x->end > y->end) - (x->end < y->end);
}

/* Join every operation to its launch call. */
static void join(struct sk_run *run, const struct sk_api *apis, size_t napis)
{
	struct api_hash h;

	hash_init(&h, napis);
	for (size_t i = 0; i < napis; i++)
		hash_put(&h, apis[i].pid, apis[i].corr, (uint32_t)i);
	for (size_t i = 0; i < run->nops; i++) {
		struct sk_op *op = &run->ops[i];
		int64_t j = hash_get(&h, op->pid, op->corr);

		if (j < 0)
			continue;
		op->flags |= SK_F_API;
		op->launch = apis[j].start;
		op->api_end = apis[j].end;
		op->tid = apis[j].tid;
		if (!(op->flags & SK_F_HW_SUBMIT))
			op->submit = apis[j].end;
	}
	free(h.keys);
	free(h.vals);
}

/* Mark the first kernel (by start) of each graph launch. */
static void mark_graph_firsts(struct sk_run *run)
{
	struct api_hash h;
	size_t n = 0;

	for (size_t i = 0; i < run->nops; i++)
		n += (run->ops[i].flags & SK_F_GRAPH) != 0;
	if (!n)
		return;
	hash_init(&h, n);
	for (size_t i = 0; i < run->nops; i++) {
		struct sk_op *op = &run->ops[i];
		int64_t j;

		if (!(op->flags & SK_F_GRAPH) || op->kind != SK_OP_KERNEL)
			continue;
		j = hash_get(&h, op->pid, op->corr);
		if (j < 0 || op->start < run->ops[j].start)
			hash_put(&h, op->pid, op->corr, (uint32_t)i);
	}
	for (size_t i = 0; i <= h.mask; i++)
		if (h.keys[i])
			run->ops[h.vals[i]].flags |= SK_F_GRAPH_FIRST;
	free(h.keys);
	free(h.vals);
}

int sk_run_load(struct skip_trace *t, int64_t run_id, struct sk_run *run)
{
	struct sk_api *apis = NULL;
	size_t napis = 0, cap = 0;
	int err;

	memset(run, 0, sizeof(*run));
	run->run_id = run_id;
	err = load_ops(t, run, SK_OP_KERNEL, &cap);
	if (!err)
		err = load_ops(t, run, SK_OP_MEMCPY, &cap);
	if (!err)
		err = load_ops(t, run, SK_OP_MEMSET, &cap);
	if (!err)
		err = load_apis(t, run, &apis, &napis);
	if (!err) {
		join(run, apis, napis);
		mark_graph_firsts(run);
		qsort(run->syncs, run->nsyncs, sizeof(*run->syncs), cmp_span_end);
	}
	free(apis);
	if (err)
		sk_run_free(run);
	return err;
}

void sk_run_free(struct sk_run *run)
{
	free(run->ops);
	free(run->syncs);
	free(run->ranges);
	memset(run, 0, sizeof(*run));
}
