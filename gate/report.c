/*
 * report.c: the gate's and the diff's outputs for people and CI systems: the terminal tables,
 * a Markdown job summary, JUnit XML (one testcase per gated metric and region) and GitHub
 * Actions workflow commands. JSON is in json.c. Every writer goes through a FILE * the caller
 * opened (skip_outfile_open() in the CLI), so none of them knows about files.
 */
#define SK_LOG_DOMAIN "gate"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ---- shared pieces --------------------------------------------------------------------------- */

/* Display words of a status: gated tests decide, context tests only describe. */
static const char *status_word(const struct skip_gate_test *t)
{
	static const char *const gated[] = {"ok",	    "REGRESSION", "improved",
					    "inconclusive", "changed",	  "missing"};
	static const char *const info[] = {"same", "worse", "better", "n.s.", "changed", "missing"};

	return t->gated ? gated[t->status] : info[t->status];
}

/* "+1.234 ms", "-2.0 pt", "+20": a signed difference in the metric's unit. */
static const char *fmt_delta(char *buf, size_t n, const char *unit, double v)
{
	char tmp[48];

	if (!isfinite(v))
		snprintf(buf, n, "-");
	else if (!strcmp(unit, "ratio"))
		snprintf(buf, n, "%+.1f pt", v * 100);
	else
		snprintf(buf, n, "%s%s", v >= 0 ? "+" : "", sk_gate_fmt(tmp, sizeof(tmp), unit, v));
	return buf;
}

static const char *fmt_interval(char *buf, size_t n, const struct skip_gate_test *t)
{
	double m = fabs(t->s.base_median);
	char a[24], b[24];

	if (!isfinite(t->s.ci_lo) || !isfinite(t->s.ci_hi) || m == 0)
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "[%s, %s]", sk_gate_fmt_rel(a, sizeof(a), t->s.ci_lo / m),
			 sk_gate_fmt_rel(b, sizeof(b), t->s.ci_hi / m));
	return buf;
}

/* The p-value in the direction of the change (one-sided both ways). */
static double shown_p(const struct skip_gate_test *t)
{
	return t->s.shift < 0 ? t->s.p_better : t->s.p_worse;
}

/* The two sides' values: medians in the metric's unit, or the verdicts. */
static void side_values(const struct skip_gate_test *t, char *a, char *b, size_t n)
{
	if (t->metric->kind == SKIP_GATE_VERDICT) {
		snprintf(a, n, "%s", skip_verdict_name(sk_gate_case_verdict(t->bcase)));
		snprintf(b, n, "%s", skip_verdict_name(sk_gate_case_verdict(t->ccase)));
		return;
	}
	sk_gate_fmt(a, n, t->unit, t->s.base_median);
	sk_gate_fmt(b, n, t->unit, t->s.cand_median);
}

static const char *case_label(const struct skip_gate_case *c, char *buf, size_t n)
{
	snprintf(buf, n, "%s", c->key[0] ? c->key : "all runs");
	return buf;
}

static void region_line(FILE *out, const char *region, const char *lead, const char *tail)
{
	if (region)
		fprintf(out, "%seach occurrence of the NVTX range '%s'%s\n", lead, region, tail);
	else
		fprintf(out, "%seach run%s\n", lead, tail);
}

static void side_line(FILE *out, const char *lead, const struct skip_gate_side *s)
{
	fprintf(out, "%s%s: %zu run%s, %s%s%s%s%s%s\n", lead, s->path, skip_gate_side_runs(s),
		skip_gate_side_runs(s) == 1 ? "" : "s", s->gpu[0] ? s->gpu : "GPU unknown",
		s->driver[0] ? ", driver " : "", s->driver, s->skip_version[0] ? ", skip " : "",
		s->skip_version, s->baseline ? " (baseline file)" : "");
}

