/*
 * outfile.c: how every command writes a file. The checks come first, so that nothing is lost
 * to a typo: an output is never one of the command's inputs (compared by device and inode, so
 * symlinks and hard links count), never a directory, and replaces an existing file only when
 * that file is empty or one skip wrote of the same kind (a trace, an HTML report, a plan).
 * The output is then written to a temporary file in the target's directory and renamed over
 * the target when complete: a killed or failed write leaves the target as it was.
 */
#define SK_LOG_DOMAIN "store"
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "skip_common.h"

static const char *const kind_names[] = {
    [SKIP_OUT_TRACE] = "skip trace",
    [SKIP_OUT_HTML] = "skip HTML report",
    [SKIP_OUT_PLAN] = "skip plan",
    [SKIP_OUT_BASELINE] = "skip baseline",
    [SKIP_OUT_JUNIT] = "skip gate JUnit file",
    [SKIP_OUT_MARKDOWN] = "skip gate Markdown summary",
    [SKIP_OUT_EXPORT] = "skip export JSON file",
    [SKIP_OUT_CSV] = "CSV file in a skip export folder",
};

/* The start of what skip writes for each text kind (notebooks-export/html.c, timeline's and
 * ipynb's JSON, runtime's skip_plan_to_json(), gate/baseline.c and gate/report.c); a file that
 * starts this way was written by skip. */
static int text_is_ours(const char *head, enum skip_out_kind kind)
{
	switch (kind) {
	case SKIP_OUT_HTML:
		return !strncmp(head, "<!DOCTYPE html>", 15) && strstr(head, "<title>skip report");
	case SKIP_OUT_PLAN:
		return head[0] == '{' && strstr(head, "\"skip_plan\"") != NULL;
	case SKIP_OUT_BASELINE:
		return head[0] == '{' && strstr(head, "\"skip_baseline\"") != NULL;
	case SKIP_OUT_JUNIT:
		return !strncmp(head, "<?xml", 5) && strstr(head, "<testsuites name=\"skip gate\"");
	case SKIP_OUT_MARKDOWN:
		return !strncmp(head, "### skip gate:", 14);
	case SKIP_OUT_EXPORT:
		return head[0] == '{' && strstr(head, "\"skip_export\":") != NULL;
	default:
		return 0;
	}
}

static int trace_is_ours(const char *path)
{
	sqlite3 *db = NULL;
	int ours = 0;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK)
		ours = sk_db_int(db, 0,
				 "SELECT count(*) FROM sqlite_master WHERE type='table' AND "
				 "name='SKIP_RUNS'") > 0;
	sqlite3_close(db);
	return ours;
}

static int csv_folder_is_ours(const char *path)
{
	char *copy = sk_xstrdup(path), *marker = sk_xasprintf("%s/" SKIP_CSV_MARKER, dirname(copy));
	struct stat st;
	int ours = lstat(marker, &st) == 0 && S_ISREG(st.st_mode);

	free(marker);
	free(copy);
	return ours;
}

/* Whether the regular file @path, of @size bytes, may be replaced by an output of @kind. */
static int replaceable(const char *path, off_t size, enum skip_out_kind kind)
{
	char head[512];
	ssize_t n;
	int fd;

	if (size == 0)
		return 1;
	if (kind == SKIP_OUT_CSV) /* CSV has no room for a mark: its folder carries it */
		return csv_folder_is_ours(path);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, head, sizeof(head) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	head[n] = '\0';
	if (kind == SKIP_OUT_TRACE)
		return n >= 16 && !memcmp(head, "SQLite format 3", 16) && trace_is_ours(path);
	return text_is_ours(head, kind);
}

static int same_file(const struct stat *a, const char *path)
{
	struct stat b;

	return stat(path, &b) == 0 && a->st_dev == b.st_dev && a->st_ino == b.st_ino;
}

static void free_members(struct skip_outfile *of)
{
	free(of->path);
	free(of->target);
	free(of->tmp);
	memset(of, 0, sizeof(*of));
}

