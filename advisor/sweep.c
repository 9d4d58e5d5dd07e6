/*
 * sweep.c: skip_report_add_graph_gain(): for `skip report`'s sweep, the advisor's prediction
 * per parameter value of replaying each region as one CUDA graph and of running it as
 * persistent kernels, stored in the analyzer's
 * report (struct skip_graph_gains) so that its text, JSON and HTML print one table. The
 * analyzer cannot compute it itself: the model is the advisor's, and the advisor sits on top of
 * the analyzer.
 */
#define SK_LOG_DOMAIN "advisor"
#include <stdio.h>
#include <stdlib.h>

#include "skip_advisor.h"

/* The row of one sweep value: skip_predict_graph() on each of its runs, then the medians.
 * Returns 0 when none of its runs could be modelled (no row). */
static int value_row(struct skip_trace *t, const char *region, const struct skip_calibration *cal,
		     const struct skip_sweep_point *p, struct skip_graph_gain *row)
{
	size_t m = (size_t)p->runs + 1;
	double *v = sk_xcalloc(6 * m, sizeof(double));
	double *rec = v, *rep = v + m, *base = v + 2 * m, *gr = v + 3 * m, *err = v + 4 * m;
	double *pe = v + 5 * m;
	size_t n = 0, modes[SKIP_PERSIST_NMODES] = {0}, best = 0;

	for (int k = 0; k < p->runs; k++) {
		struct skip_timeline *tl = NULL;
		struct skip_graph_prediction g;

		/* A run that cannot be read, holds no occurrence of the region (it would be
		 * modelled whole) or launched nothing has no prediction: left out. */
		if (!skip_timeline_load(t, p->run_ids[k], region, &tl) &&
		    (!region || tl->nwindows) && !skip_predict_graph(tl, cal, 0, &g)) {
			rec[n] = g.recorded_ns;
			rep[n] = g.replay_ns;
			base[n] = g.baseline_ns;
			gr[n] = g.graph_ns;
			pe[n] = g.persist_ns;
			modes[g.persist_mode >= 0 ? g.persist_mode : 0]++;
			err[n++] = g.calibration_error;
		}
		skip_timeline_free(tl);
	}
	if (n) {
		row->value = p->value;
		row->runs = (int)n;
		row->il_ns = skip_median(rec, n);
		row->model_ns = skip_median(rep, n);
		row->calibration_error = skip_median(err, n);
		row->unprofiled_ns = skip_median(base, n);
		row->graph_ns = skip_median(gr, n);
		row->gain = row->graph_ns > 0 ? row->unprofiled_ns / row->graph_ns : 0;
		row->persist_ns = skip_median(pe, n);
		row->persist_gain = row->persist_ns > 0 ? row->unprofiled_ns / row->persist_ns : 0;
		for (size_t k = 1; k < SKIP_PERSIST_NMODES; k++)
			best = modes[k] > modes[best] ? k : best;
		snprintf(row->persist_mode, sizeof(row->persist_mode), "%s",
			 skip_persist_mode_name((int)best));
	}
	free(v);
	return n > 0;
}

int skip_report_add_graph_gain(struct skip_trace *t, const struct skip_analysis_opts *o,
			       const struct skip_calibration *cal, struct skip_report *r)
{
	struct skip_sweep *s = r->sweep;
	struct skip_graph_gains *g;
	int err = cal ? skip_calibration_check(cal) : 0;

	if (err)
		return err;
	if (!s)
		return 0;
	g = sk_xcalloc(1, sizeof(*g));
	g->rows = sk_xcalloc(s->npts + 1, sizeof(*g->rows));
	for (size_t i = 0; i < s->npts; i++)
		g->nrows += (size_t)value_row(t, o->region, cal, &s->pts[i], &g->rows[g->nrows]);
	if (s->graph)
		free(s->graph->rows);
	free(s->graph);
	s->graph = g;
	return 0;
}
