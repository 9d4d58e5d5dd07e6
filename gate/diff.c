/*
 * diff.c: skip_diff_compute(), what changed between two sides, case by case. Figures are means
 * per region over all regions of a side (not medians): means add up, so the IL difference splits
 * exactly into GPU busy and idle, and the kernels' GPU-time differences add up to (about) the
 * busy difference. Each kernel and operator row says whether it is new, gone, slower, faster,
 * launched more or less often, and what share of the IL difference its GPU time accounts for.
 */
#define SK_LOG_DOMAIN "gate"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Means per region over the runs, weighted by their regions. */
static void case_means(const struct skip_gate_case *c, double *mean, int *regions)
{
	*regions = 0;
	for (size_t i = 0; i < c->nruns; i++)
		*regions += c->runs[i].regions;
	for (int m = 0; m < SKIP_M_COUNT; m++) {
		double sum = 0, w = 0;

		for (size_t i = 0; i < c->nruns; i++)
			if (isfinite(c->runs[i].mean[m])) {
				sum += c->runs[i].mean[m] * c->runs[i].regions;
				w += c->runs[i].regions;
			}
		mean[m] = w ? sum / w : NAN;
	}
}

/* One side of a row: launches, GPU time and t_launch per region, mean per launch. */
static void side_of(struct skip_diff_row *row, int s, const struct skip_gate_name *e, int regions,
		    size_t nruns)
{
	double count = 0, total = 0, launch = 0;

	for (size_t i = 0; e && i < nruns; i++) {
		count += (double)e->count[i];
		total += (double)e->total_ns[i];
		launch += (double)e->launch_ns[i];
	}
	row->count[s] = regions ? count / regions : 0;
	row->gpu_ns[s] = regions ? total / regions : 0;
	row->launch_ns[s] = regions ? launch / regions : 0;
	row->mean_ns[s] = count ? total / count : 0;
}

/* Kernels are slower or faster per launch; operators (which launch several kernels, in
 * numbers that may change) by their GPU time per region (@by_region). */
static void flag_row(struct skip_diff_row *r, const struct skip_diff *d, double dil, int by_region)
{
	const double *v = by_region ? r->gpu_ns : r->mean_ns;
	double dm = v[1] - v[0];

	if (r->count[0] == 0)
		r->flags |= SKIP_DIFF_NEW;
	if (r->count[1] == 0)
		r->flags |= SKIP_DIFF_GONE;
	if (!(r->flags & (SKIP_DIFF_NEW | SKIP_DIFF_GONE))) {
		if (r->count[1] - r->count[0] >= 0.5)
			r->flags |= SKIP_DIFF_MORE;
		if (r->count[0] - r->count[1] >= 0.5)
			r->flags |= SKIP_DIFF_FEWER;
		if (dm >= d->floor_ns && dm >= d->threshold * v[0])
			r->flags |= SKIP_DIFF_SLOWER;
		if (-dm >= d->floor_ns && -dm >= d->threshold * v[0])
			r->flags |= SKIP_DIFF_FASTER;
	}
	r->delta_ns = r->gpu_ns[1] - r->gpu_ns[0];
	r->share = fabs(dil) >= d->floor_ns && isfinite(dil) ? r->delta_ns / dil : NAN;
}

