/*
 * test_strtab.c: string interning (common/strtab.c): ids in order of first sight, the same id
 * for the same content wherever it comes from, the table's own copies in s[id], "" as a
 * string, strings whose 64-bit hashes collide, growth with ids kept, long strings, lookups
 * that add nothing, reuse after fini.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skip_common.h"

Test(common_strtab, the_first_string_gets_id_1_and_is_new)
{
	struct sk_strtab t = {0};
	int is_new = 0;

	cr_expect_eq(sk_strtab_intern(&t, "cudaLaunchKernel", &is_new), 1);
	cr_expect_eq(is_new, 1);
	cr_expect_eq(t.n, 1);
	cr_expect_null(t.s[0], "id 0 is no string");
	cr_expect_str_eq(t.s[1], "cudaLaunchKernel");
	sk_strtab_fini(&t);
}

Test(common_strtab, the_same_string_gets_the_same_id_and_is_not_new)
{
	struct sk_strtab t = {0};
	int is_new;

	cr_assert_eq(sk_strtab_intern(&t, "a", &is_new), 1);
	is_new = 1;
	cr_expect_eq(sk_strtab_intern(&t, "a", &is_new), 1);
	cr_expect_eq(is_new, 0, "is_new is cleared for a string already there");
	cr_expect_eq(sk_strtab_intern(&t, "a", NULL), 1, "is_new may be NULL");
	cr_expect_eq(t.n, 1, "counted once");
	sk_strtab_fini(&t);
}

Test(common_strtab, distinct_strings_get_ids_in_the_order_first_seen)
{
	static const char *const s[] = {"b", "a", "ab", "ba", "A", "a ", "é", "e"};
	struct sk_strtab t = {0};
	int is_new;

	for (int i = 0; i < 8; i++) {
		cr_expect_eq(sk_strtab_intern(&t, s[i], &is_new), i + 1, "%s", s[i]);
		cr_expect_eq(is_new, 1, "%s", s[i]);
	}
	cr_expect_eq(t.n, 8);
	/* Looked up again in reverse order: the same ids, nothing new. */
	for (int i = 7; i >= 0; i--) {
		cr_expect_eq(sk_strtab_intern(&t, s[i], &is_new), i + 1, "%s", s[i]);
		cr_expect_eq(is_new, 0, "%s", s[i]);
		cr_expect_eq(sk_strtab_find(&t, s[i]), i + 1, "%s", s[i]);
	}
	cr_expect_eq(t.n, 8);
	sk_strtab_fini(&t);
}

Test(common_strtab, find_adds_nothing_and_says_0_for_a_new_string)
{
	struct sk_strtab t = {0};

	cr_expect_eq(sk_strtab_find(&t, "x"), 0, "an empty table");
	sk_strtab_intern(&t, "x", NULL);
	cr_expect_eq(sk_strtab_find(&t, "y"), 0);
	cr_expect_eq(sk_strtab_find(&t, "x"), 1);
	cr_expect_eq(t.n, 1);
	sk_strtab_fini(&t);
}

Test(common_strtab, the_table_keys_on_content_and_keeps_its_own_copy)
{
	struct sk_strtab t = {0};
	char buf[] = "cudaMemcpy";
	int is_new;

	cr_assert_eq(sk_strtab_intern(&t, buf, &is_new), 1);
	strcpy(buf, "cudaMalloc"); /* the caller's buffer changes; the table's copy must not */
	cr_expect_eq(sk_strtab_intern(&t, buf, &is_new), 2);
	cr_expect_eq(is_new, 1);
	cr_expect_eq(sk_strtab_intern(&t, "cudaMemcpy", &is_new), 1);
	cr_expect_eq(is_new, 0);
	cr_expect_str_eq(t.s[1], "cudaMemcpy");
	cr_expect_str_eq(t.s[2], "cudaMalloc");
	cr_expect_neq(t.s[2], buf);
	sk_strtab_fini(&t);
}

Test(common_strtab, the_empty_string_is_a_string_like_any_other)
{
	struct sk_strtab t = {0};
	int is_new;

	cr_expect_eq(sk_strtab_intern(&t, "", &is_new), 1);
	cr_expect_eq(is_new, 1);
	cr_expect_eq(sk_strtab_intern(&t, "x", &is_new), 2);
	cr_expect_eq(sk_strtab_intern(&t, "", &is_new), 1);
	cr_expect_eq(is_new, 0);
	cr_expect_eq(t.n, 2);
	cr_expect_str_eq(t.s[1], "");
	sk_strtab_fini(&t);
}

