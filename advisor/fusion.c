/*
 * fusion.c: kernel chains worth fusing, by SKIP's proximity score (shared/research/papers.md
 * 1.5, the authors' analyze_kernel_fusion_candidates): over the kernels of each stream in trace
 * order (of the region's occurrences, when one was asked for, cut between occurrences), cut
 * where a host synchronization came between two launches (the recorded sync calls;
 * SKIP's own code tests for a sync among launch events, which never happens), every window of L
 * consecutive kernels (L = min_len..max_len, windows may overlap) is a candidate;
 * PS = occurrences of the chain / launches of its first kernel in the run (in the pooled runs,
 * when --region pools a run's repetitions: each run's streams are counted apart); chains with
 * PS >= min_ps are kept and ranked by recoverable time = (L - 1) x occurrences x the mean time
 * of the launch calls a fusion would remove, a kernel's first launch in its process left out
 * (that call also loads the kernel's code: a one-time cost fusing does not remove).
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct entry {
	uint64_t hash;
	int32_t *ids;	/* the chain (owned) */
	int32_t *names; /* short-name ids of the first occurrence (owned) */
	int len;
	int64_t count;
	double api_sum; /* t_api of the launches 2..L of every occurrence, first ones left out */
	int64_t api_n;
};

struct table {
	struct entry *e;
	size_t n, cap; /* cap: power of two */
};

static uint64_t hash_ids(const int32_t *ids, int len)
{
	uint64_t h = 1469598103934665603ull ^ (uint64_t)len;

	for (int i = 0; i < len; i++) {
		h ^= (uint32_t)ids[i];
		h *= 1099511628211ull;
	}
	return h ? h : 1;
}

static struct entry *find_or_add(struct table *t, const int32_t *ids, int len)
{
	uint64_t h = hash_ids(ids, len);
	size_t i;

	if ((t->n + 1) * 2 > t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 1024;
		struct entry *e = sk_xcalloc(cap, sizeof(*e));

		for (size_t j = 0; j < t->cap; j++) {
			size_t k;

			if (!t->e[j].hash)
				continue;
			for (k = t->e[j].hash & (cap - 1); e[k].hash; k = (k + 1) & (cap - 1))
				;
			e[k] = t->e[j];
		}
		free(t->e);
		t->e = e;
		t->cap = cap;
	}
	for (i = h & (t->cap - 1); t->e[i].hash; i = (i + 1) & (t->cap - 1))
		if (t->e[i].hash == h && t->e[i].len == len &&
		    !memcmp(t->e[i].ids, ids, (size_t)len * sizeof(int32_t)))
			return &t->e[i];
	t->e[i].hash = h;
	t->e[i].len = len;
	t->e[i].ids = sk_xmalloc((size_t)len * sizeof(int32_t));
	memcpy(t->e[i].ids, ids, (size_t)len * sizeof(int32_t));
	t->n++;
	return &t->e[i];
}

static int kernel_in_scope(const struct skip_timeline *tl, const struct skip_op *op)
{
	return op->kind == SKIP_OP_KERNEL && (!tl->nwindows || op->window >= 0);
}

/* Per stream, the kernels in order, with a segment number that grows at each sync cut. */
struct seq {
	int32_t *ids, *names;
	double *t_api;
	int *segment;
	size_t n;
};

static void build_seqs(const struct skip_timeline *tl, struct seq *sq, size_t *nseq)
{
	size_t *last = NULL, first = *nseq; /* sequences of earlier timelines are left alone */
	uint64_t *keys = NULL;

	for (size_t i = 0; i < tl->nops; i++) {
		const struct skip_op *op = &tl->ops[i];
		uint64_t key = ((uint64_t)op->pid << 32) | op->stream;
		size_t s;

		if (!kernel_in_scope(tl, op))
			continue;
		for (s = first; s < *nseq && keys[s - first] != key; s++)
			;
		if (s == *nseq) {
			keys = sk_xrealloc(keys, (s - first + 1) * sizeof(uint64_t));
			last = sk_xrealloc(last, (s - first + 1) * sizeof(size_t));
			keys[s - first] = key;
			memset(&sq[s], 0, sizeof(sq[s]));
			(*nseq)++;
		}
		sq[s].ids = sk_xrealloc(sq[s].ids, (sq[s].n + 1) * sizeof(int32_t));
		sq[s].names = sk_xrealloc(sq[s].names, (sq[s].n + 1) * sizeof(int32_t));
		sq[s].t_api = sk_xrealloc(sq[s].t_api, (sq[s].n + 1) * sizeof(double));
		sq[s].segment = sk_xrealloc(sq[s].segment, (sq[s].n + 1) * sizeof(int));
		sq[s].ids[sq[s].n] = op->fullname >= 0 ? op->fullname : op->name;
		sq[s].names[sq[s].n] = op->name;
		sq[s].t_api[sq[s].n] = op->first ? -1 /* left out of the mean */
				       : op->launch != INT64_MIN
					   ? (double)(op->api_end - op->launch)
					   : 0;
		sq[s].segment[sq[s].n] =
		    sq[s].n == 0 ? 0
				 : sq[s].segment[sq[s].n - 1] +
				       (tl->ops[last[s - first]].window != op->window ||
					sk_sync_between(tl, &tl->ops[last[s - first]], op));
		last[s - first] = i;
		sq[s].n++;
	}
	free(keys);
	free(last);
}

