/*
 * gemmbench.cu: the GEMM pair's driver (bench/gemm_pair, cuSync's MLP: C1 = GeLU(X * W1),
 * Y = C1 * W2, bf16). For each size (token count T) it loads mlp_full.json (gemm2 after all
 * of gemm1) and mlp.json (gemm2's row blocks after gemm1's same row block: tile edges), and
 * runs seven variants:
 *   E1           serial, mlp_full (the reference)
 *   E3           graph, mlp_full
 *   E5 aot full  persistent AOT, mlp_full (a kernel boundary inside the resident kernel)
 *   E5 aot row   persistent AOT, mlp (row tile edges)
 *   E5 jit row   persistent JIT, mlp (row tile edges)
 *   E5 cop full  persistent co-pilot, mlp_full
 *   E5 cop row   persistent co-pilot, mlp (row tile edges)
 * 1. Reference check: each variant runs once from the initial contents and its C1 and Y are
 *    checked against the CPU (double sums of the same bf16 inputs; Y from the GPU's C1, so
 *    that one rounding does not carry into the other): every element at size "check", else
 *    --samples elements of every output tile; |gpu - cpu| <= 1e-2 |cpu| + 1e-3, and the
 *    reference's rms must be well away from 0, so that an all-zero result cannot pass.
 * 2. Verification: each variant's buffers against the serial run of its workload
 *    (skip_graph_compare, the buffers' tolerances), as skip run --verify does.
 * 3. Timing, as dagbench: after one warm-up each, interleaved rounds (E1, E3, E5 aot full,
 *    E5 aot row, E5 jit row, E5 cop full, E5 cop row, E1, ...), each round the median of its
 *    iterations (host wall time from the first launch to the end of the work); the table
 *    shows the median over rounds and TFLOP/s = 4 T H D / time.
 * mlp.json's tile edges need the runtime's tile-edge support; where it cannot be loaded, the
 * row variants say why and the rest still runs.
 *
 *   gemmbench [--dir bench/gemm_pair] [--modules DIR] [--sizes t128,t256,t512,t1024,t2048]
 *             [--rounds R] [--iters K] [--samples S] [--e5-workers N] [--check] [--json FILE]
 * --check: the reference check and the verification only (size "check" unless --sizes), for
 * compute-sanitizer. Exit status: 0; 1 when a variant failed its check or verification; 2 for
 * a bad option.
 */
#include <cmath>

#include "../check.h"
#include "../driver.h"

extern "C" {
#include "skip_runtime.h"
}
#include "bf16.h"

#define NV 7

static const char *const vnames[NV] = {"E1",	     "E3",	    "E5 aot full", "E5 aot row",
				       "E5 jit row", "E5 cop full", "E5 cop row"};
static const char *const vkeys[NV] = {"e1",	    "e3",	   "e5_aot_full", "e5_aot_row",
				      "e5_jit_row", "e5_cop_full", "e5_cop_row"};
static const enum skip_executor vexec[NV] = {
    SKIP_EXEC_SERIAL,	  SKIP_EXEC_GRAPH,	SKIP_EXEC_PERSISTENT, SKIP_EXEC_PERSISTENT,
    SKIP_EXEC_PERSISTENT, SKIP_EXEC_PERSISTENT, SKIP_EXEC_PERSISTENT};
static const int vmode[NV] = {0, 0, 1, 1, 2, 3, 3}; /* persistent: 1 aot, 2 jit, 3 copilot */
static const int vwl[NV] = {0, 0, 0, 1, 1, 0, 1};   /* 0: mlp_full.json, 1: mlp.json */

struct opts {
	std::string dir = "bench/gemm_pair", modules;
	std::vector<std::string> sizes = {"t128", "t256", "t512", "t1024", "t2048"};
	int rounds = 5, iters = 5, samples = 8, e5_workers = 0, check = 0, sizes_given = 0;
	FILE *json = NULL;
};

/* One workload at one size, loaded, with its serial executor for the verification. */
struct wl {
	struct skip_workload *w = NULL;
	struct skip_graph *g = NULL;
	struct skip_plan *serial_plan = NULL;
	struct skip_exec *serial = NULL;
	std::string error; /* why it could not be loaded ("" when it was) */
};

