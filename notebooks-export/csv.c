/*
 * csv.c: a trace's tables, or the rows of an SQL query, as CSV (RFC 4180), streamed row by
 * row from SQLite. RFC 4180 leaves text encoding and NULL open: text is written as the UTF-8
 * it is stored as, NULL as an empty field, a blob as hex digits.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static void field(struct ew *w, const char *s, size_t n)
{
	size_t start = 0;

	if (!memchr(s, ',', n) && !memchr(s, '"', n) && !memchr(s, '\n', n) &&
	    !memchr(s, '\r', n)) {
		sk_ew_mem(w, s, n);
		return;
	}
	sk_ew_chr(w, '"');
	for (size_t i = 0; i < n; i++) {
		if (s[i] != '"')
			continue;
		sk_ew_mem(w, s + start, i + 1 - start); /* the quote, then its double */
		start = i;
	}
	sk_ew_mem(w, s + start, n - start);
	sk_ew_chr(w, '"');
}

static void cell(struct ew *w, sqlite3_stmt *st, int i)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *b;
	char buf[40];
	double d;
	int n;

	switch (sqlite3_column_type(st, i)) {
	case SQLITE_INTEGER:
		sk_ew_i64(w, sqlite3_column_int64(st, i));
		break;
	case SQLITE_FLOAT:
		d = sqlite3_column_double(st, i);
		snprintf(buf, sizeof(buf),
			 isfinite(d) ? "%.17g"
			 : d > 0     ? "inf"
			 : d < 0     ? "-inf"
				     : "nan",
			 d);
		sk_ew_str(w, buf);
		break;
	case SQLITE_BLOB:
		b = sqlite3_column_blob(st, i);
		n = sqlite3_column_bytes(st, i);
		for (int k = 0; k < n; k++) {
			sk_ew_chr(w, hex[b[k] >> 4]);
			sk_ew_chr(w, hex[b[k] & 15]);
		}
		break;
	case SQLITE_TEXT:
		field(w, (const char *)sqlite3_column_text(st, i),
		      (size_t)sqlite3_column_bytes(st, i));
		break;
	default: /* NULL */
		break;
	}
}

/* Write every row of the prepared @st, after its header. */
static int write_rows(sqlite3 *db, sqlite3_stmt *st, FILE *out, int64_t *rows)
{
	struct ew *w = sk_xmalloc(sizeof(*w));
	int n = sqlite3_column_count(st), rc, err = 0;
	const char *name;

	*rows = 0;
	sk_ew_init(w, out);
	for (int i = 0; i < n; i++) {
		if (i)
			sk_ew_chr(w, ',');
		name = sqlite3_column_name(st, i);
		field(w, name ? name : "", name ? strlen(name) : 0);
	}
	sk_ew_str(w, "\r\n");
	while (!w->err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		for (int i = 0; i < n; i++) {
			if (i)
				sk_ew_chr(w, ',');
			cell(w, st, i);
		}
		sk_ew_str(w, "\r\n");
		++*rows;
	}
	if (!w->err && rc != SQLITE_DONE)
		err = sk_fail(SKIP_E_DB, "reading the trace failed: %s", sqlite3_errmsg(db));
	if (sk_ew_flush(w) && !err)
		err = sk_fail(SKIP_E_IO, "writing the CSV failed");
	free(w);
	return err;
}

int skip_export_csv_tables(struct skip_trace *t, char ***names)
{
	sqlite3 *db = skip_trace_db(t);
	sqlite3_stmt *st = NULL;
	size_t n = 0, cap = 0;
	int rc;

	*names = NULL;
	if (sqlite3_prepare_v2(db,
			       "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT "
			       "LIKE 'sqlite%' ORDER BY name",
			       -1, &st, NULL) != SQLITE_OK)
		return sk_fail(SKIP_E_DB, "%s", sqlite3_errmsg(db));
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		SK_VEC_XPUSH(*names, n, cap, sk_xstrdup((const char *)sqlite3_column_text(st, 0)));
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		for (size_t i = 0; i < n; i++)
			free((*names)[i]);
		free(*names);
		*names = NULL;
		return sk_fail(SKIP_E_DB, "%s", sqlite3_errmsg(db));
	}
	return (int)n;
}

/* Whether @table has the column @name. */
static int has_column(sqlite3 *db, const char *table, const char *name)
{
	char *sql = sk_xasprintf("SELECT count(*) FROM pragma_table_info('%s') WHERE name = '%s'",
				 table, name);
	int64_t n = sk_db_int(db, 0, sql);

	free(sql);
	return n > 0;
}

int skip_export_csv_table(struct skip_trace *t, const char *table,
			  const struct skip_export_sel *sel, FILE *out, int64_t *rows)
{
	sqlite3 *db = skip_trace_db(t);
	sqlite3_stmt *st = NULL;
	char *where, *sql;
	int err;

	*rows = 0;
	if (strchr(table, '"') || strchr(table, '\''))
		return sk_fail(SKIP_E_INVAL, "unusual table name %s", table);
	where = sk_sel_where(sel, "", has_column(db, table, "runId"),
			     has_column(db, table, "start") && has_column(db, table, "end"));
	sql = sk_xasprintf("SELECT * FROM \"%s\" WHERE %s", table, where);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		err = sk_fail(SKIP_E_DB, "reading %s failed: %s", table, sqlite3_errmsg(db));
	else
		err = write_rows(db, st, out, rows);
	sqlite3_finalize(st);
	free(sql);
	free(where);
	return err;
}

int skip_export_csv_query(struct skip_trace *t, const char *sql, FILE *out, int64_t *rows)
{
	sqlite3 *db = skip_trace_db(t);
	sqlite3_stmt *st = NULL;
	const char *tail = NULL;
	int err;

	*rows = 0;
	if (sqlite3_prepare_v2(db, sql, -1, &st, &tail) != SQLITE_OK)
		return sk_fail(SKIP_E_INVAL, "the query does not compile: %s", sqlite3_errmsg(db));
	if (!st)
		return sk_fail(SKIP_E_INVAL, "the query is empty");
	while (tail &&
	       (*tail == ' ' || *tail == '\t' || *tail == '\n' || *tail == '\r' || *tail == ';'))
		tail++;
	if (tail && *tail) {
		sqlite3_finalize(st);
		return sk_fail(SKIP_E_INVAL,
			       "one SQL statement per --query (more follows: '%.40s')", tail);
	}
	if (!sqlite3_stmt_readonly(st)) {
		sqlite3_finalize(st);
		return sk_fail(SKIP_E_INVAL,
			       "--query runs a SELECT; the trace is opened read-only");
	}
	err = write_rows(db, st, out, rows);
	sqlite3_finalize(st);
	return err;
}
