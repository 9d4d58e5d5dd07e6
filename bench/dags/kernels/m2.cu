/*
 * m2.cu: M2, the second of HuntKTm's micro-benchmarks (b15), over N floats with a bias of H
 * entries:
 *   s_i = silu(in_i + bias)                i = 0..5   (independent)
 *   q_i = relu(s_i + bias) * sigmoid(in_i) i = 0..5   (bias + gated ReLU, gate from the input)
 *   out_k = q_3k + q_3k+1 + q_3k+2 + bias  k = 0..1   (bias + residual over three)
 * 14 kernels, width 6.
 */
#include "common.cuh"

static __device__ __forceinline__ float silu(float v)
{
	return v * sigmoid(v);
}

SKIP_TASK(m_add_bias_silu, (const float *__restrict__, in), (const float *__restrict__, bias),
	  (float *__restrict__, out), (long, n), (int, h))
{
	GRID_MAP(i, n, out, silu(in[i] + bias[i % h]));
}

SKIP_TASK(m_add_bias_gated_relu, (const float *__restrict__, s), (const float *__restrict__, gate),
	  (const float *__restrict__, bias), (float *__restrict__, out), (long, n), (int, h))
{
	GRID_MAP(i, n, out, fmaxf(s[i] + bias[i % h], 0.0f) * sigmoid(gate[i]));
}

SKIP_TASK(m_add_bias_residual3, (const float *__restrict__, a), (const float *__restrict__, b),
	  (const float *__restrict__, c), (const float *__restrict__, bias),
	  (float *__restrict__, out), (long, n), (int, h))
{
	GRID_MAP(i, n, out, a[i] + b[i] + c[i] + bias[i % h]);
}
