/*
 * skip_analyzer.h: analysis of skip traces (libskip_analyzer.a): where the time between the
 * CPU and the GPU goes.
 *
 * Open a trace (skip_trace_open), then skip_analyze() it: every GPU operation (kernel, memcpy,
 * memset) is linked to the API call that launched it by correlation id (runtime and driver
 * calls alike), every kernel to the innermost NVTX range open on the launching thread when the
 * launch call started (its operator; the whole range stack is kept), and each region - a run,
 * or each occurrence of an NVTX range - gets the metrics defined in docs/skip-report.md: TKLQT
 * and its t_api + t_queue split, AKD, IL, GPU busy and idle, idle attribution (host wait,
 * sync stall, device latency), the CPU/GPU-bound verdict, top kernels and operators. Across the
 * regions (repetitions, occurrences) each metric gets mean, median, min, max and stdev.
 *
 * Memory: a trace is processed one run at a time, with ~64 bytes per GPU operation and ~32 per
 * launch call of that run; aggregates over names come from single passes.
 *
 * Ownership: skip_trace_open() returns a handle closed with skip_trace_close();
 * skip_analyze() returns a report freed with skip_report_free(). Strings inside a report
 * belong to it. A trace handle is used by one thread at a time.
 */
#ifndef SKIP_ANALYZER_H
#define SKIP_ANALYZER_H

#include <stddef.h>
#include <stdint.h>

#include "skip_common.h"

/* Host-side share of IL at or above which a region is called CPU-bound (docs/skip-report.md). */
#define SKIP_DEFAULT_THRESHOLD 0.5

/*
 * Timestamps of well-formed records lie in [0, SKIP_TIME_MAX) ns (2^62 ns, 146 years of uptime):
 * the difference of two of them, or the sum of two such differences, cannot overflow int64_t.
 * Sums over many records saturate instead (skip_add_sat()). docs/trace-format.md "Well-formed
 * records" has the whole definition.
 */
#define SKIP_TIME_MAX ((int64_t)1 << 62)
/* More multiprocessors than any GPU has: a trace that says so is damaged (its count is taken
 * as unknown, rather than sized for by the models). */
#define SKIP_MAX_SMS 4096

/* @a + @b, saturated at INT64_MIN and INT64_MAX instead of overflowing. */
static inline int64_t skip_add_sat(int64_t a, int64_t b)
{
	int64_t s;

	if (__builtin_add_overflow(a, b, &s))
		return a < 0 ? INT64_MIN : INT64_MAX;
	return s;
}

/*
 * Records the analyzer leaves out of every metric because they are malformed, per table and
 * reason (docs/trace-format.md "Well-formed records"). The loader checks each record once, as
 * it reads it; the rest of the analyzer and the advisor only ever see well-formed ones.
 */
enum skip_table {
	SKIP_TABLE_KERNEL,  /* CUPTI_ACTIVITY_KIND_KERNEL */
	SKIP_TABLE_MEMCPY,  /* CUPTI_ACTIVITY_KIND_MEMCPY */
	SKIP_TABLE_MEMSET,  /* CUPTI_ACTIVITY_KIND_MEMSET */
	SKIP_TABLE_RUNTIME, /* CUPTI_ACTIVITY_KIND_RUNTIME */
	SKIP_TABLE_DRIVER,  /* CUPTI_ACTIVITY_KIND_DRIVER */
	SKIP_TABLE_NVTX,    /* NVTX_EVENTS (its ranges: eventType 59 and 60) */
	SKIP_TABLE_COUNT
};
enum skip_bad {
	SKIP_BAD_RUN_ID, /* runId is not an integer: the record belongs to no run */
	SKIP_BAD_TIME,	 /* start, end (or a kernel's submitted) not an integer in
			    [0, SKIP_TIME_MAX) */
	SKIP_BAD_ORDER,	 /* end < start */
	SKIP_BAD_ID,	 /* correlationId, globalPid / globalTid or deviceId not an integer
			    of its range */
	SKIP_BAD_COUNT
};
struct skip_malformed {
	int64_t count[SKIP_TABLE_COUNT][SKIP_BAD_COUNT]; /* records left out */
	int64_t total;					 /* their sum */
};
/* The table's name ("CUPTI_ACTIVITY_KIND_KERNEL"); the reason's JSON name ("end_before_start")
 * and its explanation ("end before start"). Static strings; "?" out of range. */
