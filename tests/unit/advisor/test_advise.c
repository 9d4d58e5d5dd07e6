/*
 * test_advise.c: skip_advise() on hand-built traces whose answers are computed by hand in
 * tests/fixtures/hand/advise_*.sql: proximity scores (sync splits, overlapping windows), the
 * model's calibration and its graph and fusion predictions, the workload executors' models and
 * the plan they write (validated against schemas/plan.schema.json and by the runtime), and the
 * errors for bad input; calibrations at and beyond their bounds, a member not measured (the
 * fallback rule), and traces with malformed records (tests/fixtures/hand/malformed.sql).
 */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hand.h"
#include "advisor/internal.h"
#include "skip_advisor.h"
#include "skip_runtime.h"
#include "unit/scratch.h"

static char dir[] = "/tmp/skip-adv-XXXXXX";

static void setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void)
{
	sk_scratch_remove(dir);
}

TestSuite(advise, .init = setup, .fini = teardown);

static const struct skip_chain *find_chain(const struct skip_advice_report *r, const char *names)
{
	for (size_t i = 0; i < r->nchains; i++) {
		char buf[256] = "";

		for (int k = 0; k < r->chains[i].len; k++) {
			strcat(buf, k ? "-" : "");
			strcat(buf, r->chains[i].names[k]);
		}
		if (!strcmp(buf, names))
			return &r->chains[i];
	}
	return NULL;
}

static struct skip_advice_report *advise(struct skip_trace *t, struct skip_advise_opts *o)
{
	struct skip_advice_report *r = NULL;

	cr_assert_eq(skip_advise(t, o, &r), 0, "%s", skip_errmsg());
	return r;
}

Test(advise, proximity_scores_default_keep_ps_1)
{
	struct skip_trace *t = hand_trace(dir, "advise_chains");
	struct skip_advise_opts o = {.min_len = 2, .max_len = 3};
	struct skip_advice_report *r = advise(t, &o);

	/* PS >= 1.0: only kA-kB (3 of kA's 3 launches); kC-kA would be 2/2 across the sync */
	cr_assert_eq(r->nchains, 1);
	cr_expect_str_eq(r->chains[0].names[0], "kA");
	cr_expect_str_eq(r->chains[0].names[1], "kB");
	cr_expect_eq(r->chains[0].count, 3);
	cr_expect_eq(r->chains[0].head_launches, 3);
	cr_expect_float_eq(r->chains[0].ps, 1.0, 1e-12);
	cr_expect_float_eq(r->chains[0].recoverable_ns, 6000, 1e-9);
	skip_advice_free(r);
	skip_trace_close(t);
}

Test(advise, proximity_scores_sync_split_and_overlaps)
{
	static const struct {
		const char *chain;
		int64_t count;
		double ps, recoverable;
	} want[] = {
	    {"kA-kB", 3, 1.0, 6000},	{"kB-kC", 2, 2.0 / 3, 4000},	{"kC-kA", 1, 0.5, 2000},
	    {"kX-kX", 3, 0.75, 6000},	{"kA-kB-kC", 2, 2.0 / 3, 8000}, {"kC-kA-kB", 1, 0.5, 4000},
	    {"kX-kX-kX", 2, 0.5, 8000},
	};
	struct skip_trace *t = hand_trace(dir, "advise_chains");
	struct skip_advise_opts o = {.min_len = 2, .max_len = 3, .min_ps = 0.5};
	struct skip_advice_report *r = advise(t, &o);

	cr_expect_eq(r->nchains, sizeof(want) / sizeof(want[0]), "chains with PS >= 0.5");
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct skip_chain *c = find_chain(r, want[i].chain);

		cr_assert_not_null(c, "%s missing", want[i].chain);
		cr_expect_eq(c->count, want[i].count, "%s", want[i].chain);
		cr_expect_float_eq(c->ps, want[i].ps, 1e-12, "%s", want[i].chain);
		cr_expect_float_eq(c->recoverable_ns, want[i].recoverable, 1e-9, "%s",
				   want[i].chain);
	}
	cr_expect_null(find_chain(r, "kB-kD"), "PS 1/3");
	cr_expect_null(find_chain(r, "kB-kC-kA"), "PS 1/3");
	for (size_t i = 1; i < r->nchains; i++)
		cr_expect_geq(r->chains[i - 1].recoverable_ns, r->chains[i].recoverable_ns);
	skip_advice_free(r);
	skip_trace_close(t);
}

/* A kernel's first launch (its code loads then) is a one-time cost: a chain whose only
 * occurrence removes first launches recovers nothing (advise_firsts.sql has the answers). */
/* Chains as windows of one sequence: they overlap where, aligned, they agree on two kernels
 * or more wherever both have one. */
static int overlap(int32_t *a, int na, int32_t *b, int nb)
{
	struct skip_chain x = {.len = na, .ids = a}, y = {.len = nb, .ids = b};

	cr_expect_eq(sk_chains_overlap(&x, &y), sk_chains_overlap(&y, &x), "symmetric");
	return sk_chains_overlap(&x, &y);
}

Test(advise, fusion_chains_that_share_kernels_overlap)
{
	cr_expect(overlap((int32_t[]){1, 2, 3, 4, 5}, 5, (int32_t[]){2, 3, 4}, 3), "inside");
	cr_expect(overlap((int32_t[]){1, 2, 3, 4}, 4, (int32_t[]){3, 4, 5, 6}, 4), "end, start");
	cr_expect(overlap((int32_t[]){7, 8}, 2, (int32_t[]){7, 8}, 2), "the same");
	cr_expect(overlap((int32_t[]){1, 2, 1, 2}, 4, (int32_t[]){2, 1}, 2), "repeats");
	cr_expect(!overlap((int32_t[]){1, 2, 3, 4}, 4, (int32_t[]){4, 5, 6}, 3), "one kernel");
	cr_expect(!overlap((int32_t[]){1, 2, 3}, 3, (int32_t[]){3, 2, 1}, 3), "reversed");
	cr_expect(!overlap((int32_t[]){1, 2, 3, 4}, 4, (int32_t[]){2, 9, 4}, 3), "a gap");
	cr_expect(!overlap((int32_t[]){1, 2}, 2, (int32_t[]){3, 4}, 2), "apart");
}

Test(advise, first_launches_are_left_out_of_the_recoverable_time)
{
	struct skip_trace *t = hand_trace(dir, "advise_firsts");
	struct skip_advise_opts o = {.min_len = 2, .max_len = 2, .min_ps = 0.5};
	struct skip_advice_report *r = advise(t, &o);
	const struct skip_chain *cd = find_chain(r, "kC-kD"), *dc = find_chain(r, "kD-kC");
	const struct skip_chain *ab = find_chain(r, "kA-kB"), *bc = find_chain(r, "kB-kC");

	cr_assert(cd && dc && ab && bc);
	cr_expect_eq(cd->count, 3);
	cr_expect_float_eq(cd->recoverable_ns, 6000, 1e-9);
	cr_expect_eq(dc->count, 2);
	cr_expect_float_eq(dc->recoverable_ns, 4000, 1e-9);
	cr_expect_float_eq(ab->recoverable_ns, 0, 1e-9, "kB's only launch is its first");
	cr_expect_float_eq(bc->recoverable_ns, 0, 1e-9);
	cr_expect_str_eq(r->chains[0].names[0], "kC", "kC-kD ranks first");
	cr_expect_eq(r->fusion_no_gain, 2, "kA-kB and kB-kC fuse nothing: no item");
	for (size_t i = 0; i < r->nitems; i++)
		cr_expect(r->items[i].kind != SKIP_ADVICE_FUSION || r->items[i].saved_ns > 0);
	skip_advice_free(r);
	skip_trace_close(t);
}

