/*
 * stats.c: the gate's statistics, all pure functions of two samples. The one-sided
 * Mann-Whitney rank test (exact null distribution when there are no ties and at most 10,000
 * pairs, else the normal approximation with the tie and continuity corrections), the
 * Hodges-Lehmann shift with the confidence interval the same rank statistic gives, the
 * smallest p-value a sample size allows, and Holm's step-down procedure. docs/skip-gate.md
 * "The test" says why these and not a bootstrap.
 */
#define SK_LOG_DOMAIN "gate"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define EXACT_MAX_PAIRS 10000

/*
 * Null distribution of U (pairs with the candidate value larger) for sizes @m and @n without
 * ties: the coefficients of the Gaussian binomial [m + n choose m]_q, c[u] for u = 0..m*n, as
 * the product over i = 1..m of (1 - q^(n+i)) / (1 - q^i). @c holds m*n + m + 1 entries; each
 * step's quotient is exact, so what lies above its degree is cleared.
 */
static void u_counts(int m, int n, double *c)
{
	int deg = 0;

	memset(c, 0, ((size_t)m * (size_t)n + (size_t)m + 1) * sizeof(double));
	c[0] = 1;
	for (int i = 1; i <= m; i++) {
		int a = n + i, top = deg + a;

		for (int d = top; d >= a; d--)
			c[d] -= c[d - a];
		deg = i * n;
		for (int d = i; d <= deg; d++)
			c[d] += c[d - i];
		for (int d = deg + 1; d <= top; d++)
			c[d] = 0;
	}
}

/* Standard normal distribution function. */
static double phi(double z)
{
	return 0.5 * erfc(-z / M_SQRT2);
}

