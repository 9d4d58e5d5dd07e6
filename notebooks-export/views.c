/*
 * views.c: both trace schema versions seen the same way. A version 1 file keeps its driver
 * calls in CUPTI_ACTIVITY_KIND_DRIVER and its per-run, per-process GPU rows in
 * TARGET_INFO_GPU; a version 2 file keeps every API call in CUPTI_ACTIVITY_KIND_RUNTIME
 * (eventClass 1: driver) and those GPU rows in SKIP_GPUS, TARGET_INFO_GPU being one row per GPU
 * (docs/trace-format.md, "Versions"). Read-only opens leave a version 1 file as it is, so the
 * exporter creates two TEMP views on its connection and every query reads them, never the
 * tables that differ: one code path for both versions, each row once.
 *
 *   sk_api_calls  runId, start, end, driver (0 runtime, 1 driver), globalTid, correlationId,
 *                 nameId, returnValue, cbid
 *   sk_gpus       SKIP_GPUS's columns (runId, globalPid, id, name, ...)
 *
 * On version 1 sk_api_calls is a UNION ALL of the two tables; SQLite reads a query over it
 * with ORDER BY as a merge of the two tables' index scans (RUNTIME_run_corr, DRIVER_run_corr),
 * so the timeline still streams. TEMP objects live in the connection's temporary database,
 * never in the trace file, and a read-only connection may create them.
 */
#include "internal.h"

static const char v1_views[] =
    "CREATE TEMP VIEW IF NOT EXISTS sk_api_calls AS"
    "  SELECT runId, start, end, 0 AS driver, globalTid, correlationId, nameId, returnValue,"
    "  cbid FROM main.CUPTI_ACTIVITY_KIND_RUNTIME UNION ALL"
    "  SELECT runId, start, end, 1, globalTid, correlationId, nameId, returnValue, cbid"
    "  FROM main.CUPTI_ACTIVITY_KIND_DRIVER;"
    "CREATE TEMP VIEW IF NOT EXISTS sk_gpus AS SELECT * FROM main.TARGET_INFO_GPU;";

static const char v2_views[] =
    "CREATE TEMP VIEW IF NOT EXISTS sk_api_calls AS"
    "  SELECT runId, start, end, eventClass IS 1 AS driver, globalTid, correlationId, nameId,"
    "  returnValue, cbid FROM main.CUPTI_ACTIVITY_KIND_RUNTIME;"
    "CREATE TEMP VIEW IF NOT EXISTS sk_gpus AS SELECT * FROM main.SKIP_GPUS;";

int sk_export_views(sqlite3 *db)
{
	/* the tables tell the version: a file whose user_version was set by hand still reads */
	int v1 = sk_db_has_table(db, "CUPTI_ACTIVITY_KIND_DRIVER");
	char *msg = NULL;
	int err = 0;

	if (sqlite3_exec(db, v1 ? v1_views : v2_views, NULL, NULL, &msg) != SQLITE_OK)
		err = sk_fail(SKIP_E_DB, "reading the trace failed: %s",
			      msg ? msg : sqlite3_errmsg(db));
	sqlite3_free(msg);
	return err;
}
