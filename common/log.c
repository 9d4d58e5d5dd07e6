/*
 * log.c: sk_err/sk_warn/sk_info/sk_dbg. Lines go to stderr (or the stream given to
 * skip_log_init()) as "PREFIX: [domain: ]level: message". Debug levels are per domain, read
 * once from SKIP_DEBUG: "collector:2,analyzer:1" or a bare "2" for every domain.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skip_common.h"

#define MAX_DOMAINS 16

static struct {
	char prefix[64];
	FILE *out;     /* NULL: stderr */
	int quiet;     /* drop info lines */
	int all_level; /* debug level for domains not listed */
	int ndomains;
	struct {
		char name[24];
		int level;
	} domains[MAX_DOMAINS];
} cfg = {.prefix = "skip"};

static void parse_debug(const char *spec)
{
	char buf[256];
	char *save = NULL;

	if (!spec || !*spec)
		return;
	snprintf(buf, sizeof(buf), "%s", spec);
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(tok, ':');

		if (!colon) {
			cfg.all_level = atoi(tok);
			continue;
		}
		*colon = '\0';
		if (cfg.ndomains < MAX_DOMAINS) {
			snprintf(cfg.domains[cfg.ndomains].name, sizeof(cfg.domains[0].name), "%s",
				 tok);
			cfg.domains[cfg.ndomains].level = atoi(colon + 1);
			cfg.ndomains++;
		}
	}
}

void skip_log_init(const char *prefix, FILE *out, int quiet)
{
	if (prefix)
		snprintf(cfg.prefix, sizeof(cfg.prefix), "%s", prefix);
	cfg.out = out;
	cfg.quiet = quiet;
	cfg.ndomains = 0;
	cfg.all_level = 0;
	parse_debug(getenv("SKIP_DEBUG"));
}

int sk_log_enabled(const char *domain, int level)
{
	for (int i = 0; i < cfg.ndomains; i++)
		if (strcmp(cfg.domains[i].name, domain) == 0)
			return cfg.domains[i].level >= level;
	return cfg.all_level >= level;
}

void sk_log(const char *domain, int level, const char *fmt, ...)
{
	static const char *const names[] = {"error", "warning", NULL, "debug"};
	FILE *out = cfg.out ? cfg.out : stderr;
	char line[2048];
	int n;
	va_list ap;

	if (level == SK_LOG_INFO && cfg.quiet)
		return;
	/* Build the whole line first so that concurrent threads never interleave mid-line. */
	n = snprintf(line, sizeof(line), "%s: ", cfg.prefix);
	if (level == SK_LOG_DBG)
		n += snprintf(line + n, sizeof(line) - n, "%s: ", domain);
	if (names[level])
		n += snprintf(line + n, sizeof(line) - n, "%s: ", names[level]);
	va_start(ap, fmt);
	if (n < (int)sizeof(line))
		vsnprintf(line + n, sizeof(line) - n, fmt, ap);
	va_end(ap);
	fprintf(out, "%s\n", line);
	fflush(out);
}
