/*
 * test_runtime.c: the bundled runtime on a GPU, through `skip run`: every executor on every
 * DAG of the suite (bench/dags, small size) gives the serial executor's results (--verify);
 * programmatic-dependent-launch edges keep a dependent chain's results; a plan written by
 * --emit-plan runs back; a plan that breaks a dependency is refused before anything runs;
 * E5's resident kernel, replaced when it left between runs, keeps them too, and so do more AOT
 * workers than SMs; a batched grid loop (skip_grid_batched) visits every element once;
 * --probe-starts finds that kernel starts cost ML's row-dots (which re-read their weights
 * through L1), leaves its short tasks unprobed and times each task beside a copy of itself (at
 * the small size, two copies of a row-dot overlap); --tile-times records every tile of E5's
 * last run, in each mode, in an order the dependencies allow.
 *
 * Run with `make test-gpu` (SKIP and SKIP_SRC come from the Makefile; the DAG modules are
 * built next to skip, in $(O)/dags). Every test skips itself where no GPU is found.
 */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "skip_common.h"

static char tmp[256];

static int gpu_present(void)
{
	return system("nvidia-smi -L >/dev/null 2>&1") == 0;
}

static void setup(void)
{
	char mods[1024], skip[1024];

	if (!gpu_present())
		cr_skip_test("no NVIDIA GPU found (nvidia-smi -L failed): GPU tests skipped");
	cr_assert_not_null(getenv("SKIP"), "run through 'make test-gpu' (SKIP unset)");
	cr_assert_not_null(getenv("SKIP_SRC"), "run through 'make test-gpu' (SKIP_SRC unset)");
	snprintf(skip, sizeof(skip), "%s", getenv("SKIP"));
	snprintf(mods, sizeof(mods), "%s/dags", dirname(skip));
	setenv("SKIP_MODULE_PATH", mods, 1);
	snprintf(tmp, sizeof(tmp), "/tmp/skip-rt-XXXXXX");
	cr_assert_not_null(mkdtemp(tmp));
}

static void teardown(void)
{
	char cmd[300];

	if (tmp[0] && !getenv("SKIP_KEEP")) {
		snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
		(void)!system(cmd);
	}
}

TestSuite(gpu_runtime, .init = setup, .fini = teardown, .timeout = 300);

