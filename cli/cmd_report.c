/*
 * cmd_report.c: `skip report FILE`: where the time between the CPU and the GPU goes.
 *
 * Runs the analyzer (analyzer/skip_analyzer.h) and prints the verdict first, then the metrics
 * (one column, or median/mean/min/max/stdev across runs or region occurrences), the idle
 * attribution, and the top kernels and operators; or, with --json, the report as
 * schemas/report.schema.json describes it. docs/skip-report.md defines every number.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "skip_advisor.h"
#include "skip_analyzer.h"
#include "skip_export.h"

static const char help[] =
    "usage: skip report FILE [--run N] [--region NAME] [--top K] [--threshold X]\n"
    "                        [--param NAME] [--knee-eps X] [--json] [--html OUT.html]\n"
    "                        [--no-color]\n"
    "\n"
    "Where the time between the CPU and the GPU goes: TKLQT and its launch (t_api) and queue\n"
    "(t_queue) parts, AKD, IL, GPU busy and idle, idle split into host wait, sync stall and\n"
    "device latency, and the CPU/GPU-bound verdict, per run or per NVTX range occurrence, with\n"
    "median, mean, min, max and stdev across them; top kernels and operators (NVTX ranges).\n"
    "\n"
    "  -r, --run N          analyze run N only (default: every run, e.g. repetitions)\n"
    "  -R, --region NAME    one region per occurrence of the NVTX range NAME (default: each\n"
    "                       run is one region)\n"
    "  -k, --top K          length of the top lists (default 10)\n"
    "  -t, --threshold X    host-side share of IL at or above which a region is CPU-bound\n"
    "                       (default 0.5)\n"
    "  -p, --param NAME     the swept parameter (default: the first numeric --sweep\n"
    "                       parameter with two values or more); a sweep adds a table per\n"
    "                       value and the CPU/GPU-bound crossover, found two ways\n"
    "  -e, --knee-eps X     TKLQT knee: the rise over the plateau that counts (default 0.2)\n"
    "  -j, --json           the report as JSON (schemas/report.schema.json)\n"
    "      --html OUT.html  also write the report as a self-contained HTML page, with SVG\n"
    "                       charts (for a sweep: IL, TKLQT and host-side share against the\n"
    "                       parameter, the crossover marked)\n"
    "      --no-color       no colors (also when NO_COLOR is set or stdout is not a terminal)\n"
    "  -h, --help           show this help\n"
    "\n"
    "Definitions: docs/skip-report.md. Exit status: 0 ok; 2 for a usage error or a file that\n"
    "cannot be analyzed (missing, not a skip trace, newer, damaged, no such run or region,\n"
    "nothing recorded); 1 on other errors.\n";

struct report_opts {
	struct skip_analysis_opts a;
	const char *path;
	const char *html;
	int json;
	int color;
};

static int parse(int argc, char **argv, struct report_opts *o)
{
	enum { OPT_NO_COLOR = 256, OPT_HTML };
	static const struct option opts[] = {
	    CLI_PICK_LONGOPTS,
	    {"top", required_argument, NULL, 'k'},
	    {"threshold", required_argument, NULL, 't'},
	    {"param", required_argument, NULL, 'p'},
	    {"knee-eps", required_argument, NULL, 'e'},
	    {"json", no_argument, NULL, 'j'},
	    {"no-color", no_argument, NULL, OPT_NO_COLOR},
	    {"html", required_argument, NULL, OPT_HTML},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	struct cli_pick pick = {0};
	int c, rc = 0;

	memset(o, 0, sizeof(*o));
	o->color = isatty(STDOUT_FILENO) && !getenv("NO_COLOR");
	optind = 1;
	opterr = 0;
	while (!rc && (c = getopt_long(argc, argv, ":r:R:k:t:p:e:jh", opts, NULL)) != -1) {
		if (cli_pick_opt("report", c, optarg, &pick, &rc))
			continue;
		switch (c) {
		case 'k':
			rc = cli_int32("report", "--top", optarg, 1, 1000, &o->a.top_k);
			break;
		case 't':
			rc = cli_real("report", "--threshold", optarg, 0, 1, 0,
				      "a fraction between 0 and 1 (0.5 = 50%)", &o->a.threshold);
			break;
		case 'p':
			o->a.param = optarg;
			break;
		case 'e':
			rc = cli_real("report", "--knee-eps", optarg, 0, 10, 0,
				      "a number between 0 and 10 (0.2 = 20%)", &o->a.knee_eps);
			break;
		case 'j':
			o->json = 1;
			break;
		case OPT_NO_COLOR:
			o->color = 0;
			break;
		case OPT_HTML:
			o->html = optarg;
			break;
		case 'h':
			fputs(help, stdout);
			return -1;
		default: /* ':' a missing value, '?' an unknown option */
			return cli_bad_option("report", c, argv);
		}
	}
	if (rc)
		return rc;
	o->a.run_id = pick.run_id;
	o->a.region = pick.region;
	if (optind != argc - 1)
		return cli_usage_error("report", optind >= argc ? "no trace file given"
								: "expected one trace file");
	o->path = argv[optind];
	return 0;
}