SKIP_API const char *skip_table_name(enum skip_table t);
SKIP_API const char *skip_bad_name(enum skip_bad b);
SKIP_API const char *skip_bad_text(enum skip_bad b);
/* One line to @out saying how many records were left out, per table and reason, when any were
 * ("left out 2 malformed records: ..."); nothing when none. */
SKIP_API void skip_malformed_print(FILE *out, const struct skip_malformed *m);

struct skip_trace;

/*
 * Open a trace for analysis, read-only (the analyzer needs no index and never writes the file).
 * Besides skip_store_open()'s checks, the file's integrity as the analyzer needs it: StringIds
 * ids in range (SKIP_E_CORRUPT otherwise). `skip info` runs the same checks by opening the file
 * with it. Returns 0, or the codes of skip_store_open() or SKIP_E_CORRUPT with skip_errmsg()
 * set. *@out is NULL on failure.
 */
SKIP_API int skip_trace_open(const char *path, struct skip_trace **out);
SKIP_API void skip_trace_close(struct skip_trace *t);
/* The trace's read-only SQLite handle, borrowed: valid until skip_trace_close(), used by one
 * thread at a time with the trace. */
SKIP_API sqlite3 *skip_trace_db(const struct skip_trace *t);

enum skip_verdict {
	SKIP_VERDICT_EMPTY,	/* no GPU work in the region */
	SKIP_VERDICT_CPU_BOUND, /* host-side share >= threshold: the GPU waits for the host */
	SKIP_VERDICT_GPU_BOUND, /* below it: the host waits for (or keeps up with) the GPU */
};
SKIP_API const char *skip_verdict_name(enum skip_verdict v);

/* The metrics of one region. Times in ns on the trace clock. */
struct skip_metrics {
	int64_t start_ns;	  /* region start: first operator or launch call, or the range */
	int64_t end_ns;		  /* end of the region's last GPU operation */
	int64_t il_ns;		  /* IL = end_ns - start_ns */
	int64_t kernels;	  /* kernels in the region */
	int64_t memcpys, memsets; /* other GPU operations in the region */
	int64_t launched;	  /* kernels whose t_launch counts in TKLQT (see graph_nodes) */
	int64_t graph_nodes;	  /* kernels from graph launches after the first of each launch */
	int64_t no_api;		  /* kernels with no launch call recorded (counted, not dropped) */
	int64_t tklqt_ns;	  /* sum of t_launch = k.start - l.start */
	int64_t t_api_ns;	  /* sum of t_api = l.end - l.start over the same kernels */
	int64_t t_queue_ns;	  /* sum of t_queue = k.start - l.end (tklqt = t_api + t_queue) */
	int64_t queue_pos_ns;	  /* sum of max(0, t_queue): nsys Queue Dur / HTA launch delay */
	int64_t neg_queue;	  /* kernels with t_queue < 0 */
	int64_t neg_launch;	  /* kernels with t_launch < 0 */
	int64_t kernel_ns;	  /* sum of kernel durations */
	double akd_ns;		  /* AKD = kernel_ns / kernels */
	int64_t median_t_api_ns;  /* median t_api of the region's launched kernels */
	int64_t short_kernels;	  /* kernels shorter than median_t_api_ns */
	int64_t short_kernel_ns;  /* their summed duration */
	int64_t busy_ns;	  /* union of kernel, memcpy, memset intervals in the region */
	int64_t idle_ns;	  /* il_ns - busy_ns */
	int64_t il_minus_kernel_ns; /* il_ns - kernel_ns: the SKIP paper's idle */
	int64_t host_wait_ns;	    /* idle while the next operation's launch had not arrived */
	int64_t sync_stall_ns;	    /* host wait in gaps where the host came back from a sync */
	int64_t device_latency_ns;  /* idle after the launch had arrived */
	int64_t launch_latency_ns;  /* of which: after a launch that arrived when the GPU was
				       already idle (exposed launch latency) */
	double host_share;	    /* host-side share: (host_wait + sync_stall +
				       launch_latency) / il; the verdict's input */
	double launches_per_s;	    /* kernels / il */
	int ndevices;		    /* devices with GPU work in the region; busy/idle are the
				       device with the most busy time (docs/skip-report.md) */
	enum skip_verdict verdict;
};

