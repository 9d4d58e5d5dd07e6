/*
 * persistent.c: skip_predict_persistent(): one iteration of a workload's task DAG under the
 * persistent executor (E5), predicted by the runtime's own AOT list scheduling
 * (runtime/persist.h, sk_persist_plan_new()) with the calibration's per-task, launch and epoch
 * costs (skip_advisor.h describes the model), and skip_persist_choose(): the mode whose
 * prediction is fastest. Uses the public API and the runtime's CPU half only.
 *
 * Memory: everything allocated here is freed before return.
 */
#define SK_LOG_DOMAIN "advisor"
#include <math.h>
#include <stdlib.h>

#include "persist.h"
#include "skip_advisor.h"
#include "skip_runtime.h"

/* 0 when every task of @g has a duration (finite, >= 0), else SKIP_E_INVAL naming the first. */
static int check_durations(const struct skip_graph *g, const double *task_ns)
{
	for (int t = 0; t < skip_graph_ntasks(g); t++)
		if (!task_ns || !isfinite(task_ns[t]) || task_ns[t] < 0)
			return sk_fail(SKIP_E_INVAL,
				       "persistent prediction: task '%s': a duration of %g ns (a "
				       "finite number >= 0)",
				       skip_graph_task_name(g, t), task_ns ? task_ns[t] : NAN);
	return 0;
}

/* The tasks and edges of @g for sk_persist_plan_new(), each task's tiles min(grid, @nworkers)
 * of (its duration + @task_ns) us. */
static int build_dag(const struct skip_graph *g, const double *task_ns, int nworkers,
		     double task_cost_ns, struct sk_persist_task **tasks,
		     struct sk_persist_edge **edges, int *nedges)
{
	int n = skip_graph_ntasks(g), ne = 0;

	*tasks = sk_xcalloc((size_t)n + 1, sizeof(**tasks));
	*edges = sk_xcalloc((size_t)skip_graph_nedges(g) + 1, sizeof(**edges));
	for (int t = 0; t < n; t++) {
		unsigned grid[3] = {1, 1, 1};
		double blocks;
		const int *preds = NULL;
		int np = skip_graph_preds(g, t, &preds);

		skip_graph_task_kernel(g, t, grid, NULL);
		blocks = (double)(grid[0] ? grid[0] : 1) * (grid[1] ? grid[1] : 1) *
			 (grid[2] ? grid[2] : 1);
		(*tasks)[t].ntiles = blocks < nworkers ? (int)blocks : nworkers;
		(*tasks)[t].tile_us = (task_ns[t] + task_cost_ns) / 1000;
		for (int i = 0; i < np; i++)
			(*edges)[ne++] = (struct sk_persist_edge){preds[i], t, 0, 0};
	}
	*nedges = ne;
	return 0;
}

/* With tile edges: E5's own schedule of @g (skip_persist_schedule()), each block a tile of its
 * task's duration over its rounds plus @task_cost_ns. */
static int tile_schedule(const struct skip_graph *g, const double *task_ns, int nworkers,
			 double task_cost_ns, struct skip_persist_prediction *out)
{
	int n = skip_graph_ntasks(g), err;
	double *us = sk_xcalloc((size_t)n + 1, sizeof(double)), makespan_us = 0;

	for (int t = 0; t < n; t++) {
		unsigned grid[3] = {1, 1, 1};
		double rounds;

		skip_graph_task_kernel(g, t, grid, NULL);
		rounds = ceil((double)(grid[0] ? grid[0] : 1) / nworkers);
		us[t] = (task_ns[t] + rounds * task_cost_ns) / 1000;
	}
	err = skip_persist_schedule(g, nworkers, us, &makespan_us, &out->tiles);
	free(us);
	out->makespan_ns = makespan_us * 1000;
	out->tile_edges = 1;
	return err;
}

#define SK_H100_SMS 132 /* the machine the built-in calibration describes */

/* The worker that shares @w's SM, or -1: with more workers than SMs, skip_task.cuh numbers the
 * first CTA of each SM from 0 up and a second one from @nworkers - 1 down, both in the order
 * they start, so the k-th second CTA is taken to share the SM of the k-th first one. */
static int sm_partner(int w, int nworkers, int sms)
{
	int second = nworkers - sms; /* SMs that run two workers */

	if (second <= 0 || second > sms)
		return -1;
	if (w < second)
		return nworkers - 1 - w;
	return w >= sms ? nworkers - 1 - w : -1;
}

/* A tile of the re-timed schedule (timed_makespan()). */
struct ttile {
	double start, body; /* when it started, and its body began (after the per-task cost) */
	double left;	    /* its body's work left at full pace, us, as of the last event */
};

/* The pace of running tile @g of task @t on worker @w at the moment: sm_share_rate (@rate)
 * while its SM partner runs an older tile (one that started before it, or with it and earlier
 * in the plan's order), times @mem where its task has a memory demand. */