struct row {
	std::string size;
	long T, H, D;
	unsigned tiles1, tiles2;
	double ms[NV];
	std::string check[NV], verify[NV]; /* "ok", "n/a: ..." or what differs */
};

static void die(const char *what)
{
	fprintf(stderr, "gemmbench: %s: %s\n", what, skip_errmsg());
	exit(1);
}

/* ---- the CPU reference ----------------------------------------------------------------------- */

/* Buffer @name of @g, copied to the host as floats. */
static std::vector<float> fetch(struct skip_graph *g, const char *name)
{
	int id = skip_graph_find_buffer(g, name);

	if (id < 0) {
		fprintf(stderr, "gemmbench: no buffer '%s' in the workload\n", name);
		exit(1);
	}
	size_t n = skip_graph_buffer_size(g, id) / 2;
	std::vector<uint16_t> raw(n);
	std::vector<float> out(n);
	CHECK(cudaMemcpy(raw.data(), skip_graph_buffer_ptr(g, id), n * 2, cudaMemcpyDeviceToHost));
	for (size_t i = 0; i < n; i++)
		out[i] = sk_bf16_to_float(raw[i]);
	return out;
}

static double gelu(double x)
{
	return 0.5 * x * (1.0 + tanh(0.7978845608 * (x + 0.044715 * x * x * x)));
}

struct refcheck {
	long checked = 0, bad = 0;
	double worst = 0, sumsq = 0; /* worst |gpu - cpu| / (1e-2 |cpu| + 1e-3); sum of cpu^2 */
	long bad_i = -1, bad_j = -1;
	double bad_gpu = 0, bad_cpu = 0;

	void add(long i, long j, double gpu, double cpu)
	{
		double r = fabs(gpu - cpu) / (1e-2 * fabs(cpu) + 1e-3);

		checked++;
		sumsq += cpu * cpu;
		worst = std::max(worst, r);
		if (!(r <= 1) && !bad++) {
			bad_i = i;
			bad_j = j;
			bad_gpu = gpu;
			bad_cpu = cpu;
		}
	}
};

/* out[i, j] = act(sum_k a[i, k] b[k, j]), a [M x K], b [K x N], all row-major. */
static double cpu_elem(const std::vector<float> &a, const std::vector<float> &b, long K, long N,
		       long i, long j, int act)
{
	double s = 0;

	for (long k = 0; k < K; k++)
		s += (double)a[i * K + k] * b[k * N + j];
	return act ? gelu(s) : s;
}

/* Check out = act(a * b) at every element (@samples 0) or at @samples elements of each
 * 128 x 128 tile (a fixed pseudo-random pick). */
static void check_gemm(refcheck &rc, const std::vector<float> &a, const std::vector<float> &b,
		       const std::vector<float> &out, long M, long N, long K, int act, int samples)
{
	uint64_t st = 0x9e3779b97f4a7c15ULL;

	if (!samples) {
		for (long i = 0; i < M; i++)
			for (long j = 0; j < N; j++)
				rc.add(i, j, out[i * N + j], cpu_elem(a, b, K, N, i, j, act));
		return;
	}
	for (long ti = 0; ti < M / 128; ti++)
		for (long tj = 0; tj < N / 128; tj++)
			for (int s = 0; s < samples; s++) {
				long i, j;

				st = st * 6364136223846793005ULL + 1442695040888963407ULL;
				i = ti * 128 + (long)(st >> 33) % 128;
				j = tj * 128 + (long)(st >> 17) % 128;
				rc.add(i, j, out[i * N + j], cpu_elem(a, b, K, N, i, j, act));
			}
}

