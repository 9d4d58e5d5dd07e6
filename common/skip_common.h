/*
 * skip_common.h: what every part of skip shares.
 *
 * Error codes and skip_strerror(), the per-thread error message that explains the last
 * failure (skip_errmsg()), logging with per-domain debug levels, the allocation helpers for
 * the CLI and analyzers, clocks, a growable string buffer, and the trace store: creating,
 * opening (with version checks), merging and summarizing the SQLite files that
 * schemas/trace.sql describes. At the end, the one hash table, string table, growable array,
 * median and whole-file reader that every part uses.
 *
 * Ownership: every function that returns a `char *` hands it to the caller, who frees it
 * with free(). A returned `const char *` is borrowed. sqlite3 handles returned by the store
 * functions are closed by the caller with sqlite3_close().
 *
 * Thread safety: logging and skip_errmsg() are thread-safe (the message is per thread);
 * a sqlite3 handle must be used by one thread at a time.
 */
#ifndef SKIP_COMMON_H
#define SKIP_COMMON_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <sqlite3.h>

#define SKIP_VERSION "0.1.0"

/* Version of schemas/trace.sql; stored in PRAGMA user_version. Version 1 and 2 files are read
 * as they are (the readers handle every version) and migrated in place when opened for
 * writing. */
#define SKIP_SCHEMA_VERSION 3

/* SKIP_RUNS.kind (schema 3): a run recorded with the CUDA activity (the default), or a
 * baseline run (`skip record --baseline`: NVTX ranges and process identity only). Files of
 * schema 1 and 2 have no such column: every run in them is a full one. */
#define SKIP_RUN_FULL	  "full"
#define SKIP_RUN_BASELINE "baseline"

/* The text of the NVTX_EVENTS rows (start/end ranges, eventType 60) that the collector writes
 * for each capture range of `skip record --capture-range`: from the cudaProfilerStart to the
 * cudaProfilerStop (or the process's end). */
#define SKIP_CAPTURE_RANGE_TEXT "skip: capture range"

#if defined(__GNUC__)
#define SKIP_API	__attribute__((visibility("default")))
#define SK_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define SK_UNUSED	__attribute__((unused))
#else
#define SKIP_API
#define SK_PRINTF(a, b)
#define SK_UNUSED
#endif

/*
 * Error codes. Functions that can fail return 0 on success or a negative code: either
 * -errno for a failed system call, or one of these (all below -1000 so they never collide
 * with errno values).
 */
enum skip_error {
	SKIP_OK = 0,
	SKIP_E_NOMEM = -1001,	    /* out of memory */
	SKIP_E_INVAL = -1002,	    /* invalid argument or malformed input */
	SKIP_E_IO = -1003,	    /* read or write failed */
	SKIP_E_DB = -1004,	    /* SQLite reported an error */
	SKIP_E_NOTSQLITE = -1005,   /* the file is not an SQLite database */
	SKIP_E_CORRUPT = -1006,	    /* the database is truncated or corrupt */
	SKIP_E_FOREIGN = -1007,	    /* an SQLite file that is not a skip trace */
	SKIP_E_NEWER = -1008,	    /* written by a newer skip (schema version too high) */
	SKIP_E_OLDER = -1009,	    /* an older schema this version cannot migrate */
	SKIP_E_EXISTS = -1010,	    /* the output exists and overwriting was not asked for */
	SKIP_E_NOTFOUND = -1011,    /* a file, run, region or name does not exist */
	SKIP_E_EMPTY = -1012,	    /* nothing to work on (no runs, no kernels) */
	SKIP_E_CUPTI = -1013,	    /* a CUPTI call failed */
	SKIP_E_CUDA = -1014,	    /* a CUDA call failed */
	SKIP_E_NODEV = -1015,	    /* no CUDA device present */
	SKIP_E_FULL = -1016,	    /* the disk is full */
	SKIP_E_UNSUPPORTED = -1017, /* not supported by this build or this file */
};

/* A static description of @err (a SKIP_E_* code or -errno). Never NULL. Thread-safe. */
SKIP_API const char *skip_strerror(int err);

/*
 * The message that explains the last failure reported through sk_set_errmsg() on this
 * thread ("trace.db: not an SQLite database"). Borrowed; valid until the next failure on the
 * same thread. Empty string when none.
 */
SKIP_API const char *skip_errmsg(void);
/* Set this thread's error message and return @err, so callers can `return sk_fail(...)`. */
SKIP_API int sk_fail(int err, const char *fmt, ...) SK_PRINTF(2, 3);

