/*
 * cmd_record.c: `skip record [options] -- PROGRAM [ARGS]`.
 *
 * Runs the program under the collector (CUDA_INJECTION64_PATH and NVTX_INJECTION64_PATH both
 * point at libskip_collector.so), once, --repeat N times, or once per --sweep value (several
 * --sweep options make a grid), repetitions interleaved (A B C A B C ...) so that drift on a
 * noisy machine spreads over every point. With --baseline each configuration's full run is
 * followed by a baseline run (SKIP_TRACE=nvtx: no CUPTI activity; SKIP_RUNS.kind 'baseline'),
 * A B A B, so that both kinds see the same drift. Each run is one runId: every process of the run
 * writes its own file into OUTPUT.parts/, and after the run those are merged into OUTPUT
 * (kept, with a warning, when a merge fails). The program's exit status is propagated: the
 * last failing run's code, or 0.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd.h"

#define MAX_SWEEPS 4
#define MAX_VALUES 256

static const char help[] =
    "usage: skip record [options] [--] PROGRAM [ARGS...]\n"
    "\n"
    "Run PROGRAM under the CUDA collector and write every kernel, launch call, memcpy,\n"
    "memset, synchronization and NVTX range into one SQLite trace. No code change needed.\n"
    "\n"
    "  -o, --output FILE        trace to write (default: trace.skip.db)\n"
    "  -f, --force-overwrite    replace FILE if it exists and is a skip trace (or empty)\n"
    "  -t, --trace LIST         what to record, comma-separated (default:\n"
    "                           cuda,nvtx,sync,overhead). Kinds named replace the default\n"
    "                           kinds; options add to them:\n"
    "                             cuda        kernels, memcpy, memset and their launch calls\n"
    "                             nvtx        NVTX ranges and marks\n"
    "                             sync        the synchronize and event calls\n"
    "                             overhead    CUPTI's own overhead records\n"
    "                             all-apis    every runtime and driver API call (costly)\n"
    "                             graph-level one record per CUDA graph launch, not per node\n"
    "                             latency     per-kernel queued/submitted timestamps\n"
    "                             sync-records CUPTI's synchronization records (costly:\n"
    "                                         1.3x on a training step; no metric reads them)\n"
    "      --latency-timestamps same as adding 'latency' to --trace\n"
    "  -r, --repeat N           run the program N times, each its own run (default 1)\n"
    "  -s, --sweep NAME=V1,V2   run once per value: {NAME} in ARGS is replaced by the value\n"
    "                           and SKIP_PARAM_NAME (upper case) is set in the environment.\n"
    "                           Up to 4 --sweep options make a grid. With --repeat, the\n"
    "                           repetitions are interleaved: A B C A B C ...\n"
    "  -b, --baseline           with --repeat N (N >= 2) or --sweep: also run each\n"
    "                           configuration in the baseline mode (NVTX ranges and\n"
    "                           process identity only, no CUDA activity: next to no cost),\n"
    "                           interleaved with the full runs (A B A B ...), stored as runs\n"
    "                           of kind 'baseline'; skip report --region shows what the\n"
    "                           recording cost, skip advise takes the unprofiled time there\n"
    "  -l, --label TEXT         a label stored with every run\n"
    "  -c, --capture-range MODE record CUDA activity only in part of the program; outside\n"
    "                           it kernels cost little (less before the first range than\n"
    "                           after one) and NVTX ranges are still recorded, so report\n"
    "                           and advise compare a region's recorded and unrecorded\n"
    "                           occurrences. MODE:\n"
    "                             cudaProfilerApi  between the program's cudaProfilerStart\n"
    "                               and cudaProfilerStop calls (torch.cuda.profiler.start/\n"
    "                               stop; every such range, into the same run)\n"
    "                             nvtx:NAME[:FIRST[:COUNT]]  occurrences FIRST (default 1)\n"
    "                               to FIRST+COUNT-1 (default: to the end) of the NVTX range\n"
    "                               NAME, counted in the process: no code change\n"
    "                             none (default): the whole program\n"
    "      --torch-ops          PyTorch programs: one NVTX range per ATen operator\n"
    "                           (torch.autograd.profiler.emit_nvtx, turned on with no code\n"
    "                           change), so kernels get their operators; it slows small-op\n"
    "                           loops by 10-40% (docs/BENCHMARKS.md)\n"
    "  -q, --quiet              no progress lines, only the summary\n"
    "  -h, --help               show this help\n"
    "\n"
    "Every process the program starts that uses CUDA is recorded (fork+exec, multi-process\n"
    "apps); each writes FILE.parts/p<pid>-r<run>.skip.db, merged into FILE after each run.\n"
    "\n"
    "Exit status: the program's (the last failing run's, when several fail); 128+N when it\n"
    "died of signal N; 127 (126) when PROGRAM is not found (cannot be executed); 2 for a\n"
    "usage error, 1 when skip itself failed.\n"
    "\n"
    "Examples:\n"
    "  skip record -o mlp.skip.db -- python3 train.py --steps 50\n"
    "  skip record --repeat 3 --sweep batch=1,2,4,8 -- python3 prefill.py --batch {batch}\n"
    "  skip record --capture-range nvtx:step:21:10 -- python3 train.py   (steps 21-30)\n";

struct sweep {
	char name[64];
	char *values[MAX_VALUES];
	int nvalues;
};

struct record_opts {
	const char *output;
	int force;
	unsigned trace;
	char trace_spec[128];
	long repeat;
	struct sweep sweeps[MAX_SWEEPS];
	int nsweeps;
	const char *label;
	int quiet;
	int torch_ops;
	int baseline;	       /* --baseline: a baseline run after each full run */
	const char *capture;   /* --capture-range, when not none (struct skip_capture's spec) */
	char python_dir[4096]; /* the --torch-ops shim (sitecustomize.py) */
	char **argv;	       /* the program and its arguments */
	int argc;
};

