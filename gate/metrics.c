/*
 * metrics.c: what the gate can test, one row per metric: its --metric word, its label, where
 * its per-run values come from and whether --context shows it. Parsing a --metric list, the
 * per-run values of a metric in a case, and the number formats the outputs share.
 */
#define SK_LOG_DOMAIN "gate"
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static const struct sk_gate_def defs[] = {
    {"il", "IL", SKIP_GATE_REGION, SKIP_M_IL, 1,
     "region latency: first operator or launch call to the last GPU end"},
    {"tklqt", "TKLQT", SKIP_GATE_REGION, SKIP_M_TKLQT, 1,
     "sum of t_launch = kernel start - launch call start"},
    {"t_api", "sum t_api", SKIP_GATE_REGION, SKIP_M_T_API, 1,
     "time in the launch calls on the host"},
    {"t_queue", "sum t_queue", SKIP_GATE_REGION, SKIP_M_T_QUEUE, 1,
     "launch call end to kernel start"},
    {"busy", "GPU busy", SKIP_GATE_REGION, SKIP_M_BUSY, 1,
     "union of kernel, memcpy and memset time"},
    {"idle", "GPU idle", SKIP_GATE_REGION, SKIP_M_IDLE, 1, "IL - GPU busy"},
    {"host_wait", "host wait", SKIP_GATE_REGION, SKIP_M_HOST_WAIT, 0,
     "GPU idle while the next launch had not been issued"},
    {"host_share", "host-side share", SKIP_GATE_REGION, SKIP_M_HOST_SHARE, 1,
     "share of IL the GPU waited for the host (the verdict's input)"},
    {"akd", "AKD", SKIP_GATE_REGION, SKIP_M_AKD, 0, "average kernel duration"},
    {"verdict", "verdict", SKIP_GATE_VERDICT, SKIP_M_HOST_SHARE, 1,
     "CPU/GPU-bound; fails on a flip to CPU-bound with a significant host-side share rise"},
    {"kernel:", "kernel", SKIP_GATE_KERNEL_MEAN, SKIP_M_AKD, 0,
     "kernel:NAME, mean duration per launch of the kernel NAME (its short name)"},
    {"kernel_total:", "kernel total", SKIP_GATE_KERNEL_TOTAL, SKIP_M_IL, 0,
     "kernel_total:NAME, GPU time per region of the kernel NAME"},
    {"op:", "operator", SKIP_GATE_OP_TOTAL, SKIP_M_IL, 0,
     "op:NAME, GPU time per region of the kernels launched under the NVTX range NAME"},
};
#define NDEFS (sizeof(defs) / sizeof(defs[0]))

static int is_prefix(const struct sk_gate_def *d)
{
	return d->word[strlen(d->word) - 1] == ':';
}

const struct sk_gate_def *sk_gate_def_of(const struct skip_gate_metric *m)
{
	for (size_t i = 0; i < NDEFS; i++)
		if (defs[i].kind == m->kind && (m->kind != SKIP_GATE_REGION || defs[i].id == m->id))
			return &defs[i];
	return &defs[0];
}

const struct sk_gate_def *sk_gate_def_at(size_t i)
{
	return i < NDEFS ? &defs[i] : NULL;
}

void sk_gate_metric_copy(struct skip_gate_metric *dst, const struct skip_gate_metric *src)
{
	*dst = *src;
	dst->name = src->name ? sk_xstrdup(src->name) : NULL;
	dst->spelling = sk_xstrdup(src->spelling);
}

static void push(struct skip_gate_metric **v, size_t *n, const struct sk_gate_def *d,
		 const char *name, size_t len)
{
	struct skip_gate_metric *m;

	*v = sk_xrealloc(*v, (*n + 1) * sizeof(**v));
	m = &(*v)[(*n)++];
	m->kind = d->kind;
	m->id = d->id;
	m->name = name ? sk_xstrdup(name) : NULL;
	m->spelling =
	    name ? sk_xasprintf("%s%s", d->word, name) : sk_xasprintf("%.*s", (int)len, d->word);
}

static int bad_word(const char *w, size_t len)
{
	struct sk_strbuf sb = {0};
	int err;

	for (size_t i = 0; i < NDEFS; i++)
		sk_strbuf_printf(&sb, "%s%s%s", i ? ", " : "", defs[i].word,
				 is_prefix(&defs[i]) ? "NAME" : "");
	err = sk_fail(SKIP_E_INVAL, "unknown metric '%.*s'; the metrics are %s", (int)len, w,
		      sb.buf ? sb.buf : "");
	free(sb.buf);
	return err;
}

