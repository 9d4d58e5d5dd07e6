/*
 * test_hash.c: struct sk_hash (common/hash.c): put, get and replace; key 0 refused; keys that
 * share their first slot, and entries that share a key (sk_hash_add(), walked with
 * sk_hash_find_next()); growth keeping every entry; removal by backward shifting, wrapping
 * around the end of the slots; many keys against a reference; reserve; the FNV-1a key
 * functions against published values.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "skip_common.h"

/* Keys whose probe starts at slot @home of a table of @h's size, from @from on. */
static uint64_t key_at(const struct sk_hash *h, size_t home, uint64_t from)
{
	for (uint64_t k = from;; k++)
		if (sk_hash_home(h, k) == home)
			return k;
}

/* Every entry can be found and the count is right. */
static void check_table(const struct sk_hash *h)
{
	size_t n = 0;

	for (size_t i = 0; i < h->cap; i++) {
		if (!h->slots[i].key)
			continue;
		n++;
		cr_assert_neq(sk_hash_find(h, h->slots[i].key), SK_HASH_END, "slot %zu lost", i);
	}
	cr_assert_eq(n, h->n);
	cr_assert_leq(h->n * 2, h->cap, "never more than half full");
}

Test(common_hash, a_zeroed_table_is_empty)
{
	struct sk_hash h = {0};

	cr_expect_null(sk_hash_get(&h, 1));
	cr_expect_eq(sk_hash_find(&h, 42), SK_HASH_END);
	cr_expect_eq(sk_hash_del(&h, 42), SKIP_E_NOTFOUND);
	sk_hash_fini(&h);
	sk_hash_fini(&h); /* twice: still fine */
}

Test(common_hash, put_then_get_and_put_again_replaces)
{
	struct sk_hash h = {0};

	cr_assert_eq(sk_hash_put(&h, 7, 70), 0);
	cr_assert_eq(sk_hash_put(&h, 8, 80), 0);
	cr_expect_eq(*sk_hash_get(&h, 7), 70);
	cr_expect_eq(*sk_hash_get(&h, 8), 80);
	cr_expect_null(sk_hash_get(&h, 9));
	cr_assert_eq(sk_hash_put(&h, 7, 71), 0);
	cr_expect_eq(*sk_hash_get(&h, 7), 71);
	cr_expect_eq(h.n, 2, "replacing adds no entry");
	cr_expect_eq(h.cap, 16, "the first insert allocates 16 slots");
	sk_hash_fini(&h);
}

Test(common_hash, key_0_cannot_be_stored)
{
	struct sk_hash h = {0};

	cr_expect_eq(sk_hash_put(&h, 0, 1), SKIP_E_INVAL);
	cr_expect_eq(sk_hash_add(&h, 0, 1), SKIP_E_INVAL);
	cr_expect_eq(h.n, 0);
	cr_expect_null(sk_hash_get(&h, 0));
	sk_hash_fini(&h);
}

Test(common_hash, keys_with_the_same_first_slot_are_all_found)
{
	struct sk_hash h = {0};
	uint64_t k[5];

	sk_hash_reserve(&h, 1); /* 16 slots, so key_at() sees the final size */
	k[0] = key_at(&h, 3, 1);
	for (int i = 1; i < 5; i++)
		k[i] = key_at(&h, 3, k[i - 1] + 1);
	for (int i = 0; i < 5; i++)
		cr_assert_eq(sk_hash_put(&h, k[i], (uint64_t)i), 0);
	cr_assert_eq(h.cap, 16);
	for (int i = 0; i < 5; i++) {
		cr_expect_eq(*sk_hash_get(&h, k[i]), (uint64_t)i);
		cr_expect_eq(h.slots[3 + i].key, k[i], "linear probing: slot %d", 3 + i);
	}
	check_table(&h);
	sk_hash_fini(&h);
}

Test(common_hash, add_keeps_every_entry_of_one_key_and_find_next_walks_them)
{
	struct sk_hash h = {0};
	int seen[4] = {0}, n = 0;

	for (uint64_t v = 0; v < 4; v++)
		cr_assert_eq(sk_hash_add(&h, 99, v), 0);
	cr_assert_eq(sk_hash_put(&h, 5, 50), 0);
	cr_expect_eq(h.n, 5);
	for (size_t i = sk_hash_find(&h, 99); i != SK_HASH_END; i = sk_hash_find_next(&h, 99, i)) {
		cr_assert_lt(h.slots[i].val, 4);
		seen[h.slots[i].val]++;
		n++;
	}
	cr_expect_eq(n, 4);
	for (int v = 0; v < 4; v++)
		cr_expect_eq(seen[v], 1, "value %d", v);
	cr_expect_eq(*sk_hash_get(&h, 99), 0, "get: the first one added");
	sk_hash_fini(&h);
}

Test(common_hash, growth_keeps_every_entry)
{
	struct sk_hash h = {0};

	for (uint64_t k = 1; k <= 9; k++)
		cr_assert_eq(sk_hash_put(&h, k * 1000, k), 0);
	cr_expect_eq(h.cap, 32, "9 entries do not fit half of 16 slots");
	for (uint64_t k = 1; k <= 9; k++)
		cr_expect_eq(*sk_hash_get(&h, k * 1000), k);
	check_table(&h);
	sk_hash_fini(&h);
}

