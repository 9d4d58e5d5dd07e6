/*
 * driver.h: what the C++ benchmark drivers under bench/ (dags/dagbench.cu,
 * gemm_pair/gemmbench.cu) share: medians of interleaved rounds, comma lists, the options'
 * plumbing and the start. Header-only; nothing to free.
 */
#ifndef SKIP_BENCH_DRIVER_H
#define SKIP_BENCH_DRIVER_H

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <libgen.h>
#include <string>
#include <vector>

extern "C" {
#include "skip_runtime.h"
}

static inline double bench_median(std::vector<double> v)
{
	std::sort(v.begin(), v.end());
	return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

/* "a,b,c" as its items ("" is one empty item). */
static inline std::vector<std::string> bench_split(const char *s)
{
	std::vector<std::string> out(1);

	for (; *s; s++)
		if (*s == ',')
			out.emplace_back();
		else
			out.back() += *s;
	return out;
}

/* The folder of the program (argv[0]): where it looks for its modules by default. */
static inline std::string bench_self_dir(const char *argv0)
{
	char self[4096];

	strncpy(self, argv0, sizeof(self) - 1);
	self[sizeof(self) - 1] = '\0';
	return dirname(self);
}

/* The value of option argv[*i], which is argv[*i + 1] (*i moves past it); without one, the
 * program @prog says so, pointing at @doc, and exits with 2. */
static inline const char *bench_value(const char *prog, int argc, char **argv, int *i,
				      const char *doc)
{
	if (*i + 1 >= argc) {
		fprintf(stderr, "%s: %s needs a value (see %s)\n", prog, argv[*i], doc);
		exit(2);
	}
	return argv[++*i];
}

/* Logging for @prog and the GPU's description (device 0) into @dev, printed; without a GPU
 * the program says so and exits with 1. */
static inline void bench_start(const char *prog, char *dev, size_t n)
{
	skip_log_init(prog, NULL, 1);
	if (skip_runtime_probe(0, dev, n)) {
		fprintf(stderr, "%s: no GPU: %s\n", prog, skip_errmsg());
		exit(1);
	}
	printf("%s on %s\n", prog, dev);
}

#endif