/* ---- formatting ---------------------------------------------------------------------------- */

static const char *fmt_value(char *buf, size_t n, enum skip_metric_id id, double v)
{
	const char *unit = skip_metric_unit(id);

	if (!strcmp(unit, "ns"))
		return cli_dur(buf, n, v);
	if (!strcmp(unit, "ratio"))
		snprintf(buf, n, "%.1f%%", v * 100);
	else if (!strcmp(unit, "1/s"))
		snprintf(buf, n,
			 v >= 1e6   ? "%.2f M"
			 : v >= 1e3 ? "%.1f k"
				    : "%.0f",
			 v >= 1e6   ? v / 1e6
			 : v >= 1e3 ? v / 1e3
				    : v);
	else if (v == floor(v))
		cli_group(buf, n, (long long)v);
	else
		snprintf(buf, n, "%.1f", v);
	return buf;
}

/* A '*' in a label marks a figure the recording inflates (docs/skip-report.md "Recording
 * cost"). */
static const struct {
	enum skip_metric_id id;
	const char *label;
	const char *note;
} rows[] = {
    {SKIP_M_IL, "IL *", "first operator or launch call to last GPU end"},
    {SKIP_M_TKLQT, "TKLQT *", "sum of t_launch = kernel start - launch call start"},
    {SKIP_M_T_API, "  sum t_api *", "launch calls on the host"},
    {SKIP_M_T_QUEUE, "  sum t_queue", "launch call end to kernel start"},
    {SKIP_M_TKLQT_PER_KERNEL, "TKLQT per kernel", NULL},
    {SKIP_M_AKD, "AKD", "average kernel duration"},
    {SKIP_M_BUSY, "GPU busy", "union of kernel, memcpy, memset time"},
    {SKIP_M_IDLE, "GPU idle", "IL - busy"},
    {SKIP_M_HOST_WAIT, "  host wait", "launch not yet issued by the host"},
    {SKIP_M_SYNC_STALL, "  sync stall", "host wait right after a synchronization"},
    {SKIP_M_DEVICE_LATENCY, "  device latency", "launch issued, GPU not started yet"},
    {SKIP_M_LAUNCH_LATENCY, "    of late launches", "issued after the GPU went idle"},
    {SKIP_M_IL_MINUS_KERNEL, "IL - sum(kernel)", "the SKIP paper's idle"},
    {SKIP_M_HOST_SHARE, "host-side share *", "(host wait + sync stall + late launches) / IL"},
    {SKIP_M_KERNELS, "kernels", NULL},
    {SKIP_M_LAUNCHES_PER_S, "kernels/s", "kernels / IL"},
    {SKIP_M_SHORT_KERNELS, "short kernels", "shorter than the median t_api"},
    {SKIP_M_NEG_QUEUE, "negative t_queue", "kernel started before its launch call returned"},
    {SKIP_M_NEG_LAUNCH, "negative t_launch", "clock noise"},
    {SKIP_M_NO_API, "no launch call", "kernels with no launch call recorded"},
};

