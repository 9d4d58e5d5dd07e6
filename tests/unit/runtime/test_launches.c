/*
 * test_launches.c: what each executor submits, from skip_plan_launches() (the executors run on
 * the recording device, no GPU). On a diamond a -> b, c -> d the sequence of each executor is
 * pinned step by step (a change to an executor shows here first, and in the advisor's
 * test_workload_models.c, whose model is built from these steps). On seeded random graphs,
 * every executor with and without PDL, streams 1-4 and windows 1-8, the steps are replayed
 * with an independent reading of CUDA's ordering rules (a stream runs in order; a wait orders
 * what follows it after the event's record; a graph node runs after its edges' sources; the
 * host knows what it synchronized) and every dependency of the DAG must be ordered. The
 * persistent executor's worker count by the widest level.
 */
#include "helpers.h"

static struct skip_graph *g;

static void setup(void)
{
	skip_log_init("test", NULL, 1);
	g = skip_graph_new(NULL);
}

static void teardown(void)
{
	skip_graph_free(g);
}

TestSuite(runtime_launches, .init = setup, .fini = teardown, .timeout = 60);

static void diamond(void)
{
	helper_task(g, "a", "w:X");
	helper_task(g, "b", "r:X w:Y");
	helper_task(g, "c", "r:X w:Z");
	helper_task(g, "d", "r:Y r:Z w:W");
	cr_assert_eq(skip_graph_finalize(g), 0);
}

/* A task marked "pdl" that writes @out after reading @in (NULL: nothing). */
static void pdl_task(const char *name, const char *in, const char *out)
{
	struct skip_access acc[2];
	struct skip_task_desc d = {.name = name, .flags = SKIP_TASK_PDL, .access = acc};

	if (in)
		acc[d.naccess++] = (struct skip_access){helper_buf(g, in), 0, 0, SKIP_READ};
	acc[d.naccess++] = (struct skip_access){helper_buf(g, out), 0, 0, SKIP_WRITE};
	d.kernel = (struct skip_kernel){.kind = SKIP_KERNEL_SYMBOL, .symbol = &helper_symbol};
	d.grid[0] = d.block[0] = 1;
	cr_assert_geq(skip_graph_add_task(g, &d), 0, "%s", skip_errmsg());
}

static struct skip_launches *launches(enum skip_executor e, int nstreams, int window, int pdl)
{
	struct skip_plan_opts o = {
	    .executor = e, .nstreams = nstreams, .window = window, .pdl = pdl};
	struct skip_plan *p = NULL;
	struct skip_launches *l = NULL;

	cr_assert_eq(skip_plan_compute(g, &o, &p), 0, "%s", skip_errmsg());
	cr_assert_eq(skip_plan_launches(g, p, &l), 0, "%s", skip_errmsg());
	skip_plan_free(p);
	return l;
}

/* The steps as text, one per line. */
static char *text(const struct skip_step *s, int n)
{
	static char out[8192];
	char b[160];

	out[0] = '\0';
	for (int i = 0; i < n; i++) {
		strcat(out, skip_step_format(g, &s[i], b, sizeof(b)));
		strcat(out, "\n");
	}
	return out;
}

Test(runtime_launches, serial_launches_every_task_on_one_stream_then_waits_for_it)
{
	struct skip_launches *l;

	diamond();
	l = launches(SKIP_EXEC_SERIAL, 0, 0, 0);
	cr_expect_str_eq(text(l->prepare, l->nprepare), "make stream 0\n");
	cr_expect_str_eq(text(l->run, l->nrun), "launch 'a' on stream 0\n"
						"launch 'b' on stream 0\n"
						"launch 'c' on stream 0\n"
						"launch 'd' on stream 0\n"
						"sync stream 0\n");
	cr_expect_eq(l->nthreads, 1);
	skip_launches_free(l);
}