/* ---- logging ---------------------------------------------------------------------- */

enum sk_log_level { SK_LOG_ERR, SK_LOG_WARN, SK_LOG_INFO, SK_LOG_DBG };

/*
 * Route log lines to @out (NULL keeps stderr) with @prefix ("skip", or "skip[1234]" in the
 * collector) and read per-domain debug levels from SKIP_DEBUG ("collector:2,analyzer:1", or a
 * bare number for every domain). @quiet drops info lines. Not thread-safe: call once at
 * start-up, before other threads log.
 */
SKIP_API void skip_log_init(const char *prefix, FILE *out, int quiet);
/* Nonzero when sk_dbg(@level) in @domain would print. */
SKIP_API int sk_log_enabled(const char *domain, int level);
SKIP_API void sk_log(const char *domain, int level, const char *fmt, ...) SK_PRINTF(3, 4);

#ifndef SK_LOG_DOMAIN
#define SK_LOG_DOMAIN "skip"
#endif
#define sk_err(...)  sk_log(SK_LOG_DOMAIN, SK_LOG_ERR, __VA_ARGS__)
#define sk_warn(...) sk_log(SK_LOG_DOMAIN, SK_LOG_WARN, __VA_ARGS__)
#define sk_info(...) sk_log(SK_LOG_DOMAIN, SK_LOG_INFO, __VA_ARGS__)
#define sk_dbg(lvl, ...)                                                                           \
	do {                                                                                       \
		if (sk_log_enabled(SK_LOG_DOMAIN, lvl))                                            \
			sk_log(SK_LOG_DOMAIN, SK_LOG_DBG, __VA_ARGS__);                            \
	} while (0)

/* ---- memory (CLI, analyzer, advisor only: these print and abort on exhaustion) ------ */

SKIP_API void *sk_xmalloc(size_t n);
SKIP_API void *sk_xcalloc(size_t n, size_t size);
SKIP_API void *sk_xrealloc(void *p, size_t n);
SKIP_API char *sk_xstrdup(const char *s);
SKIP_API char *sk_xasprintf(const char *fmt, ...) SK_PRINTF(1, 2);

/* ---- clocks ------------------------------------------------------------------------ */

/* clock_gettime(@clock) in integer nanoseconds (0 if the clock is unavailable). */
SKIP_API uint64_t skip_clock_ns(clockid_t clock);
/* The clock every skip trace timestamp uses (the collector hands it to CUPTI). */
#define SKIP_TRACE_CLOCK CLOCK_MONOTONIC_RAW

/* "812 ns", "6.070 us", "10.61 ms", "2.310 s": @ns with the unit that suits it and @digits
 * significant digits (nanoseconds are whole). Writes into @buf and returns it. */
SKIP_API const char *skip_fmt_duration(char *buf, size_t n, double ns, int digits);

/* nsys's short name of the kernel whose demangled name is @demangled: the bare function name
 * ("void at::native::foo<4, float>(int, float*)" -> "foo"; input of no recognizable shape comes
 * back whole) into @out, truncated to @len - 1 characters and terminated (nothing is written
 * when @len is 0). Pure and thread-safe (common/names.c). */
SKIP_API void sk_short_name(const char *demangled, char *out, size_t len);

/* ---- string buffer ----------------------------------------------------------------- */

/* A growable NUL-terminated string. Zero-initialize, append, then free(sb.buf). */
struct sk_strbuf {
	char *buf;  /* NULL until the first append */
	size_t len; /* bytes used, excluding the NUL */
	size_t cap; /* bytes allocated */
};
/* Append formatted text. Returns 0 or SKIP_E_NOMEM (the buffer keeps what it had). */
SKIP_API int sk_strbuf_printf(struct sk_strbuf *sb, const char *fmt, ...) SK_PRINTF(2, 3);
SKIP_API int sk_strbuf_append(struct sk_strbuf *sb, const char *s, size_t n);

/* ---- what to record (skip record --trace, SKIP_TRACE) -------------------------------- */