static void print_metrics(const struct skip_report *r)
{
	int multi = r->stats[SKIP_M_IL].n > 1;
	char a[32], b[32], c[32], d[32], e[32];

	if (multi)
		printf("\n  %-20s %10s %10s %10s %10s %10s\n", "", "median", "mean", "min", "max",
		       "stdev");
	else
		printf("\n");
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct skip_stat *s = &r->stats[rows[i].id];

		if (multi) {
			printf("  %-20s %10s %10s %10s %10s %10s\n", rows[i].label,
			       fmt_value(a, sizeof(a), rows[i].id, s->median),
			       fmt_value(b, sizeof(b), rows[i].id, s->mean),
			       fmt_value(c, sizeof(c), rows[i].id, s->min),
			       fmt_value(d, sizeof(d), rows[i].id, s->max),
			       fmt_value(e, sizeof(e), rows[i].id, s->stdev));
		} else {
			printf("  %-20s %10s%s%s\n", rows[i].label,
			       fmt_value(a, sizeof(a), rows[i].id, s->median),
			       rows[i].note ? "   " : "", rows[i].note ? rows[i].note : "");
		}
	}
}

/* One row of a top list; @suffix after the name (operators' attribution). */
static void print_name_row(int w, const struct skip_name_stat *v, const char *name,
			   const char *suffix, int64_t all_ns, int operators)
{
	char a[32], b[32], c[32], label[256];

	snprintf(label, sizeof(label), "%s%s", name, suffix);
	printf("  %-*.*s %10s %10s %10s %6.1f%%\n", w, w, label, cli_group(a, sizeof(a), v->count),
	       cli_dur(b, sizeof(b), (double)v->total_ns),
	       operators
		   ? cli_dur(c, sizeof(c), (double)v->launch_ns)
		   : cli_dur(c, sizeof(c), v->count ? (double)v->total_ns / (double)v->count : 0),
	       all_ns ? 100.0 * (double)v->total_ns / (double)all_ns : 0);
}

/* The width of the name column: the longest name (operators: with its suffix), at least @w,
 * at most 60. */
static int name_width(const struct skip_name_stat *v, size_t n, int operators, int w)
{
	for (size_t i = 0; i < n; i++) {
		int len = (int)(strlen(v[i].name) +
				(operators ? strlen(skip_attr_suffix(v[i].attr)) : 0));

		w = len > w ? len : w;
	}
	return w > 60 ? 60 : w;
}

static int print_names(const char *title, const char *what, const struct skip_name_stat *v,
		       size_t n, int64_t all_ns, int operators, int min_w)
{
	int w = name_width(v, n, operators, min_w);

	if (!n)
		return w;
	printf("\n%s\n  %-*s %10s %10s %10s %7s\n", title, w, what, "kernels",
	       operators ? "GPU time" : "total", operators ? "launch" : "mean", "share");
	for (size_t i = 0; i < n; i++)
		print_name_row(w, &v[i], v[i].name, operators ? skip_attr_suffix(v[i].attr) : "",
			       all_ns, operators);
	return w;
}

/* The operator table: the top operators, the others together, and the kernels with none, so
 * that the counts add up to the kernels of the report's regions. */
static void print_operators(const struct skip_report *r, int64_t all_ns)
{
	char rest[64] = "";
	int w;

	if (!r->ntop_ops) {
		printf("\nNo operators: no kernel was launched inside an NVTX range (PyTorch: "
		       "torch.cuda.nvtx.range or emit_nvtx).\n");
		return;
	}
	if (r->nops_rest)
		snprintf(rest, sizeof(rest), "(%zu other operators)", r->nops_rest);
	w = print_names("Top operators (innermost NVTX range at launch) by GPU time", "operator",
			r->top_ops, r->ntop_ops, all_ns, 1,
			strlen(rest) > 12 ? (int)strlen(rest) : 12);
	if (r->nops_rest)
		print_name_row(w, &r->ops_rest, rest, "", all_ns, 1);
	print_name_row(w, &r->ops_none, "(none)", "", all_ns, 1);
	if (r->kernels_by_attr[SKIP_ATTR_SEQ] || r->kernels_by_attr[SKIP_ATTR_OTHER])
		printf(
		    "  (other thread): launched with no range open on its thread; the range open "
		    "on another\n  thread of the process then (seq: the thread that PyTorch's "
		    "sequence numbers name)\n");
}