/* The result in a few words: "FAIL: 1 regression (IL +10.0%)". */
static void headline(FILE *out, const struct skip_gate_result *r, const char *bold)
{
	char rel[24];
	int shown = 0;

	if (!r->regressions) {
		fprintf(out, "%sPASS%s: no regression in %d gated test%s", bold, bold, r->gated,
			r->gated == 1 ? "" : "s");
		if (r->inconclusive)
			fprintf(out, " (%d inconclusive: more runs would tell)", r->inconclusive);
		return;
	}
	fprintf(out, "%sFAIL%s: %d regression%s (", bold, bold, r->regressions,
		r->regressions == 1 ? "" : "s");
	for (size_t i = 0; i < r->ntests; i++) {
		const struct skip_gate_test *t = &r->tests[i];

		if (!t->gated || t->status != SKIP_GATE_REGRESSION)
			continue;
		fprintf(out, "%s%s %s%s%s%s", shown++ ? ", " : "", t->label,
			t->metric->kind == SKIP_GATE_VERDICT
			    ? t->note
			    : sk_gate_fmt_rel(rel, sizeof(rel), t->s.rel),
			t->bcase->key[0] ? " [" : "", t->bcase->key, t->bcase->key[0] ? "]" : "");
	}
	fprintf(out, ")");
}

/* ---- the gate's terminal table --------------------------------------------------------------- */

static void print_test(FILE *out, const struct skip_gate_test *t)
{
	char a[32], b[32], c[24], d[48], p[16], l[16], lab[32];

	snprintf(lab, sizeof(lab), "%s%.*s", t->gated ? "" : "  ", t->gated ? 22 : 20, t->label);
	if (t->status == SKIP_GATE_MISSING) {
		fprintf(out, "  %-22s %10s %10s %8s %-18s %7s %6s  %s (%s)\n", lab, "-", "-", "-",
			"-", "-", "-", status_word(t), t->note);
		return;
	}
	snprintf(p, sizeof(p), "%.2g", shown_p(t));
	snprintf(l, sizeof(l), "%.2g", t->level);
	side_values(t, a, b, sizeof(a));
	fprintf(out, "  %-22s %10s %10s %8s %-18s %7s %6s  %s%s%s%s\n", lab, a, b,
		sk_gate_fmt_rel(c, sizeof(c), t->s.rel), fmt_interval(d, sizeof(d), t), p, l,
		status_word(t), t->note ? " (" : "", t->note ? t->note : "", t->note ? ")" : "");
}

static void print_case(FILE *out, const struct skip_gate_result *r, const struct skip_gate_case *b,
		       int many)
{
	int context = 0;
	char cl[600];

	if (many)
		fprintf(out, "\n case %s (%zu and %zu runs)\n", case_label(b, cl, sizeof(cl)),
			b->nruns, sk_gate_case_find(r->cand, b->key)->nruns);
	for (size_t i = 0; i < r->ntests; i++)
		if (r->tests[i].bcase == b && r->tests[i].gated)
			print_test(out, &r->tests[i]);
	for (size_t i = 0; i < r->ntests; i++) {
		if (r->tests[i].bcase != b || r->tests[i].gated)
			continue;
		if (!context++)
			fprintf(out, "  (for context, not gated: each at p <= %.2g)\n", r->alpha);
		print_test(out, &r->tests[i]);
	}
}

static void print_list(FILE *out, const char *title, char **v, size_t n, size_t max)
{
	if (!n)
		return;
	fprintf(out, "\n%s\n", title);
	for (size_t i = 0; i < n && i < max; i++)
		fprintf(out, "  %s\n", v[i]);
	if (n > max)
		fprintf(out, "  ... and %zu more (--json lists them all)\n", n - max);
}

void skip_gate_print(FILE *out, const struct skip_gate_result *r)
{
	char fl[32];
	int many = 0;

	fprintf(out, "skip gate: ");
	headline(out, r, "");
	fprintf(out, "\n");
	side_line(out, "  baseline   ", r->base);
	side_line(out, "  candidate  ", r->cand);
	region_line(out, r->base->region, "  regions    ",
		    r->base->region ? " (each run's median; the run is the unit)"
				    : " (the run is the unit)");
	fprintf(out,
		"  rule       a regression: a one-sided rank-test p at or below its Holm level "
		"(%d gated\n             test%s alpha %.2g) and a change of at least %.3g%% "
		"and %s\n",
		r->gated, r->gated == 1 ? "," : "s sharing", r->alpha, r->max_regress * 100,
		skip_fmt_duration(fl, sizeof(fl), r->floor_ns, 3));
	for (size_t i = 0; i < r->base->ncases; i++)
		many += sk_gate_case_find(r->cand, r->base->cases[i].key) != NULL;
	many = many > 1 || (r->base->ncases == 1 && r->base->cases[0].key[0]);
	fprintf(out, "\n  %-22s %10s %10s %8s %-18s %7s %6s  %s\n", "metric", "baseline",
		"candidate", "change", "interval", "p", "level", "status");
	for (size_t i = 0; i < r->base->ncases; i++)
		if (sk_gate_case_find(r->cand, r->base->cases[i].key))
			print_case(out, r, &r->base->cases[i], many);
	fprintf(out,
		"  (baseline, candidate: medians of the runs; change: Hodges-Lehmann shift; "
		"interval: %.3g%%)\n",
		100 * (1 - 2 * r->alpha));
	print_list(out, "Warnings", r->warnings, r->nwarnings, 20);
	print_list(out, "Changes (reported, not timed)", r->changes, r->nchanges, 20);
}

