/*
 * test_crosscheck.c: the analyzer against an independent computation. On the traces recorded
 * on the H100, TKLQT (the sum over kernels of kernel start - launch call start) and GPU busy
 * time (the union of kernel, memcpy and memset intervals, merged with SQL window functions) are
 * computed by plain SQL queries and must equal the analyzer's values, run by run. Also: the
 * JSON report validates against schemas/report.schema.json on every fixture, and the schema
 * validator rejects what it must.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "analyzer/internal.h"

#define SQL_TKLQT                                                                                  \
	"SELECT coalesce(sum(k.start - a.start), 0) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN "       \
	"(SELECT runId, "                                                                          \
	"start, correlationId, globalTid FROM CUPTI_ACTIVITY_KIND_RUNTIME UNION ALL SELECT "       \
	"runId, "                                                                                  \
	"start, correlationId, globalTid FROM CUPTI_ACTIVITY_KIND_DRIVER) a ON a.runId = k.runId " \
	"AND a.correlationId = k.correlationId AND (a.globalTid >> 24) = (k.globalPid >> 24) "     \
	"WHERE k.runId = %lld"

/* Busy = the total length of the merged intervals: a new group starts where an interval begins
 * after every earlier one has ended. */
#define SQL_BUSY                                                                                   \
	"WITH ops AS (SELECT start, end FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE runId = %lld UNION " \
	"ALL SELECT start, end FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE runId = %lld UNION ALL "      \
	"SELECT start, end FROM CUPTI_ACTIVITY_KIND_MEMSET WHERE runId = %lld), o AS (SELECT "     \
	"start, end, max(end) OVER (ORDER BY start, end ROWS BETWEEN UNBOUNDED PRECEDING AND 1 "   \
	"PRECEDING) AS prev FROM ops), g AS (SELECT start, end, sum(CASE WHEN prev IS NULL OR "    \
	"start > prev THEN 1 ELSE 0 END) OVER (ORDER BY start, end ROWS UNBOUNDED PRECEDING) AS "  \
	"grp FROM o) SELECT sum(e - s) FROM (SELECT min(start) s, max(end) e FROM g GROUP BY grp)"

static void crosscheck(const char *fixture)
{
	struct skip_analysis_opts o = {0};
	struct skip_trace *t = NULL;
	struct skip_report *r = NULL;
	char path[256], sql[2048];

	snprintf(path, sizeof(path), "tests/fixtures/%s.skip.db", fixture);
	cr_assert_eq(skip_trace_open(path, &t), 0, "%s", skip_errmsg());
	cr_assert_eq(skip_analyze(t, &o, &r), 0, "%s", skip_errmsg());
	cr_assert_gt(r->nregions, 0);
	for (size_t i = 0; i < r->nregions; i++) {
		const struct skip_metrics *m = &r->regions[i].m;
		long long run = (long long)r->regions[i].run_id;

		cr_expect_eq(m->graph_nodes, 0, "these fixtures have no graphs");
		snprintf(sql, sizeof(sql), SQL_TKLQT, run);
		cr_expect_eq(m->tklqt_ns, sk_db_int(t->db, -1, sql), "%s run %lld: TKLQT", fixture,
			     run);
		snprintf(sql, sizeof(sql), SQL_BUSY, run, run, run);
		cr_expect_eq(m->busy_ns, sk_db_int(t->db, -1, sql), "%s run %lld: busy", fixture,
			     run);
		cr_expect(m->kernels == 0 || m->tklqt_ns > 0);
		cr_expect_gt(m->busy_ns, 0);
	}
	skip_report_free(r);
	skip_trace_close(t);
}

Test(analyzer_crosscheck, tklqt_and_busy_equal_plain_sql_on_h100_traces)
{
	crosscheck("h100_launch_chain");
	crosscheck("h100_two_streams");
	crosscheck("h100_memops");
	crosscheck("h100_torch_mlp");
	crosscheck("h100_gpu_bound");
	crosscheck("gpt2_sweep"); /* 24 runs: each read as its own rowid range */
}

static cJSON *load_schema(void)
{
	FILE *f = fopen("schemas/report.schema.json", "rb");
	char buf[65536];
	size_t n;

	cr_assert_not_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return cJSON_Parse(buf);
}

