/*
 * test_outfile.c: how commands write files. An output that is one of the inputs (by name,
 * symlink or hard link) is refused; only files skip wrote (or empty ones) are replaced, never a
 * device or FIFO; a failed or abandoned write leaves the target as it was and no temporary file
 * behind; a finished one takes the replaced file's mode, or a new file's.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "skip_common.h"
#include "unit/scratch.h"

static char dir[64];

static void setup(void)
{
	sk_scratch_make(dir, sizeof(dir), "skip-out");
}

static void teardown(void)
{
	sk_scratch_remove(dir);
}

TestSuite(common_outfile, .init = setup, .fini = teardown);

static char *path(const char *name)
{
	static char buf[4][256];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", dir, name);
	return buf[i];
}

static void put(const char *name, const char *text)
{
	FILE *f = fopen(path(name), "w");

	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
}

static char *get(const char *name)
{
	static char buf[4096];
	FILE *f = fopen(path(name), "r");
	size_t n;

	cr_assert_not_null(f, "%s missing", name);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* Files in the directory (temporary files start with a dot). */
static int nfiles(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

static const char html[] = "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
			   "<title>skip report: x</title>";

static int open_out(struct skip_outfile *of, const char *name, enum skip_out_kind kind,
		    const char *input)
{
	const char *inputs[] = {input};

	return skip_outfile_open(of, path(name), kind, 1, inputs, input ? 1 : 0);
}

Test(common_outfile, an_output_that_is_an_input_is_refused_by_name_symlink_and_hard_link)
{
	struct skip_outfile of;
	const char *in = path("in.html");

	put("in.html", html);
	cr_assert_eq(open_out(&of, "in.html", SKIP_OUT_HTML, in), SKIP_E_INVAL);
	cr_assert(strstr(skip_errmsg(), "is also an input"), "%s", skip_errmsg());
	cr_assert_eq(symlink(in, path("link.html")), 0);
	cr_assert_eq(open_out(&of, "link.html", SKIP_OUT_HTML, in), SKIP_E_INVAL);
	cr_assert_eq(link(in, path("hard.html")), 0);
	cr_assert_eq(open_out(&of, "hard.html", SKIP_OUT_HTML, in), SKIP_E_INVAL);
	cr_assert_str_eq(get("in.html"), html);
	cr_assert_eq(nfiles(), 3);
}

Test(common_outfile, a_file_skip_did_not_write_is_never_replaced)
{
	struct skip_outfile of;

	put("notes.html", "my notes\n");
	cr_assert_eq(open_out(&of, "notes.html", SKIP_OUT_HTML, NULL), SKIP_E_EXISTS);
	cr_assert(strstr(skip_errmsg(), "not a skip HTML report"), "%s", skip_errmsg());
	/* A skip output of another kind is not replaced either. */
	put("plan.json", "{\n\t\"skip_plan\":\t1}\n");
	cr_assert_eq(open_out(&of, "plan.json", SKIP_OUT_HTML, NULL), SKIP_E_EXISTS);
	cr_assert_eq(open_out(&of, "plan.json", SKIP_OUT_TRACE, NULL), SKIP_E_EXISTS);
	cr_assert_str_eq(get("notes.html"), "my notes\n");
}

Test(common_outfile, an_existing_file_needs_replace)
{
	struct skip_outfile of;

	put("r.html", html);
	cr_assert_eq(skip_outfile_open(&of, path("r.html"), SKIP_OUT_HTML, 0, NULL, 0),
		     SKIP_E_EXISTS);
}

Test(common_outfile, a_fifo_is_written_in_place_but_never_replaced_by_a_trace)
{
	struct skip_outfile of;
	struct stat st;

	cr_assert_eq(mkfifo(path("fifo"), 0600), 0);
	cr_assert_eq(open_out(&of, "fifo", SKIP_OUT_TRACE, NULL), SKIP_E_INVAL);
	cr_assert(strstr(skip_errmsg(), "not a regular file"), "%s", skip_errmsg());
	cr_assert_eq(stat(path("fifo"), &st), 0);
	cr_assert(S_ISFIFO(st.st_mode));
	cr_assert_eq(open_out(&of, "/", SKIP_OUT_PLAN, NULL), SKIP_E_INVAL);
}

Test(common_outfile, skip_outputs_and_empty_files_are_replaced)
{
	struct skip_outfile of;
	sqlite3 *db = NULL;

	put("r.html", html);
	cr_assert_eq(open_out(&of, "r.html", SKIP_OUT_HTML, NULL), 0, "%s", skip_errmsg());
	fputs("<!DOCTYPE html>new", of.f);
	cr_assert_eq(skip_outfile_commit(&of), 0, "%s", skip_errmsg());
	cr_assert_str_eq(get("r.html"), "<!DOCTYPE html>new");

	put("empty.json", "");
	cr_assert_eq(open_out(&of, "empty.json", SKIP_OUT_PLAN, NULL), 0, "%s", skip_errmsg());
	skip_outfile_abort(&of);

	cr_assert_eq(skip_store_create(path("t.db"), 0, &db), 0, "%s", skip_errmsg());
	sqlite3_close(db);
	cr_assert_eq(open_out(&of, "t.db", SKIP_OUT_TRACE, NULL), 0, "%s", skip_errmsg());
	cr_assert_not_null(of.tmp);
	cr_assert_null(of.f);
	cr_assert_eq(skip_store_create(of.tmp, SKIP_STORE_OVERWRITE, &db), 0, "%s", skip_errmsg());
	sqlite3_close(db);
	cr_assert_eq(skip_outfile_commit(&of), 0, "%s", skip_errmsg());
	cr_assert_eq(nfiles(), 3);
}

Test(common_outfile, an_abandoned_write_leaves_the_target_and_no_temporary_file)
{
	struct skip_outfile of;

	put("r.html", html);
	cr_assert_eq(open_out(&of, "r.html", SKIP_OUT_HTML, NULL), 0, "%s", skip_errmsg());
	fputs("half", of.f);
	fflush(of.f);
	cr_assert_eq(nfiles(), 2);
	skip_outfile_abort(&of);
	cr_assert_str_eq(get("r.html"), html);
	cr_assert_eq(nfiles(), 1);
}

Test(common_outfile, a_failed_write_is_an_error_and_leaves_the_target)
{
	struct rlimit rl = {4096, 4096};
	struct skip_outfile of;

	put("r.html", html);
	signal(SIGXFSZ, SIG_IGN);
	cr_assert_eq(open_out(&of, "r.html", SKIP_OUT_HTML, NULL), 0, "%s", skip_errmsg());
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &rl), 0);
	for (int i = 0; i < 1000; i++)
		fputs("0123456789", of.f);
	cr_assert_lt(skip_outfile_commit(&of), 0);
	cr_assert(strstr(skip_errmsg(), "left as it was"), "%s", skip_errmsg());
	cr_assert_str_eq(get("r.html"), html);
	cr_assert_eq(nfiles(), 1);
}

