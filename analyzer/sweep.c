/*
 * sweep.c: a parameter sweep (skip record --sweep) and where its program flips from CPU-bound
 * to GPU-bound, found two ways (docs/skip-report.md, "Sweeps"):
 *
 * - verdict flip: the first pair of adjacent values where the median host-side share falls
 *   from at least the threshold to below it; the crossover is interpolated on log2 of the
 *   parameter between the two;
 * - TKLQT knee: SKIP's observation that TKLQT stays flat while the program is CPU-bound and
 *   rises once kernels queue. Plateau P = median TKLQT of the first values (3 of 5 or more,
 *   else 2); the knee is where TKLQT crosses (1 + eps) P for good (every later value stays
 *   above, and the last is above the knee's), interpolated on log2 likewise. A crossing inside
 *   the plateau values means TKLQT rose from the start: no plateau, no knee.
 *
 * Both are reported with their inputs; they agree when both are absent or both found within a
 * factor of 2 of each other.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* x where the segment (x0, y0)-(x1, y1) reaches y, on a log2 axis, clamped to [x0, x1]. */
static double interp_log2(double x0, double y0, double x1, double y1, double y)
{
	double f = y1 != y0 ? (y - y0) / (y1 - y0) : 0;

	f = f < 0 ? 0 : f > 1 ? 1 : f;
	return exp2(log2(x0) + f * (log2(x1) - log2(x0)));
}

static void verdict_flip(const double *x, const double *h, size_t n, double theta,
			 struct skip_crossing *c)
{
	memset(c, 0, sizeof(*c));
	c->lo = c->hi = -1;
	for (size_t i = 0; i + 1 < n; i++) {
		int a = h[i] >= theta, b = h[i + 1] >= theta;

		if (a == b)
			continue;
		c->flips++;
		if (a && !b && !c->found) {
			c->found = 1;
			c->lo = (int)i;
			c->hi = (int)i + 1;
			c->value = interp_log2(x[i], h[i], x[i + 1], h[i + 1], theta);
		}
	}
	c->threshold = theta;
}

static void tklqt_knee(const double *x, const double *t, size_t n, double eps,
		       struct skip_crossing *c)
{
	size_t m = n >= 5 ? 3 : n >= 3 ? 2 : 0, i;
	double plateau[3]; /* a copy: skip_median() sorts */

	memset(c, 0, sizeof(*c));
	c->lo = c->hi = -1;
	c->epsilon = eps;
	c->plateau_points = (int)m;
	if (!m)
		return;
	memcpy(plateau, t, m * sizeof(double));
	c->plateau = skip_median(plateau, m);
	c->threshold = (1 + eps) * c->plateau;
	/* The first index from which every value stays above the threshold. */
	for (i = n; i > 0 && t[i - 1] > c->threshold; i--)
		;
	if (i == n || i == 0 || i < m)
		return; /* never above, or above from the start: no plateau then rise */
	if (i + 1 < n && t[n - 1] <= t[i])
		return; /* above, but not rising: not a sustained rise */
	c->found = 1;
	c->lo = (int)i - 1;
	c->hi = (int)i;
	c->value = interp_log2(x[i - 1], t[i - 1], x[i], t[i], c->threshold);
}

void skip_sweep_crossover(const double *x, const double *host_share, const double *tklqt, size_t n,
			  double threshold, double eps, struct skip_sweep *s)
{
	verdict_flip(x, host_share, n, threshold, &s->flip);
	tklqt_knee(x, tklqt, n, eps, &s->knee);
	if (s->flip.found && s->knee.found)
		s->agree = fabs(log2(s->flip.value) - log2(s->knee.value)) <= 1;
	else
		s->agree = s->flip.found == s->knee.found;
}
