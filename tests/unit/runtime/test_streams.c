/*
 * test_streams.c: the KeSCo/HuntKT stream assignment and the three barrier-pruning steps on
 * hand-made DAGs whose assignments and event counts were worked out by hand (in the comments),
 * and on random DAGs, where an independent happens-before closure (stream order plus events)
 * must cover every dependency.
 *
 * The KeSCo ICCD paper's own walk-through was not readable to us (shared/research/papers.md
 * section 5.1); the shapes here are HuntKTm's M1 (b14) and GrCUDA's IMG (b8), which exercise
 * every rule and every pruning step.
 */
#include "helpers.h"

static struct skip_graph *g;
static struct skip_plan *p;

static void setup(void)
{
	skip_log_init("test", NULL, 1);
	g = skip_graph_new(NULL);
	p = NULL;
}

static void teardown(void)
{
	skip_plan_free(p);
	skip_graph_free(g);
}

TestSuite(runtime_streams, .init = setup, .fini = teardown);

static void plan(int nstreams)
{
	struct skip_plan_opts o = {.executor = SKIP_EXEC_STREAMS, .nstreams = nstreams};

	cr_assert_eq(skip_graph_finalize(g), 0, "%s", skip_errmsg());
	cr_assert_eq(skip_plan_compute(g, &o, &p), 0, "%s", skip_errmsg());
}

static int stream_of(const char *task)
{
	return p->stream[helper_id(g, task)];
}

/* "a b c" in launch order */
static const char *order(void)
{
	static char out[512];

	out[0] = '\0';
	for (int k = 0; k < p->ntasks; k++) {
		strcat(out, k ? " " : "");
		strcat(out, skip_graph_task_name(g, p->order[k]));
	}
	return out;
}

static int has_event(const char *from, const char *to)
{
	for (int i = 0; i < p->nevents; i++)
		if (p->events[i].from == helper_id(g, from) && p->events[i].to == helper_id(g, to))
			return 1;
	return 0;
}

Test(runtime_streams, a_fork_join_puts_the_join_on_the_first_branch)
{
	/* a, b sources -> s0, s1; c has both in its PP-set with one unassigned successor each:
	 * the lower id (a) wins, so c is on s0 and waits for b. */
	helper_task(g, "a", "w:X");
	helper_task(g, "b", "w:Y");
	helper_task(g, "c", "r:X r:Y w:Z");
	plan(2);
	cr_assert_eq(stream_of("a"), 0);
	cr_assert_eq(stream_of("b"), 1);
	cr_assert_eq(stream_of("c"), 0);
	cr_assert_str_eq(order(), "a b c");
	cr_assert_eq(p->nevents, 1);
	cr_assert(has_event("b", "c"));
	cr_assert_eq(p->events_unpruned, 1);
}

Test(runtime_streams, independent_tasks_go_round_robin)
{
	char name[8], spec[16];

	for (int i = 0; i < 10; i++) { /* B&S: ten independent chains of one kernel */
		snprintf(name, sizeof(name), "bs%d", i);
		snprintf(spec, sizeof(spec), "r:X%d w:Y%d", i, i);
		helper_task(g, name, spec);
	}
	plan(8);
	for (int i = 0; i < 10; i++) {
		snprintf(name, sizeof(name), "bs%d", i);
		cr_assert_eq(stream_of(name), i % 8, "%s", name);
	}
	cr_assert_eq(p->nstreams, 8);
	cr_assert_eq(p->nevents, 0);
	cr_assert_eq(p->events_unpruned, 0);
}

Test(runtime_streams, default_stream_count_is_the_width)
{
	char name[8], spec[16];

	for (int i = 0; i < 10; i++) {
		snprintf(name, sizeof(name), "bs%d", i);
		snprintf(spec, sizeof(spec), "w:Y%d", i);
		helper_task(g, name, spec);
	}
	plan(0);
	cr_assert_eq(p->nstreams, 10);
	cr_assert_eq(stream_of("bs9"), 9);
}

/*
 * HuntKTm M1 (b14): 8 GELUs g0..g7; 4 residuals r0..r3, r_i on g_2i and g_2i+1; 4 GELUs
 * h_i on r_i; one average over h0..h3. With 8 streams: g_i on s_i; r_i takes the stream of
 * g_2i (both predecessors are stream ends with one unassigned successor: lower id wins);
 * h_i follows r_i (rule 2); avg goes to s0 (rule 3, tie). Waits: g1->r0, g3->r1, g5->r2,
 * g7->r3, h1->avg, h2->avg, h3->avg: 7, none redundant.
 */