static void print_regions(const struct skip_report *r)
{
	char a[32], b[32];

	if (r->nregions < 2)
		return;
	if (r->nregions > 20) {
		printf("\n%zu regions (%zu empty); --json lists each one\n", r->nregions,
		       r->nempty);
		return;
	}
	printf("\n  %-5s %-10s %10s %10s %8s  %s\n", "run", "occurrence", "IL", "TKLQT", "host",
	       "verdict");
	for (size_t i = 0; i < r->nregions; i++) {
		const struct skip_metrics *m = &r->regions[i].m;

		printf("  %-5lld %-10d %10s %10s %7.1f%%  %s\n", (long long)r->regions[i].run_id,
		       r->regions[i].occurrence, cli_dur(a, sizeof(a), (double)m->il_ns),
		       cli_dur(b, sizeof(b), (double)m->tklqt_ns), m->host_share * 100,
		       skip_verdict_name(m->verdict));
	}
}

static const char *num(char *buf, size_t n, double v)
{
	snprintf(buf, n, v == floor(v) && fabs(v) < 1e15 ? "%.0f" : "%.3g", v);
	return buf;
}

static void print_crossing_verdict(const struct skip_sweep *s, const char *on, const char *off)
{
	const struct skip_crossing *f = &s->flip;
	char a[32], b[32], c[32];

	if (f->found)
		printf("%sverdict: CPU-bound up to %s ~ %s, GPU-bound above%s (the host-side share "
		       "falls below %.0f%% between %s %s and %s)\n",
		       on, s->param, num(a, sizeof(a), f->value), off, f->threshold * 100, s->param,
		       num(b, sizeof(b), s->pts[f->lo].value),
		       num(c, sizeof(c), s->pts[f->hi].value));
	else if (s->npts && s->pts[0].verdict == SKIP_VERDICT_CPU_BOUND)
		printf("%sverdict: CPU-bound at every %s from %s to %s%s (no crossover in the "
		       "sweep)\n",
		       on, s->param, num(a, sizeof(a), s->pts[0].value),
		       num(b, sizeof(b), s->pts[s->npts - 1].value), off);
	else
		printf(
		    "%sverdict: GPU-bound from the first %s (%s)%s (no crossover in the sweep)\n",
		    on, s->param, s->npts ? num(a, sizeof(a), s->pts[0].value) : "-", off);
}

/* What a capture-range recording holds (skip record --capture-range @spec). */
static void print_capture(const char *spec)
{
	struct skip_capture c;

	if (skip_capture_parse(spec, &c) || c.mode != SKIP_CAPTURE_NVTX)
		printf("recorded: only between cudaProfilerStart and cudaProfilerStop "
		       "(--capture-range %s): figures cover the capture ranges\n",
		       spec);
	else if (c.count)
		printf("recorded: only occurrences %llu to %llu of the NVTX range '%s' "
		       "(--capture-range %s): figures cover the capture range\n",
		       (unsigned long long)c.first, (unsigned long long)(c.first + c.count - 1),
		       c.name, spec);
	else
		printf("recorded: only from occurrence %llu of the NVTX range '%s' on "
		       "(--capture-range %s): figures cover the capture range\n",
		       (unsigned long long)c.first, c.name, spec);
}

