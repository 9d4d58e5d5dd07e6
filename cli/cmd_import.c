/*
 * cmd_import.c: `skip import TRACE.json[.gz]... -o OUT.skip.db`: torch.profiler traces
 * (prof.export_chrome_trace(), TensorBoard's *.pt.trace.json[.gz]) into a skip trace, one run
 * per input, so that skip report, advise, gate and diff read them as they read a recording.
 * The mapping is import/skip_import.h's; docs/skip-import.md describes it field by field.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "skip_import.h"

static const char help[] =
    "usage: skip import TRACE.json[.gz]... -o OUT.skip.db [-f] [--label TEXT] [--max-mb N]\n"
    "\n"
    "Read torch.profiler traces (prof.export_chrome_trace(), or the TensorBoard plugin's\n"
    "*.pt.trace.json[.gz]) into a skip trace, one run per TRACE, in the order given: kernels,\n"
    "memcpys, memsets, CUDA runtime and driver calls with their correlation ids, cpu_op and\n"
    "user_annotation events as NVTX ranges (for --region and the operator tables), the GPUs\n"
    "of deviceProperties. What the format lacks is left out, and skip report says which\n"
    "figures it cannot give. Several TRACEs of one program are repetitions for skip gate.\n"
    "\n"
    "  -o, --output FILE      the skip trace to write (required)\n"
    "  -f, --force            replace FILE if it is a skip trace already\n"
    "  -l, --label TEXT       SKIP_RUNS.label of every run (default: each TRACE's file name)\n"
    "      --max-mb N         refuse a TRACE of more than N MiB of JSON after gunzip; the\n"
    "                         text is held in memory (default 4096)\n"
    "  -h, --help             show this help\n"
    "\n"
    "FILE is written under a temporary name and renamed when complete; it never replaces a\n"
    "TRACE or a file skip did not write. Exit status: 0 ok; 2 for a usage error or an input\n"
    "that is not a readable torch.profiler trace (one line says where); 1 on other errors.\n"
    "docs/skip-import.md.\n";

struct import_opts {
	const char *output, *label;
	char **inputs;
	int ninputs, force;
	long long max_mb;
};

static int parse(int argc, char **argv, struct import_opts *o)
{
	static const struct option opts[] = {
	    {"output", required_argument, NULL, 'o'}, {"force", no_argument, NULL, 'f'},
	    {"label", required_argument, NULL, 'l'},  {"max-mb", required_argument, NULL, 'M'},
	    {"help", no_argument, NULL, 'h'},	      {0},
	};
	int c, rc = 0;

	memset(o, 0, sizeof(*o));
	o->max_mb = (long long)(SKIP_IMPORT_DEFAULT_MAX_BYTES >> 20);
	optind = 1;
	opterr = 0;
	while (!rc && (c = getopt_long(argc, argv, ":o:fl:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o->output = optarg;
			break;
		case 'f':
			o->force = 1;
			break;
		case 'l':
			o->label = optarg;
			break;
		case 'M':
			rc = cli_int("import", "--max-mb", optarg, 1, 1 << 30, NULL, &o->max_mb);
			break;
		case 'h':
			fputs(help, stdout);
			return -1;
		default: /* ':' a missing value, '?' an unknown option */
			return cli_bad_option("import", c, argv);
		}
	}
	if (rc)
		return rc;
	if (optind >= argc)
		return cli_usage_error("import", "expected a torch.profiler trace (TRACE.json or "
						 "TRACE.json.gz)");
	if (!o->output)
		return cli_usage_error("import", "expected -o OUT.skip.db, the trace to write");
	o->inputs = argv + optind;
	o->ninputs = argc - optind;
	return 0;
}

/* Import every input into the open trace @db. 0, or the exit code. */
static int import_all(const struct import_opts *o, sqlite3 *db)
{
	struct skip_import_opts io = {(size_t)o->max_mb << 20, o->label};
	struct skip_importer *im;
	int err;

	im = skip_importer_new(db, &err);
	for (int i = 0; im && !err && i < o->ninputs; i++) {
		struct skip_import_counts c;

		err = skip_importer_add(im, o->inputs[i], &io, &c);
		if (!err && c.kernels + c.memcpys + c.memsets == 0)
			fprintf(stderr,
				"skip import: warning: %s: no kernels, memcpys or memsets (was "
				"ProfilerActivity.CUDA among the activities?)\n",
				o->inputs[i]);
	}
	skip_importer_free(im);
	if (!err)
		return 0;
	fprintf(stderr, "skip import: error: %s\n", skip_errmsg());
	return err == SKIP_E_NOMEM || err == SKIP_E_DB || err == SKIP_E_FULL ? EXIT_ERR
									     : EXIT_USAGE;
}

int cmd_import(int argc, char **argv)
{
	struct import_opts o;
	struct skip_outfile out;
	sqlite3 *db = NULL;
	int err = parse(argc, argv, &o);

	if (err)
		return err < 0 ? EXIT_OK : err;
	if ((err = cli_new_trace("import", &out, o.output, o.force, (const char *const *)o.inputs,
				 (size_t)o.ninputs, &db)))
		return err;
	skip_store_meta_set(db, 0, 0, "skip_version", SKIP_VERSION);
	skip_store_meta_set(db, 0, 0, "source", "torch.profiler");
	err = import_all(&o, db);
	if (!err && skip_store_finalize(db)) {
		fprintf(stderr, "skip import: error: %s\n", skip_errmsg());
		err = EXIT_ERR;
	}
	sqlite3_close(db);
	if (err) {
		skip_outfile_abort(&out);
		return err;
	}
	if (skip_outfile_commit(&out)) {
		fprintf(stderr, "skip import: error: %s\n", skip_errmsg());
		return EXIT_ERR;
	}
	printf("skip: imported %d torch.profiler trace%s into %s\n", o.ninputs,
	       o.ninputs == 1 ? "" : "s", o.output);
	if (skip_store_open(o.output, SKIP_STORE_READONLY, &db) == 0)
		cli_print_summary(stdout, db, o.output);
	sqlite3_close(db);
	return EXIT_OK;
}
