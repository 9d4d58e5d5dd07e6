/*
 * skip_gate.h: CI performance-regression gating and trace diffs (libskip_gate.a), on top of the
 * analyzer. `skip gate` and `skip diff` (cli/cmd_gate.c, cli/cmd_diff.c) are thin layers over it.
 *
 * The flow: each side of a comparison (a trace, or a baseline file that `skip gate
 * --save-baseline` wrote from one) becomes a struct skip_gate_side: for every run, each
 * metric's median and mean over the run's region occurrences, and per kernel name and per
 * operator the run's totals. Runs with the same parameters (a sweep point, or all the runs
 * of `skip record --repeat N`) form a case; cases are matched by their parameters.
 * skip_gate_decide() then tests each gated metric of each case: the run is the unit (region
 * occurrences of one process are not independent samples), the test is the one-sided
 * Mann-Whitney rank test (exact without ties), and a regression needs both a p-value below
 * its Holm level (the family of gated tests shares --alpha) and a change of at least the
 * practical threshold and the absolute floor. docs/skip-gate.md says why, with the measured
 * false-alarm rate and power. skip_diff_compute() says what changed, kernel by kernel and
 * operator by operator, with each change's share of the IL difference.
 *
 * Ownership: every _new/_load/_compute/_decide result is freed with its _free function;
 * strings inside belong to their object. A result borrows the sides it was computed from:
 * free it before them. Functions returning `char *` hand the string to the caller (free()).
 * Nothing here keeps global state: distinct objects may be used from distinct threads.
 */
#ifndef SKIP_GATE_H
#define SKIP_GATE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "skip_analyzer.h"
#include "skip_common.h"

/* Version of the baseline file format (schemas/baseline.schema.json, "skip_baseline"). */
#define SKIP_BASELINE_VERSION 1

/* Defaults (docs/skip-gate.md "Defaults" says why each). */
#define SKIP_GATE_ALPHA	      0.005 /* family-wise false-alarm rate of one gate */
#define SKIP_GATE_MAX_REGRESS 0.05  /* practical threshold: a 5% change */
#define SKIP_GATE_FLOOR_NS    100.0 /* absolute floor of a time change, ns */
#define SKIP_GATE_FLOOR_SHARE 0.01  /* absolute floor of a host-side share change (1 point) */
#define SKIP_GATE_MIN_RUNS    2	    /* a side needs at least this many runs per case */
#define SKIP_GATE_METRICS     "il"
#define SKIP_DIFF_THRESHOLD   0.02 /* skip diff: slower or faster by 2% per launch */

/* ---- statistics (gate/stats.c) --------------------------------------------------------------- */

/* The comparison of one metric's per-run values on two sides. */
struct skip_gate_stat {
	int nb, nc;	     /* values on each side */
	double base_median;  /* median of the baseline's values */
	double cand_median;  /* median of the candidate's values */
	double shift;	     /* Hodges-Lehmann shift: median of all cand_j - base_i */
	double rel;	     /* shift / |base_median|; +-INFINITY for a shift from 0, 0 for none */
	double ci_lo, ci_hi; /* confidence interval of the shift, level 1 - 2 alpha (from the
				rank test's order statistics); -/+INFINITY when too few runs */
	double p_worse;	     /* one-sided p-value: the candidate's values are larger */
	double p_better;     /* one-sided p-value: they are smaller */
	int exact;	     /* 1: exact null distribution; 0: normal approximation (ties, or
				more than 10,000 pairs) */
};

/*
 * Compare @nb baseline values with @nc candidate values (each >= 1; NaNs are not allowed):
 * Mann-Whitney U with mid-ranks, the Hodges-Lehmann shift and its confidence interval at level
 * 1 - 2 @alpha. Pure; returns 0, or SKIP_E_INVAL for an empty side or a NaN.
 */
SKIP_API int skip_gate_stat_compute(const double *base, int nb, const double *cand, int nc,
				    double alpha, struct skip_gate_stat *out);
/* The smallest one-sided p-value the exact rank test can give with @nb and @nc runs:
 * 1 / C(nb + nc, nb). */
SKIP_API double skip_gate_min_p(int nb, int nc);
/* The smallest n such that n runs on each side can give a p-value at or below @level. */
SKIP_API int skip_gate_runs_needed(double level);
/*
 * Holm's step-down procedure over the @n p-values @p at family-wise level @alpha: @reject[i]
 * is set to 1 for a rejected hypothesis, else 0; @level[i] to the threshold p[i] is compared
 * with at its rank (alpha / (n - rank)). Pure.
 */
