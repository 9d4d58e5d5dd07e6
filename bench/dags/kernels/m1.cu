/*
 * m1.cu: M1, the first of HuntKTm's micro-benchmarks (b14; TACO 22(4) 161, 2025), built
 * from FasterTransformer-style activation kernels over N floats with a bias of H entries
 * (element i uses bias[i % H]):
 *   g_i = gelu(in_i + bias)           i = 0..7   (independent)
 *   r_j = g_2j + g_2j+1 + bias        j = 0..3   (bias + residual)
 *   h_j = gelu(r_j + bias)            j = 0..3
 *   out = (h_0 + h_1 + h_2 + h_3) / 4            (the "reduce average")
 * 17 kernels, width 8.
 */
#include "common.cuh"

SKIP_TASK(m_add_bias_gelu, (const float *__restrict__, in), (const float *__restrict__, bias),
	  (float *__restrict__, out), (long, n), (int, h))
{
	GRID_MAP(i, n, out, gelu(in[i] + bias[i % h]));
}

SKIP_TASK(m_add_bias_residual2, (const float *__restrict__, a), (const float *__restrict__, b),
	  (const float *__restrict__, bias), (float *__restrict__, out), (long, n), (int, h))
{
	GRID_MAP(i, n, out, a[i] + b[i] + bias[i % h]);
}

SKIP_TASK(m_average4, (const float *__restrict__, a), (const float *__restrict__, b),
	  (const float *__restrict__, c), (const float *__restrict__, d),
	  (float *__restrict__, out), (long, n))
{
	GRID_MAP(i, n, out, 0.25f * (a[i] + b[i] + c[i] + d[i]));
}
