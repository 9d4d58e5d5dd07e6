/*
 * workload.c: workload files (schemas/workload.schema.json), a task graph in JSON so that a
 * DAG runs without writing C: a CUDA module, integer parameters (with named size presets),
 * buffers with sizes and initial contents, and tasks with kernel, launch shape, arguments and
 * access sets. Any integer may be an expression over the parameters (expr.c). Unknown members
 * are errors, so that a typo does not silently change a benchmark; every message starts with
 * the file and the JSON path ("vec.json: tasks[2] (\"reduce\"): reads: unknown buffer 'z'").
 */
#define SK_LOG_DOMAIN "runtime"
#include <assert.h>
#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

#define SK_WORKLOAD_VERSION 1

struct skip_workload {
	char *path, *dir, *name;
	char *module;	/* "module" as the file gives it; NULL when --module replaced it */
	int module_env; /* $SKIP_MODULE_PATH was searched for it */
	struct skip_graph *g;
	struct sk_params params;
};

/* Context for messages: the file and the JSON path of what is being read. */
struct wctx {
	struct skip_workload *w;
	char where[160];
};

static int wfail(const struct wctx *c, const char *fmt, ...) SK_PRINTF(2, 3);
static int wfail(const struct wctx *c, const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return sk_fail(SKIP_E_INVAL, "%s: %s%s%s", c->w->path, c->where, *c->where ? ": " : "",
		       msg);
}

static int check_members(const struct wctx *c, const cJSON *obj, const char *const *keys)
{
	const cJSON *it;

	if (!cJSON_IsObject(obj))
		return wfail(c, "an object expected");
	cJSON_ArrayForEach(it, obj)
	{
		int ok = 0;

		for (int i = 0; keys[i] && !ok; i++)
			ok = !strcmp(it->string, keys[i]);
		if (!ok)
			return wfail(c, "unknown member \"%s\"", it->string);
	}
	return 0;
}

/* A whole number or an expression string; @what names it in messages. */
static int eval_int(const struct wctx *c, const cJSON *v, const char *what, int64_t *out)
{
	if (cJSON_IsNumber(v)) {
		/* -2^63 <= x < 2^63, tested before the cast (out of range it is undefined) */
		if (!(v->valuedouble >= -9223372036854775808.0 &&
		      v->valuedouble < 9223372036854775808.0))
			return wfail(c, "%s: %g is outside the 64-bit integers", what,
				     v->valuedouble);
		if (v->valuedouble != (double)(int64_t)v->valuedouble)
			return wfail(c, "%s: %g is not a whole number", what, v->valuedouble);
		*out = (int64_t)v->valuedouble;
		return 0;
	}
	if (cJSON_IsString(v)) {
		if (sk_expr_eval(v->valuestring, &c->w->params, out))
			return wfail(c, "%s: %s", what, skip_errmsg());
		return 0;
	}
	return wfail(c, "%s: a number or an expression string expected", what);
}

static int eval_range(const struct wctx *c, const cJSON *v, const char *what, int64_t lo,
		      int64_t hi, int64_t *out)
{
	int err = eval_int(c, v, what, out);

	if (!err && (*out < lo || *out > hi))
		return wfail(c, "%s = %lld is outside %lld..%lld", what, (long long)*out,
			     (long long)lo, (long long)hi);
	return err;
}

/* A float value: a JSON number, or an integer expression. */
static int eval_real(const struct wctx *c, const cJSON *v, const char *what, double *out)
{
	int64_t i;
	int err;

	if (cJSON_IsNumber(v)) {
		*out = v->valuedouble;
		return 0;
	}
	err = eval_int(c, v, what, &i);
	*out = (double)i;
	return err;
}

/* ---- params ---------------------------------------------------------------------------------- */

/*
 * A parameter's definition is its member of "params", replaced by the chosen size preset's,
 * replaced by a --set. The definitions are evaluated only then, each when first needed, so
 * that "M": "N*2" follows --size and --set N=... (and --set M=... replaces the expression).
 */
struct pdef {
	const char *name;   /* borrowed from the JSON tree */
	const cJSON *def;   /* a number or an expression string; NULL: @value (a --set) */
	int64_t value;	    /* the --set value */
	const char *origin; /* "params" or "sizes.NAME": where @def is, for messages */
	int state;	    /* 0 not evaluated, 1 waiting for the parameters it uses, 2 done */
};

struct pdefs {
	struct pdef *d;
	int n;
	char preset[96]; /* "sizes.NAME", the origin of the preset's definitions */
};

static struct pdef *find_def(const struct pdefs *ps, const char *name, size_t len)
{
	for (int i = 0; i < ps->n; i++)
		if (strlen(ps->d[i].name) == len && !strncmp(ps->d[i].name, name, len))
			return &ps->d[i];
	return NULL;
}

/* Evaluate @d. Returns 0 (done), 1 with *@wait the parameter its expression uses that is not
 * evaluated yet, or a negative code. */
