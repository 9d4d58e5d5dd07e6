/*
 * store.c: the trace store. Creates trace files with the schema of schemas/trace.sql (embedded
 * as skip_trace_sql), opens existing ones with the checks users need to get one clear line
 * instead of a crash (missing, not SQLite, truncated, foreign, newer), finalizes them after a
 * recording (indexes, out of WAL mode), and counts what they hold for summaries.
 */
#define SK_LOG_DOMAIN "store"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "skip_common.h"

/* Map an SQLite result code to ours, with the message set for the user ("WHAT: reason", or
 * just the reason when @what is empty). */
/* SQLite's message on one line of at most ~160 characters: a damaged schema can make it quote
 * whole CREATE statements. */
static const char *one_line(const char *msg, char *buf, size_t n)
{
	size_t j = 0;

	for (size_t i = 0; msg[i] && j + 4 < n; i++) {
		if (j >= 160) {
			memcpy(buf + j, "...", 3);
			j += 3;
			break;
		}
		if (msg[i] == '\n' || msg[i] == '\r' || msg[i] == '\t') {
			if (j && buf[j - 1] != ' ')
				buf[j++] = ' ';
		} else {
			buf[j++] = msg[i];
		}
	}
	buf[j] = '\0';
	return buf;
}

static int db_fail(sqlite3 *db, int rc, const char *what)
{
	char line[256];
	const char *msg =
	    one_line(db ? sqlite3_errmsg(db) : sqlite3_errstr(rc), line, sizeof(line));
	char pre[512];

	snprintf(pre, sizeof(pre), "%s%s", what, *what ? ": " : "");
	what = pre;

	switch (rc & 0xff) {
	case SQLITE_FULL:
		return sk_fail(SKIP_E_FULL, "%sdisk full (%s)", what, msg);
	case SQLITE_NOTADB:
		return sk_fail(SKIP_E_NOTSQLITE, "%snot an SQLite database", what);
	case SQLITE_CORRUPT:
		return sk_fail(SKIP_E_CORRUPT, "%sdatabase is truncated or corrupt (%s)", what,
			       msg);
	case SQLITE_NOMEM:
		return sk_fail(SKIP_E_NOMEM, "%sout of memory", what);
	case SQLITE_IOERR:
		return sk_fail(SKIP_E_IO, "%sI/O error (%s)", what, msg);
	default:
		return sk_fail(SKIP_E_DB, "%s%s", what, msg);
	}
}

int skip_store_exec(sqlite3 *db, const char *sql)
{
	char *msg = NULL;
	int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);

	if (rc != SQLITE_OK) {
		int err = db_fail(db, rc, "");

		sk_dbg(1, "failed SQL: %s: %s", sql, msg ? msg : "");
		sqlite3_free(msg);
		return err;
	}
	return 0;
}

