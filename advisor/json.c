/*
 * json.c: the advice as JSON (skip advise --json) and as a plan file (skip advise -o), whose
 * format is schemas/plan.schema.json: the runtime's plan with "advice" and "prediction".
 */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static const char *const kind_names[] = {
    [SKIP_ADVICE_GRAPH] = "graph",	  [SKIP_ADVICE_FUSION] = "fusion",
    [SKIP_ADVICE_STREAMS] = "streams",	  [SKIP_ADVICE_DAGGRAPH] = "dag-graph",
    [SKIP_ADVICE_PERSIST] = "persistent",
};

const char *skip_advice_kind_name(enum skip_advice_kind k)
{
	return (unsigned)k < sizeof(kind_names) / sizeof(kind_names[0]) ? kind_names[k] : "?";
}

static cJSON *chain_names(const struct skip_chain *ch)
{
	cJSON *a = cJSON_CreateArray();

	for (int k = 0; k < ch->len; k++)
		cJSON_AddItemToArray(a, cJSON_CreateString(ch->names[k]));
	return a;
}

/* One advice item; @full adds the members the plan schema does not have. */
static cJSON *item_json(const struct skip_advice_report *r, const struct skip_advice *a, int full)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "kind", skip_advice_kind_name(a->kind));
	cJSON_AddStringToObject(o, "title", a->title);
	cJSON_AddNumberToObject(o, "baseline_il_ns", a->baseline_il_ns);
	cJSON_AddNumberToObject(o, "predicted_il_ns", a->predicted_il_ns);
	cJSON_AddNumberToObject(o, "speedup", a->speedup);
	cJSON_AddNumberToObject(o, "saved_ns", a->saved_ns);
	cJSON_AddStringToObject(o, "assumptions", a->assumptions);
	if (a->chain >= 0 && (size_t)a->chain < r->nchains) {
		const struct skip_chain *ch = &r->chains[a->chain];

		cJSON_AddItemToObject(o, "chain", chain_names(ch));
		cJSON_AddNumberToObject(o, "ps", ch->ps);
		cJSON_AddNumberToObject(o, "count", (double)ch->count);
		if (a->overlaps >= 0) /* the chain's number, as the titles give it */
			cJSON_AddNumberToObject(o, "overlaps", a->overlaps + 1);
		else
			cJSON_AddNullToObject(o, "overlaps");
	}
	if (a->kind == SKIP_ADVICE_PERSIST && a->persist_mode >= 0) {
		cJSON *modes = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "mode", skip_persist_mode_name(a->persist_mode));
		for (int m = 0; m < SKIP_PERSIST_NMODES; m++) {
			cJSON *e;
			double p = a->persist_il_ns[m];

			if (p < 0) /* a mode not predicted (E5 runs aot and jit) */
				continue;
			e = cJSON_CreateObject();
			cJSON_AddNumberToObject(e, "predicted_il_ns", p);
			cJSON_AddNumberToObject(e, "speedup", p > 0 ? a->baseline_il_ns / p : 0);
			cJSON_AddNumberToObject(e, "saved_ns", a->baseline_il_ns - p);
			cJSON_AddItemToObject(modes, skip_persist_mode_name(m), e);
		}
		cJSON_AddItemToObject(o, "modes", modes);
	}
	if (full) {
		cJSON_AddNumberToObject(o, "total_saved_ns", a->total_saved_ns);
		cJSON_AddNumberToObject(o, "regions", (double)a->regions);
		cJSON_AddNumberToObject(o, "calibration_error", a->calibration_error);
		cJSON_AddBoolToObject(o, "has_plan", a->plan_json != NULL);
		/* the item's own plan, so that one other than the best can be run too */
		if (a->plan_json)
			cJSON_AddItemToObject(o, "plan", cJSON_Parse(a->plan_json));
	}
	return o;
}

static cJSON *prediction_json(const struct skip_advice_report *r)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "trace", r->path ? r->path : "");
	cJSON_AddNumberToObject(o, "run", (double)r->run_id);
	if (r->workload || r->region)
		cJSON_AddNumberToObject(o, "runs", (double)r->runs);
	if (r->region)
		cJSON_AddStringToObject(o, "region", r->region);
	else
		cJSON_AddNullToObject(o, "region");
	cJSON_AddNumberToObject(o, "regions", (double)r->regions);
	cJSON_AddNumberToObject(o, "recorded_il_ns", r->recorded_il_ns);
	cJSON_AddNumberToObject(o, "replay_il_ns", r->replay_il_ns);
	cJSON_AddNumberToObject(o, "calibration_error", r->calibration_error);
	if (r->best_plan >= 0)
		cJSON_AddNumberToObject(o, "predicted_speedup", r->items[r->best_plan].speedup);
	else
		cJSON_AddNullToObject(o, "predicted_speedup");
	cJSON_AddBoolToObject(o, "profiled", r->profiled);
	return o;
}

