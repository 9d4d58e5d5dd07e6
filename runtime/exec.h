/*
 * exec.h: the executors and the device they drive. Shared by the table of executors (exec.c),
 * the executors (exec/NAME.c, one file each), the recording device (launches.c) and the GPU
 * (cuda_exec.c). CPU only: nothing here includes CUDA.
 *
 * An executor is one row of the table, a struct sk_executor: its name, the plan members it
 * owns (plan.c and plan_json.c compute, check, read and write those for it) and three
 * operations: prepare (once: its streams, events, graphs, threads), run (one iteration: what it
 * launches, records and waits for) and fini. An executor never calls CUDA. It asks a struct
 * sk_dev for everything, and that device is either the GPU (cuda_exec.c, behind
 * skip_exec_new()) or a recorder that writes each request down (launches.c, behind
 * skip_plan_launches()). So the launch sequence an executor reports is the one it submits,
 * and the advisor's model of each executor is built from that report, not from a description
 * of it kept elsewhere.
 *
 * A new executor: its file in exec/ defining `const struct sk_executor sk_exec_NAME`, one row
 * X(NAME) in exec.c, and its value in enum skip_executor (skip_runtime.h). skip run's
 * --executor, plan JSON, the plan schema test and the advisor's model find it through the
 * table. Should it need something of the GPU that struct sk_dev_ops lacks, that operation goes
 * into both devices and gets a step kind (enum skip_step_kind), which the advisor's model then
 * refuses until it is taught it (tests/unit/advisor/test_workload_models.c says so).
 */
#ifndef SKIP_RUNTIME_EXEC_H
#define SKIP_RUNTIME_EXEC_H

#include "internal.h"

/* ---- the device ------------------------------------------------------------------------------ */

struct sk_dev;
struct sk_persist_plan;

/*
 * What an executor may ask of a device. Streams, events and graphs are numbered from 0 in the
 * order they are made (the value returned); the device owns them and releases them in free().
 * Each returns 0, or the number made, or a negative code with skip_errmsg() naming the task.
 * @task arguments are also what messages and the report name.
 * Threads: an executor's worker threads call bind(), launch() and sync() (each on its own
 * stream); everything else comes from the thread that calls prepare and run.
 */
struct sk_dev_ops {
	/* Make the device current on the calling thread: @thread 0 is the one that runs the
	 * executor, k + 1 its worker k. */
	int (*bind)(struct sk_dev *d, int thread);
	int (*stream_new)(struct sk_dev *d);
	/* An event for the completion of @task. */
	int (*event_new)(struct sk_dev *d, int task);
	int (*graph_new)(struct sk_dev *d);
	/* The kernel node of @task in @graph (at most one per task). */
	int (*graph_node)(struct sk_dev *d, int graph, int task);
	/* An edge between the nodes of @from and @to; @flags SKIP_STEP_PDL: programmatic. */
	int (*graph_edge)(struct sk_dev *d, int graph, int from, int to, unsigned flags);
	/* Instantiate @graph, and upload it on @stream. */
	int (*graph_ready)(struct sk_dev *d, int graph, int stream);
	/* @task's kernel on @stream; @flags SKIP_STEP_PDL: programmatic stream serialization. */
	int (*launch)(struct sk_dev *d, int stream, int task, unsigned flags);
	int (*record)(struct sk_dev *d, int stream, int event);
	/* @stream waits for @event; @task is launched on it next (for messages). */
	int (*wait)(struct sk_dev *d, int stream, int event, int task);
	int (*graph_launch)(struct sk_dev *d, int stream, int graph);
	/* The host waits for @stream; @task: the task it waits for, or -1 (for messages). With
	 * a persistent run on @stream, its error if it stopped on one. */
	int (*sync)(struct sk_dev *d, int stream, int task);
	/* E5: how many worker CTAs of the graph's persistent kernel for @mode (enum
	 * sk_persist_mode) fit co-resident, their block (the largest task block) in *@nthreads
	 * and the GPU's SMs in *@sms; or an error naming the task that cannot run under E5. */
	int (*persist_fit)(struct sk_dev *d, int mode, int *nthreads, int *sms);
	/* E5: the persistent kernel's state for @plan (which outlives the device), numbered
	 * from 0. */
	int (*persist_new)(struct sk_dev *d, const struct sk_persist_plan *plan);
	/* E5: one cooperative launch of @state's workers on @stream: one iteration of the
	 * whole graph. */
	int (*persist_launch)(struct sk_dev *d, int stream, int state);
	/* E5: @state's tile timeline (skip_exec_tile_times()); NULL: none recorded. */
	int (*persist_tiles)(struct sk_dev *d, int state, struct skip_tile_time *out, int max);
	/* The executor is done with @d: wait for its work, release what it made, free @d. */
	void (*free)(struct sk_dev *d);
};

