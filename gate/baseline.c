/*
 * baseline.c: baseline files (schemas/baseline.schema.json), what `skip gate --save-baseline`
 * keeps of a trace: the per-run values every gated metric needs, per case, with the GPU, the
 * driver, the skip versions and the command line. Written one run or name per line, so that a
 * baseline kept in git diffs well; read back through the schema (embedded at build time from
 * schemas/baseline.schema.json), so that a damaged or foreign file is refused with the JSON
 * path of the first problem, and a file of another format version with what to do.
 */
#define SK_LOG_DOMAIN "gate"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "internal.h"

/* ---- writing --------------------------------------------------------------------------------- */

static cJSON *metrics_obj(const double *v)
{
	cJSON *o = cJSON_CreateObject();

	for (int m = 0; m < SKIP_M_COUNT; m++)
		if (isfinite(v[m]))
			cJSON_AddNumberToObject(o, skip_metric_name((enum skip_metric_id)m), v[m]);
	return o;
}

static cJSON *run_obj(const struct skip_gate_run *r)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "run_id", (double)r->run_id);
	cJSON_AddNumberToObject(o, "regions", r->regions);
	cJSON_AddNumberToObject(o, "empty", r->empty);
	cJSON_AddItemToObject(o, "median", metrics_obj(r->median));
	cJSON_AddItemToObject(o, "mean", metrics_obj(r->mean));
	return o;
}

static cJSON *ints(const int64_t *v, size_t n)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; i < n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber((double)v[i]));
	return a;
}

static cJSON *name_obj(const struct skip_gate_name *e, size_t nruns)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "name", e->name);
	cJSON_AddItemToObject(o, "count", ints(e->count, nruns));
	cJSON_AddItemToObject(o, "total_ns", ints(e->total_ns, nruns));
	cJSON_AddItemToObject(o, "launch_ns", ints(e->launch_ns, nruns));
	return o;
}

/* Append @item, printed on one line, then free it. */
static void put(struct sk_strbuf *sb, const char *indent, cJSON *item, const char *after)
{
	char *s = cJSON_PrintUnformatted(item);

	sk_strbuf_printf(sb, "%s%s%s\n", indent, s ? s : "null", after);
	free(s);
	cJSON_Delete(item);
}

static void put_member(struct sk_strbuf *sb, const char *key, cJSON *item)
{
	sk_strbuf_printf(sb, "  \"%s\": ", key); /* keys are ours: no escaping needed */
	put(sb, "", item, ",");
}

static void put_names(struct sk_strbuf *sb, const char *key, const struct skip_gate_name *v,
		      size_t n, size_t nruns, const char *after)
{
	sk_strbuf_printf(sb, "      \"%s\": [%s", key, n ? "\n" : "");
	for (size_t i = 0; i < n; i++)
		put(sb, "        ", name_obj(&v[i], nruns), i + 1 < n ? "," : "");
	sk_strbuf_printf(sb, "%s]%s\n", n ? "      " : "", after);
}

static void put_case(struct sk_strbuf *sb, const struct skip_gate_case *c, int last)
{
	cJSON *k = cJSON_CreateString(c->key), *cmd = cJSON_CreateString(c->command);
	char *ks = cJSON_PrintUnformatted(k), *cs = cJSON_PrintUnformatted(cmd);

	sk_strbuf_printf(sb,
			 "    {\n      \"key\": %s,\n      \"command\": %s,\n      \"runs\": [\n",
			 ks ? ks : "\"\"", cs ? cs : "\"\"");
	for (size_t i = 0; i < c->nruns; i++)
		put(sb, "        ", run_obj(&c->runs[i]), i + 1 < c->nruns ? "," : "");
	sk_strbuf_printf(sb, "      ],\n");
	put_names(sb, "kernels", c->kernels, c->nkernels, c->nruns, ",");
	put_names(sb, "operators", c->ops, c->nops, c->nruns, "");
	sk_strbuf_printf(sb, "    }%s\n", last ? "" : ",");
	free(ks);
	free(cs);
	cJSON_Delete(k);
	cJSON_Delete(cmd);
}

