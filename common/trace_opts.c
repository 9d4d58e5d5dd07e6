/*
 * trace_opts.c: the --trace list and the --capture-range mode, shared by `skip record` (to
 * check them) and the collector (to act on them, through SKIP_TRACE and SKIP_CAPTURE).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
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
    {"latency", SKIP_TRACE_LATENCY, 0},	  {"sync-records", SKIP_TRACE_SYNC_RECORDS, 0},
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
				    "overhead, all-apis, graph-level, latency, sync-records, "
				    "default, none)",
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
	return (bits & (SKIP_TRACE_KINDS & ~SKIP_TRACE_NVTX)) ||
	       (bits & (SKIP_TRACE_ALL_APIS | SKIP_TRACE_SYNC_RECORDS));
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

/* Whether @s[0..@n) is all digits (and some). */
static int all_digits(const char *s, size_t n)
{
	if (n == 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

/* The number in @s[0..@n) (digits), at least 1; 0 when it is 0 or too large. */
static uint64_t count_of(const char *s, size_t n)
{
	char buf[24];
	unsigned long long v;

	if (n >= sizeof(buf))
		return 0;
	memcpy(buf, s, n);
	buf[n] = '\0';
	errno = 0;
	v = strtoull(buf, NULL, 10);
	return errno ? 0 : (uint64_t)v;
}

int skip_capture_parse(const char *spec, struct skip_capture *c)
{
	const char *name, *end;
	uint64_t nums[2];
	int nnums = 0;

	memset(c, 0, sizeof(*c));
	if (!spec || !*spec || strcmp(spec, "none") == 0)
		return 0;
	if (strcmp(spec, "cudaProfilerApi") == 0) {
		c->mode = SKIP_CAPTURE_PROFILER;
		return 0;
	}
	if (strncmp(spec, "nvtx:", 5) != 0)
		return sk_fail(SKIP_E_INVAL,
			       "--capture-range takes none, cudaProfilerApi or "
			       "nvtx:NAME[:FIRST[:COUNT]]; got '%s'",
			       spec);
	name = spec + 5;
	end = name + strlen(name);
	/* up to two trailing fields of digits, read from the right */
	while (nnums < 2) {
		const char *colon = end;

		while (colon > name && colon[-1] != ':')
			colon--;
		if (colon == name || !all_digits(colon, (size_t)(end - colon)))
			break;
		nums[nnums] = count_of(colon, (size_t)(end - colon));
		if (nums[nnums] == 0)
			return sk_fail(SKIP_E_INVAL,
				       "--capture-range %s: FIRST and COUNT are numbers from 1",
				       spec);
		nnums++;
		end = colon - 1;
	}
	if (end == name || (size_t)(end - name) >= sizeof(c->name))
		return sk_fail(
		    SKIP_E_INVAL,
		    "--capture-range %s: the NVTX range's name must be 1 to %d characters", spec,
		    SKIP_CAPTURE_NAME_MAX - 1);
	c->mode = SKIP_CAPTURE_NVTX;
	memcpy(c->name, name, (size_t)(end - name));
	c->first = nnums == 2 ? nums[1] : nnums == 1 ? nums[0] : 1;
	c->count = nnums == 2 ? nums[0] : 0;
	return 0;
}