static int eval_def(struct wctx *c, const struct pdefs *ps, struct pdef *d, struct pdef **wait)
{
	char what[96];
	int64_t v = d->value;
	int at;

	snprintf(c->where, sizeof(c->where), "%s", d->origin);
	snprintf(what, sizeof(what), "\"%s\"", d->name);
	if (cJSON_IsString(d->def)) {
		const char *text = d->def->valuestring;

		if (sk_expr_eval_at(text, &c->w->params, &v, &at)) {
			size_t len = 0;

			while (at >= 0 &&
			       (isalnum((unsigned char)text[at + len]) || text[at + len] == '_'))
				len++;
			*wait = at >= 0 ? find_def(ps, text + at, len) : NULL;
			if (*wait && (*wait)->state != 2)
				return 1;
			return wfail(c, "%s: %s", what, skip_errmsg());
		}
	} else if (d->def && eval_int(c, d->def, what, &v)) {
		return SKIP_E_INVAL;
	}
	d->state = 2;
	return sk_params_set(&c->w->params, d->name, v) ? SKIP_E_NOMEM : 0;
}

/* "a cycle: A -> B -> A": the top of @stack waits for @d, which is on the stack below it. */
static int cycle(struct wctx *c, struct pdef **stack, int sp, const struct pdef *d)
{
	struct sk_strbuf sb = {0};
	int k = sp - 1, err;

	while (k > 0 && stack[k] != d)
		k--;
	snprintf(c->where, sizeof(c->where), "%s", d->origin);
	for (int i = k; i < sp; i++)
		sk_strbuf_printf(&sb, "%s -> ", stack[i]->name);
	sk_strbuf_printf(&sb, "%s", d->name);
	err = sb.buf ? wfail(c, "\"%s\": a cycle: %s", d->name, sb.buf)
		     : sk_fail(SKIP_E_NOMEM, "out of memory");
	free(sb.buf);
	return err;
}

/* Evaluate every definition, in order, each parameter it uses first (depth first, on an
 * explicit stack: a chain of parameters cannot exhaust the C stack). */
static int eval_defs(struct wctx *c, struct pdefs *ps)
{
	struct pdef **stack = malloc((size_t)ps->n * sizeof(*stack) + 1);
	int err = stack ? 0 : sk_fail(SKIP_E_NOMEM, "out of memory");

	for (int i = 0; i < ps->n && !err; i++) {
		int sp = 0;

		if (ps->d[i].state)
			continue;
		ps->d[i].state = 1;
		stack[sp++] = &ps->d[i];
		while (sp && !err) {
			struct pdef *wait = NULL;
			int r = eval_def(c, ps, stack[sp - 1], &wait);

			if (r < 0)
				err = r;
			else if (r == 0)
				sp--;
			else if (wait->state == 1)
				err = cycle(c, stack, sp, wait);
			else {
				assert(sp < ps->n);
				wait->state = 1;
				stack[sp++] = wait;
			}
		}
	}
	free(stack);
	return err;
}

/* Every preset of "sizes" (chosen or not) is an object that names only parameters of
 * "params": a typo in one is an error, as it is for --set. */
static int check_sizes(struct wctx *c, const cJSON *params, const cJSON *sizes)
{
	const cJSON *preset, *it;

	snprintf(c->where, sizeof(c->where), "sizes");
	if (sizes && !cJSON_IsObject(sizes))
		return wfail(c, "an object of size presets expected");
	cJSON_ArrayForEach(preset, sizes)
	{
		snprintf(c->where, sizeof(c->where), "sizes.%s", preset->string);
		if (!cJSON_IsObject(preset))
			return wfail(c, "an object of NAME: value expected");
		cJSON_ArrayForEach(it, preset)
		{
			if (!cJSON_GetObjectItemCaseSensitive(params, it->string))
				return wfail(c,
					     "\"%s\" is not a parameter of this workload (see "
					     "\"params\")",
					     it->string);
		}
	}
	return 0;
}

/* The definitions of "params", then the preset's and the --set ones in their place. */
static int collect_defs(struct wctx *c, const cJSON *params, const cJSON *preset,
			const struct skip_param *over, int nover, struct pdefs *ps)
{
	const cJSON *it;

	ps->d = calloc((size_t)cJSON_GetArraySize(params) + 1, sizeof(*ps->d));
	if (!ps->d)
		return sk_fail(SKIP_E_NOMEM, "out of memory");
	cJSON_ArrayForEach(it, params)
	{
		struct pdef *d = find_def(ps, it->string, strlen(it->string));

		if (!d)
			d = &ps->d[ps->n++];
		*d = (struct pdef){.name = it->string, .def = it, .origin = "params"};
	}
	cJSON_ArrayForEach(it, preset)
	{
		struct pdef *d = find_def(ps, it->string, strlen(it->string));

		assert(d); /* check_sizes() */
		d->def = it;
		d->origin = ps->preset;
	}
	c->where[0] = '\0';
	for (int i = 0; i < nover; i++) {
		struct pdef *d =
		    over[i].name ? find_def(ps, over[i].name, strlen(over[i].name)) : NULL;

		if (!d)
			return wfail(c, "--set %s: the workload has no parameter \"%s\"",
				     over[i].name ? over[i].name : "",
				     over[i].name ? over[i].name : "");
		d->def = NULL;
		d->value = over[i].value;
		d->origin = "--set";
	}
	return 0;
}