enum skip_trace_bits {
	SKIP_TRACE_CUDA = 1 << 0,	 /* kernels, memcpy, memset and their launch API calls */
	SKIP_TRACE_NVTX = 1 << 1,	 /* NVTX ranges and marks */
	SKIP_TRACE_SYNC = 1 << 2,	 /* the sync and event API calls */
	SKIP_TRACE_OVERHEAD = 1 << 3,	 /* CUPTI's own overhead records */
	SKIP_TRACE_ALL_APIS = 1 << 8,	 /* every runtime and driver API call, not only launches */
	SKIP_TRACE_GRAPH_LEVEL = 1 << 9, /* one record per CUDA graph launch, not per node */
	SKIP_TRACE_LATENCY = 1 << 10,	 /* per-kernel queued/submitted timestamps */
	SKIP_TRACE_SYNC_RECORDS = 1 << 11, /* CUPTI's synchronization records */
};
#define SKIP_TRACE_KINDS   (SKIP_TRACE_CUDA | SKIP_TRACE_NVTX | SKIP_TRACE_SYNC | SKIP_TRACE_OVERHEAD)
#define SKIP_TRACE_DEFAULT SKIP_TRACE_KINDS

/*
 * Parse a comma-separated list. Kind names (cuda, nvtx, sync, overhead) replace the default
 * kinds; options (all-apis, graph-level, latency, sync-records) add to whatever kinds are on;
 * "default" names the default kinds and "none" none. Returns 0 and sets *@bits, or SKIP_E_INVAL
 * with skip_errmsg() naming the bad word.
 */
SKIP_API int skip_trace_opts_parse(const char *spec, unsigned *bits);
/* Whether @bits need CUPTI: any kind but NVTX, or every API call. Without it (NVTX only: the
 * baseline mode) the collector enables no CUPTI activity and records NVTX itself. */
SKIP_API int skip_trace_needs_cupti(unsigned bits);
/* Write the canonical list for @bits ("cuda,nvtx,sync,overhead") into @buf. */
SKIP_API void skip_trace_opts_format(unsigned bits, char *buf, size_t len);

/* ---- what part of a program to record (skip record --capture-range, SKIP_CAPTURE) ------ */

enum skip_capture_mode {
	SKIP_CAPTURE_NONE = 0,	   /* the whole program */
	SKIP_CAPTURE_PROFILER = 1, /* between cudaProfilerStart and cudaProfilerStop */
	SKIP_CAPTURE_NVTX = 2,	   /* occurrences of an NVTX range */
};

#define SKIP_CAPTURE_NAME_MAX 256

struct skip_capture {
	enum skip_capture_mode mode;
	char name[SKIP_CAPTURE_NAME_MAX]; /* SKIP_CAPTURE_NVTX: the range's message */
	uint64_t first;			  /* its first occurrence recorded, from 1 */
	uint64_t count;			  /* occurrences recorded; 0: to the program's end */
};

/*
 * Parse "none" (or NULL, or ""), "cudaProfilerApi" or "nvtx:NAME[:FIRST[:COUNT]]" (NAME
 * non-empty; FIRST >= 1, default 1; COUNT >= 1, default to the end: up to two trailing fields
 * of digits are FIRST and COUNT, so a NAME may hold ':'). Returns 0 and fills *@c, or
 * SKIP_E_INVAL with skip_errmsg() saying what is wrong.
 */
SKIP_API int skip_capture_parse(const char *spec, struct skip_capture *c);

/* ---- output files (common/outfile.c) --------------------------------------------------- */

/*
 * Every file a command writes goes through these, so that an output never replaces one of the
 * command's inputs or anything but a file skip wrote, and an interrupted write never leaves a
 * half file under the requested name: the output is written to a temporary file in the same
 * directory (".NAME.XXXXXX") and renamed into place by skip_outfile_commit().
 */
enum skip_out_kind {
	SKIP_OUT_TRACE,	   /* a trace: an SQLite file with skip's SKIP_RUNS table */
	SKIP_OUT_HTML,	   /* skip report --html: starts with skip's HTML header */
	SKIP_OUT_PLAN,	   /* a plan (schemas/plan.schema.json): JSON with "skip_plan" */
	SKIP_OUT_BASELINE, /* skip gate --save-baseline: JSON with "skip_baseline" */
	SKIP_OUT_JUNIT,	   /* skip gate --junit: XML with <testsuites name="skip gate" */
	SKIP_OUT_MARKDOWN, /* skip gate --markdown: starts with "### skip gate:" */
	SKIP_OUT_EXPORT,   /* skip export's JSON (Perfetto, Kineto, notebook): a JSON object
			      with a "skip_export" member near its start */
	SKIP_OUT_CSV,	   /* skip export --format csv: a file in a folder that holds the
			      marker file SKIP_CSV_MARKER */
};
/* The file skip export writes into a CSV folder, naming it as its own. */
#define SKIP_CSV_MARKER ".skip-export"

