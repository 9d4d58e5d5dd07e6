/*
 * test_kernel_names.c: the kernel-name helpers (collector/kernel_names.c): demangling, nsys's
 * short names, truncation. (The StringIds table is common's struct sk_strtab:
 * tests/unit/common/test_strtab.c.)
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "collector/internal.h"

Test(collector_kernel_names, short_names_drop_return_type_scope_templates_and_parameters)
{
	static const char *const cases[][2] = {
	    {"void at::native::foo<4, float>(int, float*)", "foo"},
	    {"add_one", "add_one"},
	    {"void add_one(float*, int)", "add_one"},
	    {"void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_64x64_16x6_nn_align4>("
	     "cutlass_80_tensorop_s1688gemm_64x64_16x6_nn_align4::Params)",
	     "Kernel2"},
	    {"void (anonymous namespace)::elementwise_kernel<128, 4>(int, float)",
	     "elementwise_kernel"},
	    {"ampere_sgemm_128x64_nn", "ampere_sgemm_128x64_nn"},
	    {"foo::bar", "bar"},
	    {"void foo<int>()", "foo"},
	    {"void Foo::operator()(int)", "operator()"},
	    {"ns::", "ns::"}, /* no name after the scope: the whole input */
	    {"", ""},
	};
	char buf[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		sk_short_name(cases[i][0], buf, sizeof(buf));
		cr_expect_str_eq(buf, cases[i][1], "for %s", cases[i][0]);
	}
}

Test(collector_kernel_names, short_names_are_truncated_to_the_buffer)
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

Test(collector_kernel_names, demangling_leaves_c_names_alone)
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