/* Its inverse, by bisection (used once per comparison, for the interval). */
static double phi_inv(double p)
{
	double lo = -40, hi = 40;

	for (int i = 0; i < 200 && hi - lo > 1e-12; i++) {
		double mid = (lo + hi) / 2;

		if (phi(mid) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/* U (pairs with cand > base, ties counting one half) and the tie term sum(t^3 - t) of the
 * pooled sample. */
static double u_stat(const double *b, int nb, const double *c, int nc, double *ties)
{
	int n = nb + nc;
	double u = 0, *all = sk_xmalloc((size_t)n * sizeof(double));

	for (int i = 0; i < nb; i++)
		for (int j = 0; j < nc; j++)
			u += c[j] > b[i] ? 1 : c[j] == b[i] ? 0.5 : 0;
	memcpy(all, b, (size_t)nb * sizeof(double));
	memcpy(all + nb, c, (size_t)nc * sizeof(double));
	qsort(all, (size_t)n, sizeof(double), sk_cmp_double);
	*ties = 0;
	for (int i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && all[j] == all[i]; j++)
			;
		*ties += (double)(j - i) * (j - i) * (j - i) - (j - i);
	}
	free(all);
	return u;
}

/* The p-values and the interval's rank from the exact distribution. */
static void exact_tail(int nb, int nc, double u, double alpha, struct skip_gate_stat *s, long *k)
{
	long pairs = (long)nb * nc;
	double *c = sk_xmalloc(((size_t)pairs + (size_t)nb + 1) * sizeof(double));
	double total = 0, up = 0, down = 0, cum = 0;

	u_counts(nb, nc, c);
	for (long i = 0; i <= pairs; i++) {
		total += c[i];
		up += i >= u ? c[i] : 0;
		down += i <= u ? c[i] : 0;
	}
	s->p_worse = fmin(1, up / total);
	s->p_better = fmin(1, down / total);
	*k = 0; /* the interval is [D(k), D(pairs + 1 - k)] for the largest k with
		   P(U <= k - 1) <= alpha */
	for (long i = 0; i < pairs / 2; i++) {
		cum += c[i];
		if (cum / total > alpha)
			break;
		*k = i + 1;
	}
	s->exact = 1;
	free(c);
}

static void normal_tail(int nb, int nc, double u, double ties, double alpha,
			struct skip_gate_stat *s, long *k)
{
	double n = nb + nc, mu = (double)nb * nc / 2;
	double var = (double)nb * nc / 12 * ((n + 1) - ties / (n * (n - 1)));
	double sd = var > 0 ? sqrt(var) : 0, kmax;

	s->exact = 0;
	if (sd == 0) {
		s->p_worse = s->p_better = 1;
		*k = 0;
		return;
	}
	s->p_worse = 1 - phi((u - mu - 0.5) / sd);
	s->p_better = phi((u - mu + 0.5) / sd);
	kmax = floor(mu - 0.5 + sd * phi_inv(alpha)) + 1;
	*k = kmax < 0 ? 0 : kmax > mu ? (long)mu : (long)kmax;
}

static double median_of(const double *v, int n)
{
	double *w = sk_xmalloc((size_t)n * sizeof(double)), m;

	memcpy(w, v, (size_t)n * sizeof(double));
	m = skip_median(w, (size_t)n);
	free(w);
	return m;
}

/* The Hodges-Lehmann shift and the interval from the sorted pairwise differences. */
static void shift_interval(const double *b, int nb, const double *c, int nc, long k,
			   struct skip_gate_stat *s)
{
	long pairs = (long)nb * nc, at = 0;
	double *d = sk_xmalloc((size_t)pairs * sizeof(double));

	for (int i = 0; i < nb; i++)
		for (int j = 0; j < nc; j++)
			d[at++] = c[j] - b[i];
	qsort(d, (size_t)pairs, sizeof(double), sk_cmp_double);
	s->shift = (d[(pairs - 1) / 2] + d[pairs / 2]) / 2;
	s->ci_lo = k > 0 ? d[k - 1] : -INFINITY;
	s->ci_hi = k > 0 ? d[pairs - k] : INFINITY;
	free(d);
}

int skip_gate_stat_compute(const double *base, int nb, const double *cand, int nc, double alpha,
			   struct skip_gate_stat *s)
{
	double u, ties;
	long k = 0;

	memset(s, 0, sizeof(*s));
	if (nb < 1 || nc < 1)
		return sk_fail(SKIP_E_INVAL, "a comparison needs a value on each side");
	for (int i = 0; i < nb + nc; i++)
		if (isnan(i < nb ? base[i] : cand[i - nb]))
			return sk_fail(SKIP_E_INVAL, "a value to compare is not a number");
	s->nb = nb;
	s->nc = nc;
	s->base_median = median_of(base, nb);
	s->cand_median = median_of(cand, nc);
	u = u_stat(base, nb, cand, nc, &ties);
	if (ties == 0 && (long)nb * nc <= EXACT_MAX_PAIRS)
		exact_tail(nb, nc, u, alpha, s, &k);
	else
		normal_tail(nb, nc, u, ties, alpha, s, &k);
	shift_interval(base, nb, cand, nc, k, s);
	if (s->base_median != 0)
		s->rel = s->shift / fabs(s->base_median);
	else
		s->rel = s->shift > 0 ? INFINITY : s->shift < 0 ? -INFINITY : 0;
	return 0;
}

double skip_gate_min_p(int nb, int nc)
{
	if (nb < 1 || nc < 1)
		return 1;
	return exp(lgamma(nb + 1.0) + lgamma(nc + 1.0) - lgamma(nb + nc + 1.0));
}

int skip_gate_runs_needed(double level)
{
	int n = 1;

	while (n < 100000 && skip_gate_min_p(n, n) > level)
		n++;
	return n;
}

void skip_gate_holm(const double *p, size_t n, double alpha, int *reject, double *level)
{
	size_t *idx = sk_xmalloc((n + 1) * sizeof(size_t));
	int stopped = 0;

	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	for (size_t i = 1; i < n; i++) /* insertion sort by p, stable: families are small */
		for (size_t j = i; j > 0 && p[idx[j]] < p[idx[j - 1]]; j--) {
			size_t t = idx[j];

			idx[j] = idx[j - 1];
			idx[j - 1] = t;
		}
	for (size_t r = 0; r < n; r++) {
		size_t i = idx[r];

		level[i] = alpha / (double)(n - r);
		reject[i] = !stopped && p[i] <= level[i];
		stopped |= !reject[i];
	}
	free(idx);
}