static volatile sig_atomic_t interrupted;
static volatile pid_t child_pid;

/* ---- options ------------------------------------------------------------------------------ */

static int parse_sweep(struct record_opts *o, char *spec)
{
	struct sweep *s;
	char *eq = strchr(spec, '='), *save = NULL;

	if (o->nsweeps == MAX_SWEEPS)
		return cli_usage_error("record", "at most %d --sweep options", MAX_SWEEPS);
	if (!eq || eq == spec || !eq[1])
		return cli_usage_error("record", "--sweep takes NAME=V1,V2,...; got '%s'", spec);
	s = &o->sweeps[o->nsweeps];
	if ((size_t)(eq - spec) >= sizeof(s->name))
		return cli_usage_error("record", "--sweep name too long");
	memcpy(s->name, spec, (size_t)(eq - spec));
	s->name[eq - spec] = '\0';
	for (char *p = s->name; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_')
			return cli_usage_error(
			    "record", "--sweep name '%s': use letters, digits and _", s->name);
	for (int i = 0; i < o->nsweeps; i++)
		if (!strcmp(o->sweeps[i].name, s->name))
			return cli_usage_error("record", "--sweep %s given twice", s->name);
	for (char *v = strtok_r(eq + 1, ",", &save); v; v = strtok_r(NULL, ",", &save)) {
		if (s->nvalues == MAX_VALUES)
			return cli_usage_error("record", "--sweep %s: at most %d values", s->name,
					       MAX_VALUES);
		s->values[s->nvalues++] = v;
	}
	if (!s->nvalues)
		return cli_usage_error("record", "--sweep %s has no values", s->name);
	o->nsweeps++;
	return 0;
}

static int parse_args(int argc, char **argv, struct record_opts *o)
{
	enum { OPT_LATENCY = 256, OPT_TORCH_OPS };
	static const struct option opts[] = {
	    {"output", required_argument, NULL, 'o'},
	    {"force-overwrite", no_argument, NULL, 'f'},
	    {"trace", required_argument, NULL, 't'},
	    {"latency-timestamps", no_argument, NULL, OPT_LATENCY},
	    {"repeat", required_argument, NULL, 'r'},
	    {"sweep", required_argument, NULL, 's'},
	    {"label", required_argument, NULL, 'l'},
	    {"torch-ops", no_argument, NULL, OPT_TORCH_OPS},
	    {"baseline", no_argument, NULL, 'b'},
	    {"capture-range", required_argument, NULL, 'c'},
	    {"quiet", no_argument, NULL, 'q'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	int c, latency = 0;

	*o = (struct record_opts){
	    .output = "trace.skip.db", .repeat = 1, .trace = SKIP_TRACE_DEFAULT};
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:o:ft:r:s:l:bc:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o->output = optarg;
			break;
		case 'f':
			o->force = 1;
			break;
		case 't':
			if (skip_trace_opts_parse(optarg, &o->trace))
				return cli_usage_error("record", "%s", skip_errmsg());
			break;
		case OPT_LATENCY:
			latency = 1;
			break;
		case OPT_TORCH_OPS:
			o->torch_ops = 1;
			break;
		case 'r': {
			long long n = 0;

			if (cli_int("record", "--repeat", optarg, 1, 100000, NULL, &n))
				return EXIT_USAGE;
			o->repeat = (long)n;
			break;
		}
		case 's':
			if (parse_sweep(o, optarg))
				return EXIT_USAGE;
			break;
		case 'l':
			o->label = optarg;
			break;
		case 'b':
			o->baseline = 1;
			break;
		case 'c': {
			struct skip_capture cap;

			if (skip_capture_parse(optarg, &cap))
				return cli_usage_error("record", "%s", skip_errmsg());
			o->capture = cap.mode == SKIP_CAPTURE_NONE ? NULL : optarg;
			break;
		}
		case 'q':
			o->quiet = 1;
			break;
		case 'h':
			fputs(help, stdout);
			return -1;
		default: /* ':' a missing value, '?' an unknown option */
			return cli_bad_option("record", c, argv);
		}
	}
	if (latency)
		o->trace |= SKIP_TRACE_LATENCY;
	skip_trace_opts_format(o->trace, o->trace_spec, sizeof(o->trace_spec));
	if (o->baseline && o->repeat < 2 && !o->nsweeps)
		return cli_usage_error("record",
				       "--baseline compares runs: give --repeat N (N >= 2) or "
				       "--sweep NAME=V1,V2,... with it");
	if (o->baseline && !(o->trace & ~SKIP_TRACE_NVTX & SKIP_TRACE_KINDS))
		return cli_usage_error(
		    "record",
		    "--baseline with --trace %s: the full runs would record what "
		    "the baseline runs record (NVTX only); record cuda with them",
		    o->trace_spec);
	if (o->capture && !skip_trace_needs_cupti(o->trace))
		return cli_usage_error("record",
				       "--capture-range with --trace %s: NVTX alone is recorded "
				       "all along; record cuda with it",
				       o->trace_spec);
	if (optind >= argc)
		return cli_usage_error("record", "no program given (skip record [options] -- "
						 "PROGRAM [ARGS...])");
	if (!*o->output)
		return cli_usage_error("record", "--output is empty");
	o->argv = argv + optind;
	o->argc = argc - optind;
	return 0;
}

/* ---- the collector library ------------------------------------------------------------------ */

/* The --torch-ops shim: python/ next to the collector (the build tree and lib/skip alike). */
static int find_python_shim(const char *collector, char *buf, size_t n)
{
	char tmp[PATH_MAX];

	snprintf(tmp, sizeof(tmp), "%s", collector);
	snprintf(buf, n, "%s/python", dirname(tmp));
	if (access(buf, R_OK) == 0)
		return 0;
	fprintf(stderr,
		"skip record: error: --torch-ops: %s/sitecustomize.py not found (a broken "
		"install?)\n",
		buf);
	return -1;
}

static int find_collector(char *buf, size_t n)
{
	const char *env = getenv("SKIP_COLLECTOR");
	char exe[PATH_MAX];
	ssize_t len;

	if (env && *env) {
		if (access(env, R_OK) != 0) {
			fprintf(stderr, "skip record: error: SKIP_COLLECTOR=%s: %s\n", env,
				strerror(errno));
			return -1;
		}
		return realpath(env, buf) ? 0 : -1;
	}
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len > 0) {
		const char *cand[] = {"%s/libskip_collector.so",
				      "%s/../lib/skip/libskip_collector.so"};
		const char *dir;

		exe[len] = '\0';
		dir = dirname(exe); /* once: dirname() may rewrite its argument */
		for (size_t i = 0; i < sizeof(cand) / sizeof(cand[0]); i++) {
			char path[PATH_MAX + 64];

			snprintf(path, sizeof(path), cand[i], dir);
			if (access(path, R_OK) == 0 && realpath(path, buf))
				return 0;
		}
	}
	(void)n;
	fprintf(stderr,
		"skip record: error: libskip_collector.so not found next to skip or in "
		"../lib/skip/ (was skip built with the CUDA toolkit? 'make' says when the "
		"collector is skipped); set SKIP_COLLECTOR=/path/to/libskip_collector.so\n");
	return -1;
}

