/*
 * test_html.c: notebooks-export/html.c on small reports built here by hand (no trace): the
 * structure of the page (a complete document, one <svg> per chart, balanced tables), the
 * escaping of text that comes from a trace (a kernel and a parameter named with <&>"), the
 * sweep's tables (the per-value one, and the graph-gain one when it is filled), no NaN or inf
 * anywhere, and a write error.
 */
#include <criterion/criterion.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skip_export.h"

static char *page;

static void teardown(void)
{
	free(page);
	page = NULL;
}

TestSuite(export_html, .fini = teardown);

/* ---- a report by hand ---------------------------------------------------------------------- */

static int64_t run_ids[3] = {1, 2, 3};

static struct skip_name_stat kernels[] = {
    {.name = "k<&>\"x",
     .count = 3,
     .total_ns = 3000,
     .min_ns = 900,
     .max_ns = 1100,
     .launch_ns = 600},
    {.name = "gemm", .count = 1, .total_ns = 500, .min_ns = 500, .max_ns = 500},
};

static struct skip_name_stat operators[] = {
    {.name = "fwd & bwd",
     .count = 4,
     .total_ns = 3500,
     .min_ns = 500,
     .max_ns = 1100,
     .launch_ns = 800},
};

static struct skip_sweep_point points[] = {
    {.value = 1,
     .regions = 1,
     .runs = 1,
     .il_ns = 1000,
     .tklqt_ns = 500,
     .akd_ns = 100,
     .busy_ns = 300,
     .idle_ns = 700,
     .host_share = 0.8,
     .kernels = 3,
     .verdict = SKIP_VERDICT_CPU_BOUND,
     .run_ids = &run_ids[0]},
    {.value = 2,
     .regions = 1,
     .runs = 1,
     .il_ns = 2000,
     .tklqt_ns = 600,
     .akd_ns = 400,
     .busy_ns = 1500,
     .idle_ns = 500,
     .host_share = 0.6,
     .kernels = 3,
     .verdict = SKIP_VERDICT_CPU_BOUND,
     .run_ids = &run_ids[1]},
    {.value = 4,
     .regions = 1,
     .runs = 1,
     .il_ns = 4000,
     .tklqt_ns = 2000,
     .akd_ns = 1200,
     .busy_ns = 3600,
     .idle_ns = 400,
     .host_share = 0.2,
     .kernels = 3,
     .verdict = SKIP_VERDICT_GPU_BOUND,
     .run_ids = &run_ids[2]},
};

static struct skip_graph_gain gain_rows[] = {
    {.value = 1,
     .runs = 1,
     .il_ns = 1000,
     .model_ns = 1010,
     .calibration_error = 0.01,
     .unprofiled_ns = 900,
     .graph_ns = 450,
     .gain = 2},
    {.value = 4,
     .runs = 1,
     .il_ns = 4000,
     .model_ns = 4000,
     .calibration_error = 0,
     .unprofiled_ns = 3900,
     .graph_ns = 3000,
     .gain = 1.3},
};

static struct skip_graph_gains gains = {gain_rows, 2};

static struct skip_sweep sweep;

static struct skip_region regions[] = {
    {.run_id = 1,
     .occurrence = 1,
     .m = {.il_ns = 1000, .host_share = 0.8, .verdict = SKIP_VERDICT_CPU_BOUND}},
    {.run_id = 2, .occurrence = 1, .m = {.verdict = SKIP_VERDICT_EMPTY}},
    {.run_id = 3,
     .occurrence = 1,
     .m = {.il_ns = 4000, .host_share = 0.2, .verdict = SKIP_VERDICT_GPU_BOUND}},
};