struct skip_outfile {
	char *path;    /* the name asked for (owned) */
	char *target;  /* the file that is replaced: path, or what its symlink names (owned) */
	char *tmp;     /* the temporary file written until commit; NULL when writing directly
			  (standard output, or a character device or FIFO such as /dev/stdout) */
	FILE *f;       /* the stream to write (text kinds; NULL for SKIP_OUT_TRACE, whose
			  caller opens @tmp with skip_store_create(tmp, SKIP_STORE_OVERWRITE)) */
	int to_stdout; /* @path was "-" */
	enum skip_out_kind kind; /* what is written */
};

/*
 * Prepare to write an output of @kind at @path ("-" means standard output for text kinds).
 * Refused with a message in skip_errmsg(): @path is one of the @ninputs files @inputs (same
 * file, also through a symlink or hard link: SKIP_E_INVAL); @path is a directory, or a
 * device, FIFO or socket for a trace (SKIP_E_INVAL); @path exists and @replace is 0
 * (SKIP_E_EXISTS); @path exists and is neither empty nor a file skip wrote of @kind
 * (SKIP_E_EXISTS: skip replaces only its own outputs); the directory cannot take a new file
 * (-errno, naming the directory). On success @of is filled (free it with commit or abort).
 */
SKIP_API int skip_outfile_open(struct skip_outfile *of, const char *path, enum skip_out_kind kind,
			       int replace, const char *const *inputs, size_t ninputs);
/*
 * Finish the output: flush and close the stream, give the file the mode a new file gets
 * (0666 less the umask, or the replaced file's mode) and rename it over the target (for a
 * trace, with its WAL when it has one: close the trace's handle first). On an
 * error (a full disk, a failed rename) the temporary file is removed, the target is left as
 * it was, and a negative code is returned with skip_errmsg() set. Frees @of's members.
 */
SKIP_API int skip_outfile_commit(struct skip_outfile *of);
/* Give the output up: close the stream and remove the temporary file (with a trace's
 * SQLite side files). Frees @of's members. Safe on a zeroed @of. */
SKIP_API void skip_outfile_abort(struct skip_outfile *of);

/* ---- trace store (schemas/trace.sql) ------------------------------------------------- */

/* The schema's DDL text, embedded at build time from schemas/trace.sql. */
SKIP_API extern const char skip_trace_sql[];

enum skip_store_flags {
	SKIP_STORE_OVERWRITE =
	    1 << 0,		  /* create: replace an existing regular file (and its -wal/-shm) */
	SKIP_STORE_FAST = 1 << 1, /* create: synchronous=OFF, for the collector's part files */
	SKIP_STORE_READONLY = 1 << 2, /* open: read only */
};

/*
 * Create a new trace file at @path with the current schema in WAL mode. Fails with
 * SKIP_E_EXISTS when the file exists and SKIP_STORE_OVERWRITE is not in @flags. On success
 * *@out is the open handle (caller closes it with sqlite3_close()); on failure *@out is NULL
 * and skip_errmsg() says why.
 */
SKIP_API int skip_store_create(const char *path, unsigned flags, sqlite3 **out);

/*
 * Open an existing trace and check it: SKIP_E_NOTFOUND (no file), SKIP_E_NOTSQLITE,
 * SKIP_E_CORRUPT (fails SQLite's quick_check or is truncated), SKIP_E_FOREIGN (SQLite but not a
 * skip trace), SKIP_E_NEWER / SKIP_E_OLDER (schema version). *@out as for skip_store_create().
 * Opened for writing (no SKIP_STORE_READONLY), an older file is first migrated to the current
 * schema with skip_store_migrate(); opened read-only it is left as it is.
 */
SKIP_API int skip_store_open(const char *path, unsigned flags, sqlite3 **out);

/*
 * Bring the trace open in @db (read-write) to the current schema, in one transaction: on
 * failure the file is left exactly as it was. Version 1 -> 2: the driver API calls move from
 * CUPTI_ACTIVITY_KIND_DRIVER into CUPTI_ACTIVITY_KIND_RUNTIME (eventClass 1) in (runId,
 * start) order, the per-run TARGET_INFO_GPU becomes SKIP_GPUS and TARGET_INFO_GPU one row per
 * GPU, greenContextId is added, and the ENUM_*, META_DATA_EXPORT and
 * TARGET_INFO_SESSION_START_TIME tables are created and filled (docs/trace-format.md). Does
 * nothing on a current file. Returns 0 or a negative code with skip_errmsg() set.
 */
SKIP_API int skip_store_migrate(sqlite3 *db);

