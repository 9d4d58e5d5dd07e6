/*
 * names.c: interning for the analyzer: NVTX range texts (text -> small id) and operator stacks
 * (a trie whose node is (parent stack, text), so a whole range stack is one 32-bit id).
 * Both use open addressing and grow by doubling; they abort only through sk_xmalloc.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	while (*s) {
		h ^= (unsigned char)*s++;
		h *= 1099511628211ull;
	}
	return h;
}

static void names_grow(struct sk_names *t)
{
	size_t nslots = t->nslots ? t->nslots * 2 : 256;
	struct sk_name_slot *slots = sk_xcalloc(nslots, sizeof(*slots));

	for (size_t i = 0; i < t->nslots; i++) {
		size_t j;

		if (!t->slots[i].id)
			continue;
		for (j = t->slots[i].hash & (nslots - 1); slots[j].id; j = (j + 1) & (nslots - 1))
			;
		slots[j] = t->slots[i];
	}
	free(t->slots);
	t->slots = slots;
	t->nslots = nslots;
}

static size_t names_probe(const struct sk_names *t, const char *s, uint64_t h)
{
	size_t i;

	for (i = h & (t->nslots - 1); t->slots[i].id; i = (i + 1) & (t->nslots - 1))
		if (t->slots[i].hash == h && strcmp(t->s[t->slots[i].id], s) == 0)
			break;
	return i;
}

uint32_t sk_names_intern(struct sk_names *t, const char *s)
{
	uint64_t h = hash_str(s);
	size_t i;

	if ((t->n + 1) * 2 >= t->nslots)
		names_grow(t);
	i = names_probe(t, s, h);
	if (t->slots[i].id)
		return t->slots[i].id;
	if (t->n + 2 > t->cap) {
		t->cap = t->cap ? t->cap * 2 : 64;
		t->s = sk_xrealloc(t->s, t->cap * sizeof(char *));
	}
	t->s[++t->n] = sk_xstrdup(s);
	t->slots[i].hash = h;
	t->slots[i].id = (uint32_t)t->n;
	return (uint32_t)t->n;
}

uint32_t sk_names_find(const struct sk_names *t, const char *s)
{
	if (!t->nslots)
		return 0;
	return t->slots[names_probe(t, s, hash_str(s))].id;
}

void sk_names_fini(struct sk_names *t)
{
	for (size_t i = 1; i <= t->n; i++)
		free(t->s[i]);
	free(t->s);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

static uint64_t stack_key(uint32_t parent, uint32_t text)
{
	return ((uint64_t)parent << 32) | text;
}

static size_t stack_probe(const struct sk_stacks *s, uint64_t key)
{
	size_t i = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 20) & (s->nslots - 1);

	while (s->slot_ids[i] && s->slots[i] != key)
		i = (i + 1) & (s->nslots - 1);
	return i;
}

static void stacks_grow(struct sk_stacks *s)
{
	size_t nslots = s->nslots ? s->nslots * 2 : 256;
	uint64_t *old = s->slots;
	uint32_t *old_ids = s->slot_ids;
	size_t old_n = s->nslots;

	s->slots = sk_xcalloc(nslots, sizeof(uint64_t));
	s->slot_ids = sk_xcalloc(nslots, sizeof(uint32_t));
	s->nslots = nslots;
	for (size_t i = 0; i < old_n; i++) {
		size_t j;

		if (!old_ids[i])
			continue;
		j = stack_probe(s, old[i]);
		s->slots[j] = old[i];
		s->slot_ids[j] = old_ids[i];
	}
	free(old);
	free(old_ids);
}

uint32_t sk_stacks_child(struct sk_stacks *s, uint32_t parent, uint32_t text)
{
	uint64_t key = stack_key(parent, text);
	size_t i;

	if (!s->n) { /* the root, the empty stack */
		s->cap = 64;
		s->nodes = sk_xcalloc(s->cap, sizeof(*s->nodes));
		s->n = 1;
	}
	if ((s->n + 1) * 2 >= s->nslots)
		stacks_grow(s);
	i = stack_probe(s, key);
	if (s->slot_ids[i])
		return s->slot_ids[i];
	if (s->n == s->cap) {
		s->cap *= 2;
		s->nodes = sk_xrealloc(s->nodes, s->cap * sizeof(*s->nodes));
	}
	s->nodes[s->n].parent = parent;
	s->nodes[s->n].text = text;
	s->slots[i] = key;
	s->slot_ids[i] = (uint32_t)s->n;
	return (uint32_t)s->n++;
}

void sk_stacks_fini(struct sk_stacks *s)
{
	free(s->nodes);
	free(s->slots);
	free(s->slot_ids);
	memset(s, 0, sizeof(*s));
}

/* Quickselect (Hoare partition): the lower median for even n, as the element at (n-1)/2. */
int64_t sk_median_i64(int64_t *v, size_t n)
{
	size_t lo = 0, hi = n - 1, k = (n - 1) / 2;

	if (!n)
		return 0;
	while (lo < hi) {
		int64_t pivot = v[lo + (hi - lo) / 2];
		size_t i = lo, j = hi;

		while (i <= j) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i <= j) {
				int64_t tmp = v[i];

				v[i] = v[j];
				v[j] = tmp;
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			break;
	}
	return v[k];
}