static int load_params(struct wctx *c, const cJSON *root, const char *size,
		       const struct skip_param *over, int nover)
{
	const cJSON *params = cJSON_GetObjectItemCaseSensitive(root, "params");
	const cJSON *sizes = cJSON_GetObjectItemCaseSensitive(root, "sizes");
	const cJSON *preset = NULL;
	struct pdefs ps = {0};
	int err;

	snprintf(c->where, sizeof(c->where), "params");
	if (params && !cJSON_IsObject(params))
		return wfail(c, "an object of NAME: value expected");
	if ((err = check_sizes(c, params, sizes)))
		return err;
	if (size) {
		preset = cJSON_GetObjectItemCaseSensitive(sizes, size);
		snprintf(c->where, sizeof(c->where), "sizes");
		if (!preset)
			return wfail(c, "no size \"%s\" in this workload", size);
		snprintf(ps.preset, sizeof(ps.preset), "sizes.%s", size);
	}
	err = collect_defs(c, params, preset, over, nover, &ps);
	if (!err)
		err = eval_defs(c, &ps);
	free(ps.d);
	c->where[0] = '\0';
	return err;
}

/* ---- buffers --------------------------------------------------------------------------------- */

/* In the order of enum skip_dtype. */
static const char *const dtype_names[] = {"u8",	 "i32", "u32",	"i64", "u64",
					  "f32", "f64", "bf16", NULL};

static int parse_dtype(const struct wctx *c, const cJSON *v, enum skip_dtype *out)
{
	*out = SKIP_DT_U8;
	if (!v)
		return 0;
	for (int i = 0; cJSON_IsString(v) && dtype_names[i]; i++)
		if (!strcmp(v->valuestring, dtype_names[i])) {
			*out = (enum skip_dtype)i;
			return 0;
		}
	return wfail(c, "\"type\": one of u8, i32, u32, i64, u64, f32, f64, bf16 expected");
}

/* A path relative to the workload's folder. Caller frees. */
static char *relative_to(const struct skip_workload *w, const char *path)
{
	char *out;

	if (path[0] == '/' || !w->dir)
		return strdup(path);
	size_t n = strlen(w->dir) + strlen(path) + 2;

	out = malloc(n);
	if (out)
		snprintf(out, n, "%s/%s", w->dir, path);
	return out;
}

static int parse_random(const struct wctx *c, const cJSON *r, struct skip_buffer_init *in)
{
	static const char *const keys[] = {"seed", "min", "max", NULL};
	int64_t seed = 0;

	if (check_members(c, r, keys))
		return SKIP_E_INVAL;
	in->kind = SKIP_INIT_RANDOM;
	in->lo = 0;
	in->hi = 1;
	if (cJSON_GetObjectItemCaseSensitive(r, "seed") &&
	    eval_int(c, cJSON_GetObjectItemCaseSensitive(r, "seed"), "random.seed", &seed))
		return SKIP_E_INVAL;
	in->seed = (uint64_t)seed;
	if (cJSON_GetObjectItemCaseSensitive(r, "min") &&
	    eval_real(c, cJSON_GetObjectItemCaseSensitive(r, "min"), "random.min", &in->lo))
		return SKIP_E_INVAL;
	if (cJSON_GetObjectItemCaseSensitive(r, "max") &&
	    eval_real(c, cJSON_GetObjectItemCaseSensitive(r, "max"), "random.max", &in->hi))
		return SKIP_E_INVAL;
	if (!(in->lo < in->hi))
		return wfail(c, "random: min %g must be below max %g", in->lo, in->hi);
	return 0;
}

/* "zeros" | "none" | {"constant": x} | {"random": {...}} | {"file": "path"}; *path_out owned. */
static int parse_init(const struct wctx *c, const cJSON *v, struct skip_buffer_init *in,
		      char **path_out)
{
	static const char *const keys[] = {"constant", "random", "file", NULL};
	const cJSON *x;

	memset(in, 0, sizeof(*in));
	*path_out = NULL;
	if (!v || (cJSON_IsString(v) && !strcmp(v->valuestring, "none")))
		return 0;
	if (cJSON_IsString(v) && !strcmp(v->valuestring, "zeros")) {
		in->kind = SKIP_INIT_ZERO;
		return 0;
	}
	if (!cJSON_IsObject(v) || cJSON_GetArraySize(v) != 1 || check_members(c, v, keys))
		return wfail(c, "\"init\": \"zeros\", \"none\", {\"constant\": X}, {\"random\": "
				"{...}} or {\"file\": PATH} expected");
	if ((x = cJSON_GetObjectItemCaseSensitive(v, "constant"))) {
		in->kind = SKIP_INIT_CONST;
		return eval_real(c, x, "constant", &in->value);
	}
	if ((x = cJSON_GetObjectItemCaseSensitive(v, "random")))
		return parse_random(c, x, in);
	x = cJSON_GetObjectItemCaseSensitive(v, "file");
	if (!cJSON_IsString(x) || !*x->valuestring)
		return wfail(c, "\"file\": a path expected");
	in->kind = SKIP_INIT_FILE;
	*path_out = relative_to(c->w, x->valuestring);
	in->path = *path_out;
	return *path_out ? 0 : SKIP_E_NOMEM;
}

