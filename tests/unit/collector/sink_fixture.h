/*
 * sink_fixture.h: one trace file (run 7 of process 1234) opened through the collector's sink
 * in a scratch folder by a suite's .init (sink_setup) and closed by its .fini (sink_teardown),
 * and q() to read one number back. For one test file each: the state is static.
 */
#ifndef SKIP_TEST_SINK_FIXTURE_H
#define SKIP_TEST_SINK_FIXTURE_H

#include <criterion/criterion.h>
#include <stdio.h>

#include "collector/internal.h"
#include "unit/scratch.h"

static char dir[64];
static char path[128];
static struct sk_sink sink;

static void sink_setup(void)
{
	sk_scratch_make(dir, sizeof(dir), "skip-ut");
	snprintf(path, sizeof(path), "%s/p1-r7.skip.db", dir);
	skip_log_init("test", NULL, 1);
	cr_assert_eq(sk_sink_open(&sink, path, 7, 1234), 0, "%s", skip_errmsg());
}

static void sink_teardown(void)
{
	sk_sink_close(&sink, 0);
	sk_scratch_remove(dir);
}

/* The one number @sql selects; fails the test when the query fails. */
static long long q(const char *sql)
{
	long long v = sk_db_int(sink.db, -999999, sql);

	cr_assert_neq(v, -999999, "query failed: %s: %s", sql, sqlite3_errmsg(sink.db));
	return v;
}

#endif
