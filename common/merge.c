/*
 * merge.c: copy one trace file into another. `skip record` uses it to gather the per-process
 * files the collector writes into the output file. Each file interns its own strings, so every
 * name column is remapped through StringIds on the way; the copy runs in one transaction, so a
 * failed merge leaves the destination as it was and the source untouched.
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
    {"TARGET_INFO_GPU", {NULL}, 0},
    {"CUPTI_ACTIVITY_KIND_KERNEL", {"demangledName", "shortName", "mangledName"}, 0},
    {"CUPTI_ACTIVITY_KIND_RUNTIME", {"nameId"}, 0},
    {"CUPTI_ACTIVITY_KIND_DRIVER", {"nameId"}, 0},
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
    {"SKIP_RUNS", {NULL}, 1},
};

static int is_strcol(int t, const char *col)
{
	for (int i = 0; tables[t].strcols[i]; i++)
		if (strcmp(tables[t].strcols[i], col) == 0)
			return 1;
	return 0;
}

/* Build "INSERT INTO main.T (cols) SELECT exprs FROM src.T" over the columns both share. */
static int build_copy(sqlite3 *dst, int t, struct sk_strbuf *sql)
{
	struct sk_strbuf cols = {0}, exprs = {0};
	sqlite3_stmt *st = NULL;
	char q[256];
	int n = 0, err = 0;

	snprintf(q, sizeof(q),
		 "SELECT s.name FROM pragma_table_info('%s', 'src') s "
		 "JOIN pragma_table_info('%s', 'main') m ON m.name = s.name",
		 tables[t].table, tables[t].table);
	if (sqlite3_prepare_v2(dst, q, -1, &st, NULL) != SQLITE_OK)
		return sk_fail(SKIP_E_DB, "merge: %s", sqlite3_errmsg(dst));
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *c = (const char *)sqlite3_column_text(st, 0);

		err |= sk_strbuf_printf(&cols, "%s\"%s\"", n ? ", " : "", c);
		if (is_strcol(t, c))
			err |= sk_strbuf_printf(
			    &exprs, "%s(SELECT new FROM temp.sk_strmap WHERE old = \"%s\")",
			    n ? ", " : "", c);
		else
			err |= sk_strbuf_printf(&exprs, "%s\"%s\"", n ? ", " : "", c);
		n++;
	}
	sqlite3_finalize(st);
	if (!err && n)
		err = sk_strbuf_printf(sql,
				       "INSERT %sINTO main.\"%s\" (%s) SELECT %s FROM src.\"%s\";",
				       tables[t].keyed ? "OR REPLACE " : "", tables[t].table,
				       cols.buf, exprs.buf, tables[t].table);
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
	for (size_t t = 0; !err && t < sizeof(tables) / sizeof(tables[0]); t++)
		err = build_copy(dst, (int)t, &sql);
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

int skip_store_merge(sqlite3 *dst, const char *src_path)
{
	sqlite3_stmt *st = NULL;
	int64_t version;
	int err, rc;

	/* Validate the source with the same checks as any trace, then attach it. Part files
	 * have no SKIP_RUNS rows but do have the table, so skip_store_open() accepts them. */
	{
		sqlite3 *probe = NULL;

		err = skip_store_open(src_path, 0, &probe);
		sqlite3_close(probe);
		if (err)
			return err;
	}
	rc = sqlite3_prepare_v2(dst, "ATTACH DATABASE ? AS src", -1, &st, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_text(st, 1, src_path, -1, SQLITE_STATIC);
		rc = sqlite3_step(st);
		sqlite3_finalize(st);
	}
	if (rc != SQLITE_OK && rc != SQLITE_DONE)
		return sk_fail(SKIP_E_DB, "%s: cannot attach: %s", src_path, sqlite3_errmsg(dst));
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
