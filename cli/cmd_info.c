/*
 * cmd_info.c: `skip info FILE`: what a trace holds (runs, counts, GPU, drops), the same block
 * `skip record` prints at the end. Useful on the bundled traces and on per-process files kept
 * after a failed merge. The file is opened as `skip report` opens it (skip_trace_open()), so a
 * file report rejects is rejected here too, with the same message.
 */
#include <getopt.h>
#include <stdio.h>

#include "cmd.h"
#include "skip_analyzer.h"

static const char help[] =
    "usage: skip info FILE\n"
    "\n"
    "Summarize a trace: runs (and how many failed), processes, kernels, API calls, NVTX\n"
    "ranges, memcpys, memsets, synchronizations, dropped records, GPU, file size.\n"
    "\n"
    "  -h, --help   show this help\n"
    "\n"
    "Exit status: 0 ok, 2 for a usage error or when FILE is missing, not a skip trace or\n"
    "damaged (as skip report would reject it).\n";

int cmd_info(int argc, char **argv)
{
	static const struct option opts[] = {{"help", no_argument, NULL, 'h'}, {0}};
	struct skip_trace *t = NULL;
	int c, err;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 'h') {
			fputs(help, stdout);
			return EXIT_OK;
		}
		return cli_usage_error("info", "unknown option '%s'", argv[optind - 1]);
	}
	if (optind != argc - 1)
		return cli_usage_error("info", "expected one trace file");
	err = skip_trace_open(argv[optind], &t);
	if (err) {
		fprintf(stderr, "skip info: error: %s\n", skip_errmsg());
		return err == SKIP_E_NOMEM ? EXIT_ERR : EXIT_USAGE;
	}
	printf("%s:\n", argv[optind]);
	cli_print_summary(stdout, skip_trace_db(t), argv[optind]);
	skip_trace_close(t);
	return EXIT_OK;
}
