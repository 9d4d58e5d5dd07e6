/*
 * fuzz_trace.c: the trace loader on damaged files. The input is the raw bytes of a trace
 * file; it is written to the scratch folder and goes the way `skip report` and `skip advise`
 * take a trace (skip_trace_open, which runs skip_store_open's checks, then the analyzer and
 * the advisor: fz_drive_trace()). Seeds: the hand-built traces of tests/fixtures/hand and
 * small recorded ones, stored with 512-byte pages (fuzz/corpus.sh).
 */
#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fz_init();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fz_path("trace.skip.db");

	fz_write(path, data, size);
	fz_drive_trace(path);
	fz_unlink_db(path);
	return 0;
}
