/*
 * select.c: what part of a trace an export covers: a run (--run N) and in it one occurrence of
 * an NVTX range (--region NAME --occurrence K), resolved to a time window that every exported
 * record overlaps. The window ends with the last GPU operation launched inside the range, so
 * that a region's kernels are on its timeline even when they run after the range closed.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

void skip_export_sel_fini(struct skip_export_sel *sel)
{
	if (!sel)
		return;
	free(sel->region);
	memset(sel, 0, sizeof(*sel));
}

static int has_run(struct skip_trace *t, int64_t run_id)
{
	int64_t *ids = NULL, n = skip_trace_runs(t, &ids), found = 0;

	for (int64_t i = 0; i < n; i++)
		found |= ids[i] == run_id;
	free(ids);
	return (int)found;
}

static int64_t count_ranges(sqlite3 *db, int64_t run_id, const char *name)
{
	sqlite3_stmt *st = NULL;
	int64_t n = -1;

	if (sqlite3_prepare_v2(db,
			       "SELECT count(*) FROM NVTX_EVENTS WHERE runId = ?1 AND eventType IN "
			       "(59, 60) AND text = ?2 AND typeof(start) = 'integer'",
			       -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, run_id);
		sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW)
			n = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	return n;
}

/* "a, b, c": the most frequent range names of @run_id, 0: of every run (for the error
 * message). */
static char *range_names(sqlite3 *db, int64_t run_id)
{
	sqlite3_stmt *st = NULL;
	char *s = sk_xstrdup(""), *next;

	if (sqlite3_prepare_v2(
		db,
		"SELECT text FROM NVTX_EVENTS WHERE (?1 = 0 OR runId = ?1) AND eventType IN (59, "
		"60) AND text IS NOT NULL GROUP BY text ORDER BY count(*) DESC, text "
		"LIMIT 8",
		-1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, run_id);
		while (sqlite3_step(st) == SQLITE_ROW) {
			next = sk_xasprintf("%s%s'%s'", s, *s ? ", " : "",
					    (const char *)sqlite3_column_text(st, 0));
			free(s);
			s = next;
		}
	}
	sqlite3_finalize(st);
	return s;
}

/* The run to look for the region in: the one asked for, else the first run that has it. */
static int region_run(struct skip_trace *t, const struct skip_export_pick *pick, int64_t *run,
		      int64_t *count)
{
	sqlite3 *db = skip_trace_db(t);
	int64_t *ids = NULL, n = skip_trace_runs(t, &ids);
	char *names, where[40] = "any run";
	int err;

	*count = 0;
	*run = pick->run_id ? pick->run_id : n > 0 ? ids[0] : 1;
	for (int64_t i = 0; i < n && !pick->run_id && *count <= 0; i++) {
		*run = ids[i];
		*count = count_ranges(db, ids[i], pick->region);
	}
	if (pick->run_id)
		*count = count_ranges(db, *run, pick->region);
	free(ids);
	if (*count < 0)
		return sk_fail(SKIP_E_DB, "reading NVTX_EVENTS failed: %s", sqlite3_errmsg(db));
	if (*count > 0)
		return 0;
	names = range_names(db, pick->run_id);
	if (pick->run_id)
		snprintf(where, sizeof(where), "run %lld", (long long)*run);
	err = sk_fail(SKIP_E_NOTFOUND, "no NVTX range '%s' in %s%s%s", pick->region, where,
		      *names ? "; ranges there: " : " (it holds no NVTX ranges)", names);
	free(names);
	return err;
}

static const char window_end_sql[] =
    "WITH calls(c) AS ("
    "  SELECT correlationId FROM sk_api_calls WHERE runId = ?1 AND globalTid"
    "  BETWEEN ?2 AND ?2 + 16777215 AND start BETWEEN ?3 AND ?4)"
    "SELECT max(e) FROM ("
    "  SELECT max(end) AS e FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE runId = ?1 AND globalPid = ?2"
    "  AND correlationId IN calls AND typeof(end) = 'integer' AND end < ?5"
    "  UNION ALL SELECT max(end) FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE runId = ?1 AND"
    "  globalPid = ?2 AND correlationId IN calls AND typeof(end) = 'integer' AND end < ?5"
    "  UNION ALL SELECT max(end) FROM CUPTI_ACTIVITY_KIND_MEMSET WHERE runId = ?1 AND"
    "  globalPid = ?2 AND correlationId IN calls AND typeof(end) = 'integer' AND end < ?5)";

