/*
 * cmd_run.c: `skip run WORKLOAD.json [options]`: execute a task-graph workload with the
 * bundled runtime (libskip_runtime) under one executor, all of them, or a plan file, and
 * time it. The workload and the plan are checked before anything touches the GPU (so a bad
 * plan is rejected with its reason even on a machine without one); with --verify, every
 * executor's results are compared with the serial executor's on the same initial contents.
 * The executors, their plan options and what the plan line says of each come from the
 * runtime's tables (skip_executor_info(), skip_plan_options[]), here as in the help text.
 * The persistent executor's mode "auto" (the default) is resolved here, before the executor
 * prepares, so that the runtime only sees a mode it runs: each mode is predicted with the
 * advisor's model and a calibration (skip_persist_choose()), and the fastest is taken.
 * docs/skip-run.md describes the options, the file formats and the output.
 */
#include <assert.h>
#include <cjson/cJSON.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "skip_advisor.h"
#include "skip_runtime.h"

#define MAX_SETS 32

static const char help_head[] =
    "usage: skip run WORKLOAD.json [--plan PLAN.json | --executor NAME] [options]\n"
    "\n"
    "Execute a task graph described by a workload file (a CUDA module, buffers, tasks) on\n"
    "the GPU with the bundled runtime, and time it.\n"
    "\n";
/* then --executor and its list, from the table of executors */
static const char help_middle[] =
    "  -p, --plan FILE       run the plan in FILE (schemas/plan.schema.json) instead\n"
    "  -n, --iterations N    timed runs per executor (default 10)\n"
    "      --warmup N        untimed runs before them (default 1)\n"
    "      --verify          compare every executor's results with the serial executor's\n"
    "      --json            print the results as JSON\n"
    "  -s, --size NAME       use the workload's size preset NAME (its \"sizes\")\n"
    "  -D, --set NAME=VALUE  override a workload parameter (repeatable)\n"
    "      --calibration FILE\n"
    "                        costs measured on this machine, for persistent's mode auto\n"
    "                        (skip advise's calibration file; default: the built-in values,\n"
    "                        measured on an H100)\n";
/* then the plan options (skip_plan_options[]) */
static const char help_tail[] =
    "  -m, --module FILE     load this CUDA module instead of the workload's\n"
    "      --emit-plan FILE  write the plan of each executor to FILE ('-': stdout)\n"
    "      --dry-run         check the workload and the plan, print the plan, run nothing\n"
    "      --probe-starts    instead of running the workload, measure what another kernel's\n"
    "                        start costs each task's kernel while it runs, two copies of it\n"
    "                        side by side, and it alone in E5's workers (-n launches of\n"
    "                        each probe graph, default 200), for skip advise --starts\n"
    "      --tile-times FILE\n"
    "                        the persistent executor's last iteration, tile by tile (its\n"
    "                        worker, task, start and end on the GPU's clock), as a trace\n"
    "                        for Perfetto ('-': stdout)\n"
    "  -d, --device N        CUDA device (default 0)\n"
    "  -h, --help            show this help\n"
    "\n"
    "The workload's module is looked for next to it, then in each folder of\n"
    "$SKIP_MODULE_PATH ('make bench' builds the DAG suite's modules into build/dags).\n"
    "The persistent executor's aot kernel stays resident between iterations and ends\n"
    "$SKIP_E5_LINGER_US (default 200) microseconds after the last; SKIP_E5_RESIDENT=0\n"
    "launches it for each iteration instead.\n"
    "\n"
    "Exit status: 0 ok; 1 when a run fails or --verify finds a difference; 2 for a usage\n"
    "error, a bad workload or plan, or no usable GPU.\n"
    "\n"
    "Examples:\n"
    "  skip run bench/dags/vec.json --size small --executor all --verify\n"
    "  skip run bench/dags/m1.json --executor streams --emit-plan m1.plan.json --dry-run\n"
    "  skip run bench/dags/m1.json --plan m1.plan.json --iterations 50 --json\n"
    "  skip run bench/dags/m1.json --executor persistent --calibration machine.cal.json\n"
    "  skip run bench/dags/ml.json --size small --probe-starts --json > ml.starts.json\n"
    "  skip run bench/dags/m1.json --executor persistent --tile-times m1.tiles.json\n";

#define HELP_INDENT 24 /* where the options' descriptions start */
#define HELP_WIDTH  87 /* the longest line */

/* "  -e, --executor NAME   " then @text, wrapped at spaces to HELP_WIDTH columns. */
static void help_option(struct sk_strbuf *sb, const char *left, const char *text)
{
	int col = (int)strlen(left) > HELP_INDENT ? (int)strlen(left) : HELP_INDENT;

	sk_strbuf_printf(sb, "%-*s", HELP_INDENT, left);

	while (*text) {
		size_t word = strcspn(text, " ");

		if (col > HELP_INDENT && col + 1 + (int)word > HELP_WIDTH) {
			sk_strbuf_printf(sb, "\n%*s", HELP_INDENT, "");
			col = HELP_INDENT;
		} else if (col > HELP_INDENT) {
			sk_strbuf_printf(sb, " ");
			col++;
		}
		sk_strbuf_printf(sb, "%.*s", (int)word, text);
		col += (int)word;
		text += word;
		text += strspn(text, " ");
	}
	sk_strbuf_printf(sb, "\n");
}

/* The names of the executors that own @field, joined with '/'. */
static void owners(char *buf, size_t len, unsigned field)
{
	const struct skip_executor_info *e;
	size_t at = 0;

	buf[0] = '\0';
	for (int i = 0; (e = skip_executor_info(i)) && at < len; i++)
		if (e->fields & field)
			at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? "/" : "", e->name);
}

static void print_help(void)
{
	struct sk_strbuf sb = {0}, list = {0};
	const struct skip_executor_info *e;
	char left[64], who[128], text[384];

	sk_strbuf_printf(&sb, "%s", help_head);
	for (int i = 0; (e = skip_executor_info(i)); i++)
		sk_strbuf_printf(&list, "%s (%s, %s), ", e->name, e->label, e->summary);
	sk_strbuf_printf(&list, "or all (each in turn); default %s",
			 skip_executor_name(SKIP_EXEC_SERIAL));
	help_option(&sb, "  -e, --executor NAME", list.buf);
	sk_strbuf_printf(&sb, "%s", help_middle);
	for (const struct skip_plan_option *r = skip_plan_options; r->name; r++) {
		snprintf(left, sizeof(left), "      --%s%s%s", r->name, r->metavar ? " " : "",
			 r->metavar ? r->metavar : "");
		owners(who, sizeof(who), r->field);
		snprintf(text, sizeof(text), r->help, who);
		if (r->names == skip_persist_modes)
			snprintf(text + strlen(text), sizeof(text) - strlen(text),
				 "; auto (the default) takes the mode predicted fastest from the "
				 "calibration");
		help_option(&sb, left, text);
	}
	sk_strbuf_printf(&sb, "%s", help_tail);
	fputs(sb.buf, stdout);
	free(sb.buf);
	free(list.buf);
}

