/*
 * trace_opts.c: the --trace list shared by `skip record` (to check it) and the collector (to
 * act on it, through SKIP_TRACE).
 */
#include <stdio.h>
#include <string.h>

#include "skip_common.h"

static const struct {
	const char *name;
	unsigned bits;
	int is_kind; /* kinds replace the default set; options add to it */
} words[] = {
    {"cuda", SKIP_TRACE_CUDA, 1},	  {"nvtx", SKIP_TRACE_NVTX, 1},
    {"sync", SKIP_TRACE_SYNC, 1},	  {"overhead", SKIP_TRACE_OVERHEAD, 1},
    {"all-apis", SKIP_TRACE_ALL_APIS, 0}, {"graph-level", SKIP_TRACE_GRAPH_LEVEL, 0},
    {"latency", SKIP_TRACE_LATENCY, 0},
};
#define NWORDS (sizeof(words) / sizeof(words[0]))

int skip_trace_opts_parse(const char *spec, unsigned *bits)
{
	unsigned kinds = 0, opts = 0;
	int named_kinds = 0;
	const char *p = spec ? spec : "";

	while (*p) {
		size_t n = strcspn(p, ",");
		size_t i;

		if (n == 0) {
			p++;
			continue;
		}
		if (n == 7 && strncmp(p, "default", 7) == 0) {
			kinds |= SKIP_TRACE_DEFAULT;
			named_kinds = 1;
		} else if (n == 4 && strncmp(p, "none", 4) == 0) {
			named_kinds = 1;
		} else {
			for (i = 0; i < NWORDS; i++)
				if (strlen(words[i].name) == n && strncmp(p, words[i].name, n) == 0)
					break;
			if (i == NWORDS)
				return sk_fail(
				    SKIP_E_INVAL,
				    "unknown --trace word '%.*s' (known: cuda, nvtx, sync, "
				    "overhead, all-apis, graph-level, latency, default, none)",
				    (int)n, p);
			if (words[i].is_kind) {
				kinds |= words[i].bits;
				named_kinds = 1;
			} else {
				opts |= words[i].bits;
			}
		}
		p += n;
	}
	*bits = (named_kinds ? kinds : SKIP_TRACE_DEFAULT) | opts;
	return 0;
}

int skip_trace_needs_cupti(unsigned bits)
{
	return (bits & (SKIP_TRACE_KINDS & ~SKIP_TRACE_NVTX)) || (bits & SKIP_TRACE_ALL_APIS);
}

void skip_trace_opts_format(unsigned bits, char *buf, size_t len)
{
	size_t used = 0;

	if (len == 0)
		return;
	buf[0] = '\0';
	for (size_t i = 0; i < NWORDS; i++) {
		if (!(bits & words[i].bits))
			continue;
		used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s%s",
					 used ? "," : "", words[i].name);
		if (used >= len)
			break;
	}
	if (!buf[0])
		snprintf(buf, len, "none");
}