/* Without --region, a sequence repeated between synchronizations is a graph candidate unless
 * the host spends over 100 us an operation between its launches (advise_period*.sql). */
Test(advise, a_repeated_sequence_with_slow_host_work_is_no_graph_candidate)
{
	const char *more[] = {NULL, "advise_period_slow"};

	for (int i = 0; i < 2; i++) {
		struct skip_trace *t = hand_trace_more(dir, "advise_period", more[i]);
		struct skip_advise_opts o = {0};
		struct skip_advice_report *r = advise(t, &o);
		int found = 0;

		for (size_t k = 0; k < r->nitems; k++)
			found |=
			    r->items[k].kind == SKIP_ADVICE_GRAPH &&
			    strstr(r->items[k].title, "the repeated sequence of 2 operations") &&
			    strstr(r->items[k].title, "(3 occurrences");
		cr_expect_eq(found, i == 0, "%s", more[i] ? more[i] : "advise_period");
		skip_advice_free(r);
		skip_trace_close(t);
	}
}

/* Without --region the NVTX ranges that last longest in all are the graph candidates, each
 * where an occurrence holds two operations or more (advise_ranges.sql has the answers). */
Test(advise, graph_candidates_are_the_longest_ranges_of_two_operations_or_more)
{
	struct skip_trace *t = hand_trace(dir, "advise_ranges");
	struct skip_advise_opts o = {0};
	struct skip_advice_report *r;
	char **names = NULL;
	size_t n = skip_trace_repeated_ranges(t, 1, 2, 3, &names);
	int step = 0, op = 0;

	cr_assert_eq(n, 2);
	cr_expect_str_eq(names[0], "step", "12000 ns in all against 6800");
	cr_expect_str_eq(names[1], "op");
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	r = advise(t, &o);
	for (size_t k = 0; k < r->nitems; k++) {
		step += r->items[k].kind == SKIP_ADVICE_GRAPH &&
			strstr(r->items[k].title, "NVTX region 'step'") != NULL;
		op += strstr(r->items[k].title, "'op'") != NULL;
	}
	cr_expect_eq(step, 1);
	cr_expect_eq(op, 0, "one operation an occurrence: no candidate");
	skip_advice_free(r);
	skip_trace_close(t);
}

static const struct skip_advice *find_item(const struct skip_advice_report *r,
					   enum skip_advice_kind k)
{
	for (size_t i = 0; i < r->nitems; i++)
		if (r->items[i].kind == k)
			return &r->items[i];
	return NULL;
}

/* The calibration advise_model.sql's answers use. */
static void model_cal(struct skip_advise_opts *o)
{
	skip_calibration_default(&o->cal);
	o->cal.graph_launch_ns = 4000;
	o->cal.graph_first_ns = 4188;
	o->cal.graph_node_gap_ns = 91;
	o->cal.graph_launch_node_ns = 0;
	o->cal.graph_dispatch_ns = 0;
	o->cal.profiler_launch_ns = 1900;
	o->cal.stream_gap_ns = 600; /* the trace has no back-to-back kernels to read it off */
}

Test(advise, model_reproduces_and_predicts_graph_and_fusion)
{
	struct skip_trace *t = hand_trace(dir, "advise_model");
	struct skip_advise_opts o = {.region = "step", .min_len = 2, .max_len = 2, .profiled = 1};
	struct skip_advice_report *r;

	model_cal(&o);
	r = advise(t, &o);
	const struct skip_advice *g = find_item(r, SKIP_ADVICE_GRAPH);
	const struct skip_advice *f = find_item(r, SKIP_ADVICE_FUSION);

	cr_expect_eq(r->regions, 1);
	cr_expect_float_eq(r->recorded_il_ns, 18000, 1e-9);
	cr_expect_float_eq(r->replay_il_ns, 18000, 1e-9);
	cr_expect_float_eq(r->calibration_error, 0, 1e-12);
	cr_expect_float_eq(r->launch_latency_ns, 2000, 1e-9);
	cr_assert_not_null(g);
	cr_expect_float_eq(g->baseline_il_ns, 18000, 1e-9);
	cr_expect_float_eq(g->predicted_il_ns, 12461, 1e-9, "4000 + 4188 + 1000 + 3 x 1091");
	cr_expect_float_eq(g->speedup, 18000.0 / 12461, 1e-9);
	cr_assert_not_null(f);
	cr_expect_float_eq(f->predicted_il_ns, 15000, 1e-9, "kB's first launch stays unfused");
	cr_expect_eq(r->best_plan, -1, "no executable plan without a workload");
	cr_expect_null(skip_advice_plan(r));
	skip_advice_free(r);
	skip_trace_close(t);
}

/* advise_persist.sql's calibration (its header has the answers). */
static void persist_cal(struct skip_advise_opts *o)
{
	skip_calibration_default(&o->cal);
	o->cal.persist_launch_ns = 4000;
	o->cal.persist_epoch_ns = 1000;
	o->cal.persist_aot_task_ns = 600;
	o->cal.persist_jit_task_ns = 1300;
	o->cal.persist_copilot_task_ns = 3500;
	o->cal.sync_idle_ns = 500;
	o->cal.stream_gap_ns = 600;
}

static void expect_persist(struct skip_trace *t, int64_t run,
			   const double want[SKIP_PERSIST_NMODES])
{
	struct skip_advise_opts o = {.region = "step", .run_id = run, .profiled = 1};
	struct skip_advice_report *r;
	const struct skip_advice *p;

	persist_cal(&o);
	r = advise(t, &o);
	p = find_item(r, SKIP_ADVICE_PERSIST);
	cr_expect_float_eq(r->recorded_il_ns, 190000, 1e-9);
	cr_expect_float_eq(r->replay_il_ns, 190000, 1e-9);
	cr_assert_not_null(p);
	cr_expect_float_eq(p->baseline_il_ns, 190000, 1e-9);
	for (int m = 0; m < SKIP_PERSIST_NMODES; m++)
		cr_expect_float_eq(p->persist_il_ns[m], want[m], 1e-9, "run %lld, %s",
				   (long long)run, skip_persist_mode_name(m));
	cr_expect_eq(p->persist_mode, SKIP_PERSIST_AOT);
	cr_expect_float_eq(p->predicted_il_ns, want[SKIP_PERSIST_AOT], 1e-9);
	cr_expect_float_eq(p->speedup, 190000 / want[SKIP_PERSIST_AOT], 1e-9);
	cr_expect_not_null(strstr(p->title, "mode aot"), "%s", p->title);
	cr_expect_not_null(strstr(p->assumptions, "recorded duration"), "%s", p->assumptions);
	skip_advice_free(r);
}

