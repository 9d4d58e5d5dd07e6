/*
 * internal.h: what the files of runtime/ share and nothing else includes (tests excepted).
 *
 * The runtime has two halves. The CPU half needs no CUDA (libskip_taskgraph.a): the graph's
 * layout (struct skip_graph, graph.c), the DAG helpers (dag.c), plans and their JSON (plan.c,
 * plan_json.c), the stream assignment (streams.c), the workload files and their parameter
 * expressions (workload.c, expr.c), and the executors (exec.h: the table in exec.c, one file
 * each in exec/, and the recording device of launches.c). The CUDA half (cuda_*.c, declared in
 * cuda_internal.h, compiled only when SKIP_HAVE_CUDA is defined; nocuda.c stands in for it
 * otherwise) is memory, data, probes and the device the executors drive. Nothing in this
 * header or in the CPU half's files includes CUDA.
 */
#ifndef SKIP_RUNTIME_INTERNAL_H
#define SKIP_RUNTIME_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "skip_runtime.h"

#define SK_MAX_ARG_BYTES 256
#define SK_MAX_WINDOW	 64 /* window slots are bits of a uint64_t */
#define SK_MAX_STREAMS	 64
/* Above this many tasks the transitive reduction (n^2 bits) is skipped; edges stay as
 * derived, which is still correct, only with redundant waits. */
#define SK_REDUCE_MAX_TASKS 16384

struct sk_buffer {
	char *name;
	size_t size; /* bytes */
	enum skip_dtype dtype;
	struct skip_buffer_init init; /* init.path owned */
	double rtol, atol;	      /* comparison tolerance (floats) */
	int registered;		      /* dptr is the caller's */
	int written;		      /* some task writes it */
	void *dptr;		      /* device address, after load */
};

struct sk_arg {
	enum skip_arg_kind kind;
	size_t size;	      /* bytes of the value (BUFFER: sizeof(void *)) */
	int buffer;	      /* BUFFER */
	size_t offset;	      /* BUFFER */
	unsigned char *value; /* VALUE: owned copy */
};

struct sk_task {
	char *name;
	struct skip_kernel kernel; /* kernel.name owned */
	unsigned grid[3], block[3], shared_bytes;
	struct sk_arg *args;
	int nargs;
	struct skip_access *access; /* sizes resolved (never 0) */
	int naccess;
	unsigned flags;
	int *xpreds, nxpreds; /* explicit predecessors (skip_graph_add_edge), from finalize */
	int *dpreds, ndpreds; /* a task with tile edges in: its derived predecessors before the
				 transitive reduction, sorted, from finalize (E5's plan) */
	/* derived by finalize */
	int *preds, npreds; /* reduced DAG, sorted */
	int *succs, nsuccs;
	int level;
	/* device side, after load */
	void *fn;      /* CUfunction */
	void **params; /* [nargs] pointers into argblob */
	unsigned char *argblob;
};

struct sk_edge {
	int from, to;
};

struct skip_graph {
	struct sk_buffer *bufs;
	int nbufs;
	size_t capbufs;
	struct sk_task *tasks;
	int ntasks;
	size_t captasks;
	char **modules; /* paths */
	int nmodules;
	struct sk_edge *explicit_edges;
	int nexplicit;
	size_t capexplicit;
	struct skip_tile_edge *tile_edges; /* declared (skip_graph_add_tile_edge) */
	int ntile_edges;
	size_t captile_edges;
	int finalized;
	int *topo;  /* [ntasks] a topological order (smallest id first among ready) */
	int nedges; /* reduced */
	int width;
	uint64_t *reach; /* [ntasks * words] reach[v] bit u: u ->* v (u != v); NULL if too big */
	int reach_words;
	struct sk_hash task_names;	      /* sk_hash_str(task name) -> task id, so that adding
						 and finding a task by name stay O(1) in graphs of
						 100,000 tasks */
	struct sk_hash buf_names;	      /* sk_hash_str(buffer name) -> buffer id */
	struct sk_cuda *cuda;		      /* device state (cuda_internal.h), NULL before load */
	void (*unload)(struct skip_graph *g); /* releases cuda; set by skip_graph_load() */
};

/* ---- graph.c / dag.c ------------------------------------------------------------------------- */

/* Nonzero when ranges [a, a+as) and [b, b+bs) overlap. */
static inline int sk_overlap(size_t a, size_t as, size_t b, size_t bs)
{
	return a < b + bs && b < a + as;
}
/* Nonzero when tasks @a and @b touch a common byte with at least one write. */
int sk_tasks_conflict(const struct sk_task *a, const struct sk_task *b);
/* Nonzero when @to has an explicit edge from @from. */
int sk_has_explicit_edge(const struct skip_graph *g, int from, int to);

/* Nonzero when @to depends on @from directly: an explicit edge, or @from comes first and the
 * two access a common byte, one of them writing. Works before finalize. */
int sk_depends_directly(const struct skip_graph *g, int from, int to);
/* Check declared tile edge @e against the tasks (the dependency, the rows); 0, or SKIP_E_INVAL
 * with a message naming both tasks. */
int sk_tile_edge_check(const struct skip_graph *g, const struct skip_tile_edge *e);
/* Blocks of @task's grid: its tiles under E5. */
long sk_task_blocks(const struct sk_task *t);

/* Build preds/succs, the topological order and the levels from @edges (may contain
 * duplicates). Returns 0, SKIP_E_INVAL (cycle, with the path in skip_errmsg()) or NOMEM. */