/* Run @sql (one or more statements). Returns 0 or SKIP_E_DB / SKIP_E_FULL with a message. */
SKIP_API int skip_store_exec(sqlite3 *db, const char *sql);

/*
 * Copy every row of the trace file @src_path into @dst, remapping string ids (StringIds) so
 * names stay right, in one transaction: on failure nothing of @src_path is left in @dst.
 * Returns 0 or a negative code with skip_errmsg() set.
 */
SKIP_API int skip_store_merge(sqlite3 *dst, const char *src_path);

/*
 * Write run @run_id of the trace at @src_path (any schema version skip reads) to a new trace at
 * @dst_path in the current schema, holding that run only: what SQL written for Nsight Systems
 * needs to answer for one run, since nsys's tables have no runId. The file is written through
 * skip_outfile_open() (@replace as there: a temporary name renamed into place, never one of
 * the inputs, only ever replacing a skip trace), finalized (indexes, out of WAL mode). The run
 * keeps its runId; the recording-wide SKIP_METADATA rows (runId 0) and all of StringIds come
 * along. Returns 0, or SKIP_E_NOTFOUND (no such run, or no file), or another negative code,
 * with skip_errmsg() set; on failure no file is left at @dst_path (an existing one is kept).
 * Opens its own SQLite handles: safe to call from several threads on different outputs.
 */
SKIP_API int skip_store_export_run(const char *src_path, int64_t run_id, const char *dst_path,
				   int replace);

/*
 * Finish a trace for reading: create the indexes the analyzer needs and switch the file out of
 * WAL mode so it is one self-contained file. Returns 0 or a negative code.
 */
SKIP_API int skip_store_finalize(sqlite3 *db);

/* Insert or replace one SKIP_METADATA row. @global_pid 0 means the whole run. */
SKIP_API int skip_store_meta_set(sqlite3 *db, int64_t run_id, int64_t global_pid, const char *key,
				 const char *value);

/* Counts shown by `skip record` at the end and by `skip info`. */
struct skip_store_summary {
	int64_t runs;	       /* rows in SKIP_RUNS */
	int64_t failed_runs;   /* runs whose exit code was not 0 */
	int64_t baseline_runs; /* of the runs, baseline ones (SKIP_RUNS.kind, schema 3) */
	int64_t processes;     /* distinct processes that recorded CUDA activity */
	int64_t kernels;       /* CUPTI_ACTIVITY_KIND_KERNEL rows */
	int64_t runtime_calls; /* CUDA runtime API calls (RUNTIME rows, eventClass 0) */
	int64_t
	    driver_calls;    /* CUDA driver API calls (eventClass 1; version 1: the DRIVER table) */
	int64_t nvtx_ranges; /* NVTX_EVENTS push/pop and start/end ranges */
	int64_t nvtx_marks;  /* NVTX_EVENTS instantaneous marks */
	int64_t memcpys;     /* CUPTI_ACTIVITY_KIND_MEMCPY rows */
	int64_t memcpy_bytes;	/* bytes those copies moved */
	int64_t memsets;	/* CUPTI_ACTIVITY_KIND_MEMSET rows */
	int64_t syncs;		/* CUPTI_ACTIVITY_KIND_SYNCHRONIZATION rows */
	int64_t sync_calls;	/* recorded API calls that wait (*Synchronize*, *WaitEvent*) */
	int64_t graph_launches; /* CUDA_GRAPH_TRACE rows (graph-level tracing) */
	int64_t dropped;	/* sum of SKIP_DROPS.count */
	int64_t span_ns;	/* last GPU/API end - first start over all runs, 0 if none */
	char gpu[128];		/* first TARGET_INFO_GPU name, "" if none */
};
SKIP_API int skip_store_summarize(sqlite3 *db, struct skip_store_summary *out);

/*
 * Check @doc against the JSON Schema @schema (both cJSON trees; the subset of keywords skip's own
 * schemas use: type, enum, const, minimum, maximum, minItems, required, properties,
 * additionalProperties, items, anyOf, $ref to #/$defs). Returns 0, or SKIP_E_INVAL with a message
 * naming the first offending member ("$.regions[3].il_ns: expected integer") written to @err.
 */
struct cJSON;
SKIP_API int skip_json_validate(const struct cJSON *schema, const struct cJSON *doc, char *err,
				size_t errlen);

/* One SQLite integer query helper: the first column of the first row, or @dflt. */
SKIP_API int64_t sk_db_int(sqlite3 *db, int64_t dflt, const char *sql);
/* SKIP_METADATA's first non-NULL value of @key (by run, then process) into the caller's @buf
 * of @n bytes; "" when there is none. */
