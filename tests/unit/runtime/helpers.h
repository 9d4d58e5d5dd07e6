/*
 * helpers.h: building small task graphs for the runtime's unit tests from a compact text
 * form. A task is added with an access spec such as "r:A w:B rw:C@0+16": read buffer A,
 * write B, read and write bytes [0, 16) of C. Buffers are created on first use with
 * HELPER_BUF_BYTES bytes. The kernel is a dummy symbol: these graphs never reach a GPU.
 */
#ifndef SKIP_TESTS_RUNTIME_HELPERS_H
#define SKIP_TESTS_RUNTIME_HELPERS_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/internal.h" /* -I. : collector/ has an internal.h too */

#define HELPER_BUF_BYTES 1024

static const char helper_symbol = 0;

static inline int helper_buf(struct skip_graph *g, const char *name)
{
	int id = skip_graph_find_buffer(g, name);

	if (id >= 0)
		return id;
	id = skip_graph_add_buffer(g, name, HELPER_BUF_BYTES, SKIP_DT_U8, NULL);
	cr_assert_geq(id, 0, "%s", skip_errmsg());
	return id;
}

/* Add task @name with accesses @spec; returns its id (asserts success). */
static inline int helper_task(struct skip_graph *g, const char *name, const char *spec)
{
	struct skip_access acc[16];
	struct skip_task_desc d = {0};
	char buf[256], *save = NULL;
	int n = 0, id;

	snprintf(buf, sizeof(buf), "%s", spec);
	for (char *tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		char *colon = strchr(tok, ':'), *at;
		unsigned mode = 0;
		size_t off = 0, size = 0;

		cr_assert_not_null(colon, "bad spec token '%s'", tok);
		*colon = '\0';
		mode = !strcmp(tok, "r")   ? SKIP_READ
		       : !strcmp(tok, "w") ? SKIP_WRITE
					   : SKIP_READ_WRITE;
		at = strchr(colon + 1, '@');
		if (at) {
			*at = '\0';
			off = strtoul(at + 1, &at, 10);
			size = strtoul(at + 1, NULL, 10);
		}
		acc[n++] = (struct skip_access){helper_buf(g, colon + 1), off, size, mode};
	}
	d.name = name;
	d.kernel = (struct skip_kernel){.kind = SKIP_KERNEL_SYMBOL, .symbol = &helper_symbol};
	d.grid[0] = d.block[0] = 1;
	d.access = acc;
	d.naccess = n;
	id = skip_graph_add_task(g, &d);
	cr_assert_geq(id, 0, "adding '%s': %s", name, skip_errmsg());
	return id;
}

/* "a b c": the names of the reduced predecessors of @task, sorted by id. */
static inline const char *helper_preds(const struct skip_graph *g, const char *task)
{
	static char out[512];
	const int *p;
	int t = skip_graph_find_task(g, task), n;

	cr_assert_geq(t, 0, "no task %s", task);
	n = skip_graph_preds(g, t, &p);
	out[0] = '\0';
	for (int i = 0; i < n; i++) {
		strcat(out, i ? " " : "");
		strcat(out, skip_graph_task_name(g, p[i]));
	}
	return out;
}

static inline int helper_id(const struct skip_graph *g, const char *name)
{
	int t = skip_graph_find_task(g, name);

	cr_assert_geq(t, 0, "no task %s", name);
	return t;
}

/* A small deterministic generator (xorshift64*), so random cases are the same everywhere. */
static inline uint64_t helper_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

static inline int helper_below(uint64_t *s, int n)
{
	return (int)(helper_rand(s) % (uint64_t)n);
}

#endif