/* One region: a run (name NULL) or one occurrence of an NVTX range. */
struct skip_region {
	int64_t run_id;
	char *name;	/* NVTX range text, or NULL for the whole run */
	int occurrence; /* 1-based within the run */
	struct skip_metrics m;
};

/* Summary statistics of one metric across the non-empty regions. */
struct skip_stat {
	double mean, median, min, max, stdev; /* stdev: sample standard deviation (n - 1) */
	int n;
};

/*
 * How a kernel got its operator (docs/skip-report.md "Operators"): from a range open on the
 * thread that launched it; from the range open on the thread that caused the launch, found
 * through PyTorch's sequence numbers (`seq = N` in emit_nvtx's range texts); or from the ranges
 * open on another thread of the process at the launch. SKIP_ATTR_NONE: no operator.
 */
enum skip_attr { SKIP_ATTR_NONE, SKIP_ATTR_THREAD, SKIP_ATTR_SEQ, SKIP_ATTR_OTHER, SKIP_ATTR_N };
/* "none", "thread", "seq", "other_thread" (the JSON's spelling); static strings. */
SKIP_API const char *skip_attr_name(enum skip_attr a);
/* What the text and HTML tables append to an operator's name: "" (thread), " (other thread,
 * seq)", " (other thread)"; static strings. */
SKIP_API const char *skip_attr_suffix(enum skip_attr a);

/* Per kernel name (shortName) or per operator (innermost NVTX range text, PyTorch's
 * `, seq = N, op_id = M...` suffix left out) and how its kernels were attributed to it. */
struct skip_name_stat {
	char *name;
	int64_t count;	  /* kernels */
	int64_t total_ns; /* summed kernel duration */
	int64_t min_ns, max_ns;
	int64_t launch_ns;   /* summed t_launch (operators) */
	enum skip_attr attr; /* operators: how (never SKIP_ATTR_NONE); kernels: 0 */
};

enum skip_metric_id {
	SKIP_M_IL,
	SKIP_M_TKLQT,
	SKIP_M_T_API,
	SKIP_M_T_QUEUE,
	SKIP_M_TKLQT_PER_KERNEL,
	SKIP_M_AKD,
	SKIP_M_BUSY,
	SKIP_M_IDLE,
	SKIP_M_IL_MINUS_KERNEL,
	SKIP_M_HOST_WAIT,
	SKIP_M_SYNC_STALL,
	SKIP_M_DEVICE_LATENCY,
	SKIP_M_LAUNCH_LATENCY,
	SKIP_M_HOST_SHARE,
	SKIP_M_KERNELS,
	SKIP_M_LAUNCHES_PER_S,
	SKIP_M_SHORT_KERNELS,
	SKIP_M_NEG_QUEUE,
	SKIP_M_NEG_LAUNCH,
	SKIP_M_NO_API,
	SKIP_M_COUNT
};
/* Name ("tklqt_ns") and unit ("ns", "count", "ratio", "1/s") of a metric. */
SKIP_API const char *skip_metric_name(enum skip_metric_id id);
SKIP_API const char *skip_metric_unit(enum skip_metric_id id);
SKIP_API double skip_metric_value(const struct skip_metrics *m, enum skip_metric_id id);

/* One crossover rule's answer over a sweep (analyzer/sweep.c, docs/skip-report.md). */
struct skip_crossing {
	int found;	    /* 1: a crossover was found */
	double value;	    /* the parameter value there (interpolated on log2) */
	int lo, hi;	    /* the two sweep points it lies between (indices), -1 when none */
	int flips;	    /* verdict flip: how many times the verdict changes along the sweep */
	double threshold;   /* verdict flip: the share threshold; knee: (1 + epsilon) * plateau */
	double plateau;	    /* knee: median TKLQT of the first plateau_points values, ns */
	double epsilon;	    /* knee: the allowed rise over the plateau */
	int plateau_points; /* knee: how many first values make the plateau (0: too few values) */
};

