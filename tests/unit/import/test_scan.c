/*
 * test_scan.c: import/scan.c: timestamps read exactly from their decimal text, and the walk over
 * a JSON skeleton (values, members, truncation).
 */
#include <criterion/criterion.h>
#include <string.h>

#include "import/internal.h"

static int ns_of(const char *s, int64_t *ns)
{
	struct sk_jspan v = {s, strlen(s)};

	return sk_us_to_ns(v, ns);
}

Test(import_scan, microseconds_with_three_decimals_are_whole_nanoseconds)
{
	static const struct {
		const char *text;
		int64_t ns;
	} cases[] = {
	    {"0", 0},
	    {"0.000", 0},
	    {"1.001", 1001},
	    {"108.000", 108000},
	    {"5.5", 5500},
	    {"-2.250", -2250},
	    /* 19 significant digits: a double would round these to a multiple of 256 ns */
	    {"1700000000123456.789", 1700000000123456789LL},
	    {"1700000000123456.787", 1700000000123456787LL},
	    {"4611686018427387.903", 4611686018427387903LL}, /* 2^62 - 1 */
	    /* below a nanosecond: rounded half away from zero */
	    {"1.0004", 1000},
	    {"1.0005", 1001},
	    {"-1.0005", -1001},
	    {"0.0000004999", 0},
	    /* exponents */
	    {"1e3", 1000000},
	    {"1.5E-3", 2},
	    {"2.5e+0", 2500},
	    /* digits past what is kept */
	    {"1.000000000000000000000000000000000000000000001", 1000},
	    {"0.000000000000000000000000000000000000000000001e50", 100000000},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int64_t ns = -42;

		cr_expect_eq(ns_of(cases[i].text, &ns), 0, "%s is a number", cases[i].text);
		cr_expect_eq(ns, cases[i].ns, "%s: %lld, expected %lld", cases[i].text,
			     (long long)ns, (long long)cases[i].ns);
	}
}

Test(import_scan, what_is_not_a_time_in_range_is_refused)
{
	static const char *const bad[] = {
	    "",
	    "-",
	    ".5",
	    "1.",
	    "1e",
	    "1e+",
	    "abc",
	    "\"1.0\"",
	    "1.0x",
	    "0x10",
	    "true",
	    "null",
	    "4611686018427387.904", /* 2^62 ns */
	    "99999999999999999999999",
	    "1e400",
	    "1.5e16",
	};
	int64_t ns;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_expect_eq(ns_of(bad[i], &ns), -1, "'%s' is refused", bad[i]);
}

Test(import_scan, members_are_found_at_the_top_level_only)
{
	const char *obj = "{\"args\": {\"ts\": 1}, \"name\": \"a \\\"ts\\\": 2\", \"ts\" :  3.5 ,"
			  " \"dur\":[1,{\"x\":2}]}";
	struct sk_jspan o = {obj, strlen(obj)}, v;

	cr_assert(sk_jscan_member(o, "ts", &v));
	cr_expect_eq(v.n, 3);
	cr_expect(!strncmp(v.p, "3.5", 3));
	cr_assert(sk_jscan_member(o, "dur", &v));
	cr_expect_eq(v.n, strlen("[1,{\"x\":2}]"));
	cr_expect(!sk_jscan_member(o, "x", &v));
	cr_expect(!sk_jscan_member(o, "missing", &v));
}

Test(import_scan, an_array_walk_gives_each_element_and_notices_truncation)
{
	const char *text = " [ {\"a\": [1, 2]}, \"s]\" , 17 , null ] ";
	struct sk_jscan j = {text, strlen(text), 0, NULL};
	struct sk_jspan v;
	const char *want[] = {"{\"a\": [1, 2]}", "\"s]\"", "17", "null"};
	int first = 1, n = 0;

	cr_assert_eq(sk_jscan_expect(&j, '['), 0);
	while (sk_jscan_more(&j, ']', &first) == 1) {
		cr_assert_eq(sk_jscan_value(&j, &v), 0);
		cr_assert_lt(n, 4);
		cr_expect_eq(v.n, strlen(want[n]));
		cr_expect(!strncmp(v.p, want[n], v.n), "element %d", n);
		n++;
	}
	cr_expect_eq(n, 4);
	cr_expect_eq(sk_jscan_peek(&j), 0, "only white space after the array");

	/* The same text cut inside the second element, a string. */
	j = (struct sk_jscan){text, 20, 0, NULL};
	first = 1;
	cr_assert_eq(sk_jscan_expect(&j, '['), 0);
	cr_assert_eq(sk_jscan_more(&j, ']', &first), 1);
	cr_assert_eq(sk_jscan_value(&j, &v), 0);
	cr_assert_eq(sk_jscan_more(&j, ']', &first), 1);
	cr_expect_eq(sk_jscan_value(&j, &v), -1);
	cr_expect_not_null(strstr(j.msg, "truncated"));
}

Test(import_scan, mismatched_brackets_and_missing_commas_are_errors)
{
	const char *a = "{\"a\": [1, 2}";
	const char *b = "[1 2]";
	struct sk_jscan j = {a, strlen(a), 0, NULL};
	struct sk_jspan v;
	int first = 1;

	cr_expect_eq(sk_jscan_value(&j, &v), -1);
	cr_expect_str_eq(j.msg, "a bracket does not match");
	j = (struct sk_jscan){b, strlen(b), 0, NULL};
	cr_assert_eq(sk_jscan_expect(&j, '['), 0);
	cr_assert_eq(sk_jscan_more(&j, ']', &first), 1);
	cr_assert_eq(sk_jscan_value(&j, &v), 0);
	cr_expect_eq(sk_jscan_more(&j, ']', &first), -1);
	cr_expect_str_eq(j.msg, "expected ',' or ']'");
}
