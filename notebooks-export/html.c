/*
 * html.c: a report as one self-contained HTML page (`skip report --html OUT.html`): inline CSS
 * and inline SVG charts drawn here, no script, no font or image to fetch, so it opens anywhere,
 * offline, and can be attached to a CI run.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "skip_export.h"

#define CW 600 /* chart size, px */
#define CH 300
#define ML 78 /* margins */
#define MR 24
#define MT 34
#define MB 48

static const char css[] =
    "body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1280px;color:#1d2330}"
    "h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px}"
    ".verdict{font-size:17px;font-weight:600;padding:10px 14px;border-radius:6px}"
    ".cpu{background:#fff3d6;border-left:6px solid #e09b00}"
    ".gpu{background:#e3f6e8;border-left:6px solid #2b9348}"
    ".meta{color:#596275}.charts{display:flex;flex-wrap:wrap;gap:16px}"
    "table{border-collapse:collapse;margin:6px 0}td,th{padding:3px 10px;text-align:right;"
    "border-bottom:1px solid #e3e6ec}th{background:#f3f5f8}td.l,th.l{text-align:left}"
    "svg{background:#fff;border:1px solid #dde1e8;border-radius:4px}"
    "svg text{font:11px system-ui,sans-serif;fill:#38404f}.t{font-weight:600;font-size:13px}"
    ".note{color:#596275;font-size:13px}";

static void esc(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else if (*s == '"')
			fputs("&quot;", f);
		else
			fputc(*s, f);
	}
}

static const char *dur(char *buf, size_t n, double ns)
{
	return skip_fmt_duration(buf, n, ns, 3);
}

static const char *numfmt(char *buf, size_t n, double v)
{
	snprintf(buf, n, v == floor(v) && fabs(v) < 1e12 ? "%.0f" : "%.3g", v);
	return buf;
}

/* ---- one line chart ------------------------------------------------------------------------ */

struct chart {
	const char *title, *xlabel;
	const double *x, *y;
	int n;
	int logx, logy;	 /* log2 x axis; log10 y axis */
	int percent;	 /* y is a ratio shown as % (linear, 0..100) */
	double hline;	 /* a horizontal reference (threshold), < 0: none */
	double marks[2]; /* vertical marks at these x (<= 0: none) */
	const char *mlabel[2];
	const char *color;
};

static double sx(const struct chart *c, double lo, double hi, double v)
{
	double t = c->logx ? log2(v) : v;

	return ML + (hi > lo ? (t - lo) / (hi - lo) : 0.5) * (CW - ML - MR);
}

static double sy(const struct chart *c, double lo, double hi, double v)
{
	double t = c->logy ? log10(v > 0 ? v : 1e-9) : v;

	return CH - MB - (hi > lo ? (t - lo) / (hi - lo) : 0.5) * (CH - MT - MB);
}

static void y_axis(FILE *f, const struct chart *c, double lo, double hi)
{
	char b[32];

	if (c->logy) {
		for (double d = floor(lo); d <= ceil(hi); d += 1) {
			double y = sy(c, lo, hi, pow(10, d));

			if (d < lo - 1e-9 || d > hi + 1e-9)
				continue;
			fprintf(f, "<line x1='%d' x2='%d' y1='%.1f' y2='%.1f' stroke='#eef0f4'/>",
				ML, CW - MR, y, y);
			fprintf(f, "<text x='%d' y='%.1f' text-anchor='end'>%s</text>", ML - 6,
				y + 4, dur(b, sizeof(b), pow(10, d)));
		}
		return;
	}
	for (int i = 0; i <= 4; i++) {
		double v = lo + (hi - lo) * i / 4, y = sy(c, lo, hi, v);

		fprintf(f, "<line x1='%d' x2='%d' y1='%.1f' y2='%.1f' stroke='#eef0f4'/>", ML,
			CW - MR, y, y);
		if (c->percent)
			snprintf(b, sizeof(b), "%.0f%%", v * 100);
		else
			dur(b, sizeof(b), v);
		fprintf(f, "<text x='%d' y='%.1f' text-anchor='end'>%s</text>", ML - 6, y + 4, b);
	}
}

