/*
 * replay.c: a main() for the fuzz targets without libFuzzer: run each file named on the
 * command line through LLVMFuzzerTestOneInput() once, as a libFuzzer binary does with file
 * arguments. `make test` links every fuzz/fuzz_*.c with it ($(O)/fuzz/replay_*, built with
 * the project's own compiler and SAN=) so that tests/cli/t_fuzz_regress.sh replays
 * tests/fuzz-regress/ without clang. A crash or a sanitizer report ends the process, as it
 * would under libFuzzer; otherwise it prints one line per file and exits 0.
 */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"

int main(int argc, char **argv)
{
	LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++) {
		size_t n = 0;
		char *data = fz_slurp(argv[i], &n);

		if (!data) {
			fprintf(stderr, "replay: cannot read %s\n", argv[i]);
			return 2;
		}
		fprintf(stderr, "replay: %s (%zu bytes)\n", argv[i], n);
		LLVMFuzzerTestOneInput((const uint8_t *)data, n);
		free(data);
	}
	return 0;
}
