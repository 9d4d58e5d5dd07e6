/*
 * test_file.c: skip_read_file() (common/file.c): a file read whole with a NUL after it, an
 * empty file, NUL bytes inside, a file exactly at the limit; and the refusals, each with its
 * code, errno and message: no such file, a directory, a file over the limit, a pipe that goes
 * over the limit as it is read.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "skip_common.h"
#include "unit/scratch.h"

static char dir[64];
static char path[128];

static void setup(void)
{
	sk_scratch_make(dir, sizeof(dir), "skip-file");
	snprintf(path, sizeof(path), "%s/f.txt", dir);
}

static void teardown(void)
{
	sk_scratch_remove(dir);
}

TestSuite(common_file, .init = setup, .fini = teardown);

static void write_bytes(const char *p, const char *text, size_t len)
{
	FILE *f = fopen(p, "wb");

	cr_assert_not_null(f);
	cr_assert_eq(fwrite(text, 1, len, f), len);
	fclose(f);
}

Test(common_file, a_file_is_read_whole_with_a_nul_after_it)
{
	char *text = NULL;
	size_t len = 0;

	write_bytes(path, "hello\nworld\n", 12);
	cr_assert_eq(skip_read_file(path, SIZE_MAX, &text, &len), 0);
	cr_expect_eq(len, 12);
	cr_expect_str_eq(text, "hello\nworld\n");
	free(text);
	cr_assert_eq(skip_read_file(path, 12, &text, NULL), 0, "exactly at the limit; len NULL");
	cr_expect_str_eq(text, "hello\nworld\n");
	free(text);
}

Test(common_file, an_empty_file_gives_an_empty_string)
{
	char *text = NULL;
	size_t len = 99;

	write_bytes(path, "", 0);
	cr_assert_eq(skip_read_file(path, 0, &text, &len), 0);
	cr_assert_not_null(text);
	cr_expect_eq(len, 0);
	cr_expect_str_eq(text, "");
	free(text);
}

Test(common_file, nul_bytes_inside_are_kept_and_counted)
{
	char *text = NULL;
	size_t len = 0;

	write_bytes(path, "a\0b\0", 4);
	cr_assert_eq(skip_read_file(path, SIZE_MAX, &text, &len), 0);
	cr_expect_eq(len, 4);
	cr_expect_eq(memcmp(text, "a\0b\0\0", 5), 0);
	free(text);
}

Test(common_file, a_big_file_is_read_whole)
{
	enum { LEN = 3 << 20 };
	char *big = malloc(LEN), *text = NULL;
	size_t len = 0;

	cr_assert_not_null(big);
	for (size_t i = 0; i < LEN; i++)
		big[i] = (char)('a' + i % 26);
	write_bytes(path, big, LEN);
	cr_assert_eq(skip_read_file(path, SIZE_MAX, &text, &len), 0);
	cr_expect_eq(len, LEN);
	cr_expect_eq(memcmp(text, big, LEN), 0);
	cr_expect_eq(text[LEN], '\0');
	free(text);
	free(big);
}

Test(common_file, a_missing_file_is_not_found)
{
	char want[256], *text = (char *)1;
	size_t len = 99;

	snprintf(path, sizeof(path), "%s/missing.json", dir);
	cr_assert_eq(skip_read_file(path, SIZE_MAX, &text, &len), SKIP_E_NOTFOUND);
	cr_expect_eq(errno, ENOENT);
	cr_expect_null(text);
	cr_expect_eq(len, 0);
	snprintf(want, sizeof(want), "%s: %s", path, strerror(ENOENT));
	cr_expect_str_eq(skip_errmsg(), want);
}

Test(common_file, a_directory_is_refused)
{
	char want[256], *text = (char *)1;

	cr_assert_eq(skip_read_file(dir, SIZE_MAX, &text, NULL), SKIP_E_IO);
	cr_expect_eq(errno, EISDIR);
	cr_expect_null(text);
	snprintf(want, sizeof(want), "%s: %s", dir, strerror(EISDIR));
	cr_expect_str_eq(skip_errmsg(), want);
}

Test(common_file, a_file_over_the_limit_is_refused)
{
	char want[256], *text = (char *)1;

	write_bytes(path, "0123456789", 10);
	cr_assert_eq(skip_read_file(path, 9, &text, NULL), SKIP_E_INVAL);
	cr_expect_eq(errno, EFBIG);
	cr_expect_null(text);
	snprintf(want, sizeof(want), "%s: larger than 9 bytes", path);
	cr_expect_str_eq(skip_errmsg(), want);
}

/* A pipe has no size to check first: the limit applies as the bytes come. */
Test(common_file, a_pipe_is_read_to_its_end_and_checked_as_it_comes)
{
	char fifo[160], *text = NULL;
	size_t len = 0;
	pid_t pid;

	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	for (int round = 0; round < 2; round++) {
		pid = fork();
		cr_assert_geq(pid, 0);
		if (pid == 0) {
			FILE *f = fopen(fifo, "wb");

			for (int i = 0; i < 1000; i++)
				fputs("0123456789", f);
			fclose(f);
			_exit(0);
		}
		if (round == 0) {
			cr_assert_eq(skip_read_file(fifo, SIZE_MAX, &text, &len), 0);
			cr_expect_eq(len, 10000);
			cr_expect_eq(strncmp(text + 9990, "0123456789", 11), 0);
			free(text);
		} else {
			cr_expect_eq(skip_read_file(fifo, 5000, &text, &len), SKIP_E_INVAL);
			cr_expect_null(text);
		}
		waitpid(pid, NULL, 0);
	}
}
