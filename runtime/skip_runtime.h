/*
 * skip_runtime.h: libskip_runtime, task graphs of GPU kernels and the executors that run them.
 *
 * A graph holds buffers (device memory the runtime allocates, or pointers the caller
 * registers), CUDA modules, and tasks: a kernel (by name in a module, a CUfunction, or a
 * runtime-API kernel symbol), its launch shape, dynamic shared memory, argument list, and the
 * byte ranges of buffers it reads and writes. skip_graph_finalize() derives the dependencies
 * from those access sets (read-after-write, write-after-read, write-after-write), adds the
 * explicit edges, rejects cycles and reduces the result to its transitive reduction.
 *
 * A plan (struct skip_plan, schemas/plan.schema.json) says how to run the graph: E1 serial
 * stream (the reference), E2 several streams with events (KeSCo/HuntKT stream assignment and
 * barrier pruning), E3 a CUDA graph built with the explicit graph API (optionally with
 * programmatic-dependent-launch edges), or E4 an ACS-style window scheduler over a pool of
 * streams. Each executor names the plan members it owns (skip_executor_info()); plans are
 * computed here or loaded from JSON, and always validated against the graph before anything
 * runs. What an executor submits for a plan, call by call, is reported without a GPU by
 * skip_plan_launches() (the advisor models the executors from it). A workload file
 * (schemas/workload.schema.json) describes a whole graph in JSON: skip_workload_load().
 *
 * Everything up to skip_graph_load() is CPU-only and works without a GPU or a CUDA toolkit
 * (libskip_taskgraph.a holds that half alone; libskip_runtime.a holds both halves).
 * The GPU half needs a build with CUDA; the library reaches the driver through the CUDA
 * runtime (linked statically) and cudaGetDriverEntryPointByVersion(), so programs that link it
 * still start on machines without a GPU driver and get SKIP_E_NODEV from skip_graph_load().
 *
 * Errors: functions return 0 or a negative SKIP_E_* code and set skip_errmsg(), which names
 * the offending task, buffer or plan entry. Constructors return NULL and set *err.
 * Ownership: skip_graph_free() releases everything the graph allocated (device memory, modules,
 * copies of names and argument values); registered pointers stay the caller's. Strings passed
 * in are copied. A returned `char *` is the caller's (free()); a `const` pointer is borrowed
 * from its owner and valid while that owner lives.
 * Thread safety: one graph, plan or executor is used by one thread at a time. Different graphs
 * may be used from different threads.
 */
#ifndef SKIP_RUNTIME_H
#define SKIP_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#include "skip_common.h"

/* ---- buffers --------------------------------------------------------------------------------- */

/* Element type of a buffer: decides how random/constant contents are written and how
 * results are compared (floats with a tolerance, everything else exactly). */
enum skip_dtype {
	SKIP_DT_U8, /* raw bytes */
	SKIP_DT_I32,
	SKIP_DT_U32,
	SKIP_DT_I64,
	SKIP_DT_U64,
	SKIP_DT_F32,
	SKIP_DT_F64,
	SKIP_DT_BF16, /* bfloat16: compared as floats; random and constant contents rounded to
			 nearest (runtime/bf16.h) */
};

/* Initial contents, written by skip_graph_reset(). */
enum skip_init_kind {
	SKIP_INIT_NONE,	  /* leave as allocated (undefined) */
	SKIP_INIT_ZERO,	  /* all bytes 0 */
	SKIP_INIT_CONST,  /* every element = value */
	SKIP_INIT_RANDOM, /* element i = uniform in [lo, hi) from (seed, i); integers: [lo, hi) */
	SKIP_INIT_FILE,	  /* the first size bytes of the file at path (shorter files: an error) */
};

struct skip_buffer_init {
	enum skip_init_kind kind;
	double value;	  /* CONST */
	double lo, hi;	  /* RANDOM range */
	uint64_t seed;	  /* RANDOM */
	const char *path; /* FILE (copied) */
};

/* ---- tasks ----------------------------------------------------------------------------------- */

enum skip_kernel_kind {
	SKIP_KERNEL_MODULE,   /* function `name` in module `module` (skip_graph_add_module) */
	SKIP_KERNEL_FUNCTION, /* a CUfunction the caller loaded (cast to void *) */
	SKIP_KERNEL_SYMBOL,   /* a runtime-API kernel: the address of a __global__ function */
};