/* Two strings with one 64-bit hash are told apart by their content. No such pair is known
 * for FNV-1a at hand, so the index is given an entry that claims "b"'s hash for "a". */
Test(common_strtab, strings_whose_hashes_collide_get_their_own_ids)
{
	struct sk_strtab t = {0};
	int is_new;

	cr_assert_eq(sk_strtab_intern(&t, "a", &is_new), 1);
	cr_assert_eq(sk_hash_add(&t.index, sk_hash_str("b"), 1), 0); /* "a" now collides with "b" */
	cr_expect_eq(sk_strtab_find(&t, "b"), 0, "the colliding entry is \"a\", not \"b\"");
	cr_expect_eq(sk_strtab_intern(&t, "b", &is_new), 2);
	cr_expect_eq(is_new, 1);
	cr_expect_eq(sk_strtab_find(&t, "b"), 2);
	cr_expect_eq(sk_strtab_intern(&t, "b", &is_new), 2);
	cr_expect_eq(is_new, 0);
	cr_expect_eq(sk_strtab_find(&t, "a"), 1);
	sk_strtab_fini(&t);
}

Test(common_strtab, interning_grows_and_keeps_ids_and_copies_in_place)
{
	struct sk_strtab t = {0};
	const char *first;
	char buf[32];
	int is_new;

	cr_assert_eq(sk_strtab_intern(&t, "name-0", &is_new), 1);
	first = t.s[1];
	for (int i = 1; i < 5000; i++) {
		snprintf(buf, sizeof(buf), "name-%d", i);
		cr_assert_eq(sk_strtab_intern(&t, buf, &is_new), i + 1);
		cr_assert(is_new);
	}
	cr_expect_eq(t.n, 5000);
	cr_expect_eq(t.s[1], first, "a string's copy never moves");
	cr_expect_geq(t.index.cap, 10000, "the index is at most half full");
	cr_expect_eq(sk_strtab_intern(&t, "name-1234", &is_new), 1235);
	cr_expect_not(is_new);
	for (int i = 4999; i >= 0; i--) {
		snprintf(buf, sizeof(buf), "name-%d", i);
		cr_assert_eq(sk_strtab_intern(&t, buf, &is_new), i + 1);
		cr_assert_not(is_new);
		cr_assert_str_eq(t.s[i + 1], buf);
	}
	cr_expect_eq(t.n, 5000);
	sk_strtab_fini(&t);
}

Test(common_strtab, long_strings_are_stored_whole)
{
	enum { LEN = 1 << 20 };
	struct sk_strtab t = {0};
	char *a = malloc(LEN + 1), *b = malloc(LEN + 1), *a2 = malloc(LEN + 1);
	int is_new;

	cr_assert(a && b && a2);
	memset(a, 'k', LEN);
	a[LEN] = '\0';
	memcpy(b, a, LEN + 1);
	b[LEN - 1] = 'K'; /* differs from a in the last character only */
	memcpy(a2, a, LEN + 1);
	cr_expect_eq(sk_strtab_intern(&t, a, &is_new), 1);
	cr_expect_eq(sk_strtab_intern(&t, b, &is_new), 2);
	cr_expect_eq(is_new, 1);
	cr_expect_eq(sk_strtab_intern(&t, a2, &is_new), 1, "same content, other buffer");
	cr_expect_eq(is_new, 0);
	cr_expect_eq(strlen(t.s[1]), LEN);
	cr_expect_eq(memcmp(t.s[2], b, LEN + 1), 0);
	free(a);
	free(b);
	free(a2);
	sk_strtab_fini(&t);
}

Test(common_strtab, fini_empties_the_table_for_reuse)
{
	struct sk_strtab t = {0}, never_used = {0};
	int is_new;

	sk_strtab_intern(&t, "a", &is_new);
	sk_strtab_intern(&t, "b", &is_new);
	sk_strtab_intern(&t, "c", &is_new);
	sk_strtab_fini(&t);
	cr_expect_eq(t.n, 0);
	cr_expect_eq(t.cap, 0);
	cr_expect_null(t.s);
	cr_expect_null(t.index.slots);
	cr_expect_eq(sk_strtab_intern(&t, "c", &is_new), 1, "ids start again at 1");
	cr_expect_eq(is_new, 1);
	sk_strtab_fini(&t);
	sk_strtab_fini(&never_used); /* nothing to free: does nothing */
	cr_expect_eq(never_used.cap, 0);
}