static double tile_pace(const struct sk_persist_plan *plan, const struct ttile *tl,
			const int *running, int g, int w, int nworkers, int sms, double rate,
			double mem, const double *demand)
{
	int t = plan->tile_task[g], p = sm_partner(w, nworkers, sms), o = p >= 0 ? running[p] : -1;
	double pace = demand && demand[t] > 0 ? mem : 1;

	if (o >= 0 && (tl[o].start < tl[g].start ||
		       (tl[o].start == tl[g].start && plan->dispatch[o] < plan->dispatch[g])))
		pace *= rate;
	return pace;
}

/* The worker that runs every tile of each task of @plan, or -1 where they spread, into @sole
 * ([ntasks]). */
static void sole_workers(const struct sk_persist_plan *plan, int nworkers, int *sole)
{
	for (int t = 0; t < plan->ntasks; t++)
		sole[t] = -2; /* no tile seen yet */
	for (int w = 0; w < nworkers; w++)
		for (int i = plan->q_off[w]; i < plan->q_off[w + 1]; i++) {
			int t = plan->tile_task[plan->q[i]];

			sole[t] = sole[t] == -2 || sole[t] == w ? w : -1;
		}
}

/* Whether every producer tile that task @t's tile on worker @w waits on ran on @w (and it
 * waits on one at all): then it starts at the local cost. */
static int local_tile(const struct sk_persist_plan *plan, const int *sole, int t, int w)
{
	if (plan->pred_off[t] == plan->pred_off[t + 1])
		return 0;
	for (int k = plan->pred_off[t]; k < plan->pred_off[t + 1]; k++)
		if (sole[plan->pred[k]] != w)
			return 0;
	return 1;
}

/*
 * The makespan of @plan's AOT queues re-timed event by event where tiles slow each other or
 * start at less than the plan's cost: each worker runs its queue in order, a tile starting once
 * its worker has ended the one before and every tile of its producer tasks has ended; it takes
 * @cost_us, or @local_us where every producer tile it waits on ran on its worker (local_tile()),
 * then its body (its task's tile_us less @cost_us) at tile_pace(): slower beside an older tile
 * on its SM (@nworkers > @sms: the workload models' shared multiprocessors) and, for a task with
 * a memory demand (@demand, may be NULL), at skip_memory_pace() of the demands of the bodies
 * running, each tile of task t counting @demand[t] / its tiles. Between two events (a tile's
 * start, its body's start, its end) every pace is constant.
 */
static double timed_makespan(const struct sk_persist_plan *plan,
			     const struct sk_persist_task *tasks, int nworkers, int sms,
			     double rate, double cost_us, double local_us, const double *demand)
{
	int T = plan->total_tiles, ended = 0;
	struct ttile *tl = sk_xcalloc((size_t)T + 1, sizeof(*tl));
	int *pos = sk_xcalloc((size_t)nworkers, sizeof(int));
	int *running = sk_xmalloc((size_t)nworkers * sizeof(int));
	int *done = sk_xcalloc((size_t)plan->ntasks + 1, sizeof(int));
	int *sole = sk_xcalloc((size_t)plan->ntasks + 1, sizeof(int));
	double *pace = sk_xcalloc((size_t)nworkers, sizeof(double)), now = 0;

	sole_workers(plan, nworkers, sole);
	for (int w = 0; w < nworkers; w++) {
		running[w] = -1;
		pos[w] = plan->q_off[w];
	}
	while (ended < T) {
		double next = INFINITY, mem = 0;

		for (int w = 0; w < nworkers; w++) { /* start what can start now */
			int g, t, ready = 1;

			if (running[w] >= 0 || pos[w] >= plan->q_off[w + 1])
				continue;
			g = plan->q[pos[w]];
			t = plan->tile_task[g];
			for (int k = plan->pred_off[t]; k < plan->pred_off[t + 1]; k++)
				ready &= done[plan->pred[k]] == plan->ntiles[plan->pred[k]];
			if (!ready)
				continue;
			tl[g] = (struct ttile){
			    now, now + (local_tile(plan, sole, t, w) ? local_us : cost_us),
			    tasks[t].tile_us - cost_us};
			tl[g].left = tl[g].left > 0 ? tl[g].left : 0;
			running[w] = g;
			pos[w]++;
		}
		for (int w = 0; w < nworkers; w++) /* the bodies' demands */
			if (running[w] >= 0 && demand && tl[running[w]].body <= now)
				mem += demand[plan->tile_task[running[w]]] /
				       plan->ntiles[plan->tile_task[running[w]]];
		mem = skip_memory_pace(mem);
		for (int w = 0; w < nworkers; w++) { /* the next event */
			int g = running[w];

			if (g < 0)
				continue;
			pace[w] =
			    tile_pace(plan, tl, running, g, w, nworkers, sms, rate, mem, demand);
			if (tl[g].body > now)
				next = fmin(next, tl[g].body);
			else
				next = fmin(next, now + tl[g].left / pace[w]);
		}
		if (next == INFINITY)
			break; /* nothing runs and nothing can start: a plan that cannot finish */
		for (int w = 0; w < nworkers; w++) { /* to it */
			int g = running[w];

			if (g < 0 || tl[g].body > now)
				continue;
			tl[g].left -= (next - now) * pace[w];
			if (tl[g].left <= 1e-9 * (1 + tasks[plan->tile_task[g]].tile_us)) {
				done[plan->tile_task[g]]++;
				running[w] = -1;
				ended++;
			}
		}
		now = next;
	}
	free(tl);
	free(pos);
	free(running);
	free(done);
	free(sole);
	free(pace);
	return ended < T ? plan->makespan_us : now;
}