static int parse_tolerance(const struct wctx *c, const cJSON *v, int id)
{
	static const char *const keys[] = {"rtol", "atol", NULL};
	const cJSON *r = cJSON_GetObjectItemCaseSensitive(v, "rtol");
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(v, "atol");
	struct sk_buffer *b = &c->w->g->bufs[id];

	if (check_members(c, v, keys))
		return SKIP_E_INVAL;
	if ((r && !cJSON_IsNumber(r)) || (a && !cJSON_IsNumber(a)))
		return wfail(c, "tolerance: numbers expected");
	return skip_graph_set_tolerance(c->w->g, id, r ? r->valuedouble : b->rtol,
					a ? a->valuedouble : b->atol)
		   ? wfail(c, "%s", skip_errmsg())
		   : 0;
}

static int buffer_size(const struct wctx *c, const cJSON *b, enum skip_dtype dt, size_t *size)
{
	const cJSON *count = cJSON_GetObjectItemCaseSensitive(b, "count");
	const cJSON *bytes = cJSON_GetObjectItemCaseSensitive(b, "size");
	int64_t v;

	if (!count == !bytes)
		return wfail(c, "give either \"count\" (elements) or \"size\" (bytes)");
	if (eval_range(c, count ? count : bytes, count ? "count" : "size", 1, INT64_MAX / 8, &v))
		return SKIP_E_INVAL;
	*size = (size_t)v * (count ? sk_dtype_size(dt) : 1);
	return 0;
}

static int load_buffer(struct wctx *c, const cJSON *b)
{
	static const char *const keys[] = {"name", "type",	"count",   "size",
					   "init", "tolerance", "comment", NULL};
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(b, "name");
	const cJSON *tol = cJSON_GetObjectItemCaseSensitive(b, "tolerance");
	struct skip_buffer_init init;
	enum skip_dtype dt;
	char *path = NULL;
	size_t size = 0;
	int id;

	if (check_members(c, b, keys))
		return SKIP_E_INVAL;
	if (!cJSON_IsString(name) || !*name->valuestring)
		return wfail(c, "\"name\" (a string) is missing");
	if (parse_dtype(c, cJSON_GetObjectItemCaseSensitive(b, "type"), &dt) ||
	    buffer_size(c, b, dt, &size) ||
	    parse_init(c, cJSON_GetObjectItemCaseSensitive(b, "init"), &init, &path))
		return SKIP_E_INVAL;
	id = skip_graph_add_buffer(c->w->g, name->valuestring, size, dt, &init);
	free(path);
	if (id < 0)
		return wfail(c, "%s", skip_errmsg());
	return tol ? parse_tolerance(c, tol, id) : 0;
}

static int load_buffers(struct wctx *c, const cJSON *arr)
{
	const cJSON *b;
	int i = 0;

	snprintf(c->where, sizeof(c->where), "buffers");
	if (!cJSON_IsArray(arr) || !cJSON_GetArraySize(arr))
		return wfail(c, "a non-empty array expected");
	cJSON_ArrayForEach(b, arr)
	{
		const cJSON *n = cJSON_GetObjectItemCaseSensitive(b, "name");

		snprintf(c->where, sizeof(c->where), "buffers[%d]%s%s%s", i++,
			 cJSON_IsString(n) ? " (\"" : "", cJSON_IsString(n) ? n->valuestring : "",
			 cJSON_IsString(n) ? "\")" : "");
		if (load_buffer(c, b))
			return SKIP_E_INVAL;
	}
	return 0;
}

/* ---- tasks ----------------------------------------------------------------------------------- */

#define SK_MAX_TASK_ARGS   64
#define SK_MAX_TASK_ACCESS 64

/* Storage for one task's arguments while it is added (skip_graph_add_task copies them). */
struct task_build {
	struct skip_task_desc d;
	struct skip_arg args[SK_MAX_TASK_ARGS];
	union {
		int32_t i32;
		uint32_t u32;
		int64_t i64;
		float f32;
		double f64;
	} vals[SK_MAX_TASK_ARGS];
	struct skip_access acc[SK_MAX_TASK_ACCESS];
};

static int parse_dims(const struct wctx *c, const cJSON *v, const char *what, unsigned dims[3])
{
	static const int64_t max[3] = {2147483647, 65535, 65535};
	int n = cJSON_IsArray(v) ? cJSON_GetArraySize(v) : 1;

	dims[0] = dims[1] = dims[2] = 1;
	if (!v)
		return wfail(c, "\"%s\" is missing", what);
	if (n < 1 || n > 3)
		return wfail(c, "\"%s\": 1 to 3 dimensions expected", what);
	for (int i = 0; i < n; i++) {
		int64_t d;

		if (eval_range(c, cJSON_IsArray(v) ? cJSON_GetArrayItem(v, i) : v, what, 1, max[i],
			       &d))
			return SKIP_E_INVAL;
		dims[i] = (unsigned)d;
	}
	return 0;
}

static int buffer_ref(const struct wctx *c, const cJSON *v, const char *what)
{
	int id;

	if (!cJSON_IsString(v))
		return wfail(c, "%s: a buffer name expected", what);
	id = skip_graph_find_buffer(c->w->g, v->valuestring);
	return id >= 0 ? id : wfail(c, "%s: unknown buffer '%s'", what, v->valuestring);
}

