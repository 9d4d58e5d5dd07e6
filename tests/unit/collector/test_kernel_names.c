/*
 * test_kernel_names.c: the kernel-name helper of collector/kernel_names.c: demangling. (Short
 * names are common's: tests/unit/common/test_names.c; the StringIds table is common's struct
 * sk_strtab: tests/unit/common/test_strtab.c.)
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "collector/internal.h"

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
