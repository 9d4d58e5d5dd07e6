/*
 * skip_advisor.h: what to fuse or reschedule, with a predicted gain (libskip_advisor.a, on top
 * of the analyzer).
 *
 * skip_advise() reads one run (or each occurrence of an NVTX region in it), builds a
 * discrete-event model of it - each host thread's calls and the gaps between them as measured,
 * each stream in order, kernel durations as measured - checks that the model reproduces the
 * recorded IL (its calibration error is reported with every answer), then predicts the IL after
 * each transformation: a region replayed as a CUDA graph or run as persistent kernels (each
 * scheduling mode of the runtime's E5), a kernel chain fused (SKIP's proximity score), and, for a
 * run of `skip run WORKLOAD --executor serial`, the runtime's stream plan (E2) and CUDA graph (E3).
 * The best executable item becomes a plan (schemas/plan.schema.json) that `skip run --plan`
 * executes, so the prediction can be checked. docs/advise-model.md defines each model and its
 * assumptions (docs/skip-advise.md is the manual page).
 *
 * Ownership: skip_advise() returns a report freed with skip_advice_free(); its strings belong
 * to it. Not thread-safe per trace handle.
 */
#ifndef SKIP_ADVISOR_H
#define SKIP_ADVISOR_H

#include <stddef.h>
#include <stdint.h>

#include "skip_analyzer.h"

/* The unprofiled time of a capture-range recording comes from the region's occurrences before
 * the first capture range when at least this many ran there (their median then tolerates a
 * cold first one), else from every occurrence outside the ranges. */
#define SKIP_ADVISE_BEFORE_MIN 3

/*
 * Costs the model cannot read off a trace, in five parts (the members are grouped by part, and
 * skip_calibration_keys[] names each member's part):
 *   host       the launch path outside graphs: host calls, bare, and the latencies around
 *              them (a call to its kernel's start, kernel to kernel on a stream, the GPU's last
 *              end to a synchronize's return);
 *   graph      a CUDA graph's launch call and how the GPU runs its nodes;
 *   profiler   what recording adds to a launch call;
 *   placement  where a kernel's blocks run, and what running beside other kernels costs them;
 *   persistent a persistent kernel (the runtime's E5): its one launch, what each task's dispatch
 *              costs in each scheduling mode, and the barrier that ends an iteration.
 * Measured on the H100 here with bench/apps/advise_calib and bench/advise/calibrate.py
 * (docs/advise-calibration.md "Calibration: what each figure is and how it is derived"; the keys:
 * docs/skip-advise.md "Calibration").
 *
 * The fallback rule, one for every member. A figure the model uses comes from the first of
 * these that has it:
 *   1. the recording, for a cost it shows of the run being predicted: the five latencies
 *      (launch_latency_ns, stream_gap_ns, sync_return_ns, graph_first_ns, graph_node_gap_ns)
 *      wherever it has samples of them, and the profiler's cost per runtime launch call where
 *      the recording is a launch loop (measured against launch_bare_ns). A recording does not
 *      show a bare run's costs: predicting an unprofiled run, runtime_launch_ns and
 *      stream_gap_bare_ns come before the recorded launch calls and stream gap;
 *   2. the member, when measured: any value but 0;
 *   3. the recording's own figure for the same cost, where there is one (for
 *      runtime_launch_ns: the recorded launch call less the profiler's cost; for
 *      stream_gap_bare_ns: the recorded stream gap);
 *   4. nothing: the cost is none (sm_share_rate: full pace, as at 1).
 * A figure computed from a member that is not measured is not available either (launch_bare_ns
 * 0: no recording's own profiler cost, so profiler_launch_ns applies). A calibration with no
 * member measured (all 0, as in a zeroed struct skip_advise_opts) is none given: skip_advise()
 * and skip_predict_graph() use skip_calibration_default().
 */
