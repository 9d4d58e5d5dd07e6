/*
 * file.c: skip_read_file(), the one way skip reads a whole file (JSON workloads and plans,
 * calibration files, CUDA modules). The size fstat() reports is only a first guess: a pipe,
 * a device or a file that grows while it is read is read to its end all the same, and checked
 * against the limit as it comes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "skip_common.h"

/* Read @fd to its end into *@buf (capacity *@cap, kept one byte ahead for the NUL), at most
 * @max_bytes. Returns 0, or a negative code with errno set. */
static int read_all(int fd, size_t max_bytes, char **buf, size_t *cap, size_t *len)
{
	for (;;) {
		ssize_t got;
		char *nb;

		if (*len + 1 >= *cap) {
			if (!(nb = sk_vec_grow(*buf, cap, *cap + 1, 1))) {
				errno = ENOMEM;
				return SKIP_E_NOMEM;
			}
			*buf = nb;
		}
		got = read(fd, *buf + *len, *cap - 1 - *len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return SKIP_E_IO;
		if (got == 0)
			return 0;
		*len += (size_t)got;
		if (*len > max_bytes) {
			errno = EFBIG;
			return SKIP_E_INVAL;
		}
	}
}

int skip_read_file(const char *path, size_t max_bytes, char **text, size_t *len)
{
	size_t cap = 0, n = 0;
	struct stat st;
	char *buf = NULL;
	int fd, err = 0, saved;

	*text = NULL;
	if (len)
		*len = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = errno == ENOENT ? SKIP_E_NOTFOUND : SKIP_E_IO;
		goto out;
	}
	if (fstat(fd, &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			errno = EISDIR;
			err = SKIP_E_IO;
			goto out;
		}
		if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > max_bytes) {
			errno = EFBIG;
			err = SKIP_E_INVAL;
			goto out;
		}
		/* One byte more than the file (and the NUL): the first read then meets the end. */
		if (S_ISREG(st.st_mode) && (uint64_t)st.st_size < SIZE_MAX - 2)
			cap = (size_t)st.st_size + 2;
	}
	if (cap && !(buf = malloc(cap))) {
		errno = ENOMEM;
		err = SKIP_E_NOMEM;
		goto out;
	}
	err = read_all(fd, max_bytes, &buf, &cap, &n);
out:
	saved = errno;
	if (fd >= 0)
		close(fd);
	if (err) {
		free(buf);
		if (err == SKIP_E_NOMEM)
			sk_fail(err, "%s: out of memory", path);
		else if (err == SKIP_E_INVAL)
			sk_fail(err, "%s: larger than %zu bytes", path, max_bytes);
		else
			sk_fail(err, "%s: %s", path, strerror(saved));
		errno = saved;
		return err;
	}
	buf[n] = '\0';
	*text = buf;
	if (len)
		*len = n;
	return 0;
}
