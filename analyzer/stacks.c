/*
 * stacks.c: operator stacks interned as a trie whose node is (parent stack, range text), so a
 * whole NVTX range stack is one 32-bit id. The texts themselves are interned in the trace's
 * struct sk_strtab (common/strtab.c); a node is found through an sk_hash on (parent, text).
 * Memory runs out only through the aborting sk_x* forms, as everywhere in the analyzer.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

uint32_t sk_stacks_child(struct sk_stacks *s, uint32_t parent, uint32_t text)
{
	uint64_t key = ((uint64_t)parent << 32) | text; /* never 0: text ids start at 1 */
	const uint64_t *id;

	assert(text != 0);
	if (!s->n) /* the root, the empty stack */
		SK_VEC_XPUSH(s->nodes, s->n, s->cap, (struct sk_stack_node){0, 0});
	id = sk_hash_get(&s->index, key);
	if (id)
		return (uint32_t)*id;
	sk_hash_xreserve(&s->index, 1);
	SK_VEC_XPUSH(s->nodes, s->n, s->cap, (struct sk_stack_node){parent, text});
	sk_hash_add(&s->index, key, s->n - 1); /* cannot fail: room reserved */
	return (uint32_t)(s->n - 1);
}

void sk_stacks_fini(struct sk_stacks *s)
{
	free(s->nodes);
	sk_hash_fini(&s->index);
	memset(s, 0, sizeof(*s));
}
