/*
 * internal.h: shared by the analyzer's .c files only.
 *
 * A run is loaded into compact arrays (struct sk_loaded_run): its GPU operations, each already
 * joined to its launch call (struct sk_rec); the spans of host synchronizations; its NVTX
 * ranges. Operator stacks are interned as a trie (struct sk_stacks: a node is (parent, range
 * text)), so each operation carries one 32-bit stack id. Regions are computed over those arrays,
 * then the run is freed.
 *
 * Names: the public header's struct skip_op and struct skip_timeline are the advisor's view of
 * one run (timeline.c copies into them); the records here are the loader's compact form of the
 * same operations (sk_rec, with flags), the loaded run is sk_loaded_run, and the per-device
 * start order the metrics sweep is sk_dev_order, so that "op" and "timeline" each name one
 * thing. Kinds are the public enum skip_op_kind.
 */
#ifndef SKIP_ANALYZER_INTERNAL_H
#define SKIP_ANALYZER_INTERNAL_H

#include <stdint.h>

#include "skip_analyzer.h"

#define SK_NONE INT64_MIN /* a timestamp that is not known */

/* Operator stacks: trie nodes (parent, text); id 0 is the empty stack (stacks.c). */
struct sk_stacks {
	struct sk_stack_node {
		uint32_t parent;
		uint32_t text; /* texts id (struct skip_trace), >= 1 */
	} * nodes;	       /* [id]; nodes[0] is the root */
	size_t n, cap;
	struct sk_hash index; /* (parent << 32 | text) -> id */
};
uint32_t sk_stacks_child(struct sk_stacks *s, uint32_t parent, uint32_t text);
void sk_stacks_fini(struct sk_stacks *s);

struct skip_trace {
	sqlite3 *db;
	char *path;
	char **strings;		 /* StringIds: [id] -> value (NULL where no such id) */
	int64_t nstrings;	 /* ids 0 .. nstrings - 1 */
	struct sk_strtab texts;	 /* NVTX range texts, interned across runs (ids >= 1) */
	struct sk_stacks stacks; /* operator stacks, across runs */
	uint32_t *opname;	 /* [texts id] -> texts id of its operator name (0: not yet) */
	size_t nopname;
	int64_t nruns; /* runs in the file (1: tables are scanned whole) */
	int v1_driver; /* a schema version 1 file: driver calls in CUPTI_ACTIVITY_KIND_DRIVER */
	int has_kind;  /* SKIP_RUNS.kind exists (schema 3); without it every run is a full one */
};

enum sk_rec_flags {
	SK_F_API = 1 << 0,	   /* joined to its launch call */
	SK_F_GRAPH = 1 << 1,	   /* from a CUDA graph launch */
	SK_F_GRAPH_FIRST = 1 << 2, /* the first node (by start) of its graph launch */
	SK_F_HW_SUBMIT = 1 << 3,   /* submit comes from the hardware `submitted` timestamp */
	SK_F_DRIVER = 1 << 4,	   /* its launch call is a driver API call (cuLaunchKernel...) */
};

/* One GPU operation of a run as loaded: a kernel, memcpy or memset record. */
struct sk_rec {
	int64_t start, end; /* on the GPU */
	int64_t launch;	    /* launch call start, SK_NONE without one */
	int64_t api_end;    /* launch call end, SK_NONE without one */
	int64_t submit;	    /* when the work reached the GPU's queue: hardware `submitted` when
			       recorded, else api_end; SK_NONE when unknown */
	uint32_t pid, tid;  /* launching process and thread (tid 0 when unknown) */
	uint32_t corr;
	int32_t name;	  /* StringIds id of the kernel's shortName; -1 for memcpy/memset */
	int32_t fullname; /* StringIds id of the demangled name; -1 for memcpy/memset */
	uint32_t blocks;  /* grid size in blocks (kernels); bytes (memcpy, memset, timeline only,
			     at most UINT32_MAX), 0 otherwise */
	uint32_t stream;
	uint32_t stack; /* operator stack (sk_stacks id), 0 when none */
	int32_t region; /* region index within the run, -1 when in none */
	uint16_t device;
	uint8_t kind;	/* enum skip_op_kind */
	uint8_t flags;	/* enum sk_rec_flags */
	uint8_t attr;	/* enum skip_attr: how the stack was found */
	uint8_t per_sm; /* kernels, timeline only: blocks resident per SM (1..32) */
};

/* A host synchronization (an API call that waited for the GPU). */
struct sk_span {
	int64_t start, end;
	uint32_t pid, tid;
};

/* An NVTX range of the run. */
struct sk_range {
	int64_t start, end; /* end INT64_MAX when never closed */
	uint32_t pid, tid;  /* where it started */
	uint32_t text;	    /* texts id */
};