Test(runtime_launches, streams_wait_for_the_events_of_the_plan_and_record_those_waited_for)
{
	struct skip_launches *l;

	diamond();
	l = launches(SKIP_EXEC_STREAMS, 2, 0, 0);
	cr_expect_str_eq(text(l->prepare, l->nprepare), "make stream 0\n"
							"make stream 1\n"
							"make event 0 of 'a'\n"
							"make event 1 of 'c'\n");
	cr_expect_str_eq(text(l->run, l->nrun), "launch 'a' on stream 0\n"
						"record event 0 of 'a' on stream 0\n"
						"launch 'b' on stream 0\n"
						"stream 1 waits for event 0 of 'a' before 'c'\n"
						"launch 'c' on stream 1\n"
						"record event 1 of 'c' on stream 1\n"
						"stream 0 waits for event 1 of 'c' before 'd'\n"
						"launch 'd' on stream 0\n"
						"sync stream 0\n"
						"sync stream 1\n");
	skip_launches_free(l);
}

static int persistent_workers(int mode)
{
	struct skip_plan_opts o = {.executor = SKIP_EXEC_PERSISTENT, .mode = mode};
	struct skip_plan *p = NULL;
	struct skip_launches *l = NULL;
	int w;

	cr_assert_eq(skip_plan_compute(g, &o, &p), 0, "%s", skip_errmsg());
	cr_assert_eq(skip_plan_launches(g, p, &l), 0, "%s", skip_errmsg());
	w = l->workers;
	skip_plan_free(p);
	skip_launches_free(l);
	return w;
}

/* The recording device is an H100 of 132 SMs where AOT's worker fits twice an SM and JIT's
 * once. The diamond's one-block tasks: a worker per SM. a and b of 100 blocks each, then c:
 * level 0 has 200 tiles, so AOT runs 200 workers and JIT its 132; the other executors none. */
Test(runtime_launches, persistent_workers_by_the_widest_level)
{
	struct skip_launches *l;
	int a, b;

	diamond();
	cr_expect_eq(persistent_workers(1), 132);
	l = launches(SKIP_EXEC_GRAPH, 0, 0, 0);
	cr_expect_eq(l->workers, 0);
	skip_launches_free(l);
	skip_graph_free(g);
	g = skip_graph_new(NULL);
	a = helper_task(g, "a", "w:X");
	b = helper_task(g, "b", "w:Y");
	helper_task(g, "c", "r:X r:Y w:Z");
	g->tasks[a].grid[0] = g->tasks[b].grid[0] = 100;
	cr_assert_eq(skip_graph_finalize(g), 0);
	cr_expect_eq(persistent_workers(1), 200, "aot");
	cr_expect_eq(persistent_workers(2), 132, "jit");
}

Test(runtime_launches, graph_builds_once_then_launches_one_graph)
{
	struct skip_launches *l;

	diamond();
	l = launches(SKIP_EXEC_GRAPH, 0, 0, 0);
	cr_expect_str_eq(text(l->prepare, l->nprepare), "make stream 0\n"
							"make graph 0\n"
							"graph 0: node 'a'\n"
							"graph 0: node 'b'\n"
							"graph 0: node 'c'\n"
							"graph 0: node 'd'\n"
							"graph 0: edge 'a' -> 'b'\n"
							"graph 0: edge 'a' -> 'c'\n"
							"graph 0: edge 'b' -> 'd'\n"
							"graph 0: edge 'c' -> 'd'\n"
							"instantiate graph 0 on stream 0\n");
	cr_expect_str_eq(text(l->run, l->nrun), "launch graph 0 on stream 0\nsync stream 0\n");
	skip_launches_free(l);
}

Test(runtime_launches, window_workers_launch_and_wait_for_each_task_on_their_own_stream)
{
	struct skip_launches *l;
	int launched[4] = {0}, nfinal = 0;

	diamond();
	l = launches(SKIP_EXEC_WINDOW, 3, 4, 0);
	cr_expect_str_eq(text(l->prepare, l->nprepare),
			 "make stream 0\nmake stream 1\nmake stream 2\n");
	cr_expect_eq(l->nthreads, 4, "the caller and one worker per stream");
	for (int i = 0; i < l->nrun; i++) {
		const struct skip_step *s = &l->run[i];

		if (s->thread == 0) { /* skip_exec_run() waits for every stream at the end */
			cr_expect_eq(s->kind, SKIP_STEP_SYNC);
			cr_expect_eq(s->stream, nfinal++);
			continue;
		}
		cr_assert_eq(s->kind, SKIP_STEP_LAUNCH, "%s", text(l->run, l->nrun));
		cr_expect_eq(s->stream, s->thread - 1, "worker k launches on stream k");
		launched[s->task]++;
		cr_assert_lt(i + 1, l->nrun);
		cr_expect(s[1].kind == SKIP_STEP_SYNC && s[1].thread == s->thread &&
			      s[1].stream == s->stream && s[1].task == s->task,
			  "each launch is followed by its worker's wait: %s",
			  text(l->run, l->nrun));
		i++;
	}
	cr_expect_eq(nfinal, 3);
	for (int v = 0; v < 4; v++)
		cr_expect_eq(launched[v], 1, "task %d launched %d times", v, launched[v]);
	skip_launches_free(l);
}