/* ---- the diff's terminal table --------------------------------------------------------------- */

static const struct {
	enum skip_metric_id id;
	const char *label;
	int part_of_il; /* its difference is a share of the IL difference */
} diff_rows[] = {
    {SKIP_M_IL, "IL", 1},
    {SKIP_M_BUSY, "GPU busy", 1},
    {SKIP_M_IDLE, "GPU idle", 1},
    {SKIP_M_HOST_WAIT, "  host wait", 1},
    {SKIP_M_SYNC_STALL, "  sync stall", 1},
    {SKIP_M_DEVICE_LATENCY, "  device latency", 1},
    {SKIP_M_TKLQT, "TKLQT", 0},
    {SKIP_M_T_API, "  sum t_api", 0},
    {SKIP_M_T_QUEUE, "  sum t_queue", 0},
    {SKIP_M_KERNELS, "kernels", 0},
    {SKIP_M_AKD, "AKD", 0},
    {SKIP_M_HOST_SHARE, "host-side share", 0},
};
#define NDIFF_ROWS (sizeof(diff_rows) / sizeof(diff_rows[0]))

static void print_breakdown(FILE *out, const struct skip_diff_case *dc, double floor_ns)
{
	double dil = dc->mean[1][SKIP_M_IL] - dc->mean[0][SKIP_M_IL];

	fprintf(out, "\n  %-18s %11s %11s %11s %8s %10s\n", "", "baseline", "candidate", "change",
		"", "of IL diff");
	for (size_t i = 0; i < NDIFF_ROWS; i++) {
		enum skip_metric_id id = diff_rows[i].id;
		const char *unit = skip_metric_unit(id);
		double x = dc->mean[0][id], y = dc->mean[1][id];
		char a[32], b[32], c[32], d[24], e[24] = "", rel[24];

		if (diff_rows[i].part_of_il && fabs(dil) >= floor_ns)
			snprintf(e, sizeof(e), " %9.1f%%", 100 * (y - x) / dil);
		if (x != 0 && strcmp(unit, "ratio"))
			snprintf(d, sizeof(d), " %8s",
				 sk_gate_fmt_rel(rel, sizeof(rel), (y - x) / fabs(x)));
		else
			snprintf(d, sizeof(d), "%s", e[0] ? "         " : "");
		fprintf(out, "  %-18s %11s %11s %11s%s%s\n", diff_rows[i].label,
			sk_gate_fmt(a, sizeof(a), unit, x), sk_gate_fmt(b, sizeof(b), unit, y),
			fmt_delta(c, sizeof(c), unit, y - x), d, e);
	}
	fprintf(out, "  %-18s %11s %11s\n", "verdict", skip_verdict_name(dc->verdict[0]),
		skip_verdict_name(dc->verdict[1]));
}

static void print_rows(FILE *out, const char *title, const char *what,
		       const struct skip_diff_row *v, size_t n, int changed, size_t top)
{
	char fl[64], a[32], b[32], c[32], d[32], cnt[48], sh[16];

	fprintf(out, "\n%s (%d of %zu changed; by GPU time change per region%s)\n", title, changed,
		n, n > top ? ", the top ones" : "");
	if (!n)
		return;
	fprintf(out, "  %-28s %-13s %14s %23s %10s %6s\n", what, "change", "per region",
		"mean per launch", "GPU time", "of IL");
	for (size_t i = 0; i < n && i < top; i++) {
		const struct skip_diff_row *r = &v[i];

		snprintf(cnt, sizeof(cnt), "%.4g -> %.4g", r->count[0], r->count[1]);
		snprintf(d, sizeof(d), "%s -> %s",
			 r->count[0] ? skip_fmt_duration(a, sizeof(a), r->mean_ns[0], 4) : "-",
			 r->count[1] ? skip_fmt_duration(b, sizeof(b), r->mean_ns[1], 4) : "-");
		snprintf(sh, sizeof(sh), isfinite(r->share) ? "%.1f%%" : "-", r->share * 100);
		fprintf(out, "  %-28.28s %-13s %14s %23s %10s %6s\n", r->name,
			skip_diff_flags_text(r->flags, fl, sizeof(fl)), cnt, d,
			fmt_delta(c, sizeof(c), "ns", r->delta_ns), sh);
	}
}