Test(common_outfile, the_result_takes_the_replaced_files_mode_or_a_new_files)
{
	struct skip_outfile of;
	struct stat st;

	umask(022);
	cr_assert_eq(open_out(&of, "new.json", SKIP_OUT_PLAN, NULL), 0, "%s", skip_errmsg());
	fputs("{\"skip_plan\":1}\n", of.f);
	cr_assert_eq(skip_outfile_commit(&of), 0, "%s", skip_errmsg());
	cr_assert_eq(stat(path("new.json"), &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0644);

	cr_assert_eq(chmod(path("new.json"), 0600), 0);
	cr_assert_eq(open_out(&of, "new.json", SKIP_OUT_PLAN, NULL), 0, "%s", skip_errmsg());
	fputs("{\"skip_plan\":2}\n", of.f);
	cr_assert_eq(skip_outfile_commit(&of), 0, "%s", skip_errmsg());
	cr_assert_eq(stat(path("new.json"), &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0600);
	cr_assert_str_eq(get("new.json"), "{\"skip_plan\":2}\n");
}

Test(common_outfile, through_a_symlink_the_named_file_is_replaced_and_the_link_kept)
{
	struct skip_outfile of;
	struct stat st;

	put("real.json", "{\"skip_plan\":1}\n");
	cr_assert_eq(symlink("real.json", path("link.json")), 0);
	cr_assert_eq(open_out(&of, "link.json", SKIP_OUT_PLAN, NULL), 0, "%s", skip_errmsg());
	fputs("{\"skip_plan\":3}\n", of.f);
	cr_assert_eq(skip_outfile_commit(&of), 0, "%s", skip_errmsg());
	cr_assert_eq(lstat(path("link.json"), &st), 0);
	cr_assert(S_ISLNK(st.st_mode));
	cr_assert_str_eq(get("real.json"), "{\"skip_plan\":3}\n");
}

Test(common_outfile, a_missing_directory_is_named)
{
	struct skip_outfile of;

	cr_assert_lt(open_out(&of, "nodir/x.json", SKIP_OUT_PLAN, NULL), 0);
	cr_assert(strstr(skip_errmsg(), "does not exist"), "%s", skip_errmsg());
	cr_assert(strstr(skip_errmsg(), "nodir"), "%s", skip_errmsg());
}

Test(common_outfile, skip_gates_outputs_replace_only_their_own_kind)
{
	struct skip_outfile of;

	put("b.json", "{\n  \"skip_baseline\": 1,\n");
	put("g.xml",
	    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"skip gate\" x>");
	put("g.md", "### skip gate: PASS\n");
	cr_assert_eq(open_out(&of, "b.json", SKIP_OUT_BASELINE, NULL), 0, "%s", skip_errmsg());
	skip_outfile_abort(&of);
	cr_assert_eq(open_out(&of, "g.xml", SKIP_OUT_JUNIT, NULL), 0, "%s", skip_errmsg());
	skip_outfile_abort(&of);
	cr_assert_eq(open_out(&of, "g.md", SKIP_OUT_MARKDOWN, NULL), 0, "%s", skip_errmsg());
	skip_outfile_abort(&of);
	cr_expect_eq(open_out(&of, "g.md", SKIP_OUT_BASELINE, NULL), SKIP_E_EXISTS);
	cr_expect_eq(open_out(&of, "b.json", SKIP_OUT_PLAN, NULL), SKIP_E_EXISTS);
	cr_expect_eq(open_out(&of, "g.xml", SKIP_OUT_MARKDOWN, NULL), SKIP_E_EXISTS);
	cr_expect_eq(nfiles(), 3);
}