SKIP_API void skip_gate_holm(const double *p, size_t n, double alpha, int *reject, double *level);

/* ---- the two sides (gate/side.c, gate/baseline.c) -------------------------------------------- */

struct skip_gate_run {
	int64_t run_id;
	int regions;		     /* region occurrences with GPU work (1 for a whole run) */
	int empty;		     /* occurrences without GPU work */
	double median[SKIP_M_COUNT]; /* each metric's median over the run's regions */
	double mean[SKIP_M_COUNT];   /* and its mean */
};

/* A kernel name or an operator (innermost NVTX range at launch) with its per-run totals over
 * the run's regions with GPU work. */
struct skip_gate_name {
	char *name;
	int64_t *count;	    /* [nruns] kernels of that name (under that operator) */
	int64_t *total_ns;  /* [nruns] their summed duration */
	int64_t *launch_ns; /* [nruns] their summed t_launch */
};

/* The runs of one parameter set: all of `skip record --repeat N`, or one sweep point. */
struct skip_gate_case {
	char *key;		    /* "batch=4,seq=128" (by name), "" without parameters */
	char *command;		    /* the command line recorded for its first run */
	struct skip_gate_run *runs; /* by run id */
	size_t nruns;
	struct skip_gate_name *kernels; /* by name (strcmp) */
	size_t nkernels;
	struct skip_gate_name *ops; /* by name (strcmp) */
	size_t nops;
};

struct skip_gate_side {
	char *path;		      /* the file it was read from */
	int baseline;		      /* 1: a baseline file, 0: a trace */
	char *region;		      /* the NVTX range of the regions, NULL for whole runs */
	char skip_version[32];	      /* the skip that recorded the trace or wrote the file */
	char gpu[128];		      /* GPU name, "" when unknown */
	char driver[64];	      /* NVIDIA driver version, "" when unknown */
	int64_t dropped;	      /* records the collector dropped in the runs kept */
	struct skip_gate_case *cases; /* by key */
	size_t ncases;
	char **notes; /* runs left out, and why ("run 3 failed (exit 1)") */
	size_t nnotes;
};

/*
 * Read one side from @path: a skip trace (analyzed with the analyzer, per run, for @region or
 * whole runs when NULL) or a baseline file (JSON, recognized by its first character). Runs
 * whose program failed, and runs without GPU work in @region, are left out with a note.
 * Returns 0 and *@out (free with skip_gate_side_free()); on failure *@out is NULL and
 * skip_errmsg() says why: the trace's errors (skip_trace_open(), skip_analyze(): no such
 * region, nothing recorded), SKIP_E_INVAL for a baseline that does not follow the schema or
 * was saved for another region, SKIP_E_UNSUPPORTED for a baseline of another version.
 */
SKIP_API int skip_gate_side_load(const char *path, const char *region, struct skip_gate_side **out);
/* The same from an open trace (borrowed; @path names it in messages). */
SKIP_API int skip_gate_side_from_trace(struct skip_trace *t, const char *path, const char *region,
				       struct skip_gate_side **out);
/* Parse a baseline file's text; @name is the file name for messages. Errors as above. */
SKIP_API int skip_gate_baseline_parse(const char *text, const char *name, const char *region,
				      struct skip_gate_side **out);
/* The side as a baseline file (schemas/baseline.schema.json); @created_by is the command line
 * that wrote it (may be NULL). A malloc'ed string (caller frees), NULL when out of memory. */
SKIP_API char *skip_gate_baseline_json(const struct skip_gate_side *s, const char *created_by);
SKIP_API void skip_gate_side_free(struct skip_gate_side *s);
/* Runs of the side, over its cases. */
SKIP_API size_t skip_gate_side_runs(const struct skip_gate_side *s);

/* ---- what is gated (gate/metrics.c) ---------------------------------------------------------- */

enum skip_gate_kind {
	SKIP_GATE_REGION,	/* a region metric (analyzer's skip_metric_id) */
	SKIP_GATE_VERDICT,	/* the CPU/GPU-bound verdict (tested on the host-side share) */
	SKIP_GATE_KERNEL_MEAN,	/* kernel:NAME, mean duration per launch */
	SKIP_GATE_KERNEL_TOTAL, /* kernel_total:NAME, GPU time per region */
	SKIP_GATE_OP_TOTAL,	/* op:NAME, GPU time per region under an operator */
};

