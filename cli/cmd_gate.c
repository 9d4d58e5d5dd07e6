/*
 * cmd_gate.c: `skip gate BASELINE CANDIDATE`: the CI performance-regression gate, on
 * gate/skip_gate.h. Each side is a trace or a baseline file; the gate tests each gated metric
 * over the runs (the one-sided rank test, Holm over the gated tests, and a practical threshold)
 * and prints the table first, then, when it fails, the top of `skip diff`; --markdown, --junit,
 * --github and --json give the same result to CI systems. `skip gate --save-baseline FILE
 * TRACE` writes the small baseline file instead. docs/skip-gate.md describes all of it.
 *
 * Exit status (unlike the other commands, 1 means "threshold violated", not an error):
 *   0  no regression;
 *   1  a regression: a gated metric got significantly and practically worse;
 *   2  no decision: a usage error, bad input (not a trace or baseline, damaged, another
 *      baseline version, no such region, too few runs for the test), or an output that could
 *      not be written. CI reads anything but 0 as a failed gate.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "skip_gate.h"

enum { EXIT_REGRESSION = 1, EXIT_NO_DECISION = 2 };

static const char help[] =
    "usage: skip gate BASELINE CANDIDATE [--metric LIST] [--region NAME] [--max-regress PCT]\n"
    "                 [--alpha A] [--min-runs N] [--floor NS] [--strict] [--no-context]\n"
    "                 [--junit FILE] [--markdown FILE] [--github] [--json] [--top N]\n"
    "                 [--save-baseline FILE]\n"
    "       skip gate --save-baseline FILE TRACE [--region NAME]\n"
    "\n"
    "Did CANDIDATE get slower than BASELINE? Each side is a trace with several runs (skip\n"
    "record --repeat N) or a baseline file. Each gated metric is compared over the runs, each\n"
    "run giving its median over the region occurrences; a regression needs both a one-sided\n"
    "Mann-Whitney p-value at or below its Holm level (the gated tests share --alpha) and a\n"
    "change of at least --max-regress and --floor. Kernel-set and launch-count changes are\n"
    "reported, not timed. On a regression, the top of 'skip diff' says what changed.\n"
    "\n"
    "  -m, --metric LIST      what to gate, comma-separated (default il,tklqt; may repeat):\n"
    "%s"
    "  -R, --region NAME      regions are the occurrences of the NVTX range NAME (default: a\n"
    "                         baseline file's region, else each run)\n"
    "  -x, --max-regress PCT  the practical threshold, in percent (default 5)\n"
    "  -a, --alpha A          family-wise false-alarm rate of the gate (default 0.01)\n"
    "  -n, --min-runs N       runs each side needs at least (default 2; the test may need\n"
    "                         more, and the error says how many)\n"
    "      --floor NS         a time change must also be at least NS ns (default 100)\n"
    "      --strict           sides from different GPUs or drivers are an error, not a warning\n"
    "      --no-context       leave out the ungated metrics shown for context\n"
    "      --junit FILE       JUnit XML: one testcase per gated metric and region\n"
    "      --markdown FILE    a Markdown summary (for $GITHUB_STEP_SUMMARY, merge requests)\n"
    "      --github           GitHub Actions annotations (::error, ::warning) after the table\n"
    "  -j, --json             the result as JSON instead of the table\n"
    "  -k, --top N            rows of 'skip diff' shown on a regression (default 5)\n"
    "  -s, --save-baseline FILE  write CANDIDATE (or the only TRACE) as a baseline file\n"
    "                         (schemas/baseline.schema.json): kilobytes to keep in CI\n"
    "  -h, --help             show this help\n"
    "\n"
    "--junit, --markdown and --save-baseline replace only an empty file or one skip gate\n"
    "wrote of that kind ('-' is standard output); an output never replaces an input.\n"
    "Exit status: 0 no regression; 1 a regression; 2 no decision (usage error, bad input, too\n"
    "few runs for the test, an output that could not be written). docs/skip-gate.md.\n";

struct gate_cli {
	struct skip_gate_opts g;
	struct skip_gate_metric *metrics; /* owned */
	size_t nmetrics;
	const char *paths[2];
	int npaths;
	const char *region, *junit, *markdown, *save;
	int github, json, top;
	char *created_by; /* the command line, for a saved baseline (owned) */
};

