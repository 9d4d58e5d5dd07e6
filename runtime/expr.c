/*
 * expr.c: the integer expressions a workload file may use wherever it wants a number
 * ("count": "N", "grid": "cdiv(N, 256)", "size": "4*N*200"), over its "params". A recursive
 * descent parser on 64-bit signed integers, its nesting bounded by SK_EXPR_MAX_DEPTH; overflow,
 * division by zero, unknown names and deep nesting are errors with the position in the text.
 */
#define SK_LOG_DOMAIN "runtime"
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int sk_params_set(struct sk_params *ps, const char *name, int64_t value)
{
	int64_t *v = sk_params_find(ps, name);
	size_t len;

	if (v) {
		*v = value;
		return 0;
	}
	if (SK_VEC_RESERVE(ps->names, ps->capnames, ps->n + 1) ||
	    SK_VEC_RESERVE(ps->values, ps->capvalues, ps->n + 1))
		return SKIP_E_NOMEM;
	len = strlen(name) + 1;
	ps->names[ps->n] = malloc(len);
	if (!ps->names[ps->n])
		return sk_fail(SKIP_E_NOMEM, "out of memory");
	memcpy(ps->names[ps->n], name, len);
	ps->values[ps->n++] = value;
	return 0;
}

int64_t *sk_params_find(const struct sk_params *ps, const char *name)
{
	for (int i = 0; ps && i < ps->n; i++)
		if (!strcmp(ps->names[i], name))
			return &ps->values[i];
	return NULL;
}

void sk_params_fini(struct sk_params *ps)
{
	for (int i = 0; i < ps->n; i++)
		free(ps->names[i]);
	free(ps->names);
	free(ps->values);
	memset(ps, 0, sizeof(*ps));
}

/* ---- parser ---------------------------------------------------------------------------------- */

struct parser {
	const char *text, *p;
	const struct sk_params *ps;
	int err;
	int depth;	 /* parentheses, unary minus and calls open at p */
	int *unknown_at; /* where an unknown parameter's name starts (may be NULL) */
};

/* Expressions longer than this are quoted in part: their start, and the text at the error. */
#define SK_EXPR_QUOTE 40

static int perr(struct parser *x, const char *what)
{
	size_t len = strlen(x->text);
	int off = (int)(x->p - x->text);

	if (x->err)
		return x->err;
	if (len <= SK_EXPR_QUOTE)
		x->err =
		    sk_fail(SKIP_E_INVAL, "expression \"%s\": %s at offset %d", x->text, what, off);
	else
		x->err =
		    sk_fail(SKIP_E_INVAL,
			    "expression \"%.*s...\" (%zu characters): %s at offset %d (\"%.20s\")",
			    SK_EXPR_QUOTE, x->text, len, what, off, x->p);
	return x->err;
}

/* One level deeper (an opening parenthesis, a unary minus, a call): 0, or the error. */
static int enter(struct parser *x)
{
	char what[48];

	if (++x->depth <= SK_EXPR_MAX_DEPTH)
		return 0;
	x->depth--;
	snprintf(what, sizeof(what), "nested deeper than %d levels", SK_EXPR_MAX_DEPTH);
	return perr(x, what);
}

static void skip_ws(struct parser *x)
{
	while (isspace((unsigned char)*x->p))
		x->p++;
}

static int64_t parse_sum(struct parser *x);

static int64_t apply2(struct parser *x, char op, int64_t a, int64_t b)
{
	int64_t r = 0;

	switch (op) {
	case '+':
		if (__builtin_add_overflow(a, b, &r))
			perr(x, "overflow");
		return r;
	case '-':
		if (__builtin_sub_overflow(a, b, &r))
			perr(x, "overflow");
		return r;
	case '*':
		if (__builtin_mul_overflow(a, b, &r))
			perr(x, "overflow");
		return r;
	case '/':
	case '%':
	case 'c':
		if (b == 0 || (a == INT64_MIN && b == -1)) {
			perr(x, b ? "overflow" : "division by zero");
			return 0;
		}
		if (op == '/')
			return a / b;
		if (op == '%')
			return a % b;
		return a / b + (a % b != 0 && (a < 0) == (b < 0)); /* ceiling */
	case 'm':
		return a < b ? a : b;
	case 'M':
		return a > b ? a : b;
	}
	return perr(x, "bad operator");
}