char *skip_gate_baseline_json(const struct skip_gate_side *s, const char *created_by)
{
	struct sk_strbuf sb = {0};
	cJSON *notes = cJSON_CreateArray();

	sk_strbuf_printf(&sb, "{\n  \"skip_baseline\": %d,\n", SKIP_BASELINE_VERSION);
	put_member(&sb, "skip_version", cJSON_CreateString(SKIP_VERSION));
	put_member(&sb, "trace_skip_version", cJSON_CreateString(s->skip_version));
	if (created_by)
		put_member(&sb, "created_by", cJSON_CreateString(created_by));
	put_member(&sb, "source", cJSON_CreateString(s->path));
	put_member(&sb, "gpu", cJSON_CreateString(s->gpu));
	put_member(&sb, "driver", cJSON_CreateString(s->driver));
	put_member(&sb, "region", s->region ? cJSON_CreateString(s->region) : cJSON_CreateNull());
	put_member(&sb, "dropped", cJSON_CreateNumber((double)s->dropped));
	for (size_t i = 0; i < s->nnotes; i++)
		cJSON_AddItemToArray(notes, cJSON_CreateString(s->notes[i]));
	put_member(&sb, "notes", notes);
	sk_strbuf_printf(&sb, "  \"cases\": [\n");
	for (size_t i = 0; i < s->ncases; i++)
		put_case(&sb, &s->cases[i], i + 1 == s->ncases);
	if (sk_strbuf_printf(&sb, "  ]\n}\n")) {
		free(sb.buf);
		return NULL;
	}
	return sb.buf;
}

/* ---- reading --------------------------------------------------------------------------------- */

static const char *str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : "";
}

static double num(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static void read_run(const cJSON *o, struct skip_gate_run *r)
{
	const cJSON *med = cJSON_GetObjectItemCaseSensitive(o, "median");
	const cJSON *mean = cJSON_GetObjectItemCaseSensitive(o, "mean");

	r->run_id = (int64_t)num(o, "run_id");
	r->regions = (int)num(o, "regions");
	r->empty = (int)num(o, "empty");
	for (int m = 0; m < SKIP_M_COUNT; m++) {
		r->median[m] = num(med, skip_metric_name((enum skip_metric_id)m));
		r->mean[m] = num(mean, skip_metric_name((enum skip_metric_id)m));
	}
}

static int read_ints(const cJSON *a, size_t nruns, int64_t **out, const char *name,
		     const char *what, size_t ci, size_t ni, const char *member)
{
	const cJSON *e;
	size_t i = 0;

	if ((size_t)cJSON_GetArraySize(a) != nruns)
		return sk_fail(SKIP_E_INVAL, "%s: $.cases[%zu].%s[%zu].%s: %d values for %zu runs",
			       name, ci, what, ni, member, cJSON_GetArraySize(a), nruns);
	*out = sk_xcalloc(nruns + 1, sizeof(int64_t));
	cJSON_ArrayForEach(e, a)(*out)[i++] = (int64_t)e->valuedouble;
	return 0;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(((const struct skip_gate_name *)a)->name,
		      ((const struct skip_gate_name *)b)->name);
}

static int read_names(const cJSON *a, size_t nruns, const char *name, const char *what, size_t ci,
		      struct skip_gate_name **out, size_t *n)
{
	const cJSON *e;
	int err = 0;

	*n = 0;
	*out = sk_xcalloc((size_t)cJSON_GetArraySize(a) + 1, sizeof(**out));
	cJSON_ArrayForEach(e, a)
	{
		struct skip_gate_name *v = &(*out)[(*n)++];

		v->name = sk_xstrdup(str(e, "name"));
		if (!err)
			err = read_ints(cJSON_GetObjectItemCaseSensitive(e, "count"), nruns,
					&v->count, name, what, ci, *n - 1, "count");
		if (!err)
			err = read_ints(cJSON_GetObjectItemCaseSensitive(e, "total_ns"), nruns,
					&v->total_ns, name, what, ci, *n - 1, "total_ns");
		if (!err)
			err = read_ints(cJSON_GetObjectItemCaseSensitive(e, "launch_ns"), nruns,
					&v->launch_ns, name, what, ci, *n - 1, "launch_ns");
	}
	qsort(*out, *n, sizeof(**out), cmp_name);
	for (size_t i = 1; !err && i < *n; i++)
		if (!strcmp((*out)[i].name, (*out)[i - 1].name))
			err = sk_fail(SKIP_E_INVAL, "%s: $.cases[%zu].%s: '%s' twice", name, ci,
				      what, (*out)[i].name);
	return err;
}

static int read_case(const cJSON *o, const char *name, size_t ci, struct skip_gate_case *c)
{
	const cJSON *runs = cJSON_GetObjectItemCaseSensitive(o, "runs"), *e;
	int err;

	c->key = sk_xstrdup(str(o, "key"));
	c->command = sk_xstrdup(str(o, "command"));
	c->runs = sk_xcalloc((size_t)cJSON_GetArraySize(runs) + 1, sizeof(*c->runs));
	cJSON_ArrayForEach(e, runs) read_run(e, &c->runs[c->nruns++]);
	err = read_names(cJSON_GetObjectItemCaseSensitive(o, "kernels"), c->nruns, name, "kernels",
			 ci, &c->kernels, &c->nkernels);
	if (!err)
		err = read_names(cJSON_GetObjectItemCaseSensitive(o, "operators"), c->nruns, name,
				 "operators", ci, &c->ops, &c->nops);
	return err;
}

/* The format version first: a newer or older file gets a message that says what to do, not
 * the schema's first complaint. */
static int check_version(const cJSON *doc, const char *name)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, "skip_baseline");

	if (!cJSON_IsObject(doc) || !v)
		return sk_fail(
		    SKIP_E_INVAL,
		    "%s: not a skip baseline (JSON without \"skip_baseline\"); 'skip gate "
		    "--save-baseline FILE TRACE' writes one",
		    name);
	if (!cJSON_IsNumber(v))
		return sk_fail(SKIP_E_INVAL, "%s: \"skip_baseline\" is not a version number", name);
	if (v->valuedouble != SKIP_BASELINE_VERSION)
		return sk_fail(SKIP_E_UNSUPPORTED,
			       "%s: a skip baseline of format version %g; this skip (%s) reads "
			       "version %d: save it again from its trace with 'skip gate "
			       "--save-baseline FILE TRACE'",
			       name, v->valuedouble, SKIP_VERSION, SKIP_BASELINE_VERSION);
	return 0;
}