/* `skip run SRC/bench/dags/WORKLOAD ARGS > TMP/out.json 2> TMP/err.txt`; the exit code. */
static int skip_run(const char *workload, const char *args)
{
	char cmd[2048];
	int rc;

	snprintf(cmd, sizeof(cmd), "%s run %s/bench/dags/%s %s > %s/out.json 2> %s/err.txt",
		 getenv("SKIP"), getenv("SKIP_SRC"), workload, args, tmp, tmp);
	rc = system(cmd);
	snprintf(cmd, sizeof(cmd), "cat %s/err.txt >&2", tmp);
	(void)!system(cmd);
	return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static char *slurp(const char *name)
{
	char path[512];
	FILE *f;
	char *buf = calloc(1, 1 << 20);

	snprintf(path, sizeof(path), "%s/%s", tmp, name);
	f = fopen(path, "r");
	cr_assert_not_null(f, "%s", path);
	(void)!fread(buf, 1, (1 << 20) - 1, f);
	fclose(f);
	return buf;
}

/* Every result of the last run is verified against the serial executor; returns how many. */
static int all_verified(void)
{
	char *text = slurp("out.json");
	cJSON *root = cJSON_Parse(text), *r;
	int n = 0;

	cr_assert_not_null(root, "skip run --json printed no JSON: %s", text);
	cJSON_ArrayForEach(r, cJSON_GetObjectItem(root, "results"))
	{
		const cJSON *v = cJSON_GetObjectItem(r, "verified");
		const cJSON *e = cJSON_GetObjectItem(r, "executor");

		cr_assert(cJSON_IsTrue(v), "%s: not verified: %s", e ? e->valuestring : "?",
			  cJSON_Print(r));
		n++;
	}
	cJSON_Delete(root);
	free(text);
	return n;
}

static const char *const suite[] = {"vec.json", "bs.json", "ml.json", "hits.json",
				    "img.json", "dl.json", "m1.json", "m2.json"};

/* The parameters are indices: Criterion may run each case in a fresh process, where pointers
 * taken in this one would not be valid. */
ParameterizedTestParameters(gpu_runtime, every_executor_matches_serial)
{
	static int idx[] = {0, 1, 2, 3, 4, 5, 6, 7};

	return cr_make_param_array(int, idx, sizeof(idx) / sizeof(idx[0]));
}

ParameterizedTest(int *i, gpu_runtime, every_executor_matches_serial)
{
	cr_assert_eq(
	    skip_run(suite[*i], "--size small --executor all --verify --iterations 3 --json"), 0);
	cr_assert_eq(all_verified(), 5, "serial, streams, graph, window and persistent (aot)");
	cr_assert_eq(skip_run(suite[*i], "--size small --executor persistent --mode jit --verify "
					 "--iterations 3 --json"),
		     0);
	cr_assert_eq(all_verified(), 1, "persistent (jit)");
	cr_assert_eq(skip_run(suite[*i], "--size small --executor persistent --workers 3 --verify "
					 "--iterations 3 --json"),
		     0);
	cr_assert_eq(all_verified(), 1, "persistent (aot) on 3 workers");
	cr_assert_eq(skip_run(suite[*i], "--size small --executor persistent --mode copilot "
					 "--verify --iterations 3 --json"),
		     0);
	cr_assert_eq(all_verified(), 1, "persistent (copilot)");
	cr_assert_eq(skip_run(suite[*i],
			      "--size small --executor persistent --mode copilot "
			      "--lookahead 0 --workers 3 --verify --iterations 3 --json"),
		     0);
	cr_assert_eq(all_verified(), 1, "persistent (copilot, no lookahead) on 3 workers");
}

/* AOT's kernel stays resident between runs. With SKIP_E5_LINGER_US=0 it leaves as soon as it
 * is idle, so the runs find it gone or leaving and start another (the race between the bell
 * and its leaving); with SKIP_E5_RESIDENT=0 every run is a launch. Results match either way. */
/* `skip run WORKLOAD --executor persistent` (aot) with @var=0 in its environment: exit 0 and its
 * one result verified against E1. */
static void run_aot_with(const char *var, const char *workload, int iterations, const char *what)
{
	char args[160];

	snprintf(args, sizeof(args),
		 "--size small --executor persistent --verify --iterations %d --json", iterations);
	setenv(var, "0", 1);
	cr_assert_eq(skip_run(workload, args), 0, "%s", what);
	unsetenv(var);
	cr_assert_eq(all_verified(), 1, "%s", what);
}

Test(gpu_runtime, a_resident_kernel_that_left_is_replaced_by_the_next_run)
{
	run_aot_with("SKIP_E5_LINGER_US", "m1.json", 50, "persistent (aot), a new kernel each run");
	run_aot_with("SKIP_E5_RESIDENT", "hits.json", 20, "persistent (aot), not resident");
}

/* More AOT workers than SMs (160 on the H100's 132): the workers number themselves by SM
 * (skip_task.cuh, sk_gpu_worker_by_sm); results match E1's, resident and launched each run. A
 * GPU that cannot hold 160 co-resident refuses the plan (exit 2) and the case is skipped. */
Test(gpu_runtime, more_aot_workers_than_sms_keep_the_results)
{
	static const char *const dags[] = {"img.json", "bs.json", "m1.json"};
	const char *args = "--size small --executor persistent --mode aot --workers 160 --verify "
			   "--iterations 5 --json";

	for (int i = 0; i < 3; i++) {
		int rc = skip_run(dags[i], args);

		if (rc == 2) {
			char *err = slurp("err.txt"), *out = slurp("out.json");
			int too_many =
			    strstr(err, "fit co-resident") || strstr(out, "fit co-resident");

			free(err);
			free(out);
			cr_assert(too_many, "%s: exit 2, not for the worker count", dags[i]);
			cr_skip_test("160 workers do not fit co-resident on this GPU");
		}
		cr_assert_eq(rc, 0, "%s", dags[i]);
		cr_assert_eq(all_verified(), 1, "%s on 160 workers", dags[i]);
		setenv("SKIP_E5_RESIDENT", "0", 1);
		rc = skip_run(dags[i], args);
		unsetenv("SKIP_E5_RESIDENT");
		cr_assert_eq(rc, 0, "%s, launched each run", dags[i]);
		cr_assert_eq(all_verified(), 1, "%s on 160 workers, launched each run", dags[i]);
	}
}

/* out.json's first result's "workers", and the SMs its "device" names. */
static int run_workers(int *sms)
{
	char *text = slurp("out.json");
	cJSON *root = cJSON_Parse(text), *r;
	const cJSON *d, *w;
	const char *at;
	int n;

	cr_assert_not_null(root, "skip run --json printed no JSON: %s", text);
	r = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "results"), 0);
	w = cJSON_GetObjectItem(r, "workers");
	d = cJSON_GetObjectItem(root, "device");
	cr_assert(cJSON_IsNumber(w), "no workers: %s", text);
	at = cJSON_IsString(d) ? strstr(d->valuestring, " SMs") : NULL;
	cr_assert_not_null(at, "no SM count in the device: %s", text);
	while (at > d->valuestring && at[-1] >= '0' && at[-1] <= '9')
		at--;
	*sms = atoi(at);
	n = w->valueint;
	cJSON_Delete(root);
	free(text);
	return n;
}

