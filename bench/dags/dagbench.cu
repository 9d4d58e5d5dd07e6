/*
 * dagbench.cu: the DAG suite's driver. For each DAG of bench/dags (VEC, B&S, ML, HITS, IMG,
 * DL from GrCUDA; M1, M2 from HuntKTm) at each size (the papers' "large" one, memory-bound,
 * and 1/1000 of it, "small", launch-bound) it loads the workload once, checks the
 * hand-written multi-stream reference and the executors E2-E4 against the serial executor E1
 * on the same initial contents, then times them all in interleaved rounds (serial, hand, E2,
 * E3, E4, serial, hand, ...): each round takes the median of its iterations, and the table
 * shows the median over rounds, with speedups over serial. Then the dependent chain of empty
 * kernels (chain.cu). Results can also go to a JSON file.
 *
 *   dagbench [--dir bench/dags] [--modules DIR] [--only vec,ml] [--sizes small,large]
 *            [--rounds R] [--iters K] [--chain N] [--chain-runs R] [--no-chain] [--check]
 *            [--e5-workers N]
 *            [--json FILE]
 * --check: verification only (one round, one iteration), for compute-sanitizer runs.
 * Exit status: 0, or 1 when a variant failed or differed from the serial result.
 */
#include <algorithm>
#include <cstring>
#include <libgen.h>
#include <string>
#include <vector>

#include "../driver.h"
#include "dagbench.h"

#define NV 8 /* serial, hand, E2, E3, E4, E5 aot, E5 jit, E5 copilot */

static const struct hand_dag *const dags[] = {&hand_vec, &hand_bs, &hand_ml, &hand_hits,
					      &hand_img, &hand_dl, &hand_m1, &hand_m2};
static const char *const vnames[NV] = {"serial", "hand", "E2", "E3", "E4", "E5a", "E5j", "E5c"};

struct opts {
	std::string dir = "bench/dags", modules;
	std::vector<std::string> only, sizes = {"large", "small"};
	int rounds = 5, iters = 0, chain = 10000, chain_runs = 10, check = 0;
	int e5_workers = 0; /* E5's workers (0: its default) */
	FILE *json = NULL;
};

struct row {
	std::string dag, size;
	int tasks, width, events, events_unpruned;
	double ms[NV];		/* median over rounds */
	std::string verify[NV]; /* "ok" or the difference */
};

static uint64_t now_ns(void)
{
	return skip_clock_ns(CLOCK_MONOTONIC);
}

/* Everything one DAG at one size needs. */
struct bench {
	struct skip_workload *w;
	struct skip_graph *g;
	struct hand h;
	const struct hand_dag *hd;
	struct skip_plan *plan[NV];
	struct skip_exec *x[NV];
};

static void die(const char *what)
{
	fprintf(stderr, "dagbench: %s: %s\n", what, skip_errmsg());
	exit(1);
}

/* One run of variant @v, timed on the host from the first launch to the end of the work. */
static double run_once(struct bench *b, int v)
{
	uint64_t t0, ns = 0;

	if (v != 1) {
		if (skip_exec_run(b->x[v], &ns))
			die(vnames[v]);
		return (double)ns / 1e6;
	}
	t0 = now_ns();
	b->hd->run(&b->h);
	for (int i = 0; i < b->hd->nstreams; i++)
		CHECK(cudaStreamSynchronize(b->h.s[i]));
	return (double)(now_ns() - t0) / 1e6;
}

static void setup(struct bench *b, const struct opts &o, const struct hand_dag *hd,
		  const std::string &size)
{
	static const enum skip_executor ex[NV] = {
	    SKIP_EXEC_SERIAL, SKIP_EXEC_SERIAL,	    SKIP_EXEC_STREAMS,	  SKIP_EXEC_GRAPH,
	    SKIP_EXEC_WINDOW, SKIP_EXEC_PERSISTENT, SKIP_EXEC_PERSISTENT, SKIP_EXEC_PERSISTENT};
	std::string path = o.dir + "/" + hd->name + ".json";
	std::string mod = o.modules + "/" + hd->name + ".fatbin";
	int err;

	memset(b, 0, sizeof(*b));
	b->hd = hd;
	b->w = skip_workload_load(path.c_str(), size.c_str(), NULL, 0, mod.c_str(), &err);
	if (!b->w)
		die(path.c_str());
	b->g = skip_workload_graph(b->w);
	if (skip_graph_load(b->g, 0))
		die("loading");
	b->h.w = b->w;
	b->h.g = b->g;
	for (int i = 0; i < hd->nstreams; i++)
		CHECK(cudaStreamCreateWithFlags(&b->h.s[i], cudaStreamNonBlocking));
	for (int i = 0; i < HAND_EVENTS; i++)
		CHECK(cudaEventCreateWithFlags(&b->h.e[i], cudaEventDisableTiming));
	for (int v = 0; v < NV; v++) {
		struct skip_plan_opts po = {};

		if (v == 1)
			continue;
		po.executor = ex[v];
		po.mode = v >= 5 ? v - 4 : 1; /* E5: aot, jit, copilot */
		po.workers = o.e5_workers;
		if (skip_plan_compute(b->g, &po, &b->plan[v]))
			die("plan");
		b->x[v] = skip_exec_new(b->g, b->plan[v], &err);
		if (!b->x[v])
			die(vnames[v]);
	}
}

