/*
 * records.c: CUPTI activity records -> rows of schemas/trace.sql.
 *
 * struct sk_sink, the SQLite sink, owns one per-process trace file and the prepared
 * statements for every table. sk_sink_buffer() walks a completed CUPTI buffer and
 * sk_sink_record() takes one record of any kind; names are interned into StringIds once
 * (kernel names by CUPTI's name pointer first, then by content), NVTX range starts wait in a
 * small table for their ends, and thread ids are packed into nsys's globalTid. A write error
 * turns the sink off (it logs once and counts what it loses); it never stops the program.
 *
 * Thread safety: none; the writer thread (writer.c), or a test, owns the sink.
 */
#define SK_LOG_DOMAIN "collector"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

const char *const sk_kind_names[SK_K_COUNT] = {
    "kernel", "runtime", "driver", "memcpy", "memset", "sync", "graph", "nvtx", "overhead", "other",
};

static const char *const stmt_sql[SK_INS_COUNT] = {
    [SK_INS_STRING] = "INSERT INTO StringIds(id, value) VALUES (?1, ?2)",
    [SK_INS_KERNEL] =
	"INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL(runId, start, end, deviceId, contextId, "
	"streamId, correlationId, globalPid, demangledName, shortName, mangledName, "
	"launchType, cacheConfig, registersPerThread, gridX, gridY, gridZ, blockX, blockY, "
	"blockZ, staticSharedMemory, dynamicSharedMemory, localMemoryPerThread, "
	"localMemoryTotal, gridId, sharedMemoryExecuted, graphNodeId, graphId, "
	"sharedMemoryLimitConfig, clusterX, clusterY, clusterZ, isDeviceLaunched, queued, "
	"submitted, completed) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, "
	"?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, "
	"?29, ?30, ?31, ?32, ?33, ?34, ?35, ?36)",
    [SK_INS_RUNTIME] = "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME(runId, start, end, eventClass, "
		       "globalTid, correlationId, nameId, returnValue, cbid) "
		       "VALUES (?1, ?2, ?3, 0, ?4, ?5, ?6, ?7, ?8)",
    /* Driver calls share the runtime table, as in nsys's export (eventClass 1). */
    [SK_INS_DRIVER] = "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME(runId, start, end, eventClass, "
		      "globalTid, correlationId, nameId, returnValue, cbid) "
		      "VALUES (?1, ?2, ?3, 1, ?4, ?5, ?6, ?7, ?8)",
    [SK_INS_MEMCPY] = "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY(runId, start, end, deviceId, "
		      "contextId, streamId, correlationId, globalPid, bytes, copyKind, srcKind, "
		      "dstKind, flags, graphNodeId, graphId) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, "
		      "?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
    [SK_INS_MEMSET] = "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET(runId, start, end, deviceId, "
		      "contextId, streamId, correlationId, globalPid, value, bytes, memKind, "
		      "flags, graphNodeId, graphId) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, "
		      "?10, ?11, ?12, ?13, ?14)",
    [SK_INS_SYNC] = "INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION(runId, start, end, "
		    "deviceId, contextId, streamId, correlationId, globalPid, syncType, eventId, "
		    "eventSyncId) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
    [SK_INS_GRAPH] = "INSERT INTO CUDA_GRAPH_TRACE(runId, start, end, deviceId, contextId, "
		     "streamId, correlationId, globalPid, graphId) VALUES (?1, ?2, ?3, ?4, ?5, "
		     "?6, ?7, ?8, ?9)",
    [SK_INS_NVTX] = "INSERT INTO NVTX_EVENTS(runId, start, end, eventType, rangeId, category, "
		    "color, text, globalTid, endGlobalTid, domainId, uint64Value, int64Value, "
		    "doubleValue) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, "
		    "?14)",
    [SK_INS_OVERHEAD] = "INSERT INTO PROFILER_OVERHEAD(runId, start, end, globalTid, "
			"correlationId, nameId, overheadKind, objectKind) VALUES (?1, ?2, ?3, "
			"?4, ?5, ?6, ?7, ?8)",
    /* Per process; the schema's trigger fills the one-row-per-GPU TARGET_INFO_GPU. */
    [SK_INS_GPU] = "INSERT INTO SKIP_GPUS(runId, globalPid, id, name, uuid, totalMemory, "
		   "memoryBandwidth, l2CacheSize, clockRate, smCount, computeMajor, "
		   "computeMinor, maxThreadsPerBlock, maxBlocksPerSm, maxWarpsPerSm, "
		   "maxRegistersPerBlock, maxRegistersPerSm, maxShmemPerBlock, maxShmemPerSm, "
		   "threadsPerWarp, asyncEngineCount, isMigEnabled) VALUES (?1, ?2, ?3, ?4, ?5, "
		   "?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, "
		   "?22)",
    [SK_INS_THREAD] = "INSERT INTO ThreadNames(runId, globalTid, nameId) VALUES (?1, ?2, ?3)",
    [SK_INS_DROP] = "INSERT OR REPLACE INTO SKIP_DROPS(runId, globalPid, kind, cause, count) "
		    "VALUES (?1, ?2, ?3, ?4, ?5)",
};