static void y_range(const struct chart *c, double *lo, double *hi)
{
	double mn = INFINITY, mx = -INFINITY;

	for (int i = 0; i < c->n; i++) {
		double v = c->logy ? log10(c->y[i] > 0 ? c->y[i] : 1) : c->y[i];

		mn = v < mn ? v : mn;
		mx = v > mx ? v : mx;
	}
	if (c->percent) {
		*lo = 0;
		*hi = 1;
	} else if (c->logy) {
		*lo = floor(mn);
		*hi = ceil(mx) > *lo ? ceil(mx) : *lo + 1;
	} else {
		*lo = 0;
		*hi = mx > 0 ? mx * 1.1 : 1;
	}
}

static void chart(FILE *f, const struct chart *c)
{
	double xl = c->logx ? log2(c->x[0]) : c->x[0];
	double xh = c->logx ? log2(c->x[c->n - 1]) : c->x[c->n - 1];
	double yl, yh;
	char b[32];

	y_range(c, &yl, &yh);
	fprintf(f, "<svg class='chart' width='%d' height='%d' viewBox='0 0 %d %d' role='img'>", CW,
		CH, CW, CH);
	fprintf(f, "<text class='t' x='%d' y='20'>", ML);
	esc(f, c->title);
	fputs("</text>", f);
	y_axis(f, c, yl, yh);
	for (int i = 0; i < c->n; i++) { /* x ticks at the data points */
		double x = sx(c, xl, xh, c->x[i]);

		fprintf(f, "<text x='%.1f' y='%d' text-anchor='middle'>%s</text>", x, CH - MB + 16,
			numfmt(b, sizeof(b), c->x[i]));
	}
	fprintf(f, "<text x='%d' y='%d' text-anchor='middle'>", (ML + CW - MR) / 2, CH - 10);
	esc(f, c->xlabel);
	fputs(c->logx ? " (log2 axis)</text>" : "</text>", f);
	fprintf(f, "<line x1='%d' x2='%d' y1='%d' y2='%d' stroke='#8a93a5'/>", ML, CW - MR, CH - MB,
		CH - MB);
	if (c->hline >= 0) {
		double y = sy(c, yl, yh, c->hline);

		fprintf(f,
			"<line x1='%d' x2='%d' y1='%.1f' y2='%.1f' stroke='#c0392b' "
			"stroke-dasharray='5 4'/><text x='%d' y='%.1f' fill='#c0392b'>threshold "
			"%.0f%%</text>",
			ML, CW - MR, y, y, CW - MR - 90, y - 5, c->hline * 100);
	}
	for (int m = 0; m < 2; m++) {
		double x;

		if (c->marks[m] <= 0)
			continue;
		x = sx(c, xl, xh, c->marks[m]);
		fprintf(f,
			"<line x1='%.1f' x2='%.1f' y1='%d' y2='%d' stroke='%s' "
			"stroke-dasharray='3 3'/><text x='%.1f' y='%d' fill='%s'>",
			x, x, MT, CH - MB, m ? "#6c4ab6" : "#c0392b", x + 4, MT + 12 + 14 * m,
			m ? "#6c4ab6" : "#c0392b");
		esc(f, c->mlabel[m]);
		fprintf(f, " %s</text>", numfmt(b, sizeof(b), c->marks[m]));
	}
	fprintf(f, "<polyline fill='none' stroke='%s' stroke-width='2' points='", c->color);
	for (int i = 0; i < c->n; i++)
		fprintf(f, "%.1f,%.1f ", sx(c, xl, xh, c->x[i]), sy(c, yl, yh, c->y[i]));
	fputs("'/>", f);
	for (int i = 0; i < c->n; i++)
		fprintf(f, "<circle cx='%.1f' cy='%.1f' r='3.5' fill='%s'/>",
			sx(c, xl, xh, c->x[i]), sy(c, yl, yh, c->y[i]), c->color);
	fputs("</svg>\n", f);
}

/* ---- sections ---------------------------------------------------------------------------- */