struct run_opts {
	const char *workload, *plan_file, *size, *module, *emit;
	const char *calibration; /* --calibration FILE; NULL: the built-in values */
	const char *tiles;	 /* --tile-times FILE: E5's tile timeline of the last run */
	int executor;		 /* -1: all */
	int iterations, warmup, verify, json, dry_run, device;
	int probe, have_n; /* --probe-starts; -n given */
	int mode_given;	   /* --mode aot|jit|copilot: the plan chose (not auto) */
	struct skip_plan_opts popts;
	struct skip_calibration cal; /* what auto predicts with */
	struct skip_param sets[MAX_SETS];
	int nsets;
};

/* The persistent executor's mode: each mode predicted, and who chose the one run. */
struct mode_pick {
	int predicted; /* choice is filled (a persistent plan whose DAG the model takes) */
	int by_plan;   /* --mode or the plan file's "mode" chose; else auto, the fastest */
	int workers;   /* the plan's workers, 0: each mode's default (choice.pred[m].workers) */
	int durations; /* the plan's predicted durations (else empty tasks) */
	struct skip_persist_choice choice;
};

/* One executor's outcome. */
struct result {
	struct skip_plan *plan;
	struct mode_pick pick; /* persistent only */
	double *ms;	       /* [iterations] */
	double median, min, max;
	int verified; /* -1 not checked, 0 differs, 1 matches */
	char verify_msg[512];
	int failed;
	int usage;   /* it failed before running, on what it was given (exit 2) */
	int skipped; /* --executor all: E5 cannot run this module's tasks; not a failure */
	int workers; /* the persistent executor's worker CTAs (0: another executor) */
	char fail_msg[512];
};

/* ---- options --------------------------------------------------------------------------------- */

static int parse_set(struct run_opts *o, char *spec)
{
	char *eq = strchr(spec, '='), *end;
	long long v;

	if (o->nsets == MAX_SETS)
		return cli_usage_error("run", "at most %d --set options", MAX_SETS);
	if (!eq || eq == spec)
		return cli_usage_error("run", "--set takes NAME=VALUE; got '%s'", spec);
	*eq = '\0';
	errno = 0;
	v = strtoll(eq + 1, &end, 10);
	if (errno || *end || !eq[1])
		return cli_usage_error("run", "--set %s: '%s' is not a whole number", spec, eq + 1);
	o->sets[o->nsets++] = (struct skip_param){spec, v};
	return 0;
}

static int parse_executor(struct run_opts *o, const char *name)
{
	const struct skip_executor_info *e;
	struct sk_strbuf list = {0};

	if (!strcmp(name, "all")) {
		o->executor = -1;
		return 0;
	}
	o->executor = skip_executor_parse(name);
	if (o->executor >= 0)
		return 0;
	for (int i = 0; (e = skip_executor_info(i)); i++)
		sk_strbuf_printf(&list, "%s%s", i ? ", " : "", e->name);
	cli_usage_error("run", "unknown executor '%s' (%s or all)", name, list.buf ? list.buf : "");
	free(list.buf);
	return EXIT_USAGE;
}

/* Long options without a short form; the plan options (skip_plan_options[]) follow O_PLAN. */
enum { O_VERIFY = 256, O_JSON, O_DRY, O_WARMUP, O_EMIT, O_PROBE, O_CALIB, O_TILES, O_PLAN };

static int handle_opt(struct run_opts *o, int c, char *arg, const char *optname)
{
	if (c >= O_PLAN) { /* skip_plan_options[c - O_PLAN] */
		const struct skip_plan_option *r = &skip_plan_options[c - O_PLAN];
		int *v = (int *)((char *)&o->popts + r->opts_offset), rc;

		if (!r->metavar) {
			*v = 1;
			return 0;
		}
		if (r->names == skip_persist_modes && !strcmp(arg, "auto")) {
			o->mode_given = 0;
			*v = 0;
			return 0;
		}
		if (r->names == skip_persist_modes && skip_plan_option_value(r, arg, v)) {
			char list[128];
			size_t at = 0;

			for (int i = 0; r->names[i] && at < sizeof(list); i++)
				at += (size_t)snprintf(list + at, sizeof(list) - at, ", %s",
						       r->names[i]);
			return cli_usage_error("run", "unknown mode '%s' (auto%s)", arg, list);
		}
		if (r->names == skip_persist_modes)
			o->mode_given = 1;
		if (r->names)
			return skip_plan_option_value(r, arg, v)
				   ? cli_usage_error("run", "%s", skip_errmsg())
				   : 0;
		if ((rc = cli_int32("run", optname, arg, r->min, r->max, v)))
			return rc;
		if (!*v) /* 0 given: not "the default" */
			*v = SKIP_PLAN_ZERO;
		return 0;
	}
	switch (c) {
	case O_VERIFY:
		o->verify = 1;
		return 0;
	case O_JSON:
		o->json = 1;
		return 0;
	case O_DRY:
		o->dry_run = 1;
		return 0;
	case O_PROBE:
		o->probe = 1;
		return 0;
	case O_CALIB:
		o->calibration = arg;
		return 0;
	case O_TILES:
		o->tiles = arg;
		return 0;
	case 'e':
		return parse_executor(o, arg);
	case 'p':
		o->plan_file = arg;
		return 0;
	case 'n':
		o->have_n = 1;
		return cli_int32("run", optname, arg, 1, 1000000, &o->iterations);
	case O_WARMUP:
		return cli_int32("run", optname, arg, 0, 1000000, &o->warmup);
	case 's':
		o->size = arg;
		return 0;
	case 'D':
		return parse_set(o, arg);
	case 'm':
		o->module = arg;
		return 0;
	case O_EMIT:
		o->emit = arg;
		return 0;
	case 'd':
		return cli_int32("run", optname, arg, 0, 1023, &o->device);
	}
	return cli_usage_error("run", "unknown option '%s'", optname);
}