struct sk_pending_marker {
	uint32_t id;	  /* CUPTI marker id (from 1); 0: a free entry */
	size_t next_free; /* free entries: index + 1 of the next free one, 0 for none */
	int have_start;
	int have_end;
	uint64_t start_ns;
	uint64_t end_ns;
	uint32_t start_tid; /* 24-bit thread numbers */
	uint32_t end_tid;
	int domain; /* 0 default, else index + 1 into sink->domains */
	char *text;
	int has_data;
	uint32_t color, category;
	int payload_kind; /* CUPTI_METRIC_VALUE_KIND_*, -1 none */
	CUpti_MetricValue payload;
};

/* ---- errors ---------------------------------------------------------------------------- */

/* A failed step: remember it, log once, and turn writing off (rows after this are counted as
 * lost by the caller). Returns the code for the caller to pass on. */
static int write_failed(struct sk_sink *sink, int rc, const char *what)
{
	int err = (rc & 0xff) == SQLITE_FULL ? SKIP_E_FULL : SKIP_E_DB;

	if (!sink->error_logged) {
		sink->error_logged = 1;
		sk_err(
		    "%s: writing %s failed: %s; recording stops here, what was committed is kept",
		    sink->path, what, err == SKIP_E_FULL ? "disk full" : sqlite3_errmsg(sink->db));
	}
	sink->failed = 1;
	return err;
}

static int step(struct sk_sink *sink, enum sk_stmt s, enum sk_kind k)
{
	sqlite3_stmt *st = sink->st[s];
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		sink->lost[k]++;
		return write_failed(sink, rc, sk_kind_names[k]);
	}
	sink->rows[k]++;
	return 0;
}

/* ---- strings and threads ----------------------------------------------------------------- */

static int64_t intern(struct sk_sink *sink, const char *s)
{
	int is_new = 0;
	int64_t id = sk_strtab_intern(&sink->strings, s ? s : "", &is_new);
	sqlite3_stmt *st = sink->st[SK_INS_STRING];

	if (id < 0 || !is_new)
		return id;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, s ? s : "", -1, SQLITE_STATIC);
	if (step(sink, SK_INS_STRING, SK_K_OTHER))
		return SKIP_E_DB;
	sink->rows[SK_K_OTHER]--; /* strings are not events */
	return id;
}

static void note_thread_name(struct sk_sink *sink, uint32_t tid)
{
	char path[64], name[64];
	FILE *f;
	int64_t id;

	snprintf(path, sizeof(path), "/proc/self/task/%u/comm", tid);
	f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(name, sizeof(name), f)) {
		name[strcspn(name, "\n")] = '\0';
		id = intern(sink, name);
		if (id > 0) {
			sqlite3_bind_int64(sink->st[SK_INS_THREAD], 1, sink->run_id);
			sqlite3_bind_int64(sink->st[SK_INS_THREAD], 2, sink->global_pid | tid);
			sqlite3_bind_int64(sink->st[SK_INS_THREAD], 3, id);
			if (step(sink, SK_INS_THREAD, SK_K_OTHER) == 0)
				sink->rows[SK_K_OTHER]--;
		}
	}
	fclose(f);
}

/*
 * CUPTI reports the OS thread id where it fits (Linux tids are below 2^22 by default); those
 * are stored as they are, with their name from /proc. Anything wider is given a stable
 * synthetic number from 0xF00000 up, so globalTid stays one 24-bit field as nsys defines it.
 */
uint32_t sk_sink_tid(struct sk_sink *sink, uint32_t cupti_tid)
{
	int i;

	for (i = 0; i < sink->nthreads; i++)
		if (sink->threads[i][0] == cupti_tid)
			return sink->threads[i][1];
	if (sink->nthreads == (int)(sizeof(sink->threads) / sizeof(sink->threads[0])))
		return cupti_tid & 0xFFFFFF;
	sink->threads[i][0] = cupti_tid;
	if (cupti_tid <= 0xEFFFFF) {
		sink->threads[i][1] = cupti_tid;
		note_thread_name(sink, cupti_tid);
	} else {
		sink->threads[i][1] = 0xF00000 + sink->next_synthetic_tid++;
	}
	sink->nthreads++;
	return sink->threads[i][1];
}

static int64_t gtid(struct sk_sink *sink, uint32_t cupti_tid)
{
	return sink->global_pid | sk_sink_tid(sink, cupti_tid);
}

/* ---- open / close ------------------------------------------------------------------------- */

int sk_sink_open(struct sk_sink *sink, const char *path, int64_t run_id, uint32_t pid)
{
	int err, rc;

	memset(sink, 0, sizeof(*sink));
	snprintf(sink->path, sizeof(sink->path), "%s", path);
	sink->run_id = run_id;
	sink->pid = pid;
	sink->global_pid = (int64_t)pid << 24;
	err = skip_store_create(path, SKIP_STORE_FAST, &sink->db);
	if (err)
		return err;
	skip_store_exec(sink->db, "PRAGMA cache_size=-16384"); /* 16 MiB page cache */
	for (int i = 0; i < SK_INS_COUNT; i++) {
		rc = sqlite3_prepare_v3(sink->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT,
					&sink->st[i], NULL);
		if (rc != SQLITE_OK) {
			err = sk_fail(SKIP_E_DB, "%s: preparing statement %d: %s", path, i,
				      sqlite3_errmsg(sink->db));
			sk_sink_close(sink, 0);
			return err;
		}
	}
	return 0;
}

