/*
 * migrate.c: bringing an older trace file to the current schema in place, one step per
 * version (1 -> 2 -> 3). skip_store_open() calls it on a file opened for writing; read-only
 * opens leave old files as they are, and the readers take every version (docs/trace-format.md,
 * "Versions"). The whole migration is one transaction, so a failure (a full disk, a damaged file)
 * leaves the file exactly as it was.
 */
#define SK_LOG_DOMAIN "store"
#include <stdio.h>
#include <stdlib.h>

#include "skip_common.h"

/*
 * Version 1 -> 2: the layout of Nsight Systems' export where version 1 differed from it.
 * The old runtime and GPU tables are renamed out of the way so that schemas/trace.sql (run
 * after this) creates the version 2 ones with their triggers; the calls are copied back with
 * the driver calls in (runId, start) order, because the analyzer finds a run's rows by a binary
 * search over rowids that needs runIds in rowid order. The GPU rows go to SKIP_GPUS, whose
 * trigger fills the one-row-per-GPU TARGET_INFO_GPU, and touching the first run's start time
 * fires the trigger that fills TARGET_INFO_SESSION_START_TIME: the schema's own rules, not a
 * second copy of them.
 */
static const char v1_before[] =
    "ALTER TABLE CUPTI_ACTIVITY_KIND_RUNTIME RENAME TO sk_v1_runtime;"
    "ALTER TABLE TARGET_INFO_GPU RENAME TO sk_v1_gpus;"
    "ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL ADD COLUMN greenContextId INTEGER;"
    "ALTER TABLE CUPTI_ACTIVITY_KIND_MEMCPY ADD COLUMN greenContextId INTEGER;"
    "ALTER TABLE CUPTI_ACTIVITY_KIND_MEMSET ADD COLUMN greenContextId INTEGER;"
    "ALTER TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION ADD COLUMN greenContextId INTEGER;";

#define V1_API_COLS                                                                                \
	"runId, start, end, eventClass, globalTid, correlationId, nameId, returnValue, cbid"

static const char v1_after[] =
    "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME(" V1_API_COLS ") SELECT " V1_API_COLS " FROM ("
    "  SELECT 0 AS sk_t, rowid AS sk_r, " V1_API_COLS " FROM sk_v1_runtime UNION ALL"
    "  SELECT 1, rowid, " V1_API_COLS " FROM CUPTI_ACTIVITY_KIND_DRIVER)"
    " ORDER BY runId, start, sk_t, sk_r;"
    "DROP TABLE sk_v1_runtime;"
    "DROP TABLE CUPTI_ACTIVITY_KIND_DRIVER;"
    "INSERT INTO SKIP_GPUS SELECT * FROM sk_v1_gpus ORDER BY runId, globalPid, rowid;"
    "DROP TABLE sk_v1_gpus;"
    "UPDATE SKIP_RUNS SET startUtcNs = startUtcNs WHERE runId = (SELECT min(runId) FROM "
    "  SKIP_RUNS);"
    "INSERT OR REPLACE INTO META_DATA_EXPORT VALUES"
    "  ('EXPORT_PRODUCT_VERSION', 'skip " SKIP_VERSION "');"
    "CREATE INDEX IF NOT EXISTS RUNTIME_run_corr ON"
    "  CUPTI_ACTIVITY_KIND_RUNTIME(runId, globalTid, correlationId);"
    "PRAGMA user_version = 2;";

/* Version 2 -> 3: SKIP_RUNS gets its kind column; every run of an older file is a full one
 * (`skip record --baseline` did not exist). */
static const char v2_after[] =
    "ALTER TABLE SKIP_RUNS ADD COLUMN kind TEXT NOT NULL DEFAULT '" SKIP_RUN_FULL "';"
    "PRAGMA user_version = 3;";

static int from_v2(sqlite3 *db)
{
	return skip_store_exec(db, v2_after);
}

static int from_v1(sqlite3 *db)
{
	int err = skip_store_exec(db, v1_before);

	if (!err)
		err = skip_store_exec(db, skip_trace_sql);
	if (!err)
		err = skip_store_exec(db, v1_after);
	return err;
}

int skip_store_migrate(sqlite3 *db)
{
	int64_t version = sk_db_int(db, -1, "PRAGMA user_version");
	int err;

	if (version == SKIP_SCHEMA_VERSION)
		return 0;
	if (version != 1 && version != 2)
		return sk_fail(SKIP_E_OLDER, "no migration from trace schema %lld to %d",
			       (long long)version, SKIP_SCHEMA_VERSION);
	err = skip_store_exec(db, "BEGIN IMMEDIATE");
	if (err)
		return err;
	/* One step per version, in order, in one transaction. */
	if (version == 1)
		err = from_v1(db);
	if (!err)
		err = from_v2(db);
	if (!err)
		err = skip_store_exec(db, "COMMIT");
	if (err) {
		char msg[512];

		/* Keep the message of the failure, not the rollback's. */
		snprintf(msg, sizeof(msg), "%s", skip_errmsg());
		if (!sqlite3_get_autocommit(db))
			sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		return sk_fail(err, "%s", msg);
	}
	sk_dbg(1, "migrated a trace from schema %lld to %d", (long long)version,
	       SKIP_SCHEMA_VERSION);
	return 0;
}