/* ---- one run ----------------------------------------------------------------------------------
 */

struct point {
	int idx[MAX_SWEEPS]; /* value index per sweep */
	long repetition;     /* 0-based */
	int baseline;	     /* the baseline run of this configuration and repetition */
};

/* Replace every {NAME} in @arg by its value at @pt. Returns a malloc'ed string. */
static char *substitute(const struct record_opts *o, const struct point *pt, const char *arg)
{
	struct sk_strbuf sb = {0};
	const char *p = arg;

	while (*p) {
		int done = 0;

		if (*p == '{') {
			for (int i = 0; i < o->nsweeps && !done; i++) {
				size_t n = strlen(o->sweeps[i].name);

				if (!strncmp(p + 1, o->sweeps[i].name, n) && p[n + 1] == '}') {
					const char *v = o->sweeps[i].values[pt->idx[i]];

					sk_strbuf_append(&sb, v, strlen(v));
					p += n + 2;
					done = 1;
				}
			}
		}
		if (!done)
			sk_strbuf_append(&sb, p++, 1);
	}
	return sb.buf ? sb.buf : sk_xstrdup("");
}

static char *json_escape(const char *s)
{
	struct sk_strbuf sb = {0};

	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			sk_strbuf_printf(&sb, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			sk_strbuf_printf(&sb, "\\u%04x", (unsigned char)*s);
		else
			sk_strbuf_append(&sb, s, 1);
	}
	return sb.buf ? sb.buf : sk_xstrdup("");
}

