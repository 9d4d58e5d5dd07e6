/*
 * dag.c: from a list of dependency edges to the graph's DAG: a topological order (Kahn's
 * algorithm, smallest id first among the ready tasks, so program order is kept wherever the
 * edges allow), cycle reports, reachability bit sets, the transitive reduction (an edge p -> v
 * is dropped when p already reaches v through another predecessor), longest-path levels and
 * the width.
 */
#define SK_LOG_DOMAIN "runtime"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static int cmp_edge(const void *a, const void *b)
{
	const struct sk_edge *x = a, *y = b;

	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	return x->from < y->from ? -1 : x->from > y->from;
}

/* ---- a binary min-heap of task ids ----------------------------------------------------------- */

static void heap_push(int *h, int *n, int v)
{
	int i = (*n)++;

	while (i > 0 && h[(i - 1) / 2] > v) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = v;
}

static int heap_pop(int *h, int *n)
{
	int top = h[0], v = h[--(*n)], i = 0;

	for (;;) {
		int c = 2 * i + 1;

		if (c >= *n)
			break;
		if (c + 1 < *n && h[c + 1] < h[c])
			c++;
		if (h[c] >= v)
			break;
		h[i] = h[c];
		i = c;
	}
	if (*n)
		h[i] = v;
	return top;
}

/* ---- order and cycles ------------------------------------------------------------------------ */

/* CSR adjacency of the deduplicated edges: preds of v are pl[ps[v] .. ps[v+1]). */
struct csr {
	int *ps, *pl; /* predecessors */
	int *ss, *sl; /* successors */
};

static void report_cycle(const struct skip_graph *g, const struct csr *c, const int *indeg)
{
	int n = g->ntasks, *seen = calloc((size_t)n, sizeof(int)),
	    *path = malloc((size_t)n * sizeof(int));
	int v = 0, len = 0, start;
	struct sk_strbuf sb = {0};

	while (v < n && !indeg[v])
		v++;
	if (!seen || !path || v == n) {
		sk_fail(SKIP_E_INVAL, "the dependencies contain a cycle");
		goto out;
	}
	while (!seen[v]) { /* walk backwards through predecessors still waiting */
		seen[v] = len + 1;
		path[len++] = v;
		for (int i = c->ps[v]; i < c->ps[v + 1]; i++)
			if (indeg[c->pl[i]]) {
				v = c->pl[i];
				break;
			}
	}
	start = seen[v] - 1;
	sk_strbuf_printf(&sb, "cycle: %s", g->tasks[v].name);
	for (int i = len - 1; i >= start; i--)
		sk_strbuf_printf(&sb, " -> %s", g->tasks[path[i]].name);
	sk_fail(SKIP_E_INVAL, "%s", sb.buf ? sb.buf : "the dependencies contain a cycle");
out:
	free(sb.buf);
	free(seen);
	free(path);
}

static int topo_sort(struct skip_graph *g, const struct csr *c)
{
	int n = g->ntasks, nh = 0, k = 0, err = 0;
	int *indeg = malloc((size_t)n * sizeof(int) + 1),
	    *heap = malloc((size_t)n * sizeof(int) + 1);

	g->topo = malloc((size_t)n * sizeof(int) + 1);
	if (!indeg || !heap || !g->topo) {
		err = sk_fail(SKIP_E_NOMEM, "out of memory");
		goto out;
	}
	for (int v = 0; v < n; v++) {
		indeg[v] = c->ps[v + 1] - c->ps[v];
		if (!indeg[v])
			heap_push(heap, &nh, v);
	}
	while (nh) {
		int u = heap_pop(heap, &nh);

		g->topo[k++] = u;
		for (int i = c->ss[u]; i < c->ss[u + 1]; i++)
			if (--indeg[c->sl[i]] == 0)
				heap_push(heap, &nh, c->sl[i]);
	}
	if (k < n) {
		report_cycle(g, c, indeg);
		err = SKIP_E_INVAL;
	}
out:
	free(indeg);
	free(heap);
	return err;
}

static int build_csr(const struct skip_graph *g, const struct sk_edge *e, int ne, struct csr *c)
{
	int n = g->ntasks, *fill;

	c->ps = calloc((size_t)n + 1, sizeof(int));
	c->ss = calloc((size_t)n + 1, sizeof(int));
	c->pl = malloc((size_t)ne * sizeof(int) + 1);
	c->sl = malloc((size_t)ne * sizeof(int) + 1);
	fill = calloc((size_t)n + 1, sizeof(int));
	if (!c->ps || !c->ss || !c->pl || !c->sl || !fill) {
		free(fill);
		return sk_fail(SKIP_E_NOMEM, "out of memory");
	}
	for (int i = 0; i < ne; i++) {
		c->ps[e[i].to + 1]++;
		c->ss[e[i].from + 1]++;
	}
	for (int v = 0; v < n; v++) {
		c->ps[v + 1] += c->ps[v];
		c->ss[v + 1] += c->ss[v];
	}
	for (int i = 0; i < ne; i++) { /* e is sorted by (to, from): preds come out sorted */
		c->pl[c->ps[e[i].to] + fill[e[i].to]++] = e[i].from;
	}
	memset(fill, 0, (size_t)n * sizeof(int));
	for (int i = 0; i < ne; i++)
		c->sl[c->ss[e[i].from] + fill[e[i].from]++] = e[i].to;
	free(fill);
	return 0;
}

/* ---- reachability and reduction -------------------------------------------------------------- */

