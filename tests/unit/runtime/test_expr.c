/*
 * test_expr.c: the integer expressions of workload files: precedence, parameters, functions,
 * and the errors (unknown names, division by zero, overflow, junk) with their positions.
 */
#include "helpers.h"

static struct sk_params ps;

static void setup(void)
{
	skip_log_init("test", NULL, 1);
	memset(&ps, 0, sizeof(ps));
	sk_params_set(&ps, "N", 1000);
	sk_params_set(&ps, "BLOCKS", 16);
}

static void teardown(void)
{
	sk_params_fini(&ps);
}

TestSuite(runtime_expr, .init = setup, .fini = teardown);

static int64_t ev(const char *s)
{
	int64_t v;

	cr_assert_eq(sk_expr_eval(s, &ps, &v), 0, "%s: %s", s, skip_errmsg());
	return v;
}

static void bad(const char *s, const char *msg)
{
	int64_t v;

	cr_assert_eq(sk_expr_eval(s, &ps, &v), SKIP_E_INVAL, "%s accepted", s);
	cr_assert(strstr(skip_errmsg(), msg), "%s: got '%s', expected '%s'", s, skip_errmsg(), msg);
}

Test(runtime_expr, arithmetic_follows_the_usual_precedence)
{
	cr_assert_eq(ev("1 + 2 * 3"), 7);
	cr_assert_eq(ev("(1 + 2) * 3"), 9);
	cr_assert_eq(ev("10 - 4 - 3"), 3);
	cr_assert_eq(ev("100 / 7 % 5"), 4);
	cr_assert_eq(ev("-3 * -2"), 6);
	cr_assert_eq(ev("  42  "), 42);
}

Test(runtime_expr, parameters_and_functions)
{
	cr_assert_eq(ev("4*N"), 4000);
	cr_assert_eq(ev("N / BLOCKS"), 62);
	cr_assert_eq(ev("cdiv(N, 256)"), 4);
	cr_assert_eq(ev("cdiv(1024, 256)"), 4);
	cr_assert_eq(ev("min(N, 640)"), 640);
	cr_assert_eq(ev("max(cdiv(N, 4096), 1)"), 1);
	cr_assert_eq(ev("300000000 * 4"), 1200000000LL);
}

Test(runtime_expr, setting_a_parameter_twice_replaces_it)
{
	sk_params_set(&ps, "N", 7);
	cr_assert_eq(ev("N"), 7);
	cr_assert_eq(ps.n, 2);
}

Test(runtime_expr, errors_say_what_and_where)
{
	bad("N + M", "\"N + M\": unknown parameter at offset 4");
	bad("N / (BLOCKS - 16)", "division by zero");
	bad("9223372036854775807 + 1", "overflow");
	bad("3000000000 * 3000000000 * 3", "overflow");
	bad("2 +", "unexpected end");
	bad("2 $ 3", "unexpected character at offset 2");
	bad("(1 + 2", "')' expected");
	bad("pow(2, 3)", "unknown function (min, max, cdiv)");
	bad("", "unexpected end");
}

/* Each level of parentheses, unary minus or function call is a level of recursion in the
 * parser: past SK_EXPR_MAX_DEPTH levels the expression is refused, not the stack overflowed. */
Test(runtime_expr, deep_nesting_is_an_error_not_a_crash)
{
	enum { LONG = 100000 };
	char *s = malloc(LONG + 2);
	int64_t v;

	cr_assert_not_null(s);
	memset(s, '-', LONG);
	strcpy(s + LONG, "1");
	cr_assert_eq(sk_expr_eval(s, &ps, &v), SKIP_E_INVAL);
	cr_assert(strstr(skip_errmsg(), "(100001 characters): nested deeper than 256 levels at "
					"offset 256"),
		  "%s", skip_errmsg());
	cr_assert_lt(strlen(skip_errmsg()), 200, "the message quotes a part: %s", skip_errmsg());
	memset(s, '(', LONG);
	cr_assert_eq(sk_expr_eval(s, &ps, &v), SKIP_E_INVAL);
	cr_assert(strstr(skip_errmsg(), "nested deeper than 256 levels at offset 256"), "%s",
		  skip_errmsg());
	for (int i = 0; i < 256; i++) /* max(max(...(1, 1)...)) */
		memcpy(s + 4 * i, "max(", 4);
	strcpy(s + 4 * 256, "1");
	for (int i = 0; i < 256; i++)
		strcat(s, ",1)");
	cr_assert_eq(sk_expr_eval(s, &ps, &v), 0, "256 levels: %s", skip_errmsg());
	cr_assert_eq(v, 1);
	memset(s, '-', 256);
	strcpy(s + 256, "7");
	cr_assert_eq(sk_expr_eval(s, &ps, &v), 0, "256 levels: %s", skip_errmsg());
	cr_assert_eq(v, 7);
	strcpy(s, "-(");
	memset(s + 2, '(', 255);
	strcpy(s + 257, "1");
	cr_assert_eq(sk_expr_eval(s, &ps, &v), SKIP_E_INVAL, "257 levels");
	cr_assert(strstr(skip_errmsg(), "nested deeper than 256 levels at offset 256"), "%s",
		  skip_errmsg());
	free(s);
}