/* E5's default workers: B&S's ten independent tasks have 160 tiles, more than an H100's 132
 * SMs, so AOT runs one worker a tile (two on some SMs); ML's levels have 128, a worker per SM. */
Test(gpu_runtime, default_workers_follow_the_widest_level)
{
	const char *args = "--size small --executor persistent --mode aot --verify --iterations 3 "
			   "--json";
	int sms = 0, w;

	cr_assert_eq(skip_run("bs.json", args), 0);
	cr_assert_eq(all_verified(), 1);
	w = run_workers(&sms);
	/* two fit on an SM (skip_task.cuh's default build) */
	cr_expect_eq(w, sms >= 160 ? sms : 2 * sms >= 160 ? 160 : 2 * sms, "B&S on %d SMs", sms);
	cr_assert_eq(skip_run("ml.json", args), 0);
	w = run_workers(&sms);
	cr_expect_eq(w, sms, "ML");
}

/* The end of the last tile of task @name in tile timeline @ev (ns on the trace's time base), and
 * the start of its first in *@first; -1 when it has no tile. */
static double task_span(const cJSON *ev, const char *name, double *first)
{
	const cJSON *e;
	double last = -1;

	*first = -1;
	cJSON_ArrayForEach(e, ev)
	{
		double ts = cJSON_GetObjectItem(e, "ts")->valuedouble;
		double end = ts + cJSON_GetObjectItem(e, "dur")->valuedouble;

		if (strcmp(cJSON_GetObjectItem(e, "name")->valuestring, name))
			continue;
		if (*first < 0 || ts < *first)
			*first = ts;
		if (end > last)
			last = end;
	}
	return last;
}

/* --tile-times in each mode, on M1 (eight GELUs, four residuals of two each, four GELUs, an
 * average; 16 blocks a task, so 16 tiles each): every tile is there with a worker and a
 * duration, and no task's first tile starts before the last tile of a task it reads ends. */
Test(gpu_runtime, tile_times_follow_the_dependencies)
{
	static const char *const modes[] = {"aot", "jit", "copilot"};

	for (int m = 0; m < 3; m++) {
		char args[400], name[32], prod[32];
		char *text;
		cJSON *root, *ev;
		double first, end, busy = 0;
		const cJSON *e;

		snprintf(args, sizeof(args),
			 "--size small --executor persistent --mode %s --iterations 3 --json "
			 "--tile-times %s/tiles.json",
			 modes[m], tmp);
		cr_assert_eq(skip_run("m1.json", args), 0, "%s", modes[m]);
		text = slurp("tiles.json");
		root = cJSON_Parse(text);
		cr_assert_not_null(root, "%s: not JSON: %.200s", modes[m], text);
		cr_expect_str_eq(cJSON_GetObjectItem(root, "skip_export")->valuestring, "e5-tiles");
		ev = cJSON_GetObjectItem(root, "traceEvents");
		cr_assert_eq(cJSON_GetArraySize(ev), 17 * 16, "%s: every tile", modes[m]);
		cJSON_ArrayForEach(e, ev)
		{
			cr_assert_geq(cJSON_GetObjectItem(e, "dur")->valuedouble, 0);
			cr_assert_geq(cJSON_GetObjectItem(e, "tid")->valueint, 0);
			busy += cJSON_GetObjectItem(e, "dur")->valuedouble;
		}
		cr_expect_gt(busy, 0, "%s: the tiles took no time", modes[m]);
		for (int k = 0; k < 4; k++) {
			snprintf(name, sizeof(name), "residual%d", k);
			task_span(ev, name, &first);
			for (int j = 2 * k; j < 2 * k + 2; j++) {
				snprintf(prod, sizeof(prod), "gelu%d", j);
				end = task_span(ev, prod, &(double){0});
				cr_expect_geq(first, end, "%s: %s starts before %s ends", modes[m],
					      name, prod);
			}
			snprintf(prod, sizeof(prod), "gelu_r%d", k);
			task_span(ev, prod, &first);
			end = task_span(ev, name, &(double){0});
			cr_expect_geq(first, end, "%s: %s starts before %s ends", modes[m], prod,
				      name);
			end = task_span(ev, prod, &(double){0});
			task_span(ev, "average", &first);
			cr_expect_geq(first, end, "%s: average starts before %s ends", modes[m],
				      prod);
		}
		cJSON_Delete(root);
		free(text);
	}
}