int sk_sink_begin(struct sk_sink *sink)
{
	int rc;

	if (sink->failed || sink->in_txn)
		return sink->failed ? SKIP_E_DB : 0;
	rc = sqlite3_exec(sink->db, "BEGIN", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return write_failed(sink, rc, "a transaction");
	sink->in_txn = 1;
	return 0;
}

int sk_sink_commit(struct sk_sink *sink)
{
	int rc;

	if (!sink->in_txn)
		return 0;
	sink->in_txn = 0;
	rc = sqlite3_exec(sink->db, "COMMIT", NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		sqlite3_exec(sink->db, "ROLLBACK", NULL, NULL, NULL);
		return write_failed(sink, rc, "a commit");
	}
	return 0;
}

int sk_sink_set_drops(struct sk_sink *sink, const char *kind, const char *cause, uint64_t n)
{
	sqlite3_stmt *st = sink->st[SK_INS_DROP];

	if (!sink->db || !st)
		return SKIP_E_DB;
	sqlite3_bind_int64(st, 1, sink->run_id);
	sqlite3_bind_int64(st, 2, sink->global_pid);
	sqlite3_bind_text(st, 3, kind, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, cause, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 5, (int64_t)n);
	if (sqlite3_step(st) != SQLITE_DONE) {
		sqlite3_reset(st);
		return SKIP_E_DB;
	}
	sqlite3_reset(st);
	return 0;
}

int sk_sink_meta(struct sk_sink *sink, const char *key, const char *value)
{
	if (!sink->db || sink->failed)
		return SKIP_E_DB;
	return skip_store_meta_set(sink->db, sink->run_id, sink->global_pid, key, value);
}

static void flush_open_markers(struct sk_sink *sink);

void sk_sink_close(struct sk_sink *sink, int standalone)
{
	if (!sink->db)
		return;
	if (!sink->failed) {
		sk_sink_begin(sink);
		flush_open_markers(sink);
		sk_sink_commit(sink);
	}
	for (int i = 0; i < SK_INS_COUNT; i++)
		sqlite3_finalize(sink->st[i]);
	if (standalone && !sink->failed)
		skip_store_finalize(sink->db);
	sqlite3_close(sink->db);
	sink->db = NULL;
	sk_strtab_fini(&sink->strings);
	for (size_t i = 0; i < sink->nmarkers; i++)
		free(sink->markers[i].text);
	free(sink->markers);
	sk_hash_fini(&sink->marker_index);
	sk_hash_fini(&sink->kname_index);
	free(sink->knames);
	for (int i = 0; i < sink->ndomains; i++)
		free(sink->domains[i]);
	sink->markers = NULL;
	sink->nmarkers = sink->markers_cap = sink->free_marker = 0;
	sink->knames = NULL;
	sink->nknames = sink->knames_cap = 0;
	sink->ndomains = 0;
}

/* ---- kernels -------------------------------------------------------------------------------- */

/* The StringIds ids of the kernel name CUPTI hands over as @name. CUPTI keeps one pointer per
 * name, so the ids are cached by pointer: a kernel record costs one lookup, and the name is
 * demangled and interned once. When the cache cannot grow the ids are still right, only not
 * kept. */
static const struct sk_kname *kernel_names(struct sk_sink *sink, const char *name)
{
	static struct sk_kname fallback;
	struct sk_kname *k = &fallback;
	const uint64_t *idx;
	char shortbuf[512];
	char *dem;
	const char *full;

	if (!name)
		name = "<unknown>";
	idx = sk_hash_get(&sink->kname_index, (uintptr_t)name);
	if (idx)
		return &sink->knames[*idx];
	if (!SK_VEC_RESERVE(sink->knames, sink->knames_cap, sink->nknames + 1) &&
	    !sk_hash_reserve(&sink->kname_index, 1))
		k = &sink->knames[sink->nknames];
	dem = sk_demangle(name);
	full = dem ? dem : name;
	sk_short_name(full, shortbuf, sizeof(shortbuf));
	k->demangled = intern(sink, full);
	k->shortname = intern(sink, shortbuf);
	k->mangled = intern(sink, name);
	free(dem);
	if (k != &fallback) /* cannot fail: room reserved */
		sk_hash_put(&sink->kname_index, (uintptr_t)name, sink->nknames++);
	return k;
}

static void bind_opt_ts(sqlite3_stmt *st, int col, uint64_t ts)
{
	if (ts == (uint64_t)CUPTI_TIMESTAMP_UNKNOWN)
		sqlite3_bind_null(st, col);
	else
		sqlite3_bind_int64(st, col, (int64_t)ts);
}

static int put_kernel(struct sk_sink *sink, const CUpti_ActivityKernel10 *k)
{
	sqlite3_stmt *st = sink->st[SK_INS_KERNEL];
	const struct sk_kname *n = kernel_names(sink, k->name);
	int c = 1;

	sqlite3_bind_int64(st, c++, sink->run_id);
	sqlite3_bind_int64(st, c++, (int64_t)k->start);
	sqlite3_bind_int64(st, c++, (int64_t)k->end);
	sqlite3_bind_int64(st, c++, k->deviceId);
	sqlite3_bind_int64(st, c++, k->contextId);
	sqlite3_bind_int64(st, c++, k->streamId);
	sqlite3_bind_int64(st, c++, k->correlationId);
	sqlite3_bind_int64(st, c++, sink->global_pid);
	sqlite3_bind_int64(st, c++, n->demangled);
	sqlite3_bind_int64(st, c++, n->shortname);
	sqlite3_bind_int64(st, c++, n->mangled);
	sqlite3_bind_int(st, c++, k->launchType);
	sqlite3_bind_int(st, c++, k->cacheConfig.both);
	sqlite3_bind_int(st, c++, k->registersPerThread);
	sqlite3_bind_int(st, c++, k->gridX);
	sqlite3_bind_int(st, c++, k->gridY);
	sqlite3_bind_int(st, c++, k->gridZ);
	sqlite3_bind_int(st, c++, k->blockX);
	sqlite3_bind_int(st, c++, k->blockY);
	sqlite3_bind_int(st, c++, k->blockZ);
	sqlite3_bind_int(st, c++, k->staticSharedMemory);
	sqlite3_bind_int(st, c++, k->dynamicSharedMemory);
	sqlite3_bind_int64(st, c++, k->localMemoryPerThread);
	sqlite3_bind_int64(st, c++, (int64_t)k->localMemoryTotal_v2);
	sqlite3_bind_int64(st, c++, k->gridId);
	sqlite3_bind_int64(st, c++, k->sharedMemoryExecuted);
	if (k->graphId) {
		sqlite3_bind_int64(st, c++, (int64_t)k->graphNodeId);
		sqlite3_bind_int64(st, c++, k->graphId);
	} else {
		sqlite3_bind_null(st, c++);
		sqlite3_bind_null(st, c++);
	}
	sqlite3_bind_int(st, c++, (int)k->shmemLimitConfig);
	sqlite3_bind_int64(st, c++, k->clusterX);
	sqlite3_bind_int64(st, c++, k->clusterY);
	sqlite3_bind_int64(st, c++, k->clusterZ);
	sqlite3_bind_int(st, c++, k->isDeviceLaunched);
	bind_opt_ts(st, c++, k->queued);
	bind_opt_ts(st, c++, k->submitted);
	bind_opt_ts(st, c++, k->completed);
	return step(sink, SK_INS_KERNEL, SK_K_KERNEL);
}

/* ---- API calls ----------------------------------------------------------------------------- */

static int64_t api_name(struct sk_sink *sink, int driver, uint32_t cbid)
{
	const char *name = NULL;
	char buf[48];
	int64_t *slot = cbid < 4096 ? &sink->api_names[driver][cbid] : NULL;
	int64_t id;

	if (slot && *slot)
		return *slot;
	if (cuptiGetCallbackName(driver ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API,
				 cbid, &name) != CUPTI_SUCCESS ||
	    !name) {
		snprintf(buf, sizeof(buf), "%s_cbid_%u", driver ? "cu" : "cuda", cbid);
		name = buf;
	}
	id = intern(sink, name);
	if (slot && id > 0)
		*slot = id;
	return id;
}

static int put_api(struct sk_sink *sink, const CUpti_ActivityAPI *a, int driver)
{
	enum sk_stmt s = driver ? SK_INS_DRIVER : SK_INS_RUNTIME;
	sqlite3_stmt *st = sink->st[s];

	sqlite3_bind_int64(st, 1, sink->run_id);
	sqlite3_bind_int64(st, 2, (int64_t)a->start);
	sqlite3_bind_int64(st, 3, (int64_t)a->end);
	sqlite3_bind_int64(st, 4, gtid(sink, a->threadId));
	sqlite3_bind_int64(st, 5, a->correlationId);
	sqlite3_bind_int64(st, 6, api_name(sink, driver, a->cbid));
	sqlite3_bind_int64(st, 7, a->returnValue);
	sqlite3_bind_int64(st, 8, a->cbid);
	return step(sink, s, driver ? SK_K_DRIVER : SK_K_RUNTIME);
}

/* ---- memory, sync, graphs ---------------------------------------------------------------- */

static void bind_graph(sqlite3_stmt *st, int col, uint32_t graph_id, uint64_t node_id)
{
	if (graph_id) {
		sqlite3_bind_int64(st, col, (int64_t)node_id);
		sqlite3_bind_int64(st, col + 1, graph_id);
	} else {
		sqlite3_bind_null(st, col);
		sqlite3_bind_null(st, col + 1);
	}
}

/* nsys numbers memory kinds from 0 = pageable (7 = unknown); CUPTI from 1 (0 = unknown). */
static int nsys_mem_kind(unsigned cupti_kind)
{
	return cupti_kind == 0 || cupti_kind > 7 ? 7 : (int)cupti_kind - 1;
}

static int put_memcpy(struct sk_sink *sink, const CUpti_ActivityMemcpy6 *m)
{
	sqlite3_stmt *st = sink->st[SK_INS_MEMCPY];

	sqlite3_bind_int64(st, 1, sink->run_id);
	sqlite3_bind_int64(st, 2, (int64_t)m->start);
	sqlite3_bind_int64(st, 3, (int64_t)m->end);
	sqlite3_bind_int64(st, 4, m->deviceId);
	sqlite3_bind_int64(st, 5, m->contextId);
	sqlite3_bind_int64(st, 6, m->streamId);
	sqlite3_bind_int64(st, 7, m->correlationId);
	sqlite3_bind_int64(st, 8, sink->global_pid);
	sqlite3_bind_int64(st, 9, (int64_t)m->bytes);
	sqlite3_bind_int(st, 10, m->copyKind);
	sqlite3_bind_int(st, 11, nsys_mem_kind(m->srcKind));
	sqlite3_bind_int(st, 12, nsys_mem_kind(m->dstKind));
	sqlite3_bind_int(st, 13, m->flags);
	bind_graph(st, 14, m->graphId, m->graphNodeId);
	return step(sink, SK_INS_MEMCPY, SK_K_MEMCPY);
}

static int put_memset(struct sk_sink *sink, const CUpti_ActivityMemset4 *m)
{
	sqlite3_stmt *st = sink->st[SK_INS_MEMSET];

	sqlite3_bind_int64(st, 1, sink->run_id);
	sqlite3_bind_int64(st, 2, (int64_t)m->start);
	sqlite3_bind_int64(st, 3, (int64_t)m->end);
	sqlite3_bind_int64(st, 4, m->deviceId);
	sqlite3_bind_int64(st, 5, m->contextId);
	sqlite3_bind_int64(st, 6, m->streamId);
	sqlite3_bind_int64(st, 7, m->correlationId);
	sqlite3_bind_int64(st, 8, sink->global_pid);
	sqlite3_bind_int64(st, 9, m->value);
	sqlite3_bind_int64(st, 10, (int64_t)m->bytes);
	sqlite3_bind_int(st, 11, nsys_mem_kind(m->memoryKind));
	sqlite3_bind_int(st, 12, m->flags);
	bind_graph(st, 13, m->graphId, m->graphNodeId);
	return step(sink, SK_INS_MEMSET, SK_K_MEMSET);
}

static int64_t ctx_device(struct sk_sink *sink, uint32_t ctx)
{
	for (int i = 0; i < sink->nctx; i++)
		if (sink->ctx_dev[i][0] == ctx)
			return sink->ctx_dev[i][1];
	return -1;
}

static int put_sync(struct sk_sink *sink, const CUpti_ActivitySynchronization2 *s)
{
	sqlite3_stmt *st = sink->st[SK_INS_SYNC];
	int64_t dev = ctx_device(sink, s->contextId);

	sqlite3_bind_int64(st, 1, sink->run_id);
	sqlite3_bind_int64(st, 2, (int64_t)s->start);
	sqlite3_bind_int64(st, 3, (int64_t)s->end);
	if (dev >= 0)
		sqlite3_bind_int64(st, 4, dev);
	else
		sqlite3_bind_null(st, 4);
	sqlite3_bind_int64(st, 5, s->contextId);
	sqlite3_bind_int64(
	    st, 6, s->streamId == CUPTI_SYNCHRONIZATION_INVALID_VALUE ? -1 : (int64_t)s->streamId);
	sqlite3_bind_int64(st, 7, s->correlationId);
	sqlite3_bind_int64(st, 8, sink->global_pid);
	sqlite3_bind_int(st, 9, (int)s->type);
	if (s->cudaEventId == CUPTI_SYNCHRONIZATION_INVALID_VALUE)
		sqlite3_bind_null(st, 10);
	else
		sqlite3_bind_int64(st, 10, s->cudaEventId);
	sqlite3_bind_int64(st, 11, (int64_t)s->cudaEventSyncId);
	return step(sink, SK_INS_SYNC, SK_K_SYNC);
}

static int put_graph(struct sk_sink *sink, const CUpti_ActivityGraphTrace2 *g)
{
	sqlite3_stmt *st = sink->st[SK_INS_GRAPH];

	sqlite3_bind_int64(st, 1, sink->run_id);
	sqlite3_bind_int64(st, 2, (int64_t)g->start);
	sqlite3_bind_int64(st, 3, (int64_t)g->end);
	sqlite3_bind_int64(st, 4, g->deviceId);
	sqlite3_bind_int64(st, 5, g->contextId);
	sqlite3_bind_int64(st, 6, g->streamId);
	sqlite3_bind_int64(st, 7, g->correlationId);
	sqlite3_bind_int64(st, 8, sink->global_pid);
	sqlite3_bind_int64(st, 9, g->graphId);
	return step(sink, SK_INS_GRAPH, SK_K_GRAPH);
}

static const char *overhead_name(uint32_t kind)
{
	switch (kind) {
	case CUPTI_ACTIVITY_OVERHEAD_DRIVER_COMPILER:
		return "DRIVER_COMPILER";
	case CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH:
		return "CUPTI_BUFFER_FLUSH";
	case CUPTI_ACTIVITY_OVERHEAD_CUPTI_INSTRUMENTATION:
		return "CUPTI_INSTRUMENTATION";
	case CUPTI_ACTIVITY_OVERHEAD_CUPTI_RESOURCE:
		return "CUPTI_RESOURCE";
	case CUPTI_ACTIVITY_OVERHEAD_RUNTIME_TRIGGERED_MODULE_LOADING:
		return "RUNTIME_TRIGGERED_MODULE_LOADING";
	case CUPTI_ACTIVITY_OVERHEAD_LAZY_FUNCTION_LOADING:
		return "LAZY_FUNCTION_LOADING";
	case CUPTI_ACTIVITY_OVERHEAD_COMMAND_BUFFER_FULL:
		return "COMMAND_BUFFER_FULL";
	case CUPTI_ACTIVITY_OVERHEAD_ACTIVITY_BUFFER_REQUEST:
		return "ACTIVITY_BUFFER_REQUEST";
	case CUPTI_ACTIVITY_OVERHEAD_UVM_ACTIVITY_INIT:
		return "UVM_ACTIVITY_INIT";
	default:
		return "UNKNOWN";
	}
}

static int put_overhead(struct sk_sink *sink, const CUpti_ActivityOverhead3 *o)
{
	sqlite3_stmt *st = sink->st[SK_INS_OVERHEAD];
	int64_t tid = sink->global_pid;

	if (o->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD)
		tid = gtid(sink, o->objectId.pt.threadId);
	sqlite3_bind_int64(st, 1, sink->run_id);
	sqlite3_bind_int64(st, 2, (int64_t)o->start);
	sqlite3_bind_int64(st, 3, (int64_t)o->end);
	sqlite3_bind_int64(st, 4, tid);
	sqlite3_bind_int64(st, 5, o->correlationId);
	sqlite3_bind_int64(st, 6, intern(sink, overhead_name((uint32_t)o->overheadKind)));
	sqlite3_bind_int64(st, 7, (int64_t)o->overheadKind);
	sqlite3_bind_int(st, 8, (int)o->objectKind);
	return step(sink, SK_INS_OVERHEAD, SK_K_OVERHEAD);
}

static int put_device(struct sk_sink *sink, const CUpti_ActivityDevice5 *d)
{
	sqlite3_stmt *st = sink->st[SK_INS_GPU];
	char uuid[40];
	const unsigned char *u = (const unsigned char *)d->uuid.bytes;
	int c = 1;

	snprintf(uuid, sizeof(uuid),
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
		 u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14],
		 u[15]);
	sqlite3_bind_int64(st, c++, sink->run_id);
	sqlite3_bind_int64(st, c++, sink->global_pid);
	sqlite3_bind_int64(st, c++, d->id);
	sqlite3_bind_text(st, c++, d->name ? d->name : "", -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, c++, uuid, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, c++, (int64_t)d->globalMemorySize);
	sqlite3_bind_int64(st, c++, (int64_t)d->globalMemoryBandwidth * 1000); /* KB/s -> B/s */
	sqlite3_bind_int64(st, c++, d->l2CacheSize);
	sqlite3_bind_int64(st, c++, (int64_t)d->coreClockRate * 1000); /* kHz -> Hz */
	sqlite3_bind_int64(st, c++, d->numMultiprocessors);
	sqlite3_bind_int64(st, c++, d->computeCapabilityMajor);
	sqlite3_bind_int64(st, c++, d->computeCapabilityMinor);
	sqlite3_bind_int64(st, c++, d->maxThreadsPerBlock);
	sqlite3_bind_int64(st, c++, d->maxBlocksPerMultiprocessor);
	sqlite3_bind_int64(st, c++, d->maxWarpsPerMultiprocessor);
	sqlite3_bind_int64(st, c++, d->maxRegistersPerBlock);
	sqlite3_bind_int64(st, c++, d->maxRegistersPerMultiprocessor);
	sqlite3_bind_int64(st, c++, d->maxSharedMemoryPerBlock);
	sqlite3_bind_int64(st, c++, d->maxSharedMemoryPerMultiprocessor);
	sqlite3_bind_int64(st, c++, d->numThreadsPerWarp);
	sqlite3_bind_int64(st, c++, d->numMemcpyEngines);
	sqlite3_bind_int(st, c++, d->isMigEnabled);
	return step(sink, SK_INS_GPU, SK_K_OTHER);
}