static void on_parent_signal(int sig)
{
	if (sig == SIGINT) {
		interrupted = 1; /* the terminal sent it to the program too */
		return;
	}
	interrupted = 1;
	if (child_pid > 0)
		kill(child_pid, sig);
}

static int insert_run(sqlite3 *db, const struct record_opts *o, int64_t run, const struct point *pt,
		      char **argv)
{
	struct sk_strbuf cmd = {0}, params = {0};
	sqlite3_stmt *st = NULL;
	char host[256] = "";
	int rc;

	for (int i = 0; argv[i]; i++)
		sk_strbuf_printf(&cmd, "%s%s", i ? " " : "", argv[i]);
	sk_strbuf_printf(&params, "{");
	for (int i = 0; i < o->nsweeps; i++) {
		char *n = json_escape(o->sweeps[i].name);
		char *v = json_escape(o->sweeps[i].values[pt->idx[i]]);

		sk_strbuf_printf(&params, "%s\"%s\": \"%s\"", i ? ", " : "", n, v);
		free(n);
		free(v);
	}
	sk_strbuf_printf(&params, "}");
	gethostname(host, sizeof(host) - 1);
	rc = sqlite3_prepare_v2(db,
				"INSERT INTO SKIP_RUNS(runId, label, commandLine, parameters, "
				"repetition, status, startUtcNs, start, hostname, kind) "
				"VALUES (?, ?, ?, ?, ?, 'running', ?, ?, ?, ?)",
				-1, &st, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, run);
		if (o->label)
			sqlite3_bind_text(st, 2, o->label, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, cmd.buf, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 4, params.buf, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 5, pt->repetition);
		sqlite3_bind_int64(st, 6, (int64_t)skip_clock_ns(CLOCK_REALTIME));
		sqlite3_bind_int64(st, 7, (int64_t)skip_clock_ns(SKIP_TRACE_CLOCK));
		sqlite3_bind_text(st, 8, host, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 9, pt->baseline ? SKIP_RUN_BASELINE : SKIP_RUN_FULL, -1,
				  SQLITE_STATIC);
		rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
		sqlite3_finalize(st);
	}
	for (int i = 0; rc == SQLITE_OK && i < o->nsweeps; i++) {
		const char *v = o->sweeps[i].values[pt->idx[i]];
		char *end;
		double num = strtod(v, &end);

		rc = sqlite3_prepare_v2(
		    db,
		    "INSERT INTO SKIP_PARAMETERS(runId, name, value, numericValue) "
		    "VALUES (?, ?, ?, ?)",
		    -1, &st, NULL);
		if (rc != SQLITE_OK)
			break;
		sqlite3_bind_int64(st, 1, run);
		sqlite3_bind_text(st, 2, o->sweeps[i].name, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, v, -1, SQLITE_STATIC);
		if (*v && !*end)
			sqlite3_bind_double(st, 4, num);
		rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
		sqlite3_finalize(st);
	}
	free(cmd.buf);
	free(params.buf);
	if (rc != SQLITE_OK)
		return sk_fail(SKIP_E_DB, "cannot store run %lld: %s", (long long)run,
			       sqlite3_errmsg(db));
	return 0;
}

