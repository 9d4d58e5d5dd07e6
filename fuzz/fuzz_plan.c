/*
 * fuzz_plan.c: plans as JSON (runtime/plan_json.c, skip_plan_from_json()), what `skip run
 * --plan` reads. A plan is read for a graph, so the graphs of the DAG suite (bench/dags) and
 * of tests/fixtures/hand/advise_wl.json are loaded once; the input's "workload" member picks
 * one by name (default: vec, the first below). A plan that loads must
 * pass skip_plan_validate() and survive a write and read back (else abort). Seeds: the plans
 * `skip run --emit-plan` writes for these workloads (fuzz/seeds/plan), each with "workload".
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "skip_runtime.h"

static const char *const files[] = {
    "bench/dags/vec.json", "bench/dags/bs.json",
    "bench/dags/dl.json",  "bench/dags/hits.json",
    "bench/dags/img.json", "bench/dags/m1.json",
    "bench/dags/m2.json",  "bench/dags/ml.json",
    "bench/dags/pdl.json", "tests/fixtures/hand/advise_wl.json",
};
#define NFILES (sizeof(files) / sizeof(files[0]))
static struct skip_workload *wl[NFILES];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fz_init();
	for (size_t i = 0; i < NFILES; i++) {
		int err = 0;

		wl[i] = skip_workload_load(fz_src(files[i]), NULL, NULL, 0, "fuzz.fatbin", &err);
		if (!wl[i]) {
			fprintf(stderr, "fuzz_plan: %s\n", skip_errmsg());
			abort();
		}
	}
	return 0;
}

static const struct skip_graph *pick(const char *text)
{
	cJSON *root = cJSON_Parse(text);
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(root, "workload");
	const struct skip_graph *g = skip_workload_graph(wl[0]);

	for (size_t i = 0; cJSON_IsString(name) && i < NFILES; i++)
		if (!strcmp(name->valuestring, skip_workload_name(wl[i])))
			g = skip_workload_graph(wl[i]);
	cJSON_Delete(root);
	return g;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fz_cstr(data, size), *json;
	const struct skip_graph *g = pick(text);
	struct skip_plan *p = NULL, *back = NULL;

	if (!skip_plan_from_json(g, text, &p)) {
		if (skip_plan_validate(g, p))
			abort(); /* handed out a plan that fails its own check */
		json = skip_plan_to_json(g, p);
		if (!json || skip_plan_from_json(g, json, &back))
			abort(); /* a plan read in does not read back once written */
		free(json);
		skip_plan_free(back);
	}
	skip_plan_free(p);
	free(text);
	return 0;
}
