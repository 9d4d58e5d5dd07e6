/*
 * test_plan.c: plans read from JSON (what the advisor will write) are checked against the
 * graph before anything runs: each malformed plan gives its own clear message; a partial plan
 * is completed (events computed from an assignment); a written plan reads back the same.
 * The graph: a and b independent, c joins them, d follows c.
 */
#include <cjson/cJSON.h>

#include "helpers.h"

static struct skip_graph *g;
static struct skip_plan *p;

static void setup(void)
{
	skip_log_init("test", NULL, 1);
	g = skip_graph_new(NULL);
	p = NULL;
	helper_task(g, "a", "w:X");
	helper_task(g, "b", "w:Y");
	helper_task(g, "c", "r:X r:Y w:Z");
	helper_task(g, "d", "r:Z w:W");
	cr_assert_eq(skip_graph_finalize(g), 0);
}

static void teardown(void)
{
	skip_plan_free(p);
	skip_graph_free(g);
}

TestSuite(runtime_plan, .init = setup, .fini = teardown);

static void rejects(const char *json, const char *msg)
{
	skip_plan_free(p); /* a plan an earlier accepts() left */
	p = NULL;
	cr_assert_eq(skip_plan_from_json(g, json, &p), SKIP_E_INVAL, "accepted: %s", json);
	cr_assert_null(p);
	cr_assert(strstr(skip_errmsg(), msg), "for %s\n  got:      %s\n  expected: %s", json,
		  skip_errmsg(), msg);
}

static void accepts(const char *json)
{
	skip_plan_free(p);
	p = NULL;
	cr_assert_eq(skip_plan_from_json(g, json, &p), 0, "%s: %s", json, skip_errmsg());
}

#define HEAD "\"skip_plan\": 1, "

Test(runtime_plan, malformed_headers_are_named)
{
	rejects("{\"skip_plan\": 1,",
		"plan: line 1, column 17: JSON syntax error near '{\"skip_plan\": 1,'");
	rejects("[1, 2]", "plan: not a JSON object");
	rejects("{\"executor\": \"serial\"}", "\"skip_plan\": 1 (the format version) expected");
	rejects("{\"skip_plan\": 2, \"executor\": \"serial\"}", "\"skip_plan\": 1");
	rejects("{" HEAD "\"pdl\": true}",
		"\"executor\" (serial, streams, graph, window or persistent) is missing");
	rejects("{" HEAD "\"executor\": \"gpu\"}", "unknown executor 'gpu'");
	rejects("{" HEAD "\"executor\": \"serial\", \"stream\": 2}", "unknown member \"stream\"");
	rejects("{" HEAD "\"executor\": \"graph\", \"pdl\": 1}", "\"pdl\" must be true or false");
	rejects("{" HEAD "\"executor\": \"window\", \"window\": 100}",
		"\"window\" must be a whole number from 1 to 64");
	rejects("{" HEAD "\"executor\": \"streams\", \"streams\": 0}",
		"\"streams\" must be a whole number from 1 to 64");
	rejects("{" HEAD "\"executor\": \"streams\", \"streams\": 1e30}",
		"\"streams\" must be a whole number from 1 to 64");
	rejects("{" HEAD "\"executor\": \"window\", \"window\": 2.5}",
		"\"window\" must be a whole number from 1 to 64");
}

Test(runtime_plan, a_syntax_error_is_one_line_with_its_line_and_column)
{
	rejects("{\n  \"skip_plan\": 1,\n  \"executor\" \"serial\",\n  \"order\": []\n}\n",
		"plan: line 3, column 14: JSON syntax error near '\"serial\",'");
	cr_assert_null(strchr(skip_errmsg(), '\n'), "one line: %s", skip_errmsg());
	rejects("{" HEAD "\"executor\": \"serial\"} trailing",
		"plan: line 1, column 40: JSON syntax error near 'trailing'");
}

