/*
 * json.c: a report as JSON, following schemas/report.schema.json (`skip report --json`).
 * Times are integer nanoseconds; ratios are fractions (0.25, not 25%).
 */
#include <stdlib.h>

#include <cjson/cJSON.h>

#include "internal.h"

static void num(cJSON *o, const char *k, double v)
{
	cJSON_AddNumberToObject(o, k, v);
}

static cJSON *metrics_json(const struct skip_region *g)
{
	const struct skip_metrics *m = &g->m;
	cJSON *o = cJSON_CreateObject();

	num(o, "run", (double)g->run_id);
	if (g->name)
		cJSON_AddStringToObject(o, "name", g->name);
	else
		cJSON_AddNullToObject(o, "name");
	num(o, "occurrence", g->occurrence);
	cJSON_AddStringToObject(o, "verdict", skip_verdict_name(m->verdict));
	num(o, "start_ns", (double)m->start_ns);
	num(o, "end_ns", (double)m->end_ns);
	num(o, "il_ns", (double)m->il_ns);
	num(o, "tklqt_ns", (double)m->tklqt_ns);
	num(o, "t_api_ns", (double)m->t_api_ns);
	num(o, "t_queue_ns", (double)m->t_queue_ns);
	num(o, "queue_nonnegative_ns", (double)m->queue_pos_ns);
	num(o, "kernels", (double)m->kernels);
	num(o, "launched_kernels", (double)m->launched);
	num(o, "graph_nodes", (double)m->graph_nodes);
	num(o, "kernels_without_launch_call", (double)m->no_api);
	num(o, "memcpys", (double)m->memcpys);
	num(o, "memsets", (double)m->memsets);
	num(o, "kernel_ns", (double)m->kernel_ns);
	num(o, "akd_ns", m->akd_ns);
	num(o, "median_t_api_ns", (double)m->median_t_api_ns);
	num(o, "short_kernels", (double)m->short_kernels);
	num(o, "short_kernel_ns", (double)m->short_kernel_ns);
	num(o, "busy_ns", (double)m->busy_ns);
	num(o, "idle_ns", (double)m->idle_ns);
	num(o, "il_minus_kernel_ns", (double)m->il_minus_kernel_ns);
	num(o, "host_wait_ns", (double)m->host_wait_ns);
	num(o, "sync_stall_ns", (double)m->sync_stall_ns);
	num(o, "device_latency_ns", (double)m->device_latency_ns);
	num(o, "launch_latency_ns", (double)m->launch_latency_ns);
	num(o, "host_share", m->host_share);
	num(o, "launches_per_s", m->launches_per_s);
	num(o, "negative_t_queue", (double)m->neg_queue);
	num(o, "negative_t_launch", (double)m->neg_launch);
	num(o, "devices", m->ndevices);
	return o;
}

static cJSON *names_json(const struct skip_name_stat *v, size_t n, int operators,
			 int64_t all_kernel_ns)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; i < n; i++) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "name", v[i].name);
		if (operators)
			cJSON_AddStringToObject(o, "attribution", skip_attr_name(v[i].attr));
		num(o, "kernels", (double)v[i].count);
		num(o, operators ? "gpu_ns" : "total_ns", (double)v[i].total_ns);
		num(o, "mean_ns", v[i].count ? (double)v[i].total_ns / (double)v[i].count : 0);
		num(o, "min_ns", (double)v[i].min_ns);
		num(o, "max_ns", (double)v[i].max_ns);
		num(o, "launch_ns", (double)v[i].launch_ns);
		num(o, "share", all_kernel_ns ? (double)v[i].total_ns / (double)all_kernel_ns : 0);
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

/* The kernels of a group of operators (or of none): count, GPU and launch time, share. */
static cJSON *group_json(const struct skip_name_stat *s, int64_t all_kernel_ns)
{
	cJSON *o = cJSON_CreateObject();

	num(o, "kernels", (double)s->count);
	num(o, "gpu_ns", (double)s->total_ns);
	num(o, "launch_ns", (double)s->launch_ns);
	num(o, "share", all_kernel_ns ? (double)s->total_ns / (double)all_kernel_ns : 0);
	return o;
}