struct skip_calibration {
	/* host */
	double launch_bare_ns;	   /* a runtime launch call right after the previous one, bare,
				      with the host's time between them: what a recorded launch
				      loop's launches are measured against (rule 1) */
	double runtime_launch_ns;  /* workload models (skip run): one launch of the serial
				      executor on the host, bare, with the host's time before it */
	double event_record_ns;	   /* host time of cudaEventRecord */
	double stream_wait_ns;	   /* host time of cudaStreamWaitEvent */
	double stream_switch_ns;   /* extra host time of a launch onto another stream than the
				      previous launch's */
	double sync_idle_ns;	   /* host time of a synchronize on a stream already done */
	double launch_latency_ns;  /* launch return to kernel start, the stream idle */
	double stream_gap_ns;	   /* between back-to-back kernels of a stream, recorded */
	double stream_gap_bare_ns; /* workload models: the same in an unprofiled run */
	double sync_return_ns;	   /* from the GPU's last end to a synchronize's return */
	/* graph */
	double graph_launch_ns;	     /* host time of cudaGraphLaunch of a one-node graph */
	double graph_launch_node_ns; /* extra host time of cudaGraphLaunch per node after one */
	double graph_first_ns;	     /* from its return to the first node's start */
	double graph_node_gap_ns;    /* between dependent nodes of a graph */
	double graph_dispatch_ns;    /* least time between the starts of two graph nodes */
	double graph_root_join_ns;   /* extra wait of a graph node that joins branches started by
					different root nodes (the first such join only) */
	double graph_memset_gap_ns;  /* extra time of a small memset node (< 16 KiB) between two
					dependent graph nodes, beyond its duration and node gap */
	/* profiler */
	double profiler_launch_ns; /* host time a recorded runtime launch call (cudaLaunchKernel)
				      spent in the profiler, taken out for an unprofiled run */
	double profiler_driver_launch_ns; /* the same for a driver launch (cuLaunchKernelEx) */
	/* placement */
	double remote_read_cost; /* a kernel's extra time, as a fraction of its time, when all
				    it reads was written by kernels on other multiprocessors
				    (in a serial run a kernel reuses its predecessor's) */
	double sm_share_rate;	 /* the pace (0..1] of a kernel's block on a multiprocessor
				    where an older kernel's block runs, until that one ends */
	/* persistent (enum skip_persist_mode: one per-task cost per mode) */
	double persist_launch_ns;	/* host time of the persistent kernel's one (cooperative)
					   launch call */
	double persist_epoch_ns;	/* the counter barrier that ends an iteration (epoch) */
	double persist_aot_task_ns;	/* a task's dispatch, AOT: from its producer's end to its
					   start (a per-worker queue, counter waits) */
	double persist_jit_task_ns;	/* the same, JIT (a device-side ready queue) */
	double persist_copilot_task_ns; /* the same, CPU co-pilot (a host thread feeds a ring over
					   PCIe, the host on the dependency path) */
	double persist_aot_local_ns;	/* AOT's dispatch of a task on the worker that ran every
					   tile it waits on (no wait across workers) */
	double persist_jit_local_ns;	/* the same, JIT (the worker keeps the task it made
					   ready) */
	double persist_span_ns;		/* an empty task's tile in E5's tile timeline: what a
					   task's time in the workers (skip run --probe-starts'
					   worker_ns) holds besides its body, and the per-task
					   costs count already */
	/* persistent, per hop: what the per-task costs are made of, measured with them
	   (bench/persist/calibrate.sh) and printed by skip run; no model reads them */
	double persist_counter_wait_ns; /* a counter wait: AOT's per-task cost */
	double persist_queue_pop_ns;	/* a pop of JIT's ready queue: JIT's per-task cost less
					   AOT's */
	double persist_ring_rtt_ns;	/* the co-pilot ring's round trip (GPU to host to GPU): its
					   per-task cost on a chain, no lookahead */
};
/* The built-in values: the H100 of docs/BENCHMARKS.md, measured as docs/advise-calibration.md
 * "Calibration: what each figure is and how it is derived" says. */
SKIP_API void skip_calibration_default(struct skip_calibration *c);
/* The members of struct skip_calibration by their JSON name (as --calibration files and the
 * report's "calibration" object spell them), in output order, with their part and the values
 * each accepts; the last entry's name is NULL. Static. */
struct skip_calibration_key {
	const char *name;
	size_t offset;	  /* of its double in struct skip_calibration */
	const char *part; /* "host", "graph", "profiler", "placement" or "persistent" */
	double min, max;  /* the values accepted, inclusive */
	const char *unit; /* "ns", or "fraction" */
};
SKIP_API extern const struct skip_calibration_key skip_calibration_keys[];
/* Every member of @c within its key's range: 0, or SKIP_E_INVAL with skip_errmsg() naming the
 * first member that is not, its range and unit ("'graph_launch_ns': must be a number >= 0 and
 * <= 1e+09 (ns: 1 s); got 1e+19"). skip_advise() and skip_predict_graph() refuse a calibration
 * that fails it. */