Test(advise, persistent_chain_by_hand)
{
	static const double one[] = {63000, 70000, 92000};    /* 57000 + 10 c */
	static const double split[] = {80000, 87000, 109000}; /* 74000 + 10 c */

	struct skip_trace *t = hand_trace(dir, "advise_persist");

	expect_persist(t, 1, one);
	expect_persist(t, 2, split);
	skip_trace_close(t);
}

/* advise_persist_threads.sql: launches from two threads of the process (PyTorch's backward
 * comes from its autograd thread) go into one persistent kernel, as into one graph. */
Test(advise, persistent_takes_every_thread_s_launches)
{
	static const double one[] = {63000, 70000, 92000}; /* run 1's: 57000 + 10 c */
	struct skip_trace *t = hand_trace_more(dir, "advise_persist", "advise_persist_threads");

	expect_persist(t, 3, one);
	skip_trace_close(t);
}

/* advise_persist_preamble.sql: the host time before the first persistent kernel's launch (the
 * replaced code's own) goes, as for a graph; it stays in the time now. */
Test(advise, persistent_drops_the_host_time_before_the_first_launch)
{
	static const double want[] = {63000, 70000, 92000}; /* 57000 + 10 c, from 500 */
	struct skip_trace *t = hand_trace_more(dir, "advise_persist", "advise_persist_preamble");
	struct skip_advise_opts o = {.region = "step", .run_id = 1, .profiled = 1};
	struct skip_advice_report *r;
	const struct skip_advice *p;

	persist_cal(&o);
	r = advise(t, &o);
	cr_expect_float_eq(r->recorded_il_ns, 190500, 1e-9);
	cr_expect_float_eq(r->calibration_error, 0, 1e-12);
	p = find_item(r, SKIP_ADVICE_PERSIST);
	cr_assert_not_null(p);
	cr_expect_float_eq(p->baseline_il_ns, 190500, 1e-9);
	for (int m = 0; m < SKIP_PERSIST_NMODES; m++)
		cr_expect_float_eq(p->persist_il_ns[m], want[m], 1e-9, "%s",
				   skip_persist_mode_name(m));
	skip_advice_free(r);
	skip_trace_close(t);
}

Test(advise, persistent_mode_follows_the_calibration)
{
	struct skip_trace *t = hand_trace(dir, "advise_persist");
	struct skip_advise_opts o = {.region = "step", .run_id = 1, .profiled = 1};
	struct skip_advice_report *r;
	const struct skip_advice *p;

	persist_cal(&o);
	o.cal.persist_aot_task_ns = 2000; /* 77000: JIT's 70000 wins */
	r = advise(t, &o);
	p = find_item(r, SKIP_ADVICE_PERSIST);
	cr_assert_not_null(p);
	cr_expect_eq(p->persist_mode, SKIP_PERSIST_JIT);
	cr_expect_float_eq(p->persist_il_ns[SKIP_PERSIST_AOT], 77000, 1e-9);
	cr_expect_float_eq(p->predicted_il_ns, 70000, 1e-9);
	skip_advice_free(r);
	skip_trace_close(t);
}

Test(advise, region_runs_are_pooled)
{
	struct skip_trace *t = hand_trace_more(dir, "advise_model", "advise_model_runs");
	struct skip_advise_opts o = {.region = "step", .min_len = 2, .max_len = 2, .profiled = 1};
	struct skip_advice_report *r;
	const struct skip_advice *g;
	const struct skip_chain *c;

	model_cal(&o);
	r = advise(t, &o);
	cr_expect_eq(r->runs, 3, "run 4 has another parameter: not a repetition");
	cr_expect_eq(r->regions, 3);
	cr_expect_float_eq(r->recorded_il_ns, 22000, 1e-9);
	cr_expect_float_eq(r->calibration_error, 0, 1e-12);
	g = find_item(r, SKIP_ADVICE_GRAPH);
	cr_assert_not_null(g);
	cr_expect_float_eq(g->baseline_il_ns, 22000, 1e-9);
	cr_expect_float_eq(g->predicted_il_ns, 12461, 1e-9);
	cr_expect_float_eq(g->speedup, 22000.0 / 12461, 1e-9);
	/* the chains are counted over the pooled runs: kA-kB twice in each of runs 1-3, its kB
	 * launched by calls of 3000 ns in run 1 and 4000 ns in runs 2 and 3; kB-kA once in each,
	 * against 6 launches of kB (PS 1/2, dropped) */
	c = find_chain(r, "kA-kB");
	cr_assert_not_null(c);
	cr_expect_eq(c->count, 6);
	cr_expect_eq(c->head_launches, 6);
	cr_expect_float_eq(c->ps, 1.0, 1e-12);
	cr_expect_float_eq(c->launch_ns, (2 * 3000 + 4 * 4000) / 6.0, 1e-9);
	cr_expect_float_eq(c->recoverable_ns, 22000, 1e-9);
	cr_expect_null(find_chain(r, "kB-kA"), "PS 3/6");
	skip_advice_free(r);
	o.run_id = 4;
	r = advise(t, &o);
	cr_expect_eq(r->runs, 1);
	cr_expect_eq(r->regions, 1);
	g = find_item(r, SKIP_ADVICE_GRAPH);
	cr_assert_not_null(g);
	cr_expect_float_eq(g->baseline_il_ns, 14000, 1e-9);
	c = find_chain(r, "kA-kB"); /* run 4 alone: calls of 2000 ns */
	cr_assert_not_null(c);
	cr_expect_eq(c->count, 2);
	cr_expect_eq(c->head_launches, 2);
	cr_expect_float_eq(c->recoverable_ns, 4000, 1e-9);
	skip_advice_free(r);
	skip_trace_close(t);
}

Test(advise, unprofiled_baseline_takes_the_profiler_out)
{
	struct skip_trace *t = hand_trace(dir, "advise_model");
	struct skip_advise_opts o = {.region = "step", .min_len = 2, .max_len = 2};
	struct skip_advice_report *r;

	model_cal(&o);
	r = advise(t, &o);
	const struct skip_advice *g = find_item(r, SKIP_ADVICE_GRAPH);

	cr_assert_not_null(g);
	cr_expect_float_eq(g->baseline_il_ns, 10400, 1e-9, "calls of 3000 - 1900");
	cr_expect_float_eq(g->predicted_il_ns, 12461, 1e-9);
	cr_expect_lt(g->speedup, 1.0, "a graph does not pay off on this short chain");
	skip_advice_free(r);
	skip_trace_close(t);
}

/* advise_model_preamble.sql: the region's host time before its first launch is not repeated by
 * the graph (the captured code's own), and stays in the time now. */
