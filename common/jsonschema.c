/*
 * jsonschema.c: a small JSON Schema validator for the schemas skip ships (the JSON files in
 * schemas/).
 *
 * It implements the keywords those schemas use: type (one name or a list; "integer" is a number
 * with no fraction), enum, const, minimum, maximum, minItems, required, properties,
 * additionalProperties (false or a schema), items, anyOf, and $ref to "#/$defs/NAME" within the
 * same schema. Any other keyword is ignored, as JSON Schema does with unknown keywords.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "skip_common.h"

struct vctx {
	const cJSON *root;
	char *err;
	size_t errlen;
	int depth;
};

static int fail(struct vctx *c, const char *path, const char *fmt, const char *what)
{
	if (c->err && c->errlen)
		snprintf(c->err, c->errlen, "%s: %s%s", path[0] ? path : "$", fmt,
			 what ? what : "");
	return SKIP_E_INVAL;
}

static int type_is(const cJSON *v, const char *t)
{
	if (!strcmp(t, "object"))
		return cJSON_IsObject(v);
	if (!strcmp(t, "array"))
		return cJSON_IsArray(v);
	if (!strcmp(t, "string"))
		return cJSON_IsString(v);
	if (!strcmp(t, "number"))
		return cJSON_IsNumber(v);
	if (!strcmp(t, "integer"))
		return cJSON_IsNumber(v) && v->valuedouble == floor(v->valuedouble);
	if (!strcmp(t, "boolean"))
		return cJSON_IsBool(v);
	if (!strcmp(t, "null"))
		return cJSON_IsNull(v);
	return 0;
}

static int check_type(struct vctx *c, const cJSON *s, const cJSON *v, const char *path)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(s, "type"), *e;

	if (!t)
		return 0;
	if (cJSON_IsString(t))
		return type_is(v, t->valuestring) ? 0 : fail(c, path, "expected ", t->valuestring);
	cJSON_ArrayForEach(e, t) if (cJSON_IsString(e) && type_is(v, e->valuestring)) return 0;
	return fail(c, path, "wrong type", NULL);
}

static int validate(struct vctx *c, const cJSON *s, const cJSON *v, const char *path);

static int check_object(struct vctx *c, const cJSON *s, const cJSON *v, const char *path)
{
	const cJSON *req = cJSON_GetObjectItemCaseSensitive(s, "required");
	const cJSON *props = cJSON_GetObjectItemCaseSensitive(s, "properties");
	const cJSON *addl = cJSON_GetObjectItemCaseSensitive(s, "additionalProperties");
	const cJSON *e;
	char sub[512];
	int err;

	cJSON_ArrayForEach(
	    e, req) if (cJSON_IsString(e) &&
			!cJSON_HasObjectItem(
			    v, e->valuestring)) return fail(c, path, "missing required member ",
							    e->valuestring);
	cJSON_ArrayForEach(e, v)
	{
		const cJSON *ps = props ? cJSON_GetObjectItemCaseSensitive(props, e->string) : NULL;

		snprintf(sub, sizeof(sub), "%s.%s", path, e->string);
		if (!ps && cJSON_IsFalse(addl))
			return fail(c, path, "unexpected member ", e->string);
		if (!ps && cJSON_IsObject(addl))
			ps = addl;
		if (ps && (err = validate(c, ps, e, sub)))
			return err;
	}
	return 0;
}

static int check_array(struct vctx *c, const cJSON *s, const cJSON *v, const char *path)
{
	const cJSON *items = cJSON_GetObjectItemCaseSensitive(s, "items");
	const cJSON *min = cJSON_GetObjectItemCaseSensitive(s, "minItems");
	const cJSON *e;
	char sub[512];
	int i = 0, err;

	if (cJSON_IsNumber(min) && cJSON_GetArraySize(v) < min->valueint)
		return fail(c, path, "too few items", NULL);
	cJSON_ArrayForEach(e, v)
	{
		snprintf(sub, sizeof(sub), "%s[%d]", path, i++);
		if (items && (err = validate(c, items, e, sub)))
			return err;
	}
	return 0;
}

static int check_values(struct vctx *c, const cJSON *s, const cJSON *v, const char *path)
{
	const cJSON *en = cJSON_GetObjectItemCaseSensitive(s, "enum");
	const cJSON *cn = cJSON_GetObjectItemCaseSensitive(s, "const");
	const cJSON *min = cJSON_GetObjectItemCaseSensitive(s, "minimum");
	const cJSON *max = cJSON_GetObjectItemCaseSensitive(s, "maximum");
	const cJSON *e;

	if (en) {
		int ok = 0;

		cJSON_ArrayForEach(e, en) ok |= cJSON_Compare(e, v, 1);
		if (!ok)
			return fail(c, path, "not one of the allowed values", NULL);
	}
	if (cn && !cJSON_Compare(cn, v, 1))
		return fail(c, path, "not the required value", NULL);
	if (cJSON_IsNumber(v) && cJSON_IsNumber(min) && v->valuedouble < min->valuedouble)
		return fail(c, path, "below the minimum", NULL);
	if (cJSON_IsNumber(v) && cJSON_IsNumber(max) && v->valuedouble > max->valuedouble)
		return fail(c, path, "above the maximum", NULL);
	return 0;
}

static const cJSON *resolve(struct vctx *c, const cJSON *s)
{
	const cJSON *ref = cJSON_GetObjectItemCaseSensitive(s, "$ref");

	if (!cJSON_IsString(ref) || strncmp(ref->valuestring, "#/$defs/", 8))
		return s;
	return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(c->root, "$defs"),
						ref->valuestring + 8);
}

/* anyOf: valid when one of the subschemas accepts @v (the last failure is reported). */
static int check_any_of(struct vctx *c, const cJSON *any, const cJSON *v, const char *path)
{
	const cJSON *e;
	int err = 0;

	cJSON_ArrayForEach(e, any) if (!(err = validate(c, e, v, path))) return 0;
	return err ? err : fail(c, path, "anyOf has no subschema", NULL);
}

static int validate(struct vctx *c, const cJSON *s, const cJSON *v, const char *path)
{
	const cJSON *any;
	int err;

	if (++c->depth > 64)
		return fail(c, path, "schema nests too deeply", NULL);
	s = resolve(c, s);
	any = s ? cJSON_GetObjectItemCaseSensitive(s, "anyOf") : NULL;
	if (!s)
		err = fail(c, path, "unresolved $ref", NULL);
	else if (any && (err = check_any_of(c, any, v, path)))
		;
	else if (!(err = check_type(c, s, v, path)) && !(err = check_values(c, s, v, path))) {
		if (cJSON_IsObject(v))
			err = check_object(c, s, v, path);
		else if (cJSON_IsArray(v))
			err = check_array(c, s, v, path);
	}
	c->depth--;
	return err;
}

int skip_json_validate(const cJSON *schema, const cJSON *doc, char *err, size_t errlen)
{
	struct vctx c = {schema, err, errlen, 0};

	if (err && errlen)
		err[0] = '\0';
	return validate(&c, schema, doc, "$");
}