#define MAX_OPTS 32

/* The options: the fixed ones, then one per plan option; ends with a zero entry. */
static void make_options(struct option *opts)
{
	static const struct option fixed[] = {
	    {"executor", required_argument, NULL, 'e'},
	    {"plan", required_argument, NULL, 'p'},
	    {"iterations", required_argument, NULL, 'n'},
	    {"warmup", required_argument, NULL, O_WARMUP},
	    {"verify", no_argument, NULL, O_VERIFY},
	    {"json", no_argument, NULL, O_JSON},
	    {"size", required_argument, NULL, 's'},
	    {"set", required_argument, NULL, 'D'},
	    {"module", required_argument, NULL, 'm'},
	    {"emit-plan", required_argument, NULL, O_EMIT},
	    {"dry-run", no_argument, NULL, O_DRY},
	    {"probe-starts", no_argument, NULL, O_PROBE},
	    {"calibration", required_argument, NULL, O_CALIB},
	    {"tile-times", required_argument, NULL, O_TILES},
	    {"device", required_argument, NULL, 'd'},
	    {"help", no_argument, NULL, 'h'},
	};
	size_t n = sizeof(fixed) / sizeof(fixed[0]);

	memcpy(opts, fixed, sizeof(fixed));
	for (int i = 0; skip_plan_options[i].name; i++) {
		const struct skip_plan_option *r = &skip_plan_options[i];

		assert(n < MAX_OPTS - 1);
		opts[n++] = (struct option){r->name, r->metavar ? required_argument : no_argument,
					    NULL, O_PLAN + i};
	}
	opts[n] = (struct option){0};
}

static int parse_args(int argc, char **argv, struct run_opts *o)
{
	struct option opts[MAX_OPTS];
	int c, li, have_exec = 0;

	*o = (struct run_opts){.iterations = 10, .warmup = 1};
	make_options(opts);
	optind = 1;
	opterr = 0;
	while (li = -1, (c = getopt_long(argc, argv, ":e:p:n:s:D:m:d:h", opts, &li)) != -1) {
		char name[32];

		/* the option as typed, for messages: its long name, or the short one */
		if (li >= 0)
			snprintf(name, sizeof(name), "--%s", opts[li].name);
		else if (c == '?' || c == ':')
			snprintf(name, sizeof(name), "%s", argv[optind - 1]);
		else
			snprintf(name, sizeof(name), "-%c", c);

		if (c == 'h') {
			print_help();
			return -1;
		}
		if (c == ':')
			return cli_usage_error("run", "option '%s' needs a value", name);
		have_exec |= c == 'e';
		if (handle_opt(o, c, optarg, name))
			return EXIT_USAGE;
	}
	if (optind != argc - 1)
		return cli_usage_error("run", optind >= argc ? "no workload file given"
							     : "one workload file expected");
	if (have_exec && o->plan_file)
		return cli_usage_error("run", "give --executor or --plan, not both");
	if (o->probe && (have_exec || o->plan_file || o->verify || o->dry_run || o->emit))
		return cli_usage_error("run",
				       "--probe-starts runs no executor: it takes no "
				       "--executor, --plan, --verify, --dry-run or --emit-plan");
	if (o->tiles && (o->probe || o->dry_run))
		return cli_usage_error("run", "--tile-times needs a run: not with --probe-starts "
					      "or --dry-run");
	if (o->tiles && have_exec && o->executor != SKIP_EXEC_PERSISTENT)
		return cli_usage_error("run",
				       "--tile-times: only the persistent executor runs "
				       "tiles (--executor persistent, or a persistent plan)");
	o->workload = argv[optind];
	return 0;
}

/* ---- plans ----------------------------------------------------------------------------------- */

/* Whether the plan @text leaves the persistent executor's mode to skip run: a persistent plan
 * with no "mode", or "mode": "auto" (taken out of @text here, since the runtime knows only the
 * modes it runs). Text that is not a JSON object is left to skip_plan_from_json() to refuse. */
static int plan_mode_auto(char **text)
{
	cJSON *root = cJSON_Parse(*text);
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(root, "executor");
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(root, "mode");
	int is_auto = 0;

	if (cJSON_IsString(e) && skip_executor_parse(e->valuestring) == SKIP_EXEC_PERSISTENT) {
		is_auto = !m;
		if (cJSON_IsString(m) && !strcmp(m->valuestring, "auto")) {
			char *s;

			cJSON_DeleteItemFromObjectCaseSensitive(root, "mode");
			s = cJSON_PrintUnformatted(root);
			if (s) {
				free(*text);
				*text = sk_xstrdup(s);
				cJSON_free(s);
				is_auto = 1;
			}
		}
	}
	cJSON_Delete(root);
	return is_auto;
}

/* Fill res[0..*nres) with the plans to run; *@auto_mode: a persistent plan's mode is skip
 * run's to choose. Returns 0 or an exit code. */
static int make_plans(const struct run_opts *o, const struct skip_graph *g, struct result *res,
		      int *nres, int *auto_mode)
{
	*nres = 0;
	*auto_mode = !o->mode_given;
	if (o->plan_file) {
		char *text;
		int err = skip_read_file(o->plan_file, SIZE_MAX, &text, NULL);

		if (err) {
			fprintf(stderr, "skip run: error: %s\n", skip_errmsg());
			return EXIT_USAGE;
		}
		*auto_mode = plan_mode_auto(&text);
		err = skip_plan_from_json(g, text, &res[0].plan);
		free(text);
		if (err) {
			fprintf(stderr, "skip run: error: %s: %s\n", o->plan_file, skip_errmsg());
			return EXIT_USAGE;
		}
		*nres = 1;
		return 0;
	}
	for (int e = 0; e < SKIP_NEXECUTORS; e++) {
		struct skip_plan_opts po = o->popts;

		if (o->executor >= 0 && e != o->executor)
			continue;
		po.executor = (enum skip_executor)e;
		if (skip_plan_compute(g, &po, &res[*nres].plan)) {
			fprintf(stderr, "skip run: error: %s plan: %s\n", skip_executor_name(e),
				skip_errmsg());
			return EXIT_USAGE;
		}
		(*nres)++;
	}
	return 0;
}