int64_t sk_db_int(sqlite3 *db, int64_t dflt, const char *sql)
{
	sqlite3_stmt *st = NULL;
	int64_t v = dflt;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return dflt;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

void sk_db_meta_text(sqlite3 *db, const char *key, char *buf, size_t n)
{
	sqlite3_stmt *st = NULL;

	buf[0] = '\0';
	if (sqlite3_prepare_v2(
		db,
		"SELECT value FROM SKIP_METADATA WHERE key = ? AND value IS NOT NULL "
		"ORDER BY runId, globalPid LIMIT 1",
		-1, &st, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		snprintf(buf, n, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
}

/* META_DATA_EXPORT's row naming the writer (the rest come with schemas/trace.sql). */
#define PRODUCT_ROW                                                                                \
	"INSERT OR REPLACE INTO META_DATA_EXPORT VALUES ('EXPORT_PRODUCT_VERSION', "               \
	"'skip " SKIP_VERSION "');"

static void remove_sidecars(const char *path)
{
	char buf[4096];

	snprintf(buf, sizeof(buf), "%s-wal", path);
	unlink(buf);
	snprintf(buf, sizeof(buf), "%s-shm", path);
	unlink(buf);
	snprintf(buf, sizeof(buf), "%s-journal", path);
	unlink(buf);
}

int skip_store_create(const char *path, unsigned flags, sqlite3 **out)
{
	struct stat st;
	sqlite3 *db = NULL;
	char pragmas[256];
	int rc, err;

	*out = NULL;
	if (lstat(path, &st) == 0) {
		if (!(flags & SKIP_STORE_OVERWRITE))
			return sk_fail(SKIP_E_EXISTS, "%s: file exists", path);
		/* Only a regular file is ever replaced (never a device, a directory or what a
		 * symlink names); which files may be replaced is skip_outfile_open()'s rule. */
		if (!S_ISREG(st.st_mode))
			return sk_fail(SKIP_E_INVAL, "%s: not a regular file; not replaced", path);
		if (unlink(path) != 0)
			return sk_fail(-errno, "%s: cannot remove: %s", path, strerror(errno));
	}
	remove_sidecars(path);
	/* NOMUTEX: a handle is used by one thread at a time (skip_common.h), so SQLite's
	 * per-call locking is pure cost on the collector's and the analyzer's hot loops. */
	rc = sqlite3_open_v2(
	    path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK) {
		err = db_fail(db, rc, path);
		goto fail;
	}
	sqlite3_busy_timeout(db, 5000);
	snprintf(pragmas, sizeof(pragmas),
		 "PRAGMA journal_mode=WAL; PRAGMA synchronous=%s; PRAGMA user_version=%d;",
		 (flags & SKIP_STORE_FAST) ? "OFF" : "NORMAL", SKIP_SCHEMA_VERSION);
	err = skip_store_exec(db, pragmas);
	if (!err)
		err = skip_store_exec(db, skip_trace_sql);
	if (!err)
		err = skip_store_exec(db, PRODUCT_ROW);
	if (err) {
		sk_fail(err, "%s: cannot create the trace: %s", path, skip_errmsg());
		goto fail;
	}
	*out = db;
	return 0;
fail:
	sqlite3_close(db);
	return err;
}

int sk_db_has_column(sqlite3 *db, const char *table, const char *column)
{
	sqlite3_stmt *st = NULL;
	int found = 0;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2", -1, &st,
			       NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, column, -1, SQLITE_STATIC);
	found = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return found;
}

int sk_db_has_table(sqlite3 *db, const char *name)
{
	sqlite3_stmt *st = NULL;
	int found = 0;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM main.sqlite_master WHERE type='table' AND name=?",
			       -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	found = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return found;
}

/* Cheap checks before SQLite sees the file: exists, regular, starts with the SQLite magic. */
static int precheck(const char *path, int *truncated)
{
	static const char magic[16] = "SQLite format 3";
	unsigned char hdr[100];
	struct stat stbuf;
	char wal[4096];
	ssize_t n;
	int fd;

	*truncated = 0;
	if (stat(path, &stbuf) != 0)
		return sk_fail(errno == ENOENT ? SKIP_E_NOTFOUND : -errno, "%s: %s", path,
			       errno == ENOENT ? "no such file" : strerror(errno));
	if (!S_ISREG(stbuf.st_mode))
		return sk_fail(SKIP_E_INVAL, "%s: not a regular file", path);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return sk_fail(-errno, "%s: %s", path, strerror(errno));
	n = read(fd, hdr, sizeof(hdr));
	close(fd);
	if (n < (ssize_t)sizeof(hdr) || memcmp(hdr, magic, sizeof(magic)) != 0)
		return sk_fail(SKIP_E_NOTSQLITE,
			       "%s: not a skip trace (not an SQLite database); record one with "
			       "'skip record -o FILE -- ./app'",
			       path);
	/* Header bytes 16-17: page size (1 means 65536); 28-31: database size in pages. A file
	 * shorter than that was cut off (unless a -wal file still holds pages). */
	{
		uint32_t psize = ((uint32_t)hdr[16] << 8) | hdr[17];
		uint32_t pages = ((uint32_t)hdr[28] << 24) | ((uint32_t)hdr[29] << 16) |
				 ((uint32_t)hdr[30] << 8) | hdr[31];

		if (psize == 1)
			psize = 65536;
		snprintf(wal, sizeof(wal), "%s-wal", path);
		if (access(wal, F_OK) != 0 && (uint64_t)stbuf.st_size < (uint64_t)psize * pages)
			*truncated = 1;
	}
	return 0;
}

/* A read-only open fails on a file whose last write did not finish in rollback-journal mode:
 * SQLite must undo that write (a "hot" journal) before anyone can read it. */
static int hot_journal(const char *path, int rc)
{
	char *j = sk_xasprintf("%s-journal", path);
	struct stat st;
	int hot = (rc & 0xff) == SQLITE_READONLY && stat(j, &st) == 0 && st.st_size > 0;

	free(j);
	return hot;
}

static int journal_fail(const char *path)
{
	return sk_fail(SKIP_E_IO,
		       "%s: a write to this file did not finish (%s-journal is left); skip "
		       "opens traces read-only and cannot undo it. To read the file as it "
		       "was before that write, let SQLite roll it back once: "
		       "sqlite3 %s 'PRAGMA quick_check' (copy both files first to keep them)",
		       path, path, path);
}

/* Why an SQLite file that lacks SKIP_RUNS or a schema version is not read: a skip trace that
 * was damaged (it has skip's other tables), an Nsight Systems export, or something else. */
static int not_skip(sqlite3 *db, const char *path)
{
	int skip_tables = sk_db_int(db, 0,
				    "SELECT count(*) FROM sqlite_master WHERE type='table' AND "
				    "name IN ('SKIP_RUNS', 'SKIP_METADATA', 'SKIP_PROCESSES', "
				    "'SKIP_DROPS')") > 0;

	if (skip_tables)
		return sk_fail(SKIP_E_CORRUPT,
			       "%s: a damaged skip trace (%s); it cannot be read: record it "
			       "again",
			       path,
			       !sk_db_has_table(db, "SKIP_RUNS")
				   ? "its SKIP_RUNS table is missing"
				   : "its schema version, PRAGMA user_version, is 0");
	if (sk_db_has_table(db, "StringIds") && sk_db_has_table(db, "CUPTI_ACTIVITY_KIND_KERNEL"))
		return sk_fail(SKIP_E_FOREIGN,
			       "%s: looks like an Nsight Systems export, which this version of "
			       "skip cannot read yet; record with 'skip record'",
			       path);
	return sk_fail(SKIP_E_FOREIGN,
		       "%s: an SQLite database but not a skip trace (no SKIP_RUNS table)", path);
}

int skip_store_open(const char *path, unsigned flags, sqlite3 **out)
{
	sqlite3 *db = NULL;
	int truncated, err, rc;
	int64_t version;
	int oflags = (flags & SKIP_STORE_READONLY) ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE;

	*out = NULL;
	err = precheck(path, &truncated);
	if (err)
		return err;
	if (truncated)
		return sk_fail(
		    SKIP_E_CORRUPT,
		    "%s: the file is truncated (shorter than its header says); it cannot "
		    "be read",
		    path);
	rc = sqlite3_open_v2(path, &db, oflags | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK) {
		err = db_fail(db, rc, path);
		goto fail;
	}
	sqlite3_busy_timeout(db, 5000);
	rc = sqlite3_exec(db, "SELECT count(*) FROM sqlite_master", NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		err = hot_journal(path, rc) ? journal_fail(path) : db_fail(db, rc, path);
		goto fail;
	}
	version = sk_db_int(db, -1, "PRAGMA user_version");
	if (!sk_db_has_table(db, "SKIP_RUNS") || version <= 0) {
		err = not_skip(db, path);
		goto fail;
	}
	if (version > SKIP_SCHEMA_VERSION) {
		err = sk_fail(SKIP_E_NEWER,
			      "%s: written by a newer skip (trace schema %lld; this skip %s reads "
			      "up to %d): upgrade skip",
			      path, (long long)version, SKIP_VERSION, SKIP_SCHEMA_VERSION);
		goto fail;
	}
	if (version < SKIP_SCHEMA_VERSION && !(flags & SKIP_STORE_READONLY)) {
		err = skip_store_migrate(db);
		if (err) {
			sk_fail(err, "%s: cannot bring the trace from schema %lld to %d: %s", path,
				(long long)version, SKIP_SCHEMA_VERSION, skip_errmsg());
			goto fail;
		}
	}
	*out = db;
	return 0;
fail:
	sqlite3_close(db);
	return err;
}

int skip_store_finalize(sqlite3 *db)
{
	static const char sql[] =
	    "CREATE INDEX IF NOT EXISTS KERNEL_run_corr ON "
	    "  CUPTI_ACTIVITY_KIND_KERNEL(runId, globalPid, correlationId);"
	    "CREATE INDEX IF NOT EXISTS KERNEL_run_start ON CUPTI_ACTIVITY_KIND_KERNEL(runId, "
	    "start);"
	    "CREATE INDEX IF NOT EXISTS RUNTIME_run_corr ON "
	    "  CUPTI_ACTIVITY_KIND_RUNTIME(runId, globalTid, correlationId);"
	    "CREATE INDEX IF NOT EXISTS NVTX_run_tid_start ON NVTX_EVENTS(runId, globalTid, start);"
	    "ANALYZE;";
	int err = skip_store_exec(db, sql);

	if (err)
		return err;
	/* A checkpoint plus journal_mode=DELETE leaves one self-contained file. */
	return skip_store_exec(db, "PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode=DELETE;");
}

int skip_store_meta_set(sqlite3 *db, int64_t run_id, int64_t global_pid, const char *key,
			const char *value)
{
	sqlite3_stmt *st = NULL;
	int rc;

	rc =
	    sqlite3_prepare_v2(db,
			       "INSERT OR REPLACE INTO SKIP_METADATA(runId, globalPid, key, value) "
			       "VALUES (?, ?, ?, ?)",
			       -1, &st, NULL);
	if (rc != SQLITE_OK)
		return db_fail(db, rc, "metadata");
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int64(st, 2, global_pid);
	sqlite3_bind_text(st, 3, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, value, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : db_fail(db, rc, "metadata");
}

int skip_store_summarize(sqlite3 *db, struct skip_store_summary *s)
{
	sqlite3_stmt *st = NULL;

	memset(s, 0, sizeof(*s));
	s->runs = sk_db_int(db, 0, "SELECT count(*) FROM SKIP_RUNS");
	s->failed_runs = sk_db_int(db, 0, "SELECT count(*) FROM SKIP_RUNS WHERE status != 'ok'");
	/* Schema 1 and 2 have no kind column: the query fails and every run is a full one. */
	s->baseline_runs =
	    sk_db_int(db, 0, "SELECT count(*) FROM SKIP_RUNS WHERE kind = '" SKIP_RUN_BASELINE "'");
	s->processes = sk_db_int(db, 0,
				 "SELECT count(*) FROM (SELECT DISTINCT runId, globalPid FROM "
				 "SKIP_PROCESSES)");
	s->kernels = sk_db_int(db, 0, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL");
	s->runtime_calls = sk_db_int(
	    db, 0, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE eventClass IS NOT 1");
	/* A version 1 file keeps its driver calls in their own table (a query on a table that
	 * is not there answers the default, 0). */
	s->driver_calls =
	    sk_db_int(db, 0,
		      "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE eventClass IS 1") +
	    sk_db_int(db, 0, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_DRIVER");
	s->nvtx_ranges =
	    sk_db_int(db, 0, "SELECT count(*) FROM NVTX_EVENTS WHERE eventType IN (59, 60)");
	s->nvtx_marks = sk_db_int(db, 0, "SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 34");
	s->memcpys = sk_db_int(db, 0, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY");
	s->memcpy_bytes =
	    sk_db_int(db, 0, "SELECT coalesce(sum(bytes), 0) FROM CUPTI_ACTIVITY_KIND_MEMCPY");
	s->memsets = sk_db_int(db, 0, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMSET");
	s->syncs = sk_db_int(db, 0, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION");
	s->sync_calls =
	    sk_db_int(db, 0,
		      "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds n "
		      "ON n.id = r.nameId WHERE n.value LIKE '%Synchronize%' OR n.value "
		      "LIKE '%WaitEvent%'");
	s->graph_launches = sk_db_int(db, 0, "SELECT count(*) FROM CUDA_GRAPH_TRACE");
	s->dropped = sk_db_int(db, 0, "SELECT coalesce(sum(count), 0) FROM SKIP_DROPS");
	s->span_ns = sk_db_int(
	    db, 0,
	    sk_db_has_table(db, "CUPTI_ACTIVITY_KIND_DRIVER")
		? "SELECT max(e) - min(s) FROM ("
		  " SELECT min(start) s, max(end) e FROM CUPTI_ACTIVITY_KIND_KERNEL"
		  " UNION ALL SELECT min(start), max(end) FROM CUPTI_ACTIVITY_KIND_RUNTIME"
		  " UNION ALL SELECT min(start), max(end) FROM CUPTI_ACTIVITY_KIND_DRIVER)"
		: "SELECT max(e) - min(s) FROM ("
		  " SELECT min(start) s, max(end) e FROM CUPTI_ACTIVITY_KIND_KERNEL"
		  " UNION ALL SELECT min(start), max(end) FROM CUPTI_ACTIVITY_KIND_RUNTIME)");
	if (s->span_ns < 0)
		s->span_ns = 0;
	if (sqlite3_prepare_v2(db, "SELECT name FROM TARGET_INFO_GPU ORDER BY id LIMIT 1", -1, &st,
			       NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
			snprintf(s->gpu, sizeof(s->gpu), "%s",
				 (const char *)sqlite3_column_text(st, 0));
		sqlite3_finalize(st);
	}
	return 0;
}
