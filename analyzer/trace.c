/*
 * trace.c: opening a trace for analysis: the store's checks (skip_store_open), StringIds read
 * once into memory, and the list of runs. The analyzer needs no index: it reads each run with
 * sequential scans (load.c), so it never writes to the file it reads.
 */
#define SK_LOG_DOMAIN "analyzer"
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static int load_strings(struct skip_trace *t)
{
	sqlite3_stmt *st = NULL;
	int64_t max = sk_db_int(t->db, 0, "SELECT max(id) FROM StringIds");

	if (max < 0 || max > (1 << 28))
		return sk_fail(SKIP_E_CORRUPT, "%s: StringIds ids out of range", t->path);
	t->nstrings = max + 1;
	t->strings = sk_xcalloc((size_t)t->nstrings, sizeof(char *));
	if (sqlite3_prepare_v2(t->db, "SELECT id, value FROM StringIds", -1, &st, NULL) !=
	    SQLITE_OK)
		return sk_fail(SKIP_E_DB, "%s: %s", t->path, sqlite3_errmsg(t->db));
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		const char *v = (const char *)sqlite3_column_text(st, 1);

		if (id >= 0 && id < t->nstrings && v && !t->strings[id])
			t->strings[id] = sk_xstrdup(v);
	}
	sqlite3_finalize(st);
	return 0;
}

int skip_trace_open(const char *path, struct skip_trace **out)
{
	struct skip_trace *t;
	int err;

	*out = NULL;
	t = sk_xcalloc(1, sizeof(*t));
	t->path = sk_xstrdup(path);
	err = skip_store_open(path, SKIP_STORE_READONLY, &t->db);
	if (!err) {
		/* No mmap: a scan of a multi-gigabyte trace must not count against memory. */
		sqlite3_exec(t->db, "PRAGMA mmap_size = 0; PRAGMA cache_size = -32768", NULL, NULL,
			     NULL);
		err = load_strings(t);
		t->v1_driver = sk_db_has_table(t->db, "CUPTI_ACTIVITY_KIND_DRIVER");
	}
	if (err) {
		skip_trace_close(t);
		return err;
	}
	*out = t;
	return 0;
}

sqlite3 *skip_trace_db(const struct skip_trace *t)
{
	return t->db;
}

void skip_trace_close(struct skip_trace *t)
{
	if (!t)
		return;
	for (int64_t i = 0; i < t->nstrings; i++)
		free(t->strings[i]);
	free(t->strings);
	sk_strtab_fini(&t->texts);
	sk_stacks_fini(&t->stacks);
	free(t->opname);
	sqlite3_close(t->db);
	free(t->path);
	free(t);
}

/* Runs: those of SKIP_RUNS; a per-process file (no SKIP_RUNS rows) has those of its kernels. */
int64_t sk_trace_run_ids(struct skip_trace *t, int64_t **ids)
{
	static const char *const queries[] = {
	    "SELECT runId FROM SKIP_RUNS ORDER BY runId",
	    "SELECT DISTINCT runId FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY runId",
	};
	size_t n = 0, cap = 0;

	*ids = NULL;
	SK_VEC_XRESERVE(*ids, cap, 1); /* never NULL, even for no runs */
	for (int q = 0; q < 2 && n == 0; q++) {
		sqlite3_stmt *st = NULL;

		if (sqlite3_prepare_v2(t->db, queries[q], -1, &st, NULL) != SQLITE_OK)
			continue;
		while (sqlite3_step(st) == SQLITE_ROW)
			SK_VEC_XPUSH(*ids, n, cap, sqlite3_column_int64(st, 0));
		sqlite3_finalize(st);
	}
	t->nruns = (int64_t)n;
	return (int64_t)n;
}