Test(runtime_plan, orders_must_name_every_task_once_in_dependency_order)
{
	rejects("{" HEAD "\"executor\": \"serial\", \"order\": [\"a\", \"zz\", \"c\", \"d\"]}",
		"plan: order[1]: unknown task 'zz'");
	rejects("{" HEAD "\"executor\": \"serial\", \"order\": [\"a\", \"b\"]}",
		"\"order\" names 2 tasks; the workload has 4");
	rejects("{" HEAD "\"executor\": \"serial\", \"order\": [\"a\", \"a\", \"c\", \"d\"]}",
		"order: task 'a' appears twice");
	rejects(
	    "{" HEAD "\"executor\": \"graph\", \"order\": [\"c\", \"a\", \"b\", \"d\"]}",
	    "'c' is launched before 'a', which it depends on (a cycle with the dependency a -> c)");
	rejects("{" HEAD "\"executor\": \"serial\", \"order\": \"a b c d\"}",
		"\"order\" must be an array of task names");
	accepts("{" HEAD "\"executor\": \"serial\", \"order\": [\"b\", \"a\", \"c\", \"d\"]}");
	cr_assert_eq(p->order[0], 1);
}

Test(runtime_plan, assignments_must_cover_every_task_with_a_valid_stream)
{
	rejects("{" HEAD
		"\"executor\": \"streams\", \"assignment\": {\"a\": 0, \"b\": 1, \"c\": 0}}",
		"assignment: task 'd' has no stream");
	rejects("{" HEAD "\"executor\": \"streams\", \"assignment\": {\"q\": 0}}",
		"assignment: unknown task 'q'");
	rejects("{" HEAD "\"executor\": \"streams\", \"streams\": 2, "
		"\"assignment\": {\"a\": 0, \"b\": 5, \"c\": 0, \"d\": 0}}",
		"task 'b' is on stream 5; the plan has streams 0..1");
	rejects("{" HEAD "\"executor\": \"streams\", \"assignment\": {\"a\": -1}}",
		"assignment: 'a': a stream number 0..63 expected");
	rejects("{" HEAD "\"executor\": \"graph\", \"assignment\": {\"a\": 0}}",
		"\"assignment\" applies to the streams executor only");
}

Test(runtime_plan, events_must_exist_go_forward_and_enforce_every_dependency)
{
	const char *assign = "\"assignment\": {\"a\": 0, \"b\": 1, \"c\": 0, \"d\": 0}, ";
	char json[512];

	snprintf(json, sizeof(json), "{" HEAD "\"executor\": \"streams\", %s \"events\": []}",
		 assign);
	rejects(json,
		"the dependency b -> c is not enforced: 'b' runs on stream 1, 'c' on stream 0, "
		"and no event orders them");
	snprintf(json, sizeof(json),
		 "{" HEAD
		 "\"executor\": \"streams\", %s \"events\": [{\"from\": \"c\", \"to\": \"b\"}]}",
		 assign);
	rejects(json,
		"events[0]: 'b' waits for 'c', which is launched after it: that makes a cycle");
	snprintf(json, sizeof(json),
		 "{" HEAD
		 "\"executor\": \"streams\", %s \"events\": [{\"from\": \"zz\", \"to\": \"c\"}]}",
		 assign);
	rejects(json, "plan: events[0].from: unknown task 'zz'");
	snprintf(json, sizeof(json),
		 "{" HEAD
		 "\"executor\": \"streams\", %s \"events\": [{\"from\": \"b\", \"to\": \"c\"}]}",
		 assign);
	accepts(json);
	cr_assert_eq(p->nevents, 1);
	cr_assert_eq(p->events_unpruned, -1, "loaded events have no pruning statistics");
}

Test(runtime_plan, an_assignment_without_events_gets_them_computed)
{
	accepts(
	    "{" HEAD
	    "\"executor\": \"streams\", \"assignment\": {\"a\": 1, \"b\": 0, \"c\": 1, \"d\": 0}}");
	cr_assert_eq(p->nstreams, 2);
	/* c on s1 waits for b (s0); d on s0 waits for c (s1) */
	cr_assert_eq(p->nevents, 2);
	cr_assert_eq(p->events[0].from, 1);
	cr_assert_eq(p->events[0].to, 2);
	cr_assert_eq(p->events[1].from, 2);
	cr_assert_eq(p->events[1].to, 3);
}