SKIP_API int skip_calibration_check(const struct skip_calibration *c);
/* Set the member named @name to @value, checked as skip_calibration_check() does: 0, or
 * SKIP_E_INVAL (unknown member, or out of range: the message says the range and unit). */
SKIP_API int skip_calibration_set(struct skip_calibration *c, const char *name, double value);
/* A calibration file's text (a JSON object; members it lacks keep the built-in values) into @c:
 * 0, or SKIP_E_INVAL with skip_errmsg() starting with @path (not JSON, not an object, an
 * unknown member, a value that is not a number or out of its range). @c is filled either way. */
SKIP_API int skip_calibration_parse(const char *text, const char *path, struct skip_calibration *c);

/* The persistent executor's scheduling modes (runtime/persist.h has the protocol). */
enum skip_persist_mode {
	SKIP_PERSIST_AOT,     /* per-worker queues fixed at plan time */
	SKIP_PERSIST_JIT,     /* a device-side ready queue */
	SKIP_PERSIST_COPILOT, /* a CPU thread feeds the GPU through a host-mapped ring */
	SKIP_PERSIST_NMODES
};
/* "aot", "jit", "copilot" (static); "?" for no mode. */
SKIP_API const char *skip_persist_mode_name(int mode);
/* The calibration's per-task dispatch cost of @mode (persist_*_task_ns), in ns; 0 for no mode. */
SKIP_API double skip_persist_task_ns(const struct skip_calibration *c, int mode);
/* The same for a task whose producers' tiles all ran on its own worker: AOT's and JIT's
 * persist_*_local_ns, at most their cost across workers (a file that sets only that one keeps
 * it); the co-pilot's and no mode's as skip_persist_task_ns(). */
SKIP_API double skip_persist_local_ns(const struct skip_calibration *c, int mode);

/*
 * Kernels that share the memory system (advisor/whatif.c; docs/advise-model.md "Kernels that
 * share the memory"). A kernel's memory demand is the share of the GPU's memory throughput it
 * takes running alone, 0 to 1 (0: not limited by it, or not known). Kernels running at once
 * whose demands add up to D > 1 each progress at pace 1 / D (skip_memory_pace()); the others
 * keep their pace.
 *
 * skip_memory_demand(): the demand of a kernel that took @alone_ns alone and @pair_ns beside a
 * copy of itself started with it on other multiprocessors (skip run --probe-starts): two copies
 * of demand q take alone * max(1, 2q), so q = pair / (2 alone) where the pair took at least
 * 1.2 times as long (q 0.6 to 1), else 0 (the difference is within what a launch varies, and a
 * demand of at most a half is never seen by two copies). 0 for a kernel not probed (either
 * time <= 0, or not finite).
 * skip_memory_pace(): 1 / @demands where they add up to more than 1, else 1.
 */
SKIP_API double skip_memory_demand(double alone_ns, double pair_ns);
SKIP_API double skip_memory_pace(double demands);

/* A kernel chain: L kernel names in a row on a stream (SKIP's proximity score). */
struct skip_chain {
	int len;
	char **names;	       /* short names, for display */
	int32_t *ids;	       /* demangled-name ids (identity) */
	int64_t count;	       /* occurrences (windows may overlap), in the analyzed run and the
				  repetitions that --region pools (the report's runs) */
	int64_t head_launches; /* launches of the first kernel, in the same runs */
	double ps;	       /* count / head_launches */
	double launch_ns;      /* mean t_api of the launch calls fusion would remove */
	double recoverable_ns; /* (len - 1) * count * launch_ns: the rank */
};

enum skip_advice_kind {
	SKIP_ADVICE_GRAPH,    /* replay a region (each occurrence) as one CUDA graph */
	SKIP_ADVICE_FUSION,   /* fuse a chain of kernels into one */
	SKIP_ADVICE_STREAMS,  /* run a workload DAG on several streams (E2) */
	SKIP_ADVICE_DAGGRAPH, /* run a workload DAG as one CUDA graph (E3) */
	SKIP_ADVICE_PERSIST,  /* run a region as persistent kernels (its kernels recompiled as
				 tasks): predicted_il_ns is the best mode's */
};

