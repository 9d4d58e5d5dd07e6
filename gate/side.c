/*
 * side.c: one side of a comparison read from a trace. Each run is analyzed on its own
 * (skip_analyze() with run_id), so that every per-run figure - each metric's median and mean
 * over the run's region occurrences, and the per-kernel and per-operator totals - comes from
 * the analyzer's public results. Runs are grouped into cases by their parameters; runs whose
 * program failed, and runs without GPU work in the region, are left out with a note.
 */
#define SK_LOG_DOMAIN "gate"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "internal.h"

/* One kernel's or operator's totals in one run, before the per-name arrays are built. */
struct tup {
	char *name;
	size_t run; /* index in the case's runs */
	int64_t count, total_ns, launch_ns;
};

struct tups {
	struct tup *v;
	size_t n, cap;
};

/* A case being built: its runs and the name totals of each. */
struct building {
	struct tups kern, ops;
};

static void tups_add(struct tups *t, const struct skip_name_stat *s, size_t n, size_t run)
{
	for (size_t i = 0; i < n; i++) {
		SK_VEC_XPUSH(t->v, t->n, t->cap,
			     (struct tup){sk_xstrdup(s[i].name), run, s[i].count, s[i].total_ns,
					  s[i].launch_ns});
	}
}

static int cmp_tup(const void *a, const void *b)
{
	const struct tup *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->run > y->run) - (x->run < y->run);
}

/* The per-name arrays of @nruns runs from the tuples (which it frees). */
static struct skip_gate_name *build_names(struct tups *t, size_t nruns, size_t *out_n)
{
	struct skip_gate_name *v = sk_xcalloc(t->n + 1, sizeof(*v));
	size_t n = 0;

	if (t->n) /* t->v is NULL without names (a run with no NVTX range has no operator) */
		qsort(t->v, t->n, sizeof(*t->v), cmp_tup);
	for (size_t i = 0; i < t->n; i++) {
		struct skip_gate_name *e;

		if (!n || strcmp(v[n - 1].name, t->v[i].name)) {
			e = &v[n++];
			e->name = t->v[i].name;
			e->count = sk_xcalloc(nruns + 1, sizeof(int64_t));
			e->total_ns = sk_xcalloc(nruns + 1, sizeof(int64_t));
			e->launch_ns = sk_xcalloc(nruns + 1, sizeof(int64_t));
		} else {
			e = &v[n - 1];
			free(t->v[i].name);
		}
		e->count[t->v[i].run] += t->v[i].count;
		e->total_ns[t->v[i].run] = skip_add_sat(e->total_ns[t->v[i].run], t->v[i].total_ns);
		e->launch_ns[t->v[i].run] =
		    skip_add_sat(e->launch_ns[t->v[i].run], t->v[i].launch_ns);
	}
	free(t->v);
	memset(t, 0, sizeof(*t));
	*out_n = n;
	return v;
}

/* ---- what the trace says about a run and the whole file -------------------------------------- */

struct run_info {
	char key[512];	    /* parameters, "name=value,..." */
	char command[1024]; /* SKIP_RUNS.commandLine */
	char failed[96];    /* why the run is left out, "" when it is kept */
};

static void text_col(sqlite3_stmt *st, int col, char *buf, size_t n)
{
	const unsigned char *s = sqlite3_column_text(st, col);

	snprintf(buf, n, "%s", s ? (const char *)s : "");
}

static void run_info(sqlite3 *db, int64_t id, struct run_info *ri)
{
	static const char q[] =
	    "SELECT coalesce((SELECT group_concat(x, ',') FROM (SELECT name || '=' || value "
	    "AS x FROM SKIP_PARAMETERS WHERE runId = ?1 ORDER BY name)), ''), "
	    "(SELECT commandLine FROM SKIP_RUNS WHERE runId = ?1), "
	    "(SELECT status FROM SKIP_RUNS WHERE runId = ?1), "
	    "(SELECT exitCode FROM SKIP_RUNS WHERE runId = ?1), "
	    "(SELECT exitSignal FROM SKIP_RUNS WHERE runId = ?1)";
	sqlite3_stmt *st = NULL;
	char status[32];

	memset(ri, 0, sizeof(*ri));
	if (sqlite3_prepare_v2(db, q, -1, &st, NULL) != SQLITE_OK)
		return; /* a trace without skip's tables: one case, every run kept */
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		text_col(st, 0, ri->key, sizeof(ri->key));
		text_col(st, 1, ri->command, sizeof(ri->command));
		text_col(st, 2, status, sizeof(status));
		if (status[0] && strcmp(status, "ok") && strcmp(status, "running")) {
			if (sqlite3_column_type(st, 4) != SQLITE_NULL)
				snprintf(ri->failed, sizeof(ri->failed), "%s (signal %d)", status,
					 sqlite3_column_int(st, 4));
			else
				snprintf(ri->failed, sizeof(ri->failed), "%s (exit %d)", status,
					 sqlite3_column_int(st, 3));
		}
	}
	sqlite3_finalize(st);
}