static void validate_fixture(cJSON *schema, const char *fixture, const char *region)
{
	struct skip_analysis_opts o = {.region = region};
	struct skip_trace *t = NULL;
	struct skip_report *r = NULL;
	char path[256], err[512];
	char *json;
	cJSON *doc;

	snprintf(path, sizeof(path), "tests/fixtures/%s.skip.db", fixture);
	cr_assert_eq(skip_trace_open(path, &t), 0, "%s", skip_errmsg());
	cr_assert_eq(skip_analyze(t, &o, &r), 0, "%s: %s", fixture, skip_errmsg());
	json = skip_report_json(r);
	doc = cJSON_Parse(json);
	cr_assert_not_null(doc, "%s: the report is not JSON", fixture);
	cr_expect_eq(skip_json_validate(schema, doc, err, sizeof(err)), 0, "%s: %s", fixture, err);
	cJSON_Delete(doc);
	free(json);
	skip_report_free(r);
	skip_trace_close(t);
}

Test(analyzer_json, real_reports_validate_against_the_schema)
{
	static const char *const fixtures[] = {
	    "h100_launch_chain", "h100_gpu_bound", "h100_two_streams", "h100_memops",
	    "h100_nvtx_threads", "h100_cublas",	   "h100_graph",       "h100_torch_mlp"};
	cJSON *schema = load_schema();

	cr_assert_not_null(schema, "schemas/report.schema.json does not parse");
	for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++)
		validate_fixture(schema, fixtures[i], NULL);
	validate_fixture(schema, "h100_torch_mlp", "step");
	validate_fixture(schema, "llama1b_sweep", "prefill");
	validate_fixture(schema, "gpt2_sweep", "prefill");
	cJSON_Delete(schema);
}

Test(analyzer_json, the_validator_rejects_what_the_schema_forbids)
{
	cJSON *schema = load_schema(), *doc;
	struct skip_analysis_opts o = {0};
	struct skip_trace *t = NULL;
	struct skip_report *r = NULL;
	char err[512], *json;

	cr_assert_eq(skip_trace_open("tests/fixtures/h100_launch_chain.skip.db", &t), 0);
	cr_assert_eq(skip_analyze(t, &o, &r), 0);
	json = skip_report_json(r);
	doc = cJSON_Parse(json);
	cJSON_ReplaceItemInObject(doc, "verdict", cJSON_CreateString("maybe"));
	cr_expect_neq(skip_json_validate(schema, doc, err, sizeof(err)), 0);
	cr_expect(strstr(err, "$.verdict"), "%s", err);
	cJSON_DeleteItemFromObject(doc, "verdict");
	cr_expect_neq(skip_json_validate(schema, doc, err, sizeof(err)), 0);
	cr_expect(strstr(err, "missing required member verdict"), "%s", err);
	cJSON_AddStringToObject(doc, "verdict", "CPU-bound");
	cJSON_ReplaceItemInObject(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "regions"), 1),
				  "il_ns", cJSON_CreateNumber(1.5));
	cr_expect_neq(skip_json_validate(schema, doc, err, sizeof(err)), 0);
	cr_expect(strstr(err, "$.regions[1].il_ns: expected integer"), "%s", err);
	cJSON_Delete(doc);
	free(json);
	skip_report_free(r);
	skip_trace_close(t);
	cJSON_Delete(schema);
}

static int cmp_pair(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return (x[0] > y[0]) - (x[0] < y[0]);
}

Test(analyzer_internals, radix_sort_orders_like_a_stable_sort)
{
	static uint64_t keys[20000], pairs[20000][2];
	static uint32_t vals[20000];

	srand(11);
	for (int round = 0; round < 20; round++) {
		size_t n = 1 + (size_t)(rand() % 20000);

		for (size_t i = 0; i < n; i++) {
			/* few distinct high digits, many low ones, duplicates */
			keys[i] = ((uint64_t)(rand() % 3) << 44) | (uint64_t)(rand() % 100000) << 8;
			if (round % 5 == 0)
				keys[i] = i; /* already sorted */
			vals[i] = (uint32_t)i;
			pairs[i][0] = keys[i];
			pairs[i][1] = i;
		}
		qsort(pairs, n, sizeof(pairs[0]), cmp_pair);
		sk_radix_sort(keys, vals, n);
		for (size_t i = 0; i < n; i++) {
			cr_assert_eq(keys[i], pairs[i][0], "round %d, n %zu, position %zu", round,
				     n, i);
			cr_assert(i == 0 || keys[i - 1] < keys[i] || vals[i - 1] < vals[i],
				  "equal keys keep their order (stable)");
		}
	}
}