struct skip_kernel {
	enum skip_kernel_kind kind;
	int module;	    /* MODULE: id from skip_graph_add_module() */
	const char *name;   /* MODULE: function name (extern "C" or mangled); copied */
	void *function;	    /* FUNCTION: CUfunction */
	const void *symbol; /* SYMBOL: &kernel */
};

enum skip_arg_kind {
	SKIP_ARG_VALUE,	 /* size bytes copied from value */
	SKIP_ARG_BUFFER, /* the device address of buffer + offset, resolved at load time */
};

struct skip_arg {
	enum skip_arg_kind kind;
	const void *value; /* VALUE: the bytes (copied) */
	size_t size;	   /* VALUE: 1..256 bytes */
	int buffer;	   /* BUFFER: buffer id */
	size_t offset;	   /* BUFFER: bytes into the buffer */
};

enum skip_access_mode { SKIP_READ = 1, SKIP_WRITE = 2, SKIP_READ_WRITE = 3 };

/* A byte range of a buffer that a task reads and/or writes. */
struct skip_access {
	int buffer;    /* buffer id */
	size_t offset; /* first byte */
	size_t size;   /* bytes; 0 = from offset to the end of the buffer */
	unsigned mode; /* enum skip_access_mode bits */
};

enum skip_task_flags {
	/* The kernel calls cudaGridDependencySynchronize() (griddepcontrol.wait) before it reads
	 * anything a predecessor wrote, and may trigger its dependents early: an edge between two
	 * such tasks may be a programmatic-dependent-launch edge when the plan asks for PDL. */
	SKIP_TASK_PDL = 1 << 0,
};

struct skip_task_desc {
	const char *name; /* unique; copied; NULL gives "t<id>" */
	struct skip_kernel kernel;
	unsigned grid[3];	     /* blocks; 0 entries count as 1 */
	unsigned block[3];	     /* threads per block; 0 entries count as 1 */
	unsigned shared_bytes;	     /* dynamic shared memory per block */
	const struct skip_arg *args; /* copied */
	int nargs;
	const struct skip_access *access; /* copied */
	int naccess;
	unsigned flags; /* enum skip_task_flags */
};

/* ---- graph ----------------------------------------------------------------------------------- */

struct skip_graph;

/* A new, empty graph. NULL with *err = SKIP_E_NOMEM on failure. Free with skip_graph_free(). */
SKIP_API struct skip_graph *skip_graph_new(int *err);
/* Release the graph, its device memory and modules (loaded or not). NULL is a no-op. */
SKIP_API void skip_graph_free(struct skip_graph *g);

/* A buffer of @size_bytes the runtime allocates at load time. Returns its id (>= 0) or
 * SKIP_E_INVAL (empty or duplicate name, size 0) / SKIP_E_NOMEM. @init may be NULL (NONE). */
SKIP_API int skip_graph_add_buffer(struct skip_graph *g, const char *name, size_t size_bytes,
				   enum skip_dtype dtype, const struct skip_buffer_init *init);
/* A buffer at a device pointer the caller owns (it must outlive the graph's executors).
 * Returns its id or a negative code. @init as for skip_graph_add_buffer(). */
SKIP_API int skip_graph_register_buffer(struct skip_graph *g, const char *name, void *dev_ptr,
					size_t size_bytes, enum skip_dtype dtype,
					const struct skip_buffer_init *init);
/* Comparison tolerance used by skip_graph_compare() for a float buffer:
 * |a - b| <= atol + rtol * |b|. Defaults: rtol 1e-5, atol 1e-6 (f32); 1e-12, 1e-12 (f64);
 * 1e-2, 1e-3 (bf16). */
SKIP_API int skip_graph_set_tolerance(struct skip_graph *g, int buffer, double rtol, double atol);

/* A CUDA module (cubin, fatbin or PTX) read from @path at load time. Returns its id. */
SKIP_API int skip_graph_add_module(struct skip_graph *g, const char *path);

/* Add a task. Returns its id (>= 0; ids count up from 0 in program order) or SKIP_E_INVAL
 * with skip_errmsg() saying what is wrong (unknown buffer, range outside the buffer, duplicate
 * name, zero launch dimension...). */
SKIP_API int skip_graph_add_task(struct skip_graph *g, const struct skip_task_desc *desc);
/* An explicit dependency: @to runs after @from. Either direction in program order. */
SKIP_API int skip_graph_add_edge(struct skip_graph *g, int from, int to);