static void remove_sidecars(const char *path)
{
	static const char *const ext[] = {"-wal", "-shm", "-journal"};
	char *s;

	for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
		s = sk_xasprintf("%s%s", path, ext[i]);
		unlink(s);
		free(s);
	}
}

/* Check the existing @st at @path (the target); 0 when it may be written. Sets *@direct for
 * devices and FIFOs, which are written in place (nothing is replaced). */
static int check_existing(const char *path, const struct stat *st, enum skip_out_kind kind,
			  int replace, int *direct)
{
	*direct = 0;
	if (S_ISDIR(st->st_mode))
		return sk_fail(SKIP_E_INVAL, "%s is a directory; name a file in it", path);
	if (!S_ISREG(st->st_mode)) {
		if (kind == SKIP_OUT_TRACE)
			return sk_fail(SKIP_E_INVAL,
				       "%s is not a regular file (a device, FIFO or socket); a "
				       "trace can only be written to a regular file",
				       path);
		*direct = 1;
		return 0;
	}
	if (!replace)
		return sk_fail(SKIP_E_EXISTS, "%s exists", path);
	if (!replaceable(path, st->st_size, kind))
		return sk_fail(
		    SKIP_E_EXISTS,
		    "%s exists and is not a %s; skip replaces only files it wrote itself "
		    "(or empty ones): remove it or choose another name",
		    path, kind_names[kind]);
	return 0;
}

/* Create the temporary file beside @of->target; fd returned, or a negative code. */
static int make_tmp(struct skip_outfile *of)
{
	char *dcopy = sk_xstrdup(of->target), *bcopy = sk_xstrdup(of->target);
	const char *dir = dirname(dcopy), *base = basename(bcopy);
	struct stat st;
	int fd, err = 0;

	of->tmp = sk_xasprintf("%s/.%s.XXXXXX", dir, base);
	fd = mkstemp(of->tmp);
	if (fd < 0) {
		err = -errno;
		if (stat(dir, &st) != 0)
			sk_fail(err, "cannot write %s: the directory %s does not exist", of->path,
				dir);
		else if (!S_ISDIR(st.st_mode))
			sk_fail(err, "cannot write %s: %s is not a directory", of->path, dir);
		else
			sk_fail(err, "cannot write %s: cannot create a file in %s: %s", of->path,
				dir, strerror(-err));
		free(of->tmp);
		of->tmp = NULL;
	}
	free(dcopy);
	free(bcopy);
	return err ? err : fd;
}

int skip_outfile_open(struct skip_outfile *of, const char *path, enum skip_out_kind kind,
		      int replace, const char *const *inputs, size_t ninputs)
{
	struct stat st, lst;
	int direct = 0, exists, fd, err;

	memset(of, 0, sizeof(*of));
	if (!strcmp(path, "-")) {
		if (kind == SKIP_OUT_TRACE)
			return sk_fail(SKIP_E_INVAL,
				       "a trace cannot be written to standard output");
		of->to_stdout = 1;
		of->f = stdout;
		return 0;
	}
	exists = stat(path, &st) == 0;
	if (!exists && lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode))
		return sk_fail(SKIP_E_INVAL, "%s is a symbolic link to a file that does not exist",
			       path);
	for (size_t i = 0; exists && i < ninputs; i++)
		if (inputs[i] && same_file(&st, inputs[i]))
			return sk_fail(SKIP_E_INVAL,
				       "%s is also an input%s%s%s; an output never replaces an "
				       "input: choose another output file",
				       path, strcmp(path, inputs[i]) ? " (" : "",
				       strcmp(path, inputs[i]) ? inputs[i] : "",
				       strcmp(path, inputs[i]) ? ")" : "");
	if (exists && (err = check_existing(path, &st, kind, replace, &direct)))
		return err;
	of->path = sk_xstrdup(path);
	of->kind = kind;
	/* Through a symlink, the file it names is what gets replaced; the link stays. */
	of->target = exists ? realpath(path, NULL) : NULL;
	if (!of->target)
		of->target = sk_xstrdup(path);
	if (direct) {
		of->f = fopen(of->target, "w");
		if (!of->f) {
			err = sk_fail(-errno, "cannot write %s: %s", path, strerror(errno));
			free_members(of);
			return err;
		}
		return 0;
	}
	fd = make_tmp(of);
	if (fd < 0) {
		free_members(of);
		return fd;
	}
	if (kind == SKIP_OUT_TRACE) {
		close(fd);
		return 0;
	}
	of->f = fdopen(fd, "w");
	if (!of->f) {
		err = sk_fail(-errno, "cannot write %s: %s", path, strerror(errno));
		close(fd);
		skip_outfile_abort(of);
		return err;
	}
	return 0;
}