/* C1 and Y of @g's last run against the CPU: "ok (...)" or what is wrong. */
static std::string reference_check(struct skip_graph *g, long T, long H, long D, int samples,
				   int *bad)
{
	std::vector<float> x = fetch(g, "x"), w1 = fetch(g, "w1"), w2 = fetch(g, "w2");
	std::vector<float> c1 = fetch(g, "c1"), y = fetch(g, "y");
	refcheck r1, r2;
	char msg[512];

	check_gemm(r1, x, w1, c1, T, D, H, 1, samples);
	check_gemm(r2, c1, w2, y, T, H, D, 0, samples);
	for (refcheck *r : {&r1, &r2}) {
		const char *what = r == &r1 ? "c1" : "y";
		double rms = sqrt(r->sumsq / (double)std::max(r->checked, 1L));

		if (r->bad) {
			snprintf(msg, sizeof(msg),
				 "%s: %ld of %ld checked elements differ from the CPU (first "
				 "[%ld, %ld]: %.6g, expected %.6g)",
				 what, r->bad, r->checked, r->bad_i, r->bad_j, r->bad_gpu,
				 r->bad_cpu);
			*bad = 1;
			return msg;
		}
		if (rms < 0.01) {
			snprintf(msg, sizeof(msg),
				 "%s: the reference's rms is %.3g: too small for the check to mean "
				 "anything",
				 what, rms);
			*bad = 1;
			return msg;
		}
	}
	snprintf(msg, sizeof(msg), "ok (%ld + %ld elements, worst %.2f of the tolerance)",
		 r1.checked, r2.checked, std::max(r1.worst, r2.worst));
	return msg;
}

/* ---- the variants ---------------------------------------------------------------------------- */

static void load(struct wl *l, const struct opts &o, const char *file, const std::string &size)
{
	std::string path = o.dir + "/" + file, mod = o.modules + "/gemm_pair.fatbin";
	struct skip_plan_opts po = {};
	int err;

	l->w = skip_workload_load(path.c_str(), size.c_str(), NULL, 0, mod.c_str(), &err);
	if (!l->w) {
		l->error = skip_errmsg();
		return;
	}
	l->g = skip_workload_graph(l->w);
	if (skip_graph_load(l->g, 0))
		die(path.c_str());
	po.executor = SKIP_EXEC_SERIAL;
	if (skip_plan_compute(l->g, &po, &l->serial_plan) ||
	    !(l->serial = skip_exec_new(l->g, l->serial_plan, &err)))
		die("serial plan");
}

static void unload(struct wl *l)
{
	skip_exec_free(l->serial);
	skip_plan_free(l->serial_plan);
	skip_workload_free(l->w);
}

struct bench {
	struct wl wl[2];
	struct skip_plan *plan[NV] = {};
	struct skip_exec *x[NV] = {}; /* NULL: the variant cannot run (row.verify says why) */
};

static double run_once(struct bench *b, int v)
{
	uint64_t ns = 0;

	if (skip_exec_run(b->x[v], &ns))
		die(vnames[v]);
	return (double)ns / 1e6;
}

static void setup(struct bench *b, const struct opts &o, const std::string &size, row *r)
{
	static const char *const files[2] = {"mlp_full.json", "mlp.json"};

	for (int i = 0; i < 2; i++)
		load(&b->wl[i], o, files[i], size);
	if (!b->wl[0].w) {
		fprintf(stderr, "gemmbench: %s\n", b->wl[0].error.c_str());
		exit(1);
	}
	r->size = size;
	r->T = (long)skip_workload_param(b->wl[0].w, "T", 0);
	r->H = (long)skip_workload_param(b->wl[0].w, "H", 0);
	r->D = (long)skip_workload_param(b->wl[0].w, "D", 0);
	r->tiles1 = (unsigned)skip_workload_param(b->wl[0].w, "TILES1", 0);
	r->tiles2 = (unsigned)skip_workload_param(b->wl[0].w, "TILES2", 0);
	for (int v = 0; v < NV; v++) {
		struct wl *l = &b->wl[vwl[v]];
		struct skip_plan_opts po = {};
		int err;

		r->ms[v] = NAN;
		if (!l->w) {
			r->check[v] = r->verify[v] = "n/a: " + l->error;
			continue;
		}
		po.executor = vexec[v];
		po.mode = vmode[v];
		po.workers = o.e5_workers;
		if (skip_plan_compute(l->g, &po, &b->plan[v]))
			die("plan");
		if (!(b->x[v] = skip_exec_new(l->g, b->plan[v], &err)))
			die(vnames[v]);
	}
}

static void teardown(struct bench *b)
{
	for (int v = 0; v < NV; v++) {
		skip_exec_free(b->x[v]);
		skip_plan_free(b->plan[v]);
	}
	for (int i = 0; i < 2; i++)
		unload(&b->wl[i]);
}

/* Steps 1 and 2: each variant from the initial contents, against the CPU and against the
 * serial run of its workload. */
