/*
 * test_names.c: nsys's short names of kernels (common/names.c), truncation included.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "skip_common.h"

Test(common_names, short_names_drop_return_type_scope_templates_and_parameters)
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

Test(common_names, short_names_are_truncated_to_the_buffer)
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