static int compute_reach(struct skip_graph *g, const struct csr *c)
{
	int n = g->ntasks, w = (n + 63) / 64;

	if (n > SK_REDUCE_MAX_TASKS) {
		sk_dbg(1, "%d tasks: transitive reduction skipped", n);
		return 0;
	}
	g->reach = calloc((size_t)n * (size_t)w + 1, sizeof(uint64_t));
	if (!g->reach)
		return sk_fail(SKIP_E_NOMEM, "out of memory (reachability of %d tasks)", n);
	g->reach_words = w;
	for (int k = 0; k < n; k++) {
		int v = g->topo[k];
		uint64_t *rv = g->reach + (size_t)v * w;

		for (int i = c->ps[v]; i < c->ps[v + 1]; i++) {
			int p = c->pl[i];
			const uint64_t *rp = g->reach + (size_t)p * w;

			for (int j = 0; j < w; j++)
				rv[j] |= rp[j];
			rv[p / 64] |= 1ULL << (p % 64);
		}
	}
	return 0;
}

static int reduce(struct skip_graph *g, const struct csr *c)
{
	int n = g->ntasks, w = g->reach_words;
	uint64_t *u = calloc((size_t)w + 1, sizeof(uint64_t));

	if (!u)
		return sk_fail(SKIP_E_NOMEM, "out of memory");
	g->nedges = 0;
	for (int v = 0; v < n; v++) {
		struct sk_task *t = &g->tasks[v];
		int np = c->ps[v + 1] - c->ps[v];

		t->preds = malloc((size_t)np * sizeof(int) + 1);
		if (!t->preds) {
			free(u);
			return sk_fail(SKIP_E_NOMEM, "out of memory");
		}
		/* p is redundant iff another predecessor reaches it: p is in the union of the
		 * predecessors' reach sets (p is never in its own). */
		if (g->reach) {
			memset(u, 0, (size_t)w * sizeof(uint64_t));
			for (int i = c->ps[v]; i < c->ps[v + 1]; i++)
				for (int j = 0; j < w; j++)
					u[j] |= g->reach[(size_t)c->pl[i] * w + j];
		}
		t->npreds = 0;
		for (int i = c->ps[v]; i < c->ps[v + 1]; i++) {
			int p = c->pl[i];

			if (g->reach && (u[p / 64] >> (p % 64) & 1))
				continue;
			t->preds[t->npreds++] = p;
		}
		g->nedges += t->npreds;
	}
	free(u);
	return 0;
}

static int link_succs_levels(struct skip_graph *g)
{
	int n = g->ntasks, *count;

	for (int v = 0; v < n; v++)
		for (int i = 0; i < g->tasks[v].npreds; i++)
			g->tasks[g->tasks[v].preds[i]].nsuccs++;
	for (int v = 0; v < n; v++) {
		g->tasks[v].succs = malloc((size_t)g->tasks[v].nsuccs * sizeof(int) + 1);
		if (!g->tasks[v].succs)
			return sk_fail(SKIP_E_NOMEM, "out of memory");
		g->tasks[v].nsuccs = 0;
	}
	for (int v = 0; v < n; v++)
		for (int i = 0; i < g->tasks[v].npreds; i++) {
			struct sk_task *p = &g->tasks[g->tasks[v].preds[i]];

			p->succs[p->nsuccs++] = v;
		}
	count = calloc((size_t)n + 1, sizeof(int));
	if (!count)
		return sk_fail(SKIP_E_NOMEM, "out of memory");
	g->width = 0;
	for (int k = 0; k < n; k++) {
		struct sk_task *t = &g->tasks[g->topo[k]];

		t->level = 0;
		for (int i = 0; i < t->npreds; i++)
			if (g->tasks[t->preds[i]].level + 1 > t->level)
				t->level = g->tasks[t->preds[i]].level + 1;
		if (++count[t->level] > g->width)
			g->width = count[t->level];
	}
	free(count);
	return 0;
}

int sk_dag_build(struct skip_graph *g, struct sk_edge *e, int ne)
{
	struct csr c = {0};
	int m = 0, err;

	if (ne > 1)
		qsort(e, (size_t)ne, sizeof(*e), cmp_edge);
	for (int i = 0; i < ne; i++) /* drop duplicates */
		if (!m || e[i].from != e[m - 1].from || e[i].to != e[m - 1].to)
			e[m++] = e[i];
	err = build_csr(g, e, m, &c);
	if (!err)
		err = topo_sort(g, &c);
	if (!err)
		err = compute_reach(g, &c);
	if (!err)
		err = reduce(g, &c);
	if (!err)
		err = link_succs_levels(g);
	free(c.ps);
	free(c.pl);
	free(c.ss);
	free(c.sl);
	return err;
}

/* Reachability without the bit sets: depth-first search backwards from b. */
static int search_back(const struct skip_graph *g, int a, int b)
{
	int n = g->ntasks, sp = 0, found = 0;
	int *stack = malloc((size_t)n * sizeof(int) + 1);
	unsigned char *seen = calloc((size_t)n + 1, 1);

	if (!stack || !seen)
		goto out;
	stack[sp++] = b;
	seen[b] = 1;
	while (sp && !found) {
		const struct sk_task *t = &g->tasks[stack[--sp]];

		for (int i = 0; i < t->npreds; i++) {
			int p = t->preds[i];

			if (p == a)
				found = 1;
			if (!seen[p]) {
				seen[p] = 1;
				stack[sp++] = p;
			}
		}
	}
out:
	free(stack);
	free(seen);
	return found;
}

int skip_graph_depends(const struct skip_graph *g, int a, int b)
{
	if (!g || !g->finalized || a < 0 || b < 0 || a >= g->ntasks || b >= g->ntasks || a == b)
		return 0;
	if (g->reach)
		return (int)(g->reach[(size_t)b * g->reach_words + a / 64] >> (a % 64) & 1);
	return search_back(g, a, b);
}