/* The modes the runtime runs: skip_persist_modes' names, as far as the model knows them. */
static int runtime_modes(void)
{
	int n = 0;

	while (skip_persist_modes[n] && n < SKIP_PERSIST_NMODES)
		n++;
	return n;
}

/*
 * The persistent plan's mode: each mode the runtime runs predicted for the DAG on the plan's
 * workers, its tasks taking the plan's predicted durations ("durations_us", which skip advise
 * writes), or with empty bodies when the plan has none (the workload gives no durations), and
 * with @auto_mode the fastest set in the plan, before anything prepares it. Without @auto_mode
 * a prediction that fails only leaves the predictions out. Returns 0 or an exit code.
 */
static int pick_mode(const struct run_opts *o, const struct skip_graph *g, struct result *r,
		     int auto_mode)
{
	struct mode_pick *k = &r->pick;
	int n = skip_graph_ntasks(g), err;
	double *ns = sk_xcalloc((size_t)n + 1, sizeof(double));

	k->by_plan = !auto_mode;
	k->workers = r->plan->workers;
	k->durations = r->plan->durations_us != NULL;
	for (int t = 0; k->durations && t < n; t++)
		ns[t] = r->plan->durations_us[t] * 1e3;
	err = skip_persist_choose(g, ns, k->workers, &o->cal, runtime_modes(), &k->choice);
	free(ns);
	k->predicted = !err;
	if (err && auto_mode) {
		fprintf(
		    stderr,
		    "skip run: error: choosing the persistent mode: %s (give --mode aot, jit or "
		    "copilot)\n",
		    skip_errmsg());
		return EXIT_USAGE;
	}
	if (auto_mode)
		r->plan->mode = k->choice.mode + 1; /* the plan's modes count from 1 */
	return 0;
}

static int emit_plans(const struct run_opts *o, const struct skip_graph *g,
		      const struct result *res, int nres)
{
	const char *inputs[] = {o->workload, o->plan_file, o->module, o->calibration};
	struct skip_outfile out;
	int err = skip_outfile_open(&out, o->emit, SKIP_OUT_PLAN, 1, inputs, 4);

	if (err)
		return cli_output_error("run", err);
	for (int i = 0; i < nres; i++) {
		char *s = skip_plan_to_json(g, res[i].plan);

		fprintf(out.f, "%s\n", s ? s : "null");
		free(s);
	}
	if (skip_outfile_commit(&out)) {
		fprintf(stderr, "skip run: error: %s\n", skip_errmsg());
		return EXIT_ERR;
	}
	return 0;
}

/* ---- running --------------------------------------------------------------------------------- */

static void summarize(struct result *r, int n)
{
	double *s = sk_xmalloc((size_t)n * sizeof(double));

	memcpy(s, r->ms, (size_t)n * sizeof(double));
	r->median = skip_median(s, (size_t)n); /* sorts s */
	r->min = s[0];
	r->max = s[n - 1];
	free(s);
}

static void fail(struct result *r, const char *what)
{
	r->failed = 1;
	snprintf(r->fail_msg, sizeof(r->fail_msg), "%s: %s", what, skip_errmsg());
}

/*
 * --tile-times FILE: the tiles of @x's last run as a Chrome trace (Perfetto, chrome://tracing):
 * one track per worker, a slice per tile named by its task, its start relative to the first
 * tile's; "skip_export": "e5-tiles" marks it as skip's (skip replaces only its own outputs).
 */
static int write_tiles(const struct run_opts *o, const struct skip_graph *g,
		       const struct skip_exec *x)
{
	const char *inputs[] = {o->workload, o->plan_file, o->module, o->calibration};
	int n = skip_exec_tile_times(x, NULL, 0), err;
	struct skip_tile_time *tt;
	struct skip_outfile out;
	uint64_t t0 = UINT64_MAX;
	cJSON *doc, *ev;
	char *text;

	if (n <= 0)
		return n < 0 ? n
			     : sk_fail(SKIP_E_INVAL, "no tile times recorded (a run of the "
						     "persistent executor records them)");
	tt = sk_xcalloc((size_t)n, sizeof(*tt));
	n = skip_exec_tile_times(x, tt, n);
	doc = cJSON_CreateObject();
	cJSON_AddStringToObject(doc, "skip_export", "e5-tiles");
	cJSON_AddStringToObject(doc, "displayTimeUnit", "ns");
	ev = cJSON_AddArrayToObject(doc, "traceEvents");
	for (int i = 0; i < n; i++)
		if (tt[i].start_ns && tt[i].start_ns < t0)
			t0 = tt[i].start_ns;
	for (int i = 0; i < n; i++) {
		cJSON *e = cJSON_CreateObject(), *args;

		if (!tt[i].start_ns || tt[i].end_ns < tt[i].start_ns) { /* not run, or torn */
			cJSON_Delete(e);
			continue;
		}
		cJSON_AddStringToObject(e, "name", skip_graph_task_name(g, tt[i].task));
		cJSON_AddStringToObject(e, "ph", "X");
		cJSON_AddNumberToObject(e, "pid", 0);
		cJSON_AddNumberToObject(e, "tid", tt[i].worker);
		cJSON_AddNumberToObject(e, "ts", (double)(tt[i].start_ns - t0) / 1e3);
		cJSON_AddNumberToObject(e, "dur", (double)(tt[i].end_ns - tt[i].start_ns) / 1e3);
		args = cJSON_AddObjectToObject(e, "args");
		cJSON_AddNumberToObject(args, "tile", tt[i].tile);
		cJSON_AddNumberToObject(args, "task", tt[i].task);
		cJSON_AddItemToArray(ev, e);
	}
	free(tt);
	text = cJSON_Print(doc);
	cJSON_Delete(doc);
	if ((err = skip_outfile_open(&out, o->tiles, SKIP_OUT_EXPORT, 1, inputs, 4))) {
		free(text);
		return err;
	}
	fprintf(out.f, "%s\n", text);
	free(text);
	return skip_outfile_commit(&out);
}

/* Before running, that --tile-times has a persistent run to record and may write its file;
 * then the runtime is told to record tiles (SKIP_E5_TILE_TIMES). */
