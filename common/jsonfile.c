/*
 * jsonfile.c: reading a JSON file (a workload, a plan, a calibration) into a cJSON tree, with
 * a syntax error reported the way compilers do, "w.json:12:7: JSON syntax error near '...'",
 * on one line, instead of cJSON's bare pointer into the text. The parse is strict about what
 * follows the value (only white space) and does not read cJSON's global error pointer, so
 * that two threads may load files at once.
 */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skip_common.h"

#define SNIPPET_CHARS 20 /* characters of the offending line quoted in a syntax error */

/* A UTF-8 continuation byte: not the start of a character. */
static int is_cont(unsigned char c)
{
	return (c & 0xc0) == 0x80;
}

/* Up to SNIPPET_CHARS characters of the line from @p on (or, when the line ends there, before
 * it), control characters as spaces, into @buf. */
static void snippet(const char *line, const char *p, char *buf, size_t len)
{
	const char *s = p, *e = p;
	size_t k = 0;
	int n = 0;

	if (!*p || *p == '\n' || *p == '\r') { /* nothing left on the line: what came before */
		while (s > line && n < SNIPPET_CHARS)
			n += !is_cont((unsigned char)*--s);
	} else {
		while (*e && *e != '\n' && *e != '\r' &&
		       (n < SNIPPET_CHARS || is_cont((unsigned char)*e)))
			n += !is_cont((unsigned char)*e++);
	}
	for (; s < e && k + 1 < len; s++)
		buf[k++] = (unsigned char)*s < 0x20 ? ' ' : *s;
	buf[k] = '\0';
}

/* The message for a syntax error at @p in @text: "NAME:LINE:COLUMN: ..." for a file, "line
 * LINE, column COLUMN: ..." without a name; @why (may be NULL) replaces "near '...'". Lines and
 * columns count from 1; columns count characters (UTF-8), a tab as one. */
static int syntax_error(const char *text, const char *p, const char *name, const char *why)
{
	const char *line = text;
	char near[4 * SNIPPET_CHARS + 1], what[sizeof(near) + 32];
	int lineno = 1, col = 1;

	for (const char *s = text; s < p; s++)
		if (*s == '\n') {
			lineno++;
			line = s + 1;
		}
	for (const char *s = line; s < p; s++)
		col += !is_cont((unsigned char)*s);
	snippet(line, p, near, sizeof(near));
	if (why)
		snprintf(what, sizeof(what), "%s", why);
	else if (*near)
		snprintf(what, sizeof(what), "near '%s'", near);
	else
		snprintf(what, sizeof(what), "at the end of the %s",
			 *p	? "line"
			 : name ? "file"
				: "text");
	if (name)
		return sk_fail(SKIP_E_INVAL, "%s:%d:%d: JSON syntax error %s", name, lineno, col,
			       what);
	return sk_fail(SKIP_E_INVAL, "line %d, column %d: JSON syntax error %s", lineno, col, what);
}

/* Parse the @len bytes of @text (text[len] is NUL). */
static int parse(const char *text, size_t len, const char *name, cJSON **out)
{
	const char *nul = memchr(text, '\0', len), *end = NULL;
	size_t used = nul ? (size_t)(nul - text) : len;

	*out = cJSON_ParseWithLengthOpts(text, used + 1, &end, 1);
	if (!*out)
		return end && end >= text && end <= text + used
			   ? syntax_error(text, end, name, NULL)
			   : sk_fail(SKIP_E_NOMEM, "out of memory");
	if (nul) { /* a NUL byte after a complete value: nothing may follow the value */
		cJSON_Delete(*out);
		*out = NULL;
		return syntax_error(text, nul, name, "(a NUL byte)");
	}
	return 0;
}

int skip_json_parse(const char *text, const char *name, struct cJSON **out)
{
	*out = NULL;
	if (!text)
		return sk_fail(SKIP_E_INVAL, "no JSON text");
	return parse(text, strlen(text), name, out);
}

int skip_json_load(const char *path, struct cJSON **out)
{
	char *text;
	size_t len = 0;
	int err;

	*out = NULL;
	if (!path)
		return sk_fail(SKIP_E_INVAL, "no JSON file named");
	err = skip_read_file(path, SIZE_MAX, &text, &len);
	if (!err)
		err = parse(text, len, path, out);
	free(text);
	return err;
}