/* ---- NVTX ---------------------------------------------------------------------------------- */

/* The pending range of marker @id; with @create a new one when there is none (NULL when
 * memory runs out). The pointer is valid until the next call with @create. */
static struct sk_pending_marker *marker_get(struct sk_sink *sink, uint32_t id, int create)
{
	const uint64_t *v = sk_hash_get(&sink->marker_index, id);
	struct sk_pending_marker *m;
	size_t i;

	if (v)
		return &sink->markers[*v];
	if (!create || !id || sk_hash_reserve(&sink->marker_index, 1))
		return NULL;
	if (sink->free_marker) {
		i = sink->free_marker - 1;
		sink->free_marker = sink->markers[i].next_free;
	} else if (!SK_VEC_RESERVE(sink->markers, sink->markers_cap, sink->nmarkers + 1)) {
		i = sink->nmarkers++;
	} else {
		return NULL;
	}
	sk_hash_add(&sink->marker_index, id, i); /* cannot fail: room reserved, id not 0 */
	m = &sink->markers[i];
	memset(m, 0, sizeof(*m));
	m->id = id;
	m->payload_kind = -1;
	return m;
}

/* Forget a range that was written: its entry goes on the free list. */
static void marker_remove(struct sk_sink *sink, struct sk_pending_marker *m)
{
	sk_hash_del(&sink->marker_index, m->id);
	free(m->text);
	m->text = NULL;
	m->id = 0;
	m->next_free = sink->free_marker;
	sink->free_marker = (size_t)(m - sink->markers) + 1;
}

