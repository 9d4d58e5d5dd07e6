/*
 * cmd_advise.c: `skip advise TRACE`: what to fuse, capture as a CUDA graph or spread over
 * streams, each with the gain a what-if model of the recording predicts (advisor/
 * skip_advisor.h); with --workload, a plan that `skip run --plan` executes, so the prediction
 * can be checked. docs/skip-advise.md describes the options and the output, and
 * docs/advise-model.md the models and their assumptions.
 */
#include <cjson/cJSON.h>
#include <stddef.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "skip_advisor.h"

static const char help[] =
    "usage: skip advise TRACE [--workload W.json [--size NAME]] [--region NAME] [--run N]\n"
    "                   [--lengths A-B] [--min-ps X] [--top K] [-o PLAN.json [--plan-of KIND]]\n"
    "                   [--json] [--profiled] [--calibration FILE.json] [--starts FILE.json]\n"
    "\n"
    "What to change in the recorded program, each with a predicted gain: a discrete-event\n"
    "model replays the recording (each thread's calls and the gaps between them, each stream\n"
    "in order, kernels as measured), checks that it reproduces the recorded time (the\n"
    "calibration error, printed with every answer), then replays it transformed: a region\n"
    "replayed as one CUDA graph or run as persistent kernels (each scheduling mode), a chain\n"
    "of kernels fused (SKIP's proximity score), or, for a recording of `skip run W.json\n"
    "--executor serial`, W's task graph on several streams (E2) or as one CUDA graph (E3),\n"
    "whose plan `skip run --plan` executes.\n"
    "\n"
    "  -w, --workload W.json  the trace is `skip run W.json --executor serial`: model W's\n"
    "                         executors and write the best as a plan (-o)\n"
    "  -s, --size NAME        W's size preset, as given to skip run --size\n"
    "  -R, --region NAME      model each occurrence of the NVTX range NAME (default: the\n"
    "                         whole run; graph candidates are then the NVTX ranges that\n"
    "                         repeat and the kernel sequence repeated between synchronizes)\n"
    "  -r, --run N            the run to advise on (default: the first; with --workload or\n"
    "                         --region, every run that holds the workload's iterations or\n"
    "                         the region, pooled: record with skip record --repeat N for\n"
    "                         steadier figures)\n"
    "  -l, --lengths A-B      fusion chain lengths (default 2-8; 2 to 16)\n"
    "  -m, --min-ps X         keep chains whose proximity score is at least X (default 1.0)\n"
    "  -k, --top K            chains to model and list (default 5)\n"
    "  -o, --output FILE      write the best executable plan (schemas/plan.schema.json);\n"
    "                         needs --workload\n"
    "      --plan-of KIND     with -o: write the plan of the item KIND (streams,\n"
    "                         dag-graph or persistent) instead of the best one\n"
    "  -j, --json             the advice as JSON\n"
    "      --profiled         predict a profiled run like the recording (default: the\n"
    "                         profiler's cost per launch is taken out)\n"
    "      --calibration FILE costs measured on this machine (JSON: graph_launch_ns, ...;\n"
    "                         docs/skip-advise.md), replacing the built-in H100 figures\n"
    "      --starts FILE      with --workload: what another kernel's start costs each task\n"
    "                         while it runs, its memory demand and its time in E5's workers,\n"
    "                         as `skip run W --probe-starts --json` writes them (default:\n"
    "                         none; the recorded kernel times)\n"
    "  -h, --help             show this help\n"
    "\n"
    "Exit status: 0 ok; 2 for a usage error or input that cannot be advised on (not a skip\n"
    "trace, a damaged one, no kernels, an unknown run or region, a workload the trace is not a\n"
    "run of, a bad calibration or start-cost file); 1 when out of memory or the plan cannot\n"
    "be written.\n"
    "\n"
    "Examples:\n"
    "  skip advise trace.skip.db --region step\n"
    "  skip record -o m1.db -- skip run bench/dags/m1.json --size small --executor serial\n"
    "  skip advise m1.db --workload bench/dags/m1.json --size small -o m1.plan.json\n"
    "  skip run bench/dags/m1.json --size small --plan m1.plan.json\n"
    "  skip advise m1.db --workload bench/dags/m1.json --size small -o m1.e5.json \\\n"
    "      --plan-of persistent\n";