static void print_sweep(const struct skip_report *r)
{
	const struct skip_sweep *s = r->sweep;
	const struct skip_crossing *f = &s->flip, *k = &s->knee;
	char a[32], b[32], c[32], d[32], e[32], g[32], h[32], i2[32];

	printf("\nSweep over '%s' (median per value over its runs' regions)\n", s->param);
	printf("  %8s %5s %10s %10s %10s %10s %10s %10s %8s %8s  %s\n", s->param, "runs", "IL",
	       "TKLQT", "TKLQT/k", "AKD", "busy", "idle", "host", "kernels", "verdict");
	for (size_t i = 0; i < s->npts; i++) {
		const struct skip_sweep_point *p = &s->pts[i];

		printf("  %8s %5d %10s %10s %10s %10s %10s %10s %7.1f%% %8s  %s\n",
		       num(a, sizeof(a), p->value), p->runs, cli_dur(b, sizeof(b), p->il_ns),
		       cli_dur(c, sizeof(c), p->tklqt_ns),
		       cli_dur(d, sizeof(d), p->tklqt_per_kernel_ns),
		       cli_dur(e, sizeof(e), p->akd_ns), cli_dur(g, sizeof(g), p->busy_ns),
		       cli_dur(h, sizeof(h), p->idle_ns), p->host_share * 100,
		       num(i2, sizeof(i2), p->kernels), skip_verdict_name(p->verdict));
	}
	printf("\nCrossover\n  verdict flip: ");
	if (f->found)
		printf(
		    "%s ~ %s: the host-side share falls from %.1f%% at %s to %.1f%% at %s, below "
		    "the %.0f%% threshold (interpolated on log2 %s)\n",
		    s->param, num(a, sizeof(a), f->value), s->pts[f->lo].host_share * 100,
		    num(b, sizeof(b), s->pts[f->lo].value), s->pts[f->hi].host_share * 100,
		    num(c, sizeof(c), s->pts[f->hi].value), f->threshold * 100, s->param);
	else
		printf("none: the host-side share stays %s the %.0f%% threshold\n",
		       s->npts && s->pts[0].host_share >= f->threshold ? "at or above" : "below",
		       f->threshold * 100);
	if (f->flips > 1)
		printf("    note: the verdict changes %d times along the sweep (not monotone)\n",
		       f->flips);
	printf("  TKLQT knee:   ");
	if (!k->plateau_points)
		printf("not computed: at least 3 values are needed\n");
	else if (k->found)
		printf("%s ~ %s: TKLQT leaves its plateau (median of the first %d values: %s) past "
		       "%.0f%% above it (%s) for good, between %s (%s) and %s (%s)\n",
		       s->param, num(a, sizeof(a), k->value), k->plateau_points,
		       cli_dur(b, sizeof(b), k->plateau), k->epsilon * 100,
		       cli_dur(c, sizeof(c), k->threshold), num(d, sizeof(d), s->pts[k->lo].value),
		       cli_dur(e, sizeof(e), s->pts[k->lo].tklqt_ns),
		       num(g, sizeof(g), s->pts[k->hi].value),
		       cli_dur(h, sizeof(h), s->pts[k->hi].tklqt_ns));
	else
		printf("none: TKLQT %s (plateau %s, threshold %s)\n",
		       s->npts && s->pts[s->npts - 1].tklqt_ns > k->threshold
			   ? "rises from the first values: no plateau"
			   : "does not rise for good above its plateau",
		       cli_dur(a, sizeof(a), k->plateau), cli_dur(b, sizeof(b), k->threshold));
	printf("  %s\n", s->agree ? (f->found ? "the two rules agree (within a factor of 2)"
					      : "the two rules agree: no crossover")
				  : "the two rules DISAGREE: read both with their inputs above");
}

/* The sweep's graph-gain table (skip_report_add_graph_gain()), when it was filled. */
static void print_sweep_graph(const struct report_opts *o, const struct skip_sweep *s)
{
	char a[32], b[32], c[32], d[32], e[32];

	if (!s->graph)
		return;
	printf("\nPredicted gain of replaying %s as one CUDA graph, or as persistent kernels "
	       "(skip advise's model; docs/skip-advise.md)\n",
	       o->a.region ? "each region occurrence" : "each run");
	printf("  %8s %10s %10s %8s %12s %10s %8s %12s %7s %8s\n", s->param, "IL", "model",
	       "cal.err", "unprofiled", "as graph", "gain", "persistent", "mode", "gain");
	for (size_t i = 0; i < s->graph->nrows; i++) {
		const struct skip_graph_gain *g = &s->graph->rows[i];

		printf("  %8g %10s %10s %7.1f%% %12s %10s %7.2fx %12s %7s %7.2fx\n", g->value,
		       cli_dur(a, sizeof(a), g->il_ns), cli_dur(b, sizeof(b), g->model_ns),
		       100 * g->calibration_error, cli_dur(c, sizeof(c), g->unprofiled_ns),
		       cli_dur(d, sizeof(d), g->graph_ns), g->gain,
		       cli_dur(e, sizeof(e), g->persist_ns), g->persist_mode, g->persist_gain);
	}
	printf("  (IL and model: recorded and replayed, with the profiler; unprofiled: the model "
	       "without its cost per launch; gain: unprofiled / as graph, unprofiled / as "
	       "persistent kernels in the fastest mode)\n");
}

/* What the trace's source (skip import) did not record, and what the report does instead. */
static void print_cost_kind(const char *kind, const struct skip_cost_kind *k)
{
	char a[32], b[32], c[32];

	printf("    %-9s %3d run%s  %3d-%-3d per run  wall %10s  [%s .. %s]\n", kind, k->runs,
	       k->runs == 1 ? " " : "s", k->per_run_min, k->per_run_max,
	       k->occurrences ? cli_dur(a, sizeof(a), k->wall_ns) : "-",
	       k->occurrences ? cli_dur(b, sizeof(b), k->wall_min_ns) : "-",
	       k->occurrences ? cli_dur(c, sizeof(c), k->wall_max_ns) : "-");
}