static cJSON *calibration_json(const struct skip_advice_report *r)
{
	const struct skip_calibration *c = &r->cal;
	cJSON *o = cJSON_CreateObject();

	for (const struct skip_calibration_key *k = skip_calibration_keys; k->name; k++)
		cJSON_AddNumberToObject(o, k->name, *(const double *)((const char *)c + k->offset));
	return o;
}

static char *print(cJSON *root)
{
	char *s = root ? cJSON_Print(root) : NULL;

	cJSON_Delete(root);
	return s;
}

char *skip_advice_json(const struct skip_advice_report *r)
{
	cJSON *root = cJSON_CreateObject(), *chains = cJSON_CreateArray(), *items, *rec;

	cJSON_AddNumberToObject(root, "skip_advice", 1);
	cJSON_AddItemToObject(root, "model", prediction_json(r));
	if (r->workload)
		cJSON_AddStringToObject(root, "workload", r->workload);
	rec = cJSON_CreateObject();
	cJSON_AddNumberToObject(rec, "launch_latency_ns", r->launch_latency_ns);
	cJSON_AddNumberToObject(rec, "stream_gap_ns", r->stream_gap_ns);
	cJSON_AddNumberToObject(rec, "sync_return_ns", r->sync_return_ns);
	if (r->profiler_launch_ns >= 0)
		cJSON_AddNumberToObject(rec, "profiler_launch_ns", r->profiler_launch_ns);
	else
		cJSON_AddNullToObject(rec, "profiler_launch_ns");
	cJSON_AddItemToObject(root, "recorded_latencies", rec);
	rec = cJSON_CreateObject();
	cJSON_AddStringToObject(rec, "source", r->unprofiled_source);
	if (r->unprofiled_ns > 0)
		cJSON_AddNumberToObject(rec, "baseline_ns", r->unprofiled_ns);
	else
		cJSON_AddNullToObject(rec, "baseline_ns");
	cJSON_AddNumberToObject(rec, "baseline_runs", (double)r->baseline_runs);
	cJSON_AddNumberToObject(rec, "uncaptured", (double)r->uncaptured);
	if (r->uncaptured)
		cJSON_AddStringToObject(rec, "uncaptured_from",
					r->uncaptured_before ? "before" : "outside");
	else
		cJSON_AddNullToObject(rec, "uncaptured_from");
	cJSON_AddNumberToObject(rec, "calls_per_launch", r->calls_per_launch);
	if (r->unprofiled_note)
		cJSON_AddStringToObject(rec, "note", r->unprofiled_note);
	else
		cJSON_AddNullToObject(rec, "note");
	cJSON_AddItemToObject(root, "unprofiled", rec);
	cJSON_AddItemToObject(root, "calibration", calibration_json(r));
	for (size_t i = 0; i < r->nchains; i++) {
		const struct skip_chain *ch = &r->chains[i];
		cJSON *o = cJSON_CreateObject();

		cJSON_AddItemToObject(o, "kernels", chain_names(ch));
		cJSON_AddNumberToObject(o, "length", ch->len);
		cJSON_AddNumberToObject(o, "count", (double)ch->count);
		cJSON_AddNumberToObject(o, "head_launches", (double)ch->head_launches);
		cJSON_AddNumberToObject(o, "ps", ch->ps);
		cJSON_AddNumberToObject(o, "launch_ns", ch->launch_ns);
		cJSON_AddNumberToObject(o, "recoverable_ns", ch->recoverable_ns);
		cJSON_AddItemToArray(chains, o);
	}
	cJSON_AddItemToObject(root, "chains", chains);
	items = cJSON_CreateArray();
	for (size_t i = 0; i < r->nitems; i++)
		cJSON_AddItemToArray(items, item_json(r, &r->items[i], 1));
	cJSON_AddItemToObject(root, "advice", items);
	cJSON_AddNumberToObject(root, "best_plan", r->best_plan);
	cJSON_AddNumberToObject(root, "fusion_no_gain", (double)r->fusion_no_gain);
	if (r->plan_note)
		cJSON_AddStringToObject(root, "plan_note", r->plan_note);
	return print(root);
}

char *skip_advice_plan(const struct skip_advice_report *r)
{
	cJSON *root, *items;

	if (r->best_plan < 0 || !r->items[r->best_plan].plan_json) {
		sk_fail(SKIP_E_UNSUPPORTED, "no executable plan: only a workload's task graph "
					    "(--workload) becomes a plan that skip run executes");
		return NULL;
	}
	root = cJSON_Parse(r->items[r->best_plan].plan_json);
	if (!root) {
		sk_fail(SKIP_E_NOMEM, "out of memory");
		return NULL;
	}
	items = cJSON_CreateArray();
	cJSON_AddItemToArray(items, item_json(r, &r->items[r->best_plan], 0));
	for (size_t i = 0; i < r->nitems; i++)
		if ((int)i != r->best_plan)
			cJSON_AddItemToArray(items, item_json(r, &r->items[i], 0));
	cJSON_AddItemToObject(root, "advice", items);
	cJSON_AddItemToObject(root, "prediction", prediction_json(r));
	return print(root);
}