/*
 * Tile-granular dependencies (cuSync), for the persistent executor E5: task @to's dependency
 * on @from is one where each block ("tile") of @to needs only some blocks of @from, so that
 * under E5 a tile of @to waits only on those. The other executors order the two tasks fully,
 * which is correct, only with less overlap. Blocks are numbered in grid order.
 *   SKIP_TILE_TILE  tile c of n_c reads the tiles of n_p whose share of [0, 1) overlaps
 *                   its own: [c*n_p/n_c, ceil((c+1)*n_p/n_c)) (cuSync's TileSync);
 *   SKIP_TILE_ROW   @rows R, which divides both block counts: each task's tiles are R rows of
 *                   consecutive tiles, and tile c reads all of the producer's row c / (n_c/R)
 *                   (cuSync's RowSync: C2 = C1 * B2 reads a row block of C1).
 */
enum skip_tile_policy { SKIP_TILE_TILE = 1, SKIP_TILE_ROW = 2 };

struct skip_tile_edge {
	int from, to; /* task ids: @to depends on @from */
	enum skip_tile_policy policy;
	int rows; /* SKIP_TILE_ROW: >= 1; otherwise 0 */
};

/* Declare @e (copied). Checked here: the tasks, the policy, rows >= 1, one declaration per
 * pair; at skip_graph_finalize(): that @e->to depends on @e->from (they access a common byte,
 * one of them writing, and @from comes first in program order; or an explicit edge) and that
 * the rows divide both tasks' block counts. 0 or SKIP_E_INVAL. */
SKIP_API int skip_graph_add_tile_edge(struct skip_graph *g, const struct skip_tile_edge *e);
/* The declared tile edges, in the order they were added (borrowed array, valid while @g is;
 * *@edges may be NULL when there are none). Returns their number. */
SKIP_API int skip_graph_tile_edges(const struct skip_graph *g, const struct skip_tile_edge **edges);
/* "tile" or "row"; NULL for no policy. */
SKIP_API const char *skip_tile_policy_name(int policy);

/*
 * Derive the dependencies and close the graph for changes. Returns 0, SKIP_E_INVAL with
 * "cycle: a -> b -> a" when the explicit edges make a cycle, or naming a tile edge that is
 * wrong (skip_graph_add_tile_edge()), or SKIP_E_NOMEM; on failure the graph stays open as it
 * was.
 */
SKIP_API int skip_graph_finalize(struct skip_graph *g);

SKIP_API int skip_graph_ntasks(const struct skip_graph *g);
SKIP_API int skip_graph_nbuffers(const struct skip_graph *g);
SKIP_API const char *skip_graph_task_name(const struct skip_graph *g, int task);
/* The kernel of @task: its function name for a module kernel, NULL for a CUfunction or a
 * symbol (borrowed); @grid and @block (may be NULL) get its launch shape. */
SKIP_API const char *skip_graph_task_kernel(const struct skip_graph *g, int task, unsigned grid[3],
					    unsigned block[3]);
/* The byte ranges @task reads and writes (borrowed array, sizes resolved: never 0); returns
 * their number, 0 for an unknown task. */
SKIP_API int skip_graph_task_access(const struct skip_graph *g, int task,
				    const struct skip_access **access);
SKIP_API const char *skip_graph_buffer_name(const struct skip_graph *g, int buffer);
SKIP_API size_t skip_graph_buffer_size(const struct skip_graph *g, int buffer);
/* Task or buffer id by name, or SKIP_E_NOTFOUND. */
SKIP_API int skip_graph_find_task(const struct skip_graph *g, const char *name);
SKIP_API int skip_graph_find_buffer(const struct skip_graph *g, const char *name);
/* After finalize: the direct predecessors of @task in the transitively reduced DAG, sorted by
 * id (borrowed array; *preds may be NULL when there are none). Returns their number. */
SKIP_API int skip_graph_preds(const struct skip_graph *g, int task, const int **preds);
/* After finalize: number of edges in the reduced DAG, its longest-path level of @task (sources
 * are level 0), and the width (the largest number of tasks on one level). */
SKIP_API int skip_graph_nedges(const struct skip_graph *g);
SKIP_API int skip_graph_level(const struct skip_graph *g, int task);
SKIP_API int skip_graph_width(const struct skip_graph *g);
/* After finalize: nonzero when @b must run after @a (a path a -> ... -> b exists). */
SKIP_API int skip_graph_depends(const struct skip_graph *g, int a, int b);

/* ---- plans ----------------------------------------------------------------------------------- */