SKIP_API void sk_db_meta_text(sqlite3 *db, const char *key, char *buf, size_t n);
/* 1 when @db's main schema has a table named @name, else 0. */
SKIP_API int sk_db_has_table(sqlite3 *db, const char *name);
/* 1 when table @table of @db has a column named @column, else 0. */
SKIP_API int sk_db_has_column(sqlite3 *db, const char *table, const char *column);

/* ---- JSON files (common/jsonfile.c) ---------------------------------------------------- */

/*
 * Read the whole file at @path and parse it as one JSON value, followed by nothing but white
 * space. Returns 0 and *@out, a tree the caller owns and frees with cJSON_Delete(). On failure
 * *@out is NULL and skip_errmsg() says, on one line:
 *   SKIP_E_NOTFOUND (no such file) or SKIP_E_IO (any other reason it cannot be read):
 *     "PATH: <strerror>";
 *   SKIP_E_INVAL: "PATH:LINE:COLUMN: JSON syntax error near '<up to 20 characters of that
 *     line, from the error on>'" (lines and columns count from 1, columns in characters; at
 *     the end of the text: "... JSON syntax error at the end of the file");
 *   SKIP_E_NOMEM.
 * Callable from several threads: the message does not come from cJSON's global error pointer.
 */
struct cJSON;
SKIP_API int skip_json_load(const char *path, struct cJSON **out);
/* The same for NUL-terminated @text that does not come from a file. Syntax errors read
 * "@name:LINE:COLUMN: ..." as above, or "line LINE, column COLUMN: JSON syntax error near
 * '...'" when @name is NULL. *@out is freed by the caller with cJSON_Delete(). */
SKIP_API int skip_json_parse(const char *text, const char *name, struct cJSON **out);

/* ---- containers, medians, whole files (common/hash.c strtab.c vec.c stats.c file.c) ---- */

/*
 * One hash table, one string table, one growable array, one median and one file reader for
 * every part. They allocate with plain malloc() and return SKIP_E_NOMEM (with skip_errmsg()
 * "out of memory"), so the collector and the runtime use them too; the sk_x* forms abort as
 * sk_xmalloc() does and are for the CLI, analyzer and advisor only. None locks: a container
 * has one owner at a time.
 */

/*
 * struct sk_hash: 64-bit keys to 64-bit values (an index, an id, a pointer as uintptr_t), open
 * addressing with linear probing. Key 0 marks an empty slot and cannot be stored; hash keys
 * from sk_hash_str() and sk_hash_bytes() are never 0, and an integer key that can be 0 is
 * stored as key + 1. The table owns nothing but its slots: what a value indexes or points to
 * stays the caller's. A zeroed struct is an empty table; sk_hash_fini() frees the slots.
 *
 * The slots double whenever an insert would fill more than half of them, so a lookup probes
 * about 1.5 slots. A key's first slot is its Fibonacci hash (the top bits of key * 2^64/phi),
 * which spreads hashes, small integers and pointers alike.
 *
 * Several entries may share a key (sk_hash_add()): a table keyed by the hash of something
 * longer, such as a string, stores colliding keys that way, and the caller walks them with
 * sk_hash_find() / sk_hash_find_next() and compares what they stand for (see sk_strtab).
 */
struct sk_hash {
	struct sk_hash_slot {
		uint64_t key; /* 0: empty */
		uint64_t val;
	} * slots;	/* [cap]; NULL before the first insert */
	size_t cap;	/* slots: 0, or a power of two >= 16 */
	size_t n;	/* entries */
	unsigned shift; /* 64 - log2(cap) */
};
#define SK_HASH_END ((size_t)-1) /* sk_hash_find(): no (further) entry with that key */

/* The one string hash: 64-bit FNV-1a of @n bytes at @p, or of the bytes of @s before its NUL.
 * Never 0 (a 0 becomes 1), so the result is an sk_hash key as it is. */
static inline uint64_t sk_hash_bytes(const void *p, size_t n)
{
	const unsigned char *b = (const unsigned char *)p;
	uint64_t h = 0xcbf29ce484222325ull; /* the FNV offset basis */

	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 1099511628211ull;
	}
	return h ? h : 1;
}

static inline uint64_t sk_hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull; /* the FNV offset basis */

	while (*s) {
		h ^= (unsigned char)*s++;
		h *= 1099511628211ull;
	}
	return h ? h : 1;
}

