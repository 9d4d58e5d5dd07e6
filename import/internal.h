/*
 * internal.h: shared by the files of import/ only.
 *
 * read.c reads an input (gzip or plain) into memory; scan.c walks the JSON text's skeleton
 * without building a tree, so that a trace of hundreds of megabytes costs its text plus one
 * event's cJSON tree at a time, and reads timestamps from the text exactly; torch.c maps
 * Kineto's events to the trace store's tables.
 */
#ifndef SKIP_IMPORT_INTERNAL_H
#define SKIP_IMPORT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "skip_import.h"

/*
 * Read the file at @path, gunzipping it when it starts with the gzip magic, into one malloc'ed
 * block with a NUL after the text: *@text is the caller's to free(), *@len its length. More than
 * @max_bytes of text is refused. Returns 0, or with *@text NULL and skip_errmsg() "PATH: ...":
 * SKIP_E_NOTFOUND, SKIP_E_IO (unreadable), SKIP_E_INVAL (a truncated or damaged gzip stream,
 * too large, empty), SKIP_E_NOMEM.
 */
int sk_import_read(const char *path, size_t max_bytes, char **text, size_t *len);

/* A piece of the JSON text (not NUL-terminated). For a string: what is between the quotes,
 * escapes untouched. */
struct sk_jspan {
	const char *p;
	size_t n;
};

/* A walk over a JSON text. On an error, pos is where it was found and msg says what. */
struct sk_jscan {
	const char *s;	 /* the text */
	size_t n;	 /* its length */
	size_t pos;	 /* the next byte to read */
	const char *msg; /* static text of the last error, NULL when none */
};

/* Skip white space; the byte there, or 0 at the end. */
int sk_jscan_peek(struct sk_jscan *j);
/* Expect @c (after white space) and step over it. 0, or -1 with msg set. */
int sk_jscan_expect(struct sk_jscan *j, char c);
/* A string: its contents in *@out. 0 or -1. */
int sk_jscan_string(struct sk_jscan *j, struct sk_jspan *out);
/* Step over one value of any kind (without checking it beyond its brackets and strings) and
 * return its text in *@out. 0 or -1. */
int sk_jscan_value(struct sk_jscan *j, struct sk_jspan *out);
/*
 * Inside an object or array whose opening bracket was read: 1 when another member or element
 * follows (the comma before it consumed; *@first tracks whether one was read), 0 when @close
 * ended it (consumed), -1 on an error.
 */
int sk_jscan_more(struct sk_jscan *j, char close, int *first);
/* The value of top-level member @key of the object text @obj, or 0 when absent (or when @obj is
 * not a well-formed object: the caller has checked it with cJSON first). */
int sk_jscan_member(struct sk_jspan obj, const char *key, struct sk_jspan *out);
/* 1-based line and column (in bytes) of offset @pos of @s. */
void sk_jscan_where(const char *s, size_t pos, long *line, long *col);

/*
 * The JSON number @v, in microseconds, as integer nanoseconds, exactly: the decimal digits are
 * read as they are written, never through a double (a trace's 19-digit timestamps do not fit
 * one); a part below one nanosecond is rounded half away from zero. Returns 0, or -1 when @v is
 * not a number or its magnitude reaches 2^62 ns.
 */
int sk_us_to_ns(struct sk_jspan v, int64_t *ns);

#endif /* SKIP_IMPORT_INTERNAL_H */