enum skip_executor {
	SKIP_EXEC_SERIAL,     /* E1: one stream, topological order */
	SKIP_EXEC_STREAMS,    /* E2: several streams, cross-stream dependencies as events */
	SKIP_EXEC_GRAPH,      /* E3: one CUDA graph, instantiated once, replayed */
	SKIP_EXEC_WINDOW,     /* E4: window of W pending launches, conflict checks, stream pool */
	SKIP_EXEC_PERSISTENT, /* E5: one resident kernel runs every task's tiles */
	SKIP_NEXECUTORS	      /* their number: a new executor's value goes just before it */
};

/* The members of a plan (struct skip_plan and its JSON) that an executor may own: it reads
 * them, plan JSON writes them for it, skip_plan_validate() checks them, and a plan for
 * another executor that gives one of the lists is refused. */
enum skip_plan_field {
	SKIP_PLAN_ORDER = 1 << 0,      /* "order": order */
	SKIP_PLAN_STREAMS = 1 << 1,    /* "streams": nstreams (the streams, or the stream pool) */
	SKIP_PLAN_ASSIGNMENT = 1 << 2, /* "assignment": stream */
	SKIP_PLAN_EVENTS = 1 << 3,     /* "events" and their counts: events, nevents, events_* */
	SKIP_PLAN_PDL = 1 << 4,	       /* "pdl": pdl */
	SKIP_PLAN_WINDOW = 1 << 5,     /* "window": window */
	SKIP_PLAN_PERSIST = 1 << 6,    /* "mode", "workers": mode, workers */
	SKIP_PLAN_DURATIONS = 1 << 7,  /* "durations_us": durations_us */
};

/* What an executor is, from the table of executors (runtime/exec.c). */
struct skip_executor_info {
	const char *name;    /* "serial": what plans, traces and `skip run --executor` call it */
	const char *label;   /* "E1" */
	const char *summary; /* a few words for help texts: "the reference" */
	unsigned fields;     /* enum skip_plan_field bits: the plan members it owns */
};

/* The executor @e (borrowed, static), or NULL when there is none of that number: loop from 0
 * until NULL to list them in their order. */
SKIP_API const struct skip_executor_info *skip_executor_info(int e);
/* "serial", "streams", "graph", "window" ("?" for none); skip_executor_parse() returns the
 * enum or SKIP_E_INVAL ("unknown executor 'x' (serial, streams, graph or window)"). */
SKIP_API const char *skip_executor_name(enum skip_executor e);
SKIP_API int skip_executor_parse(const char *name);

/* A cross-stream wait: the stream of @to waits for the completion of @from. */
struct skip_plan_event {
	int from, to; /* task ids */
};

struct skip_plan {
	enum skip_executor executor;
	int ntasks;   /* = skip_graph_ntasks() */
	int *order;   /* [ntasks] launch (submission) order, a topological order */
	int nstreams; /* streams: streams used; window: the stream pool size */
	int *stream;  /* [ntasks] stream of each task (streams); NULL otherwise */
	struct skip_plan_event *events; /* [nevents] (streams) */
	int nevents;			/* after pruning */
	int events_unpruned;		/* before pruning (step a); -1 when loaded without them */
	int events_step_b;		/* after pruning step b; -1 when unknown */
	int pdl;       /* graph, serial: programmatic edges where both tasks allow */
	int window;    /* window: W pending launches (1..64) */
	int mode;      /* persistent: 1 aot, 2 jit, 3 copilot (skip_persist_modes[mode - 1]) */
	int workers;   /* persistent: worker CTAs; 0 one per SM (as far as they fit) */
	int lookahead; /* persistent, copilot: speculative tasks in flight at most */
	/* persistent: [ntasks] each task's predicted kernel time in us (what skip advise recorded),
	 * by which E5's AOT list scheduling places the tiles; NULL: unknown, every tile counts
	 * 1 us. Owned by the plan (skip_plan_free() frees it). */
	double *durations_us;
};

/* In struct skip_plan_opts, 0 means "the default": an option whose range starts at 0
 * ("lookahead") is set to 0 with this. */
#define SKIP_PLAN_ZERO (-1)

struct skip_plan_opts {
	enum skip_executor executor;
	int nstreams;  /* streams/window: 0 = the DAG width, at most 16 */
	int window;    /* window: 0 = 32 */
	int pdl;       /* serial/graph */
	int mode;      /* persistent: 0 = aot */
	int workers;   /* persistent: 0 = one per SM (as far as they fit) */
	int lookahead; /* persistent, copilot: 0 = none (skip_plan_options' default is 8) */
};

