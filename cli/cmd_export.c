/*
 * cmd_export.c: `skip export TRACE --format FMT -o OUT`: the trace in other tools' formats -
 * Perfetto / chrome://tracing JSON, PyTorch profiler (Kineto) JSON, CSV tables or query
 * results, a Jupyter notebook, the HTML report - for one run or one region occurrence - and
 * one run as a trace of its own (sqlite), for SQL written for Nsight Systems, whose tables have
 * no runId. notebooks-export/skip_export.h writes the first five, skip_store_export_run()
 * (common/merge.c) the last; every output goes through skip_outfile_* (temporary name, then
 * rename; never an input or a file skip did not write).
 * docs/skip-export.md describes the formats.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd.h"
#include "skip_advisor.h"
#include "skip_export.h"

static const char help[] =
    "usage: skip export TRACE --format FMT -o OUT [--run N] [--region NAME [--occurrence K]]\n"
    "                         [--query SQL]... [--force]\n"
    "\n"
    "Write the trace in another tool's format. FMT is one of:\n"
    "  perfetto  Chrome trace-event JSON for ui.perfetto.dev and chrome://tracing: a process\n"
    "            per recorded process, a track per CPU thread and GPU stream, API calls,\n"
    "            kernels, memcpys, memsets, synchronizations, NVTX ranges, launch arrows\n"
    "  kineto    the same timeline as PyTorch profiler JSON (HTA, TensorBoard)\n"
    "  csv       one file per table, OUT/TABLE.csv (OUT is a folder); with --query, one file\n"
    "            per query, OUT/query-1.csv, ... (or OUT '-' for a single query)\n"
    "  ipynb     a Jupyter notebook that analyses the trace with sqlite3, pandas, matplotlib\n"
    "  html      skip report's HTML page\n"
    "  sqlite    run N alone as a skip trace (schema 2, Nsight Systems' table layout), so\n"
    "            that SQL written for nsys, which has no runId, answers for that run\n"
    "\n"
    "  -f, --format FMT       the format (required)\n"
    "  -o, --output OUT       the file (a folder for csv); '-' is standard output\n"
    "  -r, --run N            run N only (default: every run; sqlite: required unless the\n"
    "                         trace has one run)\n"
    "  -R, --region NAME      only one occurrence of the NVTX range NAME (in run N, else in\n"
    "                         the first run that has it): its records and its GPU work\n"
    "  -n, --occurrence K     which occurrence (default 1)\n"
    "  -q, --query SQL        csv: the rows of this SELECT instead of the tables\n"
    "      --force            sqlite: replace OUT if it is a skip trace already\n"
    "  -h, --help             show this help\n"
    "\n"
    "An existing OUT is replaced only when skip export wrote it (sqlite: only with --force,\n"
    "and only a skip trace). Exit status: 0 ok; 2 for a usage error or a trace that cannot\n"
    "be exported (missing, not a skip trace, damaged, no such run, region or occurrence, a\n"
    "query that does not compile, an output that may not be replaced); 1 on other errors.\n"
    "docs/skip-export.md.\n";

enum fmt { F_PERFETTO, F_KINETO, F_CSV, F_IPYNB, F_HTML, F_SQLITE };
static const char *const fmt_names[] = {"perfetto", "kineto", "csv", "ipynb", "html", "sqlite"};

struct export_opts {
	const char *path, *out;
	int fmt;   /* enum fmt, -1 unset */
	int force; /* sqlite: replace an existing skip trace */
	struct skip_export_pick pick;
	const char **queries; /* borrowed from argv */
	size_t nqueries, cap;
};

static int parse_opt(struct export_opts *o, int c, const char *arg)
{
	switch (c) {
	case 'f':
		for (int i = 0; i < (int)(sizeof(fmt_names) / sizeof(fmt_names[0])); i++)
			if (!strcmp(arg, fmt_names[i]))
				o->fmt = i;
		if (o->fmt < 0)
			return cli_usage_error("export",
					       "--format takes perfetto, kineto, csv, ipynb, html "
					       "or sqlite; got '%s'",
					       arg);
		return 0;
	case 'o':
		o->out = arg;
		return 0;
	case 'n':
		return cli_int32("export", "--occurrence", arg, 1, INT_MAX, &o->pick.occurrence);
	case 'q':
		SK_VEC_XPUSH(o->queries, o->nqueries, o->cap, arg);
		return 0;
	case 'F':
		o->force = 1;
		return 0;
	}
	return cli_usage_error("export", "unknown option");
}