static void finish_run(sqlite3 *db, int64_t run, int status, pid_t pid)
{
	sqlite3_stmt *st = NULL;
	int code = -1, sig = 0;

	if (WIFEXITED(status))
		code = WEXITSTATUS(status);
	else if (WIFSIGNALED(status))
		sig = WTERMSIG(status);
	if (sqlite3_prepare_v2(db,
			       "UPDATE SKIP_RUNS SET exitCode = ?, exitSignal = ?, status = ?, "
			       "endUtcNs = ?, end = ?, pid = ? WHERE runId = ?",
			       -1, &st, NULL) != SQLITE_OK)
		return;
	if (code >= 0)
		sqlite3_bind_int(st, 1, code);
	if (sig)
		sqlite3_bind_int(st, 2, sig);
	sqlite3_bind_text(st, 3, code == 0 ? "ok" : sig ? "signaled" : "failed", -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, (int64_t)skip_clock_ns(CLOCK_REALTIME));
	sqlite3_bind_int64(st, 5, (int64_t)skip_clock_ns(SKIP_TRACE_CLOCK));
	sqlite3_bind_int64(st, 6, pid);
	sqlite3_bind_int64(st, 7, run);
	sqlite3_step(st);
	sqlite3_finalize(st);
}

static void set_child_env(const struct record_opts *o, const struct point *pt,
			  const char *collector, const char *parts, int64_t run)
{
	char buf[32];

	setenv("CUDA_INJECTION64_PATH", collector, 1);
	setenv("NVTX_INJECTION64_PATH", collector, 1);
	setenv("SKIP_OUT_DIR", parts, 1);
	snprintf(buf, sizeof(buf), "%lld", (long long)run);
	setenv("SKIP_RUN_ID", buf, 1);
	/* A baseline run records NVTX only: the collector then never enables CUPTI. */
	setenv("SKIP_TRACE", pt->baseline ? "nvtx" : o->trace_spec, 1);
	if (o->capture)
		setenv("SKIP_CAPTURE", o->capture, 1);
	else
		unsetenv("SKIP_CAPTURE");
	unsetenv("SKIP_OUTPUT");
	if (o->torch_ops) {
		const char *pp = getenv("PYTHONPATH");
		char *path =
		    sk_xasprintf("%s%s%s", o->python_dir, pp && *pp ? ":" : "", pp ? pp : "");

		setenv("PYTHONPATH", path, 1);
		setenv("SKIP_TORCH_OPS", "1", 1);
		free(path);
	}
	for (int i = 0; i < o->nsweeps; i++) {
		char name[96];

		snprintf(name, sizeof(name), "SKIP_PARAM_%s", o->sweeps[i].name);
		for (char *p = name; *p; p++)
			*p = (char)toupper((unsigned char)*p);
		setenv(name, o->sweeps[i].values[pt->idx[i]], 1);
	}
}