/* A report of three runs, with the sweep above when @with_sweep; its strings are static. */
static void report(struct skip_report *r, int with_sweep)
{
	memset(r, 0, sizeof(*r));
	r->path = "runs <1> & \"2\".skip.db";
	r->threshold = 0.5;
	r->regions = regions;
	r->nregions = 3;
	r->nempty = 1;
	r->verdict = SKIP_VERDICT_CPU_BOUND;
	r->runs = 3;
	snprintf(r->gpu, sizeof(r->gpu), "GPU <H100>");
	r->stats[SKIP_M_IL] = (struct skip_stat){2500, 2500, 1000, 4000, 2121.3, 2};
	r->stats[SKIP_M_HOST_SHARE] = (struct skip_stat){0.5, 0.5, 0.2, 0.8, 0.42, 2};
	r->top_by_time = r->top_by_count = kernels;
	r->ntop_time = r->ntop_count = 2;
	r->top_ops = operators;
	r->ntop_ops = 1;
	if (!with_sweep)
		return;
	sweep = (struct skip_sweep){
	    .param = "batch",
	    .pts = points,
	    .npts = 3,
	    .flip = {.found = 1, .value = 2.83, .lo = 1, .hi = 2, .threshold = 0.5},
	    .knee = {.found = 1,
		     .value = 3,
		     .lo = 1,
		     .hi = 2,
		     .threshold = 720,
		     .plateau = 600,
		     .epsilon = 0.2,
		     .plateau_points = 2},
	    .agree = 1,
	    .graph = &gains,
	};
	r->sweep = &sweep;
}

/* ---- reading the page ---------------------------------------------------------------------- */

static char *render(const struct skip_report *r)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	cr_assert_not_null(f);
	cr_assert_eq(skip_export_html(r, f), 0, "%s", skip_errmsg());
	cr_assert_eq(fclose(f), 0);
	return buf;
}

