/*
 * skip_export.h: reports and traces in other formats (libskip_export.a, on top of the
 * analyzer). For now: the report as one self-contained HTML page.
 *
 * Thread safety: none needed; the functions only read the report.
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

#endif /* SKIP_EXPORT_H */
