/*
 * skip_import.h: torch.profiler traces into skip's trace store (libskip_import.a).
 *
 * A torch.profiler trace is the Chrome trace-event JSON that Kineto writes
 * (prof.export_chrome_trace(), or the TensorBoard plugin's *.pt.trace.json[.gz]). Each input
 * becomes one run of a skip trace (schemas/trace.sql): kernels, memcpys, memsets, CUDA runtime
 * and driver calls with their correlation ids, synchronizations, cpu_op and user_annotation
 * events as NVTX push/pop ranges on their threads, the GPUs of deviceProperties, processes and
 * thread names. Timestamps are Kineto's microseconds with three decimals, read from the text
 * exactly into integer nanoseconds. What the format lacks stays NULL where the schema allows
 * it, and is listed in SKIP_METADATA ('unavailable') so that skip report says which figures
 * it could not compute. docs/skip-import.md has the field mapping.
 *
 * Memory: the decompressed JSON text is held whole (its size, bounded by
 * skip_import_opts.max_bytes) plus the cJSON tree of one event at a time, the string table and
 * 16 bytes per GPU operation; rows go to SQLite as they are read.
 *
 * Ownership: skip_importer_new() returns an importer freed with skip_importer_free(); the
 * sqlite3 handle stays the caller's and must outlive it. One thread at a time.
 */
#ifndef SKIP_IMPORT_H
#define SKIP_IMPORT_H

#include <stddef.h>
#include <stdint.h>

#include "skip_common.h"

/* Default limit on the decompressed JSON text: 4 GiB. */
#define SKIP_IMPORT_DEFAULT_MAX_BYTES ((size_t)4 << 30)

struct skip_import_opts {
	size_t max_bytes;  /* refuse a JSON text (after gunzip) larger than this; 0: the default */
	const char *label; /* SKIP_RUNS.label of the run; NULL: the input's file name */
};

/* What one input gave. */
struct skip_import_counts {
	int64_t run_id;			     /* the run it became */
	int64_t events;			     /* elements of traceEvents */
	int64_t kernels, memcpys, memsets;   /* GPU operations */
	int64_t runtime_calls, driver_calls; /* cuda_runtime, cuda_driver */
	int64_t syncs;			     /* cuda_sync */
	int64_t ranges;			     /* cpu_op and user_annotation -> NVTX ranges */
	int64_t gpus;			     /* deviceProperties entries */
	int64_t ignored;		     /* events of other categories or phases */
};

struct skip_importer;

/*
 * An importer writing into @db, an open skip trace (skip_store_create()); runs are numbered
 * after the ones it holds. Returns NULL with *@err set (SKIP_E_NOMEM, SKIP_E_DB) on failure.
 */
SKIP_API struct skip_importer *skip_importer_new(sqlite3 *db, int *err);
SKIP_API void skip_importer_free(struct skip_importer *im);

/*
 * Import the torch.profiler trace at @path (plain or gzip JSON, told apart by content) as the
 * next run, in one transaction: on failure nothing of it is left in the database, and the
 * importer must not be used again. *@c (may be NULL) gets the counts. Returns 0, or with
 * skip_errmsg() one line naming the file and, for bad content, the line and column or the
 * event:
 *   SKIP_E_NOTFOUND, SKIP_E_IO: cannot be read (a truncated or damaged gzip stream is
 * SKIP_E_INVAL); SKIP_E_INVAL: not JSON, not a torch.profiler trace, a missing or malformed field,
 * a timestamp out of range, larger than @o->max_bytes; SKIP_E_EMPTY: no events; SKIP_E_NOMEM,
 * SKIP_E_DB, SKIP_E_FULL.
 */
SKIP_API int skip_importer_add(struct skip_importer *im, const char *path,
			       const struct skip_import_opts *o, struct skip_import_counts *c);

#endif /* SKIP_IMPORT_H */
