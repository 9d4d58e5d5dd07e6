/*
 * records.c: CUPTI activity records -> rows of schemas/trace.sql.
 *
 * struct sk_writer owns one per-process trace file and the prepared statements for every
 * table. sk_writer_record() takes any record kind; names are interned into StringIds once
 * (kernel names by CUPTI's name pointer first, then by content), NVTX range starts wait in a
 * small table for their ends, and thread ids are packed into nsys's globalTid. A write error
 * turns the writer off (it logs once and counts what it loses); it never stops the program.
 *
 * Thread safety: none; the writer thread (or a test) owns a writer.
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
	[SK_INS_DRIVER] = "INSERT INTO CUPTI_ACTIVITY_KIND_DRIVER(runId, start, end, eventClass, "
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
	[SK_INS_GPU] = "INSERT INTO TARGET_INFO_GPU(runId, globalPid, id, name, uuid, totalMemory, "
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
	uint32_t id;	   /* CUPTI marker id; 0 = empty slot (CUPTI ids start at 1) */
	int have_start;
	int have_end;
	uint64_t start_ns;
	uint64_t end_ns;
	uint32_t start_tid; /* 24-bit thread numbers */
	uint32_t end_tid;
	int domain;	   /* 0 default, else index + 1 into writer->domains */
	char *text;
	int has_data;
	uint32_t color, category;
	int payload_kind;  /* CUPTI_METRIC_VALUE_KIND_*, -1 none */
	CUpti_MetricValue payload;
};

/* ---- errors ---------------------------------------------------------------------------- */

/* A failed step: remember it, log once, and turn writing off (rows after this are counted as
 * lost by the caller). Returns the code for the caller to pass on. */
static int write_failed(struct sk_writer *w, int rc, const char *what)
{
	int err = (rc & 0xff) == SQLITE_FULL ? SKIP_E_FULL : SKIP_E_DB;

	if (!w->error_logged) {
		w->error_logged = 1;
		sk_err("%s: writing %s failed: %s; recording stops here, what was committed is kept",
		       w->path, what, err == SKIP_E_FULL ? "disk full" : sqlite3_errmsg(w->db));
	}
	w->failed = 1;
	return err;
}

static int step(struct sk_writer *w, enum sk_stmt s, enum sk_kind k)
{
	sqlite3_stmt *st = w->st[s];
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		w->lost[k]++;
		return write_failed(w, rc, sk_kind_names[k]);
	}
	w->rows[k]++;
	return 0;
}

/* ---- strings and threads ----------------------------------------------------------------- */

static int64_t intern(struct sk_writer *w, const char *s)
{
	int is_new = 0;
	int64_t id = sk_strtab_intern(&w->strings, s ? s : "", &is_new);
	sqlite3_stmt *st = w->st[SK_INS_STRING];

	if (id < 0 || !is_new)
		return id;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, s ? s : "", -1, SQLITE_STATIC);
	if (step(w, SK_INS_STRING, SK_K_OTHER))
		return SKIP_E_DB;
	w->rows[SK_K_OTHER]--; /* strings are not events */
	return id;
}

static void note_thread_name(struct sk_writer *w, uint32_t tid)
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
		id = intern(w, name);
		if (id > 0) {
			sqlite3_bind_int64(w->st[SK_INS_THREAD], 1, w->run_id);
			sqlite3_bind_int64(w->st[SK_INS_THREAD], 2, w->global_pid | tid);
			sqlite3_bind_int64(w->st[SK_INS_THREAD], 3, id);
			if (step(w, SK_INS_THREAD, SK_K_OTHER) == 0)
				w->rows[SK_K_OTHER]--;
		}
	}
	fclose(f);
}

/*
 * CUPTI reports the OS thread id where it fits (Linux tids are below 2^22 by default); those
 * are stored as they are, with their name from /proc. Anything wider is given a stable
 * synthetic number from 0xF00000 up, so globalTid stays one 24-bit field as nsys defines it.
 */