/* The occurrence's range and the end of the GPU work launched inside it. */
static int region_window(sqlite3 *db, struct skip_export_sel *sel)
{
	sqlite3_stmt *st = NULL;
	int64_t gpid = 0;
	int rc;

	rc =
	    sqlite3_prepare_v2(db,
			       "SELECT start, end, globalTid FROM NVTX_EVENTS WHERE runId = ?1 AND "
			       "eventType IN (59, 60) AND text = ?2 AND typeof(start) = 'integer' "
			       "ORDER BY start LIMIT 1 OFFSET ?3",
			       -1, &st, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, sel->run_id);
		sqlite3_bind_text(st, 2, sel->region, -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 3, sel->occurrence - 1);
		rc = sqlite3_step(st);
	}
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(st);
		return sk_fail(SKIP_E_DB, "reading NVTX_EVENTS failed: %s", sqlite3_errmsg(db));
	}
	sel->start_ns = sqlite3_column_int64(st, 0);
	sel->range_end = sqlite3_column_type(st, 1) == SQLITE_INTEGER ? sqlite3_column_int64(st, 1)
								      : SKIP_TIME_MAX - 1;
	gpid = sqlite3_column_int64(st, 2) >> 24 << 24;
	sqlite3_finalize(st);
	sel->end_ns = sel->range_end;
	if (sqlite3_prepare_v2(db, window_end_sql, -1, &st, NULL) != SQLITE_OK)
		return sk_fail(SKIP_E_DB, "%s", sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, sel->run_id);
	sqlite3_bind_int64(st, 2, gpid);
	sqlite3_bind_int64(st, 3, sel->start_ns);
	sqlite3_bind_int64(st, 4, sel->range_end);
	sqlite3_bind_int64(st, 5, SKIP_TIME_MAX);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_INTEGER &&
	    sqlite3_column_int64(st, 0) > sel->end_ns)
		sel->end_ns = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return sk_fail(SKIP_E_DB, "%s", sqlite3_errmsg(db));
	return 0;
}

int skip_export_select(struct skip_trace *t, const struct skip_export_pick *pick,
		       struct skip_export_sel *sel)
{
	int64_t count = 0;
	int err;

	memset(sel, 0, sizeof(*sel));
	sel->run_id = pick->run_id;
	err = sk_export_views(skip_trace_db(t));
	if (err)
		return err;
	if (pick->run_id && skip_trace_is_baseline(t, pick->run_id))
		return sk_fail(
		    SKIP_E_NOTFOUND,
		    "run %lld is a baseline run (skip record --baseline): it holds NVTX "
		    "ranges only; --run takes a full run ('skip info' lists the runs; csv "
		    "without --run keeps every row)",
		    (long long)pick->run_id);
	if (pick->run_id && !has_run(t, pick->run_id))
		return sk_fail(SKIP_E_NOTFOUND,
			       "no run %lld in the trace ('skip info' lists its runs)",
			       (long long)pick->run_id);
	if (!pick->region)
		return 0;
	err = region_run(t, pick, &sel->run_id, &count);
	if (err)
		return err;
	sel->occurrence = pick->occurrence > 0 ? pick->occurrence : 1;
	if (sel->occurrence > count)
		return sk_fail(
		    SKIP_E_NOTFOUND,
		    "run %lld has %lld occurrence%s of the NVTX range '%s'; --occurrence "
		    "takes 1 to %lld",
		    (long long)sel->run_id, (long long)count, count == 1 ? "" : "s", pick->region,
		    (long long)count);
	sel->region = sk_xstrdup(pick->region);
	sel->windowed = 1;
	err = region_window(skip_trace_db(t), sel);
	if (err)
		skip_export_sel_fini(sel);
	return err;
}

char *sk_sel_where(const struct skip_export_sel *sel, const char *prefix, int has_run,
		   int has_times)
{
	char run[64] = "1", win[160] = "1";

	if (has_run && sel->run_id)
		snprintf(run, sizeof(run), "%srunId = %lld", prefix, (long long)sel->run_id);
	if (has_times && sel->windowed)
		snprintf(win, sizeof(win), "%sstart <= %lld AND (%send >= %lld OR %send IS NULL)",
			 prefix, (long long)sel->end_ns, prefix, (long long)sel->start_ns, prefix);
	return sk_xasprintf("(%s) AND (%s)", run, win);
}
