/*
 * skip_export.h: reports and traces in other formats (libskip_export.a, on top of the
 * analyzer): the report as one self-contained HTML page; the trace's timeline as Chrome
 * trace-event JSON (Perfetto, chrome://tracing) or in PyTorch profiler's (Kineto's) JSON
 * conventions; its tables, or the answer to an SQL query, as CSV; and a Jupyter notebook that
 * analyses the trace with sqlite3, pandas and matplotlib. docs/skip-export.md describes every
 * format and its field mapping.
 *
 * The trace writers stream: they read the trace with a few SQL cursors and write as they go,
 * with memory bounded by the number of processes, threads and streams, not by the number of
 * records. They read a trace opened with skip_trace_open() (read-only) and write to a stream
 * the caller owns (the CLI hands them a skip_outfile's stream). They print nothing.
 *
 * Thread safety: none needed; a trace handle is used by one thread at a time.
 */
#ifndef SKIP_EXPORT_H
#define SKIP_EXPORT_H

#include <stdio.h>

#include "skip_analyzer.h"

/*
 * Write @r as an HTML page to @out: the verdict, for a sweep SVG line charts of IL, TKLQT and
 * the host-side share against the parameter (log2 axis) with the crossover marked, the
 * per-value table and, when the advisor filled it (r->sweep->graph), the graph-gain table;
 * otherwise a chart of each region's IL and host-side share; then the metric table and the top
 * kernels and operators. Text from the trace (path, GPU, parameter and kernel names) is
 * escaped. Self-contained: inline CSS and SVG, no script, no network. Returns 0, or SKIP_E_IO
 * when writing failed.
 */
SKIP_API int skip_export_html(const struct skip_report *r, FILE *out);

/* ---- what part of a trace is exported (notebooks-export/select.c) ----------------------- */

/* The selection asked for: a run, and in it one occurrence of an NVTX range. */
struct skip_export_pick {
	int64_t run_id;	    /* 0: every run (with a region: the first run that has it) */
	const char *region; /* NVTX range text, or NULL: whole runs (borrowed) */
	int occurrence;	    /* 1-based occurrence of the region in the run; 0 means 1 */
};

/*
 * The selection resolved: the runs and the time window every exported record overlaps. For a
 * region the window runs from the range's start to the end of the last GPU operation
 * (kernel, memcpy, memset) launched inside it by the same process, or to the range's end when
 * that is later (docs/skip-export.md "Selection").
 */
struct skip_export_sel {
	int64_t run_id;	   /* 0: every run */
	int windowed;	   /* 1: only records overlapping [start_ns, end_ns] */
	int64_t start_ns;  /* window, trace clock ns (inclusive) */
	int64_t end_ns;	   /* window end (inclusive) */
	int64_t range_end; /* the range's own end, ns */
	char *region;	   /* the range text (owned; free with skip_export_sel_fini()) */
	int occurrence;	   /* which occurrence */
};

/*
 * Resolve @pick against @t. Errors (skip_errmsg() set): SKIP_E_NOTFOUND for a run the trace
 * does not hold, a range it does not hold (the message names some that it does) or an
 * occurrence beyond the last; SKIP_E_DB. @sel is filled on success; release it with
 * skip_export_sel_fini() (also safe after a failure).
 */
SKIP_API int skip_export_select(struct skip_trace *t, const struct skip_export_pick *pick,
				struct skip_export_sel *sel);
SKIP_API void skip_export_sel_fini(struct skip_export_sel *sel);

/* ---- timelines: Perfetto and Kineto JSON (notebooks-export/timeline.c) ------------------ */

enum skip_timeline_format {
	SKIP_TIMELINE_PERFETTO, /* Chrome trace-event JSON, timestamps on the trace clock */
	SKIP_TIMELINE_KINETO,	/* PyTorch profiler JSON: GPU events under pid = device,
				   tid = stream; timestamps relative to baseTimeNanoseconds */
};