struct skip_advice {
	enum skip_advice_kind kind;
	char *title;		  /* one line */
	char *assumptions;	  /* what the prediction takes for granted */
	double baseline_il_ns;	  /* the model without the change (median over regions) */
	double predicted_il_ns;	  /* the model with it */
	double speedup;		  /* baseline / predicted */
	double saved_ns;	  /* baseline - predicted (per region, medians) */
	double total_saved_ns;	  /* summed over the regions (items are ranked by saved_ns
				     times regions) */
	size_t regions;		  /* regions the prediction is over */
	double calibration_error; /* of the model of those regions, as recorded */
	int chain;		  /* FUSION: index into the report's chains */
	int overlaps;		  /* FUSION: the chain (index) of a fusion item before it that
				     shares kernels with this one (their savings do not add), -1 */
	char *plan_json;	  /* STREAMS, DAGGRAPH: the plan for skip run (NULL otherwise) */
	int persist_mode;	  /* PERSIST: the mode predicted fastest (enum skip_persist_mode),
				     -1 otherwise */
	double persist_il_ns[SKIP_PERSIST_NMODES];    /* PERSIST: each mode's predicted IL
							 (median over the regions) */
	double persist_saved_ns[SKIP_PERSIST_NMODES]; /* PERSIST: each mode's total saved */
};

struct skip_advise_opts {
	int64_t run_id;	      /* 0: the first run */
	const char *region;   /* NVTX range: one model per occurrence; NULL: the whole run */
	int min_len, max_len; /* chain lengths (default 2..8) */
	double min_ps;	      /* keep chains with PS >= this (default 1.0) */
	int top;	      /* chains to model (default 5) */
	int profiled;	      /* predict the recorded (profiled) run, not an unprofiled one */
	const char *workload; /* a workload file: the trace is `skip run` of it, serial */
	const char *size;     /* its "sizes" entry, as given to skip run --size */
	/* With workload: what another kernel's start costs a task's kernel while it runs (ns),
	 * (start_demands, may be NULL: none) its memory demand, 0..1 (skip_memory_demand()),
	 * and (start_worker_ns, may be NULL: none) its time alone in E5's workers (ns, 0: not
	 * timed; the persistent item takes it for the task's time), by task name, as skip run
	 * --probe-starts measures them; tasks not named: nothing. starts_workload (may be NULL)
	 * is the probed workload's name, checked against it. */
	const char *const *start_tasks;
	const double *start_costs_ns;
	const double *start_demands;
	const double *start_worker_ns;
	int nstarts;
	const char *starts_workload;
	struct skip_calibration cal; /* all 0: skip_calibration_default() */
};

struct skip_advice_report {
	char *path;
	int64_t run_id;
	char *region;
	size_t regions;		   /* regions modelled (occurrences, iterations, or 1) */
	size_t runs;		   /* workload and region modes: runs whose iterations or
				      occurrences are pooled (1 with run_id given; else every run of
				      the trace that has some) */
	double recorded_il_ns;	   /* median recorded IL of those regions */
	double replay_il_ns;	   /* median IL of the model of the recording */
	double calibration_error;  /* median |replay - recorded| / recorded */
	struct skip_chain *chains; /* PS >= min_ps, by recoverable time */
	size_t nchains;
	struct skip_advice *items; /* by total predicted saved time, best first */
	size_t nitems;
	int best_plan;		  /* the fastest item with a plan (written by -o), -1 none; a
				     persistent plan only when more than 15% faster than the
				     best other (docs/advise-model.md "The plan written") */
	char *plan_note;	  /* why a faster persistent item is not the plan, or NULL */
	size_t fusion_no_gain;	  /* top chains modelled and predicted to save nothing: no item */
	int profiled;		  /* predictions are for a profiled run */
	char *workload;		  /* the workload's name (workload mode), else NULL */
	double launch_latency_ns; /* read off the recording (or the calibration's, when it shows */
	double stream_gap_ns;	  /* none), as modelled */
	double sync_return_ns;
	double profiler_launch_ns;     /* the profiler's cost per runtime launch call estimated from
					  the run's launch loop (docs/advise-model.md "Host side"),
					  -1 none (the calibration's profiler_launch_ns is taken out
					  instead); pooled repetitions each use their own */
	double calls_per_launch;       /* API calls recorded per launch call (>= 1): what the
					  calibration's per-call profiler cost is multiplied by when
					  the recording shows no launch loop */
	const char *unprofiled_source; /* where the items' "now" comes from (static):
					  "uncaptured" (the median wall interval of the region's
					  occurrences outside the run's capture ranges, skip record
					  --capture-range), "baseline" (the baseline runs' median
					  wall interval of the region), "estimate" (the model
					  without the profiler's cost per launch) or "profiled"
					  (--profiled) */
	size_t uncaptured;	       /* "uncaptured": those occurrences; else 0 */
	int uncaptured_before;	       /* "uncaptured": 1 when they are those that ended before
					  the first capture range (at least
					  SKIP_ADVISE_BEFORE_MIN did), 0 when they are all the
					  occurrences outside the ranges */
	double unprofiled_ns;	       /* "baseline": that median; else 0 */
	size_t baseline_runs;	       /* baseline runs of the run's configuration */
	char *unprofiled_note;	       /* why baseline runs present were not used, or NULL */
	struct skip_calibration cal;   /* as used */
};

