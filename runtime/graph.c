/*
 * graph.c: building a task graph (buffers, modules, tasks, explicit edges) and deriving its
 * dependencies from the tasks' access sets when it is finalized.
 *
 * Derivation walks the tasks in program order (id order). Per buffer it keeps every access so
 * far and, separately, the writes. A new read depends on the earlier writes that overlap it,
 * scanning back until a write that covers the whole read range; a new write depends on every
 * earlier overlapping access back to a covering write. Anything before a covering write W is
 * already ordered before W, so stopping there loses no dependency (this is GrCUDA's "covered
 * argument" idea applied to byte ranges, arXiv 2012.09646). dag.c then orders, reduces and
 * levelizes the result.
 */
#define SK_LOG_DOMAIN "runtime"
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ---- small helpers --------------------------------------------------------------------------- */

static char *dupstr(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);

	if (d)
		memcpy(d, s, n);
	return d;
}

/* ---- name index ------------------------------------------------------------------------------ */

static const char *task_name(const struct skip_graph *g, int id)
{
	return g->tasks[id].name;
}

static const char *buf_name(const struct skip_graph *g, int id)
{
	return g->bufs[id].name;
}

/* The id of @name in @ix, an index of the names that @name_of gives, or SKIP_E_NOTFOUND. Names
 * whose hashes collide are entries with one key: each is compared. */
static int names_find(const struct skip_graph *g, const struct sk_hash *ix,
		      const char *(*name_of)(const struct skip_graph *, int), const char *name)
{
	uint64_t h;

	if (!name)
		return SKIP_E_NOTFOUND;
	h = sk_hash_str(name);
	for (size_t i = sk_hash_find(ix, h); i != SK_HASH_END; i = sk_hash_find_next(ix, h, i))
		if (!strcmp(name_of(g, (int)ix->slots[i].val), name))
			return (int)ix->slots[i].val;
	return SKIP_E_NOTFOUND;
}

static int check_open(const struct skip_graph *g)
{
	if (!g)
		return sk_fail(SKIP_E_INVAL, "no graph");
	if (g->finalized)
		return sk_fail(SKIP_E_INVAL, "the graph is finalized; it cannot change any more");
	return 0;
}

size_t sk_dtype_size(enum skip_dtype t)
{
	switch (t) {
	case SKIP_DT_BF16:
		return 2;
	case SKIP_DT_I32:
	case SKIP_DT_U32:
	case SKIP_DT_F32:
		return 4;
	case SKIP_DT_I64:
	case SKIP_DT_U64:
	case SKIP_DT_F64:
		return 8;
	default:
		return 1;
	}
}

/* ---- graph lifetime -------------------------------------------------------------------------- */

struct skip_graph *skip_graph_new(int *err)
{
	struct skip_graph *g = calloc(1, sizeof(*g));

	if (err)
		*err = g ? 0 : SKIP_E_NOMEM;
	return g;
}

static void free_task(struct sk_task *t)
{
	free(t->name);
	free((char *)t->kernel.name);
	for (int i = 0; i < t->nargs; i++)
		free(t->args[i].value);
	free(t->args);
	free(t->access);
	free(t->preds);
	free(t->succs);
	free(t->xpreds);
	free(t->dpreds);
	free(t->params);
	free(t->argblob);
}

void skip_graph_free(struct skip_graph *g)
{
	if (!g)
		return;
	if (g->unload)
		g->unload(g);
	for (int i = 0; i < g->ntasks; i++)
		free_task(&g->tasks[i]);
	for (int i = 0; i < g->nbufs; i++) {
		free(g->bufs[i].name);
		free((char *)g->bufs[i].init.path);
	}
	for (int i = 0; i < g->nmodules; i++)
		free(g->modules[i]);
	free(g->modules);
	free(g->tasks);
	free(g->bufs);
	free(g->explicit_edges);
	free(g->tile_edges);
	free(g->topo);
	free(g->reach);
	sk_hash_fini(&g->task_names);
	sk_hash_fini(&g->buf_names);
	free(g);
}

/* ---- buffers --------------------------------------------------------------------------------- */