/* A trace that could not be finalized (a full disk) still has committed pages in its WAL:
 * the WAL and its index go with it, so that SQLite reads them back on open without having to
 * create a file on a disk that may still be full. */
static int move_wal(const char *tmp, const char *target)
{
	static const char *const ext[] = {"-wal", "-shm"};
	int err = 0;

	for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]) && !err; i++) {
		char *from = sk_xasprintf("%s%s", tmp, ext[i]), *to;

		to = sk_xasprintf("%s%s", target, ext[i]);
		if (access(from, F_OK) == 0 && rename(from, to) != 0)
			err = -errno;
		free(from);
		free(to);
	}
	errno = -err;
	return err;
}

/* The mode the finished file gets: the replaced file's, or a new file's (0666 less umask). */
static mode_t final_mode(const char *target)
{
	struct stat st;
	mode_t mask;

	if (stat(target, &st) == 0)
		return st.st_mode & 07777;
	mask = umask(0);
	umask(mask);
	return 0666 & ~mask;
}

int skip_outfile_commit(struct skip_outfile *of)
{
	int err = 0;

	if (of->to_stdout) {
		if (fflush(stdout) != 0 || ferror(stdout))
			err = sk_fail(SKIP_E_IO, "writing to standard output failed: %s",
				      strerror(errno));
		memset(of, 0, sizeof(*of));
		return err;
	}
	if (of->f) {
		int bad = fflush(of->f) != 0 || ferror(of->f) || (of->tmp && fsync(fileno(of->f)));
		int saved = errno;

		if (fclose(of->f) != 0 && !bad) {
			bad = 1;
			saved = errno;
		}
		of->f = NULL;
		if (bad) {
			err = sk_fail(saved == ENOSPC ? SKIP_E_FULL : SKIP_E_IO,
				      "writing %s failed: %s%s", of->path, strerror(saved),
				      of->tmp ? "; the file was left as it was" : "");
			goto out;
		}
	}
	if (!of->tmp)
		goto out;
	/* A replaced trace's side files would be read as the new file's (a stale WAL or hot
	 * journal is applied on open). */
	if (of->kind == SKIP_OUT_TRACE)
		remove_sidecars(of->target);
	if (chmod(of->tmp, final_mode(of->target)) != 0 || rename(of->tmp, of->target) != 0 ||
	    (of->kind == SKIP_OUT_TRACE && move_wal(of->tmp, of->target) != 0)) {
		err = -errno;
		if (of->kind == SKIP_OUT_TRACE) {
			/* A recording cannot be made again: keep it where it is. */
			sk_fail(err, "cannot put %s in place: %s; the trace is kept as %s",
				of->path, strerror(-err), of->tmp);
			free(of->tmp);
			of->tmp = NULL;
		} else {
			sk_fail(err, "cannot put %s in place: %s", of->path, strerror(-err));
		}
		goto out;
	}
	free(of->tmp);
	of->tmp = NULL;
out:
	if (of->tmp) {
		unlink(of->tmp);
		remove_sidecars(of->tmp);
	}
	free_members(of);
	return err;
}

void skip_outfile_abort(struct skip_outfile *of)
{
	if (of->f && !of->to_stdout)
		fclose(of->f);
	of->f = NULL;
	if (of->tmp) {
		unlink(of->tmp);
		remove_sidecars(of->tmp);
	}
	free_members(of);
}