/* The sweep's three charts: IL and TKLQT (log axis) and the host-side share. */
static void sweep_charts(FILE *f, const struct skip_report *r, struct chart *ch, const double *il,
			 const double *tk, const double *hs)
{
	fputs("<div class='charts'>\n", f);
	ch->title = "IL (median per value)";
	ch->y = il;
	ch->logy = 1;
	ch->color = "#2563eb";
	chart(f, ch);
	ch->title = "TKLQT (median per value)";
	ch->y = tk;
	ch->color = "#d97706";
	chart(f, ch);
	ch->title = "host-side share of IL";
	ch->y = hs;
	ch->logy = 0;
	ch->percent = 1;
	ch->hline = r->threshold;
	ch->color = "#059669";
	chart(f, ch);
	fputs("</div>\n", f);
}

/* The graph-gain table the advisor filled (struct skip_graph_gains), as skip report prints it. */
static void graph_gain_table(FILE *f, const struct skip_report *r)
{
	const struct skip_sweep *s = r->sweep;
	char a[32], b[32], c[32];

	fprintf(f,
		"<h2>Predicted gain of replaying each %s as one CUDA graph or as persistent "
		"kernels</h2>",
		r->nregions && r->regions[0].name ? "region occurrence" : "run");
	fputs("<table class='graph-gain'><tr><th>", f);
	esc(f, s->param);
	fputs("</th><th>runs</th><th>IL</th><th>model</th><th>cal. error</th><th>unprofiled</th>"
	      "<th>as graph</th><th>gain</th><th>persistent</th><th>mode</th><th>gain</th></tr>\n",
	      f);
	for (size_t i = 0; i < s->graph->nrows; i++) {
		const struct skip_graph_gain *g = &s->graph->rows[i];

		fprintf(f, "<tr><td>%s</td><td>%d</td><td>%s</td><td>%s</td><td>%.1f%%</td>",
			numfmt(a, sizeof(a), g->value), g->runs, dur(b, sizeof(b), g->il_ns),
			dur(c, sizeof(c), g->model_ns), 100 * g->calibration_error);
		fprintf(f, "<td>%s</td><td>%s</td><td>%.2f&times;</td>",
			dur(a, sizeof(a), g->unprofiled_ns), dur(b, sizeof(b), g->graph_ns),
			g->gain);
		fprintf(f, "<td>%s</td><td>", dur(c, sizeof(c), g->persist_ns));
		esc(f, g->persist_mode);
		fprintf(f, "</td><td>%.2f&times;</td></tr>\n", g->persist_gain);
	}
	fputs("</table>\n<p class='note'>skip advise's what-if model (docs/skip-advise.md), "
	      "medians over each value's runs. IL and model: recorded and replayed, with the "
	      "profiler; unprofiled: the model without its cost per launch; gain: unprofiled / as "
	      "graph, unprofiled / as persistent kernels in the fastest mode (skip advise's "
	      "persistent item).</p>\n",
	      f);
}

