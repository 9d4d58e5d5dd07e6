/*
 * common.c: the fuzz targets' shared helpers (fuzz.h): a scratch folder per process, inputs
 * written there as files, and the hand-built traces of tests/fixtures/hand. Needs only
 * libskip_common.a; fz_drive_trace() is in drive.c, with the analyzer and the advisor.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "skip_common.h"

#ifndef FZ_SRCDIR
#define FZ_SRCDIR "."
#endif

static char scratch[256];

static void die(const char *what, const char *path)
{
	fprintf(stderr, "fuzz: %s %s: %s\n", what, path, strerror(errno));
	abort();
}

/* At exit: the scratch folder and what is left in it (a crash leaves it for a look). */
static void remove_scratch(void)
{
	DIR *d = opendir(scratch);
	struct dirent *e;
	char p[600];

	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(p, sizeof(p), "%s/%s", scratch, e->d_name);
			unlink(p);
		}
	if (d)
		closedir(d);
	rmdir(scratch);
}

void fz_init(void)
{
	const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");

	if (scratch[0])
		return;
	/* Warnings for every damaged input would cost more than the input. */
	skip_log_init("fuzz", stderr, 1);
	snprintf(scratch, sizeof(scratch), "%s/skip-fuzz-%ld", base ? base : "/tmp",
		 (long)getpid());
	if (mkdir(scratch, 0700) != 0 && errno != EEXIST)
		die("cannot make", scratch);
	atexit(remove_scratch);
}

const char *fz_path(const char *name)
{
	static char ring[4][320];
	static unsigned next;
	char *p = ring[next++ % 4];

	snprintf(p, sizeof(ring[0]), "%s/%s", scratch, name);
	return p;
}

void fz_write(const char *path, const void *data, size_t n)
{
	FILE *f = fopen(path, "wb");

	if (!f || (n && fwrite(data, 1, n, f) != n) || fclose(f) != 0)
		die("cannot write", path);
}

void fz_unlink_db(const char *path)
{
	static const char *const suffix[] = {"", "-journal", "-wal", "-shm"};
	char p[400];

	for (size_t i = 0; i < sizeof(suffix) / sizeof(suffix[0]); i++) {
		snprintf(p, sizeof(p), "%s%s", path, suffix[i]);
		unlink(p);
	}
}

char *fz_slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long len;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc((size_t)len + 1);
		if (buf && fread(buf, 1, (size_t)len, f) == (size_t)len) {
			buf[len] = '\0';
			*n = (size_t)len;
		} else {
			free(buf);
			buf = NULL;
		}
	}
	fclose(f);
	return buf;
}

const char *fz_src(const char *rel)
{
	static char p[4][512];
	static unsigned next;
	const char *root = getenv("SKIP_SRC");
	char *out = p[next++ % 4];

	snprintf(out, sizeof(p[0]), "%s/%s", root && *root ? root : FZ_SRCDIR, rel);
	return out;
}

char *fz_cstr(const uint8_t *data, size_t n)
{
	char *s = malloc(n + 1);

	if (!s)
		abort();
	memcpy(s, data, n);
	s[n] = '\0';
	return s;
}

char *fz_hand_sql(const char *name)
{
	char rel[128];
	size_t n;
	char *s;

	snprintf(rel, sizeof(rel), "tests/fixtures/hand/%s.sql", name);
	s = fz_slurp(fz_src(rel), &n);
	if (!s) {
		fprintf(stderr, "fuzz: cannot read %s (set SKIP_SRC to the source tree)\n",
			fz_src(rel));
		abort();
	}
	return s;
}

static void must(int err, const char *what)
{
	if (err) {
		fprintf(stderr, "fuzz: %s: %s\n", what, skip_errmsg());
		abort();
	}
}

void fz_hand_trace(const char *path, const char *name, const char *more)
{
	const char *parts[] = {"common", name, more};
	sqlite3 *db = NULL;

	fz_unlink_db(path);
	must(skip_store_create(path, SKIP_STORE_OVERWRITE, &db), path);
	for (size_t k = 0; k < 3 && parts[k]; k++) {
		char *sql = fz_hand_sql(parts[k]);

		must(skip_store_exec(db, sql), parts[k]);
		free(sql);
	}
	must(skip_store_finalize(db), path);
	sqlite3_close(db);
}
