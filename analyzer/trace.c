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
		t->has_kind = sk_db_has_column(t->db, "SKIP_RUNS", "kind");
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

/* The runIds @sql selects (its first column), appended to *@ids. */
static size_t select_ids(struct skip_trace *t, const char *sql, int64_t param, int64_t **ids,
			 size_t n, size_t *cap)
{
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(t->db, sql, -1, &st, NULL) != SQLITE_OK)
		return n;
	if (sqlite3_bind_parameter_count(st) > 0)
		sqlite3_bind_int64(st, 1, param);
	while (sqlite3_step(st) == SQLITE_ROW)
		SK_VEC_XPUSH(*ids, n, *cap, sqlite3_column_int64(st, 0));
	sqlite3_finalize(st);
	return n;
}

/* Runs: the full runs of SKIP_RUNS (baseline runs hold no CUDA activity: only the recording
 * cost reads them, skip_trace_baseline_runs()); a per-process file (no SKIP_RUNS rows) has
 * those of its kernels. */
int64_t sk_trace_run_ids(struct skip_trace *t, int64_t **ids)
{
	size_t n = 0, cap = 0;

	*ids = NULL;
	SK_VEC_XRESERVE(*ids, cap, 1); /* never NULL, even for no runs */
	if (sk_db_int(t->db, 0, "SELECT count(*) FROM SKIP_RUNS") > 0)
		n = select_ids(t,
			       t->has_kind ? "SELECT runId FROM SKIP_RUNS WHERE kind IS NOT "
					     "'" SKIP_RUN_BASELINE "' ORDER BY runId"
					   : "SELECT runId FROM SKIP_RUNS ORDER BY runId",
			       0, ids, n, &cap);
	else
		n = select_ids(t,
			       "SELECT DISTINCT runId FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY "
			       "runId",
			       0, ids, n, &cap);
	t->nruns = (int64_t)n;
	return (int64_t)n;
}

int skip_trace_is_baseline(struct skip_trace *t, int64_t run_id)
{
	char q[128];

	if (!t->has_kind)
		return 0;
	snprintf(q, sizeof(q),
		 "SELECT kind = '" SKIP_RUN_BASELINE "' FROM SKIP_RUNS WHERE runId = %lld",
		 (long long)run_id);
	return sk_db_int(t->db, 0, q) == 1;
}

int64_t skip_trace_baseline_runs(struct skip_trace *t, int64_t run_id, int64_t **ids)
{
	static const char q[] =
	    "SELECT b.runId FROM SKIP_RUNS a JOIN SKIP_RUNS b ON " SK_CONFIG_SQL(
		"a") " = " SK_CONFIG_SQL("b") " WHERE a.runId = ?1 AND b.kind = '" SKIP_RUN_BASELINE
					      "' ORDER BY b.runId";
	size_t n = 0, cap = 0;

	*ids = NULL;
	SK_VEC_XRESERVE(*ids, cap, 1); /* never NULL, even for no runs */
	if (t->has_kind)
		n = select_ids(t, q, run_id, ids, n, &cap);
	return (int64_t)n;
}
