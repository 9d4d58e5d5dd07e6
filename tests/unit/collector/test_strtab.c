/*
 * test_strtab.c: string interning (ids in order of first sight, the same id for the same
 * content wherever it comes from, its own copies, "" as a string, growth past the first 1024
 * slots with ids kept, long strings, reuse after fini) and the kernel-name helpers (demangling,
 * nsys's short names, truncation).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/internal.h"

/* The table's own copy of the string with @id, or NULL. */
static const char *stored(const struct sk_strtab *t, int64_t id)
{
	for (size_t i = 0; i < t->cap; i++)
		if (t->slots[i].id == id)
			return t->slots[i].s;
	return NULL;
}

Test(collector_strtab, the_first_string_gets_id_1_and_is_new)
{
	struct sk_strtab t = { 0 };
	int is_new = 0;

	cr_expect_eq(sk_strtab_intern(&t, "cudaLaunchKernel", &is_new), 1);
	cr_expect_eq(is_new, 1);
	cr_expect_eq(t.n, 1);
	cr_expect_eq(t.cap, 1024, "the first string allocates 1024 slots");
	sk_strtab_fini(&t);
}

Test(collector_strtab, the_same_string_gets_the_same_id_and_is_not_new)
{
	struct sk_strtab t = { 0 };
	int is_new;

	cr_assert_eq(sk_strtab_intern(&t, "a", &is_new), 1);
	is_new = 1;
	cr_expect_eq(sk_strtab_intern(&t, "a", &is_new), 1);
	cr_expect_eq(is_new, 0, "is_new is cleared for a string already there");
	cr_expect_eq(t.n, 1, "counted once");
	sk_strtab_fini(&t);
}

Test(collector_strtab, distinct_strings_get_ids_in_the_order_first_seen)
{
	static const char *const s[] = { "b", "a", "ab", "ba", "A", "a ", "é", "e" };
	struct sk_strtab t = { 0 };
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
	}
	cr_expect_eq(t.n, 8);
	sk_strtab_fini(&t);
}

Test(collector_strtab, the_table_keys_on_content_and_keeps_its_own_copy)
{
	struct sk_strtab t = { 0 };
	char buf[] = "cudaMemcpy";
	int is_new;

	cr_assert_eq(sk_strtab_intern(&t, buf, &is_new), 1);
	strcpy(buf, "cudaMalloc"); /* the caller's buffer changes; the table's copy must not */
	cr_expect_eq(sk_strtab_intern(&t, buf, &is_new), 2);
	cr_expect_eq(is_new, 1);
	cr_expect_eq(sk_strtab_intern(&t, "cudaMemcpy", &is_new), 1);
	cr_expect_eq(is_new, 0);
	cr_expect_str_eq(stored(&t, 1), "cudaMemcpy");
	cr_expect_str_eq(stored(&t, 2), "cudaMalloc");
	cr_expect_neq(stored(&t, 2), buf);
	sk_strtab_fini(&t);
}

Test(collector_strtab, the_empty_string_is_a_string_like_any_other)
{
	struct sk_strtab t = { 0 };
	int is_new;

	cr_expect_eq(sk_strtab_intern(&t, "", &is_new), 1);
	cr_expect_eq(is_new, 1);
	cr_expect_eq(sk_strtab_intern(&t, "x", &is_new), 2);
	cr_expect_eq(sk_strtab_intern(&t, "", &is_new), 1);
	cr_expect_eq(is_new, 0);
	cr_expect_eq(t.n, 2);
	cr_expect_str_eq(stored(&t, 1), "");
	sk_strtab_fini(&t);
}

Test(collector_strtab, the_slots_double_past_half_full)
{
	struct sk_strtab t = { 0 };
	char buf[32];
	int is_new;

	/* 1024 slots hold 512 strings at most half full; the 513th doubles them to 2048. */
	for (int i = 0; i < 512; i++) {
		snprintf(buf, sizeof(buf), "s%d", i);
		cr_assert_eq(sk_strtab_intern(&t, buf, &is_new), i + 1);
	}
	cr_expect_eq(t.cap, 1024);
	cr_assert_eq(sk_strtab_intern(&t, "s512", &is_new), 513);
	cr_expect_eq(t.cap, 2048);
	cr_expect_eq(t.n, 513);
	for (int i = 0; i < 513; i++) {
		snprintf(buf, sizeof(buf), "s%d", i);
		cr_expect_eq(sk_strtab_intern(&t, buf, &is_new), i + 1, "%s after growing", buf);
		cr_expect_eq(is_new, 0);
	}
	sk_strtab_fini(&t);
}

