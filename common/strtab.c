/*
 * strtab.c: struct sk_strtab, string interning on top of struct sk_hash: the index maps the
 * FNV-1a hash of a string to its id, and the strings themselves are compared only for the
 * entries with that hash (two strings with one 64-bit hash are two entries with one key).
 * The collector interns every name it writes to StringIds through it, so a lookup of a string
 * already there costs one hash, about 1.5 slots and one strcmp().
 */
#include <stdlib.h>
#include <string.h>

#include "skip_common.h"

/* The id of @s hashing to @h, or 0. */
static inline int64_t lookup(const struct sk_strtab *t, const char *s, uint64_t h)
{
	size_t i;

	for (i = sk_hash_find(&t->index, h); i != SK_HASH_END;
	     i = sk_hash_find_next(&t->index, h, i))
		if (strcmp(t->s[t->index.slots[i].val], s) == 0)
			return (int64_t)t->index.slots[i].val;
	return 0;
}

int64_t sk_strtab_intern(struct sk_strtab *t, const char *s, int *is_new)
{
	uint64_t h = sk_hash_str(s);
	int64_t id = lookup(t, s, h);
	size_t len;
	char *copy;

	if (is_new)
		*is_new = 0;
	if (id)
		return id;
	/* Room first (s[0] stays NULL), so that nothing changes when memory runs out. */
	if (SK_VEC_RESERVE(t->s, t->cap, t->n + 2) || sk_hash_reserve(&t->index, 1))
		return SKIP_E_NOMEM;
	len = strlen(s) + 1;
	copy = malloc(len);
	if (!copy)
		return sk_fail(SKIP_E_NOMEM, "out of memory");
	memcpy(copy, s, len);
	t->s[0] = NULL;
	t->s[++t->n] = copy;
	sk_hash_add(&t->index, h, t->n); /* cannot fail: room reserved */
	if (is_new)
		*is_new = 1;
	return (int64_t)t->n;
}

int64_t sk_strtab_find(const struct sk_strtab *t, const char *s)
{
	return lookup(t, s, sk_hash_str(s));
}

void sk_strtab_fini(struct sk_strtab *t)
{
	for (size_t i = 1; i <= t->n; i++)
		free(t->s[i]);
	free(t->s);
	sk_hash_fini(&t->index);
	memset(t, 0, sizeof(*t));
}