static void sweep_section(FILE *f, const struct skip_report *r)
{
	const struct skip_sweep *s = r->sweep;
	double x[256], il[256], tk[256], hs[256];
	int n = (int)(s->npts < 256 ? s->npts : 256);
	char a[32], b[32], c[32], d[32];
	struct chart ch = {
	    .xlabel = s->param,
	    .x = x,
	    .n = n,
	    .logx = 1,
	    .hline = -1,
	    .marks = {s->flip.found ? s->flip.value : 0, s->knee.found ? s->knee.value : 0},
	    .mlabel = {"verdict flip", "TKLQT knee"}};

	for (int i = 0; i < n; i++) {
		x[i] = s->pts[i].value;
		il[i] = s->pts[i].il_ns;
		tk[i] = s->pts[i].tklqt_ns;
		hs[i] = s->pts[i].host_share;
	}
	fprintf(f, "<h2>Sweep over <code>");
	esc(f, s->param);
	fputs("</code></h2>\n", f);
	if (n) /* a chart needs a point */
		sweep_charts(f, r, &ch, il, tk, hs);
	fputs("<table><tr><th>", f);
	esc(f, s->param);
	fputs("</th><th>runs</th><th>IL</th><th>TKLQT</th><th>TKLQT/kernel</th><th>AKD</th>"
	      "<th>busy</th><th>idle</th><th>host-side</th><th class='l'>verdict</th></tr>",
	      f);
	for (int i = 0; i < n; i++) {
		const struct skip_sweep_point *p = &s->pts[i];

		fprintf(f, "<tr><td>%s</td><td>%d</td><td>%s</td><td>%s</td>",
			numfmt(a, sizeof(a), p->value), p->runs, dur(b, sizeof(b), p->il_ns),
			dur(c, sizeof(c), p->tklqt_ns));
		fprintf(f, "<td>%s</td>", dur(d, sizeof(d), p->tklqt_per_kernel_ns));
		fprintf(f,
			"<td>%s</td><td>%s</td><td>%s</td><td>%.1f%%</td><td class='l'>%s</td>"
			"</tr>\n",
			dur(a, sizeof(a), p->akd_ns), dur(b, sizeof(b), p->busy_ns),
			dur(c, sizeof(c), p->idle_ns), p->host_share * 100,
			skip_verdict_name(p->verdict));
	}
	fputs("</table>\n<p class='note'>", f);
	if (s->flip.found) {
		fprintf(f, "Verdict flip: the host-side share falls below %.0f%% at ",
			s->flip.threshold * 100);
		esc(f, s->param);
		fprintf(f, " &asymp; %s (between %s and %s, interpolated on log2). ",
			numfmt(a, sizeof(a), s->flip.value),
			numfmt(b, sizeof(b), s->pts[s->flip.lo].value),
			numfmt(c, sizeof(c), s->pts[s->flip.hi].value));
	} else {
		fputs("Verdict flip: none in this sweep. ", f);
	}
	if (s->knee.found) {
		fputs("TKLQT knee: ", f);
		esc(f, s->param);
		fprintf(f, " &asymp; %s (plateau %s, threshold %s = plateau &times; %.2f). ",
			numfmt(a, sizeof(a), s->knee.value), dur(b, sizeof(b), s->knee.plateau),
			dur(c, sizeof(c), s->knee.threshold), 1 + s->knee.epsilon);
	} else
		fputs("TKLQT knee: none (no plateau followed by a sustained rise). ", f);
	fputs(s->agree ? "The two rules agree.</p>\n"
		       : "<b>The two rules disagree</b>: read both with their inputs.</p>\n",
	      f);
	if (s->graph)
		graph_gain_table(f, r);
}

static void regions_section(FILE *f, const struct skip_report *r)
{
	double x[512], il[512], hs[512];
	int n = 0;
	struct chart ch = {.xlabel = "region (in order)", .x = x, .hline = -1};

	for (size_t i = 0; i < r->nregions && n < 512; i++) {
		if (r->regions[i].m.verdict == SKIP_VERDICT_EMPTY)
			continue;
		x[n] = n + 1;
		il[n] = (double)r->regions[i].m.il_ns;
		hs[n] = r->regions[i].m.host_share;
		n++;
	}
	if (n < 2)
		return;
	ch.n = n;
	fputs("<h2>Regions</h2><div class='charts'>\n", f);
	ch.title = "IL per region";
	ch.y = il;
	ch.color = "#2563eb";
	chart(f, &ch);
	ch.title = "host-side share per region";
	ch.y = hs;
	ch.percent = 1;
	ch.hline = r->threshold;
	ch.color = "#059669";
	chart(f, &ch);
	fputs("</div>\n", f);
}

/* The metrics a recording inflates, marked with '*' in the metrics table. */
static int inflated(int id)
{
	return id == SKIP_M_IL || id == SKIP_M_TKLQT || id == SKIP_M_T_API ||
	       id == SKIP_M_HOST_SHARE;
}