/* How the kernels got their operators, the operators past the top list and the kernels with
 * none: with top_operators, they add up to every kernel of the regions. */
static void attribution_json(cJSON *o, const struct skip_report *r, int64_t all_kernel_ns)
{
	cJSON *by = cJSON_CreateObject(), *rest = group_json(&r->ops_rest, all_kernel_ns);

	for (int a = 0; a < SKIP_ATTR_N; a++)
		num(by, skip_attr_name((enum skip_attr)a), (double)r->kernels_by_attr[a]);
	cJSON_AddItemToObject(o, "kernels_by_attribution", by);
	num(rest, "operators", (double)r->nops_rest);
	cJSON_AddItemToObject(o, "operators_not_listed", rest);
	cJSON_AddItemToObject(o, "operator_none", group_json(&r->ops_none, all_kernel_ns));
}

static cJSON *summary_json(const struct skip_report *r)
{
	cJSON *o = cJSON_CreateObject();

	for (int id = 0; id < SKIP_M_COUNT; id++) {
		const struct skip_stat *s = &r->stats[id];
		cJSON *m = cJSON_CreateObject();

		cJSON_AddStringToObject(m, "unit", skip_metric_unit((enum skip_metric_id)id));
		num(m, "n", s->n);
		num(m, "mean", s->mean);
		num(m, "median", s->median);
		num(m, "min", s->min);
		num(m, "max", s->max);
		num(m, "stdev", s->stdev);
		cJSON_AddItemToObject(o, skip_metric_name((enum skip_metric_id)id), m);
	}
	return o;
}

static cJSON *crossing_json(const struct skip_sweep *s, const struct skip_crossing *c, int knee)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddBoolToObject(o, "found", c->found);
	if (c->found) {
		num(o, "value", c->value);
		num(o, "between_low", s->pts[c->lo].value);
		num(o, "between_high", s->pts[c->hi].value);
	} else {
		cJSON_AddNullToObject(o, "value");
		cJSON_AddNullToObject(o, "between_low");
		cJSON_AddNullToObject(o, "between_high");
	}
	num(o, "threshold", c->threshold);
	if (knee) {
		num(o, "plateau_ns", c->plateau);
		num(o, "epsilon", c->epsilon);
		num(o, "plateau_points", c->plateau_points);
	} else {
		num(o, "flips", c->flips);
	}
	return o;
}

/* The graph-gain table: one object per row (struct skip_graph_gain). */
static cJSON *graph_gain_json(const struct skip_graph_gains *g)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; i < g->nrows; i++) {
		const struct skip_graph_gain *w = &g->rows[i];
		cJSON *q = cJSON_CreateObject();

		num(q, "value", w->value);
		num(q, "runs", w->runs);
		num(q, "il_ns", w->il_ns);
		num(q, "model_ns", w->model_ns);
		num(q, "calibration_error", w->calibration_error);
		num(q, "unprofiled_ns", w->unprofiled_ns);
		num(q, "graph_ns", w->graph_ns);
		num(q, "gain", w->gain);
		num(q, "persistent_ns", w->persist_ns);
		cJSON_AddStringToObject(q, "persistent_mode", w->persist_mode);
		num(q, "persistent_gain", w->persist_gain);
		cJSON_AddItemToArray(a, q);
	}
	return a;
}

