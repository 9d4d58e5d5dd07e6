/*
 * drive.c: fz_drive_trace() (fuzz.h), the path a trace takes through `skip report` and
 * `skip advise`, for the targets that fuzz traces (fuzz_trace, fuzz_sql).
 */
#include <stdlib.h>

#include "fuzz.h"
#include "skip_advisor.h"
#include "skip_analyzer.h"

/* `skip report`'s sweep table: each run's timeline, replayed as a graph by the model. */
static void drive_timelines(struct skip_trace *t, const char *region)
{
	int64_t *runs = NULL, n = skip_trace_runs(t, &runs);

	for (int64_t i = 0; i < n && i < 8; i++) {
		struct skip_timeline *tl = NULL;
		struct skip_graph_prediction g;

		if (!skip_timeline_load(t, runs[i], region, &tl))
			skip_predict_graph(tl, NULL, 0, &g);
		skip_timeline_free(tl);
	}
	free(runs);
}

static void drive_report(struct skip_trace *t, const char *region)
{
	struct skip_analysis_opts o = {.region = region};
	struct skip_report *r = NULL;

	if (!skip_analyze(t, &o, &r))
		free(skip_report_json(r));
	skip_report_free(r);
	drive_timelines(t, region);
}

static void drive_advise(struct skip_trace *t, const char *region)
{
	struct skip_advise_opts o = {.region = region};
	struct skip_advice_report *r = NULL;

	if (!skip_advise(t, &o, &r))
		free(skip_advice_json(r));
	skip_advice_free(r);
}

void fz_drive_trace(const char *path)
{
	struct skip_trace *t = NULL;
	int64_t *runs = NULL;
	char **names = NULL;
	size_t nnames = 0;

	if (skip_trace_open(path, &t))
		return;
	drive_report(t, NULL);
	drive_advise(t, NULL);
	if (skip_trace_runs(t, &runs) > 0)
		nnames = skip_trace_repeated_ranges(t, runs[0], 2, 2, &names);
	for (size_t i = 0; i < nnames; i++) {
		drive_report(t, names[i]);
		drive_advise(t, names[i]);
		free(names[i]);
	}
	free(names);
	free(runs);
	skip_trace_close(t);
}