int sk_dag_build(struct skip_graph *g, struct sk_edge *edges, int nedges);

/* ---- streams.c ------------------------------------------------------------------------------- */

/* Assign streams and launch order (KeSCo/HuntKT). Fills p->order, p->stream, p->nstreams. */
int sk_streams_assign(const struct skip_graph *g, int nstreams, struct skip_plan *p);
/* Derive the waits for p->stream/p->order with the three pruning steps; fills p->events,
 * p->nevents, p->events_unpruned, p->events_step_b. */
int sk_streams_events(const struct skip_graph *g, struct skip_plan *p);

/* ---- plan.c ---------------------------------------------------------------------------------- */

struct skip_plan *sk_plan_alloc(int ntasks, int with_streams);
/* The plan members @p's executor owns (enum skip_plan_field bits); 0 for no executor. */
unsigned sk_plan_fields(const struct skip_plan *p);
/* "serial, streams, graph or window" into @buf (executors owning @field only; 0: all), with
 * @last ("or", "and") before the last; returns @buf. */
const char *sk_executor_list(char *buf, size_t len, unsigned field, const char *last);
/* The order is a topological permutation and (streams) every stream is in range; events and
 * enforcement are not checked. 0 or SKIP_E_INVAL. */
int sk_plan_check_layout(const struct skip_graph *g, const struct skip_plan *p);
/* Positions in p->order: pos[task]. Caller frees. */
int *sk_plan_positions(const struct skip_plan *p);

/* ---- exec/window.c: the ACS-SW style scheduler of E4, on any backend ------------------------- */

/*
 * Run task @task on worker @worker and return when it has completed (GPU: launch on the
 * worker's stream, then synchronize it; CPU tests: call a function). 0 or a negative code.
 * Called from worker threads, one task at a time per worker.
 */
typedef int (*sk_window_run_fn)(void *ctx, int worker, int task);

struct sk_window;
/* Start @nworkers threads (1..SK_MAX_STREAMS) for windows of @window slots (1..64). @init (may
 * be NULL) runs once on each worker thread first (GPU: make the device current). */
struct sk_window *sk_window_new(int nworkers, int window, sk_window_run_fn run,
				int (*init)(void *ctx, int worker), void *ctx, int *err);
/*
 * Submit the tasks of @g in @order (a topological order) through the window and return when
 * all have completed. A task enters the window when a slot is free; its upstream set is every
 * task in the window it conflicts with (read-after-write, write-after-read, write-after-write
 * on overlapping bytes, or an explicit edge); it becomes ready when that set empties. Ready
 * tasks go to idle workers in the order they became ready. Returns 0 or the first error a
 * run returned (the remaining tasks are then drained without running).
 */
int sk_window_run(struct sk_window *w, const struct skip_graph *g, const int *order);
/* Statistics of the last run: most tasks running at once, most tasks in the window. */
void sk_window_stats(const struct sk_window *w, int *max_running, int *max_pending);
void sk_window_free(struct sk_window *w);

/* ---- expr.c: integer expressions over workload parameters ------------------------------------ */

struct sk_params {
	char **names;	 /* [n] owned copies */
	int64_t *values; /* [n] */
	int n;
	size_t capnames, capvalues;
};
int sk_params_set(struct sk_params *ps, const char *name, int64_t value);
/* Pointer to the value, or NULL. */
int64_t *sk_params_find(const struct sk_params *ps, const char *name);
void sk_params_fini(struct sk_params *ps);
/* Parentheses, unary minus and function calls nest at most this deep in an expression: each
 * level is a level of recursion in the parser, and no input may exhaust the stack. */
#define SK_EXPR_MAX_DEPTH 256
/*
 * Evaluate @text: integers, parameter names, + - * / % with the usual precedence, unary -,
 * parentheses, min(a,b), max(a,b), cdiv(a,b) (ceiling division). Overflow, division by zero
 * and nesting deeper than SK_EXPR_MAX_DEPTH are errors. Returns 0 and *out, or SKIP_E_INVAL
 * with the reason and its offset in skip_errmsg() (a long expression is quoted in part).
 */
int sk_expr_eval(const char *text, const struct sk_params *ps, int64_t *out);
/* The same; when the error is a name @ps lacks, *@unknown_at (may be NULL) gets the offset of
 * that name in @text (otherwise -1), so that a caller may define it and try again. */
int sk_expr_eval_at(const char *text, const struct sk_params *ps, int64_t *out, int *unknown_at);

/* ---- launches.c: the runtime's own kernels (runtime/builtin.cu) ------------------------------ */

enum sk_builtin {
	SK_BUILTIN_FILL,    /* sk_fill: an 8-byte pattern over a buffer */
	SK_BUILTIN_RANDOM,  /* sk_random: seeded uniform values */
	SK_BUILTIN_COMPARE, /* sk_compare: two buffers within tolerance */
	SK_BUILTIN_SPIN,    /* sk_spin: a timer spin (probes) */
	SK_NBUILTINS
};
/* Their names in builtin.cu, by enum sk_builtin (skip_runtime_kernel() reads the same). */
extern const char *const sk_builtin_names[SK_NBUILTINS];

/* ---- graph.c --------------------------------------------------------------------------------- */

/* Element size of a dtype in bytes. */
size_t sk_dtype_size(enum skip_dtype t);

#endif /* SKIP_RUNTIME_INTERNAL_H */
