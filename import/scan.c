/*
 * scan.c: a walk over the skeleton of a JSON text - objects, arrays, strings - that builds no
 * tree. The importer uses it to hand one trace event at a time to cJSON (which checks it
 * fully) and to read the "ts" and "dur" numbers from the text itself: cJSON keeps numbers only
 * as doubles, which round the 19 significant digits of an absolute Kineto timestamp.
 */
#define SK_LOG_DOMAIN "import"
#include <string.h>

#include "internal.h"

/* Deeper nesting than this is refused (cJSON refuses 1000 levels already). */
#define MAX_DEPTH 1000

static int fail(struct sk_jscan *j, const char *msg)
{
	j->msg = msg;
	return -1;
}

int sk_jscan_peek(struct sk_jscan *j)
{
	while (j->pos < j->n && strchr(" \t\r\n", j->s[j->pos]) && j->s[j->pos])
		j->pos++;
	return j->pos < j->n ? (unsigned char)j->s[j->pos] : 0;
}

int sk_jscan_expect(struct sk_jscan *j, char c)
{
	static char msg[] = "expected ' '";

	if (sk_jscan_peek(j) != (unsigned char)c) {
		if (j->pos >= j->n)
			return fail(j, "the text ends early (a truncated file?)");
		msg[10] = c; /* the one character of the message that changes; always printable */
		return fail(j, msg);
	}
	j->pos++;
	return 0;
}

/* Step over a string whose opening quote is at j->pos. */
static int skip_string(struct sk_jscan *j)
{
	for (j->pos++; j->pos < j->n; j->pos++) {
		if (j->s[j->pos] == '\\')
			j->pos++;
		else if (j->s[j->pos] == '"') {
			j->pos++;
			return 0;
		}
	}
	return fail(j, "a string does not end (a truncated file?)");
}

int sk_jscan_string(struct sk_jscan *j, struct sk_jspan *out)
{
	size_t start;

	if (sk_jscan_peek(j) != '"')
		return fail(j, j->pos >= j->n ? "the text ends early (a truncated file?)"
					      : "expected a string");
	start = j->pos + 1;
	if (skip_string(j))
		return -1;
	out->p = j->s + start;
	out->n = j->pos - 1 - start;
	return 0;
}

int sk_jscan_value(struct sk_jscan *j, struct sk_jspan *out)
{
	char stack[MAX_DEPTH];
	int depth = 0, c = sk_jscan_peek(j);
	size_t start = j->pos;

	if (!c && j->pos >= j->n)
		return fail(j, "the text ends early (a truncated file?)");
	if (!c || strchr(",:]}", c))
		return fail(j, "expected a value");
	if (c != '{' && c != '[' && c != '"') {
		/* A number or literal, up to the next delimiter (a NUL byte is one: strchr finds
		 * the terminator); cJSON checks what it is. */
		while (j->pos < j->n && !strchr(" \t\r\n,:]}[{\"", j->s[j->pos]))
			j->pos++;
		out->p = j->s + start;
		out->n = j->pos - start;
		return 0;
	}
	do {
		if (j->pos >= j->n)
			return fail(j, "the text ends early (a truncated file?)");
		c = (unsigned char)j->s[j->pos];
		if (c == '"') {
			if (skip_string(j))
				return -1;
			continue;
		}
		if (c == '{' || c == '[') {
			if (depth == MAX_DEPTH)
				return fail(j, "nested too deeply");
			stack[depth++] = c == '{' ? '}' : ']';
		} else if (c == '}' || c == ']') {
			if (stack[depth - 1] != c)
				return fail(j, "a bracket does not match");
			depth--;
		}
		j->pos++;
	} while (depth);
	out->p = j->s + start;
	out->n = j->pos - start;
	return 0;
}

int sk_jscan_more(struct sk_jscan *j, char close, int *first)
{
	int c = sk_jscan_peek(j);

	if (c == (unsigned char)close) {
		j->pos++;
		return 0;
	}
	if (!c)
		return fail(j, "the text ends early (a truncated file?)");
	if (!*first) {
		if (c != ',')
			return fail(j,
				    close == ']' ? "expected ',' or ']'" : "expected ',' or '}'");
		j->pos++;
	}
	*first = 0;
	return 1;
}

int sk_jscan_member(struct sk_jspan obj, const char *key, struct sk_jspan *out)
{
	struct sk_jscan j = {obj.p, obj.n, 0, NULL};
	size_t klen = strlen(key);
	int first = 1;

	if (sk_jscan_expect(&j, '{'))
		return 0;
	while (sk_jscan_more(&j, '}', &first) == 1) {
		struct sk_jspan k, v;

		if (sk_jscan_string(&j, &k) || sk_jscan_expect(&j, ':') || sk_jscan_value(&j, &v))
			return 0;
		if (k.n == klen && !memcmp(k.p, key, klen)) {
			*out = v;
			return 1;
		}
	}
	return 0;
}

void sk_jscan_where(const char *s, size_t pos, long *line, long *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < pos; i++) {
		if (s[i] == '\n') {
			++*line;
			*col = 1;
		} else {
			++*col;
		}
	}
}

/* The nanoseconds at or above which a timestamp is out of range (docs/trace-format.md). */
#define NS_LIMIT ((unsigned __int128)1 << 62)
/* Digits are accumulated up to this (10^36); the next digit still fits an unsigned __int128. */
#define MANT_CAP ((unsigned __int128)1000000000000000000ull * 1000000000000000000ull)

int sk_us_to_ns(struct sk_jspan v, int64_t *ns)
{
	const char *s = v.p, *end = v.p + v.n;
	unsigned __int128 mant = 0, pow10 = 1;
	int neg = 0, digits = 0, fdigits = 0, used_frac = 0, dropped = 0;
	int exp = 0, eneg = 0, edigits = 0, scale; /* the value is mant * 10^scale ns */

	if (s < end && *s == '-')
		neg = 1, s++;
	for (; s < end && *s >= '0' && *s <= '9'; s++, digits++) {
		if (mant < MANT_CAP)
			mant = mant * 10 + (unsigned)(*s - '0');
		else
			dropped++; /* an integer digit past the cap: scales the value */
	}
	if (s < end && *s == '.') {
		for (s++; s < end && *s >= '0' && *s <= '9'; s++, fdigits++)
			if (mant < MANT_CAP) { /* later fraction digits are far below 1 ns */
				mant = mant * 10 + (unsigned)(*s - '0');
				used_frac++;
			}
		if (!fdigits)
			return -1;
	}
	if (!digits)
		return -1;
	if (s < end && (*s == 'e' || *s == 'E')) {
		s++;
		if (s < end && (*s == '+' || *s == '-'))
			eneg = *s++ == '-';
		for (; s < end && *s >= '0' && *s <= '9'; s++, edigits++)
			if (exp < 10000)
				exp = exp * 10 + (*s - '0');
		if (!edigits)
			return -1;
	}
	if (s != end)
		return -1;
	if (mant == 0) {
		*ns = 0;
		return 0;
	}
	scale = 3 - used_frac + dropped + (eneg ? -exp : exp);
	if (scale > 40)
		return -1;
	for (; scale > 0; scale--) {
		mant *= 10;
		if (mant >= NS_LIMIT)
			return -1;
	}
	if (scale < -38) { /* mant < 10^37: far below half a nanosecond */
		*ns = 0;
		return 0;
	}
	for (; scale < 0; scale++)
		pow10 *= 10;
	mant = (mant + pow10 / 2) / pow10;
	if (mant >= NS_LIMIT)
		return -1;
	*ns = neg ? -(int64_t)mant : (int64_t)mant;
	return 0;
}