static int parse_arg(const struct wctx *c, const cJSON *a, int i, struct task_build *tb)
{
	static const char *const kinds[] = {"i32", "u32", "i64", "u64", "f32", "f64", NULL};
	static const size_t sizes[] = {4, 4, 8, 8, 4, 8};
	/* the integer kinds' ranges (u64: what a 64-bit signed expression reaches) */
	static const int64_t lo[] = {INT32_MIN, 0, INT64_MIN, 0};
	static const int64_t hi[] = {INT32_MAX, UINT32_MAX, INT64_MAX, INT64_MAX};
	struct skip_arg *o = &tb->args[i];
	const cJSON *buf = cJSON_GetObjectItemCaseSensitive(a, "buffer");
	char what[32];
	int64_t iv = 0;
	double fv = 0;

	snprintf(what, sizeof(what), "args[%d]", i);
	if (!cJSON_IsObject(a) || cJSON_GetArraySize(a) < 1)
		return wfail(c,
			     "%s: {\"buffer\": NAME} or "
			     "{\"i32\"|\"u32\"|\"i64\"|\"u64\"|\"f32\"|\"f64\": VALUE} expected",
			     what);
	if (buf) {
		const cJSON *off = cJSON_GetObjectItemCaseSensitive(a, "offset");
		int id = buffer_ref(c, buf, what);

		if (id < 0 || (off && eval_range(c, off, what, 0, INT64_MAX, &iv)))
			return SKIP_E_INVAL;
		*o = (struct skip_arg){.kind = SKIP_ARG_BUFFER, .buffer = id, .offset = (size_t)iv};
		return cJSON_GetArraySize(a) == 1 + (off != NULL)
			   ? 0
			   : wfail(c, "%s: only \"buffer\" and \"offset\" go together", what);
	}
	for (int k = 0; kinds[k]; k++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(a, kinds[k]);

		if (!v)
			continue;
		if (cJSON_GetArraySize(a) != 1)
			return wfail(c, "%s: one value per argument", what);
		snprintf(what, sizeof(what), "args[%d] (%s)", i, kinds[k]);
		if (k < 4 ? eval_range(c, v, what, lo[k], hi[k], &iv) : eval_real(c, v, what, &fv))
			return SKIP_E_INVAL;
		if (k == 0)
			tb->vals[i].i32 = (int32_t)iv;
		else if (k == 1)
			tb->vals[i].u32 = (uint32_t)iv;
		else if (k < 4)
			tb->vals[i].i64 = iv;
		else if (k == 4)
			tb->vals[i].f32 = (float)fv;
		else
			tb->vals[i].f64 = fv;
		*o = (struct skip_arg){
		    .kind = SKIP_ARG_VALUE, .value = &tb->vals[i], .size = sizes[k]};
		return 0;
	}
	return wfail(c, "%s: unknown argument kind \"%s\"", what, a->child->string);
}

static int parse_access_list(const struct wctx *c, const cJSON *arr, unsigned mode,
			     const char *what, struct task_build *tb)
{
	const cJSON *it;

	if (!arr)
		return 0;
	if (!cJSON_IsArray(arr))
		return wfail(c,
			     "\"%s\": an array of buffer names or {\"buffer\", \"offset\", "
			     "\"size\"} expected",
			     what);
	cJSON_ArrayForEach(it, arr)
	{
		static const char *const keys[] = {"buffer", "offset", "size", NULL};
		struct skip_access *a = &tb->acc[tb->d.naccess];
		int64_t off = 0, size = 0;
		int id;

		if (tb->d.naccess == SK_MAX_TASK_ACCESS)
			return wfail(c, "at most %d reads and writes per task", SK_MAX_TASK_ACCESS);
		if (cJSON_IsObject(it)) {
			const cJSON *o = cJSON_GetObjectItemCaseSensitive(it, "offset");
			const cJSON *s = cJSON_GetObjectItemCaseSensitive(it, "size");

			if (check_members(c, it, keys) ||
			    (id = buffer_ref(c, cJSON_GetObjectItemCaseSensitive(it, "buffer"),
					     what)) < 0 ||
			    (o && eval_range(c, o, what, 0, INT64_MAX, &off)) ||
			    (s && eval_range(c, s, what, 1, INT64_MAX, &size)))
				return SKIP_E_INVAL;
		} else if ((id = buffer_ref(c, it, what)) < 0) {
			return SKIP_E_INVAL;
		}
		*a = (struct skip_access){id, (size_t)off, (size_t)size, mode};
		tb->d.naccess++;
	}
	return 0;
}

/* Without "reads" and "writes", every buffer argument is taken as read and written. */
static void default_access(struct task_build *tb)
{
	for (int i = 0; i < tb->d.nargs && tb->d.naccess < SK_MAX_TASK_ACCESS; i++)
		if (tb->args[i].kind == SKIP_ARG_BUFFER)
			tb->acc[tb->d.naccess++] =
			    (struct skip_access){tb->args[i].buffer, 0, 0, SKIP_READ_WRITE};
}