Test(advise, graph_drops_the_host_time_before_the_first_launch)
{
	struct skip_trace *t = hand_trace_more(dir, "advise_model", "advise_model_preamble");
	struct skip_advise_opts o = {.region = "step", .min_len = 2, .max_len = 2, .profiled = 1};
	struct skip_advice_report *r;
	const struct skip_advice *g;

	model_cal(&o);
	r = advise(t, &o);
	cr_expect_float_eq(r->recorded_il_ns, 18500, 1e-9);
	cr_expect_float_eq(r->calibration_error, 0, 1e-12);
	g = find_item(r, SKIP_ADVICE_GRAPH);
	cr_assert_not_null(g);
	cr_expect_float_eq(g->baseline_il_ns, 18500, 1e-9);
	cr_expect_float_eq(g->predicted_il_ns, 12461, 1e-9,
			   "4000 + 4188 + 1000 + 3 x 1091, from 500");
	skip_advice_free(r);
	o.profiled = 0;
	r = advise(t, &o);
	g = find_item(r, SKIP_ADVICE_GRAPH);
	cr_assert_not_null(g);
	cr_expect_float_eq(g->baseline_il_ns, 10900, 1e-9, "the 500 ns before the first call stay");
	cr_expect_float_eq(g->predicted_il_ns, 12461, 1e-9);
	skip_advice_free(r);
	skip_trace_close(t);
}

/* advise_memset.sql: a memset node under 16 KiB costs the graph graph_memset_gap_ns more. */
Test(advise, graph_small_memset_node_costs_the_memset_gap)
{
	struct skip_trace *t = hand_trace(dir, "advise_memset");
	struct skip_advise_opts o = {.region = "step", .min_len = 2, .max_len = 2, .profiled = 1};
	const double want[] = {13370, 11370};

	model_cal(&o);
	o.cal.graph_memset_gap_ns = 2000;
	for (int run = 1; run <= 2; run++) {
		struct skip_advice_report *r;
		const struct skip_advice *g;

		o.run_id = run;
		r = advise(t, &o);
		cr_expect_float_eq(r->recorded_il_ns, 14000, 1e-9);
		cr_expect_float_eq(r->calibration_error, 0, 1e-12);
		g = find_item(r, SKIP_ADVICE_GRAPH);
		cr_assert_not_null(g);
		cr_expect_float_eq(g->predicted_il_ns, want[run - 1], 1e-9, "run %d", run);
		skip_advice_free(r);
	}
	skip_trace_close(t);
}

/* advise_launch_loop.sql: the profiler's cost per launch estimated per recording from its
 * back-to-back launches against launch_bare_ns, and the fixed one where it cannot be. */
Test(advise, profiler_cost_per_recording)
{
	struct skip_trace *t = hand_trace(dir, "advise_launch_loop");
	struct skip_advise_opts o = {.region = "step", .min_len = 2, .max_len = 2, .run_id = 1};
	struct skip_advice_report *r;
	const struct skip_advice *g;

	model_cal(&o);
	o.cal.launch_bare_ns = 4000;
	r = advise(t, &o);
	cr_expect_float_eq(r->calibration_error, 0, 1e-12);
	g = find_item(r, SKIP_ADVICE_GRAPH);
	cr_assert_not_null(g);
	cr_expect_float_eq(g->baseline_il_ns, 82500, 1e-9, "calls of 5000 - (5500 - 4000)");
	cr_expect_float_eq(r->profiler_launch_ns, 1500, 1e-9);
	skip_advice_free(r);
	o.cal.launch_bare_ns = 0;
	r = advise(t, &o);
	g = find_item(r, SKIP_ADVICE_GRAPH);
	cr_assert_not_null(g);
	cr_expect_float_eq(g->baseline_il_ns, 74500, 1e-9, "calls of 5000 - 1900");
	skip_advice_free(r);
	o.cal.launch_bare_ns = 4000;
	o.run_id = 2;
	r = advise(t, &o);
	g = find_item(r, SKIP_ADVICE_GRAPH);
	cr_assert_not_null(g);
	cr_expect_float_eq(g->baseline_il_ns, 122000, 1e-9, "no back-to-back launches: 1900");
	cr_expect_float_eq(r->profiler_launch_ns, -1, 1e-9);
	skip_advice_free(r);
	o.run_id = 3;
	r = advise(t, &o);
	cr_expect_float_eq(r->profiler_launch_ns, -1, 1e-9, "16 back-to-back launches of 37");
	skip_advice_free(r);
	skip_trace_close(t);
}

static void wl_cal(struct skip_advise_opts *o)
{
	skip_calibration_default(&o->cal);
	o->cal.graph_launch_ns = 3000;
	o->cal.graph_first_ns = 2500;
	o->cal.graph_node_gap_ns = 100;
	o->cal.event_record_ns = 1000;
	o->cal.stream_wait_ns = 1000;
	o->cal.sync_idle_ns = 1000;
	o->cal.profiler_launch_ns = 1000;
	o->cal.stream_switch_ns = 500;
	o->cal.graph_launch_node_ns = 200;
	o->cal.graph_dispatch_ns = 300;
	o->cal.remote_read_cost = 0;   /* workload_remote_reads adds it */
	o->cal.graph_root_join_ns = 0; /* workload_root_join adds it */
	o->cal.runtime_launch_ns = 0;  /* workload_bare_launches adds them */
	o->cal.stream_gap_bare_ns = 0;
}

Test(advise, workload_executors)
{
	struct skip_trace *t = hand_trace(dir, "advise_wl");
	struct skip_advise_opts o = {.workload = "tests/fixtures/hand/advise_wl.json"};
	struct skip_advice_report *r;
	const struct skip_advice *e2, *e3;

	wl_cal(&o);
	r = advise(t, &o);
	cr_expect_str_eq(r->workload, "fork");
	cr_expect_eq(r->regions, 3, "iterations");
	cr_expect_float_eq(r->recorded_il_ns, 19700, 1e-9);
	cr_expect_float_eq(r->replay_il_ns, 19700, 1e-9);
	cr_expect_float_eq(r->calibration_error, 0, 1e-12);
	cr_expect_float_eq(r->stream_gap_ns, 600, 1e-9);
	cr_expect_float_eq(r->sync_return_ns, 1500, 1e-9);
	e2 = find_item(r, SKIP_ADVICE_STREAMS);
	e3 = find_item(r, SKIP_ADVICE_DAGGRAPH);
	cr_assert_not_null(e2);
	cr_assert_not_null(e3);
	cr_expect_float_eq(e2->baseline_il_ns, 18700, 1e-9);
	cr_expect_float_eq(e2->predicted_il_ns, 20000, 1e-9);
	cr_expect_float_eq(e3->predicted_il_ns, 15800, 1e-9);
	cr_expect_float_eq(e3->speedup, 18700.0 / 15800, 1e-9);
	cr_assert_geq(r->best_plan, 0);
	cr_expect_eq(r->items[r->best_plan].kind, SKIP_ADVICE_DAGGRAPH);
	skip_advice_free(r);
	skip_trace_close(t);
}

