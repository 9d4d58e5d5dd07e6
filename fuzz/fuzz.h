/*
 * fuzz.h: what the fuzz targets (fuzz/fuzz_*.c) share. Each target is one libFuzzer entry
 * point, LLVMFuzzerTestOneInput(), plus an optional LLVMFuzzerInitialize(); `make fuzz` links
 * it with -fsanitize=fuzzer, and `make test` links the same file with fuzz/replay.c, a plain
 * main() that runs each file named on the command line once (tests/cli/t_fuzz_regress.sh).
 *
 * The helpers (fuzz/common.c) give each process its own scratch folder under /dev/shm (or
 * $TMPDIR), write an input there as a file (the libraries read traces and workloads by path),
 * and drive a trace through what `skip report` and `skip advise` do with one. Everything here
 * aborts on a setup failure: that is a broken harness, not a finding.
 */
#ifndef SKIP_FUZZ_H
#define SKIP_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/* The libFuzzer entry points (declared for -Wmissing-prototypes). */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Quiet logging, and the scratch folder made; idempotent. */
void fz_init(void);
/* "$scratch/@name" in a static buffer (one per call site is enough: copy it to keep it). */
const char *fz_path(const char *name);
/* Write @n bytes to @path, replacing it. */
void fz_write(const char *path, const void *data, size_t n);
/* Remove a database file and its -journal, -wal and -shm. */
void fz_unlink_db(const char *path);
/* The whole of file @path (NUL-terminated, *@n its length), or NULL when it cannot be read. */
char *fz_slurp(const char *path, size_t *n);
/* "@FZ_SRCDIR/@rel": a file of the source tree (fixtures, workloads). */
const char *fz_src(const char *rel);
/* tests/fixtures/hand/@name.sql (malloc'ed; caller frees). */
char *fz_hand_sql(const char *name);
/* Build the trace tests/unit/analyzer does from tests/fixtures/hand: common.sql, then @name
 * and @more (either may be NULL) at @path (replaced), finalized as `skip record` leaves it. */
void fz_hand_trace(const char *path, const char *name, const char *more);
/* @data as a NUL-terminated string (malloc'ed; caller frees). */
char *fz_cstr(const uint8_t *data, size_t n);

/*
 * Drive the trace at @path as `skip report` and `skip advise` do: open it, analyze every run
 * (then each repeated NVTX range of the first run as a region), write the report as JSON,
 * load each run's timeline and predict its graph replay, and advise on the first run. Errors
 * are expected (a damaged trace is refused); only crashes and sanitizer reports count.
 */
void fz_drive_trace(const char *path);

#endif /* SKIP_FUZZ_H */
