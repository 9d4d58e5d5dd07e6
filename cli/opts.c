/*
 * opts.c: option values the subcommands share. Checked number parsers, so that every bad
 * value gets the same one-line usage error ("--top takes a whole number from 1 to 1000; got
 * 'x'"), and the -r/--run N and -R/--region NAME pair that report and advise both take.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include <unistd.h>

#include "cmd.h"

int cli_int(const char *cmd, const char *opt, const char *s, long long lo, long long hi,
	    const char *what, long long *out)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end || !*s || v < lo || v > hi) {
		if (what)
			return cli_usage_error(cmd, "%s takes %s; got '%s'", opt, what, s);
		return cli_usage_error(cmd, "%s takes a whole number from %lld to %lld; got '%s'",
				       opt, lo, hi, s);
	}
	*out = v;
	return 0;
}

int cli_bad_option(const char *cmd, int c, char *const *argv)
{
	if (c == ':')
		return cli_usage_error(cmd, "option '%s' needs a value", argv[optind - 1]);
	return cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
}

int cli_int32(const char *cmd, const char *opt, const char *s, int lo, int hi, int *out)
{
	long long v = 0;
	int rc = cli_int(cmd, opt, s, lo, hi, NULL, &v);

	if (!rc)
		*out = (int)v;
	return rc;
}

int cli_real(const char *cmd, const char *opt, const char *s, double lo, double hi, int hi_included,
	     const char *what, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !*s || !(v > lo && (v < hi || (hi_included && v == hi))))
		return cli_usage_error(cmd, "%s takes %s; got '%s'", opt, what, s);
	*out = v;
	return 0;
}

int cli_pick_opt(const char *cmd, int c, const char *arg, struct cli_pick *p, int *rc)
{
	long long run = 0;

	switch (c) {
	case 'r':
		*rc = cli_int(cmd, "--run", arg, 1, INT64_MAX, "a run number (1, 2, ...)", &run);
		p->run_id = run;
		return 1;
	case 'R':
		p->region = arg;
		*rc = 0;
		return 1;
	}
	return 0;
}
