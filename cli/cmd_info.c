/*
 * cmd_info.c: `skip info FILE`: what a trace holds (runs, counts, GPU, drops), the same block
 * `skip record` prints at the end. Useful on the bundled traces and on per-process files kept
 * after a failed merge.
 */
#include <getopt.h>
#include <stdio.h>

#include "cmd.h"

static const char help[] =
	"usage: skip info FILE\n"
	"\n"
	"Summarize a trace: runs (and how many failed), processes, kernels, API calls, NVTX\n"
	"ranges, memcpys, memsets, synchronizations, dropped records, GPU, file size.\n"
	"\n"
	"  -h, --help   show this help\n"
	"\n"
	"Exit status: 0 ok, 2 when FILE is missing or not a readable skip trace.\n";

int cmd_info(int argc, char **argv)
{
	static const struct option opts[] = { { "help", no_argument, NULL, 'h' }, { 0 } };
	sqlite3 *db = NULL;
	int c, err;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		if (c == 'h') {
			fputs(help, stdout);
			return EXIT_OK;
		}
		return cli_usage_error("info", "unknown option");
	}
	if (optind != argc - 1)
		return cli_usage_error("info", "expected one trace file");
	err = skip_store_open(argv[optind], SKIP_STORE_READONLY, &db);
	if (err) {
		fprintf(stderr, "skip info: error: %s\n", skip_errmsg());
		return EXIT_USAGE;
	}
	printf("%s:\n", argv[optind]);
	cli_print_summary(stdout, db, argv[optind]);
	sqlite3_close(db);
	return EXIT_OK;
}
