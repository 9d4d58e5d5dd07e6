/*
 * merge.c: copy one trace file into another. `skip record` uses it to gather the per-process
 * files the collector writes into the output file. Each file interns its own strings, so every
 * name column is remapped through StringIds on the way; the copy runs in one transaction, so a
 * failed merge leaves the destination as it was and the source untouched.
 *
 * skip_store_export_run() uses the same table list to write one run of a trace to a new file:
 * nsys SQL has no runId, so on a file of many runs it sums over all of them, and a file of one
 * run is how such SQL answers for one run. Its source may be of any schema version skip reads.
 */
#define SK_LOG_DOMAIN "store"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skip_common.h"

/* Event tables and their StringIds columns (NULL-terminated, at most 3). */
static const struct {
	const char *table;
	const char *strcols[4];
	int keyed; /* has a primary key: INSERT OR REPLACE */
} tables[] = {
    {"ThreadNames", {"nameId"}, 0},
    {"SKIP_GPUS", {NULL}, 0}, /* its trigger fills TARGET_INFO_GPU */
    {"CUPTI_ACTIVITY_KIND_KERNEL", {"demangledName", "shortName", "mangledName"}, 0},
    {"CUPTI_ACTIVITY_KIND_RUNTIME", {"nameId"}, 0},
    {"CUPTI_ACTIVITY_KIND_MEMCPY", {NULL}, 0},
    {"CUPTI_ACTIVITY_KIND_MEMSET", {NULL}, 0},
    {"CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", {NULL}, 0},
    {"CUDA_GRAPH_TRACE", {NULL}, 0},
    {"NVTX_EVENTS", {"textId"}, 0},
    {"PROFILER_OVERHEAD", {"nameId"}, 0},
    {"SKIP_METADATA", {NULL}, 1},
    {"SKIP_DROPS", {NULL}, 1},
    {"SKIP_CLOCK_ANCHORS", {NULL}, 0},
    {"SKIP_PROCESSES", {NULL}, 1},
    {"SKIP_PARAMETERS", {NULL}, 1},
    {"SKIP_RUNS", {NULL}, 1}, /* its triggers fill TARGET_INFO_SESSION_START_TIME */
};

#define NTABLES (sizeof(tables) / sizeof(tables[0]))

static int is_strcol(int t, const char *col)
{
	for (int i = 0; tables[t].strcols[i]; i++)
		if (strcmp(tables[t].strcols[i], col) == 0)
			return 1;
	return 0;
}

/*
 * Build "INSERT INTO main.T (cols) SELECT exprs FROM src.S WHERE @where" over the columns both
 * share, T being table @t and S @src_table (T when NULL), name columns remapped through
 * temp.sk_strmap when @remap.
 */
static int build_copy(sqlite3 *dst, int t, const char *src_table, int remap, const char *where,
		      struct sk_strbuf *sql)
{
	struct sk_strbuf cols = {0}, exprs = {0};
	sqlite3_stmt *st = NULL;
	char q[256];
	int n = 0, err = 0;

	if (!src_table)
		src_table = tables[t].table;
	snprintf(q, sizeof(q),
		 "SELECT s.name FROM pragma_table_info('%s', 'src') s "
		 "JOIN pragma_table_info('%s', 'main') m ON m.name = s.name",
		 src_table, tables[t].table);
	if (sqlite3_prepare_v2(dst, q, -1, &st, NULL) != SQLITE_OK)
		return sk_fail(SKIP_E_DB, "merge: %s", sqlite3_errmsg(dst));
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *c = (const char *)sqlite3_column_text(st, 0);

		err |= sk_strbuf_printf(&cols, "%s\"%s\"", n ? ", " : "", c);
		if (remap && is_strcol(t, c))
			err |= sk_strbuf_printf(
			    &exprs, "%s(SELECT new FROM temp.sk_strmap WHERE old = \"%s\")",
			    n ? ", " : "", c);
		else
			err |= sk_strbuf_printf(&exprs, "%s\"%s\"", n ? ", " : "", c);
		n++;
	}
	sqlite3_finalize(st);
	if (!err && n)
		err = sk_strbuf_printf(
		    sql, "INSERT %sINTO main.\"%s\" (%s) SELECT %s FROM src.\"%s\" WHERE %s;",
		    tables[t].keyed ? "OR REPLACE " : "", tables[t].table, cols.buf, exprs.buf,
		    src_table, where);
	free(cols.buf);
	free(exprs.buf);
	return err ? SKIP_E_NOMEM : 0;
}