/* The persistent executor's faults: each ends with a message naming the task, never a hang. */
static void expect_error(const char *workload, const char *args, int rc, const char *needle)
{
	char path[300];
	char *err, *out;

	snprintf(path, sizeof(path), "../../tests/gpu/modules/%s", workload);
	cr_assert_eq(skip_run(path, args), rc, "%s %s", workload, args);
	err = slurp("err.txt");
	out = slurp("out.json"); /* an executor's failure is a row of the results */
	cr_expect(strstr(err, needle) || strstr(out, needle), "%s %s: wanted '%s' in:\n%s%s",
		  workload, args, needle, err, out);
	free(err);
	free(out);
}

Test(gpu_runtime, persistent_names_a_task_without_a_task_entry)
{
	expect_error("e5_plain.json", "--executor persistent", 2,
		     "task 'old_style': kernel e5_plain of");
	expect_error("e5_plain.json", "--executor persistent", 2, "write it with SKIP_TASK");
	/* the other executors run it, and "all" says E5 did not */
	cr_assert_eq(skip_run("../../tests/gpu/modules/e5_plain.json", "--executor all --verify"),
		     0);
}

Test(gpu_runtime, persistent_task_errors_and_traps_name_the_tile)
{
	expect_error("e5_fail.json", "--executor persistent", 1, "task 'oops' tile 0 (epoch 1)");
	expect_error("e5_fail.json", "--executor persistent --mode jit", 1, "task 'oops' tile 0");
	expect_error("e5_fail.json", "--executor persistent --mode copilot", 1,
		     "task 'oops' tile 0");
	expect_error("e5_trap.json", "--executor persistent", 1, "task 'boom' tile 2");
	expect_error("e5_trap.json", "--executor persistent --mode copilot", 1,
		     "task 'boom' tile 2");
}

Test(gpu_runtime, persistent_refuses_more_workers_than_fit)
{
	expect_error("../../../bench/dags/vec.json",
		     "--size small --executor persistent --workers 1024", 2, "fit co-resident");
}

/* skip_grid_batched(): its own check traps unless every element was visited once, whether the
 * loop runs batches and a remainder, a remainder only or batches only, in every executor and
 * E5 mode; without the in-place step the check fails, so it catches a wrong result. */
Test(gpu_runtime, a_batched_loop_visits_every_element_once)
{
	static const char *const sizes[] = {"", "--size tail", "--size exact"};
	static const char *const modes[] = {"--executor all", "--executor persistent --mode jit",
					    "--executor persistent --mode copilot"};
	char args[256];

	for (int s = 0; s < 3; s++)
		for (int m = 0; m < 3; m++) {
			snprintf(args, sizeof(args), "%s %s -n 3 --verify --json", sizes[s],
				 modes[m]);
			cr_assert_eq(skip_run("../../tests/gpu/modules/batched.json", args), 0,
				     "batched.json %s", args);
			cr_assert_geq(all_verified(), 1, "batched.json %s", args);
		}
	cr_assert_neq(
	    skip_run("../../tests/gpu/modules/batched_wrong.json", "--executor serial -n 1"), 0,
	    "the check let a wrong result through");
}

Test(gpu_runtime, pdl_edges_keep_the_results_of_a_dependent_chain)
{
	cr_assert_eq(skip_run("pdl.json", "--executor graph --pdl --verify --iterations 5 --json"),
		     0);
	cr_assert_eq(all_verified(), 1);
	cr_assert_eq(skip_run("pdl.json", "--executor serial --pdl --verify --iterations 5 --json"),
		     0);
	cr_assert_eq(all_verified(), 1);
}