static cJSON *sweep_json(const struct skip_sweep *s)
{
	cJSON *o = cJSON_CreateObject(), *pts = cJSON_CreateArray();

	cJSON_AddStringToObject(o, "parameter", s->param);
	for (size_t i = 0; i < s->npts; i++) {
		const struct skip_sweep_point *p = &s->pts[i];
		cJSON *q = cJSON_CreateObject();

		num(q, "value", p->value);
		num(q, "runs", p->runs);
		num(q, "regions", p->regions);
		num(q, "il_ns", p->il_ns);
		num(q, "tklqt_ns", p->tklqt_ns);
		num(q, "tklqt_per_kernel_ns", p->tklqt_per_kernel_ns);
		num(q, "akd_ns", p->akd_ns);
		num(q, "busy_ns", p->busy_ns);
		num(q, "idle_ns", p->idle_ns);
		num(q, "host_share", p->host_share);
		num(q, "kernels", p->kernels);
		num(q, "launches_per_s", p->launches_per_s);
		cJSON_AddStringToObject(q, "verdict", skip_verdict_name(p->verdict));
		cJSON_AddItemToArray(pts, q);
	}
	cJSON_AddItemToObject(o, "points", pts);
	cJSON_AddItemToObject(o, "verdict_flip", crossing_json(s, &s->flip, 0));
	cJSON_AddItemToObject(o, "tklqt_knee", crossing_json(s, &s->knee, 1));
	cJSON_AddBoolToObject(o, "agree", s->agree);
	if (s->graph) /* absent unless the advisor filled it */
		cJSON_AddItemToObject(o, "graph_gain", graph_gain_json(s->graph));
	return o;
}

/* {"total": N, "records": [{"table", "reason", "count"}, ...]}: the records left out. */
static cJSON *malformed_json(const struct skip_malformed *m)
{
	cJSON *o = cJSON_CreateObject(), *a = cJSON_CreateArray();

	num(o, "total", (double)m->total);
	for (int t = 0; t < SKIP_TABLE_COUNT; t++)
		for (int b = 0; b < SKIP_BAD_COUNT; b++) {
			cJSON *e;

			if (!m->count[t][b])
				continue;
			e = cJSON_CreateObject();
			cJSON_AddStringToObject(e, "table", skip_table_name((enum skip_table)t));
			cJSON_AddStringToObject(e, "reason", skip_bad_name((enum skip_bad)b));
			num(e, "count", (double)m->count[t][b]);
			cJSON_AddItemToArray(a, e);
		}
	cJSON_AddItemToObject(o, "records", a);
	return o;
}

/* [{"name": key, "reason": text}] for what the trace's source did not record. */
static cJSON *unavailable_json(const struct skip_report *r)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; i < r->nunavailable; i++) {
		cJSON *e = cJSON_CreateObject();

		cJSON_AddStringToObject(e, "name", r->unavailable[i]);
		cJSON_AddStringToObject(e, "reason", skip_unavailable_text(r->unavailable[i]));
		cJSON_AddItemToArray(a, e);
	}
	return a;
}

/* The metrics a recording lengthens (docs/skip-report.md "Recording cost"). */
static const char *const inflated[] = {"il_ns", "tklqt_ns", "t_api_ns", "host_share"};

static cJSON *cost_kind_json(const struct skip_cost_kind *k)
{
	cJSON *o = cJSON_CreateObject();

	num(o, "runs", k->runs);
	num(o, "occurrences", k->occurrences);
	num(o, "per_run_min", k->per_run_min);
	num(o, "per_run_max", k->per_run_max);
	num(o, "wall_ns", k->wall_ns);
	num(o, "wall_min_ns", k->wall_min_ns);
	num(o, "wall_max_ns", k->wall_max_ns);
	return o;
}

static void num_or_null(cJSON *o, const char *name, int have, double v)
{
	if (have)
		num(o, name, v);
	else
		cJSON_AddNullToObject(o, name);
}

static cJSON *cost_json(const struct skip_recording_cost *c)
{
	cJSON *o = cJSON_CreateObject(), *rows = cJSON_CreateArray();

	num(o, "baseline_runs", (double)c->baseline_runs);
	cJSON_AddBoolToObject(o, "capture", c->capture);
	if (c->region)
		cJSON_AddStringToObject(o, "region", c->region);
	else
		cJSON_AddNullToObject(o, "region");
	for (size_t i = 0; i < c->nrows; i++) {
		const struct skip_cost_row *w = &c->rows[i];
		cJSON *e = cJSON_CreateObject();
		int ok = !w->problem;

		cJSON_AddStringToObject(e, "config", w->config);
		cJSON_AddItemToObject(e, "full", cost_kind_json(&w->full));
		cJSON_AddItemToObject(e, "baseline", cost_kind_json(&w->baseline));
		if (c->capture) {
			cJSON_AddItemToObject(e, "first", cost_kind_json(&w->first));
			num_or_null(e, "first_ratio", w->first_ratio > 0, w->first_ratio);
		}
		num_or_null(e, "ratio", ok, w->ratio);
		num_or_null(e, "ratio_min", ok && w->pairs, w->ratio_min);
		num_or_null(e, "ratio_max", ok && w->pairs, w->ratio_max);
		num(e, "pairs", w->pairs);
		num(e, "il_ns", w->il_ns);
		num(e, "host_share", w->host_share);
		num_or_null(e, "host_share_unprofiled", w->host_share_unprofiled >= 0,
			    w->host_share_unprofiled);
		if (w->problem)
			cJSON_AddStringToObject(e, "problem", w->problem);
		else
			cJSON_AddNullToObject(e, "problem");
		cJSON_AddItemToArray(rows, e);
	}
	cJSON_AddItemToObject(o, "rows", rows);
	return o;
}