static int domain_id(struct sk_sink *sink, const char *domain)
{
	sqlite3_stmt *st = sink->st[SK_INS_NVTX];
	int i;

	if (!domain)
		return 0;
	for (i = 0; i < sink->ndomains; i++)
		if (strcmp(sink->domains[i], domain) == 0)
			return i + 1;
	if (sink->ndomains == (int)(sizeof(sink->domains) / sizeof(sink->domains[0])))
		return 0;
	sink->domains[i] = strdup(domain);
	if (!sink->domains[i])
		return 0;
	sink->ndomains++;
	/* nsys records a domain's name as an event of type 75 (NvtxDomainCreate). */
	sqlite3_bind_int64(st, 1, sink->run_id);
	sqlite3_bind_int64(st, 2, 0);
	sqlite3_bind_null(st, 3);
	sqlite3_bind_int(st, 4, 75);
	sqlite3_bind_null(st, 5);
	sqlite3_bind_null(st, 6);
	sqlite3_bind_null(st, 7);
	sqlite3_bind_text(st, 8, domain, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 9, sink->global_pid);
	sqlite3_bind_null(st, 10);
	sqlite3_bind_int(st, 11, i + 1);
	for (int c = 12; c <= 14; c++)
		sqlite3_bind_null(st, c);
	step(sink, SK_INS_NVTX, SK_K_NVTX);
	return i + 1;
}