static int parse_task_body(const struct wctx *c, const cJSON *t, struct task_build *tb)
{
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(t, "args");
	const cJSON *reads = cJSON_GetObjectItemCaseSensitive(t, "reads");
	const cJSON *writes = cJSON_GetObjectItemCaseSensitive(t, "writes");
	const cJSON *shared = cJSON_GetObjectItemCaseSensitive(t, "shared");
	const cJSON *pdl = cJSON_GetObjectItemCaseSensitive(t, "pdl");
	const cJSON *a;
	int64_t sh = 0;

	if (parse_dims(c, cJSON_GetObjectItemCaseSensitive(t, "grid"), "grid", tb->d.grid) ||
	    parse_dims(c, cJSON_GetObjectItemCaseSensitive(t, "block"), "block", tb->d.block) ||
	    (shared && eval_range(c, shared, "shared", 0, 232448, &sh)))
		return SKIP_E_INVAL;
	tb->d.shared_bytes = (unsigned)sh;
	if (pdl && !cJSON_IsBool(pdl))
		return wfail(c, "\"pdl\": true or false expected");
	tb->d.flags = cJSON_IsTrue(pdl) ? SKIP_TASK_PDL : 0;
	if (args && !cJSON_IsArray(args))
		return wfail(c, "\"args\": an array expected");
	if (cJSON_GetArraySize(args) > SK_MAX_TASK_ARGS)
		return wfail(c, "at most %d arguments", SK_MAX_TASK_ARGS);
	cJSON_ArrayForEach(a, args)
	{
		if (parse_arg(c, a, tb->d.nargs++, tb))
			return SKIP_E_INVAL;
	}
	tb->d.args = tb->args;
	tb->d.access = tb->acc;
	if (parse_access_list(c, reads, SKIP_READ, "reads", tb) ||
	    parse_access_list(c, writes, SKIP_WRITE, "writes", tb))
		return SKIP_E_INVAL;
	if (!reads && !writes)
		default_access(tb);
	return 0;
}

static int load_task(struct wctx *c, const cJSON *t)
{
	static const char *const keys[] = {"name",	 "kernel",  "grid",   "block", "shared",
					   "args",	 "reads",   "writes", "after", "pdl",
					   "tile_edges", "comment", NULL};
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(t, "name");
	const cJSON *kernel = cJSON_GetObjectItemCaseSensitive(t, "kernel");
	struct task_build *tb;
	int id;

	if (check_members(c, t, keys))
		return SKIP_E_INVAL;
	if (!cJSON_IsString(name) || !*name->valuestring)
		return wfail(c, "\"name\" (a string) is missing");
	if (!cJSON_IsString(kernel) || !*kernel->valuestring)
		return wfail(c, "\"kernel\" (the function's name in the module) is missing");
	tb = calloc(1, sizeof(*tb));
	if (!tb)
		return sk_fail(SKIP_E_NOMEM, "out of memory");
	tb->d.name = name->valuestring;
	tb->d.kernel = (struct skip_kernel){
	    .kind = SKIP_KERNEL_MODULE, .module = 0, .name = kernel->valuestring};
	id = parse_task_body(c, t, tb);
	if (!id && (id = skip_graph_add_task(c->w->g, &tb->d)) < 0)
		wfail(c, "%s", skip_errmsg());
	free(tb);
	return id < 0 ? SKIP_E_INVAL : 0;
}

static int load_after(struct wctx *c, const cJSON *t, int id)
{
	const cJSON *after = cJSON_GetObjectItemCaseSensitive(t, "after"), *it;

	if (!after)
		return 0;
	if (!cJSON_IsArray(after))
		return wfail(c, "\"after\": an array of task names expected");
	cJSON_ArrayForEach(it, after)
	{
		int from = cJSON_IsString(it) ? skip_graph_find_task(c->w->g, it->valuestring) : -1;

		if (from < 0)
			return wfail(c, "after: unknown task '%s'",
				     cJSON_IsString(it) ? it->valuestring : "(not a string)");
		if (skip_graph_add_edge(c->w->g, from, id))
			return wfail(c, "after: %s", skip_errmsg());
	}
	return 0;
}

/* One entry of "tile_edges": {"from": TASK, "policy": "tile"} or {"from": TASK, "policy":
 * "row", "rows": EXPR}; the task must depend on TASK (its "after" edges are in by now: they are
 * the only explicit edges into it). */
static int load_tile_edge(struct wctx *c, const cJSON *x, int id)
{
	static const char *const keys[] = {"from", "policy", "rows", NULL};
	const cJSON *from = cJSON_GetObjectItemCaseSensitive(x, "from");
	const cJSON *policy = cJSON_GetObjectItemCaseSensitive(x, "policy");
	const cJSON *rows = cJSON_GetObjectItemCaseSensitive(x, "rows");
	struct skip_tile_edge e = {.to = id};
	int64_t r = 0;

	if (check_members(c, x, keys))
		return SKIP_E_INVAL;
	if (!cJSON_IsString(from))
		return wfail(c, "\"from\" (a task name) is missing");
	if ((e.from = skip_graph_find_task(c->w->g, from->valuestring)) < 0)
		return wfail(c, "from: unknown task '%s'", from->valuestring);
	if (cJSON_IsString(policy) && !strcmp(policy->valuestring, "tile"))
		e.policy = SKIP_TILE_TILE;
	else if (cJSON_IsString(policy) && !strcmp(policy->valuestring, "row"))
		e.policy = SKIP_TILE_ROW;
	else
		return wfail(c, "\"policy\": \"tile\" or \"row\" expected");
	if (e.policy == SKIP_TILE_ROW && !rows)
		return wfail(c, "policy \"row\" needs \"rows\" (the row blocks of both tasks)");
	if (e.policy == SKIP_TILE_TILE && rows)
		return wfail(c, "\"rows\" goes with policy \"row\" only");
	if (rows && eval_range(c, rows, "rows", 1, INT32_MAX, &r))
		return SKIP_E_INVAL;
	e.rows = (int)r;
	if (skip_graph_add_tile_edge(c->w->g, &e) || sk_tile_edge_check(c->w->g, &e))
		return wfail(c, "%s", skip_errmsg());
	return 0;
}