char *skip_report_json(const struct skip_report *r)
{
	cJSON *o = cJSON_CreateObject(), *regions = cJSON_CreateArray();
	int64_t all_kernel_ns = 0;
	char *s;

	for (size_t i = 0; i < r->nregions; i++) {
		cJSON_AddItemToArray(regions, metrics_json(&r->regions[i]));
		all_kernel_ns = skip_add_sat(all_kernel_ns, r->regions[i].m.kernel_ns);
	}
	cJSON_AddStringToObject(o, "skip_version", SKIP_VERSION);
	cJSON_AddStringToObject(o, "file", r->path);
	cJSON_AddStringToObject(o, "gpu", r->gpu);
	num(o, "runs", (double)r->runs);
	num(o, "failed_runs", (double)r->failed_runs);
	num(o, "dropped_records", (double)r->dropped);
	if (r->malformed.total) /* absent when none, as before it existed */
		cJSON_AddItemToObject(o, "malformed_records", malformed_json(&r->malformed));
	if (r->nregions && r->regions[0].name)
		cJSON_AddStringToObject(o, "region", r->regions[0].name);
	else
		cJSON_AddNullToObject(o, "region");
	num(o, "threshold", r->threshold);
	cJSON_AddStringToObject(o, "verdict", skip_verdict_name(r->verdict));
	num(o, "empty_regions", (double)r->nempty);
	num(o, "distinct_kernels", (double)r->distinct_kernels);
	num(o, "kernels_with_operator", (double)r->kernels_with_operator);
	cJSON_AddStringToObject(o, "torch_ops", r->torch_ops);
	if (r->capture_range[0]) /* absent for a whole-program recording */
		cJSON_AddStringToObject(o, "capture_range", r->capture_range);
	if (r->source[0]) /* absent for skip record's traces */
		cJSON_AddStringToObject(o, "source", r->source);
	if (r->nunavailable)
		cJSON_AddItemToObject(o, "unavailable", unavailable_json(r));
	if (r->sweep)
		cJSON_AddItemToObject(o, "sweep", sweep_json(r->sweep));
	else
		cJSON_AddNullToObject(o, "sweep");
	cJSON_AddItemToObject(
	    o, "inflated_by_recording",
	    cJSON_CreateStringArray(inflated, (int)(sizeof(inflated) / sizeof(inflated[0]))));
	if (r->cost) /* absent without baseline runs */
		cJSON_AddItemToObject(o, "recording_cost", cost_json(r->cost));
	cJSON_AddItemToObject(o, "summary", summary_json(r));
	cJSON_AddItemToObject(o, "regions", regions);
	cJSON_AddItemToObject(o, "top_kernels_by_time",
			      names_json(r->top_by_time, r->ntop_time, 0, all_kernel_ns));
	cJSON_AddItemToObject(o, "top_kernels_by_count",
			      names_json(r->top_by_count, r->ntop_count, 0, all_kernel_ns));
	cJSON_AddItemToObject(o, "top_operators",
			      names_json(r->top_ops, r->ntop_ops, 1, all_kernel_ns));
	attribution_json(o, r, all_kernel_ns);
	s = cJSON_Print(o);
	cJSON_Delete(o);
	return s;
}