/*
 * Analyze and predict. Errors (skip_errmsg() set): SKIP_E_EMPTY (no kernels in the run),
 * SKIP_E_NOTFOUND (no such run or region), SKIP_E_INVAL (a workload that does not match the
 * trace: the message says how), and the codes of skip_timeline_load().
 */
SKIP_API int skip_advise(struct skip_trace *t, const struct skip_advise_opts *o,
			 struct skip_advice_report **out);
SKIP_API void skip_advice_free(struct skip_advice_report *r);
/* "graph", "fusion", "streams", "dag-graph", "persistent" (static). */
SKIP_API const char *skip_advice_kind_name(enum skip_advice_kind k);
/* The report as JSON (caller frees), NULL when out of memory. */
SKIP_API char *skip_advice_json(const struct skip_advice_report *r);
/* The best executable item's plan with the "advice" and "prediction" members of
 * schemas/plan.schema.json (caller frees); NULL with skip_errmsg() set when no item has a plan
 * (SKIP_E_UNSUPPORTED: only --workload advice is executable). */
SKIP_API char *skip_advice_plan(const struct skip_advice_report *r);

/*
 * For `skip report`'s sweep table: medians over the occurrences of @tl's region (the whole run
 * when it was loaded without one) of the recorded IL, the model's IL of the recording, the
 * model's IL without the profiler's cost per launch (as recorded when @profiled), the IL
 * replayed as one CUDA graph and the IL run as persistent kernels. @cal NULL: the defaults. Returns
 * 0 or SKIP_E_EMPTY.
 */
struct skip_graph_prediction {
	double recorded_ns, replay_ns, baseline_ns, graph_ns;
	double persist_ns;	  /* the IL run as persistent kernels, in the fastest mode (the
				     persistent advice item's model) */
	int persist_mode;	  /* that mode (enum skip_persist_mode) */
	double calibration_error; /* median |replay - recorded| / recorded */
	size_t regions;
};
SKIP_API int skip_predict_graph(const struct skip_timeline *tl, const struct skip_calibration *cal,
				int profiled, struct skip_graph_prediction *out);

/* ---- a workload under the persistent executor (advisor/persistent.c) --------------------- */

/*
 * One iteration of a workload's task DAG run by the persistent executor (E5), for the workload
 * models once the runtime has E5 (the executor itself is not modelled here: nothing calls this
 * yet but the tests).
 *
 * @g: the workload's finalized graph (runtime/skip_runtime.h); its reduced DAG's edges are the
 *     dependencies, each a whole-task edge.
 * @task_ns: [skip_graph_ntasks(g)] each task's predicted duration as a kernel of its own (what
 *     the workload models take from the recording), >= 0.
 * @demand: NULL, or [skip_graph_ntasks(g)] each task's memory demand, 0..1
 *     (skip_memory_demand(); 0: none).
 * @nworkers: the resident worker CTAs, 1..1024 (on the H100: occupancy x 132).
 * @sms: the GPU's multiprocessors (<= 0: the H100's 132).
 * @mode: enum skip_persist_mode; @cal: its per-task cost, the launch and epoch costs and
 *     sm_share_rate (NULL: the built-in calibration).
 *
 * A task of grid G blocks becomes min(G, @nworkers) tiles (its grid capped at one wave of the
 * workers: a larger grid's extra waves run inside its tiles), each taking the task's duration
 * plus the mode's per-task cost (its dispatch after its producers end: skip_persist_task_ns()).
 * The tiles are list-scheduled on the workers as the runtime's AOT plan schedules them
 * (runtime/persist.c, sk_persist_plan_new(): the longest remaining path first, each tile to the
 * worker where it can start first, after every tile of its producers); JIT and the co-pilot
 * dispatch at run time, which the same greedy schedule stands for. A graph with tile edges
 * (skip_graph_add_tile_edge()) is scheduled as E5's plan runs it instead
 * (skip_persist_schedule()): every block a tile, taking its task's duration over the task's
 * rounds on the workers (ceil(G / @nworkers)) plus the per-task cost, and a consumer tile
 * waiting only on the producer tiles it reads. With more workers than @sms, two share an SM
 * (worker w and @nworkers - 1 - w, as skip_task.cuh numbers them): without tile edges, a tile
 * whose SM partner runs an older tile runs its task's time at sm_share_rate until that one
 * ends (the workload models' shared multiprocessors); and a tile of a task with a memory
 * demand runs its body at skip_memory_pace() of the bodies running at the moment, each tile of
 * a task counting its task's demand over its tiles; a tile whose producer tiles all ran on its
 * own worker starts at skip_persist_local_ns() instead of the cost across workers. Where any of
 * these applies (not with tile edges), the plan's queues are re-timed event by event: each
 * worker's tiles in its queue's order, a tile starting once its worker is free and its
 * producers' tiles have all ended. The iteration is persist_launch_ns + that makespan +
 * persist_epoch_ns.
 *
 * Returns 0 and *@out, or SKIP_E_INVAL (skip_errmsg() says why: a graph not finalized or
 * empty, a duration that is negative or not finite, a worker count or mode out of range, a
 * calibration skip_calibration_check() refuses) or SKIP_E_NOMEM. Thread-safe.
 */
