/*
 * trace.c: opening a trace for analysis: the store's checks (skip_store_open), StringIds read
 * once into memory, the indexes the loader uses created once when missing (and the file is
 * writable), and the list of runs.
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
	if (sqlite3_prepare_v2(t->db, "SELECT id, value FROM StringIds", -1, &st, NULL) != SQLITE_OK)
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

/* The analyzer reads each run as a rowid range; these indexes find the ranges. */
static void ensure_indexes(struct skip_trace *t, int allow)
{
	int have = sk_db_int(t->db, 0,
			     "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name IN "
			     "('KERNEL_run_start', 'RUNTIME_run_corr', 'DRIVER_run_corr', "
			     "'NVTX_run_tid_start')") == 4;

	if (!have && allow)
		have = skip_store_exec(t->db,
				       "CREATE INDEX IF NOT EXISTS KERNEL_run_start ON "
				       "CUPTI_ACTIVITY_KIND_KERNEL(runId, start);"
				       "CREATE INDEX IF NOT EXISTS RUNTIME_run_corr ON "
				       "CUPTI_ACTIVITY_KIND_RUNTIME(runId, globalTid, correlationId);"
				       "CREATE INDEX IF NOT EXISTS DRIVER_run_corr ON "
				       "CUPTI_ACTIVITY_KIND_DRIVER(runId, globalTid, correlationId);"
				       "CREATE INDEX IF NOT EXISTS NVTX_run_tid_start ON "
				       "NVTX_EVENTS(runId, globalTid, start);") == 0;
	t->has_index = have;
}

int skip_trace_open(const char *path, int allow_index, struct skip_trace **out)
{
	struct skip_trace *t;
	int err;

	*out = NULL;
	t = sk_xcalloc(1, sizeof(*t));
	t->path = sk_xstrdup(path);
	/* Read-write opens a write-protected file read-only; the indexes are then skipped. */
	err = skip_store_open(path, allow_index ? 0 : SKIP_STORE_READONLY, &t->db);
	if (!err) {
		/* No mmap: a scan of a multi-gigabyte trace must not count against memory. */
		sqlite3_exec(t->db, "PRAGMA mmap_size = 0; PRAGMA cache_size = -32768", NULL, NULL,
			     NULL);
		err = load_strings(t);
	}
	if (err) {
		skip_trace_close(t);
		return err;
	}
	ensure_indexes(t, allow_index);
	*out = t;
	return 0;
}

void skip_trace_close(struct skip_trace *t)
{
	if (!t)
		return;
	for (int64_t i = 0; i < t->nstrings; i++)
		free(t->strings[i]);
	free(t->strings);
	sk_names_fini(&t->texts);
	sk_stacks_fini(&t->stacks);
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
	int64_t n = 0, cap = 16;

	*ids = sk_xmalloc((size_t)cap * sizeof(int64_t));
	for (int q = 0; q < 2 && n == 0; q++) {
		sqlite3_stmt *st = NULL;

		if (sqlite3_prepare_v2(t->db, queries[q], -1, &st, NULL) != SQLITE_OK)
			continue;
		while (sqlite3_step(st) == SQLITE_ROW) {
			if (n == cap) {
				cap *= 2;
				*ids = sk_xrealloc(*ids, (size_t)cap * sizeof(int64_t));
			}
			(*ids)[n++] = sqlite3_column_int64(st, 0);
		}
		sqlite3_finalize(st);
	}
	t->nruns = n;
	return n;
}
