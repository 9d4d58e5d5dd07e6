/*
 * kernel_names.c: the names the collector stores for a kernel besides CUPTI's mangled one:
 * the demangled name, through the C++ runtime's __cxa_demangle, and the "short name" nsys
 * shows (the bare function name, without return type, scope, template arguments or
 * parameters). The sink (records.c) caches their StringIds ids per name pointer.
 */
#define SK_LOG_DOMAIN "collector"
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* From the C++ ABI (libstdc++ / libc++abi); declared here so the collector stays C. */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

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