static int64_t parse_call(struct parser *x, const char *name, size_t len)
{
	char op = 0;
	int64_t a, b;

	if (len == 3 && !strncmp(name, "min", 3))
		op = 'm';
	else if (len == 3 && !strncmp(name, "max", 3))
		op = 'M';
	else if (len == 4 && !strncmp(name, "cdiv", 4))
		op = 'c';
	else
		return perr(x, "unknown function (min, max, cdiv)");
	if (enter(x))
		return 0;
	x->p++; /* ( */
	a = parse_sum(x);
	skip_ws(x);
	if (*x->p != ',')
		return perr(x, "',' expected");
	x->p++;
	b = parse_sum(x);
	skip_ws(x);
	if (*x->p != ')')
		return perr(x, "')' expected");
	x->p++;
	x->depth--;
	return x->err ? 0 : apply2(x, op, a, b);
}

static int64_t parse_atom(struct parser *x)
{
	skip_ws(x);
	if (*x->p == '(') {
		int64_t v;

		if (enter(x))
			return 0;
		x->p++;
		v = parse_sum(x);
		skip_ws(x);
		if (*x->p != ')')
			return perr(x, "')' expected");
		x->p++;
		x->depth--;
		return v;
	}
	if (*x->p == '-') {
		int64_t v;

		if (enter(x))
			return 0;
		x->p++;
		v = parse_atom(x);
		x->depth--;
		return apply2(x, '-', 0, v);
	}
	if (isdigit((unsigned char)*x->p)) {
		char *end;
		long long v;

		errno = 0;
		v = strtoll(x->p, &end, 10);
		if (errno)
			return perr(x, "number too large");
		x->p = end;
		return v;
	}
	if (isalpha((unsigned char)*x->p) || *x->p == '_') {
		const char *s = x->p;
		char name[64];
		const int64_t *v;

		size_t len;

		while (isalnum((unsigned char)*x->p) || *x->p == '_')
			x->p++;
		len = (size_t)(x->p - s);
		skip_ws(x);
		if (*x->p == '(')
			return parse_call(x, s, len);
		if (len >= sizeof(name))
			return perr(x, "name too long");
		memcpy(name, s, len);
		name[len] = '\0';
		v = sk_params_find(x->ps, name);
		if (!v) {
			x->p = s;
			if (x->unknown_at && !x->err)
				*x->unknown_at = (int)(s - x->text);
			return perr(x, "unknown parameter");
		}
		return *v;
	}
	return perr(x, *x->p ? "unexpected character" : "unexpected end");
}

static int64_t parse_product(struct parser *x)
{
	int64_t v = parse_atom(x);

	for (;;) {
		char op;

		skip_ws(x);
		op = *x->p;
		if (x->err || (op != '*' && op != '/' && op != '%'))
			return v;
		x->p++;
		v = apply2(x, op, v, parse_atom(x));
	}
}

static int64_t parse_sum(struct parser *x)
{
	int64_t v = parse_product(x);

	for (;;) {
		char op;

		skip_ws(x);
		op = *x->p;
		if (x->err || (op != '+' && op != '-'))
			return v;
		x->p++;
		v = apply2(x, op, v, parse_product(x));
	}
}

int sk_expr_eval_at(const char *text, const struct sk_params *ps, int64_t *out, int *unknown_at)
{
	struct parser x = {text, text, ps, 0, 0, unknown_at};
	int64_t v;

	*out = 0;
	if (unknown_at)
		*unknown_at = -1;
	if (!text)
		return sk_fail(SKIP_E_INVAL, "empty expression");
	v = parse_sum(&x);
	skip_ws(&x);
	if (!x.err && *x.p)
		perr(&x, "unexpected character");
	if (x.err)
		return x.err;
	*out = v;
	return 0;
}

int sk_expr_eval(const char *text, const struct sk_params *ps, int64_t *out)
{
	return sk_expr_eval_at(text, ps, out, NULL);
}