Test(gpu_runtime, an_emitted_plan_runs_back)
{
	char args[512];

	snprintf(args, sizeof(args),
		 "--size small --executor streams --emit-plan %s/p.json --dry-run", tmp);
	cr_assert_eq(skip_run("m1.json", args), 0);
	snprintf(args, sizeof(args), "--size small --plan %s/p.json --verify --json", tmp);
	cr_assert_eq(skip_run("m1.json", args), 0);
	cr_assert_eq(all_verified(), 1);
}

Test(gpu_runtime, a_plan_that_breaks_a_dependency_is_refused_before_running)
{
	char path[512], args[600];
	FILE *f;
	char *err;

	snprintf(path, sizeof(path), "%s/bad.json", tmp);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs("{\"skip_plan\": 1, \"executor\": \"streams\", \"events\": [],\n"
	      " \"assignment\": {\"zero\": 0, \"square_x\": 1, \"square_y\": 2, \"reduce\": 0}}\n",
	      f);
	fclose(f);
	snprintf(args, sizeof(args), "--size small --plan %s", path);
	cr_assert_eq(skip_run("vec.json", args), 2);
	err = slurp("err.txt");
	cr_assert(strstr(err, "is not enforced"), "%s", err);
	free(err);
}

Test(gpu_runtime, probe_starts_finds_the_row_dot)
{
	char *text;
	cJSON *root, *t;
	double alone, pair, worker;
	int n = 0;

	cr_assert_eq(skip_run("ml.json", "--size small --probe-starts -n 100 --json"), 0);
	text = slurp("out.json");
	root = cJSON_Parse(text);
	cr_assert_not_null(root, "%s", text);
	cr_expect_str_eq(cJSON_GetObjectItem(root, "workload")->valuestring, "ml");
	cJSON_ArrayForEach(t, cJSON_GetObjectItem(root, "start_costs"))
	{
		const char *name = cJSON_GetObjectItem(t, "task")->valuestring;
		int starts = cJSON_GetObjectItem(t, "starts")->valueint;
		double cost = cJSON_GetObjectItem(t, "start_cost_ns")->valuedouble;

		n++;
		cr_expect(starts >= 0 && starts <= 4 && cost >= 0, "%s: %d starts, %.0f ns", name,
			  starts, cost);
		/* about 40 us; each start costs it about 1 us (docs/BENCHMARKS.md) */
		if (!strcmp(name, "rr_dot") || !strcmp(name, "nb_dot"))
			cr_expect(starts >= 1 && cost > 300, "%s: %d starts, %.0f ns a start", name,
				  starts, cost);
		/* about 2 us: too short to probe */
		if (!strcmp(name, "rr_intercept") || !strcmp(name, "argmax"))
			cr_expect_eq(starts, 0, "%s", name);
		/* 64 blocks fit twice on an H100: every task timed beside a copy of itself; the
		 * small size's data (2.8 MB) lives in L2, so two copies of a long task on other
		 * SMs take about as long as one */
		alone = cJSON_GetObjectItem(t, "alone_ns")->valuedouble;
		pair = cJSON_GetObjectItem(t, "pair_ns")->valuedouble;
		cr_expect(alone > 0 && pair > 0, "%s: alone %.0f ns, pair %.0f ns", name, alone,
			  pair);
		if (!strcmp(name, "rr_dot") || !strcmp(name, "nb_dot"))
			cr_expect(pair < 1.2 * alone, "%s: alone %.0f ns, pair %.0f ns", name,
				  alone, pair);
		/* ml.c's module has E5's worker, and 64 tiles keep SMs of their own: every task
		 * timed alone in the workers, the row dot products about their kernels' 40 us
		 * (1.11x at the large size: docs/persistent.md) */
		worker = cJSON_GetObjectItem(t, "worker_ns")->valuedouble;
		cr_expect(worker > 0 && worker < alone + 20000, "%s: worker %.0f ns, alone %.0f ns",
			  name, worker, alone);
		if (!strcmp(name, "rr_dot") || !strcmp(name, "nb_dot"))
			cr_expect(worker > 0.5 * alone && worker < 2 * alone,
				  "%s: worker %.0f ns, alone %.0f ns", name, worker, alone);
	}
	cr_expect_eq(n, 10, "one entry per task");
	cJSON_Delete(root);
	free(text);
}
