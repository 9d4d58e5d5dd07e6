/*
 * hash.c: struct sk_hash, the one hash table (skip_common.h says how it works and who owns
 * what). Lookups are inline in the header; here are the parts that allocate or move entries:
 * growth (rehashing into twice the slots), insertion and removal by backward shifting, which
 * leaves no tombstones, so lookups stay as fast after removals as before.
 */
#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skip_common.h"

#define MIN_SLOTS 16

/* Put @key in the first free slot of its probe sequence. The caller made room and counts it. */
static void place(struct sk_hash *h, uint64_t key, uint64_t val)
{
	size_t mask = h->cap - 1, i;

	for (i = sk_hash_home(h, key); h->slots[i].key; i = (i + 1) & mask)
		;
	h->slots[i].key = key;
	h->slots[i].val = val;
}

int sk_hash_reserve(struct sk_hash *h, size_t more)
{
	struct sk_hash nh = {0};
	size_t need = h->n + more, cap = MIN_SLOTS;
	unsigned bits = 4;

	if (need < h->n || need > SIZE_MAX / 4)
		return sk_fail(SKIP_E_NOMEM, "out of memory");
	if (need * 2 <= h->cap)
		return 0;
	while (cap < need * 2) {
		cap *= 2;
		bits++;
	}
	if (cap > (size_t)PTRDIFF_MAX / sizeof(*nh.slots)) /* more than calloc() can give */
		return sk_fail(SKIP_E_NOMEM, "out of memory");
	nh.slots = calloc(cap, sizeof(*nh.slots));
	if (!nh.slots)
		return sk_fail(SKIP_E_NOMEM, "out of memory");
	nh.cap = cap;
	nh.shift = 64 - bits;
	nh.n = h->n;
	for (size_t i = 0; i < h->cap; i++)
		if (h->slots[i].key)
			place(&nh, h->slots[i].key, h->slots[i].val);
	free(h->slots);
	*h = nh;
	return 0;
}

void sk_hash_xreserve(struct sk_hash *h, size_t more)
{
	if (sk_hash_reserve(h, more)) {
		fprintf(stderr, "skip: error: out of memory (a hash table of %zu entries)\n",
			h->n + more);
		abort();
	}
}

int sk_hash_add(struct sk_hash *h, uint64_t key, uint64_t val)
{
	int err;

	if (!key)
		return sk_fail(SKIP_E_INVAL, "hash key 0");
	if ((h->n + 1) * 2 > h->cap && (err = sk_hash_reserve(h, 1)))
		return err;
	place(h, key, val);
	h->n++;
	return 0;
}

int sk_hash_put(struct sk_hash *h, uint64_t key, uint64_t val)
{
	uint64_t *v = sk_hash_get(h, key);

	if (v) {
		*v = val;
		return 0;
	}
	return sk_hash_add(h, key, val);
}

/*
 * Backward-shift deletion: walk the run of entries after the hole; an entry whose first slot
 * does not lie cyclically in (hole, its slot] can move back into the hole (its probe passes
 * there), and its old slot becomes the hole. The run ends at an empty slot.
 */
void sk_hash_del_at(struct sk_hash *h, size_t slot)
{
	size_t mask = h->cap - 1, hole = slot, j = slot;

	assert(slot < h->cap && h->slots[slot].key);
	for (;;) {
		size_t home;

		j = (j + 1) & mask;
		if (!h->slots[j].key)
			break;
		home = sk_hash_home(h, h->slots[j].key);
		if (hole <= j ? hole < home && home <= j : hole < home || home <= j)
			continue;
		h->slots[hole] = h->slots[j];
		hole = j;
	}
	h->slots[hole].key = 0;
	h->slots[hole].val = 0;
	h->n--;
}

int sk_hash_del(struct sk_hash *h, uint64_t key)
{
	size_t i = sk_hash_find(h, key);

	if (i == SK_HASH_END)
		return SKIP_E_NOTFOUND;
	sk_hash_del_at(h, i);
	return 0;
}

void sk_hash_fini(struct sk_hash *h)
{
	free(h->slots);
	memset(h, 0, sizeof(*h));
}