Test(advise, a_persistent_plan_is_taken_only_when_more_than_the_margin_faster)
{
	char graph[] = "{}", e5[] = "{}";
	struct skip_advice it[3] = {
	    {.kind = SKIP_ADVICE_STREAMS, .speedup = 1.10, .plan_json = graph},
	    {.kind = SKIP_ADVICE_DAGGRAPH, .speedup = 1.20, .plan_json = graph},
	    {.kind = SKIP_ADVICE_PERSIST, .speedup = 1.30, .plan_json = e5},
	};
	char *note = NULL;

	/* 1.30 < 1.20 x 1.15 = 1.38: the graph, with a note */
	cr_expect_eq(sk_pick_plan(it, 3, 0.15, &note), 1);
	cr_assert_not_null(note);
	cr_expect(strstr(note, "the plan is dag-graph (1.20x), not persistent (1.30x)"), "%s",
		  note);
	free(note);
	it[2].speedup = 1.40; /* > 1.38 */
	cr_expect_eq(sk_pick_plan(it, 3, 0.15, &note), 2);
	cr_expect_null(note);
	it[2].speedup = 1.05; /* slower: the graph, nothing to say */
	cr_expect_eq(sk_pick_plan(it, 3, 0.15, &note), 1);
	cr_expect_null(note);
	it[2].speedup = 1.30;
	cr_expect_eq(sk_pick_plan(it, 3, 0, &note), 2, "no margin: the fastest");
	cr_expect_eq(sk_pick_plan(it + 2, 1, 0.15, &note), 0, "persistent alone is the plan");
	it[1].plan_json = NULL; /* an item without a plan is never the plan */
	cr_expect_eq(sk_pick_plan(it, 2, 0.15, &note), 0);
	cr_expect_eq(sk_pick_plan(it, 0, 0.15, &note), -1);
}

Test(advise, workload_runs_are_pooled)
{
	struct skip_trace *t = hand_trace_more(dir, "advise_wl", "advise_wl_run2");
	struct skip_advise_opts o = {.workload = "tests/fixtures/hand/advise_wl.json"};
	struct skip_advice_report *r;
	const struct skip_advice *e3;

	wl_cal(&o);
	r = advise(t, &o);
	cr_expect_eq(r->runs, 2);
	cr_expect_eq(r->regions, 7, "3 + 4 iterations");
	cr_expect_float_eq(r->recorded_il_ns, 20700, 1e-9);
	cr_expect_float_eq(r->calibration_error, 0, 1e-12);
	e3 = find_item(r, SKIP_ADVICE_DAGGRAPH);
	cr_assert_not_null(e3);
	cr_expect_float_eq(e3->baseline_il_ns, 19700, 1e-9);
	cr_expect_float_eq(e3->predicted_il_ns, 16800, 1e-9);
	skip_advice_free(r);
	o.run_id = 1; /* one run: no pooling */
	r = advise(t, &o);
	cr_expect_eq(r->runs, 1);
	cr_expect_eq(r->regions, 3);
	e3 = find_item(r, SKIP_ADVICE_DAGGRAPH);
	cr_assert_not_null(e3);
	cr_expect_float_eq(e3->baseline_il_ns, 18700, 1e-9);
	cr_expect_float_eq(e3->predicted_il_ns, 15800, 1e-9);
	skip_advice_free(r);
	skip_trace_close(t);
}

/* advise_wl.sql with wl_cal() plus the calibration of @c (its header has the answers): the
 * profiled replay stays; the serial baseline, E2 and E3 are checked. */
struct wl_case {
	double remote, join, runtime_launch, stream_gap_bare;
	double base, e2, e3; /* the answers */
};

static void wl_with(struct wl_case c)
{
	struct skip_trace *t = hand_trace(dir, "advise_wl");
	struct skip_advise_opts o = {.workload = "tests/fixtures/hand/advise_wl.json"};
	struct skip_advice_report *r;
	const struct skip_advice *e2, *e3;

	wl_cal(&o);
	o.cal.remote_read_cost = c.remote;
	o.cal.graph_root_join_ns = c.join;
	o.cal.runtime_launch_ns = c.runtime_launch;
	o.cal.stream_gap_bare_ns = c.stream_gap_bare;
	r = advise(t, &o);
	e2 = find_item(r, SKIP_ADVICE_STREAMS);
	e3 = find_item(r, SKIP_ADVICE_DAGGRAPH);
	cr_assert_not_null(e2);
	cr_assert_not_null(e3);
	cr_expect_float_eq(r->replay_il_ns, 19700, 1e-9, "the recording's calls, local reads");
	cr_expect_float_eq(e2->baseline_il_ns, c.base, 1e-9);
	cr_expect_float_eq(e2->predicted_il_ns, c.e2, 1e-9);
	cr_expect_float_eq(e3->predicted_il_ns, c.e3, 1e-9);
	skip_advice_free(r);
	skip_trace_close(t);
}

Test(advise, workload_root_join)
{
	/* c joins roots a and b: 1000 later; E2 has no graph */
	wl_with((struct wl_case){.join = 1000, .base = 18700, .e2 = 20000, .e3 = 16800});
}

Test(advise, workload_remote_reads)
{
	/* c of 5000 on SM 0, y written on SM 1 */
	wl_with((struct wl_case){.remote = 0.5, .base = 18700, .e2 = 21000, .e3 = 16800});
}

Test(advise, workload_bare_launches)
{
	/* E1: a launch and the gap before it take 2500: calls 0-2500, 3000-5000, 5500-7500, the
	 * sync from 8000; kernels 300 apart: a 4500-8500, b 8800-12800, c 13100-17100; the sync
	 * returns 18600.
	 * E2: a 0-2500; b 3000-5500 (2000 + 500 onto another stream); record 6000-7000; wait
	 * 7500-8500; c 9000-11500; kernels a 4500-8500, b 7500-11500, c at 11500 + 2000 =
	 * 13500-17500 (after b + 300); stream 0's sync (from 12000) returns 19000, stream 1's
	 * (from 19500, 1000) at 20500.
	 * E3 has no launch per kernel and no stream gap: as in workload_executors. */
	wl_with((struct wl_case){.runtime_launch = 2500,
				 .stream_gap_bare = 300,
				 .base = 18600,
				 .e2 = 20500,
				 .e3 = 15800});
}

/* The fallback rule (skip_advisor.h): sm_share_rate 0 is not measured, so sharing a
 * multiprocessor costs nothing, as at 1. */
Test(advise, an_unmeasured_share_rate_is_full_pace)
{
	struct skip_trace *t = hand_trace(dir, "advise_wl");
	struct skip_advise_opts o = {.workload = "tests/fixtures/hand/advise_wl.json"};
	double pred[2];

	for (int i = 0; i < 2; i++) {
		struct skip_advice_report *r;
		const struct skip_advice *e3;

		wl_cal(&o);
		o.cal.sm_share_rate = i;
		r = advise(t, &o);
		e3 = find_item(r, SKIP_ADVICE_DAGGRAPH);
		cr_assert_not_null(e3);
		cr_expect_not_null(strstr(e3->assumptions, "progresses at 100% of its pace"), "%s",
				   e3->assumptions);
		pred[i] = e3->predicted_il_ns;
		skip_advice_free(r);
	}
	cr_expect_float_eq(pred[0], pred[1], 1e-9);
	skip_trace_close(t);
}