struct skip_gate_metric {
	enum skip_gate_kind kind;
	enum skip_metric_id id; /* the region metric (SKIP_GATE_REGION, SKIP_GATE_VERDICT) */
	char *name;		/* kernel or operator name, NULL for the others */
	char *spelling;		/* as --metric spells it: "il", "kernel:gemm" */
};

/*
 * Parse a --metric list: comma-separated words (il, tklqt, t_api, t_queue, busy, idle,
 * host_wait, host_share, akd, verdict), where kernel:NAME, kernel_total:NAME and op:NAME take
 * the rest of the list as NAME (commas included), so that C++ names survive. Appends to
 * *@v (*@n entries; free with skip_gate_metrics_free()). Returns 0, or SKIP_E_INVAL naming the
 * word and listing the valid ones.
 */
SKIP_API int skip_gate_metrics_parse(const char *list, struct skip_gate_metric **v, size_t *n);
SKIP_API void skip_gate_metrics_free(struct skip_gate_metric *v, size_t n);
/* One line per metric word with its meaning, for --help and the docs. */
SKIP_API void skip_gate_metrics_help(FILE *out);

/* ---- the decision (gate/gate.c) -------------------------------------------------------------- */

enum skip_gate_status {
	SKIP_GATE_PASS,		/* no significant change beyond the threshold */
	SKIP_GATE_REGRESSION,	/* significant and beyond the threshold and the floor: fails */
	SKIP_GATE_IMPROVED,	/* the same, the other way */
	SKIP_GATE_INCONCLUSIVE, /* beyond the threshold, not significant: more runs would tell */
	SKIP_GATE_CHANGED,	/* the verdict changed, without a significant host-side share */
	SKIP_GATE_MISSING,	/* the kernel or operator is on one side only (not timed) */
};
SKIP_API const char *skip_gate_status_name(enum skip_gate_status s);

struct skip_gate_test {
	const struct skip_gate_case *bcase, *ccase; /* borrowed from the sides */
	const struct skip_gate_metric *metric;	    /* borrowed from the result */
	char *label;				    /* "IL", "kernel gemm (mean)" */
	const char *unit;			    /* "ns", "ratio" */
	int gated;				    /* 1: decides the exit status */
	struct skip_gate_stat s;		    /* valid unless MISSING */
	double level;				    /* the p-value threshold (Holm's, for gated) */
	double floor;				    /* absolute floor, in the unit */
	enum skip_gate_status status;
	char *note; /* "GPU-bound -> CPU-bound", or NULL */
};

struct skip_gate_opts {
	const struct skip_gate_metric *metrics; /* NULL: SKIP_GATE_METRICS */
	size_t nmetrics;
	double alpha;	    /* family-wise false-alarm rate (0: SKIP_GATE_ALPHA) */
	double max_regress; /* practical threshold, a fraction (0: SKIP_GATE_MAX_REGRESS) */
	double floor_ns;    /* absolute floor of time metrics (< 0: SKIP_GATE_FLOOR_NS) */
	int min_runs;	    /* runs per side and case (0: SKIP_GATE_MIN_RUNS) */
	int strict;	    /* other GPU or driver: an error, not a warning */
	int context;	    /* also compare (not gate) IL, TKLQT, t_api, t_queue, busy, idle,
			       host share, verdict */
};

struct skip_gate_result {
	const struct skip_gate_side *base, *cand; /* borrowed */
	struct skip_gate_test *tests;		  /* gated first, by case, in metric order */
	size_t ntests;
	struct skip_gate_metric *metrics; /* the gated metrics, then those shown for
					     context (owned) */
	size_t nmetrics;
	size_t ngated_metrics; /* the first ngated_metrics are gated */
	char **warnings;       /* other GPU, left-out runs, unmatched cases */
	size_t nwarnings;
	char **changes; /* kernels new, gone, launched more or less */
	size_t nchanges;
	double alpha, max_regress, floor_ns; /* the settings used */
	int gated;			     /* gated tests with data (Holm's family) */
	int regressions, improvements, inconclusive;
	int needed_runs; /* runs per side the rank test needs */
};

/*
 * Compare the two sides. Returns 0 and *@out (free with skip_gate_result_free() before the
 * sides); the exit status is 1 when out->regressions > 0. Errors, with skip_errmsg():
 * SKIP_E_INVAL for a side with too few runs for the test (the message says how many are
 * needed), no case in common, regions that differ, a metric on neither side, or (strict)
 * another GPU or driver.
 */
SKIP_API int skip_gate_decide(const struct skip_gate_side *base, const struct skip_gate_side *cand,
			      const struct skip_gate_opts *o, struct skip_gate_result **out);
