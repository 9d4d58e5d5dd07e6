/*
 * fuzz_workload.c: workload files (runtime/workload.c, skip_workload_load()), the CPU half
 * of `skip run`. The input is the workload's JSON text, written to the scratch folder and
 * loaded with no size, then with each of its first "sizes" (the second time with its first
 * parameter overridden, as -D does). Each graph that loads gets a plan computed for every
 * executor, written as JSON and read back (what --emit-plan and --plan do); a computed plan
 * that fails validation or does not read back is a bug (abort). Seeds: the workloads of bench/dags
 * and tests/fixtures/hand/advise_wl.json.
 */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "skip_runtime.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fz_init();
	return 0;
}

static void round_trip(const struct skip_graph *g, const struct skip_plan *p)
{
	struct skip_plan *back = NULL;
	char *json;

	if (skip_plan_validate(g, p))
		abort(); /* skip_plan_compute() made a plan its own check refuses */
	json = skip_plan_to_json(g, p);
	if (!json)
		abort();
	if (skip_plan_from_json(g, json, &back))
		abort(); /* --emit-plan wrote a plan that --plan refuses */
	skip_plan_free(back);
	free(json);
}

static void plans(struct skip_workload *w)
{
	const struct skip_graph *g = skip_workload_graph(w);

	for (int e = 0; e < SKIP_NEXECUTORS; e++) {
		struct skip_plan_opts o = {.executor = (enum skip_executor)e, .pdl = e != 1};
		struct skip_plan *p = NULL;

		if (!skip_plan_compute(g, &o, &p))
			round_trip(g, p);
		skip_plan_free(p);
	}
}

static void load(const char *path, const char *size, const struct skip_param *over, int nover)
{
	int err = 0;
	struct skip_workload *w = skip_workload_load(path, size, over, nover, NULL, &err);

	if (w) {
		plans(w);
		skip_workload_param(w, "N", 0);
	}
	skip_workload_free(w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fz_path("workload.json");
	char *text = fz_cstr(data, size);
	cJSON *root = cJSON_Parse(text), *sizes, *params, *it, *list;
	int n = 0;

	fz_write(path, data, size);
	load(path, NULL, NULL, 0);
	sizes = cJSON_GetObjectItemCaseSensitive(root, "sizes");
	params = cJSON_GetObjectItemCaseSensitive(root, "params");
	list = cJSON_IsObject(sizes) ? sizes : NULL;
	cJSON_ArrayForEach(it, list)
	{
		struct skip_param over = {NULL, 1};

		if (!it->string || n++ == 3)
			break;
		load(path, it->string, NULL, 0);
		if (cJSON_IsObject(params) && params->child && params->child->string) {
			over.name = params->child->string;
			load(path, it->string, &over, 1);
		}
	}
	cJSON_Delete(root);
	free(text);
	unlink(path);
	return 0;
}