/* The recording's cost per configuration (docs/skip-report.md "Recording cost"). */
static void print_cost(const struct skip_report *r)
{
	const struct skip_recording_cost *c = r->cost;

	printf("\n* inflated by the recording, as recorded (docs/skip-report.md \"Recording "
	       "cost\")\n");
	if (!c)
		return;
	if (!c->region && c->capture) {
		struct skip_capture cap;

		if (!skip_capture_parse(r->capture_range, &cap) && cap.mode == SKIP_CAPTURE_NVTX)
			printf("Recording cost: the file has a capture range; give --region %s to "
			       "compare its wall interval with and without the recording, in the "
			       "same process\n",
			       cap.name);
		else
			printf(
			    "Recording cost: the file has capture ranges; give --region NAME (an "
			    "NVTX range inside and outside them) to compare its wall interval "
			    "with and without the recording, in the same process\n");
		return;
	}
	if (!c->region) {
		printf(
		    "Recording cost: the file has %lld baseline run%s; give --region NAME (an NVTX "
		    "range every run has) to compare its wall interval with and without the "
		    "recording\n",
		    (long long)c->baseline_runs, c->baseline_runs == 1 ? "" : "s");
		return;
	}
	printf("\nRecording cost of '%s' (wall interval of the range: median over the occurrences, "
	       "[least .. most] of the runs' medians)%s\n",
	       c->region,
	       c->capture ? ", inside the capture ranges against outside them, in the same runs"
			  : "");
	for (size_t i = 0; i < c->nrows; i++) {
		const struct skip_cost_row *w = &c->rows[i];

		printf("  %s\n", w->config[0] ? w->config : "(no parameters)");
		print_cost_kind(c->capture ? "captured" : "full", &w->full);
		print_cost_kind(c->capture ? "outside" : "baseline", &w->baseline);
		if (w->first.occurrences) /* of them, before the run's first range */
			print_cost_kind("  before", &w->first);
		if (w->problem) {
			printf("    no ratio: %s\n", w->problem);
			continue;
		}
		printf("    recorded / %s %.3fx", c->capture ? "unrecorded" : "baseline", w->ratio);
		if (w->pairs)
			printf("  [%.3f .. %.3f over %d %s%s]", w->ratio_min, w->ratio_max,
			       w->pairs, c->capture ? "run" : "interleaved pair",
			       w->pairs == 1 ? "" : "s");
		printf("\n");
		if (w->first_ratio > 0)
			printf(
			    "    recorded / unrecorded before the first capture range %.3fx (free "
			    "of what a range leaves behind)\n",
			    w->first_ratio);
		if (w->host_share_unprofiled >= 0)
			printf("    host-side share %.1f%% recorded, ~%.1f%% with the recording's "
			       "added time taken out of the host side (moved %+.1f points)\n",
			       w->host_share * 100, w->host_share_unprofiled * 100,
			       (w->host_share - w->host_share_unprofiled) * 100);
	}
}

static void print_unavailable(const struct skip_report *r)
{
	if (!r->nunavailable)
		return;
	printf("not available in this %s trace (docs/skip-import.md):\n",
	       r->source[0] ? r->source : "imported");
	for (size_t i = 0; i < r->nunavailable; i++)
		printf("  - %s\n", skip_unavailable_text(r->unavailable[i]));
}

