/*
 * plan_json.c: plans as JSON (schemas/plan.schema.json), the form the advisor writes and
 * `skip run --plan` reads. Tasks are named, never numbered, so a plan stays readable and
 * survives changes to the order of a workload's tasks. Whatever a plan leaves out is computed
 * (the launch order, a streams assignment, its events); whatever it gives is checked with
 * skip_plan_validate() before it is handed out. A plan holds the members its executor owns
 * (struct skip_executor_info.fields): the numbers and flags of skip_plan_options[] and the
 * lists of the table below; the lists of another executor are refused.
 */
#define SK_LOG_DOMAIN "runtime"
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define SK_PLAN_VERSION 1

/* Members every plan may have (the options and the lists are the tables'). */
static const char *const other_keys[] = {
    "skip_plan",
    "executor",
    "events_before_pruning", /* written with "events" */
    "events_after_step_b",
    "events_after_pruning",
    "comment",
    "workload",
    "stats",
    "advice",	  /* written by skip advise; ignored here */
    "prediction", /* likewise */
    NULL,
};

static int task_ref(const struct skip_graph *g, const cJSON *item, const char *where)
{
	int t;

	if (!cJSON_IsString(item))
		return sk_fail(SKIP_E_INVAL, "plan: %s: a task name (string) expected", where);
	t = skip_graph_find_task(g, item->valuestring);
	if (t < 0)
		return sk_fail(SKIP_E_INVAL, "plan: %s: unknown task '%s'", where,
			       item->valuestring);
	return t;
}

static int get_int(const cJSON *root, const char *key, int lo, int hi, int *out)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(root, key);

	if (!it)
		return 0;
	/* the range first: (int) of a double beyond int is undefined */
	if (!cJSON_IsNumber(it) || !(it->valuedouble >= lo && it->valuedouble <= hi) ||
	    it->valuedouble != (double)(int)it->valuedouble)
		return sk_fail(SKIP_E_INVAL, "plan: \"%s\" must be a whole number from %d to %d",
			       key, lo, hi);
	*out = it->valueint;
	return 1;
}

static int parse_order(const struct skip_graph *g, const cJSON *arr, struct skip_plan *p)
{
	char where[48];
	int k = 0;
	const cJSON *it;

	if (!cJSON_IsArray(arr))
		return sk_fail(SKIP_E_INVAL, "plan: \"order\" must be an array of task names");
	if (cJSON_GetArraySize(arr) != g->ntasks)
		return sk_fail(SKIP_E_INVAL, "plan: \"order\" names %d tasks; the workload has %d",
			       cJSON_GetArraySize(arr), g->ntasks);
	cJSON_ArrayForEach(it, arr)
	{
		int t;

		snprintf(where, sizeof(where), "order[%d]", k);
		if ((t = task_ref(g, it, where)) < 0)
			return t;
		p->order[k++] = t;
	}
	return 0;
}

static int parse_assignment(const struct skip_graph *g, const cJSON *obj, struct skip_plan *p,
			    int nstreams)
{
	const cJSON *it;
	int *seen = calloc((size_t)g->ntasks + 1, sizeof(int)), err = 0, maxs = 0;

	if (!seen)
		return sk_fail(SKIP_E_NOMEM, "out of memory");
	if (!cJSON_IsObject(obj)) {
		free(seen);
		return sk_fail(SKIP_E_INVAL, "plan: \"assignment\" must map task names to streams");
	}
	cJSON_ArrayForEach(it, obj)
	{
		int t = skip_graph_find_task(g, it->string);

		if (t < 0) {
			err = sk_fail(SKIP_E_INVAL, "plan: assignment: unknown task '%s'",
				      it->string);
			break;
		}
		if (!cJSON_IsNumber(it) || it->valueint < 0 || it->valueint >= SK_MAX_STREAMS ||
		    it->valuedouble != (double)it->valueint) {
			err = sk_fail(SKIP_E_INVAL,
				      "plan: assignment: '%s': a stream number 0..%d expected",
				      it->string, SK_MAX_STREAMS - 1);
			break;
		}
		seen[t] = 1;
		p->stream[t] = it->valueint;
		maxs = it->valueint + 1 > maxs ? it->valueint + 1 : maxs;
	}
	for (int v = 0; v < g->ntasks && !err; v++)
		if (!seen[v])
			err = sk_fail(SKIP_E_INVAL, "plan: assignment: task '%s' has no stream",
				      g->tasks[v].name);
	free(seen);
	if (!err)
		p->nstreams = nstreams ? nstreams : maxs;
	return err;
}

