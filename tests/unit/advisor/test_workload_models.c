/*
 * test_workload_models.c: the advisor's models of the runtime's executors (workload.c) follow
 * what the executors submit. For every executor of the runtime's table, on a small DAG, the
 * model's program is compared with the executor's own steps (skip_plan_launches(): the
 * executor run on a recording device): one host call per step, in the same order and of the
 * same kind, on the same stream; one GPU operation per task, on the stream it was launched on
 * (or as a node of the graph launched); every dependency of the DAG ordered in the program; and
 * the program runs to its end. An executor the model cannot follow (worker threads, PDL, a
 * step of a new kind) must be refused with the reason, never modelled by guess. So an executor
 * that changes what it submits fails here until its model follows.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advisor/internal.h"
#include "skip_runtime.h"

static struct skip_graph *g;
static const char kernel_symbol = 0;

/* A task that reads the buffers in @in and writes those in @out ("A B"; "" for none). */
static void task(const char *name, const char *in, const char *out, unsigned flags)
{
	struct skip_access acc[8];
	struct skip_task_desc d = {.name = name, .flags = flags, .access = acc};
	char buf[64], *save = NULL;
	const char *lists[2] = {in, out};

	for (int k = 0; k < 2; k++) {
		snprintf(buf, sizeof(buf), "%s", lists[k]);
		for (char *b = strtok_r(buf, " ", &save); b; b = strtok_r(NULL, " ", &save)) {
			int id = skip_graph_find_buffer(g, b);

			if (id < 0)
				id = skip_graph_add_buffer(g, b, 1024, SKIP_DT_U8, NULL);
			acc[d.naccess++] =
			    (struct skip_access){id, 0, 0, k ? SKIP_WRITE : SKIP_READ};
		}
	}
	d.kernel = (struct skip_kernel){.kind = SKIP_KERNEL_SYMBOL, .symbol = &kernel_symbol};
	d.grid[0] = d.block[0] = 1;
	cr_assert_geq(skip_graph_add_task(g, &d), 0, "%s", skip_errmsg());
}

/* Two roots joined (a root join in a graph, an event between streams), a fork and a chain:
 * a, b -> c; c -> d, e; d, e -> f; f -> g. With @pdl, the chain f -> g may use PDL. */
static void setup_graph(unsigned pdl)
{
	g = skip_graph_new(NULL);
	task("a", "", "A", 0);
	task("b", "", "B", 0);
	task("c", "A B", "C", 0);
	task("d", "C", "D", 0);
	task("e", "C", "E", 0);
	task("f", "D E", "F", pdl);
	task("g", "F", "G", pdl);
	cr_assert_eq(skip_graph_finalize(g), 0, "%s", skip_errmsg());
}

static void setup(void)
{
	skip_log_init("test", NULL, 1);
	setup_graph(0);
}

static void teardown(void)
{
	skip_graph_free(g);
}

TestSuite(workload_models, .init = setup, .fini = teardown);

static struct skip_plan *plan_for(int e, int pdl)
{
	struct skip_plan_opts o = {.executor = (enum skip_executor)e, .nstreams = 2, .pdl = pdl};
	struct skip_plan *p = NULL;

	cr_assert_eq(skip_plan_compute(g, &o, &p), 0, "%s", skip_errmsg());
	return p;
}

/* The steps as text, one per line. */
static char *text(const struct skip_step *s, int n)
{
	char *out = calloc((size_t)n + 1, 160), b[160];

	for (int i = 0; i < n; i++) {
		strcat(out, skip_step_format(g, &s[i], b, sizeof(b)));
		strcat(out, "\n");
	}
	return out;
}

/* Nonzero when operation @to of @p is ordered after @from: through dependencies and the order
 * of operations on a stream. */
static int after(const struct wi_prog *p, int from, int to, char *seen)
{
	const struct wi_op *o = &p->ops[to];

	if (to == from)
		return 1;
	if (seen[to])
		return 0;
	seen[to] = 1;
	for (int i = 0; i < o->ndeps; i++)
		if (after(p, from, o->deps[i], seen))
			return 1;
	for (int k = to - 1; k >= 0; k--)
		if (p->ops[k].stream == o->stream)
			return after(p, from, k, seen);
	return 0;
}

/* One operation per task, on the stream its launch step names (or a graph's node). */
static void check_operations(const struct sk_model_view *v, const char *exec, int *op_of)
{
	int n = skip_graph_ntasks(g);

	for (int t = 0; t < n; t++)
		op_of[t] = -1;
	for (int i = 0; i < v->prog.nops; i++) {
		int t = v->op_task[i];
		const struct wi_op *o = &v->prog.ops[i];
		const struct skip_step *c = &v->calls[o->call];

		cr_assert(t >= 0 && t < n, "%s: operation %d is no task's", exec, i);
		cr_expect_eq(op_of[t], -1, "%s: task '%s' runs twice", exec,
			     skip_graph_task_name(g, t));
		op_of[t] = i;
		if (c->kind == SKIP_STEP_LAUNCH) {
			cr_expect_eq(c->task, t,
				     "%s: the kernel of '%s' comes from the launch of '%s'", exec,
				     skip_graph_task_name(g, t), skip_graph_task_name(g, c->task));
			cr_expect_eq(o->stream, c->stream, "%s: '%s' on another stream", exec,
				     skip_graph_task_name(g, t));
		} else {
			cr_expect_eq(c->kind, SKIP_STEP_GRAPH_LAUNCH,
				     "%s: '%s' comes from a call that launches nothing", exec,
				     skip_graph_task_name(g, t));
			cr_expect(o->graph_node);
		}
	}
	for (int t = 0; t < n; t++)
		cr_expect_geq(op_of[t], 0, "%s: the model never runs '%s'", exec,
			      skip_graph_task_name(g, t));
}