struct sk_loaded_run {
	int64_t run_id;
	struct sk_rec *ops;
	size_t nops;
	struct sk_span *syncs; /* sorted by end */
	size_t nsyncs;
	struct sk_range *ranges; /* sorted by (pid, tid, start) */
	size_t nranges;
	int64_t t0;	   /* start of the first operator or launch call (the run's IL start) */
	size_t napi_calls; /* runtime and driver API calls recorded in the run (well-formed) */
	struct skip_malformed bad; /* records left out as malformed (load.c checks each one) */
};

/* load.c */
/* Scan @cols of @table for one run (its rows are stored together, as one rowid range). Returns
 * the statement, or NULL with skip_errmsg() set; finish with sk_scan_done(), which returns 0 or
 * the read error (SKIP_E_CORRUPT for a damaged file). */
sqlite3_stmt *sk_run_scan(struct skip_trace *t, const char *table, const char *cols,
			  int64_t run_id);
int sk_scan_done(struct skip_trace *t, sqlite3_stmt *st);
/* The run's GPU operations joined to their launch calls, its host synchronizations and its NVTX
 * ranges; malformed records are counted in run->bad and left out (docs/trace-format.md
 * "Well-formed records"), so every time the rest of the analyzer sees lies in
 * [0, SKIP_TIME_MAX) with end >= start (an NVTX range's end may be INT64_MAX: never closed).
 * @detail: also the stream, demangled name and grid size of each kernel (the timeline). */
int sk_run_load(struct skip_trace *t, int64_t run_id, int detail, struct sk_loaded_run *run);
void sk_run_free(struct sk_loaded_run *run);
/* Add the counts of @from to @to. */
void sk_malformed_add(struct skip_malformed *to, const struct skip_malformed *from);
int64_t sk_trace_run_ids(struct skip_trace *t, int64_t **ids);

/* A run's configuration as one SQL text: its command line and its parameters (SKIP_PARAMETERS);
 * @r names a SKIP_RUNS row. */
#define SK_CONFIG_SQL(r)                                                                           \
	r ".commandLine || char(30) || coalesce((SELECT group_concat(x, char(31)) FROM (SELECT "   \
	  "s.name || '=' || s.value AS x FROM SKIP_PARAMETERS s WHERE s.runId = " r                \
	  ".runId ORDER BY s.name)), '')"

/* cost.c: the recording cost section of @r (r->cost), from the trace's baseline runs; nothing
 * when it has none. @ids: the full runs analyzed. */
void sk_recording_cost(struct skip_trace *t, const struct skip_analysis_opts *o,
		       struct skip_report *r, const int64_t *ids, int64_t n);
void sk_recording_cost_free(struct skip_recording_cost *c);

/* nvtx.c: operator stacks for every launched operation (from the ranges sk_run_load() read),
 * with how each was found (attr), and the run's t0. */
void sk_run_operators(struct skip_trace *t, struct sk_loaded_run *run);
/* The texts id of the operator name of range text @text: the text without PyTorch's
 * emit_nvtx suffix (", seq = N", ", op_id = M" and what follows), else the text itself. */
uint32_t sk_operator_name(struct skip_trace *t, uint32_t text);
/* N of ", seq = N" in a range text (PyTorch's emit_nvtx), -1 when it has none. */
int64_t sk_range_seq(const char *text);
/* Regions: each occurrence of the range @text (texts id) becomes a window; ops whose launch
 * call started inside it (same process) get its index. Returns the windows (malloc'ed,
 * caller frees) and their count; 0 windows when the run has no such range. */
size_t sk_run_regions(struct sk_loaded_run *run, uint32_t text, struct sk_range **windows);

/* metrics.c: the run's operations per device in start order, with the running maximum of
 * their ends (so a window can find what was already running when it opened). */
struct sk_dev_order {
	uint32_t *idx; /* op indices sorted by (device, start) */
	int64_t *pmax; /* pmax[i] = max end over idx[seg.b .. i] */
	struct sk_segment {
		uint16_t device;
		size_t b, e; /* idx[b .. e) */
	} * seg;
	size_t nseg;
};
void sk_dev_order_build(const struct sk_loaded_run *run, struct sk_dev_order *ord);
void sk_dev_order_free(struct sk_dev_order *ord);

/* Metrics of the region whose operations are @members (indices into run->ops) and whose window
 * starts at @window_start (the run's t0, or the NVTX range's start). */
void sk_region_metrics(const struct sk_loaded_run *run, const struct sk_dev_order *ord,
		       const uint32_t *members, size_t nmembers, int64_t window_start,
		       double threshold, struct skip_metrics *m);

/* sort.c: sort @vals by @keys (both reordered), ascending; stable. */
void sk_radix_sort(uint64_t *keys, uint32_t *vals, size_t n);

#endif /* SKIP_ANALYZER_INTERNAL_H */