static int copy_all(sqlite3 *dst)
{
	struct sk_strbuf sql = {0};
	int err = 0;

	err = sk_strbuf_printf(
	    &sql,
	    "CREATE TEMP TABLE IF NOT EXISTS sk_strmap (old INTEGER PRIMARY KEY, new INTEGER);"
	    "DELETE FROM temp.sk_strmap;"
	    "CREATE UNIQUE INDEX IF NOT EXISTS main.StringIds_value ON StringIds(value);"
	    "INSERT OR IGNORE INTO main.StringIds(value) SELECT value FROM src.StringIds;"
	    "INSERT INTO temp.sk_strmap SELECT s.id, m.id FROM src.StringIds s "
	    "  JOIN main.StringIds m ON m.value = s.value;");
	for (size_t t = 0; !err && t < NTABLES; t++)
		err = build_copy(dst, (int)t, NULL, 1, "1", &sql);
	if (!err)
		err = skip_store_exec(dst, sql.buf);
	free(sql.buf);
	return err;
}

/* Undo the open transaction, if SQLite has not already (it rolls back by itself on a full
 * disk), keeping the message of the error being reported. */
static void rollback(sqlite3 *dst)
{
	if (!sqlite3_get_autocommit(dst))
		sqlite3_exec(dst, "ROLLBACK", NULL, NULL, NULL);
}

static int attach(sqlite3 *dst, const char *src_path)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(dst, "ATTACH DATABASE ? AS src", -1, &st, NULL);

	if (rc == SQLITE_OK) {
		sqlite3_bind_text(st, 1, src_path, -1, SQLITE_STATIC);
		rc = sqlite3_step(st);
		sqlite3_finalize(st);
	}
	if (rc != SQLITE_OK && rc != SQLITE_DONE)
		return sk_fail(SKIP_E_DB, "%s: cannot attach: %s", src_path, sqlite3_errmsg(dst));
	return 0;
}

int skip_store_merge(sqlite3 *dst, const char *src_path)
{
	int64_t version;
	int err;

	/* Validate the source with the same checks as any trace, then attach it. Part files
	 * have no SKIP_RUNS rows but do have the table, so skip_store_open() accepts them. */
	{
		sqlite3 *probe = NULL;

		err = skip_store_open(src_path, 0, &probe);
		sqlite3_close(probe);
		if (err)
			return err;
	}
	err = attach(dst, src_path);
	if (err)
		return err;
	version = sk_db_int(dst, -1, "PRAGMA src.user_version");
	if (version != SKIP_SCHEMA_VERSION) {
		err = sk_fail(SKIP_E_OLDER, "%s: trace schema %lld, expected %d", src_path,
			      (long long)version, SKIP_SCHEMA_VERSION);
		goto out;
	}
	err = skip_store_exec(dst, "BEGIN IMMEDIATE");
	if (err)
		goto out;
	err = copy_all(dst);
	if (err) {
		sk_fail(err, "%s: merge failed: %s", src_path, skip_errmsg());
		rollback(dst);
		goto out;
	}
	err = skip_store_exec(dst, "COMMIT");
	if (err) {
		sk_fail(err, "%s: merge failed at commit: %s", src_path, skip_errmsg());
		rollback(dst);
	}
out:
	/* Detach keeps its own error out of the way of the one being reported. */
	sqlite3_exec(dst, "DETACH DATABASE src", NULL, NULL, NULL);
	return err;
}

/* ---- one run to a file of its own ------------------------------------------------------ */

/*
 * The SQL that copies run @run_id of the attached source into main: the strings as they are
 * (same ids, so no name column needs remapping), every table's rows of the run, and the
 * recording-wide SKIP_METADATA rows (runId 0). A version 1 source keeps its driver calls in
 * their own table and its per-process GPU rows in TARGET_INFO_GPU: they go to
 * CUPTI_ACTIVITY_KIND_RUNTIME and SKIP_GPUS.
 */