static int check_tiles(const struct run_opts *o, const struct result *res, int nres)
{
	const char *inputs[] = {o->workload, o->plan_file, o->module, o->calibration};
	struct skip_outfile out;
	int err, any = 0;

	for (int i = 0; i < nres; i++)
		any |= res[i].plan->executor == SKIP_EXEC_PERSISTENT;
	if (!any)
		return cli_usage_error("run", "--tile-times: only the persistent executor runs "
					      "tiles, and this plan is not one");
	if ((err = skip_outfile_open(&out, o->tiles, SKIP_OUT_EXPORT, 1, inputs, 4)))
		return cli_output_error("run", err);
	skip_outfile_abort(&out);
	setenv("SKIP_E5_TILE_TIMES", "1", 1);
	return 0;
}

/* Verify (against @ref when given), then warm up and time one executor. */
static void run_one(const struct run_opts *o, struct skip_graph *g, struct result *r,
		    const struct skip_checkpoint *ref)
{
	struct skip_exec *x;
	uint64_t ns;
	int err;

	r->verified = -1;
	r->ms = sk_xcalloc((size_t)o->iterations, sizeof(double));
	x = skip_exec_new(g, r->plan, &err);
	if (!x) {
		fail(r, "preparing");
		r->usage = err == SKIP_E_INVAL;
		/* every executor that can run it: E5 needs a module written with SKIP_TASK */
		r->skipped =
		    r->usage && o->executor < 0 && r->plan->executor == SKIP_EXEC_PERSISTENT;
		return;
	}
	r->workers = skip_exec_workers(x);
	if (ref) {
		if (skip_graph_reset(g) || skip_exec_run(x, NULL))
			goto failed;
		err = skip_graph_compare(g, ref);
		if (err < 0)
			goto failed;
		r->verified = !err;
		if (err)
			snprintf(r->verify_msg, sizeof(r->verify_msg), "%s", skip_errmsg());
	}
	if (skip_graph_reset(g))
		goto failed;
	for (int i = 0; i < o->warmup; i++)
		if (skip_exec_run(x, NULL))
			goto failed;
	for (int i = 0; i < o->iterations; i++) {
		if (skip_exec_run(x, &ns))
			goto failed;
		r->ms[i] = (double)ns / 1e6;
	}
	summarize(r, o->iterations);
	if (o->tiles && r->plan->executor == SKIP_EXEC_PERSISTENT && write_tiles(o, g, x))
		fail(r, "--tile-times");
	skip_exec_free(x);
	return;
failed:
	fail(r, "running");
	skip_exec_free(x);
}

/* The serial executor's results, the reference for --verify. */
static int reference(struct skip_graph *g, struct skip_checkpoint **cp)
{
	struct skip_plan_opts po = {.executor = SKIP_EXEC_SERIAL};
	struct skip_plan *p = NULL;
	struct skip_exec *x = NULL;
	int err = skip_plan_compute(g, &po, &p);

	if (!err)
		x = skip_exec_new(g, p, &err);
	if (!err)
		err = skip_graph_reset(g);
	if (!err)
		err = skip_exec_run(x, NULL);
	if (!err)
		err = skip_graph_checkpoint(g, cp);
	skip_exec_free(x);
	skip_plan_free(p);
	return err;
}

/* ---- output ---------------------------------------------------------------------------------- */

static double graph_bytes(const struct skip_graph *g)
{
	double b = 0;

	for (int i = 0; i < skip_graph_nbuffers(g); i++)
		b += (double)skip_graph_buffer_size(g, i);
	return b;
}

/* A plan's persistent mode by name ("?" for none the runtime has). */
static const char *mode_name(int mode)
{
	return skip_persist_mode_name(mode - 1);
}

/* The persistent mode, who chose it, each mode's predicted iteration and the calibration:
 *   persistent mode aot, predicted fastest; an iteration of the DAG's empty tasks on default
 *   workers:
 *     aot       17.30 us  (1.50 us a task, 0.55 on its producers' worker, 132 workers)
 *     ...
 *     calibration: built-in (measured on an H100): launch 11.80 us, barrier 1.00 us */
static void print_pick(const struct run_opts *o, const struct result *r)
{
	const struct mode_pick *k = &r->pick;
	const struct skip_calibration *c = &o->cal;

	printf("\n  persistent mode %s, %s", mode_name(r->plan->mode),
	       k->by_plan ? "chosen by the plan" : "predicted fastest");
	if (!k->predicted) {
		printf(" (not predicted: the model does not take this DAG)\n");
		return;
	}
	printf("; an iteration of the DAG's %s on ",
	       k->durations ? "tasks (the plan's predicted durations)" : "empty tasks");
	if (k->workers)
		printf("%d workers:\n", k->workers);
	else
		printf("default workers:\n");
	for (int m = 0; m < k->choice.nmodes; m++) {
		char local[48] = "";

		if (skip_persist_local_ns(c, m) < skip_persist_task_ns(c, m))
			snprintf(local, sizeof(local), ", %.2f on its producers' worker",
				 skip_persist_local_ns(c, m) / 1e3);
		printf("    %-8s %9.2f us  (%.2f us a task%s, %d workers)%s\n",
		       skip_persist_mode_name(m), k->choice.pred[m].iteration_ns / 1e3,
		       skip_persist_task_ns(c, m) / 1e3, local, k->choice.pred[m].workers,
		       m == k->choice.mode ? "  fastest" : "");
	}
	printf("    calibration: %s: launch %.2f us, barrier %.2f us\n",
	       o->calibration ? o->calibration : "built-in (measured on an H100)",
	       c->persist_launch_ns / 1e3, c->persist_epoch_ns / 1e3);
	if (c->persist_counter_wait_ns || c->persist_queue_pop_ns || c->persist_ring_rtt_ns)
		printf("    per hop: counter wait %.2f us, queue pop %.2f us, ring round trip %.2f "
		       "us (0: not measured)\n",
		       c->persist_counter_wait_ns / 1e3, c->persist_queue_pop_ns / 1e3,
		       c->persist_ring_rtt_ns / 1e3);
}