static void teardown(struct bench *b)
{
	for (int v = 0; v < NV; v++) {
		skip_exec_free(b->x[v]);
		skip_plan_free(b->plan[v]);
	}
	for (int i = 0; i < b->hd->nstreams; i++)
		CHECK(cudaStreamDestroy(b->h.s[i]));
	for (int i = 0; i < HAND_EVENTS; i++)
		CHECK(cudaEventDestroy(b->h.e[i]));
	skip_workload_free(b->w);
}

/* Each variant from the same initial contents, compared with the serial result. */
static int verify(struct bench *b, struct row *r)
{
	struct skip_checkpoint *cp;
	int bad = 0;

	if (skip_graph_reset(b->g))
		die("reset");
	run_once(b, 0);
	if (skip_graph_checkpoint(b->g, &cp))
		die("checkpoint");
	r->verify[0] = "ref";
	for (int v = 1; v < NV; v++) {
		int rc;

		if (skip_graph_reset(b->g))
			die("reset");
		run_once(b, v);
		rc = skip_graph_compare(b->g, cp);
		if (rc < 0)
			die("compare");
		r->verify[v] = rc ? skip_errmsg() : "ok";
		bad |= rc != 0;
	}
	skip_checkpoint_free(cp);
	return bad;
}

static void time_rounds(struct bench *b, const struct opts &o, int iters, struct row *r)
{
	std::vector<double> rounds[NV];

	if (skip_graph_reset(b->g))
		die("reset");
	for (int v = 0; v < NV; v++) /* warm-up */
		run_once(b, v);
	for (int k = 0; k < o.rounds; k++)
		for (int v = 0; v < NV; v++) {
			std::vector<double> t;

			for (int i = 0; i < iters; i++)
				t.push_back(run_once(b, v));
			rounds[v].push_back(bench_median(t));
		}
	for (int v = 0; v < NV; v++)
		r->ms[v] = bench_median(rounds[v]);
}

/* ---- output ---------------------------------------------------------------------------------- */

static void print_table(const std::vector<row> &rows)
{
	printf(
	    "\nDAG suite: median over interleaved rounds of the per-round median; host wall time "
	    "per iteration, first launch to completion; speedup = serial / variant\n");
	printf("  %-5s %-6s %5s %5s %10s %7s %7s %7s %7s %7s %7s %7s  %-9s %s\n", "DAG", "size",
	       "tasks", "width", "serial ms", "hand", "E2", "E3", "E4", "E5 aot", "E5 jit",
	       "E5 cop", "E2 events", "E2|E3 >= hand, verify");
	for (const row &r : rows) {
		double best = std::max(r.ms[0] / r.ms[2], r.ms[0] / r.ms[3]);
		bool ok = true;
		char ev[32];

		for (int v = 1; v < NV; v++)
			ok = ok && r.verify[v] == "ok";
		snprintf(ev, sizeof(ev), "%d/%d", r.events, r.events_unpruned);
		printf("  %-5s %-6s %5d %5d %10.3f %6.2fx %6.2fx %6.2fx %6.2fx %6.2fx %6.2fx "
		       "%6.2fx  %-9s %-3s %s\n",
		       r.dag.c_str(), r.size.c_str(), r.tasks, r.width, r.ms[0], r.ms[0] / r.ms[1],
		       r.ms[0] / r.ms[2], r.ms[0] / r.ms[3], r.ms[0] / r.ms[4], r.ms[0] / r.ms[5],
		       r.ms[0] / r.ms[6], r.ms[0] / r.ms[7], ev,
		       best >= r.ms[0] / r.ms[1] ? "yes" : "NO", ok ? "ok" : "DIFFERS");
	}
	printf("  (E2 events: after/before barrier pruning)\n");
}

static void print_summary(const std::vector<row> &rows, const struct opts &o)
{
	for (const std::string &size : o.sizes) {
		double sum = 0, sum_hand = 0;
		int n = 0;

		for (const row &r : rows)
			if (r.size == size) {
				sum += std::max(r.ms[0] / r.ms[2], r.ms[0] / r.ms[3]);
				sum_hand += r.ms[0] / r.ms[1];
				n++;
			}
		if (n)
			printf("  %s: mean speedup over serial of the better of E2/E3 %.2fx, "
			       "hand-written "
			       "%.2fx, over %d DAGs (HuntKT, A100, its sizes: 1.69x; tiny inputs: "
			       "1.35x)\n",
			       size.c_str(), sum / n, sum_hand / n, n);
	}
	for (const row &r : rows)
		for (int v = 1; v < NV; v++)
			if (r.verify[v] != "ok")
				printf("  %s %s %s: %s\n", r.dag.c_str(), r.size.c_str(), vnames[v],
				       r.verify[v].c_str());
}

