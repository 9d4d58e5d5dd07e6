/*
 * load.c: one run into memory. GPU operations (kernels, memcpys, memsets) are read with single
 * scans over the run's rowid range, the launch calls (runtime and driver, together in
 * CUPTI_ACTIVITY_KIND_RUNTIME; a version 1 file keeps the driver calls in
 * CUPTI_ACTIVITY_KIND_DRIVER, read too when it is there) and the NVTX ranges likewise, and each
 * operation is joined to its call through a hash on (process, correlation id) - correlation ids are
 * unique within a process only. Host synchronizations (calls that wait for the GPU) are kept as
 * spans for idle attribution. Graph-launched kernels share their graph launch's correlation id; the
 * first of each launch (by start) is marked.
 *
 * Every record is checked here, once, as it is read (docs/trace-format.md "Well-formed
 * records"): a malformed one is counted by table and reason and left out, so the metrics and
 * the advisor's models only ever see times in [0, SKIP_TIME_MAX) with end >= start and ids in
 * the ranges their fields hold.
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
	int driver; /* a driver API call (eventClass 1, or a version 1 DRIVER row) */
};

/* The key of a launch in a join table: (process, correlation id), + 1 so it is never 0. */
static uint64_t launch_key(uint32_t pid, uint32_t corr)
{
	return (((uint64_t)pid << 32) | corr) + 1;
}

/* The run's rows, and the malformed ones that belong to no run. */
#define RUN_WHERE "(+runId = %lld OR typeof(runId) != 'integer')"

/* ---- well-formed records (docs/trace-format.md) ---------------------------------------------- */

#define SK_GLOBAL_ID_MAX (((int64_t)1 << 56) - 1) /* globalPid, globalTid: (pid << 24) | tid */

static const char *const table_names[SKIP_TABLE_COUNT] = {
    [SKIP_TABLE_KERNEL] = "CUPTI_ACTIVITY_KIND_KERNEL",
    [SKIP_TABLE_MEMCPY] = "CUPTI_ACTIVITY_KIND_MEMCPY",
    [SKIP_TABLE_MEMSET] = "CUPTI_ACTIVITY_KIND_MEMSET",
    [SKIP_TABLE_RUNTIME] = "CUPTI_ACTIVITY_KIND_RUNTIME",
    [SKIP_TABLE_DRIVER] = "CUPTI_ACTIVITY_KIND_DRIVER",
    [SKIP_TABLE_NVTX] = "NVTX_EVENTS",
};

static const struct {
	const char *name, *text;
} bad_info[SKIP_BAD_COUNT] = {
    [SKIP_BAD_RUN_ID] = {"run_id", "runId not an integer"},
    [SKIP_BAD_TIME] = {"time_out_of_range", "time not in [0, 2^62) ns"},
    [SKIP_BAD_ORDER] = {"end_before_start", "end before start"},
    [SKIP_BAD_ID] = {"id_out_of_range", "id out of range"},
};

const char *skip_table_name(enum skip_table t)
{
	return (unsigned)t < SKIP_TABLE_COUNT ? table_names[t] : "?";
}

const char *skip_bad_name(enum skip_bad b)
{
	return (unsigned)b < SKIP_BAD_COUNT ? bad_info[b].name : "?";
}

const char *skip_bad_text(enum skip_bad b)
{
	return (unsigned)b < SKIP_BAD_COUNT ? bad_info[b].text : "?";
}

void skip_malformed_print(FILE *out, const struct skip_malformed *m)
{
	const char *sep = "";

	if (!m->total)
		return;
	fprintf(out,
		"left out %lld malformed record%s (docs/trace-format.md): ", (long long)m->total,
		m->total == 1 ? "" : "s");
	for (int t = 0; t < SKIP_TABLE_COUNT; t++)
		for (int b = 0; b < SKIP_BAD_COUNT; b++) {
			if (!m->count[t][b])
				continue;
			fprintf(out, "%s%lld %s (%s)", sep, (long long)m->count[t][b],
				table_names[t], bad_info[b].text);
			sep = ", ";
		}
	fputc('\n', out);
}

/* Column @col is an integer in [lo, hi]. */
static int int_in(sqlite3_stmt *st, int col, int64_t lo, int64_t hi)
{
	int64_t v;

	if (sqlite3_column_type(st, col) != SQLITE_INTEGER)
		return 0;
	v = sqlite3_column_int64(st, col);
	return v >= lo && v <= hi;
}