Test(runtime_launches, pdl_marks_launches_and_edges_between_tasks_that_both_allow_it)
{
	struct skip_launches *l;

	pdl_task("p", NULL, "A");
	pdl_task("q", "A", "B");
	helper_task(g, "r", "r:B w:C"); /* not marked: no PDL into it */
	cr_assert_eq(skip_graph_finalize(g), 0);
	l = launches(SKIP_EXEC_SERIAL, 0, 0, 1);
	cr_expect_str_eq(text(l->run, l->nrun), "launch 'p' on stream 0\n"
						"launch 'q' on stream 0 (pdl)\n"
						"launch 'r' on stream 0\n"
						"sync stream 0\n");
	skip_launches_free(l);
	l = launches(SKIP_EXEC_GRAPH, 0, 0, 1);
	cr_expect(strstr(text(l->prepare, l->nprepare), "graph 0: edge 'p' -> 'q' (pdl)\n"
							"graph 0: edge 'q' -> 'r'\n"),
		  "%s", text(l->prepare, l->nprepare));
	skip_launches_free(l);
	l = launches(SKIP_EXEC_SERIAL, 0, 0, 0);
	cr_expect_null(strstr(text(l->run, l->nrun), "(pdl)"), "no PDL unless the plan asks");
	skip_launches_free(l);
}

Test(runtime_launches, a_plan_that_does_not_fit_is_refused)
{
	struct skip_plan_opts o = {.executor = SKIP_EXEC_SERIAL};
	struct skip_plan *p = NULL;
	struct skip_launches *l = (void *)1;

	diamond();
	cr_assert_eq(skip_plan_compute(g, &o, &p), 0);
	p->order[0] = 3; /* d before a */
	p->order[3] = 0;
	cr_expect_eq(skip_plan_launches(g, p, &l), SKIP_E_INVAL);
	cr_expect_null(l);
	cr_expect(strstr(skip_errmsg(), "is launched before 'a', which it depends on"), "%s",
		  skip_errmsg());
	skip_plan_free(p);
}

Test(runtime_launches, the_runtime_knows_its_own_kernels)
{
	cr_expect(skip_runtime_kernel("sk_fill"));
	cr_expect(skip_runtime_kernel("sk_compare"));
	cr_expect_not(skip_runtime_kernel("sk_gemm"), "a task's kernel may start with sk_");
	cr_expect_not(skip_runtime_kernel(NULL));
}

/* ---- random graphs: every dependency ordered ------------------------------------------------- */

#define MAXT 40
#define MAXS 8

/* What is known done: before the next operation of each stream, by each event, by the host
 * (bits of tasks). */
struct order {
	uint64_t stream[MAXS], event[MAXT], host;
};

static uint64_t preds_of(int v)
{
	const int *p;
	uint64_t m = 0;
	int n = skip_graph_preds(g, v, &p);

	for (int i = 0; i < n; i++)
		m |= 1ULL << p[i];
	return m;
}

static void expect_ordered(int v, uint64_t known, const char *how, uint64_t seed)
{
	uint64_t missing = preds_of(v) & ~known;

	cr_expect_eq(missing, 0, "seed %llu, %s: t%d may start before t%d",
		     (unsigned long long)seed, how, v, missing ? __builtin_ctzll(missing) : -1);
}

/* A graph's nodes on @stream, in topological order of its edges (the prepare steps). */
static uint64_t replay_graph(const struct skip_launches *l, int graph, uint64_t before,
			     const char *how, uint64_t seed)
{
	uint64_t start[MAXT] = {0}, all = 0;

	for (int k = 0; k < g->ntasks; k++) { /* g->topo: every edge goes forward */
		int v = g->topo[k], node = 0;

		for (int i = 0; i < l->nprepare; i++) {
			const struct skip_step *s = &l->prepare[i];

			node |= s->kind == SKIP_STEP_NODE && s->graph == graph && s->task == v;
			if (s->kind == SKIP_STEP_EDGE && s->graph == graph && s->task == v)
				start[v] |= start[s->from] | 1ULL << s->from;
		}
		if (!node)
			continue;
		expect_ordered(v, before | start[v], how, seed);
		all |= 1ULL << v;
	}
	return all;
}

