/*
 * fuzz_expr.c: the workload parameter expressions (runtime/expr.c, sk_expr_eval()). The
 * input is the expression text, evaluated over a fixed set of parameters that includes the
 * extremes of int64_t, so that overflow checks are reached. The result is checked against
 * the parser's own contract: an error leaves *out at 0.
 */
#include <stdlib.h>

#include "fuzz.h"
#include "runtime/internal.h" /* -I. : analyzer/ has an internal.h too */

static struct sk_params params;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const struct {
		const char *name;
		int64_t value;
	} set[] = {
	    {"N", 300000000}, {"BLOCKS", 32},	  {"THREADS", 256},	{"ZERO", 0}, {"ONE", 1},
	    {"NEG", -1},      {"BIG", INT64_MAX}, {"SMALL", INT64_MIN}, {"_x9", 7},
	};

	(void)argc;
	(void)argv;
	fz_init();
	for (size_t i = 0; i < sizeof(set) / sizeof(set[0]); i++)
		if (sk_params_set(&params, set[i].name, set[i].value))
			abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fz_cstr(data, size);
	int64_t v = -1;

	if (sk_expr_eval(text, &params, &v) && v != 0)
		abort(); /* an error must leave *out at 0 */
	free(text);
	return 0;
}
