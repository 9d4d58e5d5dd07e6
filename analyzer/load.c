/*
 * load.c: one run into memory. GPU operations (kernels, memcpys, memsets) are read with single
 * scans over the run's rowid range, the launch calls (runtime and driver) likewise, and each
 * operation is joined to its call through a hash on (process, correlation id) - correlation ids
 * are unique within a process only. Host synchronizations (calls that wait for the GPU) are kept
 * as spans for idle attribution. Graph-launched kernels share their graph launch's correlation
 * id; the first of each launch (by start) is marked.
 */
#define SK_LOG_DOMAIN "analyzer"
#include <pthread.h>
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

static const char *sql_minmax(char *buf, size_t n, const char *fn, const char *table)
{
	snprintf(buf, n, "SELECT %s(rowid) FROM %s", fn, table);
	return buf;
}

/* The first rowid at or after @rowid, and its runId: 1 found, 0 none, -1 a read error. */
static int row_at(sqlite3 *db, const char *table, int64_t rowid, int64_t *found, int64_t *run)
{
	char sql[256];
	sqlite3_stmt *st = NULL;
	int rc;

	snprintf(sql, sizeof(sql), "SELECT rowid, runId FROM %s WHERE rowid >= %lld LIMIT 1", table,
		 (long long)rowid);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*found = sqlite3_column_int64(st, 0);
		*run = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

/* The first rowid whose runId is >= @run, by binary search over rowids: skip record writes the
 * runs one after the other, so runIds never decrease in rowid order. INT64_MAX when there is
 * none; -1 on a read error. */
static int64_t first_rowid(sqlite3 *db, const char *table, int64_t run, int64_t lo, int64_t hi)
{
	int64_t found = 0, r = 0;
	int rc;

	while (lo < hi) {
		int64_t mid = lo + (hi - lo) / 2;

		rc = row_at(db, table, mid, &found, &r);
		if (rc < 0)
			return -1;
		if (!rc || r >= run)
			hi = mid;
		else
			lo = found + 1;
	}
	rc = row_at(db, table, lo, &found, &r);
	return rc < 0 ? -1 : rc && r >= run ? found : INT64_MAX;
}

/*
 * "SELECT @cols FROM @table" for one run, as one sequential scan. With one run in the file, the
 * whole table (the unary + keeps SQLite off the (runId, ...) indexes, which would turn the scan
 * into random lookups). With several, the run's rowid range, found by binary search.
 */
static sqlite3_stmt *scan_db(struct skip_trace *t, sqlite3 *db, const char *table,
			     const char *cols, int64_t run_id, size_t *estimate)
{
	char sql[1024];
	sqlite3_stmt *st = NULL;

	*estimate = 0;
	if (t->nruns <= 1) {
		int64_t lo = sk_db_int(db, 0, sql_minmax(sql, sizeof(sql), "min", table));
		int64_t hi = sk_db_int(db, -1, sql_minmax(sql, sizeof(sql), "max", table));

		*estimate = hi >= lo ? (size_t)(hi - lo + 1) : 0;
		snprintf(sql, sizeof(sql), "SELECT %s FROM %s WHERE +runId = %lld", cols, table,
			 (long long)run_id);
	} else {
		int64_t lo = sk_db_int(db, 0, sql_minmax(sql, sizeof(sql), "min", table));
		int64_t hi = sk_db_int(db, -1, sql_minmax(sql, sizeof(sql), "max", table));
		int64_t b = first_rowid(db, table, run_id, lo, hi + 1);
		int64_t e = first_rowid(db, table, run_id + 1, lo, hi + 1);

		if (b < 0 || e < 0) {
			sk_fail(SKIP_E_CORRUPT, "%s: reading %s failed: %s", t->path, table,
				sqlite3_errmsg(db));
			return NULL;
		}
		*estimate = e > b && e != INT64_MAX ? (size_t)(e - b) : 0;
		snprintf(sql, sizeof(sql),
			 "SELECT %s FROM %s WHERE rowid >= %lld AND rowid < %lld AND +runId = %lld",
			 cols, table, (long long)b, (long long)e, (long long)run_id);
	}
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		sk_fail(SKIP_E_DB, "%s: %s", t->path, sqlite3_errmsg(db));
		return NULL;
	}
	return st;
}

sqlite3_stmt *sk_run_scan(struct skip_trace *t, const char *table, const char *cols,
			  int64_t run_id)
{
	size_t estimate;

	return scan_db(t, t->db, table, cols, run_id, &estimate);
}