Test(collector_strtab, interning_grows_and_keeps_ids_stable)
{
	struct sk_strtab t = { 0 };
	char buf[32];
	int is_new;

	for (int i = 0; i < 5000; i++) {
		snprintf(buf, sizeof(buf), "name-%d", i);
		cr_assert_eq(sk_strtab_intern(&t, buf, &is_new), i + 1);
		cr_assert(is_new);
	}
	/* Doubled at the 513th, 1025th, 2049th and 4097th string: 1024 -> 16384 slots. */
	cr_expect_eq(t.cap, 16384);
	cr_expect_eq(t.n, 5000);
	cr_expect_eq(sk_strtab_intern(&t, "name-1234", &is_new), 1235);
	cr_expect_not(is_new);
	for (int i = 4999; i >= 0; i--) {
		snprintf(buf, sizeof(buf), "name-%d", i);
		cr_assert_eq(sk_strtab_intern(&t, buf, &is_new), i + 1);
		cr_assert_not(is_new);
	}
	cr_expect_eq(t.n, 5000);
	sk_strtab_fini(&t);
}

Test(collector_strtab, long_strings_are_stored_whole)
{
	enum { LEN = 1 << 20 };
	struct sk_strtab t = { 0 };
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
	cr_expect_eq(strlen(stored(&t, 1)), LEN);
	cr_expect_eq(memcmp(stored(&t, 2), b, LEN + 1), 0);
	free(a);
	free(b);
	free(a2);
	sk_strtab_fini(&t);
}

Test(collector_strtab, fini_empties_the_table_for_reuse)
{
	struct sk_strtab t = { 0 }, never_used = { 0 };
	int is_new;

	sk_strtab_intern(&t, "a", &is_new);
	sk_strtab_intern(&t, "b", &is_new);
	sk_strtab_intern(&t, "c", &is_new);
	sk_strtab_fini(&t);
	cr_expect_eq(t.n, 0);
	cr_expect_eq(t.cap, 0);
	cr_expect_null(t.slots);
	cr_expect_eq(sk_strtab_intern(&t, "c", &is_new), 1, "ids start again at 1");
	cr_expect_eq(is_new, 1);
	sk_strtab_fini(&t);
	sk_strtab_fini(&never_used); /* nothing to free: does nothing */
	cr_expect_eq(never_used.cap, 0);
}

Test(collector_strtab, short_names_drop_return_type_scope_templates_and_parameters)
{
	static const char *const cases[][2] = {
		{ "void at::native::foo<4, float>(int, float*)", "foo" },
		{ "add_one", "add_one" },
		{ "void add_one(float*, int)", "add_one" },
		{ "void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_64x64_16x6_nn_align4>("
		  "cutlass_80_tensorop_s1688gemm_64x64_16x6_nn_align4::Params)",
		  "Kernel2" },
		{ "void (anonymous namespace)::elementwise_kernel<128, 4>(int, float)",
		  "elementwise_kernel" },
		{ "ampere_sgemm_128x64_nn", "ampere_sgemm_128x64_nn" },
		{ "foo::bar", "bar" },
		{ "void foo<int>()", "foo" },
		{ "void Foo::operator()(int)", "operator()" },
		{ "ns::", "ns::" }, /* no name after the scope: the whole input */
		{ "", "" },
	};
	char buf[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		sk_short_name(cases[i][0], buf, sizeof(buf));
		cr_expect_str_eq(buf, cases[i][1], "for %s", cases[i][0]);
	}
}

Test(collector_strtab, short_names_are_truncated_to_the_buffer)
{
	char buf[8];

	sk_short_name("void add_one(float*, int)", buf, 4);
	cr_expect_str_eq(buf, "add");
	sk_short_name("void add_one(float*, int)", buf, 1);
	cr_expect_str_eq(buf, "");
	memcpy(buf, "keep", 5);
	sk_short_name("add_one", buf, 0);
	cr_expect_str_eq(buf, "keep", "a zero-length buffer is not written");
}

Test(collector_strtab, demangling_leaves_c_names_alone)
{
	char *d = sk_demangle("_Z7add_onePfi");

	cr_assert_not_null(d);
	cr_expect_str_eq(d, "add_one(float*, int)");
	free(d);
	cr_expect_null(sk_demangle("add_one"));
	cr_expect_null(sk_demangle("_Znot-a-valid-name"));
	cr_expect_null(sk_demangle(""));
	cr_expect_null(sk_demangle(NULL));
}