void skip_diff_print(FILE *out, const struct skip_diff *d, size_t top)
{
	char cl[600], fl[32];

	fprintf(out, "skip diff: %s -> %s\n", d->base->path, d->cand->path);
	region_line(out, d->base->region, "  regions  ", "");
	fprintf(out,
		"  figures  means per region over all runs; slower or faster: a kernel's mean "
		"per launch\n           (an operator's GPU time) by %.3g%% and %s\n",
		d->threshold * 100, skip_fmt_duration(fl, sizeof(fl), d->floor_ns, 3));
	for (size_t i = 0; i < d->ncases; i++) {
		const struct skip_diff_case *dc = &d->cases[i];

		fprintf(out, "\n%s%s: %zu -> %zu runs, %d -> %d regions\n",
			dc->b->key[0] ? "case " : "", case_label(dc->b, cl, sizeof(cl)),
			dc->b->nruns, dc->c->nruns, dc->regions[0], dc->regions[1]);
		print_breakdown(out, dc, d->floor_ns);
		print_rows(out, "Kernels", "kernel", dc->kernels, dc->nkernels, dc->kernels_changed,
			   top);
		if (dc->nops)
			print_rows(out, "Operators (innermost NVTX range at launch)", "operator",
				   dc->ops, dc->nops, dc->ops_changed, top);
	}
}

/* ---- Markdown -------------------------------------------------------------------------------- */

/* @s in a table cell: '|' escaped, backticks made quotes, newlines spaces. */
static void md_text(FILE *out, const char *s)
{
	for (; *s; s++)
		if (*s == '|')
			fputs("\\|", out);
		else if (*s == '`')
			fputc('\'', out);
		else if (*s == '\n' || *s == '\r')
			fputc(' ', out);
		else
			fputc(*s, out);
}

static void md_test(FILE *out, const struct skip_gate_test *t)
{
	char a[32], b[32], c[24], d[48];

	fputs("| ", out);
	md_text(out, t->label);
	if (t->bcase->key[0]) {
		fputs(" `", out);
		md_text(out, t->bcase->key);
		fputs("`", out);
	}
	if (t->status == SKIP_GATE_MISSING) {
		fprintf(out, " | - | - | - | - | - | - | %s (%s) |\n", status_word(t), t->note);
		return;
	}
	side_values(t, a, b, sizeof(a));
	fprintf(out, " | %s | %s | %s | %s | %.2g | %.2g | %s%s%s%s%s%s |\n", a, b,
		sk_gate_fmt_rel(c, sizeof(c), t->s.rel), fmt_interval(d, sizeof(d), t), shown_p(t),
		t->level, t->status == SKIP_GATE_REGRESSION && t->gated ? "**" : "", status_word(t),
		t->status == SKIP_GATE_REGRESSION && t->gated ? "**" : "", t->note ? " (" : "",
		t->note ? t->note : "", t->note ? ")" : "");
}

static void md_tests(FILE *out, const struct skip_gate_result *r, int gated)
{
	fprintf(out,
		"| metric | baseline | candidate | change | %.3g%% interval | p | level | "
		"status |\n|---|---:|---:|---:|---|---:|---:|---|\n",
		100 * (1 - 2 * r->alpha));
	for (size_t i = 0; i < r->ntests; i++)
		if (r->tests[i].gated == gated)
			md_test(out, &r->tests[i]);
}

static void md_list(FILE *out, const char *title, char **v, size_t n)
{
	if (!n)
		return;
	fprintf(out, "\n**%s**\n\n", title);
	for (size_t i = 0; i < n && i < 50; i++) {
		fputs("- ", out);
		md_text(out, v[i]);
		fputs("\n", out);
	}
}