/* The same as JSON: "persistent_mode". */
static cJSON *pick_json(const struct run_opts *o, const struct result *r)
{
	const struct mode_pick *k = &r->pick;
	cJSON *j = cJSON_CreateObject(), *pred, *cal;

	cJSON_AddStringToObject(j, "mode", mode_name(r->plan->mode));
	cJSON_AddStringToObject(j, "chosen_by", k->by_plan ? "plan" : "prediction");
	if (!k->predicted)
		return j;
	cJSON_AddNumberToObject(j, "workers", k->choice.pred[k->choice.mode].workers);
	cJSON_AddStringToObject(j, "task_durations", k->durations ? "plan" : "empty");
	pred = cJSON_AddObjectToObject(j, "predicted_iteration_ns");
	for (int m = 0; m < k->choice.nmodes; m++)
		cJSON_AddNumberToObject(pred, skip_persist_mode_name(m),
					k->choice.pred[m].iteration_ns);
	pred = cJSON_AddObjectToObject(j, "predicted_workers");
	for (int m = 0; m < k->choice.nmodes; m++)
		cJSON_AddNumberToObject(pred, skip_persist_mode_name(m), k->choice.pred[m].workers);
	cJSON_AddStringToObject(j, "calibration", o->calibration ? o->calibration : "built-in");
	cal = cJSON_AddObjectToObject(j, "calibration_values");
	for (const struct skip_calibration_key *c = skip_calibration_keys; c->name; c++)
		if (!strcmp(c->part, "persistent"))
			cJSON_AddNumberToObject(
			    cal, c->name, *(const double *)((const char *)&o->cal + c->offset));
	return j;
}

/* "streams  2 streams, 3 events (...)": what the plan sets of the members its executor owns. */
static void plan_line(FILE *out, const struct skip_plan *p)
{
	unsigned f = skip_executor_info(p->executor)->fields;

	fprintf(out, "%-8s", skip_executor_name(p->executor));
	if (f & SKIP_PLAN_STREAMS)
		fprintf(out, " %2d streams", p->nstreams);
	else
		fprintf(out, "  1 stream");
	if (f & SKIP_PLAN_EVENTS) {
		fprintf(out, ", %d events", p->nevents);
		if (p->events_unpruned >= 0)
			fprintf(out, " (%d before pruning, %d after step b)", p->events_unpruned,
				p->events_step_b);
	}
	if (f & SKIP_PLAN_WINDOW)
		fprintf(out, ", window %d", p->window);
	if ((f & SKIP_PLAN_PDL) && p->pdl)
		fprintf(out, ", PDL edges");
	if (f & SKIP_PLAN_PERSIST) {
		fprintf(out, ", mode %s, ", mode_name(p->mode));
		if (p->mode == 3)
			fprintf(out, "lookahead %d, ", p->lookahead);
		if (p->workers)
			fprintf(out, "%d workers", p->workers);
		else
			fprintf(out, "default workers");
		if ((f & SKIP_PLAN_DURATIONS) && p->durations_us && p->mode == 1)
			fprintf(out, ", tiles placed by the plan's durations");
	}
	fputc('\n', out);
}

/* "  tile edge gemm1 -> gemm2: row, 3 rows" for each declared tile edge (E5 only uses them). */
static void print_tile_edges(const struct skip_graph *g)
{
	const struct skip_tile_edge *e;
	int n = skip_graph_tile_edges(g, &e);

	for (int i = 0; i < n; i++) {
		printf("  tile edge %s -> %s: %s", skip_graph_task_name(g, e[i].from),
		       skip_graph_task_name(g, e[i].to), skip_tile_policy_name(e[i].policy));
		if (e[i].policy == SKIP_TILE_ROW)
			printf(", %d rows", e[i].rows);
		printf("\n");
	}
}

static void print_text(const struct run_opts *o, const struct skip_workload *w,
		       const struct skip_graph *g, const char *dev, struct result *res, int nres)
{
	char b[32];

	printf("%s: %d tasks, %d dependencies, width %d, %d buffers (%s)%s%s\n",
	       skip_workload_name(w), skip_graph_ntasks(g), skip_graph_nedges(g),
	       skip_graph_width(g), skip_graph_nbuffers(g), cli_bytes(b, sizeof(b), graph_bytes(g)),
	       dev ? " on " : "", dev ? dev : "");
	print_tile_edges(g);
	for (int i = 0; i < nres; i++) {
		printf("  plan ");
		plan_line(stdout, res[i].plan);
	}
	for (int i = 0; i < nres; i++)
		if (res[i].plan->executor == SKIP_EXEC_PERSISTENT)
			print_pick(o, &res[i]);
	if (o->dry_run)
		return;
	printf("\n  %-8s %10s %10s %10s  %s\n", "executor", "median ms", "min ms", "max ms",
	       o->verify ? "verify" : "");
	for (int i = 0; i < nres; i++) {
		const struct result *r = &res[i];

		if (r->failed) {
			printf("  %-8s %s: %s\n", skip_executor_name(r->plan->executor),
			       r->skipped ? "not run" : "failed", r->fail_msg);
			continue;
		}
		printf("  %-8s %10.4f %10.4f %10.4f  %s", skip_executor_name(r->plan->executor),
		       r->median, r->min, r->max,
		       r->verified < 0 ? ""
		       : r->verified   ? "ok"
				       : r->verify_msg);
		if (r->workers)
			printf("%s(%d workers)", r->verified < 0 ? "" : "  ", r->workers);
		putchar('\n');
	}
	printf(
	    "  (%d timed iterations after %d warm-up; host wall time, submission to completion)\n",
	    o->iterations, o->warmup);
}

static cJSON *result_json(const struct run_opts *o, const struct result *r)
{
	const struct skip_plan *p = r->plan;
	unsigned f = skip_executor_info(p->executor)->fields;
	cJSON *j = cJSON_CreateObject(), *t;

	cJSON_AddStringToObject(j, "executor", skip_executor_name(p->executor));
	cJSON_AddNumberToObject(j, "streams", p->nstreams);
	if (f & SKIP_PLAN_EVENTS) {
		cJSON_AddNumberToObject(j, "events", p->nevents);
		if (p->events_unpruned >= 0)
			cJSON_AddNumberToObject(j, "events_before_pruning", p->events_unpruned);
	}
	if (f & SKIP_PLAN_WINDOW)
		cJSON_AddNumberToObject(j, "window", p->window);
	if (f & SKIP_PLAN_PERSIST)
		cJSON_AddStringToObject(j, "mode", mode_name(p->mode));
	cJSON_AddBoolToObject(j, "pdl", p->pdl);
	if (r->failed) {
		cJSON_AddStringToObject(j, r->skipped ? "not_run" : "error", r->fail_msg);
		return j;
	}
	if (r->workers)
		cJSON_AddNumberToObject(j, "workers", r->workers);
	cJSON_AddNumberToObject(j, "median_ms", r->median);
	cJSON_AddNumberToObject(j, "min_ms", r->min);
	cJSON_AddNumberToObject(j, "max_ms", r->max);
	t = cJSON_AddArrayToObject(j, "times_ms");
	for (int i = 0; i < o->iterations; i++)
		cJSON_AddItemToArray(t, cJSON_CreateNumber(r->ms[i]));
	if (r->verified < 0)
		cJSON_AddNullToObject(j, "verified");
	else
		cJSON_AddBoolToObject(j, "verified", r->verified);
	if (r->verified == 0)
		cJSON_AddStringToObject(j, "verify_error", r->verify_msg);
	return j;
}