/* The medians of one parameter value over its runs' non-empty regions. */
struct skip_sweep_point {
	double value;
	int regions, runs;
	double il_ns, tklqt_ns, tklqt_per_kernel_ns, akd_ns, busy_ns, idle_ns;
	double host_share, kernels, launches_per_s;
	enum skip_verdict verdict; /* of the median host-side share */
	int64_t *run_ids;	   /* its runs ([runs], ascending; freed with the report) */
};

/*
 * One row of a sweep's graph-gain table: for one parameter value, skip advise's model of each
 * region (each occurrence of the --region range, else each run) as recorded, without the
 * profiler, replayed as one CUDA graph, and run as persistent kernels (docs/skip-advise.md). Each
 * figure is the median over the value's modelled runs of that run's median over its regions.
 */
struct skip_graph_gain {
	double value;		  /* the parameter value */
	int runs;		  /* runs modelled (those with a region that launched work) */
	double il_ns;		  /* recorded IL, with the profiler */
	double model_ns;	  /* the model's replay of the recording */
	double calibration_error; /* |model - recorded| / recorded */
	double unprofiled_ns;	  /* the model without the profiler's cost per launch */
	double graph_ns;	  /* the model with each region replayed as one CUDA graph (> 0) */
	double gain;		  /* unprofiled_ns / graph_ns: above 1, the graph is faster */
	double persist_ns;	  /* the model with each region run as persistent kernels, in the
				     fastest mode (> 0) */
	double persist_gain;	  /* unprofiled_ns / persist_ns */
	char persist_mode[8];	  /* that mode: "aot", "jit" or "copilot" (the one most of the
				     value's runs predict fastest) */
};

/*
 * The graph-gain table of a sweep. The analyzer only stores, prints (JSON) and frees it: the
 * advisor fills it (skip_report_add_graph_gain() in skip_advisor.h), so that the dependencies
 * point one way.
 */
struct skip_graph_gains {
	struct skip_graph_gain *rows; /* by value, ascending; a value none of whose runs could be
					 modelled has no row */
	size_t nrows;
};

struct skip_sweep {
	char *param;		      /* the swept parameter (SKIP_PARAMETERS.name) */
	struct skip_sweep_point *pts; /* by value, ascending */
	size_t npts;
	struct skip_crossing flip;	/* where the verdict flips from CPU- to GPU-bound */
	struct skip_crossing knee;	/* the TKLQT knee */
	int agree;			/* both absent, or both within a factor of 2 */
	struct skip_graph_gains *graph; /* NULL unless skip_report_add_graph_gain() filled it;
					   it and its rows are malloc'ed and belong to the report
					   (skip_report_free() frees them) */
};

#define SKIP_DEFAULT_KNEE_EPS 0.2

/*
 * The two crossover rules over @n sweep points (ascending @x, each > 0) with their median
 * host-side shares and TKLQTs; fills s->flip, s->knee and s->agree. Pure; exposed for tests.
 */
SKIP_API void skip_sweep_crossover(const double *x, const double *host_share, const double *tklqt,
				   size_t n, double threshold, double eps, struct skip_sweep *s);

/*
 * The recording's cost (docs/skip-report.md "Recording cost"): for each configuration (command
 * line and parameters) with baseline runs, the region's wall interval - its NVTX range's end -
 * start, per occurrence - in the full runs and in the baseline runs, which record NVTX ranges
 * only. The figures the recording inflates are t_api, TKLQT, IL and the host-side share.
 */