static int add_buffer(struct skip_graph *g, const char *name, size_t size, enum skip_dtype dt,
		      const struct skip_buffer_init *init, void *dptr)
{
	struct sk_buffer *b;
	int err = check_open(g);

	if (err)
		return err;
	if (!name || !*name)
		return sk_fail(SKIP_E_INVAL, "a buffer needs a name");
	if (skip_graph_find_buffer(g, name) >= 0)
		return sk_fail(SKIP_E_INVAL, "buffer '%s' defined twice", name);
	if (size == 0)
		return sk_fail(SKIP_E_INVAL, "buffer '%s': size 0", name);
	if ((unsigned)dt > SKIP_DT_BF16)
		return sk_fail(SKIP_E_INVAL, "buffer '%s': unknown element type", name);
	if (init && (unsigned)init->kind > SKIP_INIT_FILE)
		return sk_fail(SKIP_E_INVAL, "buffer '%s': unknown initial contents", name);
	if (init && init->kind == SKIP_INIT_FILE && (!init->path || !*init->path))
		return sk_fail(SKIP_E_INVAL, "buffer '%s': file contents without a path", name);
	if (init && init->kind == SKIP_INIT_RANDOM && !(init->lo < init->hi))
		return sk_fail(SKIP_E_INVAL, "buffer '%s': random range [%g, %g) is empty", name,
			       init->lo, init->hi);
	if (size % sk_dtype_size(dt))
		return sk_fail(SKIP_E_INVAL,
			       "buffer '%s': %zu bytes is not a whole number of %zu-byte elements",
			       name, size, sk_dtype_size(dt));
	if (SK_VEC_RESERVE(g->bufs, g->capbufs, g->nbufs + 1) || sk_hash_reserve(&g->buf_names, 1))
		return SKIP_E_NOMEM;
	b = &g->bufs[g->nbufs];
	memset(b, 0, sizeof(*b));
	b->name = dupstr(name);
	if (init) {
		b->init = *init;
		b->init.path = init->path ? dupstr(init->path) : NULL;
	}
	if (!b->name || (init && init->path && !b->init.path)) {
		free(b->name);
		free((char *)b->init.path);
		return sk_fail(SKIP_E_NOMEM, "out of memory");
	}
	b->size = size;
	b->dtype = dt;
	b->rtol = dt == SKIP_DT_F64 ? 1e-12 : dt == SKIP_DT_BF16 ? 1e-2 : 1e-5;
	b->atol = dt == SKIP_DT_F64 ? 1e-12 : dt == SKIP_DT_BF16 ? 1e-3 : 1e-6;
	b->dptr = dptr;
	b->registered = dptr != NULL;
	sk_hash_add(&g->buf_names, sk_hash_str(b->name), (uint64_t)g->nbufs); /* room reserved */
	return g->nbufs++;
}

int skip_graph_add_buffer(struct skip_graph *g, const char *name, size_t size_bytes,
			  enum skip_dtype dtype, const struct skip_buffer_init *init)
{
	return add_buffer(g, name, size_bytes, dtype, init, NULL);
}

int skip_graph_register_buffer(struct skip_graph *g, const char *name, void *dev_ptr,
			       size_t size_bytes, enum skip_dtype dtype,
			       const struct skip_buffer_init *init)
{
	if (!dev_ptr)
		return sk_fail(SKIP_E_INVAL, "buffer '%s': NULL device pointer", name ? name : "?");
	return add_buffer(g, name, size_bytes, dtype, init, dev_ptr);
}

int skip_graph_set_tolerance(struct skip_graph *g, int buffer, double rtol, double atol)
{
	if (!g || buffer < 0 || buffer >= g->nbufs)
		return sk_fail(SKIP_E_INVAL, "no buffer %d", buffer);
	if (!(rtol >= 0) || !(atol >= 0))
		return sk_fail(SKIP_E_INVAL, "buffer '%s': negative tolerance",
			       g->bufs[buffer].name);
	g->bufs[buffer].rtol = rtol;
	g->bufs[buffer].atol = atol;
	return 0;
}

int skip_graph_add_module(struct skip_graph *g, const char *path)
{
	char **nm;
	int err = check_open(g);

	if (err)
		return err;
	if (!path || !*path)
		return sk_fail(SKIP_E_INVAL, "a module needs a path");
	nm = realloc(g->modules, (size_t)(g->nmodules + 1) * sizeof(*nm));
	if (!nm)
		return sk_fail(SKIP_E_NOMEM, "out of memory");
	g->modules = nm;
	nm[g->nmodules] = dupstr(path);
	if (!nm[g->nmodules])
		return sk_fail(SKIP_E_NOMEM, "out of memory");
	return g->nmodules++;
}