/* "tile_edges": [{"from", "to", "policy"[, "rows"]}], when the workload declares any. */
static void add_tile_edges(cJSON *root, const struct skip_graph *g)
{
	const struct skip_tile_edge *e;
	int n = skip_graph_tile_edges(g, &e);
	cJSON *arr = n ? cJSON_AddArrayToObject(root, "tile_edges") : NULL;

	for (int i = 0; i < n; i++) {
		cJSON *x = cJSON_CreateObject();

		cJSON_AddStringToObject(x, "from", skip_graph_task_name(g, e[i].from));
		cJSON_AddStringToObject(x, "to", skip_graph_task_name(g, e[i].to));
		cJSON_AddStringToObject(x, "policy", skip_tile_policy_name(e[i].policy));
		if (e[i].policy == SKIP_TILE_ROW)
			cJSON_AddNumberToObject(x, "rows", e[i].rows);
		cJSON_AddItemToArray(arr, x);
	}
}

static void print_json(const struct run_opts *o, const struct skip_workload *w,
		       const struct skip_graph *g, const char *dev, struct result *res, int nres)
{
	cJSON *root = cJSON_CreateObject(), *arr;
	char *s;

	cJSON_AddStringToObject(root, "workload", skip_workload_name(w));
	cJSON_AddStringToObject(root, "file", o->workload);
	cJSON_AddNumberToObject(root, "tasks", skip_graph_ntasks(g));
	cJSON_AddNumberToObject(root, "dependencies", skip_graph_nedges(g));
	cJSON_AddNumberToObject(root, "width", skip_graph_width(g));
	cJSON_AddNumberToObject(root, "buffer_bytes", graph_bytes(g));
	add_tile_edges(root, g);
	if (dev)
		cJSON_AddStringToObject(root, "device", dev);
	cJSON_AddNumberToObject(root, "iterations", o->iterations);
	cJSON_AddNumberToObject(root, "warmup", o->warmup);
	for (int i = 0; i < nres; i++)
		if (res[i].plan->executor == SKIP_EXEC_PERSISTENT)
			cJSON_AddItemToObject(root, "persistent_mode", pick_json(o, &res[i]));
	arr = cJSON_AddArrayToObject(root, o->dry_run ? "plans" : "results");
	for (int i = 0; i < nres; i++) {
		char *plan = o->dry_run ? skip_plan_to_json(g, res[i].plan) : NULL;

		cJSON_AddItemToArray(arr, plan ? cJSON_Parse(plan) : result_json(o, &res[i]));
		free(plan);
	}
	s = cJSON_Print(root);
	if (s)
		printf("%s\n", s);
	free(s);
	cJSON_Delete(root);
}

/* ---- --probe-starts -------------------------------------------------------------------------- */

#define PROBE_STARTS 4

static void print_probe(const struct run_opts *o, const struct skip_workload *w,
			const struct skip_graph *g, const char *dev,
			const struct skip_start_probe *p, int reps)
{
	int n = skip_graph_ntasks(g), probed = 0;

	for (int v = 0; v < n; v++)
		probed += p[v].starts > 0;
	if (o->json) {
		cJSON *root = cJSON_CreateObject(), *arr;
		char *s;

		cJSON_AddStringToObject(root, "workload", skip_workload_name(w));
		cJSON_AddStringToObject(root, "file", o->workload);
		cJSON_AddStringToObject(root, "device", dev);
		cJSON_AddNumberToObject(root, "reps", reps);
		arr = cJSON_AddArrayToObject(root, "start_costs");
		for (int v = 0; v < n; v++) {
			cJSON *t = cJSON_CreateObject();

			cJSON_AddStringToObject(t, "task", skip_graph_task_name(g, v));
			cJSON_AddStringToObject(t, "kernel",
						skip_graph_task_kernel(g, v, NULL, NULL));
			cJSON_AddNumberToObject(t, "duration_ns", p[v].duration_ns);
			cJSON_AddNumberToObject(t, "starts", p[v].starts);
			cJSON_AddNumberToObject(t, "base_ns", p[v].base_ns);
			cJSON_AddNumberToObject(t, "with_ns", p[v].with_ns);
			cJSON_AddNumberToObject(t, "start_cost_ns", p[v].cost_ns);
			cJSON_AddNumberToObject(t, "alone_ns", p[v].alone_ns);
			cJSON_AddNumberToObject(t, "pair_ns", p[v].pair_ns);
			cJSON_AddNumberToObject(t, "worker_ns", p[v].worker_ns);
			cJSON_AddItemToArray(arr, t);
		}
		s = cJSON_Print(root);
		if (s)
			printf("%s\n", s);
		free(s);
		cJSON_Delete(root);
		return;
	}
	printf("%s: what another kernel's start costs each task while it runs, two copies of it\n"
	       "side by side, and it alone in E5's workers, on %s (%d of %d tasks probed for\n"
	       "starts; %d launches of each probe graph)\n\n",
	       skip_workload_name(w), dev, probed, n, reps);
	printf("  %-24s %12s %7s %12s %12s %10s %12s %8s %7s %10s\n", "task", "alone us", "starts",
	       "without us", "with us", "per start", "pair us", "pair/1", "demand", "worker us");
	for (int v = 0; v < n; v++) {
		char pair[48] = "           -        -       -", worker[16] = "         -";

		if (p[v].alone_ns > 0)
			snprintf(pair, sizeof(pair), "%12.2f %7.2fx %7.2f", p[v].pair_ns / 1e3,
				 p[v].pair_ns / p[v].alone_ns,
				 skip_memory_demand(p[v].alone_ns, p[v].pair_ns));
		if (p[v].worker_ns > 0)
			snprintf(worker, sizeof(worker), "%10.2f", p[v].worker_ns / 1e3);
		if (!p[v].starts)
			printf("  %-24s %12.2f %7s %12s %12s %10s %s %s\n",
			       skip_graph_task_name(g, v), p[v].duration_ns / 1e3, "-", "-", "-",
			       "-", pair, worker);
		else
			printf("  %-24s %12.2f %7d %12.2f %12.2f %7.0f ns %s %s\n",
			       skip_graph_task_name(g, v), p[v].duration_ns / 1e3, p[v].starts,
			       p[v].base_ns / 1e3, p[v].with_ns / 1e3, p[v].cost_ns, pair, worker);
	}
	printf("\n  (per start = (with - without) / starts: the task's graph with a chain of that\n"
	       "  many 2 us kernels started beside it, against without; '-': too short, or it\n"
	       "  fills the GPU. pair: two copies of the task side by side, and over the task\n"
	       "  alone: about 1x when they share nothing but the GPU, up to 2x when the memory\n"
	       "  limits them; demand: the share of the memory skip advise --starts takes from\n"
	       "  that; '-': its grid does not fit twice. worker: the task alone in E5's workers,\n"
	       "  its longest span on one worker, which skip advise --starts takes for its time\n"
	       "  in the persistent item; '-': no E5 worker in the module, or its tiles would\n"
	       "  share SMs. docs/skip-run.md)\n");
}