/* What a writer wrote and left out. */
struct skip_export_counts {
	int64_t events;	   /* records written (API calls, NVTX, GPU operations, syncs) */
	int64_t flows;	   /* launch-call-to-GPU-operation arrows */
	int64_t malformed; /* records left out: a time or id that is not an integer of its
			      range, or an end before its start (docs/trace-format.md) */
	int64_t bytes;	   /* bytes written */
};

/*
 * Write the timeline of @sel's records of @t to @out as @fmt: a process per recorded
 * process, a track per CPU thread and per GPU stream, complete events for API calls, kernels,
 * memcpys, memsets and synchronizations, NVTX ranges (push/pop ranges as nested slices on
 * their thread, start/end ranges as async slices, marks as instants), a flow from each launch
 * call to each GPU operation it caused, and the GPUs, runs and sweep parameters as metadata.
 * @trace_path is only copied into the metadata. Timestamps are microseconds printed from the
 * integer nanoseconds with three decimals (exact). Returns 0 with *@counts filled, SKIP_E_IO
 * when writing failed, SKIP_E_DB when reading did.
 */
SKIP_API int skip_export_timeline(struct skip_trace *t, const char *trace_path,
				  const struct skip_export_sel *sel, enum skip_timeline_format fmt,
				  FILE *out, struct skip_export_counts *counts);

/* ---- CSV (notebooks-export/csv.c) -------------------------------------------------------- */

/*
 * The tables of @t that --format csv writes, by name: *@names is a malloc'ed array of
 * malloc'ed strings (caller frees both). Returns their count, or a negative code.
 */
SKIP_API int skip_export_csv_tables(struct skip_trace *t, char ***names);

/*
 * Write table @table of @t as CSV (RFC 4180: a header row of the column names, fields with a
 * comma, quote, CR or LF quoted with quotes doubled, CRLF line ends, text as UTF-8, NULL as an
 * empty field, blobs as hex) to @out, only the rows of @sel's run when the table has a runId
 * column and only the rows overlapping @sel's window when it has start and end columns.
 * Returns 0 and *@rows, or SKIP_E_IO / SKIP_E_DB.
 */
SKIP_API int skip_export_csv_table(struct skip_trace *t, const char *table,
				   const struct skip_export_sel *sel, FILE *out, int64_t *rows);

/*
 * Run the single SQL statement @sql on @t (read-only) and write its rows as CSV like
 * skip_export_csv_table(). SKIP_E_INVAL with SQLite's message for a statement that does not
 * compile or for more than one statement; SKIP_E_IO, SKIP_E_DB.
 */
SKIP_API int skip_export_csv_query(struct skip_trace *t, const char *sql, FILE *out, int64_t *rows);

/* ---- Jupyter notebook (notebooks-export/ipynb.c) ----------------------------------------- */

struct skip_notebook_opts {
	const char *trace_ref; /* the trace's path as the notebook opens it (relative to the
				  notebook's folder, or absolute) */
	int64_t run_id;	       /* the run the region cells show; 0: the first */
	const char *region;    /* NVTX range of the timeline cell, NULL: the whole run */
	int occurrence;	       /* its occurrence, 0 means 1 */
	const char *param;     /* the sweep parameter, NULL: none (no crossover cells) */
};

/*
 * Write a Jupyter notebook (nbformat 4) to @out whose cells open the trace with sqlite3 and
 * pandas, compute skip report's metrics with SQL written in the notebook, and draw with
 * matplotlib: the timeline of one region, the TKLQT = t_api + t_queue breakdown, the idle
 * attribution, the top kernels and, with @o->param, the sweep's crossover chart. Markdown
 * cells explain each metric and link docs/skip-report.md. Returns 0 or SKIP_E_IO.
 */
SKIP_API int skip_export_notebook(const struct skip_notebook_opts *o, FILE *out);

/*
 * The numeric sweep parameter of @t with two values or more (the one skip report would use),
 * malloc'ed (caller frees), or NULL when the trace is no sweep.
 */
SKIP_API char *skip_export_sweep_param(struct skip_trace *t);

#endif /* SKIP_EXPORT_H */