struct skip_cost_kind {
	int runs;			 /* runs of this kind */
	int occurrences;		 /* occurrences of the region over them */
	int per_run_min, per_run_max;	 /* occurrences per run, least and most */
	double wall_ns;			 /* median wall interval over the occurrences (0: none) */
	double wall_min_ns, wall_max_ns; /* least and most of the runs' own medians */
};
struct skip_cost_row {
	char *config; /* the parameters ("batch=4, seq=128"), "" when none */
	struct skip_cost_kind full, baseline;
	struct skip_cost_kind first;  /* capture ranges: the occurrences outside them that end
					 before the run's first one begins (free of what a range
					 leaves behind: docs/skip-report.md), else zero */
	double first_ratio;	      /* full.wall_ns / first.wall_ns; 0 when there are none */
	double ratio;		      /* full.wall_ns / baseline.wall_ns; 0 when problem is set */
	double ratio_min, ratio_max;  /* over the interleaved pairs (i-th full, i-th baseline run)
					 of their medians */
	int pairs;		      /* those pairs */
	double il_ns;		      /* recorded IL, median over the full runs' regions */
	double host_share;	      /* recorded host-side share, median */
	double host_share_unprofiled; /* the same with the recording's added wall time taken
					 out of the host side; -1 when there is no ratio */
	const char *problem; /* why there is no ratio (static text), NULL when there is one */
};
struct skip_recording_cost {
	int64_t baseline_runs;	    /* baseline runs in the file */
	int capture;		    /* no baseline run: each configuration's full runs compared
				       with themselves, occurrences inside a capture range
				       ("full") against those outside ("baseline") */
	char *region;		    /* the NVTX range compared; NULL: none asked for (no rows) */
	struct skip_cost_row *rows; /* one per configuration with full runs, in run order */
	size_t nrows;
};

struct skip_analysis_opts {
	int64_t run_id;	    /* 0: every run in the file */
	const char *region; /* NVTX range text, or NULL: each run is one region */
	double threshold;   /* verdict threshold on host_share; 0: SKIP_DEFAULT_THRESHOLD */
	int top_k;	    /* length of the top lists (default 10 when 0) */
	const char *param;  /* sweep parameter; NULL: the first numeric one with >= 2 values */
	double knee_eps;    /* TKLQT knee rise; 0: SKIP_DEFAULT_KNEE_EPS */
};

struct skip_report {
	char *path;
	double threshold;
	struct skip_region *regions; /* in run, then time order */
	size_t nregions;
	size_t nempty; /* regions without GPU work (excluded from stats) */
	struct skip_stat stats[SKIP_M_COUNT];
	enum skip_verdict verdict; /* from the median host_share */
	int64_t runs;		   /* runs analyzed */
	int64_t failed_runs;	   /* of those, runs whose program failed */
	char gpu[128];
	struct skip_name_stat *top_by_time, *top_by_count; /* kernels, top_k each */
	size_t ntop_time, ntop_count;
	struct skip_name_stat *top_ops; /* operators by GPU time, top_k */
	size_t ntop_ops;
	struct skip_name_stat ops_rest;	      /* the operators after the top_k together (name NULL;
						 count 0 when none), min/max over their kernels */
	size_t nops_rest;		      /* how many operators that is */
	struct skip_name_stat ops_none;	      /* the kernels with no operator (name NULL) */
	int64_t kernels_with_operator;	      /* kernels with an operator, of any attribution */
	int64_t kernels_by_attr[SKIP_ATTR_N]; /* kernels per attribution ([0]: no operator) */
	int64_t distinct_kernels;	      /* distinct kernel names */
	int64_t dropped;		      /* SKIP_DROPS total of the analyzed runs */
	struct skip_malformed malformed; /* records of the analyzed runs left out as malformed */
	struct skip_sweep *sweep;	 /* NULL unless the runs sweep a numeric parameter */
	char torch_ops[16];		 /* "on" when recorded with --torch-ops, else "" */
	/* skip record --capture-range's MODE ("cudaProfilerApi", "nvtx:step:21:10"), else "" */
	char capture_range[SKIP_CAPTURE_NAME_MAX + 48];
	char source[32]; /* where the trace came from when not skip record ("torch.profiler":
			    skip import), else "" (SKIP_METADATA 'source') */
	struct skip_recording_cost *cost; /* NULL unless the file has baseline runs (owned) */
	const char *unavailable[8];	  /* what the analyzed runs' source did not record: keys of
					     skip_unavailable_text() (static strings) from SKIP_METADATA
					     'unavailable'; unknown keys are left out */
	size_t nunavailable;
};