/* The driver version from the collector's "NVRM version: ... 580.159.04 Release Build" line:
 * the first word made of digits and dots only, with a dot. */
static void driver_version(sqlite3 *db, char *buf, size_t n)
{
	char line[256];
	const char *p = line;

	sk_db_meta_text(db, "nvidia_driver", line, sizeof(line));
	buf[0] = '\0';
	while (*p) {
		size_t len = strcspn(p, " \t"), i;
		int dot = 0;

		for (i = 0; i < len && (isdigit((unsigned char)p[i]) || p[i] == '.'); i++)
			dot |= p[i] == '.';
		if (len && i == len && dot && isdigit((unsigned char)p[0])) {
			snprintf(buf, n, "%.*s", (int)len, p);
			return;
		}
		p += len;
		p += strspn(p, " \t");
	}
}

/* ---- cases ----------------------------------------------------------------------------------- */

static size_t case_of(struct skip_gate_side *s, struct building **b, const struct run_info *ri)
{
	struct skip_gate_case *c;

	for (size_t i = 0; i < s->ncases; i++)
		if (!strcmp(s->cases[i].key, ri->key))
			return i;
	s->cases = sk_xrealloc(s->cases, (s->ncases + 1) * sizeof(*s->cases));
	*b = sk_xrealloc(*b, (s->ncases + 1) * sizeof(**b));
	memset(&(*b)[s->ncases], 0, sizeof(**b));
	c = &s->cases[s->ncases];
	memset(c, 0, sizeof(*c));
	c->key = sk_xstrdup(ri->key);
	c->command = sk_xstrdup(ri->command);
	return s->ncases++;
}

static void add_run(struct skip_gate_side *s, struct building **b, const struct run_info *ri,
		    int64_t id, const struct skip_report *r)
{
	size_t ci = case_of(s, b, ri);
	struct skip_gate_case *c = &s->cases[ci];
	struct skip_gate_run *run;

	c->runs = sk_xrealloc(c->runs, (c->nruns + 1) * sizeof(*c->runs));
	run = &c->runs[c->nruns];
	memset(run, 0, sizeof(*run));
	run->run_id = id;
	run->regions = r->stats[SKIP_M_IL].n;
	run->empty = (int)r->nempty;
	for (int m = 0; m < SKIP_M_COUNT; m++) {
		run->median[m] = r->stats[m].median;
		run->mean[m] = r->stats[m].mean;
	}
	tups_add(&(*b)[ci].kern, r->top_by_time, r->ntop_time, c->nruns);
	tups_add(&(*b)[ci].ops, r->top_ops, r->ntop_ops, c->nruns);
	c->nruns++;
	s->dropped += r->dropped;
	if (!s->gpu[0])
		snprintf(s->gpu, sizeof(s->gpu), "%s", r->gpu);
}

/* Analyze run @id into @s; 0, or a negative code for an error that stops the side (a run
 * without the region or without GPU work only gets a note, and *@first_err its code). */
static int one_run(struct skip_trace *t, struct skip_gate_side *s, struct building **b, int64_t id,
		   int *first_err, char *first_msg, size_t msg_n)
{
	struct skip_analysis_opts o = {.run_id = id, .region = s->region, .top_k = 1 << 30};
	struct skip_report *r = NULL;
	struct run_info ri;
	int err;

	run_info(skip_trace_db(t), id, &ri);
	if (ri.failed[0]) {
		sk_gate_strv_add(&s->notes, &s->nnotes, "%s: run %lld %s: left out", s->path,
				 (long long)id, ri.failed);
		return 0;
	}
	err = skip_analyze(t, &o, &r);
	if (err == SKIP_E_NOTFOUND || err == SKIP_E_EMPTY) {
		if (!*first_err) {
			*first_err = err;
			snprintf(first_msg, msg_n, "%s", skip_errmsg());
		}
		if (err == SKIP_E_NOTFOUND)
			sk_gate_strv_add(&s->notes, &s->nnotes,
					 "%s: run %lld has no NVTX range '%s': left out", s->path,
					 (long long)id, s->region ? s->region : "");
		else
			sk_gate_strv_add(&s->notes, &s->nnotes,
					 "%s: run %lld has no GPU work%s%s%s: left out", s->path,
					 (long long)id, s->region ? " in '" : "",
					 s->region ? s->region : "", s->region ? "'" : "");
		return 0;
	}
	if (err)
		return err;
	add_run(s, b, &ri, id, r);
	skip_report_free(r);
	return 0;
}

/* Why a trace gave no run to compare: the analyzer's message for a missing region (it lists
 * the ranges present), else ours for the whole file. */
