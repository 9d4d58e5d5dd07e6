/*
 * test_nvtx.c: the baseline mode's NVTX recording, end to end and without a GPU: a child process
 * makes NVTX calls (NVTX's own header-only loader, as every library has) with
 * NVTX_INJECTION64_PATH at the built collector and SKIP_TRACE=nvtx; the collector must record
 * its ranges, marks and domains as the full mode stores them, and never use CUPTI.
 */
#include <criterion/criterion.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nvtx3/nvToolsExt.h>

#include "skip_common.h"
#include "unit/scratch.h"

static char dir[64], out[128];

static void setup(void)
{
	sk_scratch_make(dir, sizeof(dir), "skip-nvtx");
	snprintf(out, sizeof(out), "%s/nvtx.skip.db", dir);
}

static void teardown(void)
{
	sk_scratch_remove(dir);
}

TestSuite(collector_nvtx, .init = setup, .fini = teardown);

/* The collector beside the test binary: $(O)/tests/test_collector -> $(O)/libskip_collector.so */
static void collector_path(char *buf, size_t n)
{
	char exe[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	cr_assert_gt(len, 0);
	exe[len] = '\0';
	snprintf(buf, n, "%s/../libskip_collector.so", dirname(exe));
	cr_assert_eq(access(buf, R_OK), 0, "%s not built", buf);
}

static void *other_thread(void *arg)
{
	nvtxRangeEnd(*(nvtxRangeId_t *)arg); /* a start/end range that ends on another thread */
	return NULL;
}

static void child(void)
{
	nvtxDomainHandle_t d = nvtxDomainCreateA("mydomain");
	nvtxStringHandle_t reg = nvtxDomainRegisterStringA(d, "registered");
	nvtxEventAttributes_t a = {.version = NVTX_VERSION,
				   .size = NVTX_EVENT_ATTRIB_STRUCT_SIZE,
				   .messageType = NVTX_MESSAGE_TYPE_REGISTERED};
	nvtxRangeId_t id;
	pthread_t th;

	for (int i = 0; i < 3; i++) {
		nvtxRangePushA("step");
		nvtxRangePushA("inner");
		nvtxRangePop();
		nvtxRangePop();
	}
	nvtxMarkA("mark");
	a.message.registered = reg;
	nvtxDomainRangePushEx(d, &a);
	nvtxDomainRangePop(d);
	id = nvtxRangeStartA("across");
	pthread_create(&th, NULL, other_thread, &id);
	pthread_join(th, NULL);
	nvtxRangePushA("left open");
	exit(0);
}

static int64_t q(sqlite3 *db, const char *sql)
{
	return sk_db_int(db, -999, sql);
}

Test(collector_nvtx, ranges_marks_and_domains_are_recorded_without_cupti)
{
	char so[PATH_MAX + 32];
	sqlite3 *db = NULL;
	int status = 0;
	pid_t pid;

	collector_path(so, sizeof(so));
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		setenv("NVTX_INJECTION64_PATH", so, 1);
		setenv("SKIP_TRACE", "nvtx", 1);
		setenv("SKIP_OUTPUT", out, 1);
		unsetenv("SKIP_OUT_DIR");
		child();
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the program ran unharmed");
	cr_assert_eq(skip_store_open(out, SKIP_STORE_READONLY, &db), 0, "%s", skip_errmsg());
	/* 3 x (step, inner) push/pop on one thread: type 59 */
	cr_expect_eq(q(db,
		       "SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 59 AND text = 'step' "
		       "AND end >= start"),
		     3);
	cr_expect_eq(q(db, "SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 59 AND text = "
			   "'inner'"),
		     3);
	/* each inner inside its step */
	cr_expect_eq(q(db,
		       "SELECT count(*) FROM NVTX_EVENTS i JOIN NVTX_EVENTS s ON s.text = "
		       "'step' AND i.start >= s.start AND i.end <= s.end WHERE i.text = 'inner'"),
		     3);
	cr_expect_eq(q(db, "SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 34 AND text = "
			   "'mark'"),
		     1);
	cr_expect_eq(q(db, "SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 60 AND text = "
			   "'across' AND globalTid != endGlobalTid"),
		     1, "a range ended on another thread is a start/end range");
	cr_expect_eq(q(db, "SELECT count(*) FROM NVTX_EVENTS r JOIN NVTX_EVENTS n ON n.eventType = "
			   "75 AND n.text = 'mydomain' AND n.domainId = r.domainId WHERE r.text = "
			   "'registered' AND r.eventType = 59"),
		     1, "the registered string, in its domain");
	cr_expect_eq(q(db, "SELECT count(*) FROM NVTX_EVENTS WHERE text = 'left open' AND end IS "
			   "NULL"),
		     1, "a range still open at exit is kept, with no end");
	cr_expect_eq(q(db, "SELECT count(*) FROM SKIP_PROCESSES WHERE end >= start"), 1);
	cr_expect_eq(q(db, "SELECT count(*) FROM SKIP_METADATA WHERE key = 'cupti' AND value LIKE "
			   "'off%'"),
		     1);
	cr_expect_eq(q(db, "SELECT count(*) FROM SKIP_METADATA WHERE key = 'trace' AND value = "
			   "'nvtx'"),
		     1);
	cr_expect_eq(q(db, "SELECT count(*) FROM SKIP_METADATA WHERE key = 'cupti_api_version'"), 0,
		     "CUPTI is not asked anything");
	sqlite3_close(db);
}