static int put_nvtx_row(struct sk_sink *sink, const struct sk_pending_marker *m, int event_type)
{
	sqlite3_stmt *st = sink->st[SK_INS_NVTX];

	sqlite3_bind_int64(st, 1, sink->run_id);
	sqlite3_bind_int64(st, 2, (int64_t)m->start_ns);
	if (m->have_end)
		sqlite3_bind_int64(st, 3, (int64_t)m->end_ns);
	else
		sqlite3_bind_null(st, 3);
	sqlite3_bind_int(st, 4, event_type);
	sqlite3_bind_int64(st, 5, m->id);
	if (m->has_data) {
		sqlite3_bind_int64(st, 6, m->category);
		sqlite3_bind_int64(st, 7, m->color);
	} else {
		sqlite3_bind_null(st, 6);
		sqlite3_bind_null(st, 7);
	}
	sqlite3_bind_text(st, 8, m->text ? m->text : "", -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 9, sink->global_pid | m->start_tid);
	if (m->have_end)
		sqlite3_bind_int64(st, 10, sink->global_pid | m->end_tid);
	else
		sqlite3_bind_null(st, 10);
	sqlite3_bind_int(st, 11, m->domain);
	for (int c = 12; c <= 14; c++)
		sqlite3_bind_null(st, c);
	if (m->payload_kind == CUPTI_METRIC_VALUE_KIND_UINT64)
		sqlite3_bind_int64(st, 12, (int64_t)m->payload.metricValueUint64);
	else if (m->payload_kind == CUPTI_METRIC_VALUE_KIND_INT64)
		sqlite3_bind_int64(st, 13, m->payload.metricValueInt64);
	else if (m->payload_kind == CUPTI_METRIC_VALUE_KIND_DOUBLE)
		sqlite3_bind_double(st, 14, m->payload.metricValueDouble);
	return step(sink, SK_INS_NVTX, SK_K_NVTX);
}