/*
 * The plan's options that are one number or a flag, one row each (ended by a NULL name): the
 * plan JSON member and `skip run --NAME` of each, where it lives in struct skip_plan_opts and
 * struct skip_plan, its range and its default. Plan JSON reads and writes them, and skip run
 * makes its options and their help from them.
 */
struct skip_plan_option {
	const char *name;	    /* JSON member and skip run option: "streams" */
	enum skip_plan_field field; /* the executors that own this field use it */
	size_t opts_offset;	    /* of its int in struct skip_plan_opts */
	size_t plan_offset;	    /* of its int in struct skip_plan */
	int min, max;		    /* its range; a flag: 0 and 1 (JSON true and false) */
	int dflt;		    /* when not given; 0: the executor computes it */
	const char *metavar;	    /* skip run's name for its value; NULL for a flag */
	const char *const *names;   /* NULL, or the value is a name: names[v - 1], v >= 1 */
	const char *help;	    /* for skip run --help; "%s" becomes its executors' names */
};
SKIP_API extern const struct skip_plan_option skip_plan_options[];
/* A named option's value for @text (names[v - 1]) into *@out; or SKIP_E_INVAL naming the
 * choices: "unknown mode 'x' (aot, jit, copilot)". */
SKIP_API int skip_plan_option_value(const struct skip_plan_option *r, const char *text, int *out);
/* The persistent executor's modes, by plan value - 1: "aot", "jit", "copilot";
 * NULL-terminated. */
SKIP_API extern const char *const skip_persist_modes[];
/*
 * The list schedule E5's AOT plan makes of finalized @g on @nworkers workers (1..1024): the
 * tasks' blocks as tiles, the workload's tile edges as the plan takes them, task t's tiles
 * each @durations_us[t] / ceil(blocks / nworkers) (as a plan's "durations_us" places them).
 * *@makespan_us is an epoch's predicted length and *@tiles the tile count. 0, or SKIP_E_INVAL
 * (a grid E5 does not run, bad arguments) or SKIP_E_NOMEM. No device needed; thread-safe.
 */
SKIP_API int skip_persist_schedule(const struct skip_graph *g, int nworkers,
				   const double *durations_us, double *makespan_us, int *tiles);
/*
 * E5's worker count for finalized @g when the plan gives none: one per SM (@sms), and more
 * where the tasks of one level (skip_graph_level()) have more tiles, their blocks, than SMs:
 * as many as those tiles; never more than @fit, the worker CTAs that fit co-resident. Two
 * workers then share an SM (docs/persistent.md "More workers than SMs"). Returns the count
 * (>= 1), or SKIP_E_INVAL for a graph not finalized or @sms or @fit < 1. Thread-safe.
 */
SKIP_API int skip_persist_workers(const struct skip_graph *g, int sms, int fit);

/*
 * Compute a plan for a finalized graph. Streams: levelize, least predecessors first, the
 * three stream rules (sources round-robin; one stream-end predecessor: its stream; several:
 * the one with the fewest unscheduled successors; none: deferred, round-robin), then the
 * three pruning steps (a: one wait per cross-stream predecessor, b: only the last
 * predecessor per stream, c: drop waits an earlier task of the same stream already implies).
 * Returns 0 and *out (free with skip_plan_free()), or a negative code.
 */
SKIP_API int skip_plan_compute(const struct skip_graph *g, const struct skip_plan_opts *opts,
			       struct skip_plan **out);
/*
 * Check that @p fits @g: sizes match, order is a permutation and a topological order, streams
 * in range, events refer to tasks launched in the right order, and every dependency is
 * enforced (same stream earlier, or through events and stream order). Returns 0 or
 * SKIP_E_INVAL with the reason in skip_errmsg().
 */
SKIP_API int skip_plan_validate(const struct skip_graph *g, const struct skip_plan *p);
/*
 * Parse a plan (schemas/plan.schema.json) for @g and validate it. Tasks are named. A streams
 * plan without "events" gets them computed from its assignment (with pruning). Returns 0 and
 * *out, or SKIP_E_INVAL with skip_errmsg() naming the JSON member at fault, or for a syntax
 * error its place: "plan: line 3, column 14: JSON syntax error near '...'".
 */
SKIP_API int skip_plan_from_json(const struct skip_graph *g, const char *text,
				 struct skip_plan **out);
/* The plan as JSON text (caller frees), or NULL on out-of-memory. */
SKIP_API char *skip_plan_to_json(const struct skip_graph *g, const struct skip_plan *p);
SKIP_API void skip_plan_free(struct skip_plan *p);