Test(advise, workload_start_costs)
{
	struct skip_trace *t = hand_trace(dir, "advise_wl");
	static const char *const tasks[] = {"a"}, *const bad[] = {"q"};
	static const double cost[] = {1000};
	struct skip_advise_opts o = {.workload = "tests/fixtures/hand/advise_wl.json",
				     .start_tasks = tasks,
				     .start_costs_ns = cost,
				     .nstarts = 1,
				     .starts_workload = "fork"};
	struct skip_advice_report *r = NULL;
	const struct skip_advice *e3;

	/* E3: b starts 300 after a, which costs a min(1000, 300): a ends 10200 with b, so c still
	 * starts at 10300 and the sync returns 15800 (16500 were the cost not capped) */
	wl_cal(&o);
	r = advise(t, &o);
	e3 = find_item(r, SKIP_ADVICE_DAGGRAPH);
	cr_assert_not_null(e3);
	cr_expect_float_eq(e3->predicted_il_ns, 15800, 1e-9);
	cr_expect_not_null(strstr(e3->assumptions, "(a 1000 ns; the others nothing)"), "%s",
			   e3->assumptions);
	skip_advice_free(r);
	r = NULL;
	o.starts_workload = "other";
	cr_expect_eq(skip_advise(t, &o, &r), SKIP_E_INVAL);
	cr_expect_not_null(strstr(skip_errmsg(), "probe of workload 'other', not of 'fork'"), "%s",
			   skip_errmsg());
	o.starts_workload = NULL;
	o.start_tasks = bad;
	cr_expect_eq(skip_advise(t, &o, &r), SKIP_E_INVAL);
	cr_expect_not_null(strstr(skip_errmsg(), "task 'q', which workload 'fork' lacks"), "%s",
			   skip_errmsg());
	cr_expect_null(r);
	skip_trace_close(t);
}

/* The persistent item of advise_wl (a and b, then c; every kernel 4000 ns, the sync returning
 * 1500 after the GPU's last end), by hand, with a launch of 4000, a barrier of 1000 and per-task
 * costs of 600 (aot) and 1300 (jit), on 132 workers. Recorded times: aot a and b 0-4600 on
 * workers 0 and 1, c (its producers on two workers) 4600-9200: 4000 + 9200 + 1000 + 1500 =
 * 15700; jit 5300 a task: 4000 + 10600 + 1000 + 1500 = 17100. Timed in the workers a 2000,
 * b 3000, c 4500: aot a 0-2600, b 0-3600, c 3600-8700: 15200; jit a 3300, b 4300, c
 * 4300-10100: 16600; the plan carries those times. An empty task's span of 300 (persist_span_ns)
 * comes off each: a 1700, b 2700, c 4200: aot a 0-2300, b 0-3300, c 3300-8100: 14600; jit a
 * 3000, b 4000, c 4000-9500: 16000. */
Test(advise, the_persistent_item_takes_the_bodies_timed_in_the_worker)
{
	struct skip_trace *t = hand_trace(dir, "advise_wl");
	static const char *const tasks[] = {"a", "b", "c"};
	static const double none[] = {0, 0, 0}, worker[] = {2000, 3000, 4500}, bad[] = {-1, 0, 0};
	static const double want[3][2] = {{15700, 17100}, {15200, 16600}, {14600, 16000}};
	static const double want_c[3] = {4.0, 4.5, 4.2};
	struct skip_advise_opts o = {.workload = "tests/fixtures/hand/advise_wl.json",
				     .start_tasks = tasks,
				     .start_costs_ns = none,
				     .nstarts = 3};
	struct skip_advice_report *r = NULL;

	wl_cal(&o);
	o.cal.persist_launch_ns = 4000;
	o.cal.persist_epoch_ns = 1000;
	o.cal.persist_aot_task_ns = 600;
	o.cal.persist_jit_task_ns = 1300;
	for (int i = 0; i < 3; i++) {
		const struct skip_advice *p;
		cJSON *plan, *dur;

		o.start_worker_ns = i ? worker : NULL;
		o.cal.persist_span_ns = i == 2 ? 300 : 0;
		r = advise(t, &o);
		p = find_item(r, SKIP_ADVICE_PERSIST);
		cr_assert_not_null(p);
		cr_expect_float_eq(p->persist_il_ns[SKIP_PERSIST_AOT], want[i][0], 1e-9, "%d", i);
		cr_expect_float_eq(p->persist_il_ns[SKIP_PERSIST_JIT], want[i][1], 1e-9, "%d", i);
		cr_expect_not_null(strstr(p->assumptions,
					  !i	   ? "the recorded kernel times"
					  : i == 1 ? "--probe-starts: a 2000 ns, b 3000 ns, c 4500 "
						     "ns; every task"
						   : "c 4500 ns, less an empty task's 300 ns there "
						     "(persist_span_ns); every task"),
				   "%s", p->assumptions);
		plan = cJSON_Parse(p->plan_json);
		dur = cJSON_GetObjectItem(plan, "durations_us");
		cr_assert(cJSON_IsObject(dur), "%s", p->plan_json);
		cr_expect_float_eq(cJSON_GetObjectItem(dur, "c")->valuedouble, want_c[i], 1e-9);
		cJSON_Delete(plan);
		skip_advice_free(r);
	}
	o.start_worker_ns = bad;
	r = NULL;
	cr_expect_eq(skip_advise(t, &o, &r), SKIP_E_INVAL);
	cr_expect_not_null(strstr(skip_errmsg(), "task 'a' ran -1 ns in E5's workers"), "%s",
			   skip_errmsg());
	cr_expect_null(r);
	skip_trace_close(t);
}

