/*
 * error.c: skip_strerror() for the codes in skip_common.h, and the per-thread message that
 * explains the last failure (skip_errmsg(), set with sk_fail()), in the spirit of dlerror().
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "skip_common.h"

static _Thread_local char errmsg[1024];

const char *skip_strerror(int err)
{
	switch (err) {
	case SKIP_OK:
		return "success";
	case SKIP_E_NOMEM:
		return "out of memory";
	case SKIP_E_INVAL:
		return "invalid argument";
	case SKIP_E_IO:
		return "input/output error";
	case SKIP_E_DB:
		return "database error";
	case SKIP_E_NOTSQLITE:
		return "not an SQLite database";
	case SKIP_E_CORRUPT:
		return "database is truncated or corrupt";
	case SKIP_E_FOREIGN:
		return "not a skip trace";
	case SKIP_E_NEWER:
		return "written by a newer version of skip";
	case SKIP_E_OLDER:
		return "written by an older, unsupported version of skip";
	case SKIP_E_EXISTS:
		return "file exists";
	case SKIP_E_NOTFOUND:
		return "not found";
	case SKIP_E_EMPTY:
		return "nothing to analyze";
	case SKIP_E_CUPTI:
		return "CUPTI call failed";
	case SKIP_E_CUDA:
		return "CUDA call failed";
	case SKIP_E_NODEV:
		return "no CUDA device";
	case SKIP_E_FULL:
		return "disk full";
	case SKIP_E_UNSUPPORTED:
		return "not supported";
	default:
		if (err < 0 && err > -1000)
			return strerror(-err);
		return "unknown error";
	}
}

const char *skip_errmsg(void)
{
	return errmsg;
}

int sk_fail(int err, const char *fmt, ...)
{
	char buf[sizeof(errmsg)];
	va_list ap;

	/* Through a copy: callers often wrap the previous message (skip_errmsg()) in a new one. */
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	memcpy(errmsg, buf, sizeof(errmsg));
	return err;
}