Test(runtime_streams, huntktm_m1_shape)
{
	char name[8], spec[64];

	for (int i = 0; i < 8; i++) {
		snprintf(name, sizeof(name), "g%d", i);
		snprintf(spec, sizeof(spec), "r:I%d w:G%d", i, i);
		helper_task(g, name, spec);
	}
	for (int i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "r%d", i);
		snprintf(spec, sizeof(spec), "r:G%d r:G%d w:R%d", 2 * i, 2 * i + 1, i);
		helper_task(g, name, spec);
	}
	for (int i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "h%d", i);
		snprintf(spec, sizeof(spec), "r:R%d w:H%d", i, i);
		helper_task(g, name, spec);
	}
	helper_task(g, "avg", "r:H0 r:H1 r:H2 r:H3 w:OUT");
	plan(8);
	for (int i = 0; i < 8; i++)
		cr_assert_eq(p->stream[i], i);
	for (int i = 0; i < 4; i++) {
		cr_assert_eq(p->stream[8 + i], 2 * i, "r%d", i);
		cr_assert_eq(p->stream[12 + i], 2 * i, "h%d", i);
	}
	cr_assert_eq(stream_of("avg"), 0);
	cr_assert_str_eq(order(), "g0 g1 g2 g3 g4 g5 g6 g7 r0 r1 r2 r3 h0 h1 h2 h3 avg");
	cr_assert_eq(p->events_unpruned, 7);
	cr_assert_eq(p->events_step_b, 7);
	cr_assert_eq(p->nevents, 7);
	cr_assert(has_event("g7", "r3"));
	cr_assert(has_event("h3", "avg"));
}

/*
 * GrCUDA IMG (b8): three blurs; sobel on blur1 and blur2; max and min of mask2; extend mask2
 * in place; unsharpen (image, blur3); combine1 (sharp, blur2, mask2); combine2 (image2,
 * blur1, mask1). Levels: blurs 0; sobel1, sobel2, unsharpen 1; max, min 2; extend 3;
 * combine1 4; combine2 5. With 3 streams:
 *   s0: blur1 sobel1 min     (min: its only predecessor sobel2 is no longer a stream end,
 *                             deferred, round-robin to s0 whose end is on another level)
 *   s1: blur2 sobel2 max extend combine1 combine2
 *   s2: blur3 unsharpen
 * Waits (step a): sobel2->min, min->extend, unsharpen->combine1, sobel1->combine2 = 4;
 * step b keeps 4; step c drops sobel1->combine2, since extend, earlier on s1, waited for
 * min, which is after sobel1 on s0: 3 events.
 */
Test(runtime_streams, grcuda_img_shape_prunes_an_implied_wait)
{
	helper_task(g, "blur1", "r:IMG w:B1");
	helper_task(g, "blur2", "r:IMG w:B2");
	helper_task(g, "blur3", "r:IMG w:B3");
	helper_task(g, "sobel1", "r:B1 w:M1");
	helper_task(g, "sobel2", "r:B2 w:M2");
	helper_task(g, "max", "r:M2 w:MX");
	helper_task(g, "min", "r:M2 w:MN");
	helper_task(g, "extend", "r:MX r:MN rw:M2");
	helper_task(g, "unsharpen", "r:IMG r:B3 w:S");
	helper_task(g, "combine1", "r:S r:B2 r:M2 w:I2");
	helper_task(g, "combine2", "r:I2 r:B1 r:M1 w:I3");
	plan(3);
	cr_assert_str_eq(helper_preds(g, "extend"), "max min");
	cr_assert_str_eq(helper_preds(g, "combine1"), "extend unsharpen");
	cr_assert_str_eq(helper_preds(g, "combine2"), "sobel1 combine1");
	cr_assert_str_eq(order(), "blur1 blur2 blur3 sobel1 sobel2 unsharpen max min extend "
				  "combine1 combine2");
	cr_assert_eq(stream_of("min"), 0);
	cr_assert_eq(stream_of("max"), 1);
	cr_assert_eq(stream_of("extend"), 1);
	cr_assert_eq(stream_of("unsharpen"), 2);
	cr_assert_eq(stream_of("combine2"), 1);
	cr_assert_eq(p->events_unpruned, 4);
	cr_assert_eq(p->events_step_b, 4);
	cr_assert_eq(p->nevents, 3);
	cr_assert_not(has_event("sobel1", "combine2"));
	cr_assert(has_event("sobel2", "min"));
	cr_assert(has_event("min", "extend"));
	cr_assert(has_event("unsharpen", "combine1"));
}

