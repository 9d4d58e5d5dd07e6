/*
 * test_model.c: the calibration's keys (advisor/model.c): every key has a range and a unit, the
 * built-in values lie in them, and a calibration file is refused, with the key, its range and
 * its unit, when a value is out of range, not a number or not a key.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "skip_advisor.h"

Test(model, every_key_has_a_range_and_a_unit_and_the_defaults_lie_in_them)
{
	struct skip_calibration c;
	int n = 0;

	skip_calibration_default(&c);
	for (const struct skip_calibration_key *k = skip_calibration_keys; k->name; k++, n++) {
		double v = *(const double *)((const char *)&c + k->offset);

		cr_expect(k->min >= 0 && k->max > k->min, "%s", k->name);
		cr_expect(v >= k->min && v <= k->max, "%s: default %g", k->name, v);
		cr_expect(!strcmp(k->unit, "ns") || !strcmp(k->unit, "fraction"), "%s", k->name);
		cr_expect(k->max <= 1e9, "%s: bounded, so sums stay far from int64_t's limit",
			  k->name);
	}
	cr_expect_eq(n * sizeof(double), sizeof(c), "a key per member");
	cr_expect_eq(skip_calibration_check(&c), 0, "%s", skip_errmsg());
}

Test(model, a_value_out_of_range_is_refused_with_the_range_and_unit)
{
	struct skip_calibration c;

	cr_expect_eq(skip_calibration_parse("{\"graph_launch_ns\": 1e19}", "cal.json", &c),
		     SKIP_E_INVAL);
	cr_expect_str_eq(skip_errmsg(), "cal.json: 'graph_launch_ns': must be a number >= 0 and "
					"<= 1e+09 (ns: 1 s); got 1e+19");
	cr_expect_eq(skip_calibration_parse("{\"launch_latency_ns\": -1}", "c", &c), SKIP_E_INVAL);
	cr_expect_not_null(strstr(skip_errmsg(), "got -1"), "%s", skip_errmsg());
	cr_expect_eq(skip_calibration_parse("{\"sm_share_rate\": 1.5}", "c", &c), SKIP_E_INVAL);
	cr_expect_str_eq(skip_errmsg(), "c: 'sm_share_rate': must be a number >= 0 and <= 1 "
					"(fraction); got 1.5");
	cr_expect_eq(skip_calibration_parse("{\"remote_read_cost\": \"0.5\"}", "c", &c),
		     SKIP_E_INVAL);
	cr_expect_not_null(strstr(skip_errmsg(), "'remote_read_cost': must be a number >= 0 and "
						 "<= 10 (fraction); got something else"),
			   "%s", skip_errmsg());
	cr_expect_eq(skip_calibration_parse("{\"graph_launch\": 1}", "c", &c), SKIP_E_INVAL);
	cr_expect_str_eq(skip_errmsg(), "c: 'graph_launch': unknown member (docs/skip-advise.md "
					"lists them)");
	cr_expect_eq(skip_calibration_parse("[1]", "c", &c), SKIP_E_INVAL);
	cr_expect_str_eq(skip_errmsg(), "c: not a JSON object");
}

Test(model, a_file_in_range_sets_its_members_and_keeps_the_defaults_of_the_others)
{
	struct skip_calibration c, d;

	skip_calibration_default(&d);
	cr_assert_eq(skip_calibration_parse("{\"graph_launch_ns\": 1e9, \"sm_share_rate\": 0}",
					    "c", &c),
		     0, "%s", skip_errmsg());
	cr_expect_float_eq(c.graph_launch_ns, 1e9, 1e-9, "the bound itself is accepted");
	cr_expect_float_eq(c.sm_share_rate, 0, 1e-12);
	cr_expect_float_eq(c.launch_latency_ns, d.launch_latency_ns, 1e-12);
	cr_expect_eq(skip_calibration_set(&c, "stream_gap_ns", 2e9), SKIP_E_INVAL);
	cr_expect_str_eq(skip_errmsg(), "'stream_gap_ns': must be a number >= 0 and <= 1e+09 (ns: "
					"1 s); got 2e+09");
	cr_expect_eq(skip_calibration_set(&c, "stream_gap_ns", NAN), SKIP_E_INVAL);
	cr_expect_eq(skip_calibration_set(&c, "stream_gap_ns", 500), 0);
	cr_expect_float_eq(c.stream_gap_ns, 500, 1e-12);
	c.sync_idle_ns = INFINITY;
	cr_expect_eq(skip_calibration_check(&c), SKIP_E_INVAL);
	cr_expect_str_eq(skip_errmsg(), "calibration: 'sync_idle_ns': must be a number >= 0 and "
					"<= 1e+09 (ns: 1 s); got inf");
}

Test(model, a_syntax_error_in_a_calibration_file_names_its_line_and_column)
{
	struct skip_calibration c;

	cr_expect_eq(skip_calibration_parse("{\n  \"graph_launch_ns\": 12,\n  \"x\": ,\n}\n",
					    "c.json", &c),
		     SKIP_E_INVAL);
	cr_expect(strstr(skip_errmsg(), "c.json:3:8: JSON syntax error"), "%s", skip_errmsg());
}