static int parse_events(const struct skip_graph *g, const cJSON *arr, struct skip_plan *p)
{
	char where[64];
	const cJSON *it;
	int k = 0, n = cJSON_GetArraySize(arr);

	if (!cJSON_IsArray(arr))
		return sk_fail(SKIP_E_INVAL,
			       "plan: \"events\" must be an array of {\"from\", \"to\"}");
	p->events = calloc((size_t)n + 1, sizeof(*p->events));
	if (!p->events)
		return sk_fail(SKIP_E_NOMEM, "out of memory");
	cJSON_ArrayForEach(it, arr)
	{
		int a, b;

		snprintf(where, sizeof(where), "events[%d].from", k);
		if ((a = task_ref(g, cJSON_GetObjectItemCaseSensitive(it, "from"), where)) < 0)
			return a;
		snprintf(where, sizeof(where), "events[%d].to", k);
		if ((b = task_ref(g, cJSON_GetObjectItemCaseSensitive(it, "to"), where)) < 0)
			return b;
		p->events[k++] = (struct skip_plan_event){a, b};
	}
	p->nevents = n;
	return 0;
}

/* "durations_us": {"task": us, ...}, every task, each a finite number >= 0. */
static int parse_durations(const struct skip_graph *g, const cJSON *obj, struct skip_plan *p)
{
	const cJSON *it;
	int err = 0;

	if (!cJSON_IsObject(obj))
		return sk_fail(SKIP_E_INVAL, "plan: \"durations_us\" must map task names to "
					     "predicted times in us");
	free(p->durations_us);
	p->durations_us = malloc(sizeof(double) * ((size_t)g->ntasks + 1));
	if (!p->durations_us)
		return sk_fail(SKIP_E_NOMEM, "out of memory");
	for (int v = 0; v < g->ntasks; v++)
		p->durations_us[v] = -1;
	cJSON_ArrayForEach(it, obj)
	{
		int t = skip_graph_find_task(g, it->string);

		if (t < 0)
			return sk_fail(SKIP_E_INVAL, "plan: durations_us: unknown task '%s'",
				       it->string);
		/* the negated test also refuses NaN; 1e9 us bounds a task at 1000 s */
		if (!cJSON_IsNumber(it) || !(it->valuedouble >= 0 && it->valuedouble <= 1e9))
			return sk_fail(SKIP_E_INVAL,
				       "plan: durations_us: '%s': a time in us from 0 to 1e9 "
				       "expected",
				       it->string);
		p->durations_us[t] = it->valuedouble;
	}
	for (int v = 0; v < g->ntasks && !err; v++)
		if (p->durations_us[v] < 0)
			err = sk_fail(SKIP_E_INVAL, "plan: durations_us: task '%s' has no time",
				      g->tasks[v].name);
	return err;
}

static int write_order(const struct skip_graph *g, cJSON *root, const struct skip_plan *p);
static int write_assignment(const struct skip_graph *g, cJSON *root, const struct skip_plan *p);
static int write_events(const struct skip_graph *g, cJSON *root, const struct skip_plan *p);
static int write_durations(const struct skip_graph *g, cJSON *root, const struct skip_plan *p);

/* The members that are lists, in the order they are written. Reading them is apply()'s: an
 * assignment without events gets them computed. */
static const struct list_member {
	const char *key;
	enum skip_plan_field field;
	int (*write)(const struct skip_graph *g, cJSON *root, const struct skip_plan *p);
} lists[] = {
    {"order", SKIP_PLAN_ORDER, write_order},
    {"assignment", SKIP_PLAN_ASSIGNMENT, write_assignment},
    {"events", SKIP_PLAN_EVENTS, write_events},
    {"durations_us", SKIP_PLAN_DURATIONS, write_durations},
};
#define NLISTS (sizeof(lists) / sizeof(lists[0]))

static int known_key(const char *key)
{
	for (int i = 0; other_keys[i]; i++)
		if (!strcmp(key, other_keys[i]))
			return 1;
	for (const struct skip_plan_option *r = skip_plan_options; r->name; r++)
		if (!strcmp(key, r->name))
			return 1;
	for (size_t i = 0; i < NLISTS; i++)
		if (!strcmp(key, lists[i].key))
			return 1;
	return 0;
}

static int check_keys(const cJSON *root)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, root)
	{
		if (!known_key(it->string))
			return sk_fail(SKIP_E_INVAL, "plan: unknown member \"%s\"", it->string);
	}
	return 0;
}

/* The options' members into @o (whichever executor owns them: skip_plan_compute() takes those
 * of the plan's): the flags first, then the numbers, so a plan wrong in both is told of its
 * flag as before the options were a table. */