/* The slot where the probe for @key starts (@h has slots). */
static inline size_t sk_hash_home(const struct sk_hash *h, uint64_t key)
{
	return (size_t)((key * 0x9E3779B97F4A7C15ull) >> h->shift);
}

/* The slot of the first entry with @key, or SK_HASH_END. Inline: the collector's hot path. */
static inline size_t sk_hash_find(const struct sk_hash *h, uint64_t key)
{
	size_t mask = h->cap - 1, i;

	if (!h->n)
		return SK_HASH_END;
	for (i = sk_hash_home(h, key); h->slots[i].key; i = (i + 1) & mask)
		if (h->slots[i].key == key)
			return i;
	return SK_HASH_END;
}

/* The slot of the next entry with @key after the one in @slot, or SK_HASH_END. */
static inline size_t sk_hash_find_next(const struct sk_hash *h, uint64_t key, size_t slot)
{
	size_t mask = h->cap - 1, i;

	for (i = (slot + 1) & mask; h->slots[i].key; i = (i + 1) & mask)
		if (h->slots[i].key == key)
			return i;
	return SK_HASH_END;
}

/* The value of the first entry with @key, or NULL. Valid until the next insert or removal. */
static inline uint64_t *sk_hash_get(const struct sk_hash *h, uint64_t key)
{
	size_t i = sk_hash_find(h, key);

	return i == SK_HASH_END ? NULL : &h->slots[i].val;
}

/* Room for @more entries beyond those in @h, so that that many inserts cannot fail (the
 * pattern for callers that must not fail half-way). Returns 0, or SKIP_E_NOMEM with @h as it
 * was. */
SKIP_API int sk_hash_reserve(struct sk_hash *h, size_t more);
/* sk_hash_reserve() for the CLI, analyzer and advisor: aborts on exhaustion. */
SKIP_API void sk_hash_xreserve(struct sk_hash *h, size_t more);
/* Set @key to @val: the first entry with @key gets @val, or a new entry is inserted. Returns 0,
 * SKIP_E_NOMEM (@h as it was) or SKIP_E_INVAL (@key 0). */
SKIP_API int sk_hash_put(struct sk_hash *h, uint64_t key, uint64_t val);
/* Insert an entry even when @key is there already. Returns as sk_hash_put(). */
SKIP_API int sk_hash_add(struct sk_hash *h, uint64_t key, uint64_t val);
/* Remove the entry in @slot (from sk_hash_find()). Later entries may move to other slots, so
 * a walk over the slots starts again after a removal. */
SKIP_API void sk_hash_del_at(struct sk_hash *h, size_t slot);
/* Remove the first entry with @key. Returns 0 or SKIP_E_NOTFOUND. */
SKIP_API int sk_hash_del(struct sk_hash *h, uint64_t key);
/* Free the slots, leaving an empty table that can be used again. */
SKIP_API void sk_hash_fini(struct sk_hash *h);

/*
 * struct sk_strtab: string interning, content -> id. Ids are 1, 2, 3... in the order strings are
 * first seen. The table owns a copy of each string, s[id], which stays valid and in place until
 * sk_strtab_fini() frees them all. A zeroed struct is an empty table. Used for the collector's
 * StringIds and the analyzer's NVTX texts.
 */
struct sk_strtab {
	struct sk_hash index; /* sk_hash_str(string) -> id; colliding hashes share a key */
	char **s;	      /* [id] -> the table's copy of the string; s[0] is NULL */
	size_t n;	      /* strings, which is also the last id given */
	size_t cap;	      /* elements allocated in s */
};
/* The id of @s (not NULL; "" is a string like any other), added when new; *@is_new (when
 * @is_new is not NULL) says whether it was. Returns the id (>= 1), or SKIP_E_NOMEM with the
 * table unchanged and *@is_new 0. */
SKIP_API int64_t sk_strtab_intern(struct sk_strtab *t, const char *s, int *is_new);
/* The id of @s, or 0 when it was never interned. */
SKIP_API int64_t sk_strtab_find(const struct sk_strtab *t, const char *s);
/* Free every copy and the index, leaving an empty table that can be used again. */
SKIP_API void sk_strtab_fini(struct sk_strtab *t);