Test(runtime_plan, a_written_plan_reads_back_the_same)
{
	struct skip_plan_opts o = {.executor = SKIP_EXEC_STREAMS, .nstreams = 2};
	struct skip_plan *q = NULL;
	char *text;

	cr_assert_eq(skip_plan_compute(g, &o, &q), 0);
	text = skip_plan_to_json(g, q);
	cr_assert_not_null(text);
	accepts(text);
	cr_assert_eq(p->executor, q->executor);
	cr_assert_eq(p->nstreams, q->nstreams);
	cr_assert_arr_eq(p->order, q->order, 4 * sizeof(int));
	cr_assert_arr_eq(p->stream, q->stream, 4 * sizeof(int));
	cr_assert_eq(p->nevents, q->nevents);
	cr_assert_arr_eq(p->events, q->events, (size_t)q->nevents * sizeof(*q->events));
	free(text);
	skip_plan_free(q);
}

/* A persistent plan's predicted durations: every task, each a time; they read back; another
 * executor's plan may not give them. */
Test(runtime_plan, persistent_durations_cover_every_task_and_read_back)
{
	const char *d = "\"durations_us\": {\"a\": 3, \"b\": 1.5, \"c\": 0, \"d\": 2}";
	char json[256], *text;

	snprintf(json, sizeof(json), "{" HEAD "\"executor\": \"persistent\", %s}", d);
	accepts(json);
	cr_assert_not_null(p->durations_us);
	cr_expect_float_eq(p->durations_us[1], 1.5, 1e-12);
	cr_expect_float_eq(p->durations_us[3], 2.0, 1e-12);
	text = skip_plan_to_json(g, p);
	accepts(text);
	free(text);
	cr_expect_float_eq(p->durations_us[0], 3.0, 1e-12, "written and read back");
	accepts("{" HEAD "\"executor\": \"persistent\"}");
	cr_expect_null(p->durations_us, "none given: none");
	rejects("{" HEAD "\"executor\": \"persistent\", \"durations_us\": [1, 2]}",
		"\"durations_us\" must map task names to predicted times in us");
	rejects("{" HEAD "\"executor\": \"persistent\", \"durations_us\": {\"a\": 1, \"b\": 1, "
		"\"c\": 1}}",
		"durations_us: task 'd' has no time");
	rejects("{" HEAD "\"executor\": \"persistent\", \"durations_us\": {\"e\": 1}}",
		"durations_us: unknown task 'e'");
	rejects("{" HEAD "\"executor\": \"persistent\", \"durations_us\": {\"a\": -1}}",
		"durations_us: 'a': a time in us from 0 to 1e9 expected");
	rejects("{" HEAD "\"executor\": \"persistent\", \"durations_us\": {\"a\": \"1\"}}",
		"'a': a time in us");
	snprintf(json, sizeof(json), "{" HEAD "\"executor\": \"graph\", %s}", d);
	rejects(json, "\"durations_us\" applies to the persistent executor only");
}

Test(runtime_plan, plans_for_another_graph_are_rejected)
{
	struct skip_plan *q = sk_plan_alloc(3, 0);

	q->executor = SKIP_EXEC_SERIAL;
	cr_assert_eq(skip_plan_validate(g, q), SKIP_E_INVAL);
	cr_assert_str_eq(skip_errmsg(), "plan: made for 3 tasks, the graph has 4");
	skip_plan_free(q);
}

Test(runtime_plan, executor_names_round_trip)
{
	for (int e = 0; e < SKIP_NEXECUTORS; e++)
		cr_assert_eq(skip_executor_parse(skip_executor_name((enum skip_executor)e)), e);
	cr_assert_eq(skip_executor_parse("Serial"), SKIP_E_INVAL);
}