static int cmp_row(const void *a, const void *b)
{
	const struct skip_diff_row *x = a, *y = b;
	double dx = fabs(x->delta_ns), dy = fabs(y->delta_ns);

	if (dx != dy)
		return dx > dy ? -1 : 1;
	if ((x->flags != 0) != (y->flags != 0))
		return x->flags ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The rows of two sorted name lists, merged by name. */
static struct skip_diff_row *rows(const struct skip_diff *d, const struct skip_diff_case *dc,
				  const struct skip_gate_name *x, size_t nx,
				  const struct skip_gate_name *y, size_t ny, int by_region,
				  size_t *out_n, int *changed)
{
	struct skip_diff_row *v = sk_xcalloc(nx + ny + 1, sizeof(*v));
	double dil = dc->mean[1][SKIP_M_IL] - dc->mean[0][SKIP_M_IL];
	size_t i = 0, j = 0, n = 0;

	*changed = 0;
	while (i < nx || j < ny) {
		int cmp = i == nx ? 1 : j == ny ? -1 : strcmp(x[i].name, y[j].name);
		struct skip_diff_row *r = &v[n++];

		r->name = cmp <= 0 ? x[i].name : y[j].name;
		side_of(r, 0, cmp <= 0 ? &x[i] : NULL, dc->regions[0], dc->b->nruns);
		side_of(r, 1, cmp >= 0 ? &y[j] : NULL, dc->regions[1], dc->c->nruns);
		flag_row(r, d, dil, by_region);
		*changed += r->flags != 0;
		i += cmp <= 0;
		j += cmp >= 0;
	}
	qsort(v, n, sizeof(*v), cmp_row);
	*out_n = n;
	return v;
}

static void diff_case(const struct skip_diff *d, const struct skip_gate_case *b,
		      const struct skip_gate_case *c, struct skip_diff_case *dc)
{
	memset(dc, 0, sizeof(*dc));
	dc->b = b;
	dc->c = c;
	case_means(b, dc->mean[0], &dc->regions[0]);
	case_means(c, dc->mean[1], &dc->regions[1]);
	dc->verdict[0] = sk_gate_case_verdict(b);
	dc->verdict[1] = sk_gate_case_verdict(c);
	dc->kernels = rows(d, dc, b->kernels, b->nkernels, c->kernels, c->nkernels, 0,
			   &dc->nkernels, &dc->kernels_changed);
	dc->ops = rows(d, dc, b->ops, b->nops, c->ops, c->nops, 1, &dc->nops, &dc->ops_changed);
}

int skip_diff_compute(const struct skip_gate_side *base, const struct skip_gate_side *cand,
		      double threshold, double floor_ns, struct skip_diff **out)
{
	struct skip_diff *d;

	*out = NULL;
	if ((base->region == NULL) != (cand->region == NULL) ||
	    (base->region && strcmp(base->region, cand->region)))
		return sk_fail(SKIP_E_INVAL,
			       "the sides measure different regions (%s, %s): give both the same "
			       "--region",
			       base->region ? base->region : "whole runs",
			       cand->region ? cand->region : "whole runs");
	d = sk_xcalloc(1, sizeof(*d));
	d->base = base;
	d->cand = cand;
	d->threshold = threshold > 0 ? threshold : SKIP_DIFF_THRESHOLD;
	d->floor_ns = floor_ns >= 0 ? floor_ns : SKIP_GATE_FLOOR_NS;
	d->cases = sk_xcalloc(base->ncases + 1, sizeof(*d->cases));
	for (size_t i = 0; i < base->ncases; i++) {
		const struct skip_gate_case *c = sk_gate_case_find(cand, base->cases[i].key);

		if (c)
			diff_case(d, &base->cases[i], c, &d->cases[d->ncases++]);
	}
	if (!d->ncases) {
		skip_diff_free(d);
		return sk_fail(SKIP_E_INVAL,
			       "%s and %s have no case in common (runs with the same parameters): "
			       "nothing to compare",
			       base->path, cand->path);
	}
	*out = d;
	return 0;
}

void skip_diff_free(struct skip_diff *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->ncases; i++) {
		free(d->cases[i].kernels);
		free(d->cases[i].ops);
	}
	free(d->cases);
	free(d);
}

const char *skip_diff_flags_text(unsigned flags, char *buf, size_t n)
{
	static const char *const words[] = {"new", "gone", "slower", "faster", "more", "fewer"};
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]) && used < n; i++)
		if (flags & (1u << i))
			used += (size_t)snprintf(buf + used, n - used, "%s%s", used ? ", " : "",
						 words[i]);
	if (!flags)
		snprintf(buf, n, "same");
	return buf;
}