static int check(const struct export_opts *o)
{
	if (o->fmt < 0)
		return cli_usage_error("export", "--format is required (perfetto, kineto, csv, "
						 "ipynb, html or sqlite)");
	if (!o->out)
		return cli_usage_error("export", "-o OUT is required");
	if (o->nqueries && o->fmt != F_CSV)
		return cli_usage_error("export", "--query needs --format csv");
	if (o->pick.occurrence && !o->pick.region)
		return cli_usage_error("export", "--occurrence needs --region");
	if (o->pick.occurrence && o->fmt == F_HTML)
		return cli_usage_error("export", "--format html reports every occurrence of the "
						 "region; leave --occurrence out");
	if (o->force && o->fmt != F_SQLITE)
		return cli_usage_error("export", "--force is for --format sqlite (the other "
						 "formats replace the files skip export wrote)");
	if (o->fmt == F_SQLITE && o->pick.region)
		return cli_usage_error(
		    "export", "--format sqlite writes whole runs: a region is a time window "
			      "that nsys's tables cannot hold; leave --region out (or use "
			      "--format csv, which takes --region)");
	if (o->fmt == F_SQLITE && !strcmp(o->out, "-"))
		return cli_usage_error("export", "--format sqlite writes a trace file; name it "
						 "with -o OUT.skip.db");
	if (o->fmt == F_CSV && !strcmp(o->out, "-") && o->nqueries != 1)
		return cli_usage_error("export",
				       "csv to standard output takes exactly one --query; "
				       "name a folder with -o for the tables");
	return 0;
}