static int parse_options(const cJSON *root, struct skip_plan_opts *o)
{
	for (int numbers = 0; numbers < 2; numbers++)
		for (const struct skip_plan_option *r = skip_plan_options; r->name; r++) {
			const cJSON *it = cJSON_GetObjectItemCaseSensitive(root, r->name);
			int *v = (int *)((char *)o + r->opts_offset);

			if ((r->metavar != NULL) != numbers)
				continue;
			if (r->names && it) {
				if (!cJSON_IsString(it))
					return sk_fail(SKIP_E_INVAL, "plan: \"%s\" must be a name",
						       r->name);
				if (skip_plan_option_value(r, it->valuestring, v))
					return sk_fail(SKIP_E_INVAL, "plan: %s", skip_errmsg());
				continue;
			}
			if (r->metavar) {
				int got = get_int(root, r->name, r->min, r->max, v);

				if (got < 0)
					return SKIP_E_INVAL;
				if (got && !*v)
					*v = SKIP_PLAN_ZERO;
				continue;
			}
			if (it && !cJSON_IsBool(it))
				return sk_fail(SKIP_E_INVAL, "plan: \"%s\" must be true or false",
					       r->name);
			*v = cJSON_IsTrue(it);
		}
	return 0;
}

static int parse_header(const cJSON *root, struct skip_plan_opts *o)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "skip_plan");
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(root, "executor");
	char list[128];
	int x;

	if (!cJSON_IsObject(root))
		return sk_fail(SKIP_E_INVAL, "plan: not a JSON object");
	if (check_keys(root))
		return SKIP_E_INVAL;
	if (!cJSON_IsNumber(v) || v->valueint != SK_PLAN_VERSION)
		return sk_fail(SKIP_E_INVAL,
			       "plan: \"skip_plan\": %d (the format version) expected",
			       SK_PLAN_VERSION);
	if (!cJSON_IsString(e))
		return sk_fail(SKIP_E_INVAL, "plan: \"executor\" (%s) is missing",
			       sk_executor_list(list, sizeof(list), 0, "or"));
	if ((x = skip_executor_parse(e->valuestring)) < 0)
		return sk_fail(SKIP_E_INVAL, "plan: %s", skip_errmsg());
	o->executor = x;
	return parse_options(root, o);
}

/* A list member @p's executor does not own is refused, naming the executors that own it. */
static int foreign_lists(const cJSON *root, const struct skip_plan *p)
{
	unsigned fields = sk_plan_fields(p);
	char list[128];

	for (size_t i = 0; i < NLISTS; i++)
		if (!(fields & lists[i].field) &&
		    cJSON_GetObjectItemCaseSensitive(root, lists[i].key))
			return sk_fail(SKIP_E_INVAL,
				       "plan: \"%s\" applies to the %s executor%s only",
				       lists[i].key,
				       sk_executor_list(list, sizeof(list), lists[i].field, "and"),
				       strchr(list, ' ') ? "s" : "");
	return 0;
}

/* The parts a plan gives replace the computed ones; then the whole is validated. */
static int apply(const struct skip_graph *g, const cJSON *root, const struct skip_plan_opts *o,
		 struct skip_plan *p)
{
	const cJSON *order = cJSON_GetObjectItemCaseSensitive(root, "order");
	const cJSON *assign = cJSON_GetObjectItemCaseSensitive(root, "assignment");
	const cJSON *events = cJSON_GetObjectItemCaseSensitive(root, "events");
	const cJSON *durations = cJSON_GetObjectItemCaseSensitive(root, "durations_us");
	unsigned fields = sk_plan_fields(p);
	int err;

	if (order && (fields & SKIP_PLAN_ORDER) && (err = parse_order(g, order, p)))
		return err;
	if ((err = foreign_lists(root, p)))
		return err;
	if (assign && (err = parse_assignment(g, assign, p, o->nstreams)))
		return err;
	if (durations && (err = parse_durations(g, durations, p)))
		return err;
	if (events) {
		free(p->events);
		p->events = NULL;
		p->nevents = 0;
		p->events_unpruned = p->events_step_b = -1;
		if ((err = parse_events(g, events, p)))
			return err;
	} else if ((fields & SKIP_PLAN_EVENTS) && (assign || order)) {
		if ((err = sk_plan_check_layout(g, p)) || (err = sk_streams_events(g, p)))
			return err;
	}
	return skip_plan_validate(g, p);
}

int skip_plan_from_json(const struct skip_graph *g, const char *text, struct skip_plan **out)
{
	struct skip_plan_opts o = {0};
	struct skip_plan *p = NULL;
	cJSON *root = NULL;
	int err = skip_json_parse(text, NULL, &root);

	*out = NULL;
	if (err) /* "line 3, column 14: JSON syntax error near '...'" */
		return err == SKIP_E_INVAL ? sk_fail(err, "plan: %s", skip_errmsg()) : err;
	err = parse_header(root, &o);
	if (!err)
		err = skip_plan_compute(g, &o, &p);
	if (!err)
		err = apply(g, root, &o, p);
	cJSON_Delete(root);
	if (err) {
		skip_plan_free(p);
		return err;
	}
	*out = p;
	return 0;
}

