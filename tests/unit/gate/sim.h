/*
 * sim.h: simulated run sets for the gate's statistics (tests/unit/gate and the power-table
 * program power.c): sides whose per-run values are drawn log-normal, as the run-to-run spread
 * of a real GPU program is, and the rate at which skip_gate_decide() fails over many trials.
 */
#ifndef SKIP_TEST_GATE_SIM_H
#define SKIP_TEST_GATE_SIM_H

#include <stdint.h>

#include "skip_gate.h"

/* splitmix64: a small, seedable generator, the same sequence on every machine. */
struct sim_rng {
	uint64_t s;
};
uint64_t sim_next(struct sim_rng *r);
/* A standard normal draw (Box-Muller). */
double sim_normal(struct sim_rng *r);

/*
 * A side of @n runs in one case: each run's IL is 1 ms x @il_factor x exp(sigma N(0,1)), its
 * TKLQT 200 us x @tklqt_factor x exp(sigma N(0,1)), independent (the worst case for a family
 * of tests), the other metrics derived from them. Free with skip_gate_side_free().
 */
struct skip_gate_side *sim_side(struct sim_rng *r, const char *path, int n, double sigma,
				double il_factor, double tklqt_factor);

/*
 * Over @trials trials, the fraction in which skip_gate_decide() with @o finds a regression
 * between a baseline of @n runs and a candidate of @n runs whose IL is @slowdown slower (0.1:
 * 10%), both with log-normal spread @sigma. Returns -1 when the gate refuses the sides (too
 * few runs for the test).
 */
double sim_fail_rate(uint64_t seed, int trials, int n, double sigma, double slowdown,
		     const struct skip_gate_opts *o);

#endif