static int run_copy_sql(sqlite3 *dst, int64_t run_id, struct sk_strbuf *sql)
{
	int v1 = sk_db_int(dst, -1, "PRAGMA src.user_version") == 1;
	char where[96], meta_where[96];
	int err = sk_strbuf_printf(sql, "INSERT INTO main.StringIds(id, value) "
					"SELECT id, value FROM src.StringIds;");

	snprintf(where, sizeof(where), "runId = %lld", (long long)run_id);
	snprintf(meta_where, sizeof(meta_where), "runId IN (0, %lld)", (long long)run_id);
	for (size_t t = 0; !err && t < NTABLES; t++) {
		const char *name = tables[t].table;
		const char *src = v1 && !strcmp(name, "SKIP_GPUS") ? "TARGET_INFO_GPU" : NULL;

		err = build_copy(dst, (int)t, src, 0,
				 strcmp(name, "SKIP_METADATA") ? where : meta_where, sql);
		if (!err && v1 && !strcmp(name, "CUPTI_ACTIVITY_KIND_RUNTIME"))
			err = build_copy(dst, (int)t, "CUPTI_ACTIVITY_KIND_DRIVER", 0, where, sql);
	}
	return err;
}

/* Fill the new trace @dst with run @run_id of the trace at @src_path, in one transaction. */
static int copy_run(sqlite3 *dst, const char *src_path, int64_t run_id)
{
	struct sk_strbuf sql = {0};
	int err = attach(dst, src_path);

	if (err)
		return err;
	err = run_copy_sql(dst, run_id, &sql);
	if (!err)
		err = skip_store_exec(dst, "BEGIN IMMEDIATE");
	if (!err) {
		err = skip_store_exec(dst, sql.buf);
		if (!err)
			err = skip_store_exec(dst, "COMMIT");
		if (err)
			rollback(dst);
	}
	free(sql.buf);
	sqlite3_exec(dst, "DETACH DATABASE src", NULL, NULL, NULL);
	return err;
}

/* 1 when the trace at @path has run @run_id, 0 when not (message set), < 0 on error. */
static int has_run(const char *path, int64_t run_id)
{
	sqlite3 *db = NULL;
	char q[128];
	int64_t n, lo, hi;
	int err = skip_store_open(path, SKIP_STORE_READONLY, &db);

	if (err)
		return err;
	snprintf(q, sizeof(q), "SELECT count(*) FROM SKIP_RUNS WHERE runId = %lld",
		 (long long)run_id);
	n = sk_db_int(db, 0, q);
	lo = sk_db_int(db, 0, "SELECT min(runId) FROM SKIP_RUNS");
	hi = sk_db_int(db, 0, "SELECT max(runId) FROM SKIP_RUNS");
	sqlite3_close(db);
	if (n > 0)
		return 1;
	if (hi < lo || !hi)
		return sk_fail(SKIP_E_NOTFOUND, "%s: no run %lld: the trace has no runs", path,
			       (long long)run_id);
	return sk_fail(SKIP_E_NOTFOUND, "%s: no run %lld (runs %lld to %lld)", path,
		       (long long)run_id, (long long)lo, (long long)hi);
}

int skip_store_export_run(const char *src_path, int64_t run_id, const char *dst_path, int replace)
{
	struct skip_outfile of = {0};
	sqlite3 *dst = NULL;
	int err = has_run(src_path, run_id);

	if (err < 0)
		return err;
	err = skip_outfile_open(&of, dst_path, SKIP_OUT_TRACE, replace, &src_path, 1);
	if (err)
		return err;
	err = skip_store_create(of.tmp, SKIP_STORE_OVERWRITE, &dst);
	if (!err) {
		err = copy_run(dst, src_path, run_id);
		if (err)
			sk_fail(err, "%s: run %lld not written: %s", dst_path, (long long)run_id,
				skip_errmsg());
	}
	if (!err)
		err = skip_store_finalize(dst);
	sqlite3_close(dst);
	if (err) {
		skip_outfile_abort(&of);
		return err;
	}
	return skip_outfile_commit(&of);
}
