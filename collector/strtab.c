/*
 * strtab.c: string interning for StringIds (content -> id, FNV-1a, open addressing) and the
 * kernel-name helpers: demangling through the C++ runtime's __cxa_demangle and the "short
 * name" nsys shows (the bare function name, without return type, scope, template arguments or
 * parameters).
 */
#define SK_LOG_DOMAIN "collector"
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* From the C++ ABI (libstdc++ / libc++abi); declared here so the collector stays C. */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	while (*s) {
		h ^= (unsigned char)*s++;
		h *= 1099511628211ull;
	}
	return h ? h : 1;
}

static int grow(struct sk_strtab *t)
{
	size_t cap = t->cap ? t->cap * 2 : 1024;
	struct sk_strslot *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return SKIP_E_NOMEM;
	for (size_t i = 0; i < t->cap; i++) {
		struct sk_strslot *o = &t->slots[i];
		size_t j;

		if (!o->id)
			continue;
		for (j = o->hash & (cap - 1); slots[j].id; j = (j + 1) & (cap - 1))
			;
		slots[j] = *o;
	}
	free(t->slots);
	t->slots = slots;
	t->cap = cap;
	return 0;
}

int64_t sk_strtab_intern(struct sk_strtab *t, const char *s, int *is_new)
{
	uint64_t h = fnv1a(s);
	size_t i;

	*is_new = 0;
	if ((t->n + 1) * 2 > t->cap && grow(t))
		return SKIP_E_NOMEM;
	for (i = h & (t->cap - 1); t->slots[i].id; i = (i + 1) & (t->cap - 1))
		if (t->slots[i].hash == h && strcmp(t->slots[i].s, s) == 0)
			return t->slots[i].id;
	t->slots[i].s = strdup(s);
	if (!t->slots[i].s)
		return SKIP_E_NOMEM;
	t->slots[i].hash = h;
	t->slots[i].id = (int64_t)++t->n;
	*is_new = 1;
	return t->slots[i].id;
}

void sk_strtab_fini(struct sk_strtab *t)
{
	for (size_t i = 0; i < t->cap; i++)
		free(t->slots[i].s);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

char *sk_demangle(const char *mangled)
{
	int status = 0;
	char *d;

	if (!mangled || strncmp(mangled, "_Z", 2) != 0)
		return NULL;
	d = __cxa_demangle(mangled, NULL, NULL, &status);
	if (status != 0) {
		free(d);
		return NULL;
	}
	return d;
}

/*
 * "void at::native::foo<4, float>(int, float*)" -> "foo". Walk once, tracking <> and () depth:
 * the parameter list is the last top-level "(...)"; the name starts after the last top-level
 * space or "::" before it; template arguments are dropped. Anonymous-namespace and operator
 * names come out readable enough; anything odd falls back to the whole input.
 */
void sk_short_name(const char *d, char *out, size_t len)
{
	size_t n = strlen(d), end = n, start = 0;
	int depth = 0;

	if (len == 0)
		return;
	/* The parameter list: the top-level '(' matching the final ')'. */
	if (n && d[n - 1] == ')') {
		for (size_t i = n; i-- > 0;) {
			if (d[i] == ')')
				depth++;
			else if (d[i] == '(' && --depth == 0) {
				end = i;
				break;
			}
		}
	}
	/* Template arguments right before it. */
	depth = 0;
	if (end && d[end - 1] == '>') {
		for (size_t i = end; i-- > 0;) {
			if (d[i] == '>')
				depth++;
			else if (d[i] == '<' && --depth == 0) {
				end = i;
				break;
			}
		}
	}
	/* The start: after the last top-level ' ' or "::" before end. */
	depth = 0;
	for (size_t i = 0; i < end; i++) {
		if (d[i] == '<' || d[i] == '(')
			depth++;
		else if ((d[i] == '>' || d[i] == ')') && depth > 0)
			depth--;
		else if (depth == 0 && d[i] == ' ')
			start = i + 1;
		else if (depth == 0 && d[i] == ':' && i + 1 < end && d[i + 1] == ':')
			start = i + 2;
	}
	if (start >= end) {
		start = 0;
		end = n;
	}
	n = end - start < len - 1 ? end - start : len - 1;
	memcpy(out, d + start, n);
	out[n] = '\0';
}