struct advise_opts {
	struct skip_advise_opts a;
	const char *path, *output, *calibration, *starts;
	int plan_of; /* --plan-of: the advice kind whose plan -o writes; -1 the best */
	int json;
	char **start_tasks; /* --starts, owned */
	double *start_costs;
	double *start_demands;
	double *start_workers;
	char *starts_workload;
};

static int parse_lengths(struct advise_opts *o, const char *s)
{
	int a, b, n = 0;

	if (sscanf(s, "%d-%d%n", &a, &b, &n) == 2 && !s[n]) {
	} else if (sscanf(s, "%d%n", &a, &n) == 1 && !s[n]) {
		b = a;
	} else {
		return cli_usage_error("advise", "--lengths takes A-B or A (2 to 16); got '%s'", s);
	}
	if (a < 2 || b > 16 || a > b)
		return cli_usage_error("advise",
				       "--lengths takes A-B with 2 <= A <= B <= 16; got "
				       "'%s'",
				       s);
	o->a.min_len = a;
	o->a.max_len = b;
	return 0;
}

/* The advice kinds that give a plan (a workload's). */
static const enum skip_advice_kind plan_kinds[] = {SKIP_ADVICE_STREAMS, SKIP_ADVICE_DAGGRAPH,
						   SKIP_ADVICE_PERSIST};
#define NPLAN_KINDS (int)(sizeof(plan_kinds) / sizeof(plan_kinds[0]))

static int parse_plan_of(struct advise_opts *o, const char *arg)
{
	for (int i = 0; i < NPLAN_KINDS; i++)
		if (!strcmp(arg, skip_advice_kind_name(plan_kinds[i]))) {
			o->plan_of = (int)plan_kinds[i];
			return 0;
		}
	return cli_usage_error("advise",
			       "--plan-of takes streams, dag-graph or persistent, not '%s'", arg);
}

/* --plan-of: the item of that kind becomes the plan -o writes (and the one the text and JSON
 * mark); 0, or an exit code when none of that kind has a plan. */
static int pick_plan_of(const struct advise_opts *o, struct skip_advice_report *r)
{
	for (size_t i = 0; i < r->nitems; i++)
		if ((int)r->items[i].kind == o->plan_of && r->items[i].plan_json) {
			r->best_plan = (int)i;
			free(r->plan_note);
			r->plan_note = NULL;
			return 0;
		}
	fprintf(stderr,
		"skip advise: error: --plan-of %s: no such item with a plan (its model could not "
		"run on this workload; skip advise without -o lists the items)\n",
		skip_advice_kind_name((enum skip_advice_kind)o->plan_of));
	return EXIT_USAGE;
}