static void metrics_section(FILE *f, const struct skip_report *r)
{
	char a[5][32];

	fputs("<h2>Metrics</h2><table><tr><th class='l'>metric</th><th>median</th><th>mean</th>"
	      "<th>min</th><th>max</th><th>stdev</th><th>n</th></tr>\n",
	      f);
	for (int id = 0; id < SKIP_M_COUNT; id++) {
		const struct skip_stat *s = &r->stats[id];
		const char *unit = skip_metric_unit((enum skip_metric_id)id);
		double v[5] = {s->median, s->mean, s->min, s->max, s->stdev};

		for (int k = 0; k < 5; k++) {
			if (!strcmp(unit, "ns"))
				dur(a[k], sizeof(a[k]), v[k]);
			else if (!strcmp(unit, "ratio"))
				snprintf(a[k], sizeof(a[k]), "%.1f%%", v[k] * 100);
			else
				numfmt(a[k], sizeof(a[k]), v[k]);
		}
		fprintf(f,
			"<tr><td class='l'>%s%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td>"
			"<td>%s</td><td>%d</td></tr>\n",
			skip_metric_name((enum skip_metric_id)id), inflated(id) ? " *" : "", a[0],
			a[1], a[2], a[3], a[4], s->n);
	}
	fputs("</table>\n<p class='note'>* inflated by the recording, as recorded (see the "
	      "recording cost)</p>\n",
	      f);
}

/* One row of a top list: @name then @suffix (escaped), kernels, GPU time, mean, launch. */
static void name_row(FILE *f, const struct skip_name_stat *v, const char *name, const char *suffix)
{
	char a[32], b[32];

	fputs("<tr><td class='l'>", f);
	esc(f, name);
	esc(f, suffix);
	fprintf(f, "</td><td>%lld</td><td>%s</td>", (long long)v->count,
		dur(a, sizeof(a), (double)v->total_ns));
	fprintf(f, "<td>%s</td><td>%s</td></tr>\n",
		dur(b, sizeof(b), v->count ? (double)v->total_ns / (double)v->count : 0),
		dur(a, sizeof(a), (double)v->launch_ns));
}

/* A top list; @operators: each name with its attribution, then the operators not listed and
 * the kernels with none, so that the kernel counts add up. */
static void names_section(FILE *f, const char *title, const struct skip_name_stat *v, size_t n,
			  const struct skip_report *operators)
{
	char rest[64];

	if (!n)
		return;
	fprintf(f,
		"<h2>%s</h2><table><tr><th class='l'>name</th><th>kernels</th><th>GPU time</th>"
		"<th>mean</th><th>launch time</th></tr>\n",
		title);
	for (size_t i = 0; i < n; i++)
		name_row(f, &v[i], v[i].name, operators ? skip_attr_suffix(v[i].attr) : "");
	if (operators && operators->nops_rest) {
		snprintf(rest, sizeof(rest), "(%zu other operators)", operators->nops_rest);
		name_row(f, &operators->ops_rest, rest, "");
	}
	if (operators)
		name_row(f, &operators->ops_none, "(none)", "");
	fputs("</table>\n", f);
	if (operators && (operators->kernels_by_attr[SKIP_ATTR_SEQ] ||
			  operators->kernels_by_attr[SKIP_ATTR_OTHER]))
		fputs("<p class='note'>(other thread): launched with no range open on its thread; "
		      "the range open on another thread of the process then (seq: the thread that "
		      "PyTorch's sequence numbers name)</p>\n",
		      f);
}

/* The recording cost per configuration, from the baseline runs or, in a capture-range
 * recording, from the occurrences outside the capture ranges (docs/skip-report.md). */
