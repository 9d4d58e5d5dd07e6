/*
 * internal.h: shared by the gate/ sources only. The flow: side.c (a trace) or baseline.c (a
 * baseline file) fills a struct skip_gate_side; gate.c tests each case and metric with stats.c and
 * metrics.c's table; diff.c explains the difference; json.c and report.c write both out.
 */
#ifndef SKIP_GATE_INTERNAL_H
#define SKIP_GATE_INTERNAL_H

#include "skip_gate.h"

/* Append a formatted, malloc'ed string to the vector *@v of *@n strings (both owned by the
 * caller's object; freed with sk_gate_strv_free()). */
void sk_gate_strv_add(char ***v, size_t *n, const char *fmt, ...) SK_PRINTF(3, 4);
void sk_gate_strv_free(char **v, size_t n);

/* The case of @s whose key is @key, or NULL. */
const struct skip_gate_case *sk_gate_case_find(const struct skip_gate_side *s, const char *key);
/* The name entry @name in the sorted @v[@n], or NULL. */
const struct skip_gate_name *sk_gate_name_find(const struct skip_gate_name *v, size_t n,
					       const char *name);
/* Free the cases (and their runs and names) of a side. */
void sk_gate_cases_free(struct skip_gate_case *c, size_t n);
/* Sort a side's cases by key and each case's runs by run id (after loading). */
void sk_gate_side_sort(struct skip_gate_side *s);

/* The text of schemas/baseline.schema.json, embedded at build time (mk/gate.mk). */
SKIP_API extern const char sk_gate_baseline_schema[];
/* A side from a parsed baseline file (borrowed @doc); checks the version, the schema, the
 * per-run array lengths and the region. Errors as skip_gate_baseline_parse(). */
struct cJSON;
int sk_gate_baseline_from_json(const struct cJSON *doc, const char *name, const char *region,
			       struct skip_gate_side **out);

/* What a metric measures and how it is shown: one row of metrics.c's table. */
struct sk_gate_def {
	const char *word;  /* --metric word ("il"), or a prefix ending in ':' */
	const char *label; /* "IL" */
	enum skip_gate_kind kind;
	enum skip_metric_id id; /* region metrics; the verdict tests SKIP_M_HOST_SHARE */
	int context;		/* shown by --context when not gated */
	const char *help;	/* one line for --help and the docs */
};
/* The definition of @m. */
const struct sk_gate_def *sk_gate_def_of(const struct skip_gate_metric *m);
/* The context metrics in table order (for skip_gate_opts.context), NULL-terminated. */
const struct sk_gate_def *sk_gate_def_at(size_t i);
/* A copy of @src into @dst (strings duplicated). */
void sk_gate_metric_copy(struct skip_gate_metric *dst, const struct skip_gate_metric *src);

/*
 * The per-run values of metric @m in case @c of a side: *@v (malloc'ed, caller frees) gets
 * one value per run that has it (runs where a kernel was not launched have no mean). Returns
 * the count.
 */
int sk_gate_values(const struct skip_gate_case *c, const struct skip_gate_metric *m, double **v);
/* The verdict of a case: from the median of its runs' host-side shares. */
enum skip_verdict sk_gate_case_verdict(const struct skip_gate_case *c);

/* Durations and shares for people: "1.234 ms", "12.3%"; the metric's unit decides. */
const char *sk_gate_fmt(char *buf, size_t n, const char *unit, double v);
/* A signed relative change: "+12.3%", "-0.4%", "+inf". */
const char *sk_gate_fmt_rel(char *buf, size_t n, double rel);

#endif /* SKIP_GATE_INTERNAL_H */
