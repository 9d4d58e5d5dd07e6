/*
 * hand.c: see hand.h.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/internal.h"
#include "hand.h"

const char *hand_stack_text(const struct skip_trace *t, uint32_t stack)
{
	static char buf[1024];
	const char *parts[16];
	int n = 0;

	for (uint32_t s = stack; s && n < 16; s = t->stacks.nodes[s].parent)
		parts[n++] = t->texts.s[t->stacks.nodes[s].text];
	buf[0] = '\0';
	while (n--) {
		strncat(buf, parts[n], sizeof(buf) - strlen(buf) - 1);
		if (n)
			strncat(buf, ">", sizeof(buf) - strlen(buf) - 1);
	}
	return buf;
}

char *hand_slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	cr_assert_not_null(f, "cannot open %s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

struct skip_trace *hand_trace_more(const char *dir, const char *name, const char *more)
{
	const char *parts[] = {"common", name, more};
	char path[256], sqlpath[256];
	struct skip_trace *t = NULL;
	sqlite3 *db = NULL;

	snprintf(path, sizeof(path), "%s/%s%s%s.skip.db", dir, name, more ? "+" : "",
		 more ? more : "");
	cr_assert_eq(skip_store_create(path, 0, &db), 0, "%s", skip_errmsg());
	for (int i = 0; i < 3 && parts[i]; i++) {
		char *sql;

		snprintf(sqlpath, sizeof(sqlpath), "tests/fixtures/hand/%s.sql", parts[i]);
		sql = hand_slurp(sqlpath);
		cr_assert_eq(skip_store_exec(db, sql), 0, "%s: %s", sqlpath, skip_errmsg());
		free(sql);
	}
	sqlite3_close(db);
	cr_assert_eq(skip_trace_open(path, &t), 0, "%s", skip_errmsg());
	return t;
}

struct skip_trace *hand_trace(const char *dir, const char *name)
{
	return hand_trace_more(dir, name, NULL);
}