/* ---- what an executor launches (CPU only) ---------------------------------------------------- */

/* One call an executor makes to the GPU. Streams, events and graphs are numbered from 0 in
 * the order the executor makes them. */
enum skip_step_kind {
	/* once, in skip_exec_new() */
	SKIP_STEP_STREAM,      /* a stream is made (stream) */
	SKIP_STEP_EVENT,       /* an event is made (event; task: whose completion it marks) */
	SKIP_STEP_GRAPH,       /* a CUDA graph is begun (graph) */
	SKIP_STEP_NODE,	       /* a kernel node of task is added to graph */
	SKIP_STEP_EDGE,	       /* an edge from the node of from to the node of task, in graph */
	SKIP_STEP_INSTANTIATE, /* graph is instantiated and uploaded on stream */
	/* each skip_exec_run() */
	SKIP_STEP_LAUNCH,	/* task's kernel is launched on stream */
	SKIP_STEP_RECORD,	/* event (of task) is recorded on stream: cudaEventRecord */
	SKIP_STEP_WAIT,		/* stream waits for event (of from) before task: StreamWaitEvent */
	SKIP_STEP_GRAPH_LAUNCH, /* graph is launched on stream */
	SKIP_STEP_SYNC,		/* the host waits for stream (after task, or -1 for all of it) */
	SKIP_STEP_PERSIST,	/* the persistent kernel (state number in graph) runs every task
				   once, in one cooperative launch on stream */
};
/* LAUNCH: with programmatic stream serialization; EDGE: a programmatic edge. */
#define SKIP_STEP_PDL 1u

struct skip_step {
	enum skip_step_kind kind;
	int thread; /* the host thread that makes it: 0 the caller, k + 1 the executor's worker k */
	int stream, task, from, event, graph; /* -1 where the kind has none */
	unsigned flags;			      /* SKIP_STEP_PDL */
};

/* What an executor does with a plan, call by call, recorded without a GPU. */
struct skip_launches {
	struct skip_step *prepare; /* [nprepare] skip_exec_new(), in order */
	int nprepare;
	struct skip_step *run; /* [nrun] one skip_exec_run(), its final waits included; steps of
				  different threads are in the order they happened to come */
	int nrun;
	int nthreads; /* host threads that submit: 1, or 1 + the executor's workers */
	int workers;  /* the persistent executor's worker CTAs (skip_exec_workers()), else 0 */
};
/*
 * Run @p's executor on a device that only writes down what it is asked to do: make it, run it
 * once and free it. The steps are those the executor would submit to a GPU for this plan (the
 * GPU's answers aside: no error, every kernel done at once, so a window executor's order of
 * dispatch is one of the possible ones). @p is validated against @g first. Returns 0 and *@out
 * (free with skip_launches_free()), SKIP_E_INVAL for a plan that does not fit, or
 * SKIP_E_NOMEM. Needs no GPU and no CUDA toolkit.
 */
SKIP_API int skip_plan_launches(const struct skip_graph *g, const struct skip_plan *p,
				struct skip_launches **out);
SKIP_API void skip_launches_free(struct skip_launches *l);
/* @s as text into @buf ("launch 'b' on stream 1", "[worker 2] sync stream 1 after 'c'"),
 * truncated to @len; returns @buf. */
SKIP_API const char *skip_step_format(const struct skip_graph *g, const struct skip_step *s,
				      char *buf, size_t len);
/* Nonzero when @name is one of the runtime's own kernels (runtime/builtin.cu: they write
 * initial contents, compare results and time probes), which a trace of `skip run` holds
 * beside the tasks' kernels; no executor launches them in a run. */
SKIP_API int skip_runtime_kernel(const char *name);

/* ---- device side (needs CUDA) ---------------------------------------------------------------- */

/* Nonzero when this build of the library has the CUDA executors. */
SKIP_API int skip_runtime_has_cuda(void);
/*
 * Check for a usable GPU without loading anything. Returns 0, SKIP_E_NODEV ("no CUDA driver"
 * or "no device"), or SKIP_E_UNSUPPORTED (built without CUDA), with skip_errmsg() set.
 * On success @desc (may be NULL) gets "NVIDIA H100 80GB HBM3 (132 SMs, driver 13.0)".
 */
SKIP_API int skip_runtime_probe(int device, char *desc, size_t desc_len);