Test(common_hash, reserve_makes_room_so_inserts_do_not_grow)
{
	struct sk_hash h = {0};
	struct sk_hash_slot *slots;

	cr_assert_eq(sk_hash_reserve(&h, 100), 0);
	cr_expect_eq(h.cap, 256, "100 entries at most half full");
	slots = h.slots;
	for (uint64_t k = 1; k <= 100; k++)
		cr_assert_eq(sk_hash_put(&h, k, k), 0);
	cr_expect_eq(h.slots, slots, "no rehash");
	cr_expect_eq(sk_hash_reserve(&h, 0), 0);
	cr_expect_eq(h.slots, slots);
	sk_hash_xreserve(&h, 100);
	cr_expect_eq(h.cap, 512, "200 entries at most half full");
	check_table(&h);
	sk_hash_fini(&h);
}

Test(common_hash, removal_shifts_later_entries_back)
{
	struct sk_hash h = {0};
	uint64_t a, b, c, d;

	sk_hash_reserve(&h, 1);
	a = key_at(&h, 5, 1);
	b = key_at(&h, 5, a + 1); /* a, b start at 5: slots 5, 6 */
	c = key_at(&h, 6, 1);	  /* starts at 6, lands in 7 */
	d = key_at(&h, 8, 1);	  /* at home in 8: must not move */
	sk_hash_put(&h, a, 1);
	sk_hash_put(&h, b, 2);
	sk_hash_put(&h, c, 3);
	sk_hash_put(&h, d, 4);
	cr_assert_eq(h.slots[7].key, c);
	cr_assert_eq(sk_hash_del(&h, a), 0);
	cr_expect_eq(h.slots[5].key, b, "b moves back to its first slot");
	cr_expect_eq(h.slots[6].key, c, "c moves back to its first slot");
	cr_expect_eq(h.slots[7].key, 0);
	cr_expect_eq(h.slots[8].key, d, "d stays");
	cr_expect_null(sk_hash_get(&h, a));
	cr_expect_eq(*sk_hash_get(&h, b), 2);
	cr_expect_eq(*sk_hash_get(&h, c), 3);
	cr_expect_eq(*sk_hash_get(&h, d), 4);
	cr_expect_eq(h.n, 3);
	check_table(&h);
	sk_hash_fini(&h);
}

Test(common_hash, removal_wraps_around_the_end_of_the_slots)
{
	struct sk_hash h = {0};
	uint64_t a, b, c;

	sk_hash_reserve(&h, 1);
	a = key_at(&h, 15, 1);
	b = key_at(&h, 15, a + 1); /* wraps to slot 0 */
	c = key_at(&h, 0, 1);	   /* wants 0, lands in 1 */
	sk_hash_put(&h, a, 1);
	sk_hash_put(&h, b, 2);
	sk_hash_put(&h, c, 3);
	cr_assert_eq(h.slots[0].key, b);
	cr_assert_eq(h.slots[1].key, c);
	sk_hash_del(&h, a);
	cr_expect_eq(h.slots[15].key, b, "b moves back across the end");
	cr_expect_eq(h.slots[0].key, c);
	cr_expect_eq(h.slots[1].key, 0);
	check_table(&h);
	sk_hash_fini(&h);
}

/* A random mix of puts, replacements and removals against a plain array indexed by key. */
Test(common_hash, many_keys_match_a_reference)
{
	enum { KEYS = 20000, OPS = 200000 };
	uint64_t *ref = calloc(KEYS + 1, sizeof(uint64_t)); /* 0: absent */
	struct sk_hash h = {0};
	size_t live = 0;

	srand(15);
	for (int op = 0; op < OPS; op++) {
		uint64_t k = 1 + (uint64_t)(rand() % KEYS), v = (uint64_t)rand() + 1;
		uint64_t key = k * 0x100000001ull; /* spread over both halves of the word */

		if (rand() % 4 == 0) {
			cr_assert_eq(sk_hash_del(&h, key), ref[k] ? 0 : SKIP_E_NOTFOUND);
			live -= ref[k] != 0;
			ref[k] = 0;
		} else {
			cr_assert_eq(sk_hash_put(&h, key, v), 0);
			live += ref[k] == 0;
			ref[k] = v;
		}
	}
	cr_assert_eq(h.n, live);
	for (uint64_t k = 1; k <= KEYS; k++) {
		uint64_t *v = sk_hash_get(&h, k * 0x100000001ull);

		if (ref[k])
			cr_assert(v && *v == ref[k], "key %llu", (unsigned long long)k);
		else
			cr_assert_null(v, "key %llu", (unsigned long long)k);
	}
	check_table(&h);
	free(ref);
	sk_hash_fini(&h);
}

Test(common_hash, fnv1a_matches_published_values_and_is_never_0)
{
	/* 64-bit FNV-1a test vectors (Fowler, Noll, Vo: "FNV hash" reference). */
	cr_expect_eq(sk_hash_str(""), 0xcbf29ce484222325ull);
	cr_expect_eq(sk_hash_str("a"), 0xaf63dc4c8601ec8cull);
	cr_expect_eq(sk_hash_str("foobar"), 0x85944171f73967e8ull);
	cr_expect_eq(sk_hash_bytes("foobar", 6), sk_hash_str("foobar"));
	cr_expect_eq(sk_hash_bytes("a\0b", 3), sk_hash_bytes("a\0b", 3));
	cr_expect_neq(sk_hash_bytes("a\0b", 3), sk_hash_str("a"), "bytes after a NUL count");
	cr_expect_neq(sk_hash_str("ab"), sk_hash_str("ba"));
}
