/*
 * bs.cu: B&S, after GrCUDA bench b5: Black-Scholes call prices of ten independent vectors of
 * spot prices, in double precision (risk-free rate 0.08, volatility 0.3, one year, strike 60).
 * Shape: ten independent tasks.
 */
#include "common.cuh"

static __device__ double cnd(double d)
{
	return 0.5 * erfc(-d * 0.70710678118654752440);
}

SKIP_TASK(bs_price, (const double *__restrict__, spot), (double *__restrict__, call), (long, n))
{
	const double R = 0.08, V = 0.3, T = 1.0, K = 60.0;
	const double vsqrt = V * sqrt(T), disc = K * exp(-R * T);

	auto price = [&](double s) {
		double d1 = (log(s / K) + (R + 0.5 * V * V) * T) / vsqrt, d2 = d1 - vsqrt;

		return s * cnd(d1) - disc * cnd(d2);
	};

	GRID_MAP(i, n, call, price(spot[i]));
}