static int check_schema(const cJSON *doc, const char *name)
{
	cJSON *schema = NULL;
	char msg[512];
	int err = skip_json_parse(sk_gate_baseline_schema, "baseline.schema.json", &schema);

	if (err)
		return err;
	err = skip_json_validate(schema, doc, msg, sizeof(msg));
	cJSON_Delete(schema);
	if (err)
		return sk_fail(SKIP_E_INVAL, "%s: not a valid skip baseline: %s", name, msg);
	return 0;
}

static void read_header(const cJSON *doc, struct skip_gate_side *s)
{
	const cJSON *notes = cJSON_GetObjectItemCaseSensitive(doc, "notes"), *e;
	const char *tv = str(doc, "trace_skip_version");

	snprintf(s->skip_version, sizeof(s->skip_version), "%s",
		 cJSON_HasObjectItem(doc, "trace_skip_version") ? tv : str(doc, "skip_version"));
	snprintf(s->gpu, sizeof(s->gpu), "%s", str(doc, "gpu"));
	snprintf(s->driver, sizeof(s->driver), "%s", str(doc, "driver"));
	s->dropped = isnan(num(doc, "dropped")) ? 0 : (int64_t)num(doc, "dropped");
	cJSON_ArrayForEach(e, notes) sk_gate_strv_add(&s->notes, &s->nnotes, "%s", e->valuestring);
}

int sk_gate_baseline_from_json(const struct cJSON *doc, const char *name, const char *region,
			       struct skip_gate_side **out)
{
	const cJSON *cases = cJSON_GetObjectItemCaseSensitive(doc, "cases"), *e;
	const cJSON *reg = cJSON_GetObjectItemCaseSensitive(doc, "region");
	struct skip_gate_side *s;
	int err;

	*out = NULL;
	if ((err = check_version(doc, name)) || (err = check_schema(doc, name)))
		return err;
	if (region && (!cJSON_IsString(reg) || strcmp(reg->valuestring, region)))
		return sk_fail(SKIP_E_INVAL,
			       "%s was saved for %s%s%s, not for the region '%s': save it again "
			       "with --region %s",
			       name, cJSON_IsString(reg) ? "the region '" : "whole runs",
			       cJSON_IsString(reg) ? reg->valuestring : "",
			       cJSON_IsString(reg) ? "'" : "", region, region);
	s = sk_xcalloc(1, sizeof(*s));
	s->baseline = 1;
	s->path = sk_xstrdup(name);
	s->region = cJSON_IsString(reg) ? sk_xstrdup(reg->valuestring) : NULL;
	read_header(doc, s);
	s->cases = sk_xcalloc((size_t)cJSON_GetArraySize(cases) + 1, sizeof(*s->cases));
	cJSON_ArrayForEach(e, cases)
	{
		if (!err)
			err = read_case(e, name, s->ncases, &s->cases[s->ncases]);
		s->ncases++;
	}
	for (size_t i = 1; !err && i < s->ncases; i++)
		for (size_t j = 0; j < i && !err; j++)
			if (!strcmp(s->cases[i].key, s->cases[j].key))
				err = sk_fail(SKIP_E_INVAL, "%s: $.cases[%zu]: the key '%s' twice",
					      name, i, s->cases[i].key);
	if (err) {
		skip_gate_side_free(s);
		return err;
	}
	sk_gate_side_sort(s);
	*out = s;
	return 0;
}

int skip_gate_baseline_parse(const char *text, const char *name, const char *region,
			     struct skip_gate_side **out)
{
	cJSON *doc = NULL;
	int err = skip_json_parse(text, name, &doc);

	*out = NULL;
	if (!err)
		err = sk_gate_baseline_from_json(doc, name, region, out);
	cJSON_Delete(doc);
	return err;
}