int sk_sink_range(struct sk_sink *sink, const char *text, uint64_t start_ns, uint64_t end_ns,
		  uint32_t tid)
{
	struct sk_pending_marker m = {.have_start = 1,
				      .have_end = 1,
				      .start_ns = start_ns,
				      .end_ns = end_ns,
				      .start_tid = sk_sink_tid(sink, tid),
				      .text = (char *)text,
				      .payload_kind = -1};

	if (sink->failed)
		return SKIP_E_DB;
	m.end_tid = m.start_tid;
	return put_nvtx_row(sink, &m, 60);
}

/* A range is written once both halves are here. Push/pop and start/end ranges look the same
 * in CUPTI's records; a range that ends on the thread it started on is stored as push/pop
 * (59), one that ends elsewhere as start/end (60). */
static int emit_range(struct sk_sink *sink, struct sk_pending_marker *m)
{
	int err = put_nvtx_row(sink, m, m->start_tid == m->end_tid ? 59 : 60);

	marker_remove(sink, m);
	return err;
}

static int put_marker(struct sk_sink *sink, const CUpti_ActivityMarker2 *mk)
{
	uint32_t tid = 0;
	struct sk_pending_marker *m, one;

	if (mk->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ||
	    mk->objectKind == CUPTI_ACTIVITY_OBJECT_PROCESS)
		tid = mk->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD
			  ? sk_sink_tid(sink, mk->objectId.pt.threadId)
			  : 0;
	if (mk->flags & CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS) {
		memset(&one, 0, sizeof(one));
		one.id = mk->id;
		one.start_ns = mk->timestamp;
		one.start_tid = tid;
		one.domain = domain_id(sink, mk->domain);
		one.text = (char *)mk->name;
		one.payload_kind = -1;
		return put_nvtx_row(sink, &one, 34);
	}
	if (!(mk->flags & (CUPTI_ACTIVITY_FLAG_MARKER_START | CUPTI_ACTIVITY_FLAG_MARKER_END)))
		return 0; /* sync-object markers: not recorded */
	m = marker_get(sink, mk->id, 1);
	if (!m) {
		sink->lost[SK_K_NVTX]++;
		return 0;
	}
	if (mk->flags & CUPTI_ACTIVITY_FLAG_MARKER_START) {
		m->have_start = 1;
		m->start_ns = mk->timestamp;
		m->start_tid = tid;
		m->domain = domain_id(sink, mk->domain);
		free(m->text);
		m->text = mk->name ? strdup(mk->name) : NULL;
	} else {
		m->have_end = 1;
		m->end_ns = mk->timestamp;
		m->end_tid = tid;
	}
	return m->have_start && m->have_end ? emit_range(sink, m) : 0;
}