static int no_runs(const char *path, const char *region, int first_err, const char *first_msg)
{
	if (first_err == SKIP_E_NOTFOUND)
		return sk_fail(first_err, "%s", first_msg);
	if (first_err == SKIP_E_EMPTY)
		return sk_fail(
		    SKIP_E_EMPTY,
		    "%s: no run has GPU work%s%s%s (kernels, memcpys or memsets): did the "
		    "program use CUDA? 'skip info' shows what was recorded",
		    path, region ? " in '" : "", region ? region : "", region ? "'" : "");
	return sk_fail(SKIP_E_EMPTY, "%s: no run to compare: every run's program failed", path);
}

int skip_gate_side_from_trace(struct skip_trace *t, const char *path, const char *region,
			      struct skip_gate_side **out)
{
	struct skip_gate_side *s = sk_xcalloc(1, sizeof(*s));
	struct building *b = NULL;
	int64_t *ids = NULL, n = skip_trace_runs(t, &ids);
	int err = 0, first_err = 0;
	char first_msg[768] = "";

	*out = NULL;
	s->path = sk_xstrdup(path);
	s->region = region ? sk_xstrdup(region) : NULL;
	sk_db_meta_text(skip_trace_db(t), "skip_version", s->skip_version, sizeof(s->skip_version));
	driver_version(skip_trace_db(t), s->driver, sizeof(s->driver));
	for (int64_t i = 0; !err && i < n; i++)
		err = one_run(t, s, &b, ids[i], &first_err, first_msg, sizeof(first_msg));
	for (size_t c = 0; c < s->ncases; c++) {
		s->cases[c].kernels =
		    build_names(&b[c].kern, s->cases[c].nruns, &s->cases[c].nkernels);
		s->cases[c].ops = build_names(&b[c].ops, s->cases[c].nruns, &s->cases[c].nops);
	}
	free(b);
	free(ids);
	if (!err && !s->ncases)
		err = no_runs(path, region, first_err, first_msg);
	if (err) {
		skip_gate_side_free(s);
		return err;
	}
	sk_gate_side_sort(s);
	*out = s;
	return 0;
}

/* ---- loading either kind, and the helpers every side uses ------------------------------------ */

static int looks_like_json(const char *path)
{
	FILE *f = fopen(path, "rb");
	int c = EOF;

	if (!f)
		return 0;
	while ((c = fgetc(f)) != EOF && (c == ' ' || c == '\t' || c == '\n' || c == '\r'))
		;
	fclose(f);
	return c == '{';
}

int skip_gate_side_load(const char *path, const char *region, struct skip_gate_side **out)
{
	struct skip_trace *t = NULL;
	int err;

	*out = NULL;
	if (looks_like_json(path)) {
		cJSON *doc = NULL;

		err = skip_json_load(path, &doc);
		if (!err)
			err = sk_gate_baseline_from_json(doc, path, region, out);
		cJSON_Delete(doc);
		return err;
	}
	err = skip_trace_open(path, &t);
	if (!err)
		err = skip_gate_side_from_trace(t, path, region, out);
	skip_trace_close(t);
	return err;
}

/* By key, numbers in it by value: batch=2 before batch=16. */
static int cmp_case(const void *a, const void *b)
{
	return strverscmp(((const struct skip_gate_case *)a)->key,
			  ((const struct skip_gate_case *)b)->key);
}

void sk_gate_side_sort(struct skip_gate_side *s)
{
	qsort(s->cases, s->ncases, sizeof(*s->cases), cmp_case);
}

const struct skip_gate_case *sk_gate_case_find(const struct skip_gate_side *s, const char *key)
{
	for (size_t i = 0; i < s->ncases; i++)
		if (!strcmp(s->cases[i].key, key))
			return &s->cases[i];
	return NULL;
}

const struct skip_gate_name *sk_gate_name_find(const struct skip_gate_name *v, size_t n,
					       const char *name)
{
	size_t lo = 0, hi = n;

	while (name && lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(v[mid].name, name);

		if (!c)
			return &v[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static void names_free(struct skip_gate_name *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++) {
		free(v[i].name);
		free(v[i].count);
		free(v[i].total_ns);
		free(v[i].launch_ns);
	}
	free(v);
}

void sk_gate_cases_free(struct skip_gate_case *c, size_t n)
{
	for (size_t i = 0; c && i < n; i++) {
		free(c[i].key);
		free(c[i].command);
		free(c[i].runs);
		names_free(c[i].kernels, c[i].nkernels);
		names_free(c[i].ops, c[i].nops);
	}
	free(c);
}

void skip_gate_side_free(struct skip_gate_side *s)
{
	if (!s)
		return;
	sk_gate_cases_free(s->cases, s->ncases);
	sk_gate_strv_free(s->notes, s->nnotes);
	free(s->path);
	free(s->region);
	free(s);
}

size_t skip_gate_side_runs(const struct skip_gate_side *s)
{
	size_t n = 0;

	for (size_t i = 0; i < s->ncases; i++)
		n += s->cases[i].nruns;
	return n;
}