/* Load, probe each task; returns the exit code. */
static int probe(const struct run_opts *o, const struct skip_workload *w, struct skip_graph *g,
		 const char *dev)
{
	int reps = o->have_n ? o->iterations : 200, err = skip_graph_load(g, o->device);
	struct skip_start_probe *p;

	if (err) {
		fprintf(stderr, "skip run: error: %s\n", skip_errmsg());
		return err == SKIP_E_NOTFOUND || err == SKIP_E_INVAL ? EXIT_USAGE : EXIT_ERR;
	}
	p = sk_xcalloc((size_t)skip_graph_ntasks(g) + 1, sizeof(*p));
	if (!(err = skip_graph_reset(g)))
		err = skip_probe_starts(g, PROBE_STARTS, reps, p);
	if (err)
		fprintf(stderr, "skip run: error: probing the tasks: %s\n", skip_errmsg());
	else
		print_probe(o, w, g, dev, p, reps);
	free(p);
	return err ? EXIT_ERR : EXIT_OK;
}

/* ---- the command ----------------------------------------------------------------------------- */

/* Load, verify and time every plan; returns the exit code. */
static int execute(const struct run_opts *o, struct skip_graph *g, struct result *res, int nres)
{
	struct skip_checkpoint *ref = NULL;
	int rc = EXIT_OK, err = skip_graph_load(g, o->device);

	if (err) {
		fprintf(stderr, "skip run: error: %s%s\n", skip_errmsg(),
			err == SKIP_E_NOTFOUND ? " (build the module, or point SKIP_MODULE_PATH or "
						 "--module at it)"
					       : "");
		return err == SKIP_E_NOTFOUND || err == SKIP_E_INVAL ? EXIT_USAGE : EXIT_ERR;
	}
	if (o->verify && reference(g, &ref)) {
		fprintf(stderr, "skip run: error: the serial reference run failed: %s\n",
			skip_errmsg());
		return EXIT_ERR;
	}
	for (int i = 0; i < nres; i++) {
		run_one(o, g, &res[i], ref);
		if (res[i].skipped)
			continue;
		if (res[i].usage) { /* no table follows a usage error: say it here */
			fprintf(stderr, "skip run: error: the %s executor: %s\n",
				skip_executor_name(res[i].plan->executor), res[i].fail_msg);
			if (rc == EXIT_OK)
				rc = EXIT_USAGE;
		} else if (res[i].failed || res[i].verified == 0)
			rc = EXIT_ERR;
	}
	skip_checkpoint_free(ref);
	return rc;
}

static void free_results(struct result *res, int nres, int iterations)
{
	(void)iterations;
	for (int i = 0; i < nres; i++) {
		skip_plan_free(res[i].plan);
		free(res[i].ms);
	}
}

int cmd_run(int argc, char **argv)
{
	struct run_opts o;
	struct result res[SKIP_NEXECUTORS];
	struct skip_workload *w;
	struct skip_graph *g;
	char dev[256];
	int rc, err, nres = 0, have_dev = 0, auto_mode = 0;

	if ((rc = parse_args(argc, argv, &o)))
		return rc < 0 ? EXIT_OK : rc;
	skip_calibration_default(&o.cal);
	if (o.calibration && cli_load_calibration(o.calibration, &o.cal)) {
		fprintf(stderr, "skip run: error: %s\n", skip_errmsg());
		return EXIT_USAGE;
	}
	memset(res, 0, sizeof(res));
	w = skip_workload_load(o.workload, o.size, o.sets, o.nsets, o.module, &err);
	/* The module and init files are checked here, so a dry run fails as a run would. */
	if (w && skip_workload_check_files(w)) {
		skip_workload_free(w);
		w = NULL;
	}
	if (!w) {
		fprintf(stderr, "skip run: error: %s\n", skip_errmsg());
		return EXIT_USAGE;
	}
	g = skip_workload_graph(w);
	rc = make_plans(&o, g, res, &nres, &auto_mode);
	for (int i = 0; !rc && i < nres; i++)
		if (res[i].plan->executor == SKIP_EXEC_PERSISTENT)
			rc = pick_mode(&o, g, &res[i], auto_mode);
	if (!rc && o.emit)
		rc = emit_plans(&o, g, res, nres);
	if (!rc && o.tiles)
		rc = check_tiles(&o, res, nres);
	if (!rc && !o.dry_run) {
		err = skip_runtime_probe(o.device, dev, sizeof(dev));
		if (err) {
			fprintf(
			    stderr, "skip run: %s%s\n",
			    err == SKIP_E_UNSUPPORTED ? "" : "no GPU to run on: ", skip_errmsg());
			rc = EXIT_USAGE;
		} else if (o.probe) {
			rc = probe(&o, w, g, dev);
			free_results(res, nres, o.iterations);
			skip_workload_free(w);
			return rc;
		} else {
			have_dev = 1;
			rc = execute(&o, g, res, nres);
		}
	}
	if ((!rc || rc == EXIT_ERR) && (o.dry_run || have_dev) &&
	    !(o.emit && !strcmp(o.emit, "-"))) {
		if (o.json)
			print_json(&o, w, g, have_dev ? dev : NULL, res, nres);
		else
			print_text(&o, w, g, have_dev ? dev : NULL, res, nres);
	}
	free_results(res, nres, o.iterations);
	skip_workload_free(w);
	return rc;
}