/* Replay one run and check every dependency. */
static void replay(const struct skip_launches *l, const char *how, uint64_t seed)
{
	struct order o;
	uint64_t launched = 0;

	memset(&o, 0, sizeof(o));
	for (int i = 0; i < l->nrun; i++) {
		const struct skip_step *s = &l->run[i];

		cr_assert_lt(s->stream, MAXS);
		switch (s->kind) {
		case SKIP_STEP_LAUNCH:
			expect_ordered(s->task, o.stream[s->stream] | o.host, how, seed);
			o.stream[s->stream] |= 1ULL << s->task;
			launched |= 1ULL << s->task;
			break;
		case SKIP_STEP_RECORD:
			o.event[s->event] = o.stream[s->stream];
			break;
		case SKIP_STEP_WAIT:
			o.stream[s->stream] |= o.event[s->event];
			break;
		case SKIP_STEP_GRAPH_LAUNCH: {
			uint64_t nodes =
			    replay_graph(l, s->graph, o.stream[s->stream] | o.host, how, seed);

			o.stream[s->stream] |= nodes;
			launched |= nodes;
			break;
		}
		case SKIP_STEP_PERSIST:
			/* every task, ordered inside by the protocol's counters: its own tests
			 * (test_persist.c, the TSan stress program) check that order */
			o.stream[s->stream] |= (1ULL << g->ntasks) - 1;
			launched |= (1ULL << g->ntasks) - 1;
			break;
		case SKIP_STEP_SYNC:
			o.host |= o.stream[s->stream];
			break;
		default:
			cr_assert_fail("seed %llu, %s: step %d of a run: kind %d",
				       (unsigned long long)seed, how, i, (int)s->kind);
		}
	}
	cr_expect_eq(launched, (1ULL << g->ntasks) - 1, "seed %llu, %s: every task once",
		     (unsigned long long)seed, how);
	cr_expect_eq(o.host, launched, "seed %llu, %s: the host waits for everything",
		     (unsigned long long)seed, how);
}

static void random_graph(uint64_t seed, int n)
{
	static const char *const modes[] = {"r", "w", "rw", "r"};
	uint64_t s = seed * 0x9e3779b97f4a7c15ULL + 11;

	for (int t = 0; t < n; t++) {
		char spec[160] = "", tok[40], name[8];
		int na = helper_below(&s, 4);

		for (int k = 0; k < na; k++) {
			snprintf(tok, sizeof(tok), "%s%s:B%d", k ? " " : "",
				 modes[helper_below(&s, 4)], helper_below(&s, 5));
			strcat(spec, tok);
		}
		snprintf(name, sizeof(name), "t%d", t);
		helper_task(g, name, spec);
		if (t > 2 && helper_below(&s, 5) == 0)
			skip_graph_add_edge(g, helper_below(&s, t), t);
	}
	cr_assert_eq(skip_graph_finalize(g), 0, "%s", skip_errmsg());
}

Test(runtime_launches, random_graphs_every_executor_orders_every_dependency)
{
	for (uint64_t seed = 1; seed <= 150; seed++) {
		skip_graph_free(g);
		g = skip_graph_new(NULL);
		random_graph(seed, 2 + (int)(seed % (MAXT - 2)));
		for (int e = 0; e < SKIP_NEXECUTORS; e++)
			for (int variant = 0; variant < 4; variant++) {
				int nstreams = 1 + variant, window = 1 + (int)(seed % 8);
				struct skip_launches *l =
				    launches((enum skip_executor)e, nstreams, window, variant & 1);
				char how[96];

				snprintf(how, sizeof(how), "%s, %d streams, window %d%s",
					 skip_executor_name((enum skip_executor)e), nstreams,
					 window, variant & 1 ? ", pdl" : "");
				replay(l, how, seed);
				skip_launches_free(l);
			}
	}
}
