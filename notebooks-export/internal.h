/*
 * internal.h: shared by the notebooks-export sources only. A buffered writer (struct ew) that the
 * JSON and CSV writers format into: numbers are formatted by hand and text escaped byte by byte,
 * because a 10-million-kernel export writes gigabytes and stdio's printf is the bottleneck.
 * The first write error sticks in ew.err and every later write does nothing.
 */
#ifndef SKIP_EXPORT_INTERNAL_H
#define SKIP_EXPORT_INTERNAL_H

#include <stdint.h>
#include <stdio.h>

#include "skip_export.h"

struct ew {
	FILE *f;	   /* the stream written (borrowed) */
	size_t n;	   /* bytes in buf */
	int err;	   /* 0, or SKIP_E_IO after a failed write */
	int64_t bytes;	   /* bytes handed to @f so far */
	char buf[1 << 16]; /* pending output */
};

void sk_ew_init(struct ew *w, FILE *f);
/* Write what is pending and fflush(); returns w->err. */
int sk_ew_flush(struct ew *w);
void sk_ew_mem(struct ew *w, const char *s, size_t n);
void sk_ew_str(struct ew *w, const char *s); /* @s as it is */
void sk_ew_chr(struct ew *w, char c);
void sk_ew_i64(struct ew *w, int64_t v);
/* @ns as microseconds with three decimals, exactly ("-1.005" for -1005). */
void sk_ew_us(struct ew *w, int64_t ns);
/* @s as a JSON string, quotes included: ", \ and control characters escaped, UTF-8 passed
 * through, each byte of an invalid UTF-8 sequence replaced by U+FFFD. NULL writes "". */
void sk_ew_json(struct ew *w, const char *s);
/* The same for @n bytes of @s (may hold NUL bytes, written as \u0000). */
void sk_ew_json_n(struct ew *w, const char *s, size_t n);

/* The SQL condition selecting @sel's rows of a table with runId (@has_run), start and end
 * (@has_times) columns, "1" when none applies; malloc'ed (caller frees). @prefix qualifies the
 * columns ("k." or ""). */
char *sk_sel_where(const struct skip_export_sel *sel, const char *prefix, int has_run,
		   int has_times);

/* Create the TEMP views sk_api_calls and sk_gpus on @db, which present trace schema versions 1
 * and 2 alike (views.c says what they hold); again on the same connection does nothing.
 * Returns 0 or SKIP_E_DB. */
int sk_export_views(sqlite3 *db);

#endif /* SKIP_EXPORT_INTERNAL_H */