static int parse(int argc, char **argv, struct export_opts *o)
{
	static const struct option opts[] = {
	    CLI_PICK_LONGOPTS,
	    {"format", required_argument, NULL, 'f'},
	    {"output", required_argument, NULL, 'o'},
	    {"occurrence", required_argument, NULL, 'n'},
	    {"query", required_argument, NULL, 'q'},
	    {"force", no_argument, NULL, 'F'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	struct cli_pick pick = {0};
	int c, rc = 0;

	o->fmt = -1;
	optind = 1;
	opterr = 0;
	while (!rc && (c = getopt_long(argc, argv, ":r:R:f:o:n:q:h", opts, NULL)) != -1) {
		if (cli_pick_opt("export", c, optarg, &pick, &rc))
			continue;
		if (c == 'h') {
			fputs(help, stdout);
			return -1;
		}
		if (c == ':' || c == '?')
			return cli_bad_option("export", c, argv);
		rc = parse_opt(o, c, optarg);
	}
	if (rc)
		return rc;
	o->pick.run_id = pick.run_id;
	o->pick.region = pick.region;
	if (optind != argc - 1)
		return cli_usage_error("export", optind >= argc ? "no trace file given"
								: "expected one trace file");
	o->path = argv[optind];
	return check(o);
}

/* ---- one output file ---------------------------------------------------------------------- */

/* Finish @of after its writer returned @err: commit, or give it up. 0, or an exit code. */
static int finish(struct skip_outfile *of, int err, const char *what)
{
	char *path = sk_xstrdup(of->path);
	int to_stdout = of->to_stdout;

	if (err) {
		if (err == SKIP_E_INVAL) /* refused before anything was written: a bad query */
			fprintf(stderr, "skip export: error: %s\n", skip_errmsg());
		else
			fprintf(stderr, "skip export: error: writing %s failed: %s\n", path,
				skip_errmsg());
		skip_outfile_abort(of);
		free(path);
		return err == SKIP_E_INVAL ? EXIT_USAGE : EXIT_ERR;
	}
	if (skip_outfile_commit(of)) {
		fprintf(stderr, "skip export: error: %s\n", skip_errmsg());
		free(path);
		return EXIT_ERR;
	}
	if (!to_stdout)
		fprintf(stderr, "skip export: wrote %s%s\n", path, what);
	free(path);
	return EXIT_OK;
}

/* Perfetto's JSON importer struggles with files above about 1 GB (docs/skip-export.md). */
static void warn_size(const struct export_opts *o, int64_t bytes)
{
	const char *env = getenv("SKIP_EXPORT_WARN_BYTES");
	double limit = env && *env ? strtod(env, NULL) : 1e9;
	char b[32];

	if ((double)bytes <= limit)
		return;
	fprintf(stderr,
		"skip export: warning: %s is %s; ui.perfetto.dev and chrome://tracing struggle "
		"with JSON above about 1 GB: export one run (--run N) or one region (--region "
		"NAME), or use --format csv\n",
		o->out, cli_bytes(b, sizeof(b), (double)bytes));
}

static int write_timeline(const struct export_opts *o, struct skip_trace *t,
			  const struct skip_export_sel *sel, struct skip_outfile *of)
{
	struct skip_export_counts c = {0};
	char what[160], a[32], b[32], m[32];
	int err = skip_export_timeline(
	    t, o->path, sel, o->fmt == F_KINETO ? SKIP_TIMELINE_KINETO : SKIP_TIMELINE_PERFETTO,
	    of->f, &c);

	snprintf(what, sizeof(what), " (%s: %s events, %s flows, %s)", fmt_names[o->fmt],
		 cli_group(a, sizeof(a), c.events), cli_group(b, sizeof(b), c.flows),
		 cli_bytes(m, sizeof(m), (double)c.bytes));
	err = finish(of, err, what);
	if (!err && c.malformed)
		fprintf(stderr,
			"skip export: note: left out %lld malformed records (docs/trace-format.md "
			"\"Well-formed records\")\n",
			(long long)c.malformed);
	if (!err)
		warn_size(o, c.bytes);
	return err;
}

static int write_html(const struct export_opts *o, struct skip_trace *t, struct skip_outfile *of)
{
	struct skip_analysis_opts a = {.run_id = o->pick.run_id, .region = o->pick.region};
	struct skip_report *r = NULL;
	int err = skip_analyze(t, &a, &r);

	if (!err)
		err = skip_report_add_graph_gain(t, &a, NULL, r);
	if (err) {
		fprintf(stderr, "skip export: error: %s\n", skip_errmsg());
		skip_report_free(r);
		skip_outfile_abort(of);
		return err == SKIP_E_NOMEM ? EXIT_ERR : EXIT_USAGE;
	}
	err = finish(of, skip_export_html(r, of->f), "");
	skip_report_free(r);
	return err;
}

/* The trace's path as seen from the folder of @out: its name when both are in the same
 * folder, else its absolute path. Malloc'ed. */
static char *trace_ref(const char *trace, const char *out)
{
	char *tcopy = sk_xstrdup(trace), *ocopy = sk_xstrdup(out);
	char tdir[PATH_MAX], odir[PATH_MAX], *ref;

	if (!strcmp(out, "-") || !realpath(dirname(tcopy), tdir) || !realpath(dirname(ocopy), odir))
		ref = sk_xstrdup(trace);
	else if (!strcmp(tdir, odir))
		ref = sk_xstrdup(strrchr(trace, '/') ? strrchr(trace, '/') + 1 : trace);
	else
		ref = sk_xasprintf("%s/%s", tdir,
				   strrchr(trace, '/') ? strrchr(trace, '/') + 1 : trace);
	free(tcopy);
	free(ocopy);
	return ref;
}

static int write_notebook(const struct export_opts *o, struct skip_trace *t,
			  struct skip_outfile *of)
{
	char *ref = trace_ref(o->path, o->out), *param = skip_export_sweep_param(t);
	struct skip_notebook_opts n = {ref, o->pick.run_id, o->pick.region, o->pick.occurrence,
				       param};
	int err = finish(of, skip_export_notebook(&n, of->f), "");

	free(param);
	free(ref);
	return err;
}

/* ---- csv: a folder of files ---------------------------------------------------------------- */

static int dir_is_empty(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int empty = d != NULL;

	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			empty = 0;
	if (d)
		closedir(d);
	return empty;
}

/* Make @dir ready for CSV files: create it, or accept it when it is empty or skip export's. */
static int csv_folder(const char *dir)
{
	char *marker = sk_xasprintf("%s/" SKIP_CSV_MARKER, dir);
	struct stat st;
	FILE *f;
	int rc = EXIT_OK;

	if (lstat(dir, &st) && mkdir(dir, 0777)) {
		fprintf(stderr, "skip export: error: cannot create the folder %s: %s\n", dir,
			strerror(errno));
		rc = errno == ENOENT || errno == ENOTDIR ? EXIT_USAGE : EXIT_ERR;
	} else if (!lstat(dir, &st) && !S_ISDIR(st.st_mode)) {
		rc = cli_usage_error("export",
				     "%s exists and is not a folder; --format csv writes a folder "
				     "of CSV files (or one --query to -o -)",
				     dir);
	} else if (lstat(marker, &st) && !dir_is_empty(dir)) {
		rc =
		    cli_usage_error("export",
				    "%s is a folder skip export did not write (it is not empty and "
				    "has no " SKIP_CSV_MARKER "): choose another name",
				    dir);
	} else if (!(f = fopen(marker, "w")) || fputs("skip export csv\n", f) < 0 || fclose(f)) {
		fprintf(stderr, "skip export: error: cannot write %s: %s\n", marker,
			strerror(errno));
		rc = EXIT_ERR;
	}
	free(marker);
	return rc;
}

/* One CSV file at @path: the table @table, or the rows of @query. */
static int csv_file(const struct export_opts *o, struct skip_trace *t,
		    const struct skip_export_sel *sel, const char *path, const char *table,
		    const char *query)
{
	struct skip_outfile of = {0};
	int64_t rows = 0;
	char what[64], a[32];
	int err = skip_outfile_open(&of, path, SKIP_OUT_CSV, 1, &o->path, 1);

	if (err)
		return cli_output_error("export", err);
	err = table ? skip_export_csv_table(t, table, sel, of.f, &rows)
		    : skip_export_csv_query(t, query, of.f, &rows);
	snprintf(what, sizeof(what), " (%s rows)", cli_group(a, sizeof(a), rows));
	return finish(&of, err, what);
}

static int write_csv(const struct export_opts *o, struct skip_trace *t,
		     const struct skip_export_sel *sel)
{
	char **tables = NULL, *path;
	int n, rc = 0;

	if (!strcmp(o->out, "-"))
		return csv_file(o, t, sel, "-", NULL, o->queries[0]);
	rc = csv_folder(o->out);
	for (size_t i = 0; i < o->nqueries && !rc; i++) {
		path = sk_xasprintf("%s/query-%zu.csv", o->out, i + 1);
		rc = csv_file(o, t, sel, path, NULL, o->queries[i]);
		free(path);
	}
	if (rc || o->nqueries)
		return rc;
	n = skip_export_csv_tables(t, &tables);
	if (n < 0) {
		fprintf(stderr, "skip export: error: %s\n", skip_errmsg());
		return EXIT_ERR;
	}
	for (int i = 0; i < n; i++) {
		path = sk_xasprintf("%s/%s.csv", o->out, tables[i]);
		if (!rc)
			rc = csv_file(o, t, sel, path, tables[i], NULL);
		free(path);
		free(tables[i]);
	}
	free(tables);
	return rc;
}

/* ---- sqlite: one run as a trace of its own -------------------------------------------------- */

/* The trace or the output cannot be used as asked (exit 2), rather than a failure on the way. */
static int bad_input(int err)
{
	switch (err) {
	case SKIP_E_INVAL:
	case SKIP_E_NOTSQLITE:
	case SKIP_E_CORRUPT:
	case SKIP_E_FOREIGN:
	case SKIP_E_NEWER:
	case SKIP_E_OLDER:
	case SKIP_E_EXISTS:
	case SKIP_E_NOTFOUND:
		return 1;
	}
	return 0;
}

/* The run to write: --run, else the trace's only run; 0 and an exit code in *@rc if none. */
static int64_t sqlite_run(const struct export_opts *o, int *rc)
{
	struct skip_trace *t = NULL;
	int64_t *ids = NULL, n, run = 0;
	int err;

	*rc = EXIT_OK;
	if (o->pick.run_id)
		return o->pick.run_id;
	err = skip_trace_open(o->path, &t);
	if (err) {
		fprintf(stderr, "skip export: error: %s\n", skip_errmsg());
		*rc = err == SKIP_E_NOMEM ? EXIT_ERR : EXIT_USAGE;
		return 0;
	}
	n = skip_trace_runs(t, &ids);
	if (n == 1)
		run = ids[0];
	else if (n == 0)
		fprintf(stderr, "skip export: error: %s holds no run to write\n", o->path);
	else
		fprintf(stderr,
			"skip export: error: %s holds %lld runs; --format sqlite writes one: "
			"choose it with --run N ('skip info' lists them)\n",
			o->path, (long long)n);
	*rc = run ? EXIT_OK : EXIT_USAGE;
	free(ids);
	skip_trace_close(t);
	return run;
}

static int write_sqlite(const struct export_opts *o)
{
	int rc;
	int64_t run = sqlite_run(o, &rc);
	int err = run ? skip_store_export_run(o->path, run, o->out, o->force) : 0;

	if (!run)
		return rc;
	if (err == SKIP_E_EXISTS && !o->force) {
		fprintf(stderr,
			"skip export: error: %s exists; use --force to replace it or -o to choose "
			"another file\n",
			o->out);
		return EXIT_USAGE;
	}
	if (err) {
		fprintf(stderr, "skip export: error: %s\n", skip_errmsg());
		return bad_input(err) ? EXIT_USAGE : EXIT_ERR;
	}
	fprintf(stderr, "skip export: wrote %s (sqlite: run %lld)\n", o->out, (long long)run);
	return EXIT_OK;
}

/* ---- the command --------------------------------------------------------------------------- */

static const enum skip_out_kind out_kinds[] = {
    [F_PERFETTO] = SKIP_OUT_EXPORT,
    [F_KINETO] = SKIP_OUT_EXPORT,
    [F_IPYNB] = SKIP_OUT_EXPORT,
    [F_HTML] = SKIP_OUT_HTML,
};

static int run(const struct export_opts *o, struct skip_trace *t, struct skip_outfile *of)
{
	struct skip_export_sel sel;
	int err = skip_export_select(t, &o->pick, &sel);

	if (err) {
		fprintf(stderr, "skip export: error: %s\n", skip_errmsg());
		skip_outfile_abort(of);
		return err == SKIP_E_NOMEM ? EXIT_ERR : EXIT_USAGE;
	}
	switch (o->fmt) {
	case F_PERFETTO:
	case F_KINETO:
		err = write_timeline(o, t, &sel, of);
		break;
	case F_CSV:
		err = write_csv(o, t, &sel);
		break;
	case F_IPYNB:
		err = write_notebook(o, t, of);
		break;
	default:
		err = write_html(o, t, of);
	}
	skip_export_sel_fini(&sel);
	return err;
}

int cmd_export(int argc, char **argv)
{
	struct export_opts o = {0};
	struct skip_outfile of = {0};
	struct skip_trace *t = NULL;
	int err = parse(argc, argv, &o);

	if (err) {
		free(o.queries);
		return err < 0 ? EXIT_OK : err;
	}
	if (o.fmt == F_SQLITE) {
		free(o.queries);
		return write_sqlite(&o);
	}
	/* The output is checked before the work: a refused name costs nothing. */
	if (o.fmt != F_CSV &&
	    (err = skip_outfile_open(&of, o.out, out_kinds[o.fmt], 1, &o.path, 1))) {
		free(o.queries);
		return cli_output_error("export", err);
	}
	err = skip_trace_open(o.path, &t);
	if (err) {
		fprintf(stderr, "skip export: error: %s\n", skip_errmsg());
		skip_outfile_abort(&of);
		free(o.queries);
		return err == SKIP_E_NOMEM ? EXIT_ERR : EXIT_USAGE;
	}
	err = run(&o, t, &of);
	skip_trace_close(t);
	free(o.queries);
	return err;
}