static int parse(int argc, char **argv, struct advise_opts *o)
{
	enum { OPT_PROFILED = 256, OPT_CALIBRATION, OPT_STARTS, OPT_PLAN_OF };
	static const struct option opts[] = {
	    {"workload", required_argument, NULL, 'w'},
	    {"size", required_argument, NULL, 's'},
	    CLI_PICK_LONGOPTS,
	    {"lengths", required_argument, NULL, 'l'},
	    {"min-ps", required_argument, NULL, 'm'},
	    {"top", required_argument, NULL, 'k'},
	    {"output", required_argument, NULL, 'o'},
	    {"json", no_argument, NULL, 'j'},
	    {"profiled", no_argument, NULL, OPT_PROFILED},
	    {"calibration", required_argument, NULL, OPT_CALIBRATION},
	    {"starts", required_argument, NULL, OPT_STARTS},
	    {"plan-of", required_argument, NULL, OPT_PLAN_OF},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	struct cli_pick pick = {0};
	int c, rc = 0;

	memset(o, 0, sizeof(*o));
	o->plan_of = -1;
	opterr = 0;
	optind = 1;
	while (!rc && (c = getopt_long(argc, argv, ":w:s:R:r:l:m:k:o:jh", opts, NULL)) != -1) {
		if (cli_pick_opt("advise", c, optarg, &pick, &rc))
			continue;
		switch (c) {
		case 'w':
			o->a.workload = optarg;
			break;
		case 's':
			o->a.size = optarg;
			break;
		case 'l':
			rc = parse_lengths(o, optarg);
			break;
		case 'm':
			rc = cli_real("advise", "--min-ps", optarg, 0, 1, 1, "a number in (0, 1]",
				      &o->a.min_ps);
			break;
		case 'k':
			rc = cli_int32("advise", "--top", optarg, 1, 1000, &o->a.top);
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'j':
			o->json = 1;
			break;
		case OPT_PROFILED:
			o->a.profiled = 1;
			break;
		case OPT_CALIBRATION:
			o->calibration = optarg;
			break;
		case OPT_STARTS:
			o->starts = optarg;
			break;
		case OPT_PLAN_OF:
			rc = parse_plan_of(o, optarg);
			break;
		case 'h':
			fputs(help, stdout);
			return -1;
		default: /* ':' a missing value, '?' an unknown option */
			return cli_bad_option("advise", c, argv);
		}
	}
	if (rc)
		return rc;
	o->a.run_id = pick.run_id;
	o->a.region = pick.region;
	if (optind != argc - 1)
		return cli_usage_error("advise",
				       optind >= argc ? "no trace file given"
						      : "one trace file only; got '%s' too",
				       argv[optind + 1 < argc ? optind + 1 : optind]);
	o->path = argv[optind];
	if (o->a.size && !o->a.workload)
		return cli_usage_error("advise", "--size needs --workload");
	if (o->plan_of >= 0 && !o->output)
		return cli_usage_error("advise", "--plan-of needs -o FILE");
	if (o->output && !o->a.workload)
		return cli_usage_error("advise",
				       "-o needs --workload: only a workload's task graph "
				       "becomes a plan that skip run executes");
	if (o->starts && !o->a.workload)
		return cli_usage_error("advise",
				       "--starts needs --workload (the costs are per task)");
	if (o->a.workload && o->a.region)
		return cli_usage_error("advise", "--region and --workload do not go together (a "
						 "workload run is cut into its iterations)");
	return 0;
}

/* --starts: skip run --probe-starts --json's "workload" and "start_costs" (task,
 * start_cost_ns, and where present alone_ns and pair_ns: the task's memory demand,
 * skip_memory_demand(); worker_ns: its time in E5's workers) into @o's arrays. */
static int load_starts(const char *path, struct advise_opts *o)
{
	cJSON *root = NULL, *arr, *it, *w;
	int err = skip_json_load(path, &root), n = 0;

	if (err)
		return err;
	arr = cJSON_GetObjectItemCaseSensitive(root, "start_costs");
	w = cJSON_GetObjectItemCaseSensitive(root, "workload");
	if (!cJSON_IsArray(arr) || !cJSON_IsString(w)) {
		cJSON_Delete(root);
		return sk_fail(SKIP_E_INVAL,
			       "%s: not the output of skip run --probe-starts --json "
			       "(no \"workload\" and \"start_costs\")",
			       path);
	}
	o->starts_workload = sk_xstrdup(w->valuestring);
	o->start_tasks = sk_xcalloc((size_t)cJSON_GetArraySize(arr) + 1, sizeof(char *));
	o->start_costs = sk_xcalloc((size_t)cJSON_GetArraySize(arr) + 1, sizeof(double));
	o->start_demands = sk_xcalloc((size_t)cJSON_GetArraySize(arr) + 1, sizeof(double));
	o->start_workers = sk_xcalloc((size_t)cJSON_GetArraySize(arr) + 1, sizeof(double));
	cJSON_ArrayForEach(it, arr)
	{
		cJSON *t = cJSON_GetObjectItemCaseSensitive(it, "task"),
		      *c = cJSON_GetObjectItemCaseSensitive(it, "start_cost_ns"),
		      *a = cJSON_GetObjectItemCaseSensitive(it, "alone_ns"),
		      *p = cJSON_GetObjectItemCaseSensitive(it, "pair_ns"),
		      *wk = cJSON_GetObjectItemCaseSensitive(it, "worker_ns");

		if (!cJSON_IsString(t) || !cJSON_IsNumber(c) || c->valuedouble < 0 ||
		    (a && !cJSON_IsNumber(a)) || (p && !cJSON_IsNumber(p)) ||
		    (wk && !cJSON_IsNumber(wk))) {
			err = sk_fail(SKIP_E_INVAL,
				      "%s: start_costs[%d]: needs \"task\" (a name) "
				      "and \"start_cost_ns\" (a number >= 0); \"alone_ns\", "
				      "\"pair_ns\" and \"worker_ns\", where present, are numbers",
				      path, n);
			break;
		}
		o->start_tasks[n] = sk_xstrdup(t->valuestring);
		o->start_demands[n] =
		    a && p ? skip_memory_demand(a->valuedouble, p->valuedouble) : 0;
		o->start_workers[n] = wk ? wk->valuedouble : 0;
		o->start_costs[n++] = c->valuedouble;
	}
	cJSON_Delete(root);
	o->a.start_tasks = (const char *const *)o->start_tasks;
	o->a.start_costs_ns = o->start_costs;
	o->a.start_demands = o->start_demands;
	o->a.start_worker_ns = o->start_workers;
	o->a.nstarts = n;
	o->a.starts_workload = o->starts_workload;
	return err;
}

static void free_starts(struct advise_opts *o)
{
	for (int i = 0; o->start_tasks && o->start_tasks[i]; i++)
		free(o->start_tasks[i]);
	free(o->start_tasks);
	free(o->start_costs);
	free(o->start_demands);
	free(o->start_workers);
	free(o->starts_workload);
}

/* ---- text output ----------------------------------------------------------------------------- */

/* @text in lines of at most @width columns, the first continuing the current line (at column
 * @indent), the others indented by @indent. */
static void wrap(const char *text, int indent, int width)
{
	int col = indent;

	while (*text) {
		int n = (int)strcspn(text, " ");

		if (col > indent && col + 1 + n > width) {
			printf("\n%*s", indent, "");
			col = indent;
		} else if (col > indent) {
			putchar(' ');
			col++;
		}
		printf("%.*s", n, text);
		col += n;
		text += n;
		while (*text == ' ')
			text++;
	}
	putchar('\n');
}

static void print_text(const struct advise_opts *o, const struct skip_advice_report *r)
{
	char a[32], b[32], c[32];

	printf("skip advise: %s, run %lld", o->path, (long long)r->run_id);
	if (r->runs > 1)
		printf(" and %zu more, %s%s%s (%zu %s of %zu runs, pooled)", r->runs - 1,
		       r->workload ? "workload '" : "NVTX region '",
		       r->workload ? r->workload : r->region, "'", r->regions,
		       r->workload ? "iterations" : "occurrences", r->runs);
	else if (r->workload)
		printf(", workload '%s' (%zu iteration%s)", r->workload, r->regions,
		       r->regions == 1 ? "" : "s");
	else if (r->region)
		printf(", NVTX region '%s' (%zu occurrence%s)", r->region, r->regions,
		       r->regions == 1 ? "" : "s");
	printf("\n\nmodel check: recorded %s, model %s: calibration error %.1f%%%s\n",
	       cli_dur(a, sizeof(a), r->recorded_il_ns), cli_dur(b, sizeof(b), r->replay_il_ns),
	       100 * r->calibration_error,
	       r->workload	? " (of the median iteration)"
	       : r->regions > 1 ? " (medians over the regions)"
				: "");
	if (!strcmp(r->unprofiled_source, "uncaptured") && r->uncaptured_before)
		printf(
		    "predictions are for an unprofiled run; its time now (%s) is the median wall "
		    "interval of\n'%s' in the %zu occurrences before the first capture range (the "
		    "same process, not yet recorded)\n",
		    cli_dur(a, sizeof(a), r->unprofiled_ns), r->region, r->uncaptured);
	else if (!strcmp(r->unprofiled_source, "uncaptured"))
		printf(
		    "predictions are for an unprofiled run; its time now (%s) is the median wall "
		    "interval of\n'%s' in the %zu occurrence%s outside the capture ranges (the "
		    "same process, not recorded;\nfewer than %d before the first range: after "
		    "one a process runs slower, so this may be high)\n",
		    cli_dur(a, sizeof(a), r->unprofiled_ns), r->region, r->uncaptured,
		    r->uncaptured == 1 ? "" : "s", SKIP_ADVISE_BEFORE_MIN);
	else if (!strcmp(r->unprofiled_source, "baseline"))
		printf(
		    "predictions are for an unprofiled run; its time now (%s) is the median wall "
		    "interval of\n'%s' in %zu baseline run%s (skip record --baseline)\n",
		    cli_dur(a, sizeof(a), r->unprofiled_ns), r->region, r->baseline_runs,
		    r->baseline_runs == 1 ? "" : "s");
	else if (!r->profiled && !r->workload && r->profiler_launch_ns >= 0)
		printf("predictions are for an unprofiled run (estimated: the profiler's cost per "
		       "launch "
		       "taken out:\n%.0f ns per runtime launch, measured on the recording's launch "
		       "loop)\n",
		       r->profiler_launch_ns);
	else if (!r->profiled && !r->workload)
		printf("predictions are for an unprofiled run (estimated: the profiler's cost per "
		       "launch taken out:\n%.0f ns per recorded call x %.2f calls recorded per "
		       "launch)\n",
		       r->cal.profiler_launch_ns, r->calls_per_launch);
	else
		printf("predictions are for %s run\n",
		       r->profiled ? "a profiled"
				   : "an unprofiled (the profiler's cost per launch taken out)");
	if (r->unprofiled_note)
		printf("note: %s\n", r->unprofiled_note);
	else if (r->region && !r->profiled && !strcmp(r->unprofiled_source, "estimate"))
		printf("hint: to measure it, record with --capture-range nvtx:%s:11 (its first 10 "
		       "occurrences run\nunrecorded and give the time now) or with --repeat 2 "
		       "--baseline\n",
		       r->region);
	if (!r->nitems) {
		printf("\nno advice: nothing the model can improve was found\n");
	} else {
		printf("\n  #  %-12s %12s %12s %8s %12s  advice [assumptions]\n", "kind", "now",
		       "predicted", "speedup", "saved");
	}
	for (size_t i = 0; i < r->nitems; i++) {
		const struct skip_advice *it = &r->items[i];
		size_t note = 0;

		while (note < i && strcmp(r->items[note].assumptions, it->assumptions))
			note++; /* the first item with the same assumptions names the note */
		printf("%3zu  %-12s %12s %12s %7.2fx %12s  %s [%c]%s\n", i + 1,
		       skip_advice_kind_name(it->kind), cli_dur(a, sizeof(a), it->baseline_il_ns),
		       cli_dur(b, sizeof(b), it->predicted_il_ns), it->speedup,
		       cli_dur(c, sizeof(c), it->saved_ns), it->title, 'a' + (int)(note % 26),
		       (int)i == r->best_plan ? "  <- the plan" : "");
	}
	if (r->plan_note)
		printf("note: %s\n", r->plan_note);
	if (r->fusion_no_gain)
		printf("note: %zu of the top fusion chains %s predicted to save nothing (the "
		       "launches fusing removes are not what the region waits for): not listed\n",
		       r->fusion_no_gain, r->fusion_no_gain == 1 ? "is" : "are");
	for (size_t i = 0; i < r->nitems; i++) {
		size_t note = 0;

		while (note < i && strcmp(r->items[note].assumptions, r->items[i].assumptions))
			note++;
		if (note == i) {
			printf("%s[%c] assumes: ", i ? "" : "\n", 'a' + (int)(i % 26));
			wrap(r->items[i].assumptions, 13, 96);
		}
	}
	if (r->nchains) {
		size_t top = o->a.top ? (size_t)o->a.top : 5;

		printf(
		    "\nfusion candidates (PS >= %.2f, by recoverable launch time): %s%zu of %zu\n",
		    o->a.min_ps > 0 ? o->a.min_ps : 1.0, top < r->nchains ? "the top " : "",
		    top < r->nchains ? top : r->nchains, r->nchains);
		printf("  %5s %4s %8s %6s %12s  kernels (short names; a chain is of full names)\n",
		       "chain", "len", "count", "PS", "recoverable");
	}
	for (size_t i = 0; i < r->nchains && (int)i < (o->a.top ? o->a.top : 5); i++) {
		const struct skip_chain *ch = &r->chains[i];

		printf("  %5zu %4d %8lld %6.2f %12s  ", i + 1, ch->len, (long long)ch->count,
		       ch->ps, cli_dur(a, sizeof(a), ch->recoverable_ns));
		for (int k = 0; k < ch->len; k++)
			printf("%s%s", k ? " -> " : "", ch->names[k]);
		printf("\n");
	}
}

static int write_plan(const struct advise_opts *o, const struct skip_advice_report *r,
		      struct skip_outfile *out)
{
	const char *path = o->output;
	char *s = skip_advice_plan(r);

	if (!s) {
		fprintf(stderr, "skip advise: error: %s\n", skip_errmsg());
		skip_outfile_abort(out);
		return EXIT_USAGE;
	}
	fprintf(out->f, "%s\n", s);
	free(s);
	if (skip_outfile_commit(out)) {
		fprintf(stderr, "skip advise: error: %s\n", skip_errmsg());
		return EXIT_ERR;
	}
	if (strcmp(path, "-"))
		fprintf(stderr,
			"skip advise: plan (%s, predicted %.2fx) written to %s; run it with "
			"`skip run %s%s%s --plan %s`\n",
			skip_advice_kind_name(r->items[r->best_plan].kind),
			r->items[r->best_plan].speedup, path, o->a.workload,
			o->a.size ? " --size " : "", o->a.size ? o->a.size : "", path);
	return 0;
}

int cmd_advise(int argc, char **argv)
{
	struct advise_opts o;
	struct skip_trace *t = NULL;
	struct skip_advice_report *r = NULL;
	struct skip_outfile out = {0};
	int err = parse(argc, argv, &o);

	if (err)
		return err < 0 ? EXIT_OK : err;
	if (o.output) {
		const char *inputs[] = {o.path, o.a.workload, o.calibration, o.starts};

		err = skip_outfile_open(&out, o.output, SKIP_OUT_PLAN, 1, inputs, 4);
		if (err)
			return cli_output_error("advise", err);
	}
	if ((o.calibration && (err = cli_load_calibration(o.calibration, &o.a.cal))) ||
	    (o.starts && (err = load_starts(o.starts, &o)))) {
		fprintf(stderr, "skip advise: error: %s\n", skip_errmsg());
		free_starts(&o);
		skip_outfile_abort(&out);
		return EXIT_USAGE;
	}
	err = skip_trace_open(o.path, &t);
	if (!err)
		err = skip_advise(t, &o.a, &r);
	if (err) {
		fprintf(stderr, "skip advise: error: %s\n", skip_errmsg());
		skip_trace_close(t);
		free_starts(&o);
		skip_outfile_abort(&out);
		return err == SKIP_E_NOMEM ? EXIT_ERR : EXIT_USAGE;
	}
	r->path = sk_xstrdup(o.path);
	if (o.plan_of >= 0 && (err = pick_plan_of(&o, r))) {
		skip_advice_free(r);
		skip_trace_close(t);
		free_starts(&o);
		skip_outfile_abort(&out);
		return err;
	}
	if (o.json) {
		char *s = skip_advice_json(r);

		if (!s) {
			fprintf(stderr, "skip advise: error: out of memory\n");
			err = EXIT_ERR;
		} else {
			printf("%s\n", s);
			free(s);
		}
	} else {
		print_text(&o, r);
	}
	if (o.output && !err)
		err = write_plan(&o, r, &out);
	else if (o.output)
		skip_outfile_abort(&out);
	skip_advice_free(r);
	skip_trace_close(t);
	free_starts(&o);
	return err;
}