uint32_t sk_writer_tid(struct sk_writer *w, uint32_t cupti_tid)
{
	int i;

	for (i = 0; i < w->nthreads; i++)
		if (w->threads[i][0] == cupti_tid)
			return w->threads[i][1];
	if (w->nthreads == (int)(sizeof(w->threads) / sizeof(w->threads[0])))
		return cupti_tid & 0xFFFFFF;
	w->threads[i][0] = cupti_tid;
	if (cupti_tid <= 0xEFFFFF) {
		w->threads[i][1] = cupti_tid;
		note_thread_name(w, cupti_tid);
	} else {
		w->threads[i][1] = 0xF00000 + w->next_synthetic_tid++;
	}
	w->nthreads++;
	return w->threads[i][1];
}

static int64_t gtid(struct sk_writer *w, uint32_t cupti_tid)
{
	return w->global_pid | sk_writer_tid(w, cupti_tid);
}

/* ---- open / close ------------------------------------------------------------------------- */

int sk_writer_open(struct sk_writer *w, const char *path, int64_t run_id, uint32_t pid)
{
	int err, rc;

	memset(w, 0, sizeof(*w));
	snprintf(w->path, sizeof(w->path), "%s", path);
	w->run_id = run_id;
	w->pid = pid;
	w->global_pid = (int64_t)pid << 24;
	err = skip_store_create(path, SKIP_STORE_FAST, &w->db);
	if (err)
		return err;
	skip_store_exec(w->db, "PRAGMA cache_size=-16384"); /* 16 MiB page cache */
	for (int i = 0; i < SK_INS_COUNT; i++) {
		rc = sqlite3_prepare_v3(w->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &w->st[i],
					NULL);
		if (rc != SQLITE_OK) {
			err = sk_fail(SKIP_E_DB, "%s: preparing statement %d: %s", path, i,
				      sqlite3_errmsg(w->db));
			sk_writer_close(w, 0);
			return err;
		}
	}
	return 0;
}