/*
 * Move a finalized graph onto @device: allocate buffers, load modules, resolve kernels, lay
 * out arguments. Returns 0, SKIP_E_NODEV, SKIP_E_UNSUPPORTED, SKIP_E_IO (module file),
 * SKIP_E_CUDA (with the CUDA error and the task or buffer in skip_errmsg()).
 */
SKIP_API int skip_graph_load(struct skip_graph *g, int device);
/* Write every buffer's initial contents; returns when done. 0 or a negative code. */
SKIP_API int skip_graph_reset(struct skip_graph *g);
/* Device address of a buffer after load (NULL before). */
SKIP_API void *skip_graph_buffer_ptr(const struct skip_graph *g, int buffer);

/* Copies of every buffer some task writes (on the device; on the host for a buffer the device
 * has no room to copy). */
struct skip_checkpoint;
/* Take a checkpoint of @g's current contents into *@out (the caller frees it with
 * skip_checkpoint_free(), before the graph). 0 or a negative code, *@out NULL on failure. */
SKIP_API int skip_graph_checkpoint(struct skip_graph *g, struct skip_checkpoint **out);
/*
 * Compare the written buffers with @cp (floats within tolerance, the rest exactly). Returns 0
 * when all match, 1 when some differ (skip_errmsg() names the first buffer, the count and the
 * first differing element), or a negative code.
 */
SKIP_API int skip_graph_compare(struct skip_graph *g, const struct skip_checkpoint *cp);
/* Release a checkpoint's copies. NULL is a no-op. */
SKIP_API void skip_checkpoint_free(struct skip_checkpoint *cp);

/* An executor: a plan bound to a loaded graph, with its streams, events or graph made. */
struct skip_exec;
/* NULL and *err on failure (invalid plan: SKIP_E_INVAL; CUDA: SKIP_E_CUDA). The plan is
 * copied. Free with skip_exec_free() before the graph. */
SKIP_API struct skip_exec *skip_exec_new(struct skip_graph *g, const struct skip_plan *p, int *err);
/* Run the graph once and wait for it; *@elapsed_ns (may be NULL) gets the host wall time from
 * the first submission to completion. 0 or a negative code. */
SKIP_API int skip_exec_run(struct skip_exec *x, uint64_t *elapsed_ns);
/* The worker CTAs each run of @x launches: the persistent executor's (its plan's "workers",
 * else the default, skip_persist_workers()); 0 for the other executors or a NULL @x. */
SKIP_API int skip_exec_workers(const struct skip_exec *x);
/* One tile of the persistent executor's last run (skip_exec_tile_times()). */
struct skip_tile_time {
	int task, tile;		   /* the task (skip_graph order) and its tile (block) */
	int worker;		   /* the worker CTA that ran it */
	uint64_t start_ns, end_ns; /* its body's start and end: the GPU's %globaltimer, in ns */
};
/*
 * E5's tile timeline: each tile of the last run of @x, in plan order, into @out[0 .. @max):
 * its task, tile, worker, and when its body began and ended (a clock the SMs share). Returns
 * the number of tiles (at most @max are written), 0 when @x records none (not the persistent
 * executor, no run yet, or made without SKIP_E5_TILE_TIMES=1 in the environment: recording
 * costs a tile three stores to host-mapped memory), or a negative code. Call after
 * skip_exec_run() has returned. The caller owns @out.
 */
SKIP_API int skip_exec_tile_times(const struct skip_exec *x, struct skip_tile_time *out, int max);
/* Wait for the executor's work, then release its streams, events, graph and threads. NULL is a
 * no-op. */
SKIP_API void skip_exec_free(struct skip_exec *x);