static int cmp_chain(const void *a, const void *b)
{
	const struct skip_chain *x = a, *y = b;

	if (x->recoverable_ns != y->recoverable_ns)
		return x->recoverable_ns > y->recoverable_ns ? -1 : 1;
	if (x->len != y->len)
		return x->len > y->len ? -1 : 1;
	return (x->count < y->count) - (x->count > y->count);
}

static void count_windows(const struct seq *sq, size_t nseq, int len, struct table *t)
{
	for (size_t s = 0; s < nseq; s++)
		for (size_t i = 0; i + (size_t)len <= sq[s].n; i++) {
			struct entry *e;

			if (sq[s].segment[i] != sq[s].segment[i + (size_t)len - 1])
				continue; /* crosses a synchronization */
			e = find_or_add(t, &sq[s].ids[i], len);
			if (!e->names) {
				e->names = sk_xmalloc((size_t)len * sizeof(int32_t));
				memcpy(e->names, &sq[s].names[i], (size_t)len * sizeof(int32_t));
			}
			e->count++;
			for (int k = 1; k < len; k++)
				if (sq[s].t_api[i + (size_t)k] >= 0) {
					e->api_sum += sq[s].t_api[i + (size_t)k];
					e->api_n++;
				}
		}
}

size_t sk_find_chains(const struct skip_trace *t, const struct skip_timeline *const *tls,
		      size_t ntl, int min_len, int max_len, double min_ps, struct skip_chain **out)
{
	struct seq *sq;
	struct skip_chain *c = NULL;
	/* windows of one kernel: launches per identity (PS denominator) */
	struct table heads = {0};
	size_t nseq = 0, nc = 0, nops = 0;

	for (size_t i = 0; i < ntl; i++)
		nops += tls[i]->nops;
	sq = sk_xcalloc(nops + 1, sizeof(*sq));
	for (size_t i = 0; i < ntl; i++)
		build_seqs(tls[i], sq, &nseq);
	count_windows(sq, nseq, 1, &heads);
	for (int len = min_len; len <= max_len; len++) {
		struct table tab = {0};

		count_windows(sq, nseq, len, &tab);
		for (size_t i = 0; i < tab.cap; i++) {
			struct entry *e = &tab.e[i];
			int64_t head;

			if (!e->hash)
				continue;
			head = find_or_add(&heads, e->ids, 1)->count;
			if (head && (double)e->count / (double)head >= min_ps - 1e-12) {
				struct skip_chain *ch;

				c = sk_xrealloc(c, (nc + 1) * sizeof(*c));
				ch = &c[nc++];
				ch->len = len;
				ch->ids = e->ids;
				e->ids = NULL;
				ch->names = sk_xcalloc((size_t)len, sizeof(char *));
				for (int k = 0; k < len; k++)
					ch->names[k] =
					    sk_xstrdup(skip_trace_string(t, e->names[k]));
				ch->count = e->count;
				ch->head_launches = head;
				ch->ps = (double)e->count / (double)head;
				ch->launch_ns = e->api_n ? e->api_sum / (double)e->api_n : 0;
				ch->recoverable_ns = (len - 1) * (double)e->count * ch->launch_ns;
			}
			free(e->ids);
			free(e->names);
		}
		free(tab.e);
	}
	for (size_t i = 0; i < heads.cap; i++) {
		free(heads.e[i].ids);
		free(heads.e[i].names);
	}
	free(heads.e);
	for (size_t s = 0; s < nseq; s++) {
		free(sq[s].ids);
		free(sq[s].names);
		free(sq[s].t_api);
		free(sq[s].segment);
	}
	free(sq);
	if (nc)
		qsort(c, nc, sizeof(*c), cmp_chain);
	*out = c;
	return nc;
}

int sk_chains_overlap(const struct skip_chain *a, const struct skip_chain *b)
{
	for (int s = 2 - b->len; s <= a->len - 2; s++) { /* b's kernel k at a's s + k */
		int lo = s > 0 ? s : 0, hi = s + b->len < a->len ? s + b->len : a->len, k;

		for (k = lo; k < hi && a->ids[k] == b->ids[k - s]; k++)
			;
		if (k == hi && hi - lo >= 2)
			return 1;
	}
	return 0;
}