SKIP_API void skip_gate_result_free(struct skip_gate_result *r);

/* ---- what changed (gate/diff.c) -------------------------------------------------------------- */

enum skip_diff_flags {
	SKIP_DIFF_NEW = 1 << 0,	   /* not on the baseline side */
	SKIP_DIFF_GONE = 1 << 1,   /* not on the candidate side */
	SKIP_DIFF_SLOWER = 1 << 2, /* a kernel's mean duration per launch, an operator's GPU time
				      per region, up by the threshold and the floor */
	SKIP_DIFF_FASTER = 1 << 3,
	SKIP_DIFF_MORE = 1 << 4, /* launched more often per region (by half a launch or more) */
	SKIP_DIFF_FEWER = 1 << 5,
};

/* One kernel name or operator on both sides; per region = a mean over all regions. */
struct skip_diff_row {
	const char *name;    /* borrowed from a side */
	unsigned flags;	     /* enum skip_diff_flags */
	double count[2];     /* launches per region: baseline, candidate */
	double gpu_ns[2];    /* GPU time per region */
	double mean_ns[2];   /* mean duration per launch (0 without launches) */
	double launch_ns[2]; /* summed t_launch per region */
	double delta_ns;     /* gpu_ns[1] - gpu_ns[0] */
	double share;	     /* delta_ns / the IL difference; NAN when that is below
				the floor */
};

struct skip_diff_case {
	const struct skip_gate_case *b, *c; /* borrowed */
	double mean[2][SKIP_M_COUNT];	    /* each metric's mean per region, per side */
	int regions[2];			    /* regions with GPU work, per side */
	enum skip_verdict verdict[2];	    /* from the median of the runs' host-side shares */
	struct skip_diff_row *kernels;	    /* by |delta_ns|, largest first */
	size_t nkernels;
	struct skip_diff_row *ops;
	size_t nops;
	int kernels_changed, ops_changed; /* rows with a flag */
};

struct skip_diff {
	const struct skip_gate_side *base, *cand; /* borrowed */
	struct skip_diff_case *cases;		  /* the cases both sides have, by key */
	size_t ncases;
	double threshold, floor_ns; /* what counts as slower or faster */
};

/*
 * What changed between the sides, case by case. @threshold (a fraction, 0:
 * SKIP_DIFF_THRESHOLD) and @floor_ns (< 0: SKIP_GATE_FLOOR_NS) decide slower and faster. Returns 0
 * and *@out (free with skip_diff_free() before the sides), or SKIP_E_INVAL when the sides share no
 * case or their regions differ.
 */
SKIP_API int skip_diff_compute(const struct skip_gate_side *base, const struct skip_gate_side *cand,
			       double threshold, double floor_ns, struct skip_diff **out);
SKIP_API void skip_diff_free(struct skip_diff *d);
/* The change words of @flags ("slower, more"), "same" for none, into @buf. */
SKIP_API const char *skip_diff_flags_text(unsigned flags, char *buf, size_t n);

/* ---- outputs (gate/json.c, gate/report.c) ---------------------------------------------------- */

/* The diff as text (the table `skip diff` prints), at most @top rows per list. */
SKIP_API void skip_diff_print(FILE *out, const struct skip_diff *d, size_t top);
/* The diff as JSON ({"skip_diff": 1, ...}), at most @top rows per list; caller frees. */
SKIP_API char *skip_diff_json(const struct skip_diff *d, size_t top);
/* The gate's table: the result line, the sides, one row per test, warnings, changes. */
SKIP_API void skip_gate_print(FILE *out, const struct skip_gate_result *r);
/* The gate as JSON ({"skip_gate": 1, ...}), with the diff's top @top rows when @d is not NULL;
 * caller frees. */
SKIP_API char *skip_gate_json(const struct skip_gate_result *r, const struct skip_diff *d,
			      size_t top);
/* A Markdown job summary: the result, the table, and the diff's top @top rows (@d may be
 * NULL). */
SKIP_API void skip_gate_markdown(FILE *out, const struct skip_gate_result *r,
				 const struct skip_diff *d, size_t top);
/* JUnit XML: one testcase per metric and region (and case); a regression is a failure. */
SKIP_API void skip_gate_junit(FILE *out, const struct skip_gate_result *r);
/* GitHub Actions workflow commands: ::error for regressions, ::warning for warnings and
 * inconclusive tests, ::notice for the result. */
SKIP_API void skip_gate_github(FILE *out, const struct skip_gate_result *r);

#endif /* SKIP_GATE_H */
