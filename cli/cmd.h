/*
 * cmd.h: the subcommands of the skip hub (cli/skip.c) and what they share.
 *
 * Each cli/cmd_<name>.c exports `int cmd_<name>(int argc, char **argv)` (argv[0] is the
 * subcommand name) and returns the process exit code: 0 ok, 1 error, 2 usage or bad input.
 */
#ifndef SKIP_CLI_CMD_H
#define SKIP_CLI_CMD_H

#include <stdint.h>
#include <stdio.h>

#include "skip_common.h"

enum { EXIT_OK = 0, EXIT_ERR = 1, EXIT_USAGE = 2 };

struct skip_cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

int cmd_record(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_advise(int argc, char **argv);
int cmd_gate(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_import(int argc, char **argv);

/* Print "skip CMD: error: ...", a hint to run --help, and return EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) SK_PRINTF(2, 3);

/* ---- option values (cli/opts.c) ---- */

/* Checked whole number in [@lo, @hi]: 0 with *@out set, or a usage error (EXIT_USAGE) saying
 * "@opt takes @what" (or "a whole number from LO to HI" when @what is NULL). */
int cli_int(const char *cmd, const char *opt, const char *s, long long lo, long long hi,
	    const char *what, long long *out);
/* The same into an int. */
int cli_int32(const char *cmd, const char *opt, const char *s, int lo, int hi, int *out);
/* getopt's answer @c for a bad option: ':' a missing value, anything else an unknown option;
 * the usage error (EXIT_USAGE) that names argv[optind - 1]. */
int cli_bad_option(const char *cmd, int c, char *const *argv);
/* Checked real number in (@lo, @hi), or (@lo, @hi] with @hi_included; the error says
 * "@opt takes @what". */
int cli_real(const char *cmd, const char *opt, const char *s, double lo, double hi, int hi_included,
	     const char *what, double *out);

/* What report and advise read of a trace: -r/--run N (0: all or the first) and -R/--region
 * NAME (NULL: the whole run). */
struct cli_pick {
	int64_t run_id;
	const char *region; /* borrowed from argv */
};
#define CLI_PICK_LONGOPTS                                                                          \
	{"run", required_argument, NULL, 'r'},                                                     \
	{                                                                                          \
		"region", required_argument, NULL, 'R'                                             \
	}
/* Handle getopt's @c when it is 'r' or 'R': returns 1 with *@rc = 0 or a usage error;
 * returns 0 for any other option. */
int cli_pick_opt(const char *cmd, int c, const char *arg, struct cli_pick *p, int *rc);

/* Durations in the terminal: 4 significant digits ("6.070 us", "10.61 ms"). */
static inline const char *cli_dur(char *buf, size_t n, double ns)
{
	return skip_fmt_duration(buf, n, ns, 4);
}

/* The exit code for a refused output (skip_outfile_open()): 2 for a name the user must change
 * (an input, a file skip did not write, a directory), 1 for a system error. Prints
 * "skip CMD: error: " and skip_errmsg() first. */
int cli_output_error(const char *cmd, int err);

/* A new trace for `skip CMD -o @path`: skip_outfile_open() of @path (kind SKIP_OUT_TRACE, not
 * over any of @inputs [@ninputs]) and an empty store in its temporary file, *@db. Returns 0, or
 * the exit code after printing why (an existing file without @force: "use -f"); *@out is then
 * aborted and *@db NULL. The caller commits or aborts *@out and closes *@db. */
int cli_new_trace(const char *cmd, struct skip_outfile *out, const char *path, int force,
		  const char *const *inputs, size_t ninputs, sqlite3 **db);

/* The summary block `skip record` ends with and `skip info` prints. @path is shown with the
 * file size. Returns 0 or a negative code. */
int cli_print_summary(FILE *out, sqlite3 *db, const char *path);

/* A calibration file (`--calibration FILE` of advise and run; docs/skip-advise.md
 * "Calibration"; at most 1 MiB) into @cal, members it lacks at their built-in values: 0, or a
 * negative code with skip_errmsg() naming the file (and the member at fault). */
struct skip_calibration;
int cli_load_calibration(const char *path, struct skip_calibration *cal);

/* "12,345" into @buf. */
const char *cli_group(char *buf, size_t n, long long v);
/* "1.8 MB", "512 B" into @buf. */
const char *cli_bytes(char *buf, size_t n, double bytes);

#endif /* SKIP_CLI_CMD_H */