static int count(const char *s, const char *what)
{
	int n = 0;

	for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

/* "nan" or "inf" (any case) as a word of their own: what printf makes of NaN and infinities. */
static const char *nonfinite(const char *s)
{
	for (const char *p = s; *p; p++) {
		if (p > s && isalpha((unsigned char)p[-1]))
			continue;
		if ((!strncasecmp(p, "nan", 3) || !strncasecmp(p, "inf", 3)) &&
		    !isalpha((unsigned char)p[3]))
			return p;
	}
	return NULL;
}

/* The text between @from and the next @to, as a malloc'ed copy ("" when absent). */
static char *between(const char *s, const char *from, const char *to)
{
	const char *a = strstr(s, from), *b = a ? strstr(a, to) : NULL;

	return a && b ? strndup(a, (size_t)(b - a)) : strdup("");
}

/* ---- the tests ----------------------------------------------------------------------------- */

Test(export_html, the_page_is_one_complete_document)
{
	struct skip_report r;
	size_t n;

	report(&r, 1);
	page = render(&r);
	n = strlen(page);
	cr_expect(!strncmp(page, "<!DOCTYPE html>\n<html lang='en'><head>", 38), "%.60s", page);
	cr_expect(n > 16 && !strcmp(page + n - 15, "</body></html>\n"), "%s", page + n - 20);
	cr_expect_eq(count(page, "<html"), 1);
	cr_expect_eq(count(page, "<head>"), 1);
	cr_expect_eq(count(page, "</head>"), 1);
	cr_expect_eq(count(page, "<body>"), 1);
	cr_expect_eq(count(page, "</body>"), 1);
	cr_expect_eq(count(page, "<title>"), 1);
	cr_expect_eq(count(page, "</title>"), 1);
	cr_expect_eq(count(page, "<table"), count(page, "</table>"));
	cr_expect_eq(count(page, "<tr>"), count(page, "</tr>"));
	cr_expect_eq(count(page, "<h2>"), count(page, "</h2>"));
	cr_expect_eq(count(page, "<p ") + count(page, "<p>"), count(page, "</p>"));
	cr_expect_eq(count(page, "<svg"), count(page, "</svg>"));
	cr_expect_eq(count(page, "<script"), 0, "nothing runs");
	cr_expect_eq(count(page, "http"), 0, "nothing is fetched");
}

Test(export_html, a_sweep_draws_one_svg_per_chart_and_both_of_its_tables)
{
	struct skip_report r;
	char *t;

	report(&r, 1);
	page = render(&r);
	cr_expect_eq(count(page, "<svg class='chart'"), 3, "IL, TKLQT, host-side share");
	cr_expect_eq(count(page, "<svg"), 3);
	cr_expect_eq(count(page, "<polyline"), 3);
	cr_expect_eq(count(page, "verdict flip 2.83</text>"), 3, "marked on each chart");
	cr_expect_eq(count(page, "TKLQT knee 3</text>"), 3);
	t = between(page, "<table><tr><th>batch</th><th>runs</th><th>IL</th>", "</table>");
	cr_expect_eq(count(t, "<tr>"), 4, "the header and one row per value");
	free(t);
	t = between(page, "<table class='graph-gain'>", "</table>");
	cr_expect_eq(count(t, "<tr>"), 3, "the header and its two rows");
	cr_expect_eq(count(t, "<td>2.00&times;</td>"), 1);
	cr_expect_eq(count(t, "<td>1.30&times;</td>"), 1);
	cr_expect_eq(count(t, "<td>1.0%</td>"), 1, "calibration error 0.01");
	free(t);
	cr_expect_eq(count(page, "Predicted gain of replaying each run as one CUDA graph"), 1,
		     "the regions are whole runs");
	cr_expect_eq(count(page, "<h2>Regions</h2>"), 0, "a sweep replaces the region charts");
}

Test(export_html, without_its_graph_gain_table_a_sweep_prints_none)
{
	struct skip_report r;

	report(&r, 1);
	sweep.graph = NULL;
	page = render(&r);
	cr_expect_eq(count(page, "graph-gain"), 0);
	cr_expect_eq(count(page, "CUDA graph"), 0);
	cr_expect_eq(count(page, "<svg"), 3);
}

Test(export_html, the_graph_gain_table_names_region_occurrences_for_a_region)
{
	struct skip_report r;

	report(&r, 1);
	for (size_t i = 0; i < r.nregions; i++)
		regions[i].name = "step";
	page = render(&r);
	cr_expect_eq(count(page, "Predicted gain of replaying each region occurrence"), 1);
}

Test(export_html, text_from_the_trace_is_escaped)
{
	struct skip_report r;

	report(&r, 1);
	sweep.param = "b<&>\"";
	page = render(&r);
	cr_expect_eq(count(page, "k<&>\"x"), 0, "a raw kernel name");
	cr_expect_eq(count(page, "k&lt;&amp;&gt;&quot;x"), 1, "the top kernels by GPU time");
	cr_expect_eq(count(page, "b<&>"), 0, "a raw parameter name");
	cr_expect_eq(count(page, "b&lt;&amp;&gt;&quot;"), 9,
		     "heading, 3 x axes, 2 tables, the verdict, the flip and knee notes");
	cr_expect_eq(count(page, "fwd &amp; bwd"), 1);
	cr_expect_eq(count(page, "runs &lt;1&gt; &amp; &quot;2&quot;.skip.db"), 2, "title, header");
	cr_expect_eq(count(page, "GPU &lt;H100&gt;"), 1);
}

Test(export_html, no_number_is_nan_or_infinite)
{
	struct skip_report r;
	const char *bad;

	report(&r, 1);
	page = render(&r);
	bad = nonfinite(page);
	cr_expect_null(bad, "%.40s", bad);
	free(page);
	report(&r, 0);
	page = render(&r);
	bad = nonfinite(page);
	cr_expect_null(bad, "%.40s", bad);
}

Test(export_html, without_a_sweep_the_regions_get_their_two_charts)
{
	struct skip_report r;

	report(&r, 0);
	page = render(&r);
	cr_expect_eq(count(page, "<svg class='chart'"), 2, "IL and host-side share per region");
	cr_expect_eq(count(page, "<h2>Regions</h2>"), 1);
	cr_expect_eq(count(page, "Sweep over"), 0);
	cr_expect_eq(count(page, "graph-gain"), 0);
}

/* Its charts had no point to scale their axes by: the log axis looped forever on infinities. */
Test(export_html, a_sweep_without_points_draws_no_chart, .timeout = 10)
{
	struct skip_report r;
	const char *bad;

	report(&r, 1);
	sweep.npts = 0;
	sweep.flip.found = sweep.knee.found = 0;
	sweep.graph = NULL;
	page = render(&r);
	cr_expect_eq(count(page, "<svg"), 0);
	cr_expect_eq(count(page, "Sweep over"), 1);
	bad = nonfinite(page);
	cr_expect_null(bad, "%.40s", bad);
}

Test(export_html, a_write_error_is_reported)
{
	struct skip_report r;
	FILE *f = fopen("/dev/null", "r"); /* every write fails */

	cr_assert_not_null(f);
	report(&r, 1);
	cr_expect_eq(skip_export_html(&r, f), SKIP_E_IO);
	fclose(f);
}