/* ---- tasks ----------------------------------------------------------------------------------- */

static int check_kernel(const struct skip_graph *g, const char *tname, const struct skip_kernel *k)
{
	switch (k->kind) {
	case SKIP_KERNEL_MODULE:
		if (k->module < 0 || k->module >= g->nmodules)
			return sk_fail(SKIP_E_INVAL, "task '%s': no module %d", tname, k->module);
		if (!k->name || !*k->name)
			return sk_fail(SKIP_E_INVAL, "task '%s': no kernel name", tname);
		return 0;
	case SKIP_KERNEL_FUNCTION:
		return k->function ? 0 : sk_fail(SKIP_E_INVAL, "task '%s': NULL CUfunction", tname);
	case SKIP_KERNEL_SYMBOL:
		return k->symbol ? 0
				 : sk_fail(SKIP_E_INVAL, "task '%s': NULL kernel symbol", tname);
	}
	return sk_fail(SKIP_E_INVAL, "task '%s': unknown kernel kind", tname);
}

static int copy_args(const struct skip_graph *g, const char *tname, struct sk_task *t,
		     const struct skip_task_desc *d)
{
	if (d->nargs < 0 || (d->nargs && !d->args))
		return sk_fail(SKIP_E_INVAL, "task '%s': bad argument list", tname);
	t->args = calloc((size_t)d->nargs + 1, sizeof(*t->args));
	if (!t->args)
		return sk_fail(SKIP_E_NOMEM, "out of memory");
	t->nargs = d->nargs;
	for (int i = 0; i < d->nargs; i++) {
		const struct skip_arg *a = &d->args[i];
		struct sk_arg *o = &t->args[i];

		o->kind = a->kind;
		if (a->kind == SKIP_ARG_BUFFER) {
			if (a->buffer < 0 || a->buffer >= g->nbufs)
				return sk_fail(SKIP_E_INVAL, "task '%s': argument %d: no buffer %d",
					       tname, i, a->buffer);
			if (a->offset >= g->bufs[a->buffer].size)
				return sk_fail(SKIP_E_INVAL,
					       "task '%s': argument %d: offset %zu is past the end "
					       "of buffer '%s' (%zu bytes)",
					       tname, i, a->offset, g->bufs[a->buffer].name,
					       g->bufs[a->buffer].size);
			o->buffer = a->buffer;
			o->offset = a->offset;
			o->size = sizeof(void *);
			continue;
		}
		if (a->kind != SKIP_ARG_VALUE || !a->value || a->size == 0 ||
		    a->size > SK_MAX_ARG_BYTES)
			return sk_fail(SKIP_E_INVAL,
				       "task '%s': argument %d: a value of 1 to %d bytes expected",
				       tname, i, SK_MAX_ARG_BYTES);
		o->value = malloc(a->size);
		if (!o->value)
			return sk_fail(SKIP_E_NOMEM, "out of memory");
		memcpy(o->value, a->value, a->size);
		o->size = a->size;
	}
	return 0;
}

static int copy_access(struct skip_graph *g, const char *tname, struct sk_task *t,
		       const struct skip_task_desc *d)
{
	if (d->naccess < 0 || (d->naccess && !d->access))
		return sk_fail(SKIP_E_INVAL, "task '%s': bad access list", tname);
	t->access = calloc((size_t)d->naccess + 1, sizeof(*t->access));
	if (!t->access)
		return sk_fail(SKIP_E_NOMEM, "out of memory");
	t->naccess = d->naccess;
	for (int i = 0; i < d->naccess; i++) {
		struct skip_access a = d->access[i];
		const struct sk_buffer *b;

		if (a.buffer < 0 || a.buffer >= g->nbufs)
			return sk_fail(SKIP_E_INVAL, "task '%s': access %d: no buffer %d", tname, i,
				       a.buffer);
		b = &g->bufs[a.buffer];
		if (a.mode == 0 || (a.mode & ~(unsigned)SKIP_READ_WRITE))
			return sk_fail(
			    SKIP_E_INVAL,
			    "task '%s': access %d to '%s': mode must be read, write or both", tname,
			    i, b->name);
		if (a.offset >= b->size || (a.size && a.size > b->size - a.offset))
			return sk_fail(SKIP_E_INVAL,
				       "task '%s': access %d: bytes [%zu, %zu) are outside buffer "
				       "'%s' (%zu bytes)",
				       tname, i, a.offset, a.offset + (a.size ? a.size : 1),
				       b->name, b->size);
		if (!a.size)
			a.size = b->size - a.offset;
		t->access[i] = a;
	}
	return 0;
}