int sk_writer_begin(struct sk_writer *w)
{
	int rc;

	if (w->failed || w->in_txn)
		return w->failed ? SKIP_E_DB : 0;
	rc = sqlite3_exec(w->db, "BEGIN", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return write_failed(w, rc, "a transaction");
	w->in_txn = 1;
	return 0;
}

int sk_writer_commit(struct sk_writer *w)
{
	int rc;

	if (!w->in_txn)
		return 0;
	w->in_txn = 0;
	rc = sqlite3_exec(w->db, "COMMIT", NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		sqlite3_exec(w->db, "ROLLBACK", NULL, NULL, NULL);
		return write_failed(w, rc, "a commit");
	}
	return 0;
}

int sk_writer_set_drops(struct sk_writer *w, const char *kind, const char *cause, uint64_t n)
{
	sqlite3_stmt *st = w->st[SK_INS_DROP];

	if (!w->db || !st)
		return SKIP_E_DB;
	sqlite3_bind_int64(st, 1, w->run_id);
	sqlite3_bind_int64(st, 2, w->global_pid);
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

int sk_writer_meta(struct sk_writer *w, const char *key, const char *value)
{
	if (!w->db || w->failed)
		return SKIP_E_DB;
	return skip_store_meta_set(w->db, w->run_id, w->global_pid, key, value);
}

static void flush_open_markers(struct sk_writer *w);

void sk_writer_close(struct sk_writer *w, int standalone)
{
	if (!w->db)
		return;
	if (!w->failed) {
		sk_writer_begin(w);
		flush_open_markers(w);
		sk_writer_commit(w);
	}
	for (int i = 0; i < SK_INS_COUNT; i++)
		sqlite3_finalize(w->st[i]);
	if (standalone && !w->failed)
		skip_store_finalize(w->db);
	sqlite3_close(w->db);
	w->db = NULL;
	sk_strtab_fini(&w->strings);
	for (size_t i = 0; i < w->markers_cap; i++)
		free(w->markers[i].text);
	free(w->markers);
	free(w->knames);
	for (int i = 0; i < w->ndomains; i++)
		free(w->domains[i]);
	w->markers = NULL;
	w->knames = NULL;
	w->ndomains = 0;
}

/* ---- kernels -------------------------------------------------------------------------------- */

static struct sk_kname *kname_slot(struct sk_writer *w, const char *ptr)
{
	size_t i, h = ((uintptr_t)ptr >> 3) * 11400714819323198485ull;

	if ((w->knames_n + 1) * 2 > w->knames_cap) {
		size_t cap = w->knames_cap ? w->knames_cap * 2 : 256;
		struct sk_kname *t = calloc(cap, sizeof(*t));

		if (!t)
			return NULL;
		for (size_t j = 0; j < w->knames_cap; j++) {
			struct sk_kname *o = &w->knames[j];
			size_t k;

			if (!o->ptr)
				continue;
			k = (((uintptr_t)o->ptr >> 3) * 11400714819323198485ull) & (cap - 1);
			while (t[k].ptr)
				k = (k + 1) & (cap - 1);
			t[k] = *o;
		}
		free(w->knames);
		w->knames = t;
		w->knames_cap = cap;
	}
	for (i = h & (w->knames_cap - 1); w->knames[i].ptr; i = (i + 1) & (w->knames_cap - 1))
		if (w->knames[i].ptr == ptr)
			return &w->knames[i];
	return &w->knames[i];
}

static const struct sk_kname *kernel_names(struct sk_writer *w, const char *name)
{
	static struct sk_kname fallback;
	struct sk_kname *k;
	char shortbuf[512];
	char *dem;
	const char *full;

	if (!name)
		name = "<unknown>";
	k = kname_slot(w, name);
	if (!k) {
		k = &fallback;
		k->ptr = NULL;
	} else if (k->ptr) {
		return k;
	}
	dem = sk_demangle(name);
	full = dem ? dem : name;
	sk_short_name(full, shortbuf, sizeof(shortbuf));
	k->demangled = intern(w, full);
	k->shortname = intern(w, shortbuf);
	k->mangled = intern(w, name);
	free(dem);
	if (k != &fallback) {
		k->ptr = name;
		w->knames_n++;
	}
	return k;
}

static void bind_opt_ts(sqlite3_stmt *st, int col, uint64_t ts)
{
	if (ts == (uint64_t)CUPTI_TIMESTAMP_UNKNOWN)
		sqlite3_bind_null(st, col);
	else
		sqlite3_bind_int64(st, col, (int64_t)ts);
}

static int put_kernel(struct sk_writer *w, const CUpti_ActivityKernel10 *k)
{
	sqlite3_stmt *st = w->st[SK_INS_KERNEL];
	const struct sk_kname *n = kernel_names(w, k->name);
	int c = 1;

	sqlite3_bind_int64(st, c++, w->run_id);
	sqlite3_bind_int64(st, c++, (int64_t)k->start);
	sqlite3_bind_int64(st, c++, (int64_t)k->end);
	sqlite3_bind_int64(st, c++, k->deviceId);
	sqlite3_bind_int64(st, c++, k->contextId);
	sqlite3_bind_int64(st, c++, k->streamId);
	sqlite3_bind_int64(st, c++, k->correlationId);
	sqlite3_bind_int64(st, c++, w->global_pid);
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
	return step(w, SK_INS_KERNEL, SK_K_KERNEL);
}

/* ---- API calls ----------------------------------------------------------------------------- */

static int64_t api_name(struct sk_writer *w, int driver, uint32_t cbid)
{
	const char *name = NULL;
	char buf[48];
	int64_t *slot = cbid < 4096 ? &w->api_names[driver][cbid] : NULL;
	int64_t id;

	if (slot && *slot)
		return *slot;
	if (cuptiGetCallbackName(driver ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API,
				 cbid, &name) != CUPTI_SUCCESS ||
	    !name) {
		snprintf(buf, sizeof(buf), "%s_cbid_%u", driver ? "cu" : "cuda", cbid);
		name = buf;
	}
	id = intern(w, name);
	if (slot && id > 0)
		*slot = id;
	return id;
}

static int put_api(struct sk_writer *w, const CUpti_ActivityAPI *a, int driver)
{
	enum sk_stmt s = driver ? SK_INS_DRIVER : SK_INS_RUNTIME;
	sqlite3_stmt *st = w->st[s];

	sqlite3_bind_int64(st, 1, w->run_id);
	sqlite3_bind_int64(st, 2, (int64_t)a->start);
	sqlite3_bind_int64(st, 3, (int64_t)a->end);
	sqlite3_bind_int64(st, 4, gtid(w, a->threadId));
	sqlite3_bind_int64(st, 5, a->correlationId);
	sqlite3_bind_int64(st, 6, api_name(w, driver, a->cbid));
	sqlite3_bind_int64(st, 7, a->returnValue);
	sqlite3_bind_int64(st, 8, a->cbid);
	return step(w, s, driver ? SK_K_DRIVER : SK_K_RUNTIME);
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

static int put_memcpy(struct sk_writer *w, const CUpti_ActivityMemcpy6 *m)
{
	sqlite3_stmt *st = w->st[SK_INS_MEMCPY];

	sqlite3_bind_int64(st, 1, w->run_id);
	sqlite3_bind_int64(st, 2, (int64_t)m->start);
	sqlite3_bind_int64(st, 3, (int64_t)m->end);
	sqlite3_bind_int64(st, 4, m->deviceId);
	sqlite3_bind_int64(st, 5, m->contextId);
	sqlite3_bind_int64(st, 6, m->streamId);
	sqlite3_bind_int64(st, 7, m->correlationId);
	sqlite3_bind_int64(st, 8, w->global_pid);
	sqlite3_bind_int64(st, 9, (int64_t)m->bytes);
	sqlite3_bind_int(st, 10, m->copyKind);
	sqlite3_bind_int(st, 11, nsys_mem_kind(m->srcKind));
	sqlite3_bind_int(st, 12, nsys_mem_kind(m->dstKind));
	sqlite3_bind_int(st, 13, m->flags);
	bind_graph(st, 14, m->graphId, m->graphNodeId);
	return step(w, SK_INS_MEMCPY, SK_K_MEMCPY);
}

static int put_memset(struct sk_writer *w, const CUpti_ActivityMemset4 *m)
{
	sqlite3_stmt *st = w->st[SK_INS_MEMSET];

	sqlite3_bind_int64(st, 1, w->run_id);
	sqlite3_bind_int64(st, 2, (int64_t)m->start);
	sqlite3_bind_int64(st, 3, (int64_t)m->end);
	sqlite3_bind_int64(st, 4, m->deviceId);
	sqlite3_bind_int64(st, 5, m->contextId);
	sqlite3_bind_int64(st, 6, m->streamId);
	sqlite3_bind_int64(st, 7, m->correlationId);
	sqlite3_bind_int64(st, 8, w->global_pid);
	sqlite3_bind_int64(st, 9, m->value);
	sqlite3_bind_int64(st, 10, (int64_t)m->bytes);
	sqlite3_bind_int(st, 11, nsys_mem_kind(m->memoryKind));
	sqlite3_bind_int(st, 12, m->flags);
	bind_graph(st, 13, m->graphId, m->graphNodeId);
	return step(w, SK_INS_MEMSET, SK_K_MEMSET);
}

static int64_t ctx_device(struct sk_writer *w, uint32_t ctx)
{
	for (int i = 0; i < w->nctx; i++)
		if (w->ctx_dev[i][0] == ctx)
			return w->ctx_dev[i][1];
	return -1;
}

static int put_sync(struct sk_writer *w, const CUpti_ActivitySynchronization2 *s)
{
	sqlite3_stmt *st = w->st[SK_INS_SYNC];
	int64_t dev = ctx_device(w, s->contextId);

	sqlite3_bind_int64(st, 1, w->run_id);
	sqlite3_bind_int64(st, 2, (int64_t)s->start);
	sqlite3_bind_int64(st, 3, (int64_t)s->end);
	if (dev >= 0)
		sqlite3_bind_int64(st, 4, dev);
	else
		sqlite3_bind_null(st, 4);
	sqlite3_bind_int64(st, 5, s->contextId);
	sqlite3_bind_int64(st, 6, s->streamId == CUPTI_SYNCHRONIZATION_INVALID_VALUE
					  ? -1
					  : (int64_t)s->streamId);
	sqlite3_bind_int64(st, 7, s->correlationId);
	sqlite3_bind_int64(st, 8, w->global_pid);
	sqlite3_bind_int(st, 9, (int)s->type);
	if (s->cudaEventId == CUPTI_SYNCHRONIZATION_INVALID_VALUE)
		sqlite3_bind_null(st, 10);
	else
		sqlite3_bind_int64(st, 10, s->cudaEventId);
	sqlite3_bind_int64(st, 11, (int64_t)s->cudaEventSyncId);
	return step(w, SK_INS_SYNC, SK_K_SYNC);
}

static int put_graph(struct sk_writer *w, const CUpti_ActivityGraphTrace2 *g)
{
	sqlite3_stmt *st = w->st[SK_INS_GRAPH];

	sqlite3_bind_int64(st, 1, w->run_id);
	sqlite3_bind_int64(st, 2, (int64_t)g->start);
	sqlite3_bind_int64(st, 3, (int64_t)g->end);
	sqlite3_bind_int64(st, 4, g->deviceId);
	sqlite3_bind_int64(st, 5, g->contextId);
	sqlite3_bind_int64(st, 6, g->streamId);
	sqlite3_bind_int64(st, 7, g->correlationId);
	sqlite3_bind_int64(st, 8, w->global_pid);
	sqlite3_bind_int64(st, 9, g->graphId);
	return step(w, SK_INS_GRAPH, SK_K_GRAPH);
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

static int put_overhead(struct sk_writer *w, const CUpti_ActivityOverhead3 *o)
{
	sqlite3_stmt *st = w->st[SK_INS_OVERHEAD];
	int64_t tid = w->global_pid;

	if (o->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD)
		tid = gtid(w, o->objectId.pt.threadId);
	sqlite3_bind_int64(st, 1, w->run_id);
	sqlite3_bind_int64(st, 2, (int64_t)o->start);
	sqlite3_bind_int64(st, 3, (int64_t)o->end);
	sqlite3_bind_int64(st, 4, tid);
	sqlite3_bind_int64(st, 5, o->correlationId);
	sqlite3_bind_int64(st, 6, intern(w, overhead_name((uint32_t)o->overheadKind)));
	sqlite3_bind_int64(st, 7, (int64_t)o->overheadKind);
	sqlite3_bind_int(st, 8, (int)o->objectKind);
	return step(w, SK_INS_OVERHEAD, SK_K_OVERHEAD);
}

static int put_device(struct sk_writer *w, const CUpti_ActivityDevice5 *d)
{
	sqlite3_stmt *st = w->st[SK_INS_GPU];
	char uuid[40];
	const unsigned char *u = (const unsigned char *)d->uuid.bytes;
	int c = 1;

	snprintf(uuid, sizeof(uuid),
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
		 u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14],
		 u[15]);
	sqlite3_bind_int64(st, c++, w->run_id);
	sqlite3_bind_int64(st, c++, w->global_pid);
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
	return step(w, SK_INS_GPU, SK_K_OTHER);
}

/* ---- NVTX ---------------------------------------------------------------------------------- */

static struct sk_pending_marker *marker_slot(struct sk_writer *w, uint32_t id, int create)
{
	size_t i;

	if (create && (w->markers_n + 1) * 2 > w->markers_cap) {
		size_t cap = w->markers_cap ? w->markers_cap * 2 : 256;
		struct sk_pending_marker *t = calloc(cap, sizeof(*t));

		if (!t)
			return NULL;
		for (size_t j = 0; j < w->markers_cap; j++) {
			size_t k;

			if (!w->markers[j].id)
				continue;
			for (k = (w->markers[j].id * 2654435761u) & (cap - 1); t[k].id;
			     k = (k + 1) & (cap - 1))
				;
			t[k] = w->markers[j];
		}
		free(w->markers);
		w->markers = t;
		w->markers_cap = cap;
	}
	if (!w->markers_cap)
		return NULL;
	for (i = (id * 2654435761u) & (w->markers_cap - 1); w->markers[i].id;
	     i = (i + 1) & (w->markers_cap - 1))
		if (w->markers[i].id == id)
			return &w->markers[i];
	if (!create)
		return NULL;
	memset(&w->markers[i], 0, sizeof(w->markers[i]));
	w->markers[i].id = id;
	w->markers[i].payload_kind = -1;
	w->markers_n++;
	return &w->markers[i];
}

/* Remove a slot from the open-addressing table, re-seating the entries after it. */
static void marker_remove(struct sk_writer *w, struct sk_pending_marker *m)
{
	size_t i = (size_t)(m - w->markers), cap = w->markers_cap;

	free(m->text);
	memset(m, 0, sizeof(*m));
	w->markers_n--;
	for (size_t j = (i + 1) & (cap - 1); w->markers[j].id; j = (j + 1) & (cap - 1)) {
		struct sk_pending_marker tmp = w->markers[j];
		size_t k;

		memset(&w->markers[j], 0, sizeof(tmp));
		for (k = (tmp.id * 2654435761u) & (cap - 1); w->markers[k].id; k = (k + 1) & (cap - 1))
			;
		w->markers[k] = tmp;
	}
}

static int domain_id(struct sk_writer *w, const char *domain)
{
	sqlite3_stmt *st = w->st[SK_INS_NVTX];
	int i;

	if (!domain)
		return 0;
	for (i = 0; i < w->ndomains; i++)
		if (strcmp(w->domains[i], domain) == 0)
			return i + 1;
	if (w->ndomains == (int)(sizeof(w->domains) / sizeof(w->domains[0])))
		return 0;
	w->domains[i] = strdup(domain);
	if (!w->domains[i])
		return 0;
	w->ndomains++;
	/* nsys records a domain's name as an event of type 75 (NvtxDomainCreate). */
	sqlite3_bind_int64(st, 1, w->run_id);
	sqlite3_bind_int64(st, 2, 0);
	sqlite3_bind_null(st, 3);
	sqlite3_bind_int(st, 4, 75);
	sqlite3_bind_null(st, 5);
	sqlite3_bind_null(st, 6);
	sqlite3_bind_null(st, 7);
	sqlite3_bind_text(st, 8, domain, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 9, w->global_pid);
	sqlite3_bind_null(st, 10);
	sqlite3_bind_int(st, 11, i + 1);
	for (int c = 12; c <= 14; c++)
		sqlite3_bind_null(st, c);
	step(w, SK_INS_NVTX, SK_K_NVTX);
	return i + 1;
}

static int put_nvtx_row(struct sk_writer *w, const struct sk_pending_marker *m, int event_type)
{
	sqlite3_stmt *st = w->st[SK_INS_NVTX];

	sqlite3_bind_int64(st, 1, w->run_id);
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
	sqlite3_bind_int64(st, 9, w->global_pid | m->start_tid);
	if (m->have_end)
		sqlite3_bind_int64(st, 10, w->global_pid | m->end_tid);
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
	return step(w, SK_INS_NVTX, SK_K_NVTX);
}

/* A range is written once both halves are here. Push/pop and start/end ranges look the same
 * in CUPTI's records; a range that ends on the thread it started on is stored as push/pop
 * (59), one that ends elsewhere as start/end (60). */
static int emit_range(struct sk_writer *w, struct sk_pending_marker *m)
{
	int err = put_nvtx_row(w, m, m->start_tid == m->end_tid ? 59 : 60);

	marker_remove(w, m);
	return err;
}

static int put_marker(struct sk_writer *w, const CUpti_ActivityMarker2 *mk)
{
	uint32_t tid = 0;
	struct sk_pending_marker *m, one;

	if (mk->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ||
	    mk->objectKind == CUPTI_ACTIVITY_OBJECT_PROCESS)
		tid = mk->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD
			      ? sk_writer_tid(w, mk->objectId.pt.threadId)
			      : 0;
	if (mk->flags & CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS) {
		memset(&one, 0, sizeof(one));
		one.id = mk->id;
		one.start_ns = mk->timestamp;
		one.start_tid = tid;
		one.domain = domain_id(w, mk->domain);
		one.text = (char *)mk->name;
		one.payload_kind = -1;
		return put_nvtx_row(w, &one, 34);
	}
	if (!(mk->flags & (CUPTI_ACTIVITY_FLAG_MARKER_START | CUPTI_ACTIVITY_FLAG_MARKER_END)))
		return 0; /* sync-object markers: not recorded */
	m = marker_slot(w, mk->id, 1);
	if (!m) {
		w->lost[SK_K_NVTX]++;
		return 0;
	}
	if (mk->flags & CUPTI_ACTIVITY_FLAG_MARKER_START) {
		m->have_start = 1;
		m->start_ns = mk->timestamp;
		m->start_tid = tid;
		m->domain = domain_id(w, mk->domain);
		free(m->text);
		m->text = mk->name ? strdup(mk->name) : NULL;
	} else {
		m->have_end = 1;
		m->end_ns = mk->timestamp;
		m->end_tid = tid;
	}
	return m->have_start && m->have_end ? emit_range(w, m) : 0;
}

static void put_marker_data(struct sk_writer *w, const CUpti_ActivityMarkerData2 *d)
{
	struct sk_pending_marker *m = marker_slot(w, d->id, 0);

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

static void flush_open_markers(struct sk_writer *w)
{
	for (size_t i = 0; i < w->markers_cap; i++) {
		struct sk_pending_marker *m = &w->markers[i];

		if (!m->id)
			continue;
		if (m->have_start)
			put_nvtx_row(w, m, 59); /* still open at exit: end is NULL */
		else
			w->nvtx_unmatched++;
	}
}

/* ---- dispatch -------------------------------------------------------------------------------- */

int sk_writer_record(struct sk_writer *w, const CUpti_Activity *rec)
{
	if (w->failed)
		return SKIP_E_DB;
	switch (rec->kind) {
	case CUPTI_ACTIVITY_KIND_KERNEL:
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
		return put_kernel(w, (const CUpti_ActivityKernel10 *)rec);
	case CUPTI_ACTIVITY_KIND_RUNTIME:
		return put_api(w, (const CUpti_ActivityAPI *)rec, 0);
	case CUPTI_ACTIVITY_KIND_DRIVER:
		return put_api(w, (const CUpti_ActivityAPI *)rec, 1);
	case CUPTI_ACTIVITY_KIND_MEMCPY:
		return put_memcpy(w, (const CUpti_ActivityMemcpy6 *)rec);
	case CUPTI_ACTIVITY_KIND_MEMSET:
		return put_memset(w, (const CUpti_ActivityMemset4 *)rec);
	case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
		return put_sync(w, (const CUpti_ActivitySynchronization2 *)rec);
	case CUPTI_ACTIVITY_KIND_GRAPH_TRACE:
		return put_graph(w, (const CUpti_ActivityGraphTrace2 *)rec);
	case CUPTI_ACTIVITY_KIND_MARKER:
		return put_marker(w, (const CUpti_ActivityMarker2 *)rec);
	case CUPTI_ACTIVITY_KIND_MARKER_DATA:
		put_marker_data(w, (const CUpti_ActivityMarkerData2 *)rec);
		return 0;
	case CUPTI_ACTIVITY_KIND_OVERHEAD:
		return put_overhead(w, (const CUpti_ActivityOverhead3 *)rec);
	case CUPTI_ACTIVITY_KIND_DEVICE:
		return put_device(w, (const CUpti_ActivityDevice5 *)rec);
	case CUPTI_ACTIVITY_KIND_CONTEXT: {
		const CUpti_ActivityContext3 *c = (const CUpti_ActivityContext3 *)rec;

		if (w->nctx < (int)(sizeof(w->ctx_dev) / sizeof(w->ctx_dev[0]))) {
			w->ctx_dev[w->nctx][0] = c->contextId;
			w->ctx_dev[w->nctx][1] = c->deviceId;
			w->nctx++;
		}
		return 0;
	}
	default:
		w->rows[SK_K_OTHER]++;
		return 0;
	}
}