/* Column @col is a timestamp the metrics can take differences and sums of. */
static int time_ok(sqlite3_stmt *st, int col)
{
	return int_in(st, col, 0, SKIP_TIME_MAX - 1);
}

/*
 * Why the record in the row @st is malformed, or -1: columns @c[0] runId, @c[1] start, @c[2] end
 * (NULL allowed when @open_end), then @nids id columns with their upper bounds @max (lower bound
 * 0); @c_opt_time, when >= 0, an optional timestamp column (NULL or well-formed).
 */
static int check_row(sqlite3_stmt *st, const int *c, int open_end, const int *ids,
		     const int64_t *max, int nids, int c_opt_time)
{
	int has_end = !(open_end && sqlite3_column_type(st, c[2]) == SQLITE_NULL);

	if (sqlite3_column_type(st, c[0]) != SQLITE_INTEGER)
		return SKIP_BAD_RUN_ID;
	if (!time_ok(st, c[1]) || (has_end && !time_ok(st, c[2])) ||
	    (c_opt_time >= 0 && sqlite3_column_type(st, c_opt_time) != SQLITE_NULL &&
	     !time_ok(st, c_opt_time)))
		return SKIP_BAD_TIME;
	if (has_end && sqlite3_column_int64(st, c[2]) < sqlite3_column_int64(st, c[1]))
		return SKIP_BAD_ORDER;
	for (int i = 0; i < nids; i++)
		if (!int_in(st, ids[i], 0, max[i]))
			return SKIP_BAD_ID;
	return -1;
}

static void count_bad(struct skip_malformed *m, enum skip_table table, int why)
{
	m->count[table][why]++;
	m->total++;
}

void sk_malformed_add(struct skip_malformed *to, const struct skip_malformed *from)
{
	for (int t = 0; t < SKIP_TABLE_COUNT; t++)
		for (int b = 0; b < SKIP_BAD_COUNT; b++)
			to->count[t][b] += from->count[t][b];
	to->total += from->total;
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

	snprintf(sql, sizeof(sql),
		 "SELECT rowid, runId FROM %s WHERE rowid >= %lld AND typeof(runId) = 'integer' "
		 "LIMIT 1",
		 table, (long long)rowid);
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
 * runs one after the other, so runIds never decrease in rowid order (rows whose runId is not an
 * integer are malformed: the search steps over them, the scan of the run they lie in counts
 * them). INT64_MAX when there is none; -1 on a read error. */
static int64_t first_rowid(sqlite3 *db, const char *table, int64_t run, int64_t lo, int64_t hi)
{
	int64_t found = 0, r = 0;
	int rc;

	/* 64 halvings cover any rowid range; a damaged B-tree can answer a seek with a row before
	 * it, so each step moves past mid whatever it answers, and the search has a bound. */
	for (int steps = 0; lo < hi; steps++) {
		int64_t mid = lo + (hi - lo) / 2;

		if (steps > 130)
			return -1;
		rc = row_at(db, table, mid, &found, &r);
		if (rc < 0)
			return -1;
		if (!rc || r >= run)
			hi = mid;
		else if ((found > mid ? found : mid) == INT64_MAX)
			return INT64_MAX;
		else
			lo = (found > mid ? found : mid) + 1;
	}
	rc = row_at(db, table, lo, &found, &r);
	return rc < 0 ? -1 : rc && r >= run ? found : INT64_MAX;
}

/*
 * "SELECT @cols FROM @table" for one run, as one sequential scan. With one run in the file, the
 * whole table (the unary + keeps SQLite off the (runId, ...) indexes, which would turn the scan
 * into random lookups). With several, the run's rowid range, found by binary search. The rows
 * whose runId is not an integer come too, for the caller to count as malformed (RUN_WHERE).
 */
static sqlite3_stmt *scan_db(struct skip_trace *t, sqlite3 *db, const char *table, const char *cols,
			     int64_t run_id, size_t *estimate)
{
	char sql[1024];
	sqlite3_stmt *st = NULL;

	*estimate = 0;
	if (t->nruns <= 1) {
		int64_t lo = sk_db_int(db, 0, sql_minmax(sql, sizeof(sql), "min", table));
		int64_t hi = sk_db_int(db, -1, sql_minmax(sql, sizeof(sql), "max", table));

		*estimate = hi >= lo ? (size_t)(hi - lo + 1) : 0;
		snprintf(sql, sizeof(sql), "SELECT %s FROM %s WHERE " RUN_WHERE, cols, table,
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
			 "SELECT %s FROM %s WHERE rowid >= %lld AND rowid < %lld AND " RUN_WHERE,
			 cols, table, (long long)b, (long long)e, (long long)run_id);
	}
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		sk_fail(SKIP_E_DB, "%s: %s", t->path, sqlite3_errmsg(db));
		return NULL;
	}
	return st;
}