static void cost_section(FILE *f, const struct skip_report *r)
{
	const struct skip_recording_cost *c = r->cost;
	char a[4][32];

	if (!c)
		return;
	fputs("<h2>Recording cost</h2>\n", f);
	if (!c->region) {
		if (c->capture)
			fputs("<p>Capture ranges: give <code>--region NAME</code> to compare a "
			      "range's wall interval inside and outside them.</p>\n",
			      f);
		else
			fprintf(f,
				"<p>%lld baseline run(s): give <code>--region NAME</code> to "
				"compare a range's wall interval with and without the "
				"recording.</p>\n",
				(long long)c->baseline_runs);
		return;
	}
	fputs("<p>Wall interval of <code>", f);
	esc(f, c->region);
	if (c->capture)
		fputs("</code>: median over the occurrences inside the capture ranges (recorded) "
		      "and outside them (unrecorded, same process); their ratio with its least and "
		      "most over the runs.</p>\n<table><tr><th class='l'>configuration</th>"
		      "<th>runs</th><th>recorded wall</th><th>runs</th><th>unrecorded wall</th>"
		      "<th>recorded / unrecorded</th><th>host-side share</th></tr>\n",
		      f);
	else
		fputs(
		    "</code>: median over the occurrences; recorded / baseline with its least and "
		    "most over the interleaved pairs of runs.</p>\n<table><tr><th "
		    "class='l'>configuration</th><th>full runs</th><th>full wall</th><th>baseline "
		    "runs</th><th>baseline wall</th><th>recorded / baseline</th><th>host-side "
		    "share</th></tr>\n",
		    f);
	for (size_t i = 0; i < c->nrows; i++) {
		const struct skip_cost_row *w = &c->rows[i];

		fputs("<tr><td class='l'>", f);
		esc(f, w->config[0] ? w->config : "(no parameters)");
		fprintf(f, "</td><td>%d</td><td>%s</td><td>%d</td><td>%s</td>", w->full.runs,
			dur(a[0], sizeof(a[0]), w->full.wall_ns), w->baseline.runs,
			dur(a[1], sizeof(a[1]), w->baseline.wall_ns));
		if (w->problem) {
			fputs("<td class='l' colspan='2'>", f);
			esc(f, w->problem);
			fputs("</td></tr>\n", f);
			continue;
		}
		fprintf(f, "<td>%.3fx", w->ratio);
		if (w->pairs)
			fprintf(f, " [%.3f .. %.3f]", w->ratio_min, w->ratio_max);
		fprintf(f, "</td><td>%.1f%%", w->host_share * 100);
		if (w->host_share_unprofiled >= 0)
			fprintf(f, " recorded, ~%.1f%% without", w->host_share_unprofiled * 100);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

static void verdict_line(FILE *f, const struct skip_report *r)
{
	const struct skip_sweep *s = r->sweep;
	char a[32];

	if (s && s->flip.found) {
		fputs("<p class='verdict cpu'>CPU-bound up to ", f);
		esc(f, s->param);
		fprintf(f, " &asymp; %s, GPU-bound above</p>", numfmt(a, sizeof(a), s->flip.value));
		return;
	}
	fprintf(f,
		"<p class='verdict %s'>%s: the GPU waited for the host %.1f%% of IL (threshold "
		"%.0f%%)</p>",
		r->verdict == SKIP_VERDICT_CPU_BOUND ? "cpu" : "gpu", skip_verdict_name(r->verdict),
		r->stats[SKIP_M_HOST_SHARE].median * 100, r->threshold * 100);
}

int skip_export_html(const struct skip_report *r, FILE *f)
{
	fputs("<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'><title>skip report: ",
	      f);
	esc(f, r->path);
	fprintf(f, "</title><style>%s</style></head><body>\n<h1>skip report</h1>\n<p class='meta'>",
		css);
	esc(f, r->path);
	fprintf(f, " &middot; ");
	esc(f, r->gpu[0] ? r->gpu : "GPU unknown");
	fprintf(f,
		" &middot; %lld run(s) &middot; %zu region(s) &middot; %lld dropped records"
		"</p>\n",
		(long long)r->runs, r->nregions, (long long)r->dropped);
	verdict_line(f, r);
	if (r->sweep)
		sweep_section(f, r);
	else
		regions_section(f, r);
	metrics_section(f, r);
	cost_section(f, r);
	names_section(f, "Top kernels by GPU time", r->top_by_time, r->ntop_time, NULL);
	names_section(f, "Top operators (innermost NVTX range at launch)", r->top_ops, r->ntop_ops,
		      r);
	fprintf(f,
		"<p class='note'>skip %s &middot; definitions: docs/skip-report.md</p>\n"
		"</body></html>\n",
		SKIP_VERSION);
	return ferror(f) ? SKIP_E_IO : 0;
}