static void json_row(FILE *f, const row &r, bool last)
{
	fprintf(f,
		"    {\"dag\": \"%s\", \"size\": \"%s\", \"tasks\": %d, \"width\": %d, "
		"\"events\": %d, \"events_before_pruning\": %d, \"ms\": {",
		r.dag.c_str(), r.size.c_str(), r.tasks, r.width, r.events, r.events_unpruned);
	for (int v = 0; v < NV; v++)
		fprintf(f, "%s\"%s\": %.5f", v ? ", " : "", vnames[v], r.ms[v]);
	fprintf(f, "}, \"verified\": {");
	for (int v = 1; v < NV; v++)
		fprintf(f, "%s\"%s\": %s", v > 1 ? ", " : "", vnames[v],
			r.verify[v] == "ok" ? "true" : "false");
	fprintf(f, "}}%s\n", last ? "" : ",");
}

/* ---- main ------------------------------------------------------------------------------------ */

static void parse(int argc, char **argv, struct opts &o)
{
	o.modules = bench_self_dir(argv[0]);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;

		if (!strcmp(a, "--check")) {
			o.check = 1;
			continue;
		}
		if (!strcmp(a, "--no-chain")) {
			o.chain = 0;
			continue;
		}
		v = bench_value("dagbench", argc, argv, &i, "the top of dagbench.cu");
		if (!strcmp(a, "--dir"))
			o.dir = v;
		else if (!strcmp(a, "--modules"))
			o.modules = v;
		else if (!strcmp(a, "--only"))
			o.only = bench_split(v);
		else if (!strcmp(a, "--sizes"))
			o.sizes = bench_split(v);
		else if (!strcmp(a, "--rounds"))
			o.rounds = atoi(v);
		else if (!strcmp(a, "--iters"))
			o.iters = atoi(v);
		else if (!strcmp(a, "--chain"))
			o.chain = atoi(v);
		else if (!strcmp(a, "--e5-workers"))
			o.e5_workers = atoi(v);
		else if (!strcmp(a, "--chain-runs"))
			o.chain_runs = atoi(v);
		else if (!strcmp(a, "--json") && !(o.json = fopen(v, "w"))) {
			perror(v);
			exit(2);
		} else if (strcmp(a, "--json")) {
			fprintf(stderr, "dagbench: unknown option %s\n", a);
			exit(2);
		}
	}
	if (o.check)
		o.rounds = 1, o.iters = 1, o.chain = 0;
}

static bool selected(const struct opts &o, const char *name)
{
	return o.only.empty() || std::find(o.only.begin(), o.only.end(), name) != o.only.end();
}

int main(int argc, char **argv)
{
	struct opts o;
	std::vector<row> rows;
	char dev[256];
	int bad = 0;

	parse(argc, argv, o);
	bench_start("dagbench", dev, sizeof(dev));
	for (const std::string &size : o.sizes)
		for (const struct hand_dag *hd : dags) {
			struct bench b;
			row r;

			if (!selected(o, hd->name))
				continue;
			setup(&b, o, hd, size);
			r.dag = hd->name;
			r.size = size;
			r.tasks = skip_graph_ntasks(b.g);
			r.width = skip_graph_width(b.g);
			r.events = b.plan[2]->nevents;
			r.events_unpruned = b.plan[2]->events_unpruned;
			bad |= verify(&b, &r);
			time_rounds(&b, o, o.iters ? o.iters : size == "small" ? 20 : 3, &r);
			printf("  %-5s %-6s serial %9.3f ms  hand %6.2fx  E2 %6.2fx  E3 %6.2fx  E4 "
			       "%6.2fx  E5 aot %6.2fx  jit %6.2fx  copilot %6.2fx\n",
			       r.dag.c_str(), r.size.c_str(), r.ms[0], r.ms[0] / r.ms[1],
			       r.ms[0] / r.ms[2], r.ms[0] / r.ms[3], r.ms[0] / r.ms[4],
			       r.ms[0] / r.ms[5], r.ms[0] / r.ms[6], r.ms[0] / r.ms[7]);
			fflush(stdout);
			rows.push_back(r);
			teardown(&b);
		}
	if (o.json) {
		fprintf(o.json, "{\n  \"device\": \"%s\",\n  \"rounds\": %d,\n  \"rows\": [\n", dev,
			o.rounds);
		for (size_t i = 0; i < rows.size(); i++)
			json_row(o.json, rows[i], i + 1 == rows.size());
		fprintf(o.json, "  ]%s\n", o.chain ? "," : "");
	}
	print_table(rows);
	print_summary(rows, o);
	if (o.chain) /* last, so that both tables end the output */
		chain_bench(o.chain, o.chain_runs, o.json, o.modules.c_str());
	if (o.json) {
		fprintf(o.json, "}\n");
		fclose(o.json);
	}
	return bad;
}