static void usage_help(void)
{
	char *list = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&list, &len);

	if (m) {
		skip_gate_metrics_help(m);
		fclose(m);
	}
	printf(help, list ? list : "");
	free(list);
}

/* "5", "5%" or "12.5" percent, as a fraction. */
static int percent(const char *opt, const char *s, double *out)
{
	char buf[64];
	size_t n = strlen(s);
	double v;
	int rc;

	snprintf(buf, sizeof(buf), "%.*s", (int)(n && s[n - 1] == '%' ? n - 1 : n), s);
	rc = cli_real("gate", opt, buf, 0, 1000, 1, "a percentage above 0 (5 = 5%)", &v);
	if (!rc)
		*out = v / 100;
	return rc;
}

static int parse_opt(struct gate_cli *o, int c, const char *arg)
{
	long long v = 0;
	int rc = 0;

	switch (c) {
	case 'm':
		if (skip_gate_metrics_parse(arg, &o->metrics, &o->nmetrics))
			return cli_usage_error("gate", "--metric: %s", skip_errmsg());
		return 0;
	case 'x':
		return percent("--max-regress", arg, &o->g.max_regress);
	case 'a':
		return cli_real("gate", "--alpha", arg, 0, 0.5, 1,
				"a probability above 0, at most 0.5", &o->g.alpha);
	case 'n':
		rc = cli_int("gate", "--min-runs", arg, 2, 100000, NULL, &v);
		o->g.min_runs = (int)v;
		return rc;
	case 'F':
		rc = cli_int("gate", "--floor", arg, 0, (long long)1e15, NULL, &v);
		o->g.floor_ns = (double)v;
		return rc;
	case 'k':
		return cli_int32("gate", "--top", arg, 1, 1000, &o->top);
	case 'S':
		o->g.strict = 1;
		return 0;
	case 'C':
		o->g.context = 0;
		return 0;
	case 'J':
		o->junit = arg;
		return 0;
	case 'M':
		o->markdown = arg;
		return 0;
	case 'G':
		o->github = 1;
		return 0;
	case 'j':
		o->json = 1;
		return 0;
	case 's':
		o->save = arg;
		return 0;
	}
	return cli_usage_error("gate", "unknown option");
}

static int check_args(struct gate_cli *o, int argc, char **argv)
{
	for (int i = optind; i < argc; i++) {
		if (o->npaths == 2)
			return cli_usage_error("gate",
					       "expected BASELINE and CANDIDATE; got a third "
					       "file '%s'",
					       argv[i]);
		o->paths[o->npaths++] = argv[i];
	}
	if (o->npaths == 0 || (o->npaths == 1 && !o->save))
		return cli_usage_error("gate", o->npaths ? "expected BASELINE and CANDIDATE; got "
							   "one file"
							 : "no BASELINE and CANDIDATE given");
	if (o->json && o->github)
		return cli_usage_error("gate", "--json and --github both write to standard output: "
					       "choose one");
	if (o->nmetrics) {
		o->g.metrics = o->metrics;
		o->g.nmetrics = o->nmetrics;
	}
	return 0;
}