static void md_diff(FILE *out, const struct skip_diff *d, size_t top)
{
	char fl[64], c[32], a[32], b[32];

	for (size_t i = 0; i < d->ncases; i++) {
		const struct skip_diff_case *dc = &d->cases[i];

		fprintf(out,
			"\n**What changed** (skip diff%s%s%s, means per region)\n\n"
			"| kernel | change | launches/region | mean per launch | GPU time | of IL "
			"diff |\n|---|---|---:|---:|---:|---:|\n",
			dc->b->key[0] ? ", case `" : "", dc->b->key, dc->b->key[0] ? "`" : "");
		for (size_t k = 0; k < dc->nkernels && k < top; k++) {
			const struct skip_diff_row *r = &dc->kernels[k];

			fputs("| `", out);
			md_text(out, r->name);
			fprintf(
			    out, "` | %s | %.4g -> %.4g | %s -> %s | %s | ",
			    skip_diff_flags_text(r->flags, fl, sizeof(fl)), r->count[0],
			    r->count[1],
			    r->count[0] ? skip_fmt_duration(a, sizeof(a), r->mean_ns[0], 4) : "-",
			    r->count[1] ? skip_fmt_duration(b, sizeof(b), r->mean_ns[1], 4) : "-",
			    fmt_delta(c, sizeof(c), "ns", r->delta_ns));
			if (isfinite(r->share))
				fprintf(out, "%.1f%% |\n", r->share * 100);
			else
				fprintf(out, "- |\n");
		}
	}
}

void skip_gate_markdown(FILE *out, const struct skip_gate_result *r, const struct skip_diff *d,
			size_t top)
{
	fprintf(out, "### skip gate: ");
	headline(out, r, "**");
	fprintf(out, "\n\n| | baseline | candidate |\n|---|---|---|\n| file | `");
	md_text(out, r->base->path);
	fputs("` | `", out);
	md_text(out, r->cand->path);
	fprintf(out, "` |\n| runs | %zu | %zu |\n| GPU | ", skip_gate_side_runs(r->base),
		skip_gate_side_runs(r->cand));
	md_text(out, r->base->gpu[0] ? r->base->gpu : "unknown");
	fputs(" | ", out);
	md_text(out, r->cand->gpu[0] ? r->cand->gpu : "unknown");
	fprintf(out, " |\n| driver | %s | %s |\n\n", r->base->driver[0] ? r->base->driver : "-",
		r->cand->driver[0] ? r->cand->driver : "-");
	region_line(out, r->base->region, "Regions: ",
		    r->base->region ? " (each run's median; the run is the unit)."
				    : " (the run is the unit).");
	fprintf(out,
		"\nA regression: a one-sided rank-test p at or below its Holm level (%d gated "
		"test%s alpha %.2g) and a change of at least %.3g%%.\n\n",
		r->gated, r->gated == 1 ? "," : "s sharing", r->alpha, r->max_regress * 100);
	md_tests(out, r, 1);
	if (r->nmetrics > r->ngated_metrics) {
		fprintf(out, "\n<details><summary>For context, not gated</summary>\n\n");
		md_tests(out, r, 0);
		fprintf(out, "\n</details>\n");
	}
	md_list(out, "Warnings", r->warnings, r->nwarnings);
	md_list(out, "Changes (reported, not timed)", r->changes, r->nchanges);
	if (d)
		md_diff(out, d, top);
}

/* ---- JUnit XML ------------------------------------------------------------------------------- */

static void xml_text(FILE *out, const char *s)
{
	for (; *s; s++)
		switch (*s) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		case '\'':
			fputs("&apos;", out);
			break;
		default:
			if ((unsigned char)*s >= 0x20 || *s == '\t' || *s == '\n')
				fputc(*s, out);
		}
}

/* One line about a test: "IL +10.0% [+8.1%, +12.0%], 1.012 ms -> 1.113 ms, p 1e-05 (level
 * 0.005), 10 and 10 runs". */
static void test_summary(FILE *out, const struct skip_gate_test *t, int xml)
{
	char a[32], b[32], c[24], d[48], line[512];

	if (t->status == SKIP_GATE_MISSING)
		snprintf(line, sizeof(line), "%s: %s", t->label, t->note);
	else {
		side_values(t, a, b, sizeof(a));
		snprintf(line, sizeof(line),
			 "%s %s %s, %s -> %s, p %.2g (level %.2g), %d and %d "
			 "runs%s%s",
			 t->label, sk_gate_fmt_rel(c, sizeof(c), t->s.rel),
			 fmt_interval(d, sizeof(d), t), a, b, shown_p(t), t->level, t->s.nb,
			 t->s.nc, t->note ? ", " : "", t->note ? t->note : "");
	}
	if (xml)
		xml_text(out, line);
	else
		fputs(line, out);
}