sqlite3_stmt *sk_run_scan(struct skip_trace *t, const char *table, const char *cols, int64_t run_id)
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

static struct sk_rec *op_push(struct sk_loaded_run *run, size_t *cap)
{
	SK_VEC_XRESERVE(run->ops, *cap, run->nops + 1);
	memset(&run->ops[run->nops], 0, sizeof(run->ops[0]));
	return &run->ops[run->nops++];
}

/* Blocks of a kernel resident on one multiprocessor at once: the least of the hardware's 32,
 * 2,048 threads, 65,536 registers and 228 KiB of shared memory per SM (Hopper; register and
 * shared-memory allocation granularity ignored). */
#define SK_BLOCKS_PER_SM                                                                           \
	"MAX(1, MIN(32, 2048 / MAX(1, blockX * blockY * blockZ), "                                 \
	"65536 / MAX(1, registersPerThread * blockX * blockY * blockZ), "                          \
	"CASE WHEN staticSharedMemory + dynamicSharedMemory > 0 "                                  \
	"THEN 233472 / (staticSharedMemory + dynamicSharedMemory) ELSE 32 END))"

static int load_ops(struct skip_trace *t, struct sk_loaded_run *run, int kind, int detail,
		    size_t *cap)
{
	static const char *const tables[] = {"CUPTI_ACTIVITY_KIND_KERNEL",
					     "CUPTI_ACTIVITY_KIND_MEMCPY",
					     "CUPTI_ACTIVITY_KIND_MEMSET"};
	static const enum skip_table table_ids[] = {SKIP_TABLE_KERNEL, SKIP_TABLE_MEMCPY,
						    SKIP_TABLE_MEMSET};
	/* The columns after submitted only for the timeline (the advisor): reading them costs a
	 * fifth of a 10-million-kernel report's time. runId comes last. */
	const char *cols = kind != SKIP_OP_KERNEL
			       ? "start, end, deviceId, correlationId, globalPid, -1, graphId, "
				 "NULL, streamId, -1, MIN(MAX(bytes, 0), 4294967295), 0, runId"
			   : detail ? "start, end, deviceId, correlationId, globalPid, shortName, "
				      "graphId, submitted, streamId, demangledName, "
				      "gridX * gridY * gridZ, " SK_BLOCKS_PER_SM ", runId"
				    : "start, end, deviceId, correlationId, globalPid, shortName, "
				      "graphId, submitted, runId";
	int wide = kind != SKIP_OP_KERNEL || detail;
	/* runId, start, end; deviceId (uint16_t), correlationId (uint32_t), globalPid */
	const int c[] = {wide ? 12 : 8, 0, 1}, ids[] = {2, 3, 4};
	static const int64_t max[] = {UINT16_MAX, UINT32_MAX, SK_GLOBAL_ID_MAX};
	size_t estimate;
	sqlite3_stmt *st = scan_db(t, t->db, tables[kind], cols, run->run_id, &estimate);

	if (!st)
		return SKIP_E_DB;
	if (run->nops + estimate > *cap) { /* one allocation for the whole table */
		*cap = run->nops + estimate;
		run->ops = sk_xrealloc(run->ops, *cap * sizeof(*run->ops));
	}
	while (sqlite3_step(st) == SQLITE_ROW) {
		int why = check_row(st, c, 0, ids, max, 3, kind == SKIP_OP_KERNEL ? 7 : -1);
		struct sk_rec *op;

		if (why >= 0) {
			count_bad(&run->bad, table_ids[kind], why);
			continue;
		}
		op = op_push(run, cap);
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

/* The run's NVTX ranges (push/pop and start/end; marks and domain names are not read). */
static int load_ranges(struct skip_trace *t, struct sk_loaded_run *run)
{
	/* runId, start, end (NULL: never closed); globalTid */
	static const int c[] = {5, 0, 1}, ids[] = {2};
	static const int64_t max[] = {SK_GLOBAL_ID_MAX};
	const char *cols = "start, end, globalTid, text, eventType, runId";
	sqlite3_stmt *st = sk_run_scan(t, "NVTX_EVENTS", cols, run->run_id);
	size_t cap = 0;

	if (!st)
		return SKIP_E_DB;
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct sk_range *r;
		int type = sqlite3_column_int(st, 4), why;
		int64_t gtid = sqlite3_column_int64(st, 2), id;
		const char *text = (const char *)sqlite3_column_text(st, 3);

		if (type != 59 && type != 60)
			continue;
		if ((why = check_row(st, c, 1, ids, max, 1, -1)) >= 0) {
			count_bad(&run->bad, SKIP_TABLE_NVTX, why);
			continue;
		}
		if ((id = sk_strtab_intern(&t->texts, text ? text : "", NULL)) < 0) {
			sqlite3_finalize(st);
			return (int)id;
		}
		SK_VEC_XRESERVE(run->ranges, cap, run->nranges + 1);
		r = &run->ranges[run->nranges++];
		r->start = sqlite3_column_int64(st, 0);
		r->end = sqlite3_column_type(st, 1) == SQLITE_NULL ? INT64_MAX
								   : sqlite3_column_int64(st, 1);
		r->pid = (uint32_t)(gtid >> 24);
		r->tid = (uint32_t)(gtid & 0xFFFFFF);
		r->text = (uint32_t)id;
	}
	return sk_scan_done(t, st);
}

/* Calls that make the host wait for the GPU. */
static int is_sync_call(const char *name)
{
	return name && (strstr(name, "Synchronize") || ((strncmp(name, "cudaMemcpy", 10) == 0 ||
							 strncmp(name, "cuMemcpy", 8) == 0 ||
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
	struct sk_span *syncs;
	size_t nsyncs;
	struct skip_malformed bad; /* the calls left out as malformed */
	int err;
	char errmsg[512]; /* skip_errmsg() is per thread: carried back by hand */
};

static void add_sync(struct api_job *j, const struct sk_api *a, size_t *cap)
{
	SK_VEC_XPUSH(j->syncs, j->nsyncs, *cap, (struct sk_span){a->start, a->end, a->pid, a->tid});
}

static int load_api_table(struct api_job *j, enum skip_table table, size_t *cap, size_t *scap)
{
	/* runId, start, end; correlationId (uint32_t), globalTid */
	static const int c[] = {5, 0, 1}, ids[] = {2, 3};
	static const int64_t max[] = {UINT32_MAX, SK_GLOBAL_ID_MAX};
	size_t estimate;
	sqlite3_stmt *st =
	    scan_db(j->t, j->db, skip_table_name(table),
		    "start, end, correlationId, globalTid, nameId, runId, eventClass", j->run_id,
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
		int why = check_row(st, c, 0, ids, max, 2, -1);

		if (why >= 0) {
			count_bad(&j->bad, table, why);
			continue;
		}
		SK_VEC_XRESERVE(j->apis, *cap, j->n + 1);
		a = &j->apis[j->n++];
		a->start = sqlite3_column_int64(st, 0);
		a->end = sqlite3_column_int64(st, 1);
		a->corr = (uint32_t)sqlite3_column_int64(st, 2);
		a->pid = (uint32_t)(gtid >> 24);
		a->tid = (uint32_t)(gtid & 0xFFFFFF);
		a->name = (int32_t)name;
		a->driver = table == SKIP_TABLE_DRIVER || sqlite3_column_int64(st, 6) == 1;
		if (name > 0 && name < j->t->nstrings && is_sync_call(j->t->strings[name]))
			add_sync(j, a, scap);
	}
	return sk_scan_done(j->t, st);
}

static void *load_apis(void *arg)
{
	struct api_job *j = arg;
	size_t cap = 0, scap = 0;

	j->err = load_api_table(j, SKIP_TABLE_RUNTIME, &cap, &scap);
	if (!j->err && j->t->v1_driver)
		j->err = load_api_table(j, SKIP_TABLE_DRIVER, &cap, &scap);
	if (j->err)
		snprintf(j->errmsg, sizeof(j->errmsg), "%s", skip_errmsg());
	return NULL;
}

static int cmp_span_end(const void *a, const void *b)
{
	const struct sk_span *x = a, *y = b;

	return (x->end > y->end) - (x->end < y->end);
}

static void link_op(struct sk_rec *op, const struct sk_api *a)
{
	op->flags |= SK_F_API | (a->driver ? SK_F_DRIVER : 0);
	op->launch = a->start;
	op->api_end = a->end;
	op->tid = a->tid;
	if (!(op->flags & SK_F_HW_SUBMIT))
		op->submit = a->end;
}

/* Join through a hash on (process, correlation id): the general case. */
static void join_hash(struct sk_loaded_run *run, const struct sk_api *apis, size_t napis)
{
	struct sk_hash h = {0};

	sk_hash_xreserve(&h, napis); /* so the puts below cannot fail */
	for (size_t i = 0; i < napis; i++)
		sk_hash_put(&h, launch_key(apis[i].pid, apis[i].corr), i);
	for (size_t i = 0; i < run->nops; i++) {
		const uint64_t *j = sk_hash_get(&h, launch_key(run->ops[i].pid, run->ops[i].corr));

		if (j)
			link_op(&run->ops[i], &apis[*j]);
	}
	sk_hash_fini(&h);
}

/*
 * Join every operation to its launch call. CUPTI numbers correlation ids densely per process,
 * so with one process (the common case) a table indexed by correlation id does it with 4
 * bytes per id instead of a hash; several processes, or sparse ids, take the hash.
 */
static void join(struct sk_loaded_run *run, const struct sk_api *apis, size_t napis)
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
		join_hash(run, apis, napis);
		return;
	}
	table = sk_xcalloc((size_t)(hi - lo) + 1, sizeof(uint32_t));
	for (size_t i = 0; i < napis; i++)
		table[apis[i].corr - lo] = (uint32_t)i + 1;
	for (size_t i = 0; i < run->nops; i++) {
		struct sk_rec *op = &run->ops[i];

		if (op->pid == apis[0].pid && op->corr >= lo && op->corr <= hi &&
		    table[op->corr - lo])
			link_op(op, &apis[table[op->corr - lo] - 1]);
	}
	free(table);
}

/* Mark the first kernel (by start) of each graph launch. */
static void mark_graph_firsts(struct sk_loaded_run *run)
{
	struct sk_hash h = {0};
	size_t n = 0;

	for (size_t i = 0; i < run->nops; i++)
		n += (run->ops[i].flags & SK_F_GRAPH) != 0;
	if (!n)
		return;
	sk_hash_xreserve(&h, n); /* so the puts below cannot fail */
	for (size_t i = 0; i < run->nops; i++) {
		struct sk_rec *op = &run->ops[i];
		uint64_t key = launch_key(op->pid, op->corr);
		uint64_t *j;

		if (!(op->flags & SK_F_GRAPH) || op->kind != SKIP_OP_KERNEL)
			continue;
		j = sk_hash_get(&h, key);
		if (!j)
			sk_hash_put(&h, key, i);
		else if (op->start < run->ops[*j].start)
			*j = i;
	}
	for (size_t i = 0; i < h.cap; i++)
		if (h.slots[i].key)
			run->ops[h.slots[i].val].flags |= SK_F_GRAPH_FIRST;
	sk_hash_fini(&h);
}

int sk_run_load(struct skip_trace *t, int64_t run_id, int detail, struct sk_loaded_run *run)
{
	struct api_job job = {.t = t, .run_id = run_id};
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
	err = load_ops(t, run, SKIP_OP_KERNEL, detail, &cap);
	if (!err)
		err = load_ops(t, run, SKIP_OP_MEMCPY, detail, &cap);
	if (!err)
		err = load_ops(t, run, SKIP_OP_MEMSET, detail, &cap);
	sk_dbg(2, "run %lld: %zu operations read", (long long)run_id, run->nops);
	if (!err)
		err = load_ranges(t, run);
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
	run->napi_calls = job.n;
	sk_malformed_add(&run->bad, &job.bad);
	if (!err) {
		join(run, job.apis, job.n);
		mark_graph_firsts(run);
		if (run->nsyncs)
			qsort(run->syncs, run->nsyncs, sizeof(*run->syncs), cmp_span_end);
	}
	free(job.apis);
	if (err)
		sk_run_free(run);
	return err;
}

void sk_run_free(struct sk_loaded_run *run)
{
	free(run->ops);
	free(run->syncs);
	free(run->ranges);
	memset(run, 0, sizeof(*run));
}