static int check_shape(const char *tname, const unsigned *grid, const unsigned *block)
{
	unsigned long long threads = 1;

	for (int i = 0; i < 3; i++)
		threads *= block[i] ? block[i] : 1;
	if (!grid[0] && !grid[1] && !grid[2])
		return sk_fail(SKIP_E_INVAL, "task '%s': empty grid", tname);
	if (threads > 1024)
		return sk_fail(SKIP_E_INVAL, "task '%s': %llu threads per block (at most 1024)",
			       tname, threads);
	return 0;
}

int skip_graph_add_task(struct skip_graph *g, const struct skip_task_desc *d)
{
	struct sk_task *t;
	char auto_name[32];
	const char *name;
	int err = check_open(g);

	if (err)
		return err;
	if (!d)
		return sk_fail(SKIP_E_INVAL, "no task description");
	snprintf(auto_name, sizeof(auto_name), "t%d", g->ntasks);
	name = d->name && *d->name ? d->name : auto_name;
	if (skip_graph_find_task(g, name) >= 0)
		return sk_fail(SKIP_E_INVAL, "task '%s' defined twice", name);
	if ((err = check_kernel(g, name, &d->kernel)) ||
	    (err = check_shape(name, d->grid, d->block)))
		return err;
	if (SK_VEC_RESERVE(g->tasks, g->captasks, g->ntasks + 1) ||
	    sk_hash_reserve(&g->task_names, 1))
		return SKIP_E_NOMEM;
	t = &g->tasks[g->ntasks];
	memset(t, 0, sizeof(*t));
	t->name = dupstr(name);
	t->kernel = d->kernel;
	t->kernel.name = d->kernel.name ? dupstr(d->kernel.name) : NULL;
	if (!t->name || (d->kernel.name && !t->kernel.name)) {
		err = sk_fail(SKIP_E_NOMEM, "out of memory");
		goto fail;
	}
	for (int i = 0; i < 3; i++) {
		t->grid[i] = d->grid[i] ? d->grid[i] : 1;
		t->block[i] = d->block[i] ? d->block[i] : 1;
	}
	t->shared_bytes = d->shared_bytes;
	t->flags = d->flags;
	if ((err = copy_args(g, name, t, d)) || (err = copy_access(g, name, t, d)))
		goto fail;
	for (int i = 0; i < t->naccess; i++)
		if (t->access[i].mode & SKIP_WRITE)
			g->bufs[t->access[i].buffer].written = 1;
	sk_hash_add(&g->task_names, sk_hash_str(t->name), (uint64_t)g->ntasks); /* room reserved */
	return g->ntasks++;
fail:
	free_task(t);
	return err;
}

int skip_graph_add_edge(struct skip_graph *g, int from, int to)
{
	int err = check_open(g);

	if (err)
		return err;
	if (from < 0 || from >= g->ntasks || to < 0 || to >= g->ntasks)
		return sk_fail(SKIP_E_INVAL, "edge %d -> %d: no such task", from, to);
	if (from == to)
		return sk_fail(SKIP_E_INVAL, "edge from task '%s' to itself", g->tasks[from].name);
	return SK_VEC_PUSH(g->explicit_edges, g->nexplicit, g->capexplicit,
			   (struct sk_edge){from, to});
}

int sk_has_explicit_edge(const struct skip_graph *g, int from, int to)
{
	const struct sk_task *t = &g->tasks[to];

	for (int i = 0; i < t->nxpreds; i++)
		if (t->xpreds[i] == from)
			return 1;
	return 0;
}

/* ---- tile edges ------------------------------------------------------------------------------ */

static const char *const tile_policy_names[] = {NULL, "tile", "row"};

const char *skip_tile_policy_name(int policy)
{
	return policy == SKIP_TILE_TILE || policy == SKIP_TILE_ROW ? tile_policy_names[policy]
								   : NULL;
}

long sk_task_blocks(const struct sk_task *t)
{
	return (long)t->grid[0] * (long)t->grid[1] * (long)t->grid[2];
}

int sk_depends_directly(const struct skip_graph *g, int from, int to)
{
	for (int i = 0; i < g->nexplicit; i++)
		if (g->explicit_edges[i].from == from && g->explicit_edges[i].to == to)
			return 1;
	return from < to && sk_tasks_conflict(&g->tasks[from], &g->tasks[to]);
}

