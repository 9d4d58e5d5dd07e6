/*
 * cmd_diff.c: `skip diff BASELINE CANDIDATE`: what changed between two recordings (traces or
 * baseline files), kernel by kernel and operator by operator - new, gone, slower, faster,
 * launched more or less often - with each change's share of the IL difference, beside the
 * IL = busy + idle and TKLQT = t_api + t_queue breakdowns of both sides. It describes, it does
 * not decide: `skip gate` decides, and prints the top of this when it fails. gate/skip_gate.h
 * computes it; docs/skip-diff.md describes the output.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "skip_gate.h"

static const char help[] =
    "usage: skip diff BASELINE CANDIDATE [--region NAME] [--top N] [--threshold PCT]\n"
    "                 [--floor NS] [--json]\n"
    "\n"
    "What changed from BASELINE to CANDIDATE (each a trace or a 'skip gate --save-baseline'\n"
    "file): IL, GPU busy and idle (host wait, sync stall, device latency), TKLQT (t_api,\n"
    "t_queue) side by side, then each kernel and operator that is new, gone, slower, faster\n"
    "or launched more or less often, with its GPU time change and its share of the IL change.\n"
    "Figures are means per region over all runs, so that the parts add up.\n"
    "\n"
    "  -R, --region NAME      regions are the occurrences of the NVTX range NAME (default: a\n"
    "                         baseline file's region, else each run)\n"
    "  -k, --top N            rows per list (default 10)\n"
    "  -t, --threshold PCT    slower or faster: a kernel's mean per launch (an operator's GPU\n"
    "                         time per region) changed by PCT percent (default 2)\n"
    "      --floor NS         and by at least NS ns (default 100)\n"
    "  -j, --json             the diff as JSON\n"
    "  -h, --help             show this help\n"
    "\n"
    "Exit status: 0 ok; 2 for a usage error or input that cannot be compared (not a trace or\n"
    "baseline, damaged, no such region, nothing in common); 1 on other errors.\n"
    "docs/skip-diff.md.\n";

struct diff_opts {
	const char *paths[2];
	const char *region;
	int top, json;
	double threshold, floor_ns;
};

static int parse_opt(struct diff_opts *o, int c, const char *arg)
{
	char buf[64];
	size_t n;
	long long v = 0;
	int rc;

	switch (c) {
	case 'k':
		return cli_int32("diff", "--top", arg, 1, 100000, &o->top);
	case 'j':
		o->json = 1;
		return 0;
	case 'F':
		rc = cli_int("diff", "--floor", arg, 0, (long long)1e15, NULL, &v);
		o->floor_ns = (double)v;
		return rc;
	case 't':
		n = strlen(arg);
		snprintf(buf, sizeof(buf), "%.*s", (int)(n && arg[n - 1] == '%' ? n - 1 : n), arg);
		rc = cli_real("diff", "--threshold", buf, 0, 1000, 1,
			      "a percentage above 0 (5 = 5%)", &o->threshold);
		o->threshold /= 100;
		return rc;
	}
	return cli_usage_error("diff", "unknown option");
}

static int parse(int argc, char **argv, struct diff_opts *o)
{
	static const struct option opts[] = {
	    {"region", required_argument, NULL, 'R'},
	    {"top", required_argument, NULL, 'k'},
	    {"threshold", required_argument, NULL, 't'},
	    {"floor", required_argument, NULL, 'F'},
	    {"json", no_argument, NULL, 'j'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	struct cli_pick pick = {0};
	int c, rc = 0;

	memset(o, 0, sizeof(*o));
	o->top = 10;
	o->floor_ns = -1;
	optind = 1;
	opterr = 0;
	while (!rc && (c = getopt_long(argc, argv, ":R:k:t:jh", opts, NULL)) != -1) {
		if (c == 'R' && cli_pick_opt("diff", c, optarg, &pick, &rc))
			continue;
		if (c == 'h') {
			fputs(help, stdout);
			return -1;
		}
		if (c == ':' || c == '?')
			return cli_bad_option("diff", c, argv);
		rc = parse_opt(o, c, optarg);
	}
	if (rc)
		return rc;
	o->region = pick.region;
	if (argc - optind != 2)
		return cli_usage_error("diff", argc - optind < 2
						   ? "expected BASELINE and CANDIDATE"
						   : "expected two files, BASELINE and "
						     "CANDIDATE");
	o->paths[0] = argv[optind];
	o->paths[1] = argv[optind + 1];
	return 0;
}

static int print(const struct diff_opts *o, const struct skip_diff *d)
{
	if (o->json) {
		char *s = skip_diff_json(d, (size_t)o->top);

		if (!s) {
			fprintf(stderr, "skip diff: error: out of memory\n");
			return EXIT_ERR;
		}
		printf("%s\n", s);
		free(s);
		return EXIT_OK;
	}
	skip_diff_print(stdout, d, (size_t)o->top);
	return EXIT_OK;
}

int cmd_diff(int argc, char **argv)
{
	struct skip_gate_side *b = NULL, *c = NULL;
	struct skip_diff *d = NULL;
	struct diff_opts o;
	int err = parse(argc, argv, &o);

	if (err)
		return err < 0 ? EXIT_OK : err;
	err = skip_gate_side_load(o.paths[0], o.region, &b);
	if (!err)
		err = skip_gate_side_load(o.paths[1], o.region ? o.region : b->region, &c);
	if (!err)
		err = skip_diff_compute(b, c, o.threshold, o.floor_ns, &d);
	if (err) {
		fprintf(stderr, "skip diff: error: %s\n", skip_errmsg());
		skip_gate_side_free(c);
		skip_gate_side_free(b);
		return err == SKIP_E_NOMEM ? EXIT_ERR : EXIT_USAGE;
	}
	for (size_t i = 0; i < b->nnotes + c->nnotes; i++)
		fprintf(stderr, "skip diff: note: %s\n",
			i < b->nnotes ? b->notes[i] : c->notes[i - b->nnotes]);
	err = print(&o, d);
	skip_diff_free(d);
	skip_gate_side_free(c);
	skip_gate_side_free(b);
	return err;
}