int sk_scan_done(struct skip_trace *t, sqlite3_stmt *st)
{
	int rc = sqlite3_finalize(st);

	if (rc == SQLITE_OK)
		return 0;
	return sk_fail((rc & 0xff) == SQLITE_CORRUPT || (rc & 0xff) == SQLITE_NOTADB
			       ? SKIP_E_CORRUPT
			       : SKIP_E_DB,
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

/* Blocks of a kernel resident on one multiprocessor at once: the least of the hardware's 32,
 * 2,048 threads, 65,536 registers and 228 KiB of shared memory per SM (Hopper; register and
 * shared-memory allocation granularity ignored). */
#define SK_BLOCKS_PER_SM                                                                           \
	"MAX(1, MIN(32, 2048 / MAX(1, blockX * blockY * blockZ), "                                 \
	"65536 / MAX(1, registersPerThread * blockX * blockY * blockZ), "                          \
	"CASE WHEN staticSharedMemory + dynamicSharedMemory > 0 "                                   \
	"THEN 233472 / (staticSharedMemory + dynamicSharedMemory) ELSE 32 END))"

static int load_ops(struct skip_trace *t, struct sk_run *run, int kind, int detail, size_t *cap)
{
	static const char *const tables[] = { "CUPTI_ACTIVITY_KIND_KERNEL",
					      "CUPTI_ACTIVITY_KIND_MEMCPY",
					      "CUPTI_ACTIVITY_KIND_MEMSET" };
	/* The last three columns only for the timeline (the advisor): reading them costs a
	 * fifth of a 10-million-kernel report's time. */
	const char *cols = kind != SK_OP_KERNEL
				   ? "start, end, deviceId, correlationId, globalPid, -1, graphId, "
				     "NULL, streamId, -1, 0, 0"
			   : detail ? "start, end, deviceId, correlationId, globalPid, shortName, "
				      "graphId, submitted, streamId, demangledName, "
				      "gridX * gridY * gridZ, " SK_BLOCKS_PER_SM
				    : "start, end, deviceId, correlationId, globalPid, shortName, "
				      "graphId, submitted";
	int wide = kind != SK_OP_KERNEL || detail;
	size_t estimate;
	sqlite3_stmt *st = scan_db(t, t->db, tables[kind], cols, run->run_id, &estimate);

	if (!st)
		return SKIP_E_DB;
	if (run->nops + estimate > *cap) { /* one allocation for the whole table */
		*cap = run->nops + estimate;
		run->ops = sk_xrealloc(run->ops, *cap * sizeof(*run->ops));
	}
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
		op->fullname = -1;
		if (wide) {
			op->stream = (uint32_t)sqlite3_column_int64(st, 8);
			op->fullname = (int32_t)sqlite3_column_int64(st, 9);
			op->blocks = (uint32_t)sqlite3_column_int64(st, 10);
			op->per_sm = (uint8_t)sqlite3_column_int(st, 11);
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

/* Reading the launch calls: on its own thread and SQLite connection while the main thread
 * reads the GPU operations (the two scans are most of a report's time). */
struct api_job {
	struct skip_trace *t; /* read-only here: path, strings, nruns */
	sqlite3 *db;
	int64_t run_id;
	struct sk_api *apis;
	size_t n;
	size_t nruntime; /* apis[0 .. nruntime) are runtime calls, the rest driver calls */
	struct sk_span *syncs;
	size_t nsyncs;
	int err;
	char errmsg[512]; /* skip_errmsg() is per thread: carried back by hand */
};

static void add_sync(struct api_job *j, const struct sk_api *a, size_t *cap)
{
	if (j->nsyncs == *cap) {
		*cap = *cap ? *cap * 2 : 256;
		j->syncs = sk_xrealloc(j->syncs, *cap * sizeof(*j->syncs));
	}
	j->syncs[j->nsyncs++] = (struct sk_span){ a->start, a->end, a->pid, a->tid };
}

static int load_api_table(struct api_job *j, const char *table, size_t *cap, size_t *scap)
{
	size_t estimate;
	sqlite3_stmt *st = scan_db(j->t, j->db, table,
				   "start, end, correlationId, globalTid, nameId", j->run_id,
				   &estimate);

	if (!st)
		return SKIP_E_DB;
	if (j->n + estimate > *cap) {
		*cap = j->n + estimate;
		j->apis = sk_xrealloc(j->apis, *cap * sizeof(*j->apis));
	}
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct sk_api *a;
		int64_t gtid = sqlite3_column_int64(st, 3);
		int64_t name = sqlite3_column_int64(st, 4);

		if (j->n == *cap) {
			*cap = *cap ? *cap * 2 : 4096;
			j->apis = sk_xrealloc(j->apis, *cap * sizeof(*j->apis));
		}
		a = &j->apis[j->n++];
		a->start = sqlite3_column_int64(st, 0);
		a->end = sqlite3_column_int64(st, 1);
		a->corr = (uint32_t)sqlite3_column_int64(st, 2);
		a->pid = (uint32_t)(gtid >> 24);
		a->tid = (uint32_t)(gtid & 0xFFFFFF);
		a->name = (int32_t)name;
		if (name > 0 && name < j->t->nstrings && is_sync_call(j->t->strings[name]))
			add_sync(j, a, scap);
	}
	return sk_scan_done(j->t, st);
}

static void *load_apis(void *arg)
{
	struct api_job *j = arg;
	size_t cap = 0, scap = 0;

	j->err = load_api_table(j, "CUPTI_ACTIVITY_KIND_RUNTIME", &cap, &scap);
	j->nruntime = j->n;
	if (!j->err)
		j->err = load_api_table(j, "CUPTI_ACTIVITY_KIND_DRIVER", &cap, &scap);
	if (j->err)
		snprintf(j->errmsg, sizeof(j->errmsg), "%s", skip_errmsg());
	return NULL;
}

static int cmp_span_end(const void *a, const void *b)
{
	const struct sk_span *x = a, *y = b;

	return (x->end > y->end) - (x->end < y->end);
}

static void link_op(struct sk_op *op, const struct sk_api *a, int driver)
{
	op->flags |= SK_F_API | (driver ? SK_F_DRIVER : 0);
	op->launch = a->start;
	op->api_end = a->end;
	op->tid = a->tid;
	if (!(op->flags & SK_F_HW_SUBMIT))
		op->submit = a->end;
}

/* Join through a hash on (process, correlation id): the general case. */
static void join_hash(struct sk_run *run, const struct sk_api *apis, size_t napis, size_t nrt)
{
	struct api_hash h;

	hash_init(&h, napis);
	for (size_t i = 0; i < napis; i++)
		hash_put(&h, apis[i].pid, apis[i].corr, (uint32_t)i);
	for (size_t i = 0; i < run->nops; i++) {
		int64_t j = hash_get(&h, run->ops[i].pid, run->ops[i].corr);

		if (j >= 0)
			link_op(&run->ops[i], &apis[j], (size_t)j >= nrt);
	}
	free(h.keys);
	free(h.vals);
}

/*
 * Join every operation to its launch call. CUPTI numbers correlation ids densely per process,
 * so with one process (the common case) a table indexed by correlation id does it with 4
 * bytes per id instead of a hash; several processes, or sparse ids, take the hash.
 */
static void join(struct sk_run *run, const struct sk_api *apis, size_t napis, size_t nrt)
{
	uint32_t lo = UINT32_MAX, hi = 0, *table;
	int one_pid = 1;

	for (size_t i = 0; i < napis; i++) {
		one_pid &= apis[i].pid == apis[0].pid;
		lo = apis[i].corr < lo ? apis[i].corr : lo;
		hi = apis[i].corr > hi ? apis[i].corr : hi;
	}
	if (!napis)
		return;
	if (!one_pid || (uint64_t)(hi - lo) > 4 * (uint64_t)napis + 4096) {
		join_hash(run, apis, napis, nrt);
		return;
	}
	table = sk_xcalloc((size_t)(hi - lo) + 1, sizeof(uint32_t));
	for (size_t i = 0; i < napis; i++)
		table[apis[i].corr - lo] = (uint32_t)i + 1;
	for (size_t i = 0; i < run->nops; i++) {
		struct sk_op *op = &run->ops[i];

		if (op->pid == apis[0].pid && op->corr >= lo && op->corr <= hi &&
		    table[op->corr - lo])
			link_op(op, &apis[table[op->corr - lo] - 1], table[op->corr - lo] - 1 >= nrt);
	}
	free(table);
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

int sk_run_load(struct skip_trace *t, int64_t run_id, int detail, struct sk_run *run)
{
	struct api_job job = { .t = t, .run_id = run_id };
	pthread_t th;
	int threaded = 0, err;
	size_t cap = 0;

	memset(run, 0, sizeof(*run));
	run->run_id = run_id;
	/* A second read-only connection lets the launch calls load in parallel. */
	if (sqlite3_open_v2(t->path, &job.db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) ==
		    SQLITE_OK &&
	    pthread_create(&th, NULL, load_apis, &job) == 0) {
		threaded = 1;
	} else {
		sqlite3_close(job.db);
		job.db = t->db;
	}
	err = load_ops(t, run, SK_OP_KERNEL, detail, &cap);
	if (!err)
		err = load_ops(t, run, SK_OP_MEMCPY, detail, &cap);
	if (!err)
		err = load_ops(t, run, SK_OP_MEMSET, detail, &cap);
	sk_dbg(2, "run %lld: %zu operations read", (long long)run_id, run->nops);
	if (threaded) {
		pthread_join(th, NULL);
		sqlite3_close(job.db);
	} else {
		load_apis(&job);
	}
	if (!err && job.err)
		err = sk_fail(job.err, "%s", job.errmsg);
	sk_dbg(2, "run %lld: %zu launch calls read", (long long)run_id, job.n);
	run->syncs = job.syncs;
	run->nsyncs = job.nsyncs;
	if (!err) {
		join(run, job.apis, job.n, job.nruntime);
		mark_graph_firsts(run);
		if (run->nsyncs)
			qsort(run->syncs, run->nsyncs, sizeof(*run->syncs), cmp_span_end);
	}
	free(job.apis);
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