Test(advise, plan_follows_the_schema_and_the_runtime_reads_it)
{
	struct skip_trace *t = hand_trace(dir, "advise_wl");
	struct skip_advise_opts o = {.workload = "tests/fixtures/hand/advise_wl.json"};
	struct skip_advice_report *r;
	char *schema_text = hand_slurp("schemas/plan.schema.json"), *plan, err[512] = "";
	cJSON *schema = cJSON_Parse(schema_text), *doc, *pred;
	struct skip_workload *w;
	struct skip_plan *p = NULL;
	int e = 0;

	wl_cal(&o);
	r = advise(t, &o);
	r->path = strdup("advise_wl.skip.db");
	plan = skip_advice_plan(r);
	cr_assert_not_null(plan, "%s", skip_errmsg());
	doc = cJSON_Parse(plan);
	cr_assert_not_null(doc);
	cr_expect_eq(skip_json_validate(schema, doc, err, sizeof(err)), 0, "%s", err);
	cr_expect_str_eq(cJSON_GetObjectItem(doc, "executor")->valuestring, "graph");
	pred = cJSON_GetObjectItem(doc, "prediction");
	cr_expect_float_eq(cJSON_GetObjectItem(pred, "predicted_speedup")->valuedouble,
			   18700.0 / 15800, 1e-9);
	cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "advice")), 3,
		     "streams, graph and persistent");
	w = skip_workload_load("tests/fixtures/hand/advise_wl.json", NULL, NULL, 0, NULL, &e);
	cr_assert_not_null(w, "%s", skip_errmsg());
	cr_expect_eq(skip_plan_from_json(skip_workload_graph(w), plan, &p), 0, "%s", skip_errmsg());
	skip_plan_free(p);
	skip_workload_free(w);
	cJSON_Delete(doc);
	cJSON_Delete(schema);
	free(schema_text);
	free(plan);
	skip_advice_free(r);
	skip_trace_close(t);
}

Test(advise, json_report_parses)
{
	struct skip_trace *t = hand_trace(dir, "advise_model");
	struct skip_advise_opts o = {.region = "step", .min_len = 2, .max_len = 2};
	struct skip_advice_report *r = advise(t, &o);
	char *s = skip_advice_json(r);
	cJSON *doc = cJSON_Parse(s), *items;

	cr_assert_not_null(doc);
	items = cJSON_GetObjectItem(doc, "advice");
	cr_expect_eq(cJSON_GetArraySize(items), (int)r->nitems);
	cr_expect_float_eq(
	    cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "model"), "recorded_il_ns")->valuedouble,
	    18000, 1e-9);
	cJSON_Delete(doc);
	free(s);
	skip_advice_free(r);
	skip_trace_close(t);
}

Test(advise, bad_input)
{
	struct skip_trace *t = hand_trace(dir, "advise_model");
	struct skip_advice_report *r = NULL;
	struct skip_advise_opts o = {.region = "nope"};

	cr_expect_eq(skip_advise(t, &o, &r), SKIP_E_NOTFOUND);
	cr_expect_not_null(strstr(skip_errmsg(), "'step'"), "%s", skip_errmsg());
	o = (struct skip_advise_opts){.run_id = 7};
	cr_expect_eq(skip_advise(t, &o, &r), SKIP_E_NOTFOUND);
	o = (struct skip_advise_opts){.workload = "tests/fixtures/hand/advise_wl.json"};
	cr_expect_eq(skip_advise(t, &o, &r), SKIP_E_INVAL, "kA kB kA kB is not a, b, c");
	cr_expect_not_null(strstr(skip_errmsg(), "does not match workload 'fork'"), "%s",
			   skip_errmsg());
	o = (struct skip_advise_opts){.workload = "tests/fixtures/hand/missing.json"};
	cr_expect_eq(skip_advise(t, &o, &r), SKIP_E_NOTFOUND, "%s", skip_errmsg());
	cr_expect_null(r);
	skip_trace_close(t);
}

Test(advise, no_kernels)
{
	struct skip_trace *t = hand_trace(dir, "advise_empty");
	struct skip_advice_report *r = NULL;
	struct skip_advise_opts o = {0};

	cr_expect_eq(skip_advise(t, &o, &r), SKIP_E_EMPTY);
	cr_expect_not_null(strstr(skip_errmsg(), "no kernels"), "%s", skip_errmsg());
	skip_trace_close(t);
}

Test(advise, a_calibration_out_of_range_is_refused_before_any_prediction)
{
	struct skip_trace *t = hand_trace(dir, "advise_wl");
	struct skip_advise_opts o = {.workload = "tests/fixtures/hand/advise_wl.json"};
	struct skip_advice_report *r = NULL;
	struct skip_timeline *tl = NULL;
	struct skip_graph_prediction g;

	/* 1e19 ns did not fit int64_t: the graph's model predicted -1 ns and ranked it first */
	wl_cal(&o);
	o.cal.graph_launch_ns = 1e19;
	cr_expect_eq(skip_advise(t, &o, &r), SKIP_E_INVAL);
	cr_expect_null(r);
	cr_expect_str_eq(skip_errmsg(), "calibration: 'graph_launch_ns': must be a number >= 0 "
					"and <= 1e+09 (ns: 1 s); got 1e+19");
	cr_assert_eq(skip_timeline_load(t, 1, NULL, &tl), 0);
	cr_expect_eq(skip_predict_graph(tl, &o.cal, 0, &g), SKIP_E_INVAL);
	skip_timeline_free(tl);
	skip_trace_close(t);
}

/* A warm-up occurrence that saves much does not rank an item above one that saves more in
 * the typical occurrence: 12 regions saving 100 ns (median) and 15000 in all (a first step's
 * gap) rank 1200, below 12 saving 200 each (2400). One region (a whole run): its saved time. */
Test(advise, items_rank_by_the_median_saved_times_the_regions)
{
	struct skip_advice warm = {.saved_ns = 100, .total_saved_ns = 15000, .regions = 12};
	struct skip_advice steady = {.saved_ns = 200, .total_saved_ns = 2400, .regions = 12};
	struct skip_advice run = {.saved_ns = 3000, .total_saved_ns = 3000, .regions = 1};

	cr_expect_float_eq(sk_item_rank(&warm), 1200, 1e-9);
	cr_expect_float_eq(sk_item_rank(&steady), 2400, 1e-9);
	cr_expect_float_eq(sk_item_rank(&run), 3000, 1e-9);
}

/* No item predicts a time <= 0, and the items are ranked by the time they save (the median a
 * region times the regions). */
static void expect_sane_items(const struct skip_advice_report *r)
{
	for (size_t i = 0; i < r->nitems; i++) {
		cr_expect_gt(r->items[i].predicted_il_ns, 0, "item %zu", i);
		cr_expect_gt(r->items[i].baseline_il_ns, 0, "item %zu", i);
		cr_expect(isfinite(r->items[i].total_saved_ns), "item %zu", i);
		if (i)
			cr_expect_geq(r->items[i - 1].saved_ns * (double)r->items[i - 1].regions,
				      r->items[i].saved_ns * (double)r->items[i].regions);
	}
}

