/*
 * test_workload.c: workload files (schemas/workload.schema.json): what a valid file builds
 * (parameters, size presets and overrides, expressions, access sets, default accesses, the
 * module search), and a clear, located message for each kind of malformed file.
 */
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"
#include "unit/scratch.h"

static char dir[64];
static struct skip_workload *w;

static void setup(void)
{
	skip_log_init("test", NULL, 1);
	sk_scratch_make(dir, sizeof(dir), "skip-wl");
	w = NULL;
}

static void teardown(void)
{
	skip_workload_free(w);
	sk_scratch_remove(dir);
}

TestSuite(runtime_workload, .init = setup, .fini = teardown);

static const char *write_file(const char *name, const char *text)
{
	static char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

#define HEAD "{\"skip_workload\": 1, \"name\": \"t\", \"module\": \"m.fatbin\", "
#define BUFS "\"buffers\": [{\"name\": \"x\", \"type\": \"f32\", \"count\": 256}], "
#define TASK(body)                                                                                 \
	"\"tasks\": [{\"name\": \"k\", \"kernel\": \"f\", \"grid\": 1, \"block\": 32" body "}]}"

static void rejects(const char *text, const char *msg)
{
	const char *path = write_file("w.json", text);
	int err;

	w = skip_workload_load(path, NULL, NULL, 0, NULL, &err);
	cr_assert_null(w, "accepted: %s", text);
	cr_assert_eq(err, SKIP_E_INVAL);
	cr_assert(strstr(skip_errmsg(), msg), "for %s\n  got:      %s\n  expected: %s", text,
		  skip_errmsg(), msg);
	cr_assert(strstr(skip_errmsg(), "w.json:"), "the file is named: %s", skip_errmsg());
}

static const char good[] = "{\"skip_workload\": 1, \"name\": \"demo\", \"module\": \"m.fatbin\",\n"
			   " \"params\": {\"N\": 1000, \"B\": \"cdiv(N, 256)\"},\n"
			   " \"sizes\": {\"small\": {\"N\": 100}},\n"
			   " \"buffers\": [\n"
			   "  {\"name\": \"x\", \"type\": \"f32\", \"count\": \"N\", \"init\": "
			   "{\"random\": {\"seed\": 3, \"min\": -1, \"max\": 1}}},\n"
			   "  {\"name\": \"y\", \"type\": \"f64\", \"count\": \"N\", \"init\": "
			   "\"zeros\", \"tolerance\": {\"rtol\": 0.001}},\n"
			   "  {\"name\": \"raw\", \"size\": 64, \"init\": {\"constant\": 7}}],\n"
			   " \"tasks\": [\n"
			   "  {\"name\": \"a\", \"kernel\": \"fa\", \"grid\": \"B\", \"block\": "
			   "[32, 4], \"shared\": 1024,\n"
			   "   \"args\": [{\"buffer\": \"x\"}, {\"buffer\": \"y\", \"offset\": 8}, "
			   "{\"i32\": \"N\"}, {\"f64\": 0.5}],\n"
			   "   \"reads\": [\"x\"], \"writes\": [{\"buffer\": \"y\", \"offset\": 0, "
			   "\"size\": \"8*N/2\"}]},\n"
			   "  {\"name\": \"b\", \"kernel\": \"fb\", \"grid\": 1, \"block\": 1, "
			   "\"args\": [{\"buffer\": \"raw\"}], \"pdl\": true},\n"
			   "  {\"name\": \"c\", \"kernel\": \"fc\", \"grid\": 1, \"block\": 1, "
			   "\"reads\": [\"y\"], \"after\": [\"b\"]}]}\n";

Test(runtime_workload, a_valid_file_builds_its_graph)
{
	const char *path = write_file("good.json", good);
	struct skip_graph *g;
	const struct sk_task *a, *b;
	int err;

	w = skip_workload_load(path, NULL, NULL, 0, NULL, &err);
	cr_assert_not_null(w, "%s", skip_errmsg());
	g = skip_workload_graph(w);
	cr_assert_str_eq(skip_workload_name(w), "demo");
	cr_assert_eq(skip_workload_param(w, "B", 0), 4);
	cr_assert_eq(skip_graph_buffer_size(g, 0), 4000);
	cr_assert_eq(skip_graph_buffer_size(g, 1), 8000);
	cr_assert_eq(skip_graph_buffer_size(g, 2), 64);
	cr_assert_float_eq(g->bufs[1].rtol, 0.001, 1e-12);
	cr_assert_float_eq(g->bufs[0].init.lo, -1.0, 1e-12);
	cr_assert_eq(g->bufs[0].init.seed, 3);
	a = &g->tasks[0];
	cr_assert_eq(a->grid[0], 4);
	cr_assert_eq(a->block[0], 32);
	cr_assert_eq(a->block[1], 4);
	cr_assert_eq(a->shared_bytes, 1024);
	cr_assert_eq(a->nargs, 4);
	cr_assert_eq(a->args[1].offset, 8);
	cr_assert_eq(a->args[2].size, 4);
	cr_assert_eq(a->args[3].size, 8);
	cr_assert_eq(a->naccess, 2);
	cr_assert_eq(a->access[1].size, 4000, "8*N/2 bytes of y");
	b = &g->tasks[1];
	cr_assert_eq(b->naccess, 1, "no reads/writes: every buffer argument is read and written");
	cr_assert_eq(b->access[0].mode, SKIP_READ_WRITE);
	cr_assert(b->flags & SKIP_TASK_PDL);
	cr_assert_str_eq(helper_preds(g, "c"), "a b");
	cr_assert(strstr(g->modules[0], dir), "the module is next to the workload: %s",
		  g->modules[0]);
}

Test(runtime_workload, size_presets_and_overrides_change_parameters)
{
	const char *path = write_file("good.json", good);
	struct skip_param set = {"N", 512};
	int err;

	w = skip_workload_load(path, "small", NULL, 0, NULL, &err);
	cr_assert_not_null(w, "%s", skip_errmsg());
	cr_assert_eq(skip_graph_buffer_size(skip_workload_graph(w), 0), 400);
	cr_assert_eq(skip_workload_param(w, "B", 0), 1, "B = cdiv(N, 256) follows the preset's N");
	skip_workload_free(w);
	w = skip_workload_load(path, "small", &set, 1, "/elsewhere/k.cubin", &err);
	cr_assert_not_null(w, "%s", skip_errmsg());
	cr_assert_eq(skip_graph_buffer_size(skip_workload_graph(w), 0), 2048);
	cr_assert_str_eq(skip_workload_graph(w)->modules[0], "/elsewhere/k.cubin");
	skip_workload_free(w);
	w = skip_workload_load(path, "huge", NULL, 0, NULL, &err);
	cr_assert_null(w);
	cr_assert(strstr(skip_errmsg(), "sizes: no size \"huge\" in this workload"), "%s",
		  skip_errmsg());
	set.name = "M";
	w = skip_workload_load(path, NULL, &set, 1, NULL, &err);
	cr_assert_null(w);
	cr_assert(strstr(skip_errmsg(), "--set M: the workload has no parameter \"M\""), "%s",
		  skip_errmsg());
}

/* The loader with @size and one --set (NAME may be NULL); asserts success. */
static void load_with(const char *text, const char *size, const char *name, int64_t value)
{
	const char *path = write_file("w.json", text);
	struct skip_param set = {name, value};
	int err;

	skip_workload_free(w);
	w = skip_workload_load(path, size, &set, name ? 1 : 0, NULL, &err);
	cr_assert_not_null(w, "%s", skip_errmsg());
}

#define DERIVED                                                                                    \
	HEAD "\"params\": {\"N\": 1000000, \"M\": \"N*2\", \"BLOCKS\": \"cdiv(N, 256)\"}, "        \
	     "\"sizes\": {\"small\": {\"N\": 1000}}, " BUFS TASK("")

/* A parameter given as an expression is evaluated after --size and --set have given the
 * parameters it uses their values; a --set of the derived parameter itself replaces it. */
Test(runtime_workload, derived_parameters_follow_the_size_and_the_overrides)
{
	load_with(DERIVED, NULL, NULL, 0);
	cr_assert_eq(skip_workload_param(w, "M", 0), 2000000);
	cr_assert_eq(skip_workload_param(w, "BLOCKS", 0), 3907);
	load_with(DERIVED, "small", NULL, 0);
	cr_assert_eq(skip_workload_param(w, "N", 0), 1000);
	cr_assert_eq(skip_workload_param(w, "M", 0), 2000, "M = N*2 after --size small");
	cr_assert_eq(skip_workload_param(w, "BLOCKS", 0), 4);
	load_with(DERIVED, NULL, "N", 10);
	cr_assert_eq(skip_workload_param(w, "M", 0), 20, "M = N*2 after --set N=10");
	load_with(DERIVED, "small", "N", 512);
	cr_assert_eq(skip_workload_param(w, "M", 0), 1024, "--set after --size");
	cr_assert_eq(skip_workload_param(w, "BLOCKS", 0), 2);
	load_with(DERIVED, "small", "M", 5);
	cr_assert_eq(skip_workload_param(w, "M", 0), 5, "--set M replaces its expression");
	cr_assert_eq(skip_workload_param(w, "N", 0), 1000);
}

Test(runtime_workload, parameters_may_use_any_other_but_not_in_a_cycle)
{
	load_with(HEAD "\"params\": {\"M\": \"N*2\", \"N\": 3, \"K\": 4}, "
		       "\"sizes\": {\"s\": {\"N\": \"K+1\"}}, " BUFS TASK(""),
		  NULL, NULL, 0);
	cr_assert_eq(skip_workload_param(w, "M", 0), 6, "a parameter defined later");
	load_with(HEAD "\"params\": {\"M\": \"N*2\", \"N\": 3, \"K\": 4}, "
		       "\"sizes\": {\"s\": {\"N\": \"K+1\"}}, " BUFS TASK(""),
		  "s", NULL, 0);
	cr_assert_eq(skip_workload_param(w, "M", 0), 10, "a preset's expression");
	skip_workload_free(w);
	w = NULL;
	rejects(HEAD "\"params\": {\"N\": 2, \"A\": \"B+N\", \"B\": \"max(A, 1)\"}, " BUFS TASK(""),
		"w.json: params: \"A\": a cycle: A -> B -> A");
	rejects(HEAD "\"params\": {\"N\": \"N+1\"}, " BUFS TASK(""),
		"w.json: params: \"N\": a cycle: N -> N");
}

/* --set rejects a name the workload does not have; so does a size preset, chosen or not. */
Test(runtime_workload, a_size_preset_with_an_unknown_parameter_is_rejected)
{
	rejects(HEAD "\"params\": {\"N\": 4}, \"sizes\": {\"small\": {\"N\": 2}, \"big\": "
		     "{\"NN\": 8}}, " BUFS TASK(""),
		"w.json: sizes.big: \"NN\" is not a parameter of this workload (see \"params\")");
	rejects(HEAD "\"sizes\": {\"small\": {\"N\": 2}}, " BUFS TASK(""),
		"w.json: sizes.small: \"N\" is not a parameter of this workload");
	rejects(HEAD "\"params\": {\"N\": 4}, \"sizes\": {\"small\": 2}, " BUFS TASK(""),
		"w.json: sizes.small: an object of NAME: value expected");
	rejects(HEAD "\"params\": {\"N\": 4}, \"sizes\": [], " BUFS TASK(""),
		"w.json: sizes: an object of size presets expected");
}

Test(runtime_workload, the_module_is_searched_in_skip_module_path)
{
	char sub[128], mod[160];
	const char *path = write_file("good.json", good);
	int err;

	snprintf(sub, sizeof(sub), "%s/mods", dir);
	cr_assert_eq(mkdir(sub, 0755), 0);
	snprintf(mod, sizeof(mod), "%s/m.fatbin", sub);
	fclose(fopen(mod, "w"));
	setenv("SKIP_MODULE_PATH", "/nonexistent:", 1);
	strcat(sub, ":/x");
	setenv("SKIP_MODULE_PATH", sub, 1);
	w = skip_workload_load(path, NULL, NULL, 0, NULL, &err);
	cr_assert_not_null(w, "%s", skip_errmsg());
	cr_assert_str_eq(skip_workload_graph(w)->modules[0], mod);
	unsetenv("SKIP_MODULE_PATH");
}

/* What skip run --dry-run checks beyond the JSON: the module and every init file can be read
 * where the executor will look for them (relative paths from the workload's folder). */
Test(runtime_workload, the_files_a_run_needs_are_checked_by_name)
{
	static const char text[] =
	    HEAD "\"buffers\": [{\"name\": \"x\", \"size\": 16}, {\"name\": \"y\", \"size\": "
		 "16, \"init\": {\"file\": \"data/y.bin\"}}], " TASK(", \"args\": [{\"buffer\": "
								     "\"y\"}]");
	char sub[128], want[512];
	int err;

	unsetenv("SKIP_MODULE_PATH");
	load_with(text, NULL, NULL, 0);
	cr_assert_eq(skip_workload_check_files(w), SKIP_E_NOTFOUND);
	snprintf(
	    want, sizeof(want),
	    "w.json: module m.fatbin, needed by tasks[0] (\"k\"): %s/m.fatbin: No such file or "
	    "directory (build it, or point SKIP_MODULE_PATH or --module at it)",
	    dir);
	cr_assert(strstr(skip_errmsg(), want), "%s", skip_errmsg());
	write_file("m.fatbin", ""); /* what is in it is for the driver to judge */
	cr_assert_eq(skip_workload_check_files(w), SKIP_E_NOTFOUND);
	snprintf(want, sizeof(want),
		 "w.json: buffers[1] (\"y\"): init file data/y.bin: %s/data/y.bin: No such file or "
		 "directory",
		 dir);
	cr_assert(strstr(skip_errmsg(), want), "%s", skip_errmsg());
	snprintf(sub, sizeof(sub), "%s/data", dir);
	cr_assert_eq(mkdir(sub, 0755), 0);
	write_file("data/y.bin", "short");
	cr_assert_eq(skip_workload_check_files(w), SKIP_E_IO);
	cr_assert(strstr(skip_errmsg(), "buffers[1] (\"y\"): init file data/y.bin: "), "%s",
		  skip_errmsg());
	cr_assert(strstr(skip_errmsg(), "has 5 bytes, 16 needed"), "%s", skip_errmsg());
	write_file("data/y.bin", "0123456789abcdef");
	cr_assert_eq(skip_workload_check_files(w), 0, "%s", skip_errmsg());

	/* --module replaces the module: that file is checked, and named as the option */
	skip_workload_free(w);
	w = skip_workload_load(write_file("w.json", text), NULL, NULL, 0, sub, &err);
	cr_assert_not_null(w, "%s", skip_errmsg());
	cr_assert_eq(skip_workload_check_files(w), SKIP_E_IO);
	snprintf(want, sizeof(want),
		 "w.json: --module %s, needed by tasks[0] (\"k\"): Is a directory", sub);
	cr_assert(strstr(skip_errmsg(), want), "%s", skip_errmsg());
}

Test(runtime_workload, top_level_mistakes_are_named)
{
	int err;

	w = skip_workload_load("/nonexistent/w.json", NULL, NULL, 0, NULL, &err);
	cr_assert_eq(err, SKIP_E_NOTFOUND);
	rejects("{\"skip_workload\": 1,",
		"w.json:1:21: JSON syntax error near '{\"skip_workload\": 1,'");
	rejects("{\"module\": \"m\", " BUFS TASK(""),
		"\"skip_workload\": 1 (the format version) expected");
	rejects("{\"skip_workload\": 1, " BUFS TASK(""),
		"\"module\" (a cubin, fatbin or PTX file) is missing");
	rejects(HEAD "\"extra\": 1, " BUFS TASK(""), "unknown member \"extra\"");
	rejects(HEAD "\"buffers\": {}, " TASK(""), "buffers: a non-empty array expected");
	rejects(HEAD BUFS "\"tasks\": []}", "tasks: a non-empty array expected");
	rejects(HEAD "\"params\": {\"N\": \"M+1\"}, " BUFS TASK(""),
		"params: \"N\": expression \"M+1\": unknown parameter");
}

Test(runtime_workload, a_syntax_error_names_the_line_and_column_on_one_line)
{
	char want[256];

	rejects(HEAD "\n\"params\": {\"N\": 4,\n  \"M\": 5,,\n  \"K\": 6}, " BUFS TASK(""),
		"w.json:3:11: JSON syntax error near '  \"M\": 5,,'");
	snprintf(want, sizeof(want), "%s/w.json:3:11: JSON syntax error near", dir);
	cr_assert(!strncmp(skip_errmsg(), want, strlen(want)), "%s", skip_errmsg());
	cr_assert_null(strchr(skip_errmsg(), '\n'), "one line: %s", skip_errmsg());
}

/* skip run and skip advise --workload crashed on this (a stack overflow in the parser). */
Test(runtime_workload, a_deeply_nested_expression_is_named_not_a_crash)
{
	enum { LONG = 100000 };
	char *deep = malloc(LONG + 2), *text = malloc(LONG + 512);

	cr_assert(deep && text);
	memset(deep, '-', LONG);
	strcpy(deep + LONG, "1");
	snprintf(text, LONG + 512, HEAD "\"params\": {\"N\": 4, \"M\": \"%s\"}, " BUFS TASK(""),
		 deep);
	rejects(text, "w.json: params: \"M\": expression \"----------------------------------------"
		      "...\" (100001 characters): nested deeper than 256 levels at offset 256");
	snprintf(text, LONG + 512, HEAD BUFS TASK(", \"args\": [{\"i64\": \"%s\"}]"), deep);
	rejects(text, "w.json: tasks[0] (\"k\"): args[0] (i64): expression \"---");
	free(deep);
	free(text);
}

/* 32-bit arguments were truncated silently: {"i32": 2^40} ran the kernel with 0. */
Test(runtime_workload, integer_arguments_out_of_their_type_are_rejected)
{
	const struct sk_task *t;

	rejects(HEAD BUFS TASK(", \"args\": [{\"buffer\": \"x\"}, {\"i32\": 1099511627776}]"),
		"tasks[0] (\"k\"): args[1] (i32) = 1099511627776 is outside "
		"-2147483648..2147483647");
	rejects(HEAD BUFS TASK(", \"args\": [{\"i32\": \"-2147483648 - 1\"}]"),
		"tasks[0] (\"k\"): args[0] (i32) = -2147483649 is outside");
	rejects(HEAD "\"params\": {\"N\": 65536}, " BUFS TASK(", \"args\": [{\"u32\": \"N*N\"}]"),
		"tasks[0] (\"k\"): args[0] (u32) = 4294967296 is outside 0..4294967295");
	rejects(HEAD BUFS TASK(", \"args\": [{\"u32\": -1}]"),
		"args[0] (u32) = -1 is outside 0..4294967295");
	rejects(HEAD BUFS TASK(", \"args\": [{\"u64\": -1}]"),
		"args[0] (u64) = -1 is outside 0..9223372036854775807");
	rejects(HEAD BUFS TASK(", \"args\": [{\"i64\": 1e19}]"),
		"args[0] (i64): 1e+19 is outside the 64-bit integers");
	load_with(HEAD BUFS TASK(", \"args\": [{\"i32\": -2147483648}, {\"u32\": 4294967295}, "
				 "{\"i64\": -9007199254740992}]"),
		  NULL, NULL, 0);
	t = &skip_workload_graph(w)->tasks[0];
	cr_assert_eq(*(const int32_t *)t->args[0].value, INT32_MIN);
	cr_assert_eq(*(const uint32_t *)t->args[1].value, UINT32_MAX);
	cr_assert_eq(*(const int64_t *)t->args[2].value, -9007199254740992LL);
}

/* A bf16 buffer: two bytes an element, compared as floats with the bf16 defaults unless the
 * file gives a tolerance. */
Test(runtime_workload, bf16_buffers_have_two_byte_elements)
{
	const char *path = write_file(
	    "bf.json", HEAD "\"params\": {\"N\": 96}, \"buffers\": ["
			    "{\"name\": \"a\", \"type\": \"bf16\", \"count\": \"N\", \"init\": "
			    "{\"random\": {\"seed\": 5, \"min\": -0.5, \"max\": 0.5}}},"
			    "{\"name\": \"b\", \"type\": \"bf16\", \"count\": 3, \"tolerance\": "
			    "{\"rtol\": 0.05, \"atol\": 0.01}}], " TASK(""));
	struct skip_graph *g;
	int err;

	w = skip_workload_load(path, NULL, NULL, 0, NULL, &err);
	cr_assert_not_null(w, "%s", skip_errmsg());
	g = skip_workload_graph(w);
	cr_assert_eq(skip_graph_buffer_size(g, 0), 192);
	cr_assert_eq(skip_graph_buffer_size(g, 1), 6);
	cr_assert_eq(g->bufs[0].dtype, SKIP_DT_BF16);
	cr_assert_float_eq(g->bufs[0].rtol, 1e-2, 1e-15);
	cr_assert_float_eq(g->bufs[0].atol, 1e-3, 1e-15);
	cr_assert_float_eq(g->bufs[0].init.lo, -0.5, 1e-15);
	cr_assert_float_eq(g->bufs[1].rtol, 0.05, 1e-15);
	cr_assert_float_eq(g->bufs[1].atol, 0.01, 1e-15);
}

Test(runtime_workload, buffer_mistakes_are_named)
{
	rejects(HEAD "\"buffers\": [{\"type\": \"f32\", \"count\": 4}], " TASK(""),
		"buffers[0]: \"name\" (a string) is missing");
	rejects(HEAD
		"\"buffers\": [{\"name\": \"x\", \"type\": \"float\", \"count\": 4}], " TASK(""),
		"buffers[0] (\"x\"): \"type\": one of u8, i32, u32, i64, u64, f32, f64, bf16 "
		"expected");
	rejects(HEAD "\"buffers\": [{\"name\": \"x\", \"count\": 4, \"size\": 4}], " TASK(""),
		"give either \"count\" (elements) or \"size\" (bytes)");
	rejects(HEAD "\"buffers\": [{\"name\": \"x\", \"count\": 0}], " TASK(""),
		"count = 0 is outside 1..");
	rejects(HEAD
		"\"buffers\": [{\"name\": \"x\", \"count\": 4, \"init\": \"ones\"}], " TASK(""),
		"\"init\": \"zeros\", \"none\", {\"constant\": X}");
	rejects(HEAD "\"buffers\": [{\"name\": \"x\", \"count\": 4, \"init\": {\"random\": "
		     "{\"min\": 2, \"max\": 1}}}], " TASK(""),
		"random: min 2 must be below max 1");
	rejects(HEAD "\"buffers\": [{\"name\": \"x\", \"type\": \"f64\", \"size\": 12}], " TASK(""),
		"12 bytes is not a whole number of 8-byte elements");
	rejects(HEAD "\"buffers\": [{\"name\": \"x\", \"type\": \"bf16\", \"size\": 7}], " TASK(""),
		"7 bytes is not a whole number of 2-byte elements");
	rejects(HEAD "\"buffers\": [{\"name\": \"x\", \"count\": 4}, {\"name\": \"x\", \"count\": "
		     "4}], " TASK(""),
		"buffers[1] (\"x\"): buffer 'x' defined twice");
}

Test(runtime_workload, task_mistakes_are_named)
{
	rejects(HEAD BUFS TASK(", \"args\": [{\"buffer\": \"z\"}]"),
		"tasks[0] (\"k\"): args[0]: unknown buffer 'z'");
	rejects(HEAD BUFS TASK(", \"reads\": [\"x\", \"q\"]"),
		"tasks[0] (\"k\"): reads: unknown buffer 'q'");
	rejects(HEAD BUFS TASK(", \"args\": [{\"i16\": 3}]"),
		"args[0]: unknown argument kind \"i16\"");
	rejects(HEAD BUFS TASK(", \"args\": [{\"i32\": 1, \"f32\": 2}]"),
		"args[0]: one value per argument");
	rejects(HEAD BUFS "\"tasks\": [{\"name\": \"k\", \"kernel\": \"f\", \"block\": 1}]}",
		"\"grid\" is missing");
	rejects(HEAD BUFS "\"tasks\": [{\"name\": \"k\", \"grid\": 1, \"block\": 1}]}",
		"\"kernel\" (the function's name in the module) is missing");
	rejects(
	    HEAD BUFS
	    "\"tasks\": [{\"name\": \"k\", \"kernel\": \"f\", \"grid\": 1, \"block\": [32, 64]}]}",
	    "task 'k': 2048 threads per block (at most 1024)");
	rejects(HEAD BUFS "\"tasks\": [{\"name\": \"k\", \"kernel\": \"f\", \"grid\": [1, 70000], "
			  "\"block\": 1}]}",
		"grid = 70000 is outside 1..65535");
	rejects(
	    HEAD BUFS TASK(", \"writes\": [{\"buffer\": \"x\", \"offset\": 1020, \"size\": 8}]"),
	    "bytes [1020, 1028) are outside buffer 'x' (1024 bytes)");
	rejects(HEAD BUFS TASK(", \"after\": [\"nobody\"]"), "after: unknown task 'nobody'");
	rejects(HEAD BUFS TASK(", \"pdl\": \"yes\""), "\"pdl\": true or false expected");
	rejects(HEAD BUFS TASK(", \"color\": 1"), "tasks[0] (\"k\"): unknown member \"color\"");
	rejects(
	    HEAD BUFS
	    "\"tasks\": [{\"name\": \"a\", \"kernel\": \"f\", \"grid\": 1, \"block\": 1, "
	    "\"writes\": [\"x\"], \"after\": [\"b\"]},"
	    "{\"name\": \"b\", \"kernel\": \"f\", \"grid\": 1, \"block\": 1, \"reads\": [\"x\"]}]}",
	    "cycle: a -> b -> a");
}

/* Two GEMMs (12 tiles each, 3 row blocks) and a scale of C2; @edges is the second task's
 * "tile_edges" member, @extra more members of the third. */
#define PAIR(edges, extra)                                                                         \
	"{\"skip_workload\": 1, \"module\": \"m.fatbin\", \"params\": {\"MT\": 3, \"NT\": 4}, "    \
	"\"buffers\": [{\"name\": \"C1\", \"size\": 64}, {\"name\": \"C2\", \"size\": 64}, "       \
	"{\"name\": \"Z\", \"size\": 64}], \"tasks\": ["                                           \
	"{\"name\": \"gemm1\", \"kernel\": \"g\", \"grid\": \"MT*NT\", \"block\": 128, "           \
	"\"writes\": [\"C1\"]}, "                                                                  \
	"{\"name\": \"gemm2\", \"kernel\": \"g\", \"grid\": \"MT*NT\", \"block\": 128, "           \
	"\"reads\": [\"C1\"], \"writes\": [\"C2\"]" edges "}, "                                    \
	"{\"name\": \"scale\", \"kernel\": \"s\", \"grid\": 6, \"block\": 128, "                   \
	"\"reads\": [\"C2\"], \"writes\": [\"Z\"]" extra "}]}"

Test(runtime_workload, tile_edges_are_read_with_their_policy_and_rows)
{
	const char *path = write_file(
	    "w.json", PAIR(", \"tile_edges\": [{\"from\": \"gemm1\", \"policy\": \"row\", "
			   "\"rows\": \"MT\"}]",
			   ", \"after\": [\"gemm1\"], \"tile_edges\": [{\"from\": \"gemm2\", "
			   "\"policy\": \"tile\"}, {\"from\": \"gemm1\", \"policy\": \"tile\"}]"));
	const struct skip_tile_edge *e;
	int err, n;

	w = skip_workload_load(path, NULL, NULL, 0, NULL, &err);
	cr_assert_not_null(w, "%s", skip_errmsg());
	n = skip_graph_tile_edges(skip_workload_graph(w), &e);
	cr_assert_eq(n, 3);
	cr_assert(e[0].from == 0 && e[0].to == 1 && e[0].policy == SKIP_TILE_ROW && e[0].rows == 3);
	cr_assert(e[1].from == 1 && e[1].to == 2 && e[1].policy == SKIP_TILE_TILE && !e[1].rows);
	cr_assert(e[2].from == 0 && e[2].to == 2 && e[2].policy == SKIP_TILE_TILE,
		  "a dependency through \"after\" may be tile-granular too");
	cr_assert_str_eq(skip_tile_policy_name(e[0].policy), "row");
}

Test(runtime_workload, tile_edge_mistakes_are_named)
{
	rejects(PAIR("", ", \"tile_edges\": [{\"from\": \"gemm1\", \"policy\": \"tile\"}]"),
		"w.json: tasks[2] (\"scale\"): tile_edges[0]: tile edge 'gemm1' -> 'scale': "
		"'scale' does not depend on 'gemm1'");
	rejects(PAIR(", \"tile_edges\": [{\"from\": \"gemm1\", \"policy\": \"row\", "
		     "\"rows\": 5}]",
		     ""),
		"tasks[1] (\"gemm2\"): tile_edges[0]: tile edge 'gemm1' -> 'gemm2': 5 rows must "
		"divide both the 12 blocks of 'gemm1' and the 12 of 'gemm2'");
	rejects(PAIR(", \"tile_edges\": [{\"from\": \"gemm1\", \"policy\": \"row\"}]", ""),
		"tile_edges[0]: policy \"row\" needs \"rows\"");
	rejects(PAIR(", \"tile_edges\": [{\"from\": \"gemm1\", \"policy\": \"tile\", "
		     "\"rows\": 3}]",
		     ""),
		"tile_edges[0]: \"rows\" goes with policy \"row\" only");
	rejects(PAIR(", \"tile_edges\": [{\"from\": \"gemm1\", \"policy\": \"col\"}]", ""),
		"tile_edges[0]: \"policy\": \"tile\" or \"row\" expected");
	rejects(PAIR(", \"tile_edges\": [{\"from\": \"gemm9\", \"policy\": \"tile\"}]", ""),
		"tile_edges[0]: from: unknown task 'gemm9'");
	rejects(PAIR(", \"tile_edges\": [{\"policy\": \"tile\"}]", ""),
		"tile_edges[0]: \"from\" (a task name) is missing");
	rejects(PAIR(", \"tile_edges\": [{\"from\": \"gemm1\", \"policy\": \"row\", "
		     "\"rows\": \"MT-3\"}]",
		     ""),
		"tile_edges[0]: rows = 0 is outside 1..");
	rejects(PAIR(", \"tile_edges\": [{\"from\": \"gemm1\", \"policy\": \"tile\", "
		     "\"to\": 1}]",
		     ""),
		"tile_edges[0]: unknown member \"to\"");
	rejects(PAIR(", \"tile_edges\": {\"from\": \"gemm1\"}", ""),
		"tasks[1] (\"gemm2\"): \"tile_edges\": an array of");
	rejects(PAIR(", \"tile_edges\": [{\"from\": \"gemm1\", \"policy\": \"tile\"}, "
		     "{\"from\": \"gemm1\", \"policy\": \"tile\"}]",
		     ""),
		"tile_edges[1]: tile edge 'gemm1' -> 'gemm2' declared twice");
}

/* The suite's workload files (the tests run from the repository root) build the DAG shapes
 * of papers.md section 5: task counts and widths counted by hand from the papers' figures
 * (plus the zeroing task VEC, IMG and DL need because their reductions accumulate). */
Test(runtime_workload, the_dag_suite_files_have_the_papers_shapes)
{
	static const struct {
		const char *file;
		int tasks, width;
	} suite[] = {
	    {"vec", 4, 3}, {"bs", 10, 10}, {"ml", 10, 2}, {"hits", 30, 2}, {"img", 12, 4},
	    {"dl", 9, 3},  {"m1", 17, 8},  {"m2", 14, 6}, {"pdl", 16, 1},
	};

	for (size_t i = 0; i < sizeof(suite) / sizeof(suite[0]); i++) {
		char path[128];
		int err;

		snprintf(path, sizeof(path), "bench/dags/%s.json", suite[i].file);
		for (int s = 0; s < 2; s++) {
			w = skip_workload_load(path, s ? "small" : "large", NULL, 0, NULL, &err);
			cr_assert_not_null(w, "%s", skip_errmsg());
			cr_assert_eq(skip_graph_ntasks(skip_workload_graph(w)), suite[i].tasks,
				     "%s", path);
			cr_assert_eq(skip_graph_width(skip_workload_graph(w)), suite[i].width, "%s",
				     path);
			skip_workload_free(w);
			w = NULL;
		}
	}
}

/* The GEMM pair of bench/gemm_pair (the kernel-boundary file; mlp.json differs only in its
 * tile edges): 128 x 128 tiles, so gemm1 has T/128 * 2816/128 = T/128 * 22 tiles and gemm2
 * T/128 * 8192/128 = T/128 * 64, none a multiple of the H100's 132 SMs; bf16 buffers. */
Test(runtime_workload, the_gemm_pair_has_cusync_shapes)
{
	static const struct {
		const char *size;
		unsigned tiles1, tiles2;
		size_t x_bytes;
	} sizes[] = {
	    {"t128", 22, 64, 128 * 8192 * 2},	     {"t256", 44, 128, 256 * 8192 * 2},
	    {"t512", 88, 256, 512 * 8192 * 2},	     {"t1024", 176, 512, 1024 * 8192 * 2},
	    {"t2048", 352, 1024, 2048UL * 8192 * 2}, {"check", 2 * 3, 2 * 4, 256 * 512 * 2},
	};

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		const struct skip_graph *g;
		const int *preds;
		int err;

		w = skip_workload_load("bench/gemm_pair/mlp_full.json", sizes[i].size, NULL, 0,
				       NULL, &err);
		cr_assert_not_null(w, "%s", skip_errmsg());
		g = skip_workload_graph(w);
		cr_assert_eq(skip_graph_ntasks(g), 2);
		cr_assert_eq(skip_graph_preds(g, 1, &preds), 1,
			     "gemm2 reads c1, which gemm1 writes");
		cr_assert_eq(preds[0], 0);
		cr_assert_eq(g->tasks[0].grid[0], sizes[i].tiles1, "%s", sizes[i].size);
		cr_assert_eq(g->tasks[1].grid[0], sizes[i].tiles2, "%s", sizes[i].size);
		cr_assert_neq(sizes[i].tiles1 % 132, 0);
		cr_assert_neq(sizes[i].tiles2 % 132, 0);
		cr_assert_eq(g->tasks[0].block[0], 256);
		cr_assert_eq(g->tasks[1].shared_bytes, 75904);
		cr_assert_eq(skip_graph_buffer_size(g, skip_graph_find_buffer(g, "x")),
			     sizes[i].x_bytes);
		cr_assert_eq(g->bufs[skip_graph_find_buffer(g, "c1")].dtype, SKIP_DT_BF16);
		skip_workload_free(w);
		w = NULL;
	}
}
