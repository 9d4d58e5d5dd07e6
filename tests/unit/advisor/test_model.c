/*
 * test_model.c: the calibration's keys (advisor/model.c): every key has a part, a range and a
 * unit, the built-in values lie in them, the members of a part are grouped in struct
 * skip_calibration, docs/skip-advise.md's table lists every key with its part, unit and
 * built-in value, and a calibration file is refused, with the key, its range and its unit, when
 * a value is out of range, not a number or not a key.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skip_advisor.h"

static const char *const parts[] = {"host", "graph", "profiler", "placement", "persistent"};

static int part_index(const char *part)
{
	for (int i = 0; part && i < (int)(sizeof(parts) / sizeof(parts[0])); i++)
		if (!strcmp(part, parts[i]))
			return i;
	return -1;
}

Test(model, every_key_has_a_part_a_range_and_a_unit_and_the_defaults_lie_in_them)
{
	struct skip_calibration c;
	int n = 0;

	skip_calibration_default(&c);
	for (const struct skip_calibration_key *k = skip_calibration_keys; k->name; k++, n++) {
		double v = *(const double *)((const char *)&c + k->offset);

		cr_expect(k->min >= 0 && k->max > k->min, "%s", k->name);
		cr_expect(v >= k->min && v <= k->max, "%s: default %g", k->name, v);
		cr_expect(!strcmp(k->unit, "ns") || !strcmp(k->unit, "fraction"), "%s", k->name);
		cr_expect(part_index(k->part) >= 0, "%s: part '%s'", k->name, k->part);
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
	cr_assert_eq(
	    skip_calibration_parse("{\"graph_launch_ns\": 1e9, \"sm_share_rate\": 0}", "c", &c), 0,
	    "%s", skip_errmsg());
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

	cr_expect_eq(
	    skip_calibration_parse("{\n  \"graph_launch_ns\": 12,\n  \"x\": ,\n}\n", "c.json", &c),
	    SKIP_E_INVAL);
	cr_expect(strstr(skip_errmsg(), "c.json:3:8: JSON syntax error"), "%s", skip_errmsg());
}

Test(model, the_members_of_a_part_are_grouped_in_the_struct_in_part_order)
{
	int part_at[sizeof(struct skip_calibration) / sizeof(double)];

	memset(part_at, -1, sizeof(part_at));
	for (const struct skip_calibration_key *k = skip_calibration_keys; k->name; k++) {
		cr_assert_lt(k->offset / sizeof(double), sizeof(part_at) / sizeof(part_at[0]));
		part_at[k->offset / sizeof(double)] = part_index(k->part);
	}
	for (size_t i = 1; i < sizeof(part_at) / sizeof(part_at[0]); i++)
		cr_expect_leq(part_at[i - 1], part_at[i], "member %zu: part %d after part %d", i,
			      part_at[i], part_at[i - 1]);
}

/* The cells of the row of docs/skip-advise.md's calibration table that starts with @key's
 * name: part, unit and built-in value into @part, @unit (each at most 31 characters) and @v;
 * 0 when there is no such row. */
static int doc_row(const char *doc, const char *key, char *part, char *unit, double *v)
{
	char head[64];
	const char *row;

	snprintf(head, sizeof(head), "\n| `%s` | ", key);
	row = strstr(doc, head);
	if (!row)
		return 0;
	row += strlen(head);
	if (sscanf(row, "%31[^ |] | %31[^|]| %lf |", part, unit, v) != 3)
		return 0;
	return 1;
}

Test(model, the_manual_lists_every_key_with_its_part_unit_and_built_in_value)
{
	FILE *f = fopen("docs/skip-advise.md", "rb");
	char *doc = calloc(1, 1 << 20);
	struct skip_calibration d;

	cr_assert_not_null(f, "run from the repository root");
	cr_assert_not_null(doc);
	cr_assert_gt(fread(doc, 1, (1 << 20) - 1, f), 0);
	fclose(f);
	skip_calibration_default(&d);
	for (const struct skip_calibration_key *k = skip_calibration_keys; k->name; k++) {
		char part[32], unit[32];
		double v, want = *(const double *)((const char *)&d + k->offset);

		if (!doc_row(doc, k->name, part, unit, &v)) {
			cr_expect_fail("docs/skip-advise.md: no row for '%s'", k->name);
			continue;
		}
		cr_expect_str_eq(part, k->part, "%s", k->name);
		cr_expect(!strncmp(unit, k->unit, strlen(k->unit)), "%s: unit '%s'", k->name, unit);
		cr_expect_float_eq(v, want, 1e-9, "%s: built-in %g, documented %g", k->name, want,
				   v);
	}
	free(doc);
}