/* Whether any task of @n has a memory demand (@demand may be NULL). */
static int any_demand(const double *demand, int n)
{
	for (int t = 0; demand && t < n; t++)
		if (demand[t] > 0)
			return 1;
	return 0;
}

int skip_predict_persistent(const struct skip_graph *g, const double *task_ns, const double *demand,
			    int nworkers, int sms, const struct skip_calibration *cal, int mode,
			    struct skip_persist_prediction *out)
{
	struct skip_calibration dflt;
	struct sk_persist_opts o = SK_PERSIST_OPTS_DEFAULT;
	struct sk_persist_task *tasks = NULL;
	struct sk_persist_edge *edges = NULL;
	struct sk_persist_plan *plan;
	const struct skip_tile_edge *te;
	int err, nedges = 0, n = g ? skip_graph_ntasks(g) : 0;

	*out = (struct skip_persist_prediction){0};
	if (!cal) {
		skip_calibration_default(&dflt);
		cal = &dflt;
	}
	if ((err = skip_calibration_check(cal)))
		return err;
	if (n < 1 || skip_graph_level(g, 0) < 0)
		return sk_fail(SKIP_E_INVAL, "persistent prediction: no tasks, or a graph that "
					     "is not finalized");
	if (mode < 0 || mode >= SKIP_PERSIST_NMODES)
		return sk_fail(SKIP_E_INVAL, "persistent prediction: no mode %d", mode);
	if (nworkers < 1 || nworkers > SK_PERSIST_MAX_WORKERS)
		return sk_fail(SKIP_E_INVAL, "persistent prediction: %d workers (1..%d)", nworkers,
			       SK_PERSIST_MAX_WORKERS);
	if ((err = check_durations(g, task_ns)))
		return err;
	if (sms <= 0)
		sms = SK_H100_SMS;
	if (skip_graph_tile_edges(g, &te) > 0) {
		err = tile_schedule(g, task_ns, nworkers, skip_persist_task_ns(cal, mode), out);
		goto done;
	}
	err = build_dag(g, task_ns, nworkers, skip_persist_task_ns(cal, mode), &tasks, &edges,
			&nedges);
	if (!err) {
		struct sk_persist_dag dag = {n, tasks, nedges, edges};

		o.nworkers = nworkers;
		plan = sk_persist_plan_new(&dag, &o, &err);
		if (plan) {
			double rate = cal->sm_share_rate > 0 ? cal->sm_share_rate : 1;

			double cost = skip_persist_task_ns(cal, mode) / 1000,
			       local = skip_persist_local_ns(cal, mode) / 1000;

			out->makespan_ns = plan->makespan_us * 1000;
			if ((nworkers > sms && rate < 1) || any_demand(demand, n) || local < cost)
				out->makespan_ns = 1000 * timed_makespan(plan, tasks, nworkers, sms,
									 rate, cost, local, demand);
			out->tiles = plan->total_tiles;
			sk_persist_plan_free(plan);
		}
	}
	free(tasks);
	free(edges);
done:
	if (err)
		return err;
	out->workers = nworkers;
	out->launch_ns = cal->persist_launch_ns;
	out->epoch_ns = cal->persist_epoch_ns;
	out->iteration_ns = out->launch_ns + out->makespan_ns + out->epoch_ns;
	return 0;
}

int skip_persist_choose(const struct skip_graph *g, const double *task_ns, int nworkers,
			const struct skip_calibration *cal, int nmodes,
			struct skip_persist_choice *out)
{
	*out = (struct skip_persist_choice){.mode = -1};
	if (nworkers < 0)
		return sk_fail(SKIP_E_INVAL, "persistent choice: %d workers", nworkers);
	if (nmodes < 1 || nmodes > SKIP_PERSIST_NMODES)
		return sk_fail(SKIP_E_INVAL, "persistent choice: %d modes (1..%d)", nmodes,
			       SKIP_PERSIST_NMODES);
	for (int m = 0; m < nmodes; m++) {
		int fit =
		    (m == SKIP_PERSIST_AOT ? 2 : 1) * SK_H100_SMS - (m == SKIP_PERSIST_COPILOT);
		int w = nworkers > 0 ? nworkers : skip_persist_workers(g, SK_H100_SMS, fit);
		int err = w < 1 ? w
				: skip_predict_persistent(g, task_ns, NULL, w, SK_H100_SMS, cal, m,
							  &out->pred[m]);

		if (err) {
			*out = (struct skip_persist_choice){.mode = -1};
			return err;
		}
		if (!m || out->pred[m].iteration_ns < out->pred[out->mode].iteration_ns)
			out->mode = m;
	}
	out->nmodes = nmodes;
	return 0;
}