static int parse(int argc, char **argv, struct gate_cli *o)
{
	enum {
		O_FLOOR = 'F',
		O_STRICT = 'S',
		O_NOCTX = 'C',
		O_JUNIT = 'J',
		O_MD = 'M',
		O_GH = 'G'
	};
	static const struct option opts[] = {
	    {"metric", required_argument, NULL, 'm'},
	    {"region", required_argument, NULL, 'R'},
	    {"max-regress", required_argument, NULL, 'x'},
	    {"alpha", required_argument, NULL, 'a'},
	    {"min-runs", required_argument, NULL, 'n'},
	    {"floor", required_argument, NULL, O_FLOOR},
	    {"strict", no_argument, NULL, O_STRICT},
	    {"no-context", no_argument, NULL, O_NOCTX},
	    {"junit", required_argument, NULL, O_JUNIT},
	    {"markdown", required_argument, NULL, O_MD},
	    {"github", no_argument, NULL, O_GH},
	    {"json", no_argument, NULL, 'j'},
	    {"top", required_argument, NULL, 'k'},
	    {"save-baseline", required_argument, NULL, 's'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	struct cli_pick pick = {0};
	int c, rc = 0;

	memset(o, 0, sizeof(*o));
	o->g.floor_ns = -1;
	o->g.context = 1;
	o->top = 5;
	optind = 1;
	opterr = 0;
	while (!rc && (c = getopt_long(argc, argv, ":m:R:x:a:n:jk:s:h", opts, NULL)) != -1) {
		if (c == 'R' && cli_pick_opt("gate", c, optarg, &pick, &rc))
			continue;
		if (c == 'h') {
			usage_help();
			return -1;
		}
		if (c == ':' || c == '?')
			return cli_bad_option("gate", c, argv);
		rc = parse_opt(o, c, optarg);
	}
	o->region = pick.region;
	return rc ? rc : check_args(o, argc, argv);
}

/* ---- outputs --------------------------------------------------------------------------------- */

/*
 * The files gate writes, each of its own kind: an existing file is replaced only when it is
 * empty or a file of that kind skip wrote, and never when it is one of the inputs.
 */
struct outs {
	struct skip_outfile junit, markdown, save;
};

static int open_outs(const struct gate_cli *o, struct outs *w)
{
	const char *inputs[] = {o->paths[0], o->paths[1]};
	const char *names[] = {o->junit, o->markdown, o->save};
	const enum skip_out_kind kinds[] = {SKIP_OUT_JUNIT, SKIP_OUT_MARKDOWN, SKIP_OUT_BASELINE};
	struct skip_outfile *files[] = {&w->junit, &w->markdown, &w->save};
	int err = 0;

	memset(w, 0, sizeof(*w));
	for (int i = 0; i < 3 && !err; i++)
		if (names[i])
			err = skip_outfile_open(files[i], names[i], kinds[i], 1, inputs,
						(size_t)o->npaths);
	if (err) {
		fprintf(stderr, "skip gate: error: %s\n", skip_errmsg());
		for (int i = 0; i < 3; i++)
			skip_outfile_abort(files[i]);
	}
	return err;
}

static int commit(struct skip_outfile *f, int ok)
{
	const char *path = f->path;

	if (!path)
		return 0;
	if (!ok) {
		skip_outfile_abort(f);
		return 0;
	}
	if (!f->to_stdout)
		fprintf(stderr, "skip gate: wrote %s\n", path);
	if (skip_outfile_commit(f)) {
		fprintf(stderr, "skip gate: error: %s\n", skip_errmsg());
		return -1;
	}
	return 0;
}

static int write_baseline(const struct gate_cli *o, const struct skip_gate_side *s,
			  struct skip_outfile *f)
{
	char *text = skip_gate_baseline_json(s, o->created_by);

	if (!text) {
		fprintf(stderr, "skip gate: error: out of memory\n");
		skip_outfile_abort(f);
		return -1;
	}
	fputs(text, f->f);
	free(text);
	return commit(f, 1);
}

static char *join_args(int argc, char **argv)
{
	struct sk_strbuf sb = {0};

	sk_strbuf_printf(&sb, "skip");
	for (int i = 0; i < argc; i++)
		sk_strbuf_printf(&sb, " %s", argv[i]);
	return sb.buf;
}

/* ---- the two modes --------------------------------------------------------------------------- */

static int save_only(struct gate_cli *o)
{
	struct skip_gate_side *s = NULL;
	struct outs w;
	int err;

	if (open_outs(o, &w))
		return EXIT_NO_DECISION;
	err = skip_gate_side_load(o->paths[0], o->region, &s);
	if (err) {
		fprintf(stderr, "skip gate: error: %s\n", skip_errmsg());
		skip_outfile_abort(&w.save);
		return EXIT_NO_DECISION;
	}
	for (size_t i = 0; i < s->nnotes; i++)
		fprintf(stderr, "skip gate: warning: %s\n", s->notes[i]);
	err = write_baseline(o, s, &w.save);
	skip_gate_side_free(s);
	return err ? EXIT_NO_DECISION : EXIT_OK;
}

/* Both sides, the candidate with the baseline's region when --region was not given. */
static int load_sides(const struct gate_cli *o, struct skip_gate_side **b,
		      struct skip_gate_side **c)
{
	int err = skip_gate_side_load(o->paths[0], o->region, b);

	if (!err)
		err = skip_gate_side_load(o->paths[1], o->region ? o->region : (*b)->region, c);
	if (err)
		fprintf(stderr, "skip gate: error: %s\n", skip_errmsg());
	return err;
}

static void print_result(const struct gate_cli *o, const struct skip_gate_result *r,
			 const struct skip_diff *d)
{
	if (o->json) {
		char *s = skip_gate_json(r, d, (size_t)o->top);

		if (s)
			printf("%s\n", s);
		free(s);
		return;
	}
	skip_gate_print(stdout, r);
	if (r->regressions && d) {
		printf("\nWhat changed (skip diff %s %s%s%s, top %d)\n", o->paths[0], o->paths[1],
		       r->base->region ? " --region " : "", r->base->region ? r->base->region : "",
		       o->top);
		skip_diff_print(stdout, d, (size_t)o->top);
	}
	if (o->github)
		skip_gate_github(stdout, r);
}

static int write_outs(const struct gate_cli *o, const struct skip_gate_result *r,
		      const struct skip_diff *d, struct outs *w)
{
	int bad = 0;

	if (o->junit)
		skip_gate_junit(w->junit.f, r);
	bad |= commit(&w->junit, 1);
	if (o->markdown)
		skip_gate_markdown(w->markdown.f, r, r->regressions ? d : NULL, (size_t)o->top);
	bad |= commit(&w->markdown, 1);
	if (o->save)
		bad |= write_baseline(o, r->cand, &w->save);
	return bad;
}

static int gate(struct gate_cli *o)
{
	struct skip_gate_side *b = NULL, *c = NULL;
	struct skip_gate_result *r = NULL;
	struct skip_diff *d = NULL;
	struct outs w;
	int rc = EXIT_NO_DECISION;

	if (open_outs(o, &w))
		return EXIT_NO_DECISION;
	if (load_sides(o, &b, &c))
		goto out;
	if (skip_gate_decide(b, c, &o->g, &r)) {
		fprintf(stderr, "skip gate: error: %s\n", skip_errmsg());
		goto out;
	}
	if (skip_diff_compute(b, c, 0, r->floor_ns, &d))
		d = NULL; /* the gate matched the cases, so the diff does too */
	print_result(o, r, d);
	rc = write_outs(o, r, d, &w) ? EXIT_NO_DECISION
	     : r->regressions	     ? EXIT_REGRESSION
				     : EXIT_OK;
out:
	skip_outfile_abort(&w.junit);
	skip_outfile_abort(&w.markdown);
	skip_outfile_abort(&w.save);
	skip_diff_free(d);
	skip_gate_result_free(r);
	skip_gate_side_free(c);
	skip_gate_side_free(b);
	return rc;
}

int cmd_gate(int argc, char **argv)
{
	struct gate_cli o;
	int rc = parse(argc, argv, &o);

	if (!rc) {
		o.created_by = join_args(argc, argv);
		rc = o.npaths == 1 ? save_only(&o) : gate(&o);
	}
	skip_gate_metrics_free(o.metrics, o.nmetrics);
	free(o.created_by);
	return rc < 0 ? EXIT_OK : rc;
}