struct skip_persist_prediction {
	double makespan_ns;  /* the tiles' list schedule, per-task costs included */
	double launch_ns;    /* persist_launch_ns */
	double epoch_ns;     /* persist_epoch_ns */
	double iteration_ns; /* launch_ns + makespan_ns + epoch_ns */
	int tiles;	     /* tiles scheduled */
	int workers;	     /* the workers it was predicted on */
	int tile_edges;	     /* scheduled with the graph's tile edges, every block a tile */
};
struct skip_graph;
SKIP_API int skip_predict_persistent(const struct skip_graph *g, const double *task_ns,
				     const double *demand, int nworkers, int sms,
				     const struct skip_calibration *cal, int mode,
				     struct skip_persist_prediction *out);

/*
 * The persistent executor's mode for a workload (what `skip run` does with mode auto): each of
 * the first @nmodes modes (enum skip_persist_mode order, 1..SKIP_PERSIST_NMODES: the modes the
 * runtime runs) predicted by skip_predict_persistent() with the same arguments (no memory
 * demands), on @nworkers,
 * or with @nworkers 0 on the mode's default workers on an H100 (skip_persist_workers() on 132
 * SMs, as many as skip_task.cuh's workers fit there: two an SM under AOT, one under JIT and
 * the co-pilot, whose dispatcher takes one more), and the one whose iteration is shortest; a tie
 * goes to the earlier mode. Returns 0 and *@out, or skip_predict_persistent()'s errors
 * (SKIP_E_INVAL also for @nmodes out of range). Thread-safe.
 */
struct skip_persist_choice {
	int mode;   /* the fastest (enum skip_persist_mode) */
	int nmodes; /* pred[0..nmodes) are filled */
	struct skip_persist_prediction pred[SKIP_PERSIST_NMODES];
};
SKIP_API int skip_persist_choose(const struct skip_graph *g, const double *task_ns, int nworkers,
				 const struct skip_calibration *cal, int nmodes,
				 struct skip_persist_choice *out);

/* ---- skip report's sweep table (advisor/sweep.c) ----------------------------------------- */

/*
 * Fill @r->sweep->graph (struct skip_graph_gains, skip_analyzer.h): for each value of the sweep,
 * skip_predict_graph() (the graph and the persistent predictions) on the timeline of each of its
 * runs (each occurrence of @o->region, or the whole run when @o->region is NULL; unprofiled, with
 * @cal, NULL: the defaults), then the medians over the value's runs. Runs that cannot be read, hold
 * no occurrence of the region or launched nothing are left out of their value's row; a value left
 * with no run has no row. Replaces a table filled before; does nothing when @r has no sweep. @t and
 * @o are those @r was analyzed with. Returns 0, or SKIP_E_INVAL (skip_errmsg() set, @r unchanged)
 * for a calibration skip_calibration_check() refuses. The table belongs to @r: skip_report_free()
 * frees it. Not thread-safe per trace handle.
 */
SKIP_API int skip_report_add_graph_gain(struct skip_trace *t, const struct skip_analysis_opts *o,
					const struct skip_calibration *cal, struct skip_report *r);

#endif /* SKIP_ADVISOR_H */
