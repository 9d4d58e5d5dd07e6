/*
 * test_faults.c: the collector under faults. A program recorded by skip keeps its exit status
 * and its output byte for byte; a fork without exec, a cudaDeviceReset followed by a new start,
 * a full disk, an output directory that turns read-only mid-run and SIGKILL at 50 points in a
 * run each leave every file skip wrote readable, with what was recorded up to the fault.
 *
 * Run with `make test-gpu`; every test skips itself where no GPU is found, and the disk tests
 * where a small tmpfs cannot be mounted (they need root). docs/RELIABILITY.md lists the results.
 */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <dirent.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "skip_common.h"

static char dir[256];

static void setup(void)
{
	if (system("nvidia-smi -L >/dev/null 2>&1") != 0)
		cr_skip_test("no NVIDIA GPU found (nvidia-smi -L failed): GPU tests skipped");
	cr_assert_not_null(getenv("SKIP"), "run through 'make test-gpu' (SKIP unset)");
	snprintf(dir, sizeof(dir), "/tmp/skip-faults-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[600];

	if (!dir[0])
		return;
	snprintf(cmd, sizeof(cmd), "umount %s/fs 2>/dev/null", dir);
	(void)!system(cmd);
	if (!getenv("SKIP_KEEP")) {
		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		(void)!system(cmd);
	}
}

TestSuite(gpu_faults, .init = setup, .fini = teardown, .timeout = 600);

/* sh -c on the formatted command; returns its exit code (-1 when it did not exit). */
static int sh(const char *fmt, ...) SK_PRINTF(1, 2);
static int sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	rc = system(cmd);
	return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static const char *skip(void)
{
	return getenv("SKIP");
}

static const char *apps(void)
{
	return getenv("SKIP_APPS");
}

/* A small tmpfs at DIR/fs of @size ("2m"), or the test is skipped. */
static void mount_tmpfs(const char *size)
{
	if (sh("mkdir -p %s/fs && mount -t tmpfs -o size=%s tmpfs %s/fs 2>/dev/null", dir, size,
	       dir) != 0)
		cr_skip_test("cannot mount a small tmpfs here (needs root)");
}

/* The trace at @path opens, passes SQLite's integrity check and has no kernel that ends before
 * it starts; returns its kernel count. */
static long long check_readable(const char *path)
{
	sqlite3 *db = NULL;
	long long n;
	sqlite3_stmt *st = NULL;

	cr_assert_eq(skip_store_open(path, SKIP_STORE_READONLY, &db), 0, "%s", skip_errmsg());
	cr_assert_eq(sqlite3_prepare_v2(db, "PRAGMA quick_check", -1, &st, NULL), SQLITE_OK);
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
	cr_expect_str_eq((const char *)sqlite3_column_text(st, 0), "ok", "%s", path);
	sqlite3_finalize(st);
	cr_expect_eq(
	    sk_db_int(db, -1, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE end < start"),
	    0, "%s", path);
	n = sk_db_int(db, -1, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL");
	sqlite3_close(db);
	return n;
}

/* Every trace file under @root (temporary and per-process files included) is readable;
 * returns the most kernels one of them holds and sets *@nfiles. */
static long long check_all_under(const char *root, int *nfiles)
{
	char list[600], line[1024];
	long long most = 0;
	FILE *f;

	snprintf(list, sizeof(list),
		 "find %s -name '*.skip.db*' ! -name '*-wal' ! -name '*-shm' "
		 "! -name '*-journal' -type f",
		 root);
	f = popen(list, "r");
	cr_assert_not_null(f);
	*nfiles = 0;
	while (fgets(line, sizeof(line), f)) {
		long long n;

		line[strcspn(line, "\n")] = '\0';
		n = check_readable(line);
		cr_log_info("%s: %lld kernels", line, n);
		most = n > most ? n : most;
		(*nfiles)++;
	}
	pclose(f);
	return most;
}

/* Run child_proc ARGS bare and under skip record; both must exit @want and print the same
 * bytes (skip's summary follows the program's output on stdout). Returns the kernel count. */
static long long same_as_bare(const char *name, const char *args, int want)
{
	char path[512];

	cr_expect_eq(sh("%s/child_proc %s > %s/%s.bare 2>&1", apps(), args, dir, name), want,
		     "the bare program should exit %d", want);
	cr_expect_eq(sh("%s record -q -o %s/%s.skip.db -- %s/child_proc %s > %s/%s.rec "
			"2> %s/%s.err",
			skip(), dir, name, apps(), args, dir, name, dir, name),
		     want, "skip record should return the program's status %d", want);
	cr_expect_eq(sh("head -c $(wc -c < %s/%s.bare) %s/%s.rec | cmp -s - %s/%s.bare", dir, name,
			dir, name, dir, name),
		     0, "the recorded program printed something else than the bare one");
	snprintf(path, sizeof(path), "%s/%s.skip.db", dir, name);
	return check_readable(path);
}

Test(gpu_faults, the_programs_exit_status_and_output_are_unchanged)
{
	cr_expect_eq(same_as_bare("status", "--parent-kernels 100 --child-kernels 40 --exit 7", 7),
		     240);
}

Test(gpu_faults, a_fork_without_exec_leaves_the_parents_trace_whole)
{
	cr_expect_eq(same_as_bare("noexec", "--parent-kernels 300 --no-exec", 0), 600);
	cr_expect_neq(sh("test -d %s/noexec.skip.db.parts", dir), 0,
		      "every per-process file should have been merged");
}

Test(gpu_faults, a_device_reset_and_a_new_start_are_both_recorded)
{
	cr_expect_eq(same_as_bare("reset", "--parent-kernels 300 --reset", 0), 600);
}

Test(gpu_faults, a_full_disk_keeps_the_program_running_and_what_was_written_readable)
{
	int nfiles = 0;
	long long most;

	/* 8 MiB: a commit (100 ms of this program's records, about 15,000 kernels on the H100)
	 * must fit, and 200,000 kernels must not */
	mount_tmpfs("8m");
	cr_expect_eq(sh("%s record -o %s/fs/full.skip.db -- %s/launch_chain --kernels 200000 "
			"> %s/full.out 2> %s/full.err",
			skip(), dir, apps(), dir, dir),
		     0, "skip record should return the program's status");
	(void)!sh("cat %s/full.err >&2", dir);
	cr_expect_eq(sh("grep -q 'APP launch_chain kernels=200000' %s/full.out", dir), 0,
		     "the program ran to its end");
	cr_expect_eq(sh("grep -q 'disk full' %s/full.err", dir), 0, "the disk-full error is told");
	most = check_all_under(dir, &nfiles);
	cr_log_info("full disk: %d trace files, at most %lld kernels in one", nfiles, most);
	cr_expect_eq(access(sk_xasprintf("%s/fs/full.skip.db", dir), F_OK), 0,
		     "the trace is under its name, with the runs it holds");
	cr_expect_gt(nfiles, 0);
	cr_expect_gt(most, 1000, "what fit on the disk is kept");
}

Test(gpu_faults, an_output_directory_made_read_only_mid_run_keeps_what_was_written)
{
	char out[512], app[512], d[300];
	char *argv[] = {(char *)skip(), "record", "-o", out, "--", app, "--seconds", "5", NULL};
	int status, nfiles = 0;
	long long most;
	pid_t pid;

	/* Root writes through a mode of 0555 and a busy file system cannot be remounted
	 * read-only, so skip record runs as nobody in a directory nobody owns, and the
	 * directory loses its write permission mid-run. */
	if (getuid() != 0)
		cr_skip_test("needs root, to run skip record as another user");
	snprintf(d, sizeof(d), "%s/ro", dir);
	cr_assert_eq(sh("mkdir -p %s && chown 65534:65534 %s && chmod 755 %s", d, d, dir), 0);
	snprintf(out, sizeof(out), "%s/ro.skip.db", d);
	snprintf(app, sizeof(app), "%s/launch_chain", apps());
	pid = fork();
	if (pid == 0) {
		char log[600];

		snprintf(log, sizeof(log), "%s/ro.out", d);
		if (setgid(65534) != 0 || setuid(65534) != 0 || !freopen(log, "w", stdout))
			_exit(126);
		execv(argv[0], argv);
		_exit(127);
	}
	cr_assert_gt(pid, 0);
	sleep(3);
	cr_expect_eq(sh("chmod 555 %s", d), 0);
	waitpid(pid, &status, 0);
	(void)!sh("chmod 755 %s; ls -la %s %s/*.parts >&2", d, d, d);
	cr_expect_eq(sh("grep -q 'APP launch_chain' %s/ro.out", d), 0,
		     "the program ran to its end");
	cr_log_info("read-only mid-run: skip record exited %d",
		    WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) <= 1,
		  "skip record should end with 0 or 1, not a crash");
	most = check_all_under(d, &nfiles);
	cr_log_info("read-only mid-run: %d trace files, at most %lld kernels in one", nfiles, most);
	cr_expect_gt(most, 1000, "what was committed before the directory turned read-only");
}

Test(gpu_faults, sigkill_at_fifty_points_never_leaves_an_unreadable_file, .timeout = 900)
{
	int files = 0, empty = 0, readable_reports = 0;
	long long most = 0;

	for (int i = 0; i < 50; i++) {
		/* Kill points spread over 0-2.45 s: before CUDA starts, while it starts, while
		 * kernels stream, in a commit; interleaved so drift spreads over all of them. */
		int delay_ms = (i * 37 % 50) * 50, rc;
		char out[512], app[512];
		pid_t pid;

		snprintf(out, sizeof(out), "%s/kill-%02d.skip.db", dir, i);
		snprintf(app, sizeof(app), "%s/launch_chain", apps());
		pid = fork();
		if (pid == 0) {
			char env_out[600], env_inj[600], col[512];

			snprintf(col, sizeof(col), "%s", skip());
			*strrchr(col, '/') = '\0';
			snprintf(env_out, sizeof(env_out), "SKIP_OUTPUT=%s", out);
			snprintf(env_inj, sizeof(env_inj),
				 "CUDA_INJECTION64_PATH=%s/libskip_collector.so", col);
			putenv(env_out);
			putenv(env_inj);
			if (!freopen("/dev/null", "w", stdout))
				_exit(126);
			execl(app, "launch_chain", "--seconds", "3", (char *)NULL);
			_exit(127);
		}
		cr_assert_gt(pid, 0);
		usleep((useconds_t)delay_ms * 1000);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		if (access(out, F_OK) != 0) {
			empty++;
			continue;
		}
		files++;
		{
			long long n = check_readable(out);

			most = n > most ? n : most;
			empty += n == 0;
		}
		rc = sh("%s report %s > /dev/null 2>&1", skip(), out);
		cr_expect(rc == 0 || rc == 2, "skip report on %s exited %d", out, rc);
		readable_reports += rc == 0;
	}
	cr_log_info("SIGKILL at 50 points: %d files, all readable; %d with no kernel; %d reported; "
		    "at most %lld kernels",
		    files, empty, readable_reports, most);
	cr_expect_gt(files, 25);
	cr_expect_gt(most, 10000);
}
