/*
 * chain.cu: the dependent chain of N empty tasks (grid 1 x 32; kernels/chain.cu, loaded from
 * the module chain.fatbin), built through the C API with an explicit edge per step, run under
 * each executor: the per-task cost against the floors measured on the H100
 * (shared/research/runtime.md section 0: stream launches 3.0-3.5 us start to start, with PDL
 * 2.5-3.0 us; graph 0.80 us per node; graph with programmatic edges 0.51 us; launch plus
 * synchronize 8.6-9.9 us, which bounds the window scheduler's one-kernel-in-flight workers; a
 * persistent kernel's dependent task 0.61 us with an AOT counter wait, 1.27 us through a JIT
 * queue).
 */
#include <algorithm>
#include <string>
#include <vector>

#include "dagbench.h"

static struct skip_graph *build(int n, int pdl, const char *modules)
{
	struct skip_graph *g = skip_graph_new(NULL);
	struct skip_task_desc d = {};
	std::string mod = std::string(modules) + "/chain.fatbin";

	d.kernel.kind = SKIP_KERNEL_MODULE;
	d.kernel.module = skip_graph_add_module(g, mod.c_str());
	d.kernel.name = pdl ? "chain_pdl" : "chain_empty";
	d.grid[0] = 1;
	d.block[0] = 32;
	d.flags = pdl ? SKIP_TASK_PDL : 0;
	for (int i = 0; i < n; i++)
		if (skip_graph_add_task(g, &d) < 0 || (i && skip_graph_add_edge(g, i - 1, i)))
			goto fail;
	if (skip_graph_finalize(g) || skip_graph_load(g, 0))
		goto fail;
	return g;
fail:
	fprintf(stderr, "chain: %s\n", skip_errmsg());
	exit(1);
}

struct variant {
	const char *name;
	enum skip_executor exec;
	int pdl, mode, lookahead; /* lookahead: SKIP_PLAN_ZERO for none */
	const char *floor;
};

static double run_variant(struct skip_graph *g, const struct variant *v, int n, int runs)
{
	struct skip_plan_opts o = {};
	struct skip_plan *p = NULL;
	struct skip_exec *x;
	std::vector<double> t;
	int err;

	o.executor = v->exec;
	o.pdl = v->pdl;
	o.mode = v->mode;
	o.lookahead = v->lookahead;
	o.window = 32;
	o.nstreams = v->exec == SKIP_EXEC_WINDOW ? 4 : 0;
	if (skip_plan_compute(g, &o, &p) || !(x = skip_exec_new(g, p, &err))) {
		fprintf(stderr, "chain %s: %s\n", v->name, skip_errmsg());
		exit(1);
	}
	for (int r = 0; r <= runs; r++) { /* the first run warms up */
		uint64_t ns;

		if (skip_exec_run(x, &ns)) {
			fprintf(stderr, "chain %s: %s\n", v->name, skip_errmsg());
			exit(1);
		}
		if (r)
			t.push_back((double)ns / 1e3 / n);
	}
	skip_exec_free(x);
	skip_plan_free(p);
	std::sort(t.begin(), t.end());
	return t[t.size() / 2];
}

int chain_bench(int n, int runs, FILE *json, const char *modules)
{
	static const struct variant vs[] = {
	    {"serial (E1)", SKIP_EXEC_SERIAL, 0, 0, 0, "stream 3.0-3.5"},
	    {"serial+PDL (E1)", SKIP_EXEC_SERIAL, 1, 0, 0, "stream+PDL 2.5-3.0"},
	    {"streams (E2)", SKIP_EXEC_STREAMS, 0, 0, 0, "stream 3.0-3.5"},
	    {"graph (E3)", SKIP_EXEC_GRAPH, 0, 0, 0, "graph 0.80"},
	    {"graph+PDL (E3)", SKIP_EXEC_GRAPH, 1, 0, 0, "PDL 0.51"},
	    {"window (E4)", SKIP_EXEC_WINDOW, 0, 0, 0, "launch+sync 8.6-9.9"},
	    {"persistent aot (E5)", SKIP_EXEC_PERSISTENT, 0, 1, 0, "AOT counter 0.61"},
	    {"persistent jit (E5)", SKIP_EXEC_PERSISTENT, 0, 2, 0, "JIT queue 1.27"},
	    {"copilot naive (E5)", SKIP_EXEC_PERSISTENT, 0, 3, SKIP_PLAN_ZERO,
	     "PCIe round trip 2.4, naive 3.1-3.7"},
	    {"copilot la=8 (E5)", SKIP_EXEC_PERSISTENT, 0, 3, 8, "target 1.5"},
	    {"copilot la=32 (E5)", SKIP_EXEC_PERSISTENT, 0, 3, 32, "target 1.5"},
	};
	enum { NVAR = sizeof(vs) / sizeof(vs[0]) };
	struct skip_graph *plain = build(n, 0, modules), *pdl = build(n, 1, modules);
	double us[NVAR];

	for (int i = 0; i < NVAR; i++)
		us[i] = run_variant(vs[i].pdl ? pdl : plain, &vs[i], n,
				    vs[i].exec == SKIP_EXEC_WINDOW ? std::max(1, runs / 4) : runs);
	printf("\nDependent chain of %d empty kernels (grid 1 x 32), per-task cost, median of %d "
	       "runs (host wall time, submission to completion, divided by %d)\n",
	       n, runs, n);
	printf("  %-20s %9s   %s\n", "executor", "us/task", "H100 floor, us (research/runtime.md)");
	for (int i = 0; i < NVAR; i++)
		printf("  %-20s %9.3f   %s\n", vs[i].name, us[i], vs[i].floor);
	if (json) {
		fprintf(json, "  \"chain\": {\"tasks\": %d, \"runs\": %d, \"us_per_task\": {", n,
			runs);
		for (int i = 0; i < NVAR; i++)
			fprintf(json, "%s\"%s\": %.4f", i ? ", " : "", vs[i].name, us[i]);
		fprintf(json, "}}\n");
	}
	skip_graph_free(plain);
	skip_graph_free(pdl);
	return 0;
}
