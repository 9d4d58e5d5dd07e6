/*
 * fuzz_sql.c: the analyzer and the advisor on valid SQLite files holding odd values. The first
 * input byte picks a base trace (tests/fixtures/hand/common.sql alone, or with one of the hand
 * traces on top; built once at start); the rest is SQL (UPDATE, INSERT, DELETE...) applied to
 * a copy of it, statement by statement, errors skipped, before the copy goes through
 * fz_drive_trace() as `skip report` and `skip advise` take it. The helper views of common.sql
 * (k, api, range: one kernel, API call or NVTX range per row) are there for the statements.
 *
 * The statements cannot reach outside the copy: ATTACH, DETACH and PRAGMA are refused by an
 * authorizer, an input that says VACUUM (VACUUM INTO writes a file) is skipped, values are
 * limited to 1 MiB, the file to 16 MiB, and a progress handler stops a statement after some
 * millions of steps (a recursive CTE).
 */
#include <ctype.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fuzz.h"
#include "skip_common.h"

/* Bases: common.sql, then NAME (and MORE) of tests/fixtures/hand on top. */
static const struct {
	const char *name, *more;
} hand[] = {
    {NULL, NULL},
    {"launch", NULL},
    {"nvtx", NULL},
    {"graph", NULL},
    {"streams", NULL},
    {"sweep", NULL},
    {"runs", NULL},
    {"advise_chains", NULL},
    {"advise_launch_loop", NULL},
    {"advise_model", NULL},
    {"advise_model_runs", NULL},
    {"advise_wl", "advise_wl_run2"},
};
#define NBASES (sizeof(hand) / sizeof(hand[0]))

static struct {
	char *bytes;
	size_t n;
} base[NBASES];
static char *helpers; /* common.sql's CREATE TEMP statements: the helper views */
static unsigned steps;

/* The CREATE TEMP statements of @sql, in order: prepared over the schema (and each other, a
 * trigger needs its view), the rest of @sql left unrun. */
static char *temp_statements(const char *sql)
{
	sqlite3 *db = NULL;
	const char *tail = sql;
	char *out = calloc(1, strlen(sql) + 1);

	if (!out || sqlite3_open(":memory:", &db) != SQLITE_OK ||
	    sqlite3_exec(db, skip_trace_sql, NULL, NULL, NULL) != SQLITE_OK)
		abort();
	while (*tail) {
		sqlite3_stmt *st = NULL;
		const char *start = tail;

		if (sqlite3_prepare_v2(db, start, -1, &st, &tail) != SQLITE_OK) {
			fprintf(stderr, "fuzz_sql: common.sql: %s\n", sqlite3_errmsg(db));
			abort();
		}
		if (!st)
			break; /* only comments left */
		while (isspace((unsigned char)*start) || (start[0] == '-' && start[1] == '-'))
			start = *start == '-' ? start + strcspn(start, "\n") : start + 1;
		if (!strncmp(start, "CREATE TEMP", 11)) {
			sqlite3_step(st);
			strncat(out, start, (size_t)(tail - start));
		}
		sqlite3_finalize(st);
	}
	sqlite3_close(db);
	return out;
}

static void build_base(size_t i)
{
	const char *path = fz_path("base.skip.db");

	fz_hand_trace(path, hand[i].name, hand[i].more);
	base[i].bytes = fz_slurp(path, &base[i].n);
	if (!base[i].bytes)
		abort();
	fz_unlink_db(path);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char *common;

	(void)argc;
	(void)argv;
	fz_init();
	common = fz_hand_sql("common");
	helpers = temp_statements(common);
	free(common);
	for (size_t i = 0; i < NBASES; i++)
		build_base(i);
	return 0;
}

static int deny(void *arg, int action, const char *a, const char *b, const char *c, const char *d)
{
	(void)arg;
	(void)a;
	(void)b;
	(void)c;
	(void)d;
	return action == SQLITE_ATTACH || action == SQLITE_DETACH || action == SQLITE_PRAGMA
		   ? SQLITE_DENY
		   : SQLITE_OK;
}

static int progress(void *arg)
{
	(void)arg;
	return ++steps > 4000; /* x 1000 VM steps */
}

static int says_vacuum(const char *s)
{
	for (; *s; s++)
		if (!strncasecmp(s, "vacuum", 6))
			return 1;
	return 0;
}

/* Run each statement of @sql, skipping those that fail; stop at a syntax error. */
static void apply(sqlite3 *db, const char *sql)
{
	const char *tail = sql;

	while (*tail) {
		sqlite3_stmt *st = NULL;

		if (sqlite3_prepare_v2(db, tail, -1, &st, &tail) != SQLITE_OK || !st)
			break;
		while (sqlite3_step(st) == SQLITE_ROW)
			;
		sqlite3_finalize(st);
		if (steps > 4000)
			break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fz_path("sql.skip.db");
	size_t b = size ? data[0] % NBASES : 0;
	char *sql = fz_cstr(data + (size ? 1 : 0), size ? size - 1 : 0);
	sqlite3 *db = NULL;

	if (says_vacuum(sql)) {
		free(sql);
		return 0;
	}
	fz_write(path, base[b].bytes, base[b].n);
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK)
		abort();
	sqlite3_exec(db, helpers, NULL, NULL, NULL);
	sqlite3_exec(db, "PRAGMA max_page_count = 4096", NULL, NULL, NULL);
	sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
	sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 1 << 20);
	sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
	sqlite3_set_authorizer(db, deny, NULL);
	steps = 0;
	sqlite3_progress_handler(db, 1000, progress, NULL);
	apply(db, sql);
	sqlite3_close(db);
	free(sql);
	fz_drive_trace(path);
	fz_unlink_db(path);
	return 0;
}