static void put_marker_data(struct sk_sink *sink, const CUpti_ActivityMarkerData2 *d)
{
	struct sk_pending_marker *m = marker_get(sink, d->id, 0);

	if (!m)
		return; /* an instantaneous mark's data, or one already written */
	m->has_data = 1;
	m->color = d->color;
	m->category = d->category;
	if (d->payloadKind == CUPTI_METRIC_VALUE_KIND_UINT64 ||
	    d->payloadKind == CUPTI_METRIC_VALUE_KIND_INT64 ||
	    d->payloadKind == CUPTI_METRIC_VALUE_KIND_DOUBLE) {
		m->payload_kind = d->payloadKind;
		m->payload = d->payload;
	}
}

static void flush_open_markers(struct sk_sink *sink)
{
	for (size_t i = 0; i < sink->nmarkers; i++) {
		struct sk_pending_marker *m = &sink->markers[i];

		if (!m->id)
			continue;
		if (m->have_start)
			put_nvtx_row(sink, m, 59); /* still open at exit: end is NULL */
		else
			sink->nvtx_unmatched++;
	}
}

/* ---- dispatch -------------------------------------------------------------------------------- */

int sk_sink_record(struct sk_sink *sink, const CUpti_Activity *rec)
{
	if (sink->failed)
		return SKIP_E_DB;
	switch (rec->kind) {
	case CUPTI_ACTIVITY_KIND_KERNEL:
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
		return put_kernel(sink, (const CUpti_ActivityKernel10 *)rec);
	case CUPTI_ACTIVITY_KIND_RUNTIME:
		return put_api(sink, (const CUpti_ActivityAPI *)rec, 0);
	case CUPTI_ACTIVITY_KIND_DRIVER:
		return put_api(sink, (const CUpti_ActivityAPI *)rec, 1);
	case CUPTI_ACTIVITY_KIND_MEMCPY:
		return put_memcpy(sink, (const CUpti_ActivityMemcpy6 *)rec);
	case CUPTI_ACTIVITY_KIND_MEMSET:
		return put_memset(sink, (const CUpti_ActivityMemset4 *)rec);
	case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
		return put_sync(sink, (const CUpti_ActivitySynchronization2 *)rec);
	case CUPTI_ACTIVITY_KIND_GRAPH_TRACE:
		return put_graph(sink, (const CUpti_ActivityGraphTrace2 *)rec);
	case CUPTI_ACTIVITY_KIND_MARKER:
		return put_marker(sink, (const CUpti_ActivityMarker2 *)rec);
	case CUPTI_ACTIVITY_KIND_MARKER_DATA:
		put_marker_data(sink, (const CUpti_ActivityMarkerData2 *)rec);
		return 0;
	case CUPTI_ACTIVITY_KIND_OVERHEAD:
		return put_overhead(sink, (const CUpti_ActivityOverhead3 *)rec);
	case CUPTI_ACTIVITY_KIND_DEVICE:
		return put_device(sink, (const CUpti_ActivityDevice5 *)rec);
	case CUPTI_ACTIVITY_KIND_CONTEXT: {
		const CUpti_ActivityContext3 *c = (const CUpti_ActivityContext3 *)rec;

		if (sink->nctx < (int)(sizeof(sink->ctx_dev) / sizeof(sink->ctx_dev[0]))) {
			sink->ctx_dev[sink->nctx][0] = c->contextId;
			sink->ctx_dev[sink->nctx][1] = c->deviceId;
			sink->nctx++;
		}
		return 0;
	}
	default:
		sink->rows[SK_K_OTHER]++;
		return 0;
	}
}

void sk_sink_buffer(struct sk_sink *sink, uint8_t *buf, size_t valid)
{
	CUpti_Activity *rec = NULL;
	CUptiResult r;

	while ((r = cuptiActivityGetNextRecord(buf, valid, &rec)) == CUPTI_SUCCESS) {
		if (sink->failed) {
			/* The kind is unknown once writing is off: counted whole. */
			sink->lost[SK_K_OTHER]++;
			continue;
		}
		sk_sink_record(sink, rec);
	}
	if (r != CUPTI_ERROR_MAX_LIMIT_REACHED)
		SK_CUPTI_CHECK(r);
}