/*
 * What a missing input means for the report, for each key of skip_report.unavailable[]
 * ("dropped_records", "submitted", "exit_status", "graph_nodes"): a static one-line text naming
 * the figure and what the report does instead; NULL for an unknown key. docs/skip-report.md.
 */
SKIP_API const char *skip_unavailable_text(const char *key);
/* Whether @key is among r->unavailable[]. */
SKIP_API int skip_report_lacks(const struct skip_report *r, const char *key);

/*
 * Analyze the trace. Errors (with skip_errmsg() set): SKIP_E_NOTFOUND (no such run, or no NVTX
 * range named opts->region: the message lists the names present), SKIP_E_EMPTY (the selected
 * runs hold no kernels, or every occurrence of the region is empty), SKIP_E_CORRUPT,
 * SKIP_E_DB. On success *@out is the report (free with skip_report_free()).
 */
SKIP_API int skip_analyze(struct skip_trace *t, const struct skip_analysis_opts *opts,
			  struct skip_report **out);
SKIP_API void skip_report_free(struct skip_report *r);

/*
 * The report as JSON (schemas/report.schema.json), a malloc'ed string the caller frees, or NULL
 * when out of memory.
 */
SKIP_API char *skip_report_json(const struct skip_report *r);

/* ---- the timeline of one run (for the advisor) ------------------------------------------ */

enum skip_op_kind { SKIP_OP_KERNEL, SKIP_OP_MEMCPY, SKIP_OP_MEMSET };

/* One GPU operation of a run, joined to the API call that launched it. Times in ns, each in
 * [0, SKIP_TIME_MAX) (but INT64_MIN for none), end >= start, api_end >= launch. */
struct skip_op {
	int64_t start, end; /* on the GPU */
	int64_t launch;	    /* the launch call's start; INT64_MIN when it has none */
	int64_t api_end;    /* the launch call's end; INT64_MIN when none */
	int64_t submit;	    /* hardware `submitted` when recorded, else api_end */
	uint32_t pid, tid;  /* launching process and thread */
	uint32_t corr;	    /* correlation id (shared by the kernels of one graph launch) */
	uint32_t stream;
	int32_t name;	  /* StringIds id of the short name; -1 for memcpy/memset */
	int32_t fullname; /* StringIds id of the demangled name; -1 for memcpy/memset */
	uint32_t blocks;  /* grid size in blocks (kernels); bytes (memcpy, memset, at most
			     UINT32_MAX) */
	uint32_t per_sm;  /* blocks of it one multiprocessor holds at once (1..32; 0 unknown) */
	uint32_t stack;	  /* operator stack (skip_trace_operator), 0 when none */
	int32_t window;	  /* index of the region occurrence it belongs to, -1 when none */
	uint16_t device;
	uint8_t kind;	/* enum skip_op_kind */
	uint8_t attr;	/* enum skip_attr: how the stack was found */
	uint8_t graph;	/* 0, or 1 from a graph launch, 2 the first kernel of it */
	uint8_t driver; /* launched by a driver API call (cuLaunchKernel...), not runtime */
	uint8_t first;	/* 1: a kernel's first launch call in its process (whose call also loads
			   its code, CUDA's lazy loading: a one-time cost) */
};

/* A host call that waited for the GPU (synchronize, a synchronous memcpy/memset). */
struct skip_sync {
	int64_t start, end;
	uint32_t pid, tid;
};

/* A region occurrence: an NVTX range's [start, end] and where it started. */
struct skip_window {
	int64_t start, end;
	uint32_t pid, tid;
};

struct skip_timeline {
	int64_t run_id;
	struct skip_op *ops; /* in launch order (operations with no launch call by start) */
	size_t nops;
	size_t napi_calls; /* runtime and driver API calls the run recorded, launches and syncs
			      included */
	struct skip_sync *syncs; /* by start */
	size_t nsyncs;
	struct skip_window *windows; /* occurrences of the region asked for, by start */
	size_t nwindows;
	int64_t t0;   /* the run's IL start (first operator or launch call) */
	int sm_count; /* multiprocessors of the GPU, 0 when unknown or above SKIP_MAX_SMS */
	struct skip_malformed malformed; /* the run's records left out as malformed */
};