Test(advise, predictions_at_the_calibration_bounds_stay_positive_and_ranked)
{
	struct skip_trace *t = hand_trace(dir, "advise_wl");
	struct skip_trace *m = hand_trace(dir, "advise_model");
	struct skip_advise_opts o = {.workload = "tests/fixtures/hand/advise_wl.json"};
	struct skip_advice_report *r;
	const struct skip_advice *e3;

	wl_cal(&o);
	o.cal.graph_launch_ns = 1e9;   /* the largest accepted: a 1 s graph launch */
	o.cal.persist_launch_ns = 1e6; /* and a persistent kernel out of the running */
	r = advise(t, &o);
	e3 = find_item(r, SKIP_ADVICE_DAGGRAPH);
	cr_assert_not_null(e3);
	cr_expect_float_eq(e3->predicted_il_ns, 1e9 - 3000 + 15800, 1e-3,
			   "workload_executors' 15800 with a launch 1e9 - 3000 ns longer");
	cr_expect_neq(r->items[0].kind, SKIP_ADVICE_DAGGRAPH, "it saves nothing: not first");
	cr_expect_eq(r->items[r->best_plan].kind, SKIP_ADVICE_STREAMS);
	expect_sane_items(r);
	skip_advice_free(r);
	for (const struct skip_calibration_key *k = skip_calibration_keys; k->name; k++)
		*(double *)((char *)&o.cal + k->offset) = k->max; /* every key at its bound */
	r = advise(t, &o);
	expect_sane_items(r);
	skip_advice_free(r);
	o = (struct skip_advise_opts){.region = "step", .cal = o.cal};
	r = advise(m, &o);
	cr_expect_gt(r->replay_il_ns, 0);
	expect_sane_items(r);
	skip_advice_free(r);
	skip_trace_close(t);
	skip_trace_close(m);
}

Test(advise, a_start_cost_over_a_second_is_refused)
{
	struct skip_trace *t = hand_trace(dir, "advise_wl");
	static const char *const tasks[] = {"a"};
	static const double cost[] = {1e19};
	struct skip_advise_opts o = {.workload = "tests/fixtures/hand/advise_wl.json",
				     .start_tasks = tasks,
				     .start_costs_ns = cost,
				     .nstarts = 1};
	struct skip_advice_report *r = NULL;

	wl_cal(&o);
	cr_expect_eq(skip_advise(t, &o, &r), SKIP_E_INVAL);
	cr_expect_not_null(strstr(skip_errmsg(), "the start cost of task 'a' is 1e+19 ns"), "%s",
			   skip_errmsg());
	cr_expect_null(r);
	skip_trace_close(t);
}

Test(advise, malformed_records_change_no_prediction)
{
	struct skip_trace *good = hand_trace(dir, "launch");
	struct skip_trace *bad = hand_trace_more(dir, "launch", "malformed");
	struct skip_advise_opts o = {0};
	struct skip_advice_report *g = advise(good, &o), *b = advise(bad, &o);

	cr_expect_float_eq(b->recorded_il_ns, 4300, 1e-9, "launch.sql's IL");
	cr_expect_float_eq(b->recorded_il_ns, g->recorded_il_ns, 1e-9);
	cr_expect_float_eq(b->replay_il_ns, g->replay_il_ns, 1e-9);
	cr_expect_float_eq(b->calibration_error, g->calibration_error, 1e-12);
	cr_expect_float_eq(b->launch_latency_ns, g->launch_latency_ns, 1e-9);
	cr_expect_eq(b->nitems, g->nitems);
	skip_advice_free(g);
	skip_advice_free(b);
	skip_trace_close(good);
	skip_trace_close(bad);
}

Test(advise, graph_kernels_without_their_launch_call_are_modelled_without_overflow)
{
	struct skip_trace *t = hand_trace_more(dir, "graph", "graph_nocall");
	struct skip_advise_opts o = {0};
	struct skip_timeline *tl = NULL;
	struct skip_advice_report *r;
	int firsts = 0;

	cr_assert_eq(skip_timeline_load(t, 1, NULL, &tl), 0, "%s", skip_errmsg());
	for (size_t i = 0; i < tl->nops; i++)
		if (tl->ops[i].graph == 2) {
			firsts++;
			cr_expect_eq(tl->ops[i].api_end, INT64_MIN);
		}
	cr_expect_eq(firsts, 1);
	skip_timeline_free(tl);
	r = advise(t, &o); /* start - api_end overflowed reading the graph's first-node latency */
	cr_expect_float_eq(r->recorded_il_ns, 550, 1e-9);
	cr_expect_gt(r->replay_il_ns, 0);
	expect_sane_items(r);
	skip_advice_free(r);
	skip_trace_close(t);
}

/* The busiest stream's summed operation time per region (each window, else the whole run): a
 * floor for any prediction that keeps the operations' recorded durations and their order on a
 * stream. The median over the regions. */
static double busiest_stream_ns(const struct skip_timeline *tl)
{
	size_t nw = tl->nwindows ? tl->nwindows : 1, n = 0;
	double *per = calloc(nw, sizeof(double)), *busy = calloc(nw, sizeof(double)), med;

	cr_assert(per && busy);
	for (size_t w = 0; w < nw; w++) {
		for (size_t i = 0; i < tl->nops; i++) {
			const struct skip_op *a = &tl->ops[i];
			double sum = 0;

			if (tl->nwindows && a->window != (int32_t)w)
				continue;
			for (size_t j = 0; j < tl->nops; j++) {
				const struct skip_op *b = &tl->ops[j];

				if (b->stream == a->stream &&
				    (!tl->nwindows || b->window == a->window))
					sum += (double)(b->end - b->start);
			}
			per[w] = sum > per[w] ? sum : per[w];
		}
		if (per[w] > 0)
			busy[n++] = per[w];
	}
	med = skip_median(busy, n);
	free(per);
	free(busy);
	return med;
}

/* The persistent prediction on the committed H100 recordings: between the busiest stream's
 * time and the recorded IL, AOT the fastest mode with the built-in calibration. */
Test(advise, persistent_on_h100_recordings_lies_between_the_kernels_and_the_recording)
{
	static const struct {
		const char *trace, *region;
		int64_t run;
	} cases[] = {
	    {"tests/fixtures/h100_launch_chain.skip.db", NULL, 1},
	    {"tests/fixtures/h100_torch_mlp.skip.db", "forward", 1},
	    {"tests/fixtures/h100_torch_mlp.skip.db", "step", 1},
	    {"tests/fixtures/llama1b_sweep.skip.db", "prefill", 1},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct skip_trace *t = NULL;
		struct skip_timeline *tl = NULL;
		struct skip_graph_prediction g;
		double floor;

		cr_assert_eq(skip_trace_open(cases[i].trace, &t), 0, "%s", skip_errmsg());
		cr_assert_eq(skip_timeline_load(t, cases[i].run, cases[i].region, &tl), 0);
		cr_assert_eq(skip_predict_graph(tl, NULL, 0, &g), 0, "%s", skip_errmsg());
		floor = busiest_stream_ns(tl);
		cr_expect_gt(floor, 0);
		cr_expect_geq(g.persist_ns, floor, "%s %s: %g < the kernels' %g", cases[i].trace,
			      cases[i].region ? cases[i].region : "", g.persist_ns, floor);
		cr_expect_leq(g.persist_ns, g.recorded_ns, "%s %s: %g > recorded %g",
			      cases[i].trace, cases[i].region ? cases[i].region : "", g.persist_ns,
			      g.recorded_ns);
		cr_expect_leq(g.persist_ns, g.baseline_ns, "%s", cases[i].trace);
		cr_expect_eq(g.persist_mode, SKIP_PERSIST_AOT, "%s", cases[i].trace);
		skip_timeline_free(tl);
		skip_trace_close(t);
	}
}