/*
 * What another kernel's start costs each task's kernel while it runs (on the H100, a kernel
 * that re-reads data through its L1 cache loses about 1 us per start: docs/skip-run.md
 * "--probe-starts"). Per task, on a loaded graph: its duration alone (CUDA events around a
 * stream launch, median of 5); then two CUDA graphs launched in turn @reps times each, bare:
 * the task beside a 3 us timer spin of one block (both roots), and the same with a chain of
 * @starts 2 us spins after that spin. cost_ns = (median of the second - median of the
 * first) / starts, at least 0. A task too short for the chain to end well before it (starts
 * reduced to fit in duration - 5 us at 3 us each, 0 left), whose grid fills the GPU, or whose
 * chain ended up after it (the difference above 80% of the chain) is not probed: starts 0,
 * cost 0. Then, for a task whose grid fits twice on the GPU's multiprocessors (2 blocks <=
 * SMs), four CUDA graphs launched in turn (at most @reps times, fewer for a long task: about
 * 0.1 s of each): one empty kernel, the task, two empty kernels, and two copies of the task
 * with no edge between them (they run at once on other multiprocessors, the second on copies
 * of the task's buffers, so that they share no data, as two different tasks usually do not;
 * where the copies cannot be allocated, on the same buffers); alone_ns is the median of the task's
 * graph less the empty one's, pair_ns that of the two copies less the two empty kernels' (which the
 * second node's dispatch adds to both; skip advise's memory demand: skip_memory_demand(),
 * advisor/skip_advisor.h). Last, where the module has E5's worker (runtime/skip_task.cuh),
 * every task alone inside it: E5 AOT on its default workers runs the tasks one after another
 * (a chain in topological order) with the tile timeline on, @reps times (fewer for a long graph,
 * about 0.2 s in all); worker_ns is the median of the task's longest span on one worker
 * (earliest tile start to latest end there), which skip advise takes for the task's time in
 * its persistent prediction; 0 for a task whose tiles would share SMs (more of them than SMs on
 * more workers than SMs). The buffers' contents change (tasks run repeatedly): reset before a
 * checked run.
 */
struct skip_start_probe {
	double duration_ns; /* the task's kernel alone */
	int starts;	    /* chain length probed, 0: not probed */
	double base_ns;	    /* median time of the graph without the chain */
	double with_ns;	    /* with it */
	double cost_ns;	    /* per start */
	double alone_ns;    /* the task's graph, less an empty one's (0: not probed) */
	double pair_ns;	    /* two copies side by side, less two empty kernels side by side */
	double worker_ns;   /* its tiles alone in E5's workers (0: not timed) */
};
/* @out has skip_graph_ntasks(g) entries. 0 or a negative code (SKIP_E_CUDA with the task). */
SKIP_API int skip_probe_starts(struct skip_graph *g, int starts, int reps,
			       struct skip_start_probe *out);

/* ---- workload files -------------------------------------------------------------------------- */

struct skip_workload;

/* One "NAME=VALUE" override of a workload parameter. */
struct skip_param {
	const char *name;
	int64_t value;
};

/*
 * Read a workload file (schemas/workload.schema.json) and build its finalized graph.
 * @size names an entry of "sizes" (NULL: the plain "params"); @params (may be NULL) override
 * single parameters afterwards. Parameters given as expressions are evaluated after both, so
 * that "M": "N*2" follows the N they give; an override of M itself replaces its expression.
 * The module path is resolved against the workload's folder,
 * then each folder of $SKIP_MODULE_PATH; @module (may be NULL) replaces it. NULL and *err on
 * failure: SKIP_E_NOTFOUND, SKIP_E_IO ("FILE: <strerror>"), SKIP_E_INVAL with "FILE: tasks[2]
 * (\"reduce\"): reads: unknown buffer 'z'" style messages, or "FILE:LINE:COLUMN: JSON syntax
 * error near '...'" (skip_json_load()).
 */
SKIP_API struct skip_workload *skip_workload_load(const char *path, const char *size,
						  const struct skip_param *params, int nparams,
						  const char *module, int *err);
/*
 * Check that the files a run of @w reads can be read now: its module (where
 * skip_workload_load() resolved it) and each buffer's {"file": PATH} (resolved from the
 * workload's folder, as the executor opens it; a regular file must hold the buffer's size).
 * skip_workload_load() does not look at them, so that a workload whose module is built
 * elsewhere can still be planned and advised on; a caller that is about to run it (`skip run`,
 * --dry-run included) calls this. Returns 0, or SKIP_E_NOTFOUND (no such file) / SKIP_E_IO
 * (unreadable, a directory, too short) with skip_errmsg() naming the file and who needs it:
 * "w.json: module k.fatbin, needed by tasks[0] (\"ax\") and 3 more: /dir/k.fatbin: No such
 * file or directory (...)", "w.json: buffers[2] (\"x\"): init file x.bin: /dir/x.bin: ...".
 */
SKIP_API int skip_workload_check_files(const struct skip_workload *w);
SKIP_API void skip_workload_free(struct skip_workload *w);
/* The graph (borrowed; freed with the workload). */
SKIP_API struct skip_graph *skip_workload_graph(struct skip_workload *w);
SKIP_API const char *skip_workload_name(const struct skip_workload *w);
/* Value of parameter @name after overrides, or @dflt. */
SKIP_API int64_t skip_workload_param(const struct skip_workload *w, const char *name, int64_t dflt);

#endif /* SKIP_RUNTIME_H */
