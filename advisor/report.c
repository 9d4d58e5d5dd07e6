/*
 * report.c: the advice report's items, as advise.c (graph and fusion items) and workload.c
 * (the executors' items) add them, and skip_advice_free(). Uses nothing else of the advisor,
 * so both can.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct skip_advice *sk_item_push(struct skip_advice_report *r)
{
	struct skip_advice *a;

	r->items = sk_xrealloc(r->items, (r->nitems + 1) * sizeof(*r->items));
	a = &r->items[r->nitems++];
	memset(a, 0, sizeof(*a));
	a->chain = -1;
	a->overlaps = -1;
	a->persist_mode = -1;
	return a;
}

void sk_item_set(struct skip_advice *a, double base, double pred, double total_saved)
{
	a->baseline_il_ns = base;
	a->predicted_il_ns = pred;
	a->speedup = pred > 0 ? base / pred : 0;
	a->saved_ns = base - pred;
	a->total_saved_ns = total_saved;
}

double sk_item_rank(const struct skip_advice *a)
{
	return a->saved_ns * (double)(a->regions ? a->regions : 1);
}

void skip_advice_free(struct skip_advice_report *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nchains; i++) {
		for (int k = 0; k < r->chains[i].len; k++)
			free(r->chains[i].names[k]);
		free(r->chains[i].names);
		free(r->chains[i].ids);
	}
	for (size_t i = 0; i < r->nitems; i++) {
		free(r->items[i].title);
		free(r->items[i].assumptions);
		free(r->items[i].plan_json);
	}
	free(r->chains);
	free(r->items);
	free(r->path);
	free(r->region);
	free(r->workload);
	free(r->unprofiled_note);
	free(r->plan_note);
	free(r);
}