int sk_tile_edge_check(const struct skip_graph *g, const struct skip_tile_edge *e)
{
	const char *f = g->tasks[e->from].name, *t = g->tasks[e->to].name;
	long nf = sk_task_blocks(&g->tasks[e->from]), nt = sk_task_blocks(&g->tasks[e->to]);

	if (!sk_depends_directly(g, e->from, e->to))
		return sk_fail(SKIP_E_INVAL,
			       "tile edge '%s' -> '%s': '%s' does not depend on '%s' (it neither "
			       "comes later and accesses a byte that one of the two writes, nor "
			       "names it in \"after\"); a tile edge refines a dependency",
			       f, t, t, f);
	if (e->policy == SKIP_TILE_ROW && (nf % e->rows || nt % e->rows))
		return sk_fail(SKIP_E_INVAL,
			       "tile edge '%s' -> '%s': %d rows must divide both the %ld blocks of "
			       "'%s' and the %ld of '%s'",
			       f, t, e->rows, nf, f, nt, t);
	return 0;
}

int skip_graph_add_tile_edge(struct skip_graph *g, const struct skip_tile_edge *e)
{
	int err = check_open(g);

	if (err)
		return err;
	if (!e || e->from < 0 || e->from >= g->ntasks || e->to < 0 || e->to >= g->ntasks)
		return sk_fail(SKIP_E_INVAL, "tile edge %d -> %d: no such task", e ? e->from : -1,
			       e ? e->to : -1);
	if (e->from == e->to)
		return sk_fail(SKIP_E_INVAL, "tile edge from task '%s' to itself",
			       g->tasks[e->from].name);
	if (!skip_tile_policy_name(e->policy) ||
	    (e->policy == SKIP_TILE_ROW ? e->rows < 1 : e->rows != 0))
		return sk_fail(SKIP_E_INVAL,
			       "tile edge '%s' -> '%s': policy %d with %d rows (tile: 0 rows; "
			       "row: 1 or more)",
			       g->tasks[e->from].name, g->tasks[e->to].name, (int)e->policy,
			       e->rows);
	for (int i = 0; i < g->ntile_edges; i++)
		if (g->tile_edges[i].from == e->from && g->tile_edges[i].to == e->to)
			return sk_fail(SKIP_E_INVAL, "tile edge '%s' -> '%s' declared twice",
				       g->tasks[e->from].name, g->tasks[e->to].name);
	return SK_VEC_PUSH(g->tile_edges, g->ntile_edges, g->captile_edges, *e);
}