static int check_all(struct bench *b, const struct opts &o, row *r)
{
	struct skip_checkpoint *cp[2] = {NULL, NULL};
	int bad = 0;

	for (int i = 0; i < 2; i++) {
		struct wl *l = &b->wl[i];

		if (!l->w)
			continue;
		if (skip_graph_reset(l->g) || skip_exec_run(l->serial, NULL) ||
		    skip_graph_checkpoint(l->g, &cp[i]))
			die("serial reference");
	}
	for (int v = 0; v < NV; v++) {
		struct wl *l = &b->wl[vwl[v]];
		int rc;

		if (!b->x[v])
			continue;
		if (skip_graph_reset(l->g))
			die("reset");
		run_once(b, v);
		r->check[v] = reference_check(l->g, r->T, r->H, r->D,
					      r->size == "check" ? 0 : o.samples, &bad);
		rc = skip_graph_compare(l->g, cp[vwl[v]]);
		if (rc < 0)
			die("compare");
		r->verify[v] = rc ? skip_errmsg() : "ok";
		bad |= rc != 0;
	}
	skip_checkpoint_free(cp[0]);
	skip_checkpoint_free(cp[1]);
	return bad;
}

/* Step 3: interleaved rounds. */
static void time_rounds(struct bench *b, const struct opts &o, row *r)
{
	std::vector<double> rounds[NV];

	for (int v = 0; v < NV; v++) /* warm-up */
		if (b->x[v])
			run_once(b, v);
	for (int k = 0; k < o.rounds; k++)
		for (int v = 0; v < NV; v++) {
			std::vector<double> t;

			for (int i = 0; b->x[v] && i < o.iters; i++)
				t.push_back(run_once(b, v));
			if (!t.empty())
				rounds[v].push_back(bench_median(t));
		}
	for (int v = 0; v < NV; v++)
		if (!rounds[v].empty())
			r->ms[v] = bench_median(rounds[v]);
}

/* ---- output ---------------------------------------------------------------------------------- */

static double tflops(const row &r, int v)
{
	return 4.0 * (double)r.T * (double)r.H * (double)r.D / (r.ms[v] * 1e-3) / 1e12;
}

static void print_table(const std::vector<row> &rows, const struct opts &o)
{
	printf("\nGEMM pair (cuSync MLP, bf16): median over %d interleaved rounds of the per-round "
	       "median of %d iterations; host wall time first launch to completion; TFLOP/s = "
	       "4 T H D / time; speedup = E1 / variant\n",
	       o.rounds, o.iters);
	printf("  %-6s %5s %5s %5s %7s %7s", "size", "T", "H", "D", "tiles1", "tiles2");
	for (int v = 0; v < NV; v++)
		printf(" %19s", vnames[v]);
	printf("  checks\n");
	for (const row &r : rows) {
		bool ok = true;

		printf("  %-6s %5ld %5ld %5ld %7u %7u", r.size.c_str(), r.T, r.H, r.D, r.tiles1,
		       r.tiles2);
		for (int v = 0; v < NV; v++) {
			char cell[64];

			if (std::isnan(r.ms[v]))
				snprintf(cell, sizeof(cell), "n/a");
			else if (v == 0)
				snprintf(cell, sizeof(cell), "%.3f ms %5.0f TF", r.ms[v],
					 tflops(r, v));
			else
				snprintf(cell, sizeof(cell), "%.3f ms %5.2fx", r.ms[v],
					 r.ms[0] / r.ms[v]);
			printf(" %19s", cell);
			ok = ok &&
			     (r.check[v].rfind("ok", 0) == 0 || r.check[v].rfind("n/a", 0) == 0) &&
			     (r.verify[v] == "ok" || r.verify[v].rfind("n/a", 0) == 0);
		}
		printf("  %s\n", ok ? "ok" : "FAILED");
	}
	printf("  (TF: TFLOP/s of E1; each other variant's TFLOP/s is E1's times its speedup)\n");
	for (const row &r : rows)
		for (int v = 0; v < NV; v++)
			printf("  %-6s %-11s CPU check: %s; verify: %s\n", r.size.c_str(),
			       vnames[v], r.check[v].c_str(), r.verify[v].c_str());
}

static void json_string(FILE *f, const std::string &s)
{
	fputc('"', f);
	for (char c : s) {
		if (c == '"' || c == '\\')
			fputc('\\', f);
		fputc((unsigned char)c < 0x20 ? ' ' : c, f);
	}
	fputc('"', f);
}

