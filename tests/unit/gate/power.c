/*
 * power.c: the gate's false-alarm rate and detection power on simulated run sets, the table
 * of docs/skip-gate.md. `make gate-power` builds and runs it (a few seconds).
 *
 * Each trial draws a baseline and a candidate of n runs each, every run's IL and TKLQT
 * log-normal with spread sigma (the 10-30% between processes seen on the H100), the
 * candidate's IL slower by the given factor, and runs skip_gate_decide() at the default
 * settings (IL gated, alpha 0.005, 5% threshold), with IL and TKLQT gated (Holm shares the
 * alpha), or at --alpha 0.05. A trial counts when the gate reports a regression.
 */
#include <stdio.h>
#include <stdlib.h>

#include "sim.h"

#define TRIALS 2000
#define SEED   20261123

static void row(const char *what, const struct skip_gate_opts *o, double slowdown)
{
	static const int ns[] = {5, 10, 20};
	static const double sigmas[] = {0.10, 0.20, 0.30};

	for (size_t s = 0; s < 3; s++) {
		printf("| %s | %.0f%% |", what, sigmas[s] * 100);
		for (size_t i = 0; i < 3; i++) {
			double r = sim_fail_rate(SEED + 1000 * i + s, TRIALS, ns[i], sigmas[s],
						 slowdown, o);

			if (r < 0)
				printf(" too few runs |");
			else
				printf(" %.1f%% |", 100 * r);
		}
		printf("\n");
	}
}

/* The fewest runs per side (of a list) with which the default gate catches a @slowdown in at
 * least 80% of the trials. */
static void runs_for_power(double slowdown)
{
	static const int ns[] = {5, 10, 15, 20, 30, 40, 60, 80, 100, 150, 200};
	static const double sigmas[] = {0.02, 0.05, 0.10, 0.20, 0.30};
	struct skip_gate_opts o = {.floor_ns = -1};

	printf("Runs per side for 80%% power against an IL %.0f%% slower (default gate, %d "
	       "trials)\n\n| spread | runs per side |\n|---:|---:|\n",
	       slowdown * 100, TRIALS / 4);
	for (size_t s = 0; s < sizeof(sigmas) / sizeof(sigmas[0]); s++) {
		size_t i;

		for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
			if (sim_fail_rate(SEED + 7 * i + s, TRIALS / 4, ns[i], sigmas[s], slowdown,
					  &o) >= 0.8)
				break;
		if (i < sizeof(ns) / sizeof(ns[0]))
			printf("| %.0f%% | %d |\n", sigmas[s] * 100, ns[i]);
		else
			printf("| %.0f%% | more than %d |\n", sigmas[s] * 100, ns[i - 1]);
	}
	printf("\n");
}

int main(void)
{
	struct skip_gate_metric *two = NULL;
	size_t ntwo = 0;
	struct skip_gate_opts dflt = {.floor_ns = -1}, both = {.floor_ns = -1};
	struct skip_gate_opts loose = {.floor_ns = -1, .alpha = 0.05};
	static const double slow[] = {0, 0.05, 0.10, 0.25};

	if (skip_gate_metrics_parse("il,tklqt", &two, &ntwo))
		return 1;
	both.metrics = two;
	both.nmetrics = ntwo;
	printf("%d trials per cell, seed %d; a cell is the share of trials that fail the gate\n\n",
	       TRIALS, SEED);
	for (size_t k = 0; k < sizeof(slow) / sizeof(slow[0]); k++) {
		printf("IL %s%.0f%% slower\n\n| gate | spread | 5 runs | 10 runs | 20 runs |\n"
		       "|---|---:|---:|---:|---:|\n",
		       slow[k] ? "" : "identical: ", slow[k] * 100);
		row("default (il)", &dflt, slow[k]);
		row("--metric il,tklqt", &both, slow[k]);
		row("--alpha 0.05", &loose, slow[k]);
		printf("\n");
	}
	runs_for_power(0.10);
	runs_for_power(0.25);
	skip_gate_metrics_free(two, ntwo);
	return 0;
}