static void junit_case(FILE *out, const struct skip_gate_result *r, const struct skip_gate_case *b)
{
	int n = 0, fails = 0;

	for (size_t i = 0; i < r->ntests; i++)
		if (r->tests[i].gated && r->tests[i].bcase == b) {
			n++;
			fails += r->tests[i].status == SKIP_GATE_REGRESSION;
		}
	fprintf(out, "  <testsuite name=\"skip gate %s", r->base->region ? "region " : "runs");
	xml_text(out, r->base->region ? r->base->region : "");
	if (b->key[0]) {
		fputs(" case ", out);
		xml_text(out, b->key);
	}
	fprintf(out, "\" tests=\"%d\" failures=\"%d\" errors=\"0\" skipped=\"0\" time=\"0\">\n", n,
		fails);
	for (size_t i = 0; i < r->ntests; i++) {
		const struct skip_gate_test *t = &r->tests[i];

		if (!t->gated || t->bcase != b)
			continue;
		fputs("    <testcase classname=\"skip.gate.", out);
		xml_text(out, r->base->region ? r->base->region : "run");
		fputs("\" name=\"", out);
		xml_text(out, t->metric->spelling);
		if (b->key[0]) {
			fputs(" [", out);
			xml_text(out, b->key);
			fputs("]", out);
		}
		fputs("\" time=\"0\">\n", out);
		fprintf(out, "      <%s",
			t->status == SKIP_GATE_REGRESSION ? "failure type=\"regression\" "
							    "message=\""
							  : "system-out>");
		test_summary(out, t, 1);
		fprintf(out, t->status == SKIP_GATE_REGRESSION ? "\"/>\n" : " (%s)</system-out>\n",
			skip_gate_status_name(t->status));
		fputs("    </testcase>\n", out);
	}
	fputs("  </testsuite>\n", out);
}

void skip_gate_junit(FILE *out, const struct skip_gate_result *r)
{
	fprintf(out,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"skip gate\" "
		"tests=\"%d\" failures=\"%d\">\n",
		r->gated, r->regressions);
	for (size_t i = 0; i < r->base->ncases; i++)
		if (sk_gate_case_find(r->cand, r->base->cases[i].key))
			junit_case(out, r, &r->base->cases[i]);
	fputs("</testsuites>\n", out);
}

/* ---- GitHub Actions workflow commands -------------------------------------------------------- */

/* A workflow command's message: '%', CR and LF escaped. */
static void gh_text(FILE *out, const char *s)
{
	for (; *s; s++)
		if (*s == '%')
			fputs("%25", out);
		else if (*s == '\r')
			fputs("%0D", out);
		else if (*s == '\n')
			fputs("%0A", out);
		else
			fputc(*s, out);
}

void skip_gate_github(FILE *out, const struct skip_gate_result *r)
{
	for (size_t i = 0; i < r->ntests; i++) {
		const struct skip_gate_test *t = &r->tests[i];
		char *line = NULL;
		size_t len = 0;
		FILE *m;

		if (!t->gated ||
		    (t->status != SKIP_GATE_REGRESSION && t->status != SKIP_GATE_INCONCLUSIVE))
			continue;
		m = open_memstream(&line, &len);
		if (!m)
			continue;
		test_summary(m, t, 0);
		fclose(m);
		fprintf(out, "::%s title=skip gate %s::",
			t->status == SKIP_GATE_REGRESSION ? "error" : "warning",
			skip_gate_status_name(t->status));
		gh_text(out, line);
		fputs(t->status == SKIP_GATE_INCONCLUSIVE ? " (not significant: record more runs)\n"
							  : "\n",
		      out);
		free(line);
	}
	for (size_t i = 0; i < r->nwarnings; i++) {
		fputs("::warning title=skip gate::", out);
		gh_text(out, r->warnings[i]);
		fputs("\n", out);
	}
	{
		char *line = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&line, &len);

		if (!m)
			return;
		headline(m, r, "");
		fclose(m);
		fputs("::notice title=skip gate::", out);
		gh_text(out, line);
		fputs("\n", out);
		free(line);
	}
}