static void json_row(FILE *f, const row &r, bool last)
{
	fprintf(f,
		"    {\"size\": \"%s\", \"T\": %ld, \"H\": %ld, \"D\": %ld, \"tiles1\": %u, "
		"\"tiles2\": %u, \"variants\": {",
		r.size.c_str(), r.T, r.H, r.D, r.tiles1, r.tiles2);
	for (int v = 0; v < NV; v++) {
		fprintf(f, "%s\"%s\": {\"ms\": ", v ? ", " : "", vkeys[v]);
		if (std::isnan(r.ms[v]))
			fprintf(f, "null, \"tflops\": null");
		else
			fprintf(f, "%.5f, \"tflops\": %.2f", r.ms[v], tflops(r, v));
		fprintf(f, ", \"cpu_check\": ");
		json_string(f, r.check[v]);
		fprintf(f, ", \"verify\": ");
		json_string(f, r.verify[v]);
		fprintf(f, "}");
	}
	fprintf(f, "}}%s\n", last ? "" : ",");
}

/* ---- main ------------------------------------------------------------------------------------ */

static int positive(const char *opt, const char *v)
{
	char *end;
	long n = strtol(v, &end, 10);

	if (*end || n < 0 || n > 1000000) {
		fprintf(stderr, "gemmbench: %s %s: a count expected\n", opt, v);
		exit(2);
	}
	return (int)n;
}

static void parse(int argc, char **argv, struct opts &o)
{
	o.modules = bench_self_dir(argv[0]);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;

		if (!strcmp(a, "--check")) {
			o.check = 1;
			continue;
		}
		v = bench_value("gemmbench", argc, argv, &i, "bench/gemm_pair/README.md");
		if (!strcmp(a, "--dir"))
			o.dir = v;
		else if (!strcmp(a, "--modules"))
			o.modules = v;
		else if (!strcmp(a, "--sizes"))
			o.sizes = bench_split(v), o.sizes_given = 1;
		else if (!strcmp(a, "--rounds"))
			o.rounds = std::max(1, positive(a, v));
		else if (!strcmp(a, "--iters"))
			o.iters = std::max(1, positive(a, v));
		else if (!strcmp(a, "--samples"))
			o.samples = positive(a, v);
		else if (!strcmp(a, "--e5-workers"))
			o.e5_workers = positive(a, v);
		else if (!strcmp(a, "--json") && !(o.json = fopen(v, "w"))) {
			perror(v);
			exit(2);
		} else if (strcmp(a, "--json")) {
			fprintf(stderr,
				"gemmbench: unknown option %s (see bench/gemm_pair/README.md)\n",
				a);
			exit(2);
		}
	}
	if (o.check && !o.sizes_given)
		o.sizes = {"check"};
}

int main(int argc, char **argv)
{
	struct opts o;
	std::vector<row> rows;
	char dev[256];
	int bad = 0;

	parse(argc, argv, o);
	bench_start("gemmbench", dev, sizeof(dev));
	for (const std::string &size : o.sizes) {
		struct bench b;
		row r;

		setup(&b, o, size, &r);
		bad |= check_all(&b, o, &r);
		if (!o.check)
			time_rounds(&b, o, &r);
		printf("  %-6s T %5ld  E1 %9.3f ms  E3 %9.3f  E5 aot full %9.3f  aot row %9.3f  "
		       "jit row %9.3f  cop full %9.3f  cop row %9.3f\n",
		       r.size.c_str(), r.T, r.ms[0], r.ms[1], r.ms[2], r.ms[3], r.ms[4], r.ms[5],
		       r.ms[6]);
		fflush(stdout);
		rows.push_back(r);
		teardown(&b);
	}
	if (o.json) {
		fprintf(o.json, "{\n  \"device\": ");
		json_string(o.json, dev);
		fprintf(o.json, ",\n  \"rounds\": %d,\n  \"iters\": %d,\n  \"rows\": [\n", o.rounds,
			o.iters);
		for (size_t i = 0; i < rows.size(); i++)
			json_row(o.json, rows[i], i + 1 == rows.size());
		fprintf(o.json, "  ]\n}\n");
		fclose(o.json);
	}
	print_table(rows, o);
	return bad;
}