Test(runtime_plan, window_and_graph_plans_keep_their_options)
{
	struct skip_plan_opts o = {.executor = SKIP_EXEC_WINDOW, .window = 8, .nstreams = 3};
	struct skip_plan *q = NULL;
	char *text;

	cr_assert_eq(skip_plan_compute(g, &o, &q), 0);
	cr_assert_eq(q->window, 8);
	cr_assert_eq(q->nstreams, 3);
	text = skip_plan_to_json(g, q);
	accepts(text);
	cr_assert_eq(p->window, 8);
	cr_assert_eq(p->nstreams, 3);
	free(text);
	skip_plan_free(q);
	accepts("{" HEAD "\"executor\": \"graph\", \"pdl\": true}");
	cr_assert(p->pdl);
	accepts("{" HEAD "\"executor\": \"window\"}");
	cr_assert_eq(p->window, 32, "the default window");
	cr_assert_eq(p->nstreams, 2, "the default pool: the DAG's width");
}

/* schemas/plan.schema.json says what the tables say: the executors in their order, each option
 * with its range, and every executor's computed plan is valid. */
Test(runtime_plan, the_schema_names_the_executors_and_options_of_the_tables)
{
	const struct skip_executor_info *e;
	const cJSON *props, *names;
	cJSON *schema = NULL;
	int i = 0;

	cr_assert_eq(skip_json_load("schemas/plan.schema.json", &schema), 0, "%s", skip_errmsg());
	props = cJSON_GetObjectItem(schema, "properties");
	names = cJSON_GetObjectItem(cJSON_GetObjectItem(props, "executor"), "enum");
	cr_assert_eq(cJSON_GetArraySize(names), SKIP_NEXECUTORS, "one name per executor");
	for (; (e = skip_executor_info(i)); i++)
		cr_expect_str_eq(cJSON_GetArrayItem(names, i)->valuestring, e->name);
	for (const struct skip_plan_option *r = skip_plan_options; r->name; r++) {
		const cJSON *s = cJSON_GetObjectItem(props, r->name);

		cr_assert_not_null(s, "the schema lacks \"%s\"", r->name);
		cr_expect_str_eq(cJSON_GetObjectItem(s, "type")->valuestring,
				 r->names     ? "string"
				 : r->metavar ? "integer"
					      : "boolean",
				 "\"%s\"", r->name);
		if (r->names) { /* the names, in their order */
			const cJSON *en = cJSON_GetObjectItem(s, "enum");
			int n = 0, cli = r->names == skip_persist_modes; /* then skip run's auto */

			for (; r->names[n]; n++)
				cr_expect_str_eq(cJSON_GetArrayItem(en, n)->valuestring,
						 r->names[n], "\"%s\"", r->name);
			if (cli)
				cr_expect_str_eq(cJSON_GetArrayItem(en, n)->valuestring, "auto");
			cr_expect_eq(cJSON_GetArraySize(en), n + cli, "\"%s\"", r->name);
			cr_expect_eq(r->max, n, "\"%s\": max is the last name", r->name);
			continue;
		}
		if (!r->metavar)
			continue;
		cr_expect_eq(cJSON_GetObjectItem(s, "minimum")->valueint, r->min, "\"%s\"",
			     r->name);
		cr_expect_eq(cJSON_GetObjectItem(s, "maximum")->valueint, r->max, "\"%s\"",
			     r->name);
	}
	for (i = 0; (e = skip_executor_info(i)); i++) {
		struct skip_plan_opts o = {.executor = (enum skip_executor)i, .pdl = 1};
		struct skip_plan *q = NULL;
		char *text, err[256] = "";
		cJSON *doc;

		cr_assert_eq(skip_plan_compute(g, &o, &q), 0, "%s", skip_errmsg());
		text = skip_plan_to_json(g, q);
		doc = cJSON_Parse(text);
		cr_expect_eq(skip_json_validate(schema, doc, err, sizeof(err)), 0, "%s: %s",
			     e->name, err);
		cJSON_Delete(doc);
		free(text);
		skip_plan_free(q);
	}
	cJSON_Delete(schema);
}