int skip_graph_tile_edges(const struct skip_graph *g, const struct skip_tile_edge **edges)
{
	*edges = g ? g->tile_edges : NULL;
	return g ? g->ntile_edges : 0;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* Check the tile edges, and keep the derived predecessors (@e, before the reduction) of each
 * task that has one in: E5 needs them (exec/persistent.c). */
static int index_tile_edges(struct skip_graph *g, const struct sk_edge *e, int ne)
{
	for (int i = 0; i < g->ntile_edges; i++) {
		struct sk_task *t = &g->tasks[g->tile_edges[i].to];
		int err = sk_tile_edge_check(g, &g->tile_edges[i]);

		if (err)
			return err;
		if (!t->dpreds && !(t->dpreds = malloc(sizeof(int))))
			return sk_fail(SKIP_E_NOMEM, "out of memory");
	}
	for (int i = 0; i < ne; i++)
		if (g->tasks[e[i].to].dpreds)
			g->tasks[e[i].to].ndpreds++;
	for (int v = 0; v < g->ntasks; v++) {
		struct sk_task *t = &g->tasks[v];
		int *a;

		if (!t->dpreds)
			continue;
		if (!(a = realloc(t->dpreds, sizeof(int) * ((size_t)t->ndpreds + 1))))
			return sk_fail(SKIP_E_NOMEM, "out of memory");
		t->dpreds = a;
		t->ndpreds = 0;
	}
	for (int i = 0; i < ne; i++) {
		struct sk_task *t = &g->tasks[e[i].to];

		if (t->dpreds)
			t->dpreds[t->ndpreds++] = e[i].from;
	}
	for (int v = 0; v < g->ntasks; v++) {
		struct sk_task *t = &g->tasks[v];
		int n = 0;

		if (!t->dpreds)
			continue;
		qsort(t->dpreds, (size_t)t->ndpreds, sizeof(int), cmp_int);
		for (int i = 0; i < t->ndpreds; i++)
			if (!n || t->dpreds[n - 1] != t->dpreds[i])
				t->dpreds[n++] = t->dpreds[i];
		t->ndpreds = n;
	}
	return 0;
}

/* Each task's explicit predecessors, for sk_has_explicit_edge(). */
static int index_explicit(struct skip_graph *g)
{
	for (int i = 0; i < g->nexplicit; i++)
		g->tasks[g->explicit_edges[i].to].nxpreds++;
	for (int v = 0; v < g->ntasks; v++) {
		g->tasks[v].xpreds = malloc((size_t)g->tasks[v].nxpreds * sizeof(int) + 1);
		if (!g->tasks[v].xpreds)
			return sk_fail(SKIP_E_NOMEM, "out of memory");
		g->tasks[v].nxpreds = 0;
	}
	for (int i = 0; i < g->nexplicit; i++) {
		struct sk_task *t = &g->tasks[g->explicit_edges[i].to];

		t->xpreds[t->nxpreds++] = g->explicit_edges[i].from;
	}
	return 0;
}

int sk_tasks_conflict(const struct sk_task *a, const struct sk_task *b)
{
	for (int i = 0; i < a->naccess; i++) {
		const struct skip_access *x = &a->access[i];

		for (int j = 0; j < b->naccess; j++) {
			const struct skip_access *y = &b->access[j];

			if (x->buffer != y->buffer || !((x->mode | y->mode) & SKIP_WRITE))
				continue;
			if (sk_overlap(x->offset, x->size, y->offset, y->size))
				return 1;
		}
	}
	return 0;
}

/* ---- derivation ------------------------------------------------------------------------------ */

struct acc_rec {
	int task;
	size_t off, end;
	unsigned mode;
};

struct acc_list {
	struct acc_rec *all, *writes;
	int nall, nwrites;
	size_t capall, capwrites;
};

struct edge_vec {
	struct sk_edge *v;
	int n;
	size_t cap;
};

static int push_edge(struct edge_vec *e, int from, int to)
{
	return SK_VEC_PUSH(e->v, e->n, e->cap, (struct sk_edge){from, to});
}

/* Edges from the earlier accesses in @l that access @a of task @t conflicts with. */
static int scan_back(const struct acc_list *l, int t, const struct skip_access *a,
		     struct edge_vec *out)
{
	size_t off = a->offset, end = a->offset + a->size;
	int writer = (a->mode & SKIP_WRITE) != 0;
	const struct acc_rec *v = writer ? l->all : l->writes;
	int n = writer ? l->nall : l->nwrites;

	for (int i = n - 1; i >= 0; i--) {
		const struct acc_rec *r = &v[i];

		if (r->task == t || !(r->off < end && off < r->end))
			continue;
		if ((writer || (r->mode & SKIP_WRITE)) && push_edge(out, r->task, t))
			return SKIP_E_NOMEM;
		if ((r->mode & SKIP_WRITE) && r->off <= off && r->end >= end)
			break; /* a covering write: everything older is ordered before it */
	}
	return 0;
}

static int record_access(struct acc_list *l, int t, const struct skip_access *a)
{
	struct acc_rec r = {t, a->offset, a->offset + a->size, a->mode};

	if (SK_VEC_PUSH(l->all, l->nall, l->capall, r))
		return SKIP_E_NOMEM;
	if (!(a->mode & SKIP_WRITE))
		return 0;
	return SK_VEC_PUSH(l->writes, l->nwrites, l->capwrites, r);
}

static int derive_edges(const struct skip_graph *g, struct edge_vec *out)
{
	struct acc_list *lists = calloc((size_t)g->nbufs + 1, sizeof(*lists));
	int err = 0;

	if (!lists)
		return sk_fail(SKIP_E_NOMEM, "out of memory");
	for (int t = 0; t < g->ntasks && !err; t++) {
		const struct sk_task *task = &g->tasks[t];

		for (int i = 0; i < task->naccess && !err; i++)
			err = scan_back(&lists[task->access[i].buffer], t, &task->access[i], out);
		for (int i = 0; i < task->naccess && !err; i++)
			err = record_access(&lists[task->access[i].buffer], t, &task->access[i]);
	}
	for (int b = 0; b < g->nbufs; b++) {
		free(lists[b].all);
		free(lists[b].writes);
	}
	free(lists);
	return err ? sk_fail(SKIP_E_NOMEM, "out of memory") : 0;
}

/* Undo a failed finalize, so that the graph is as before and may be fixed and retried. */
static void unfinalize(struct skip_graph *g)
{
	for (int v = 0; v < g->ntasks; v++) {
		struct sk_task *t = &g->tasks[v];

		free(t->preds);
		free(t->succs);
		free(t->xpreds);
		free(t->dpreds);
		t->preds = t->succs = t->xpreds = t->dpreds = NULL;
		t->npreds = t->nsuccs = t->nxpreds = t->ndpreds = t->level = 0;
	}
	free(g->topo);
	free(g->reach);
	g->topo = NULL;
	g->reach = NULL;
	g->nedges = g->width = g->reach_words = 0;
}

int skip_graph_finalize(struct skip_graph *g)
{
	struct edge_vec e = {0};
	int err = check_open(g);

	if (err)
		return err;
	err = derive_edges(g, &e);
	for (int i = 0; i < g->nexplicit && !err; i++)
		err = push_edge(&e, g->explicit_edges[i].from, g->explicit_edges[i].to);
	if (!err)
		err = sk_dag_build(g, e.v, e.n);
	if (!err)
		err = index_explicit(g);
	if (!err)
		err = index_tile_edges(g, e.v, e.n);
	free(e.v);
	if (err)
		unfinalize(g);
	else
		g->finalized = 1;
	return err;
}

/* ---- queries --------------------------------------------------------------------------------- */

int skip_graph_ntasks(const struct skip_graph *g)
{
	return g ? g->ntasks : 0;
}

int skip_graph_nbuffers(const struct skip_graph *g)
{
	return g ? g->nbufs : 0;
}

const char *skip_graph_task_name(const struct skip_graph *g, int task)
{
	return g && task >= 0 && task < g->ntasks ? g->tasks[task].name : NULL;
}

const char *skip_graph_task_kernel(const struct skip_graph *g, int task, unsigned grid[3],
				   unsigned block[3])
{
	const struct sk_task *t;

	if (!g || task < 0 || task >= g->ntasks)
		return NULL;
	t = &g->tasks[task];
	for (int i = 0; i < 3; i++) {
		if (grid)
			grid[i] = t->grid[i];
		if (block)
			block[i] = t->block[i];
	}
	return t->kernel.kind == SKIP_KERNEL_MODULE ? t->kernel.name : NULL;
}

void *skip_graph_buffer_ptr(const struct skip_graph *g, int buffer)
{
	return g && buffer >= 0 && buffer < g->nbufs ? g->bufs[buffer].dptr : NULL;
}

const char *skip_graph_buffer_name(const struct skip_graph *g, int buffer)
{
	return g && buffer >= 0 && buffer < g->nbufs ? g->bufs[buffer].name : NULL;
}

size_t skip_graph_buffer_size(const struct skip_graph *g, int buffer)
{
	return g && buffer >= 0 && buffer < g->nbufs ? g->bufs[buffer].size : 0;
}

int skip_graph_find_task(const struct skip_graph *g, const char *name)
{
	return names_find(g, &g->task_names, task_name, name);
}

int skip_graph_find_buffer(const struct skip_graph *g, const char *name)
{
	return names_find(g, &g->buf_names, buf_name, name);
}

int skip_graph_task_access(const struct skip_graph *g, int task, const struct skip_access **access)
{
	*access = NULL;
	if (!g || task < 0 || task >= g->ntasks)
		return 0;
	*access = g->tasks[task].access;
	return g->tasks[task].naccess;
}

int skip_graph_preds(const struct skip_graph *g, int task, const int **preds)
{
	*preds = NULL;
	if (!g || !g->finalized || task < 0 || task >= g->ntasks)
		return 0;
	*preds = g->tasks[task].preds;
	return g->tasks[task].npreds;
}

int skip_graph_nedges(const struct skip_graph *g)
{
	return g && g->finalized ? g->nedges : 0;
}

int skip_graph_level(const struct skip_graph *g, int task)
{
	return g && g->finalized && task >= 0 && task < g->ntasks ? g->tasks[task].level : -1;
}

int skip_graph_width(const struct skip_graph *g)
{
	return g && g->finalized ? g->width : 0;
}