int skip_gate_metrics_parse(const char *list, struct skip_gate_metric **v, size_t *n)
{
	const char *p = list;

	while (*p) {
		size_t len = strcspn(p, ","), i;
		int found = 0;

		for (i = 0; i < NDEFS && !found; i++) {
			size_t wl = strlen(defs[i].word);

			if (is_prefix(&defs[i]) && !strncmp(p, defs[i].word, wl)) {
				if (!p[wl])
					return sk_fail(SKIP_E_INVAL,
						       "metric '%s' needs a name: "
						       "%sNAME",
						       defs[i].word, defs[i].word);
				push(v, n, &defs[i], p + wl, 0); /* the rest is the name */
				return 0;
			}
			if (!is_prefix(&defs[i]) && wl == len && !strncmp(p, defs[i].word, len)) {
				push(v, n, &defs[i], NULL, len);
				found = 1;
			}
		}
		if (!found && len)
			return bad_word(p, len);
		p += len + (p[len] == ',');
	}
	return 0;
}

void skip_gate_metrics_free(struct skip_gate_metric *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++) {
		free(v[i].name);
		free(v[i].spelling);
	}
	free(v);
}

void skip_gate_metrics_help(FILE *out)
{
	for (size_t i = 0; i < NDEFS; i++) {
		char w[32];

		snprintf(w, sizeof(w), "%s%s", defs[i].word, is_prefix(&defs[i]) ? "NAME" : "");
		fprintf(out, "  %-19s %s\n", w, defs[i].help);
	}
}

/* ---- values ---------------------------------------------------------------------------------- */

int sk_gate_values(const struct skip_gate_case *c, const struct skip_gate_metric *m, double **v)
{
	const struct skip_gate_name *nm = NULL;
	int n = 0;

	*v = sk_xmalloc((c->nruns + 1) * sizeof(double));
	if (m->kind == SKIP_GATE_KERNEL_MEAN || m->kind == SKIP_GATE_KERNEL_TOTAL)
		nm = sk_gate_name_find(c->kernels, c->nkernels, m->name);
	else if (m->kind == SKIP_GATE_OP_TOTAL)
		nm = sk_gate_name_find(c->ops, c->nops, m->name);
	for (size_t i = 0; i < c->nruns; i++) {
		const struct skip_gate_run *r = &c->runs[i];

		switch (m->kind) {
		case SKIP_GATE_REGION:
		case SKIP_GATE_VERDICT:
			if (!isnan(r->median[m->id])) /* a baseline file may lack a metric */
				(*v)[n++] = r->median[m->id];
			break;
		case SKIP_GATE_KERNEL_MEAN:
			if (nm && nm->count[i] > 0)
				(*v)[n++] = (double)nm->total_ns[i] / (double)nm->count[i];
			break;
		case SKIP_GATE_KERNEL_TOTAL:
		case SKIP_GATE_OP_TOTAL:
			if (nm && r->regions > 0)
				(*v)[n++] = (double)nm->total_ns[i] / r->regions;
			break;
		}
	}
	return n;
}

enum skip_verdict sk_gate_case_verdict(const struct skip_gate_case *c)
{
	double *v = sk_xmalloc((c->nruns + 1) * sizeof(double)), share;

	if (!c->nruns) {
		free(v);
		return SKIP_VERDICT_EMPTY;
	}
	for (size_t i = 0; i < c->nruns; i++)
		v[i] = c->runs[i].median[SKIP_M_HOST_SHARE];
	share = skip_median(v, c->nruns);
	free(v);
	return share >= SKIP_DEFAULT_THRESHOLD ? SKIP_VERDICT_CPU_BOUND : SKIP_VERDICT_GPU_BOUND;
}

/* ---- formats --------------------------------------------------------------------------------- */

const char *sk_gate_fmt(char *buf, size_t n, const char *unit, double v)
{
	if (!strcmp(unit, "ns"))
		return skip_fmt_duration(buf, n, v, 4);
	if (!strcmp(unit, "ratio"))
		snprintf(buf, n, "%.1f%%", v * 100);
	else
		snprintf(buf, n, v == floor(v) && fabs(v) < 1e15 ? "%.0f" : "%.2f", v);
	return buf;
}

const char *sk_gate_fmt_rel(char *buf, size_t n, double rel)
{
	if (isinf(rel))
		snprintf(buf, n, "%sinf", rel > 0 ? "+" : "-");
	else
		snprintf(buf, n, "%+.1f%%", rel * 100);
	return buf;
}

/* ---- string vectors -------------------------------------------------------------------------- */

void sk_gate_strv_add(char ***v, size_t *n, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (!s)
		s = sk_xstrdup("(out of memory)");
	*v = sk_xrealloc(*v, (*n + 1) * sizeof(char *));
	(*v)[(*n)++] = s;
}

void sk_gate_strv_free(char **v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}
