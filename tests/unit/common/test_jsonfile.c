/*
 * test_jsonfile.c: JSON files read into cJSON trees (common/jsonfile.c): a syntax error is
 * reported on one line with its exact line and column (in characters) and a piece of that
 * line, trailing junk and NUL bytes are errors, and a file that cannot be read is named with
 * the system's reason.
 */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "skip_common.h"
#include "unit/scratch.h"

static char dir[64];
static char path[128];

static void setup(void)
{
	sk_scratch_make(dir, sizeof(dir), "skip-json");
	snprintf(path, sizeof(path), "%s/w.json", dir);
}

static void teardown(void)
{
	sk_scratch_remove(dir);
}

TestSuite(common_jsonfile, .init = setup, .fini = teardown);

static void write_bytes(const char *text, size_t len)
{
	FILE *f = fopen(path, "wb");

	cr_assert_not_null(f);
	cr_assert_eq(fwrite(text, 1, len, f), len);
	fclose(f);
}

/* Loading @text fails with exactly "PATH@msg". */
static void rejects_bytes(const char *text, size_t len, const char *msg)
{
	char want[512];
	cJSON *root = (cJSON *)1;

	write_bytes(text, len);
	snprintf(want, sizeof(want), "%s%s", path, msg);
	cr_assert_eq(skip_json_load(path, &root), SKIP_E_INVAL, "accepted: %s", text);
	cr_assert_null(root);
	cr_assert_str_eq(skip_errmsg(), want);
}

static void rejects(const char *text, const char *msg)
{
	rejects_bytes(text, strlen(text), msg);
}

Test(common_jsonfile, a_syntax_error_gives_its_line_and_column)
{
	rejects("{\n  \"a\": 1,\n  \"b\" 2\n}\n", ":3:7: JSON syntax error near '2'");
	rejects("[1, 2,, 3]", ":1:7: JSON syntax error near ', 3]'");
	rejects("{\"a\": tru}", ":1:7: JSON syntax error near 'tru}'");
	rejects("\n\n\t{\"x\": [1 2]}", ":3:11: JSON syntax error near '2]}'");
}

Test(common_jsonfile, columns_count_characters_and_quotes_stay_on_one_line)
{
	/* "é" is two bytes, one character; the quote stops at the end of the line and at 20 */
	rejects("{\"caf\xc3\xa9\": x\n}", ":1:10: JSON syntax error near 'x'");
	rejects("[1 234567890123456789012345]",
		":1:4: JSON syntax error near '23456789012345678901'");
	rejects("[1,\n  2 "
		"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
		"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
		"\xc3\xa9]",
		":2:5: JSON syntax error near "
		"'\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
		"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
		"\xc3\xa9'");
	rejects("[1, ]\r\n", ":1:5: JSON syntax error near ']'");
}

Test(common_jsonfile, the_end_of_the_file_and_trailing_junk_are_errors)
{
	rejects("", ":1:1: JSON syntax error at the end of the file");
	rejects("[1,\n", ":2:1: JSON syntax error at the end of the file");
	rejects("{\"a\": 1,", ":1:9: JSON syntax error near '{\"a\": 1,'");
	rejects("{\"a\": 1}\n\n  x", ":3:3: JSON syntax error near 'x'");
	rejects_bytes("{}\0{}", 5, ":1:3: JSON syntax error (a NUL byte)");
}

Test(common_jsonfile, a_valid_file_is_parsed)
{
	cJSON *root = NULL;

	write_bytes("{\"a\": [1, 2]}\n\n", 15);
	cr_assert_eq(skip_json_load(path, &root), 0, "%s", skip_errmsg());
	cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(root, "a")), 2);
	cJSON_Delete(root);
}

Test(common_jsonfile, an_unreadable_file_is_named_with_the_reason)
{
	char want[256];
	cJSON *root = (cJSON *)1;

	cr_assert_eq(skip_json_load(path, &root), SKIP_E_NOTFOUND);
	cr_assert_null(root);
	snprintf(want, sizeof(want), "%s: No such file or directory", path);
	cr_assert_str_eq(skip_errmsg(), want);
	cr_assert_eq(skip_json_load(dir, &root), SKIP_E_IO);
	snprintf(want, sizeof(want), "%s: Is a directory", dir);
	cr_assert_str_eq(skip_errmsg(), want);
}

Test(common_jsonfile, text_without_a_file_gives_line_and_column_in_words)
{
	cJSON *root = (cJSON *)1;

	cr_assert_eq(skip_json_parse("{\n \"a\" 1}", NULL, &root), SKIP_E_INVAL);
	cr_assert_null(root);
	cr_assert_str_eq(skip_errmsg(), "line 2, column 6: JSON syntax error near '1}'");
	cr_assert_eq(skip_json_parse("[1]", "plan", &root), 0);
	cJSON_Delete(root);
	cr_assert_eq(skip_json_parse("[", "plan", &root), SKIP_E_INVAL);
	cr_assert_str_eq(skip_errmsg(), "plan:1:2: JSON syntax error near '['");
}
