/*
 * util.c: allocation helpers that abort on exhaustion (for the CLI and analyzers only; the
 * collector and runtime handle NULL themselves), clocks and the growable string buffer.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skip_common.h"

static void oom(size_t n)
{
	fprintf(stderr, "skip: error: out of memory (allocating %zu bytes)\n", n);
	abort();
}

void *sk_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		oom(n);
	return p;
}

void *sk_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		oom(n * size);
	return p;
}

void *sk_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q)
		oom(n);
	return q;
}

char *sk_xstrdup(const char *s)
{
	char *p = strdup(s ? s : "");

	if (!p)
		oom(strlen(s ? s : ""));
	return p;
}

char *sk_xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		oom(0);
	return s;
}

uint64_t skip_clock_ns(clockid_t clock)
{
	struct timespec ts;

	if (clock_gettime(clock, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int sb_reserve(struct sk_strbuf *sb, size_t extra)
{
	size_t need = sb->len + extra + 1;
	size_t cap = sb->cap ? sb->cap : 64;
	char *p;

	if (need <= sb->cap)
		return 0;
	while (cap < need)
		cap *= 2;
	p = realloc(sb->buf, cap);
	if (!p)
		return SKIP_E_NOMEM;
	sb->buf = p;
	sb->cap = cap;
	return 0;
}

int sk_strbuf_append(struct sk_strbuf *sb, const char *s, size_t n)
{
	if (sb_reserve(sb, n))
		return SKIP_E_NOMEM;
	memcpy(sb->buf + sb->len, s, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
	return 0;
}

int sk_strbuf_printf(struct sk_strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || sb_reserve(sb, (size_t)n))
		return SKIP_E_NOMEM;
	va_start(ap, fmt);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sb->len += (size_t)n;
	return 0;
}

const char *skip_fmt_duration(char *buf, size_t n, double ns, int digits)
{
	static const char *const units[] = {"ns", "us", "ms", "s"};
	double v = fabs(ns);
	int u = 0, whole, decimals;

	while (v >= 1000 && u < 3) {
		v /= 1000;
		u++;
	}
	whole = v >= 100 ? 3 : v >= 10 ? 2 : 1;
	decimals = u == 0 ? 0 : digits > whole ? digits - whole : 0;
	snprintf(buf, n, "%.*f %s", decimals, ns < 0 ? -v : v, units[u]);
	return buf;
}