static int load_tile_edges(struct wctx *c, const cJSON *t, int id)
{
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(t, "tile_edges"), *it;
	size_t len = strlen(c->where);
	int i = 0;

	if (!arr)
		return 0;
	if (!cJSON_IsArray(arr))
		return wfail(c, "\"tile_edges\": an array of {\"from\", \"policy\"[, \"rows\"]} "
				"expected");
	cJSON_ArrayForEach(it, arr)
	{
		int err;

		snprintf(c->where + len, sizeof(c->where) - len, ": tile_edges[%d]", i++);
		err = load_tile_edge(c, it, id);
		c->where[len] = '\0';
		if (err)
			return err;
	}
	return 0;
}

static int load_tasks(struct wctx *c, const cJSON *arr)
{
	const cJSON *t;
	int i = 0;

	snprintf(c->where, sizeof(c->where), "tasks");
	if (!cJSON_IsArray(arr) || !cJSON_GetArraySize(arr))
		return wfail(c, "a non-empty array expected");
	for (int pass = 0; pass < 2; pass++) { /* tasks first, then edges by name */
		i = 0;
		cJSON_ArrayForEach(t, arr)
		{
			const cJSON *n = cJSON_GetObjectItemCaseSensitive(t, "name");

			snprintf(c->where, sizeof(c->where), "tasks[%d]%s%s%s", i,
				 cJSON_IsString(n) ? " (\"" : "",
				 cJSON_IsString(n) ? n->valuestring : "",
				 cJSON_IsString(n) ? "\")" : "");
			if (pass == 0 ? load_task(c, t)
				      : load_after(c, t, i) || load_tile_edges(c, t, i))
				return SKIP_E_INVAL;
			i++;
		}
	}
	return 0;
}

/* ---- the file -------------------------------------------------------------------------------- */

static int file_exists(const char *path)
{
	return access(path, R_OK) == 0;
}

/* The workload's folder first, then each folder of $SKIP_MODULE_PATH; if none has it, the
 * path next to the workload (loading then says it is missing). */
static int resolve_module(struct wctx *c, const char *name, const char *forced)
{
	const char *sp = getenv("SKIP_MODULE_PATH");
	char *path = forced ? strdup(forced) : relative_to(c->w, name), buf[PATH_MAX];
	int id;

	if (!forced && !(c->w->module = strdup(name))) {
		free(path);
		return sk_fail(SKIP_E_NOMEM, "out of memory");
	}
	c->w->module_env = !forced && name[0] != '/' && sp && *sp;
	while (!forced && path && !file_exists(path) && name[0] != '/' && sp && *sp) {
		const char *end = strchr(sp, ':');
		size_t len = end ? (size_t)(end - sp) : strlen(sp);

		if (len &&
		    snprintf(buf, sizeof(buf), "%.*s/%s", (int)len, sp, name) < (int)sizeof(buf) &&
		    file_exists(buf)) {
			free(path);
			path = strdup(buf);
			break;
		}
		sp = end ? end + 1 : "";
	}
	if (!path)
		return sk_fail(SKIP_E_NOMEM, "out of memory");
	id = skip_graph_add_module(c->w->g, path);
	free(path);
	return id < 0 ? id : 0;
}

static int load_root(struct wctx *c, const cJSON *root, const char *size,
		     const struct skip_param *over, int nover, const char *module)
{
	static const char *const keys[] = {"skip_workload", "name",  "description", "module",
					   "params",	    "sizes", "buffers",	    "tasks",
					   "comment",	    NULL};
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "skip_workload");
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(root, "name");
	const cJSON *mod = cJSON_GetObjectItemCaseSensitive(root, "module");
	int err;

	if (check_members(c, root, keys))
		return SKIP_E_INVAL;
	if (!cJSON_IsNumber(v) || v->valueint != SK_WORKLOAD_VERSION)
		return wfail(c, "\"skip_workload\": %d (the format version) expected",
			     SK_WORKLOAD_VERSION);
	if (!cJSON_IsString(mod) || !*mod->valuestring)
		return wfail(c, "\"module\" (a cubin, fatbin or PTX file) is missing");
	if (name && !cJSON_IsString(name))
		return wfail(c, "\"name\": a string expected");
	c->w->name = strdup(cJSON_IsString(name) ? name->valuestring : "workload");
	if (!c->w->name)
		return sk_fail(SKIP_E_NOMEM, "out of memory");
	if ((err = resolve_module(c, mod->valuestring, module)) ||
	    (err = load_params(c, root, size, over, nover)) ||
	    (err = load_buffers(c, cJSON_GetObjectItemCaseSensitive(root, "buffers"))) ||
	    (err = load_tasks(c, cJSON_GetObjectItemCaseSensitive(root, "tasks"))))
		return err;
	c->where[0] = '\0';
	return skip_graph_finalize(c->w->g) ? wfail(c, "%s", skip_errmsg()) : 0;
}