static void print_text(const struct report_opts *o, const struct skip_report *r)
{
	const char *on = "", *off = "";
	int64_t all_ns = 0;
	char a[32];

	if (o->color) {
		on = r->verdict == SKIP_VERDICT_CPU_BOUND ? "\033[1;33m" : "\033[1;32m";
		off = "\033[0m";
	}
	for (size_t i = 0; i < r->nregions; i++)
		all_ns = skip_add_sat(all_ns, r->regions[i].m.kernel_ns);
	if (r->sweep)
		print_crossing_verdict(r->sweep, on, off);
	else
		printf("%sverdict: %s%s: the GPU waited for the host %.1f%% of IL (threshold "
		       "%.0f%%), %s of %d %s\n",
		       on, skip_verdict_name(r->verdict), off,
		       r->stats[SKIP_M_HOST_SHARE].median * 100, r->threshold * 100,
		       r->stats[SKIP_M_HOST_SHARE].n > 1 ? "median" : "value",
		       r->stats[SKIP_M_HOST_SHARE].n,
		       o->a.region ? "region occurrence(s)" : "run(s)");
	printf("file %s  |  %s  |  %lld run%s%s  |  %s kernels  |  ", r->path,
	       r->gpu[0] ? r->gpu : "GPU unknown", (long long)r->runs, r->runs == 1 ? "" : "s",
	       r->failed_runs ? " (some failed)" : "",
	       cli_group(
		   a, sizeof(a),
		   (long long)(r->stats[SKIP_M_KERNELS].mean * r->stats[SKIP_M_KERNELS].n + 0.5)));
	if (skip_report_lacks(r, "dropped_records"))
		printf("dropped records unknown\n");
	else
		printf("%lld dropped records%s\n", (long long)r->dropped,
		       r->dropped ? " (the trace is incomplete)" : "");
	print_unavailable(r);
	skip_malformed_print(stdout, &r->malformed);
	if (o->a.region)
		printf(
		    "region: each occurrence of the NVTX range '%s' (%zu, %zu without GPU work)\n",
		    o->a.region, r->nregions, r->nempty);
	if (r->torch_ops[0])
		printf("operators: PyTorch's per-op NVTX ranges (recorded with --torch-ops, which "
		       "slows launch-bound loops: docs/BENCHMARKS.md)\n");
	if (r->capture_range[0])
		print_capture(r->capture_range);
	if (r->sweep) {
		print_sweep(r);
		print_sweep_graph(o, r->sweep);
		printf("\nAll %zu regions together (every %s value mixed)\n",
		       r->nregions - r->nempty, r->sweep->param);
	}
	print_metrics(r);
	print_cost(r);
	print_regions(r);
	print_names("Top kernels by total GPU time", "kernel", r->top_by_time, r->ntop_time, all_ns,
		    0, 12);
	print_names("Top kernels by count", "kernel", r->top_by_count, r->ntop_count, all_ns, 0,
		    12);
	print_operators(r, all_ns);
}

static int write_html(struct skip_outfile *out, const struct skip_report *r)
{
	const char *path = out->path;
	int err = skip_export_html(r, out->f);

	if (err) {
		fprintf(stderr, "skip report: error: writing %s failed: %s\n", path, skip_errmsg());
		skip_outfile_abort(out);
		return -1;
	}
	fprintf(stderr, "skip report: wrote %s\n", path);
	if (skip_outfile_commit(out)) {
		fprintf(stderr, "skip report: error: %s\n", skip_errmsg());
		return -1;
	}
	return 0;
}

int cmd_report(int argc, char **argv)
{
	struct report_opts o;
	struct skip_trace *t = NULL;
	struct skip_report *r = NULL;
	struct skip_outfile html = {0};
	int err = parse(argc, argv, &o);

	if (err)
		return err < 0 ? EXIT_OK : err;
	/* The output is checked before the work: a refused name costs nothing. */
	if (o.html && (err = skip_outfile_open(&html, o.html, SKIP_OUT_HTML, 1, &o.path, 1)))
		return cli_output_error("report", err);
	err = skip_trace_open(o.path, &t);
	if (!err)
		err = skip_analyze(t, &o.a, &r);
	if (!err) /* skip advise's graph model per sweep value, for every output */
		err = skip_report_add_graph_gain(t, &o.a, NULL, r);
	if (err) {
		fprintf(stderr, "skip report: error: %s\n", skip_errmsg());
		skip_report_free(r);
		skip_trace_close(t);
		skip_outfile_abort(&html);
		return err == SKIP_E_NOMEM ? EXIT_ERR : EXIT_USAGE;
	}
	if (o.html && write_html(&html, r))
		err = EXIT_ERR;
	if (o.json) {
		char *s = skip_report_json(r);

		if (!s) {
			fprintf(stderr, "skip report: error: out of memory\n");
			err = EXIT_ERR;
		} else {
			printf("%s\n", s);
			free(s);
		}
	} else {
		print_text(&o, r);
	}
	skip_report_free(r);
	skip_trace_close(t);
	return err;
}