/* Step b: d depends on a and c, both on s0 (sources round-robin over 2 streams: a s0, b s1,
 * c s0); d joins s1 through b; of the two waits on s0 only the one on c (later) stays. */
Test(runtime_streams, step_b_keeps_the_last_predecessor_per_stream)
{
	helper_task(g, "a", "w:A");
	helper_task(g, "b", "w:B");
	helper_task(g, "c", "w:C");
	helper_task(g, "d", "r:A r:B r:C w:D");
	plan(2);
	cr_assert_eq(stream_of("c"), 0);
	cr_assert_eq(stream_of("d"), 1);
	cr_assert_eq(p->events_unpruned, 2);
	cr_assert_eq(p->events_step_b, 1);
	cr_assert_eq(p->nevents, 1);
	cr_assert(has_event("c", "d"));
}

/* Step c with a hand-made assignment: p on s0; q, t, k on s1 in that order; t waits for p,
 * so k (which also depends on p) need not. */
Test(runtime_streams, step_c_drops_a_wait_an_earlier_task_already_made)
{
	int ids[4];

	ids[0] = helper_task(g, "p", "w:P");
	ids[1] = helper_task(g, "q", "w:Q");
	ids[2] = helper_task(g, "t", "r:P r:Q w:T");
	ids[3] = helper_task(g, "k", "r:P w:K");
	cr_assert_eq(skip_graph_finalize(g), 0);
	p = sk_plan_alloc(4, 1);
	p->executor = SKIP_EXEC_STREAMS;
	p->nstreams = 2;
	for (int i = 0; i < 4; i++) {
		p->order[i] = ids[i];
		p->stream[ids[i]] = i ? 1 : 0;
	}
	cr_assert_eq(sk_streams_events(g, p), 0);
	cr_assert_eq(p->events_unpruned, 2);
	cr_assert_eq(p->events_step_b, 2);
	cr_assert_eq(p->nevents, 1);
	cr_assert(has_event("p", "t"));
	cr_assert_eq(skip_plan_validate(g, p), 0, "%s", skip_errmsg());
}

/* ---- random DAGs: every dependency ordered by stream order and events ------------------------ */

#define RN 20

static void random_dag(uint64_t seed)
{
	uint64_t s = seed * 0x9e3779b97f4a7c15ULL + 7;

	for (int t = 0; t < RN; t++) {
		char spec[96], name[8];
		int r1 = helper_below(&s, 6), r2 = helper_below(&s, 6);

		snprintf(spec, sizeof(spec), "r:B%d r:B%d w:B%d", r1, r2, helper_below(&s, 6));
		snprintf(name, sizeof(name), "t%d", t);
		helper_task(g, name, spec);
	}
}

static void check_happens_before(uint64_t seed)
{
	int hb[RN][RN] = {{0}}, last[64];

	for (int s = 0; s < 64; s++)
		last[s] = -1;
	for (int k = 0; k < RN; k++) { /* stream order */
		int v = p->order[k], s = p->stream[v];

		if (last[s] >= 0)
			hb[last[s]][v] = 1;
		last[s] = v;
	}
	for (int i = 0; i < p->nevents; i++)
		hb[p->events[i].from][p->events[i].to] = 1;
	for (int k = 0; k < RN; k++)
		for (int i = 0; i < RN; i++)
			for (int j = 0; j < RN; j++)
				hb[i][j] |= hb[i][k] && hb[k][j];
	for (int v = 0; v < RN; v++) {
		const int *pr;
		int n = skip_graph_preds(g, v, &pr);

		for (int i = 0; i < n; i++)
			cr_assert(hb[pr[i]][v], "seed %llu: t%d -> t%d not ordered",
				  (unsigned long long)seed, pr[i], v);
	}
}

Test(runtime_streams, random_dags_get_plans_that_order_every_dependency)
{
	for (uint64_t seed = 1; seed <= 300; seed++) {
		int S = 1 + (int)(seed % 8);

		skip_plan_free(p);
		skip_graph_free(g);
		g = skip_graph_new(NULL);
		random_dag(seed);
		plan(S);
		cr_assert_leq(p->nstreams, S);
		cr_assert_geq(p->events_unpruned, p->events_step_b);
		cr_assert_geq(p->events_step_b, p->nevents);
		check_happens_before(seed);
	}
}