/* ---- writing --------------------------------------------------------------------------------- */

static int write_order(const struct skip_graph *g, cJSON *root, const struct skip_plan *p)
{
	cJSON *order = cJSON_AddArrayToObject(root, "order");

	for (int k = 0; order && k < p->ntasks; k++)
		if (!cJSON_AddItemToArray(order, cJSON_CreateString(g->tasks[p->order[k]].name)))
			return SKIP_E_NOMEM;
	return order ? 0 : SKIP_E_NOMEM;
}

static int write_assignment(const struct skip_graph *g, cJSON *root, const struct skip_plan *p)
{
	cJSON *assign = cJSON_AddObjectToObject(root, "assignment");

	if (!assign)
		return SKIP_E_NOMEM;
	for (int v = 0; v < p->ntasks; v++)
		if (!cJSON_AddNumberToObject(assign, g->tasks[v].name, p->stream[v]))
			return SKIP_E_NOMEM;
	return 0;
}

static int write_events(const struct skip_graph *g, cJSON *root, const struct skip_plan *p)
{
	cJSON *events = cJSON_AddArrayToObject(root, "events");

	if (!events)
		return SKIP_E_NOMEM;
	for (int i = 0; i < p->nevents; i++) {
		cJSON *e = cJSON_CreateObject();

		if (!e || !cJSON_AddItemToArray(events, e) ||
		    !cJSON_AddStringToObject(e, "from", g->tasks[p->events[i].from].name) ||
		    !cJSON_AddStringToObject(e, "to", g->tasks[p->events[i].to].name))
			return SKIP_E_NOMEM;
	}
	if (p->events_unpruned >= 0 &&
	    (!cJSON_AddNumberToObject(root, "events_before_pruning", p->events_unpruned) ||
	     !cJSON_AddNumberToObject(root, "events_after_step_b", p->events_step_b)))
		return SKIP_E_NOMEM;
	return cJSON_AddNumberToObject(root, "events_after_pruning", p->nevents) ? 0 : SKIP_E_NOMEM;
}

/* Written only when the plan has them (a plan without them is still a persistent plan). */
static int write_durations(const struct skip_graph *g, cJSON *root, const struct skip_plan *p)
{
	cJSON *d;

	if (!p->durations_us)
		return 0;
	if (!(d = cJSON_AddObjectToObject(root, "durations_us")))
		return SKIP_E_NOMEM;
	for (int v = 0; v < p->ntasks; v++)
		if (!cJSON_AddNumberToObject(d, g->tasks[v].name, p->durations_us[v]))
			return SKIP_E_NOMEM;
	return 0;
}

/* The options @p's executor owns, as numbers or booleans. */
static int write_options(cJSON *root, const struct skip_plan *p)
{
	unsigned fields = sk_plan_fields(p);

	for (const struct skip_plan_option *r = skip_plan_options; r->name; r++) {
		int v = *(const int *)((const char *)p + r->plan_offset);

		if (!(fields & r->field))
			continue;
		if (r->metavar && !v && r->min) /* a number the device decides ("workers") */
			continue;
		if (r->names && v >= 1 && v <= r->max) {
			if (!cJSON_AddStringToObject(root, r->name, r->names[v - 1]))
				return SKIP_E_NOMEM;
			continue;
		}
		if (!(r->metavar ? cJSON_AddNumberToObject(root, r->name, v)
				 : cJSON_AddBoolToObject(root, r->name, v)))
			return SKIP_E_NOMEM;
	}
	return 0;
}

char *skip_plan_to_json(const struct skip_graph *g, const struct skip_plan *p)
{
	cJSON *root = cJSON_CreateObject();
	char *text = NULL;
	unsigned fields = sk_plan_fields(p);
	int err = root ? 0 : SKIP_E_NOMEM;

	if (!err && (!cJSON_AddNumberToObject(root, "skip_plan", SK_PLAN_VERSION) ||
		     !cJSON_AddStringToObject(root, "executor", skip_executor_name(p->executor))))
		err = SKIP_E_NOMEM;
	if (!err)
		err = write_options(root, p);
	for (size_t i = 0; i < NLISTS && !err; i++)
		if (fields & lists[i].field)
			err = lists[i].write(g, root, p);
	if (!err)
		text = cJSON_Print(root);
	cJSON_Delete(root);
	if (!text)
		sk_fail(SKIP_E_NOMEM, "out of memory");
	return text;
}