static struct skip_workload *workload_new(const char *path, int *err)
{
	struct skip_workload *w = calloc(1, sizeof(*w));
	char *tmp = strdup(path);

	if (w && tmp) {
		w->path = strdup(path);
		w->dir = strdup(dirname(tmp));
		w->g = skip_graph_new(err);
	}
	free(tmp);
	if (!w || !w->path || !w->dir || !w->g) {
		skip_workload_free(w);
		*err = sk_fail(SKIP_E_NOMEM, "out of memory");
		return NULL;
	}
	return w;
}

struct skip_workload *skip_workload_load(const char *path, const char *size,
					 const struct skip_param *params, int nparams,
					 const char *module, int *err)
{
	struct wctx c = {0};
	cJSON *root = NULL;

	*err = skip_json_load(path, &root);
	if (*err)
		return NULL;
	c.w = workload_new(path, err);
	if (c.w)
		*err = load_root(&c, root, size, params, nparams, module);
	cJSON_Delete(root);
	if (*err) {
		skip_workload_free(c.w);
		return NULL;
	}
	return c.w;
}

/* ---- the files a run needs ------------------------------------------------------------------ */

/* 0 when @path is a readable file of at least @need bytes (a device or FIFO: readable), or
 * the reason it is not, in @why. */
static int check_file(const char *path, size_t need, char *why, size_t len)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK), err = 0; /* a FIFO: no wait */

	if (fd < 0 || fstat(fd, &st)) {
		err = errno == ENOENT ? SKIP_E_NOTFOUND : SKIP_E_IO;
		snprintf(why, len, "%s", strerror(errno));
	} else if (S_ISDIR(st.st_mode)) {
		err = SKIP_E_IO;
		snprintf(why, len, "%s", strerror(EISDIR));
	} else if (S_ISREG(st.st_mode) && (size_t)st.st_size < need) {
		err = SKIP_E_IO;
		snprintf(why, len, "has %lld bytes, %zu needed", (long long)st.st_size, need);
	}
	if (fd >= 0)
		close(fd);
	return err;
}

static int check_module(const struct skip_workload *w)
{
	const struct skip_graph *g = w->g;
	const char *path, *hint = "";
	char why[160], uses[160];
	int err;

	assert(g->nmodules == 1 && g->ntasks > 0); /* load_root(): one module, some tasks */
	path = g->modules[0];
	if (!(err = check_file(path, 0, why, sizeof(why))))
		return 0;
	snprintf(uses, sizeof(uses), "tasks[0] (\"%s\")", g->tasks[0].name);
	if (g->ntasks > 1)
		snprintf(uses + strlen(uses), sizeof(uses) - strlen(uses), " and %d more",
			 g->ntasks - 1);
	if (!w->module)
		return sk_fail(err, "%s: --module %s, needed by %s: %s", w->path, path, uses, why);
	if (err == SKIP_E_NOTFOUND)
		hint = w->module_env
			   ? " (not next to the workload, nor in $SKIP_MODULE_PATH: build "
			     "it, or point SKIP_MODULE_PATH or --module at it)"
			   : " (build it, or point SKIP_MODULE_PATH or --module at it)";
	return sk_fail(err, "%s: module %s, needed by %s: %s: %s%s", w->path, w->module, uses, path,
		       why, hint);
}

int skip_workload_check_files(const struct skip_workload *w)
{
	const struct skip_graph *g = w ? w->g : NULL;
	int err;

	if (!g)
		return sk_fail(SKIP_E_INVAL, "no workload");
	if ((err = check_module(w)))
		return err;
	for (int i = 0; i < g->nbufs; i++) {
		const struct sk_buffer *b = &g->bufs[i];
		const char *given;
		size_t dl = strlen(w->dir);
		char why[160];

		if (b->init.kind != SKIP_INIT_FILE ||
		    !(err = check_file(b->init.path, b->size, why, sizeof(why))))
			continue;
		/* the path as the file gives it: relative_to() put the workload's folder before */
		given = b->init.path;
		if (!strncmp(given, w->dir, dl) && given[dl] == '/')
			given += dl + 1;
		/* buffers are added one per entry of "buffers", in order: id i is buffers[i] */
		return sk_fail(err, "%s: buffers[%d] (\"%s\"): init file %s: %s%s%s", w->path, i,
			       b->name, given, given != b->init.path ? b->init.path : "",
			       given != b->init.path ? ": " : "", why);
	}
	return 0;
}

void skip_workload_free(struct skip_workload *w)
{
	if (!w)
		return;
	skip_graph_free(w->g);
	sk_params_fini(&w->params);
	free(w->module);
	free(w->path);
	free(w->dir);
	free(w->name);
	free(w);
}

struct skip_graph *skip_workload_graph(struct skip_workload *w)
{
	return w ? w->g : NULL;
}

const char *skip_workload_name(const struct skip_workload *w)
{
	return w ? w->name : NULL;
}

int64_t skip_workload_param(const struct skip_workload *w, const char *name, int64_t dflt)
{
	const int64_t *v = w ? sk_params_find(&w->params, name) : NULL;

	return v ? *v : dflt;
}