/*
 * Load one run's operations as a timeline; with @region (an NVTX range text, may be NULL)
 * each operation also gets the occurrence it belongs to (docs/skip-report.md "Linking").
 * Returns 0 and *@out (free with skip_timeline_free()), SKIP_E_NOTFOUND for an unknown run,
 * or a read error.
 */
SKIP_API int skip_timeline_load(struct skip_trace *t, int64_t run_id, const char *region,
				struct skip_timeline **out);
SKIP_API void skip_timeline_free(struct skip_timeline *tl);
/* The StringIds value of @id (borrowed from the trace), or "" when there is none. */
SKIP_API const char *skip_trace_string(const struct skip_trace *t, int64_t id);
/* The innermost NVTX range text of an operator stack, or "" for 0 (borrowed). */
SKIP_API const char *skip_trace_operator(const struct skip_trace *t, uint32_t stack);
/* NVTX range names of run @run_id that occur at least @min_count times, those whose occurrences
 * last longest in all first (a training step before the operators inside it), at most @max:
 * *@names is a malloc'ed array of malloc'ed strings (caller frees both). Returns the count. */
SKIP_API size_t skip_trace_repeated_ranges(struct skip_trace *t, int64_t run_id, int min_count,
					   size_t max, char ***names);
/* The full runs of the trace, ascending (baseline runs, SKIP_RUNS.kind 'baseline', are left
 * out: they hold no CUDA activity): *@ids is malloc'ed (caller frees); returns the count. */
SKIP_API int64_t skip_trace_runs(struct skip_trace *t, int64_t **ids);
/* The wall intervals (end - start, ns) of the closed occurrences of the NVTX range @text in run
 * @run_id, in no particular order: *@walls is malloc'ed (caller frees, never NULL); returns the
 * count. */
SKIP_API size_t skip_trace_range_walls(struct skip_trace *t, int64_t run_id, const char *text,
				       double **walls);
/* The same, of the occurrences that overlap none of the run's capture ranges (skip record
 * --capture-range: SKIP_CAPTURE_RANGE_TEXT rows), so ran unrecorded in the recorded process.
 * With @before, those of them that end before the run's first capture range begins (free of
 * what a range leaves behind: docs/BENCHMARKS.md "What the on/off ratio misses") also go to
 * *@before, malloc'ed likewise (caller frees), their count to *@nbefore. */
SKIP_API size_t skip_trace_uncaptured_walls(struct skip_trace *t, int64_t run_id, const char *text,
					    double **walls, double **before, size_t *nbefore);
/* Whether the trace holds capture ranges (recorded with skip record --capture-range, its
 * SKIP_METADATA says so, and some were written). */
SKIP_API int skip_trace_has_captures(struct skip_trace *t);
/* 1 when run @run_id is a baseline run (SKIP_RUNS.kind 'baseline'), else 0. */
SKIP_API int skip_trace_is_baseline(struct skip_trace *t, int64_t run_id);
/* The baseline runs (skip record --baseline) of run @run_id's configuration: its command line
 * and parameters, ascending. *@ids is malloc'ed (caller frees); returns the count, 0 when the
 * trace has none (schema 1 and 2 files never do). */
SKIP_API int64_t skip_trace_baseline_runs(struct skip_trace *t, int64_t run_id, int64_t **ids);
/* The repetitions of run @run_id: the runs of its kind with its command line and its
 * parameters (SKIP_PARAMETERS), itself included, ascending (skip record --repeat N makes N of them;
 * a sweep's other values are not). *@ids is malloc'ed (caller frees); returns the count: 1 when the
 * trace does not say (no SKIP_RUNS), 0 when it has no run @run_id. */
SKIP_API int64_t skip_trace_repeats(struct skip_trace *t, int64_t run_id, int64_t **ids);

#endif /* SKIP_ANALYZER_H */
