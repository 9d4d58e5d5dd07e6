/*
 * read.c: an input trace into memory. zlib reads gzip and plain files alike; the first two
 * bytes say which it is, so that the errors can name a truncated or damaged gzip stream.
 */
#define SK_LOG_DOMAIN "import"
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "internal.h"

/* Bytes read per gzread() call (its length is an unsigned int). */
#define CHUNK ((size_t)1 << 24)

static int open_input(const char *path, int *is_gz, size_t *size_hint)
{
	unsigned char magic[2];
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return sk_fail(errno == ENOENT ? SKIP_E_NOTFOUND : SKIP_E_IO, "%s: %s", path,
			       strerror(errno));
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		close(fd);
		return sk_fail(SKIP_E_IO, "%s: %s", path, strerror(EISDIR));
	}
	*size_hint = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? (size_t)st.st_size : 0;
	*is_gz = pread(fd, magic, 2, 0) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
	return fd;
}

static int gz_error(gzFile gz, const char *path, int is_gz)
{
	int zerr = Z_OK;
	const char *msg = gzerror(gz, &zerr);

	if (zerr == Z_ERRNO)
		return sk_fail(SKIP_E_IO, "%s: %s", path, strerror(errno));
	if (zerr == Z_MEM_ERROR)
		return sk_fail(SKIP_E_NOMEM, "%s: out of memory", path);
	if (zerr == Z_BUF_ERROR && is_gz)
		return sk_fail(
		    SKIP_E_INVAL,
		    "%s: the gzip stream is truncated (an interrupted copy or download?)", path);
	if (zerr != Z_OK)
		return sk_fail(SKIP_E_INVAL, "%s: %s %s", path,
			       is_gz ? "the gzip stream is damaged:" : "cannot be read:", msg);
	return 0;
}

static int read_all(gzFile gz, const char *path, int is_gz, size_t max_bytes, size_t hint,
		    char **text, size_t *len)
{
	/* Room for max_bytes + 1 bytes and the NUL at most: one byte too many is how a text
	 * larger than the limit shows. A plain file fits its size and the NUL, with room for
	 * the read that finds its end; a gzip stream starts at twice its size and doubles. */
	size_t limit = max_bytes + 2, cap = (is_gz ? 2 * hint : hint) + 2, n = 0;
	char *buf;
	int err;

	cap = cap < 65536 ? 65536 : cap > limit ? limit : cap;
	if (!(buf = malloc(cap)))
		return sk_fail(SKIP_E_NOMEM, "%s: out of memory", path);
	while (n <= max_bytes) {
		size_t want;
		int got;

		if (n + 1 == cap) {
			size_t ncap = cap > limit / 2 ? limit : cap * 2;
			char *nb = realloc(buf, ncap);

			if (!nb) {
				free(buf);
				return sk_fail(SKIP_E_NOMEM, "%s: out of memory", path);
			}
			buf = nb;
			cap = ncap;
		}
		want = cap - 1 - n < CHUNK ? cap - 1 - n : CHUNK;
		got = gzread(gz, buf + n, (unsigned)want);
		if (got < 0) {
			free(buf);
			return gz_error(gz, path, is_gz);
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	if (n > max_bytes) {
		free(buf);
		return sk_fail(
		    SKIP_E_INVAL,
		    "%s: more than %zu MiB of JSON (skip import holds the text in memory; "
		    "--max-mb raises the limit)",
		    path, max_bytes >> 20);
	}
	if ((err = gz_error(gz, path, is_gz))) {
		free(buf);
		return err;
	}
	buf[n] = '\0';
	*text = buf;
	*len = n;
	return 0;
}

int sk_import_read(const char *path, size_t max_bytes, char **text, size_t *len)
{
	size_t hint = 0;
	int is_gz = 0, err, fd = open_input(path, &is_gz, &hint);
	gzFile gz;

	*text = NULL;
	*len = 0;
	if (fd < 0)
		return fd;
	gz = gzdopen(fd, "rb");
	if (!gz) {
		close(fd);
		return sk_fail(SKIP_E_NOMEM, "%s: out of memory", path);
	}
	gzbuffer(gz, 1 << 20);
	err = read_all(gz, path, is_gz, max_bytes, hint, text, len);
	gzclose(gz);
	if (!err && *len == 0) {
		free(*text);
		*text = NULL;
		return sk_fail(SKIP_E_INVAL, "%s: the file is empty (not a torch.profiler trace)",
			       path);
	}
	return err;
}
