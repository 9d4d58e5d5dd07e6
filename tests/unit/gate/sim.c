/*
 * sim.c: see sim.h.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

uint64_t sim_next(struct sim_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double uniform(struct sim_rng *r)
{
	return ((double)(sim_next(r) >> 11) + 0.5) / 9007199254740992.0; /* (0, 1) */
}

double sim_normal(struct sim_rng *r)
{
	double u = uniform(r), v = uniform(r);

	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

static void fill_run(struct skip_gate_run *run, int64_t id, double il, double tklqt)
{
	memset(run, 0, sizeof(*run));
	run->run_id = id;
	run->regions = 1;
	run->median[SKIP_M_IL] = il;
	run->median[SKIP_M_TKLQT] = tklqt;
	run->median[SKIP_M_T_API] = 0.6 * tklqt;
	run->median[SKIP_M_T_QUEUE] = 0.4 * tklqt;
	run->median[SKIP_M_BUSY] = 0.7 * il;
	run->median[SKIP_M_IDLE] = 0.3 * il;
	run->median[SKIP_M_HOST_WAIT] = 0.2 * il;
	run->median[SKIP_M_HOST_SHARE] = 0.25;
	run->median[SKIP_M_AKD] = 5000;
	run->median[SKIP_M_KERNELS] = 100;
	memcpy(run->mean, run->median, sizeof(run->mean));
}

struct skip_gate_side *sim_side(struct sim_rng *r, const char *path, int n, double sigma,
				double il_factor, double tklqt_factor)
{
	struct skip_gate_side *s = calloc(1, sizeof(*s));
	struct skip_gate_case *c;

	s->path = strdup(path);
	s->ncases = 1;
	s->cases = calloc(1, sizeof(*s->cases));
	c = &s->cases[0];
	c->key = strdup("");
	c->command = strdup("sim");
	c->nruns = (size_t)n;
	c->runs = calloc((size_t)n, sizeof(*c->runs));
	for (int i = 0; i < n; i++) {
		double il = 1e6 * il_factor * exp(sigma * sim_normal(r));
		double tk = 2e5 * tklqt_factor * exp(sigma * sim_normal(r));

		fill_run(&c->runs[i], i + 1, il, tk);
	}
	return s;
}

double sim_fail_rate(uint64_t seed, int trials, int n, double sigma, double slowdown,
		     const struct skip_gate_opts *o)
{
	struct sim_rng r = {seed};
	int fails = 0;

	for (int t = 0; t < trials; t++) {
		struct skip_gate_side *b = sim_side(&r, "base", n, sigma, 1, 1);
		struct skip_gate_side *c = sim_side(&r, "cand", n, sigma, 1 + slowdown, 1);
		struct skip_gate_result *res = NULL;
		int err = skip_gate_decide(b, c, o, &res);

		if (!err)
			fails += res->regressions > 0;
		skip_gate_result_free(res);
		skip_gate_side_free(c);
		skip_gate_side_free(b);
		if (err)
			return -1;
	}
	return (double)fails / trials;
}