/* Every dependency of the DAG is ordered in the program. */
static void check_dependencies(const struct sk_model_view *v, const char *exec, const int *op_of)
{
	int n = skip_graph_ntasks(g);
	char *seen = malloc((size_t)v->prog.nops + 1);

	for (int t = 0; t < n; t++) {
		const int *preds;
		int np = skip_graph_preds(g, t, &preds);

		for (int i = 0; i < np; i++) {
			memset(seen, 0, (size_t)v->prog.nops + 1);
			cr_expect(after(&v->prog, op_of[preds[i]], op_of[t], seen),
				  "%s: in the model '%s' may start before '%s' ends", exec,
				  skip_graph_task_name(g, t), skip_graph_task_name(g, preds[i]));
		}
	}
	free(seen);
}

/* The model of executor @e's plan against what the executor submits; returns whether the
 * model followed it (0: refused, with the reason in skip_errmsg()). */
static int check_executor(int e, int pdl)
{
	struct skip_plan *p = plan_for(e, pdl);
	struct skip_launches *l = NULL;
	struct sk_model_view v;
	const char *exec = skip_executor_name((enum skip_executor)e);
	int err, *op_of = calloc((size_t)skip_graph_ntasks(g) + 1, sizeof(int));
	char *want, *got;

	cr_assert_eq(skip_plan_launches(g, p, &l), 0, "%s", skip_errmsg());
	err = sk_model_view(g, p, 10000, &v);
	if (err) {
		cr_expect_eq(err, SKIP_E_UNSUPPORTED, "%s: %s", exec, skip_errmsg());
		goto out;
	}
	want = text(l->run, l->nrun);
	got = text(v.calls, v.prog.ncalls);
	cr_expect_str_eq(got, want, "the model of the %s executor assumes\n%s\nwhich submits\n%s",
			 exec, got, want);
	free(want);
	free(got);
	check_operations(&v, exec, op_of);
	check_dependencies(&v, exec, op_of);
	cr_expect_geq(wi_simulate(&v.prog), 0, "%s: the model's program does not finish", exec);
	sk_model_view_fini(&v);
out:
	free(op_of);
	skip_launches_free(l);
	skip_plan_free(p);
	return !err;
}

Test(workload_models, every_executor_is_modelled_from_what_it_submits_or_refused)
{
	const struct skip_executor_info *e;
	int modelled = 0;

	for (int i = 0; (e = skip_executor_info(i)); i++) {
		struct skip_plan *p = plan_for(i, 0);
		struct skip_launches *l = NULL;

		cr_assert_eq(skip_plan_launches(g, p, &l), 0, "%s", skip_errmsg());
		if (check_executor(i, 0)) {
			modelled++;
		} else {
			/* only an executor whose order the GPU decides may be refused: worker
			 * threads (window), or one resident kernel (persistent) */
			int resident = l->nrun && l->run[0].kind == SKIP_STEP_PERSIST;

			cr_expect(l->nthreads > 1 || resident,
				  "the %s executor is not modelled: %s", e->name, skip_errmsg());
			cr_expect(strstr(skip_errmsg(),
					 resident ? "one resident kernel" : "worker threads"),
				  "%s", skip_errmsg());
		}
		skip_launches_free(l);
		skip_plan_free(p);
	}
	cr_expect_geq(modelled, 3, "serial, streams and graph at least");
}

Test(workload_models, the_advised_executors_are_modelled)
{
	/* skip advise offers these against the serial recording (workload.c's offers) */
	static const char *const advised[] = {"serial", "streams", "graph"};

	for (size_t i = 0; i < sizeof(advised) / sizeof(advised[0]); i++) {
		int e = skip_executor_parse(advised[i]);

		cr_assert_geq(e, 0);
		cr_expect(check_executor(e, 0), "%s: %s", advised[i], skip_errmsg());
	}
}

Test(workload_models, programmatic_dependent_launch_is_refused_not_guessed)
{
	skip_graph_free(g);
	setup_graph(SKIP_TASK_PDL);
	for (int e = 0; e < SKIP_NEXECUTORS; e++) {
		struct skip_plan *p = plan_for(e, 1);
		struct sk_model_view v;
		int err;

		if (!(skip_executor_info(e)->fields & SKIP_PLAN_PDL)) {
			skip_plan_free(p);
			continue;
		}
		err = sk_model_view(g, p, 10000, &v);
		cr_expect_eq(err, SKIP_E_UNSUPPORTED, "%s with PDL: modelled",
			     skip_executor_name((enum skip_executor)e));
		cr_expect(strstr(skip_errmsg(), "programmatic dependent launch"), "%s",
			  skip_errmsg());
		if (!err)
			sk_model_view_fini(&v);
		skip_plan_free(p);
	}
}

Test(workload_models, without_pdl_marks_the_pdl_plan_is_the_plain_one)
{
	/* tasks not marked "pdl": a plan asking for PDL launches nothing with it */
	cr_expect(check_executor(SKIP_EXEC_SERIAL, 1), "%s", skip_errmsg());
	cr_expect(check_executor(SKIP_EXEC_GRAPH, 1), "%s", skip_errmsg());
}
