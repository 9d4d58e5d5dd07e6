/*
 * skip.c: the hub. `skip CMD ...` dispatches through the table below; `skip help CMD` is the
 * same as `skip CMD --help`. The exit code is the subcommand's, and a failed write to stdout
 * (a full disk, a closed pipe) turns success into an error.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"

static const struct skip_cmd cmds[] = {
    {"record", cmd_record, "Run a CUDA program under the collector and write a trace"},
    {"report", cmd_report, "Where the time between CPU and GPU goes: TKLQT, idle, verdict"},
    {"advise", cmd_advise, "What to fuse, graph or put on streams, with predicted gains"},
    {"run", cmd_run, "Execute a task-graph workload under an executor or a plan"},
    {"gate", cmd_gate, "CI regression gate: did the candidate get slower than the baseline?"},
    {"diff", cmd_diff, "What changed between two recordings, kernel by kernel"},
    {"info", cmd_info, "Summarize what a trace file holds"},
    {"export", cmd_export, "The trace for Perfetto, PyTorch tools, CSV, Jupyter or HTML"},
    {"import", cmd_import, "Read torch.profiler traces into a skip trace"},
};
#define NCMDS (sizeof(cmds) / sizeof(cmds[0]))

static void usage(FILE *out)
{
	fprintf(out, "usage: skip [--version] [--help] COMMAND [ARGS]\n\n"
		     "Where the time between the CPU and the GPU goes, and what to do about it.\n\n"
		     "Commands:\n");
	for (size_t i = 0; i < NCMDS; i++)
		fprintf(out, "  %-8s %s\n", cmds[i].name, cmds[i].summary);
	fprintf(out, "\n'skip help COMMAND' or 'skip COMMAND --help' describes one command.\n"
		     "Start with: skip record -o trace.skip.db -- ./app args\n");
}

static const struct skip_cmd *find(const char *name)
{
	for (size_t i = 0; i < NCMDS; i++)
		if (strcmp(cmds[i].name, name) == 0)
			return &cmds[i];
	return NULL;
}

int main(int argc, char **argv)
{
	const struct skip_cmd *cmd;
	int rc;

	skip_log_init("skip", NULL, 0);
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("skip %s (trace schema %d)\n", SKIP_VERSION, SKIP_SCHEMA_VERSION);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "help")) {
		char *help_argv[] = {argv[2], "--help", NULL};

		if (argc < 3) {
			usage(stdout);
			return EXIT_OK;
		}
		cmd = find(argv[2]);
		if (!cmd) {
			fprintf(stderr, "skip: error: unknown command '%s'\n", argv[2]);
			return EXIT_USAGE;
		}
		return cmd->fn(2, help_argv);
	}
	cmd = find(argv[1]);
	if (!cmd) {
		fprintf(stderr, "skip: error: unknown command '%s'; 'skip --help' lists them\n",
			argv[1]);
		return EXIT_USAGE;
	}
	rc = cmd->fn(argc - 1, argv + 1);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		if (errno != EPIPE)
			fprintf(stderr, "skip: error: writing the output failed: %s\n",
				strerror(errno));
		return rc ? rc : EXIT_ERR;
	}
	return rc;
}