/* Fork and exec; returns the wait status, or -1 if the fork failed. */
static int run_program(const struct record_opts *o, const struct point *pt, char **argv,
		       const char *collector, const char *parts, int64_t run, pid_t *pid_out)
{
	int status = 0;
	pid_t pid = fork();

	if (pid < 0) {
		fprintf(stderr, "skip record: error: fork: %s\n", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		set_child_env(o, pt, collector, parts, run);
		execvp(argv[0], argv);
		fprintf(stderr, "skip record: error: cannot run '%s': %s\n", argv[0],
			strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	child_pid = pid;
	*pid_out = pid;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	child_pid = 0;
	return status;
}

/* Merge every part file of @run into @db. Returns how many could not be merged (kept). */
static int merge_parts(sqlite3 *db, const char *parts, int64_t run, int *merged)
{
	char suffix[32], path[PATH_MAX + 256];
	struct dirent *de;
	DIR *d = opendir(parts);
	int kept = 0;

	*merged = 0;
	if (!d)
		return 0;
	snprintf(suffix, sizeof(suffix), "-r%lld", (long long)run);
	while ((de = readdir(d))) {
		const char *r = strstr(de->d_name, suffix);
		size_t n = strlen(de->d_name);

		if (de->d_name[0] != 'p' || !r || n < 8 || strcmp(de->d_name + n - 8, ".skip.db") ||
		    (r[strlen(suffix)] != '.' && r[strlen(suffix)] != '-'))
			continue;
		snprintf(path, sizeof(path), "%s/%s", parts, de->d_name);
		if (skip_store_merge(db, path) == 0) {
			char side[PATH_MAX + 300];

			unlink(path);
			snprintf(side, sizeof(side), "%s-wal", path);
			unlink(side);
			snprintf(side, sizeof(side), "%s-shm", path);
			unlink(side);
			(*merged)++;
		} else {
			fprintf(stderr,
				"skip record: warning: %s; the file is kept and can be read on its "
				"own ('skip info %s')\n",
				skip_errmsg(), path);
			kept++;
		}
	}
	closedir(d);
	return kept;
}

static int next_point(const struct record_opts *o, struct point *pt)
{
	if (o->baseline && !pt->baseline) { /* A B: the baseline run right after the full one */
		pt->baseline = 1;
		return 1;
	}
	pt->baseline = 0;
	for (int i = o->nsweeps - 1; i >= 0; i--) {
		if (++pt->idx[i] < o->sweeps[i].nvalues)
			return 1;
		pt->idx[i] = 0;
	}
	return ++pt->repetition < o->repeat;
}

static long total_runs(const struct record_opts *o)
{
	long n = o->repeat;

	for (int i = 0; i < o->nsweeps; i++)
		n *= o->sweeps[i].nvalues;
	return o->baseline ? 2 * n : n;
}

static void describe_point(const struct record_opts *o, const struct point *pt, char *buf, size_t n)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < o->nsweeps && used < n; i++)
		used += (size_t)snprintf(buf + used, n - used, "%s%s=%s", i ? ", " : "",
					 o->sweeps[i].name, o->sweeps[i].values[pt->idx[i]]);
	if (o->repeat > 1 && used < n)
		used += (size_t)snprintf(buf + used, n - used, "%srepetition %ld/%ld",
					 used ? ", " : "", pt->repetition + 1, o->repeat);
	if (pt->baseline && used < n)
		snprintf(buf + used, n - used, "%sbaseline", used ? ", " : "");
}

/* ---- the command -------------------------------------------------------------------------------
 */

static int record_all(const struct record_opts *o, sqlite3 *db, const char *collector,
		      const char *parts, int *last_failure)
{
	struct point pt = {{0}, 0, 0};
	long total = total_runs(o);
	int64_t run = 0;
	int kept_total = 0;

	*last_failure = 0;
	do {
		char **argv = sk_xcalloc((size_t)o->argc + 1, sizeof(char *));
		char what[256];
		uint64_t t0 = skip_clock_ns(CLOCK_MONOTONIC);
		int status, merged = 0, kept_run, code;
		pid_t pid = 0;

		run++;
		for (int i = 0; i < o->argc; i++)
			argv[i] = substitute(o, &pt, o->argv[i]);
		describe_point(o, &pt, what, sizeof(what));
		if (!o->quiet)
			fprintf(stderr, "skip: run %lld/%ld%s%s%s: %s\n", (long long)run, total,
				what[0] ? " (" : "", what, what[0] ? ")" : "", argv[0]);
		if (insert_run(db, o, run, &pt, argv)) {
			fprintf(stderr, "skip record: error: %s\n", skip_errmsg());
			for (int i = 0; i < o->argc; i++)
				free(argv[i]);
			free(argv);
			return -1;
		}
		status = run_program(o, &pt, argv, collector, parts, run, &pid);
		for (int i = 0; i < o->argc; i++)
			free(argv[i]);
		free(argv);
		if (status < 0)
			return -1;
		finish_run(db, run, status, pid);
		kept_run = merge_parts(db, parts, run, &merged);
		kept_total += kept_run;
		code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
		if (code)
			*last_failure = code;
		if (!o->quiet || code) {
			char t[64];

			snprintf(t, sizeof(t), "%.1f s",
				 (double)(skip_clock_ns(CLOCK_MONOTONIC) - t0) / 1e9);
			if (WIFSIGNALED(status))
				fprintf(stderr,
					"skip: run %lld killed by signal %d (%s) after %s\n",
					(long long)run, WTERMSIG(status),
					strsignal(WTERMSIG(status)), t);
			else
				fprintf(stderr, "skip: run %lld exited %d after %s%s\n",
					(long long)run, WEXITSTATUS(status), t,
					merged || kept_run || pt.baseline
					    ? ""
					    : "; no CUDA activity was recorded");
		}
		if (!merged && !kept_total && !o->quiet && !pt.baseline)
			fprintf(
			    stderr,
			    "skip: note: the program did not initialize CUDA in any process, or "
			    "the collector could not load (see messages above)\n");
		if (interrupted) {
			fprintf(stderr, "skip: interrupted; %lld of %ld runs recorded\n",
				(long long)run, total);
			break;
		}
	} while (next_point(o, &pt));
	return kept_total;
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o;
	char collector[PATH_MAX], parts[PATH_MAX + 16];
	struct sigaction sa = {0}, old_int, old_term, old_hup;
	struct skip_outfile out;
	sqlite3 *db = NULL;
	int err, kept, last_failure = 0;

	err = parse_args(argc, argv, &o);
	if (err)
		return err < 0 ? EXIT_OK : err;
	if (find_collector(collector, sizeof(collector)))
		return EXIT_ERR;
	if (o.torch_ops && find_python_shim(collector, o.python_dir, sizeof(o.python_dir)))
		return EXIT_ERR;
	if ((err = cli_new_trace("record", &out, o.output, o.force, NULL, 0, &db)))
		return err;
	snprintf(parts, sizeof(parts), "%s.parts", o.output);
	if (mkdir(parts, 0755) != 0 && errno != EEXIST) {
		fprintf(stderr, "skip record: error: cannot create %s: %s\n", parts,
			strerror(errno));
		sqlite3_close(db);
		skip_outfile_abort(&out);
		return EXIT_ERR;
	}
	{
		char buf[64];

		skip_store_meta_set(db, 0, 0, "skip_version", SKIP_VERSION);
		skip_store_meta_set(db, 0, 0, "trace", o.trace_spec);
		snprintf(buf, sizeof(buf), "%ld", o.repeat);
		skip_store_meta_set(db, 0, 0, "repeat", buf);
		if (o.baseline)
			skip_store_meta_set(db, 0, 0, "baseline", "nvtx");
		if (o.torch_ops)
			skip_store_meta_set(db, 0, 0, "torch_ops", "on");
		if (o.capture)
			skip_store_meta_set(db, 0, 0, "capture_range", o.capture);
	}

	sa.sa_handler = on_parent_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGHUP, &sa, &old_hup);
	kept = record_all(&o, db, collector, parts, &last_failure);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);

	if (kept <= 0)
		rmdir(parts);
	err = skip_store_finalize(db);
	if (err)
		fprintf(stderr, "skip record: warning: %s\n", skip_errmsg());
	/* What was recorded is kept under the requested name even when a run failed. */
	sqlite3_close(db);
	db = NULL;
	err = skip_outfile_commit(&out);
	if (err) {
		fprintf(stderr, "skip record: error: %s\n", skip_errmsg());
		return EXIT_ERR;
	}
	if (kept < 0)
		return EXIT_ERR;
	printf("skip: recorded %s into %s\n", o.argv[0], o.output);
	if (skip_store_open(o.output, SKIP_STORE_READONLY, &db) == 0)
		cli_print_summary(stdout, db, o.output);
	else
		fprintf(stderr, "skip record: error: %s\n", skip_errmsg());
	if (kept > 0)
		printf("  %-16s %d per-process file(s) could not be merged; kept in %s\n",
		       "warning", kept, parts);
	sqlite3_close(db);
	return last_failure;
}