/*
 * Growable arrays: the caller keeps a pointer, a count and a size_t capacity (zeroed: empty),
 * makes room with SK_VEC_RESERVE() or appends with SK_VEC_PUSH(), and frees the pointer with
 * free(). The array owns its storage only; what its elements point to stays the caller's.
 * Growing takes the capacity to twice what it was, or to what is needed when that is more
 * (16 elements at least): n appends cost O(n), and reserving a known count up front allocates
 * just that. The macros evaluate their arguments more than once: pass plain lvalues.
 *
 * sk_vec_grow(): a block with room for at least @need elements of @elem bytes, *@cap of them:
 * @v itself when it has room, else @v reallocated (and @v is no longer valid). On failure
 * (SKIP_E_NOMEM in skip_errmsg(), or a size that overflows) NULL, with @v and *@cap unchanged.
 * sk_vec_xgrow() aborts instead (CLI, analyzer and advisor only).
 */
SKIP_API void *sk_vec_grow(void *v, size_t *cap, size_t need, size_t elem);
SKIP_API void *sk_vec_xgrow(void *v, size_t *cap, size_t need, size_t elem);

/* Room for @need elements in the array @v of capacity @cap. Returns 0 or SKIP_E_NOMEM. */
#define SK_VEC_RESERVE(v, cap, need)                                                               \
	__extension__({                                                                            \
		int sk_err_ = 0;                                                                   \
		if ((size_t)(need) > (cap)) {                                                      \
			void *sk_p_ = sk_vec_grow((v), &(cap), (size_t)(need), sizeof(*(v)));      \
			if (sk_p_)                                                                 \
				(v) = sk_p_;                                                       \
			else                                                                       \
				sk_err_ = SKIP_E_NOMEM;                                            \
		}                                                                                  \
		sk_err_;                                                                           \
	})
/* Append the element given after @cap (an expression of the element type) as @v[@n] and
 * count it in @n. Returns 0 or SKIP_E_NOMEM (@v, @n and @cap unchanged). */
#define SK_VEC_PUSH(v, n, cap, ...)                                                                \
	__extension__({                                                                            \
		int sk_perr_ = SK_VEC_RESERVE(v, cap, (size_t)(n) + 1);                            \
		if (!sk_perr_)                                                                     \
			(v)[(n)++] = (__VA_ARGS__);                                                \
		sk_perr_;                                                                          \
	})
/* The same for the CLI, analyzer and advisor: abort on exhaustion, return nothing. */
#define SK_VEC_XRESERVE(v, cap, need)                                                              \
	do {                                                                                       \
		if ((size_t)(need) > (cap))                                                        \
			(v) = sk_vec_xgrow((v), &(cap), (size_t)(need), sizeof(*(v)));             \
	} while (0)
#define SK_VEC_XPUSH(v, n, cap, ...)                                                               \
	do {                                                                                       \
		SK_VEC_XRESERVE(v, cap, (size_t)(n) + 1);                                          \
		(v)[(n)++] = (__VA_ARGS__);                                                        \
	} while (0)

/*
 * The median. skip_median() is the one definition: the middle value of the sorted values, or
 * the mean of the middle two for an even count; 0 for none. It sorts @v in place (callers may
 * use the order: v[0] is the minimum). skip_median_low_i64() is the lower median, the
 * ((n - 1) / 2)-th smallest value, for the places that need one of the values themselves (an
 * integer, a duration that occurred), each saying why; it reorders @v (selection in O(n), not
 * a sort) and returns 0 for none.
 */
SKIP_API double skip_median(double *v, size_t n);
SKIP_API int64_t skip_median_low_i64(int64_t *v, size_t n);

/* qsort() comparisons, ascending: doubles (a NaN compares equal to everything: keep NaNs out)
 * and int64_t. */
SKIP_API int sk_cmp_double(const void *a, const void *b);
SKIP_API int sk_cmp_i64(const void *a, const void *b);

/*
 * Read the whole file at @path (a regular file, or a pipe or device read to its end) into one
 * malloc'ed block with a NUL after the last byte: *@text is the caller's to free(), and *@len
 * (when @len is not NULL) the bytes read without that NUL (the file may hold NULs of its own).
 * A file of more than @max_bytes is refused (SIZE_MAX: any size). Returns 0, or, with *@text
 * NULL, errno saying why and skip_errmsg() "PATH: REASON":
 *   SKIP_E_NOTFOUND: no such file (ENOENT; the reason is strerror's);
 *   SKIP_E_IO: any other reason it cannot be read, a directory included (EISDIR);
 *   SKIP_E_INVAL: larger than @max_bytes ("PATH: larger than N bytes"; EFBIG);
 *   SKIP_E_NOMEM: "PATH: out of memory" (ENOMEM).
 * Thread-safe.
 */
SKIP_API int skip_read_file(const char *path, size_t max_bytes, char **text, size_t *len);

#endif /* SKIP_COMMON_H */