struct sk_dev {
	const struct sk_dev_ops *ops;
	const struct skip_graph *g; /* the graph whose tasks it launches */
	int nstreams;		    /* streams made so far: 0 .. nstreams-1 */
};

/* The calls, spelled shorter in the executors. */
static inline int sk_dev_stream_new(struct sk_dev *d)
{
	return d->ops->stream_new(d);
}
static inline int sk_dev_launch(struct sk_dev *d, int stream, int task, unsigned flags)
{
	return d->ops->launch(d, stream, task, flags);
}
static inline int sk_dev_sync(struct sk_dev *d, int stream, int task)
{
	return d->ops->sync(d, stream, task);
}

/* ---- the executors --------------------------------------------------------------------------- */

/* What prepare gets; the graph and the plan (validated, the executor's own copy) outlive the
 * executor's state, the device too. */
struct sk_run {
	struct sk_dev *dev;
	const struct skip_graph *g;
	const struct skip_plan *p;
};

struct sk_executor {
	enum skip_executor id;		/* its row in sk_executors[] */
	struct skip_executor_info info; /* name, label, summary, plan fields it owns */
	/* Make what the runs need; returns the executor's state, or NULL and *@err (having freed
	 * its own memory; what it made on the device goes with the device). */
	void *(*prepare)(const struct sk_run *r, int *err);
	/* One iteration, submitted: skip_exec_run() then waits for every stream of the device. */
	int (*run)(void *state);
	/* Free the state (NULL: nothing), before the device is freed. */
	void (*fini)(void *state);
	/* E5: the worker CTAs each run launches (NULL for the other executors). */
	int (*workers)(const void *state);
	/* E5: its tile timeline (skip_exec_tile_times(); NULL for the other executors). */
	int (*tile_times)(const void *state, struct skip_tile_time *out, int max);
};

/*
 * E5's plan of finalized @g (exec/persistent.c; no device needed): a task's tiles are its
 * blocks (one-dimensional grids only), its edges those of the reduced DAG, full, except into a
 * task with declared tile edges (skip_graph_add_tile_edge()), whose edges become tile and row
 * edges, with the dependencies the reduction dropped put back where a tile edge no longer
 * covers them (docs/persistent-gpu.md, "Tile edges in workloads"). @mode an enum sk_persist_mode,
 * @nworkers 1..SK_PERSIST_MAX_WORKERS, @lookahead the co-pilot's. @durations_us ([ntasks], or
 * NULL: every tile 1 us) is each task's predicted kernel time, from which the AOT list
 * scheduling counts a tile as that time over the task's rounds on the workers,
 * d / ceil(tiles / nworkers). Free with sk_persist_plan_free(); NULL and *@err (SKIP_E_INVAL
 * naming the task, SKIP_E_NOMEM) on failure.
 */
struct sk_persist_plan *sk_persistent_plan(const struct skip_graph *g, int mode, int nworkers,
					   int lookahead, const double *durations_us, int *err);

/* The table (exec.c): sk_executors[e]->id == e. */
extern const struct sk_executor *const sk_executors[SKIP_NEXECUTORS];
/* sk_executors[e], or NULL when @e is no executor. */
const struct sk_executor *sk_executor_of(int e);

/*
 * An executor for @p on @dev: validates @p against @g, copies it, and prepares. @dev is the
 * executor's from then on (freed with skip_exec_free(), or here on failure). NULL and *@err on
 * failure.
 */
struct skip_exec *sk_exec_new_on(const struct skip_graph *g, const struct skip_plan *p,
				 struct sk_dev *dev, int *err);

#endif /* SKIP_RUNTIME_EXEC_H */
