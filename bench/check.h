/*
 * check.h: CHECK(call) for the CUDA programs under bench/: a failed CUDA runtime call prints
 * where and why, and the program exits with 1 (benchmarks and test subjects, not libraries).
 */
#ifndef SKIP_BENCH_CHECK_H
#define SKIP_BENCH_CHECK_H

#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                                                \
	do {                                                                                       \
		cudaError_t e_ = (call);                                                           \
		if (e_ != cudaSuccess) {                                                           \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,              \
				cudaGetErrorString(e_));                                           \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

#endif
