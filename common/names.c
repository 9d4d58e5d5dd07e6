/*
 * names.c: nsys's "short name" of a kernel, the bare function name without return type, scope,
 * template arguments or parameters. The collector stores it beside the demangled name it gets
 * from CUPTI; skip import derives it from the demangled names torch.profiler traces carry.
 */
#include <string.h>

#include "skip_common.h"

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
