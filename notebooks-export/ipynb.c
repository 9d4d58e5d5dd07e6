/*
 * ipynb.c: the Jupyter notebook of `skip export --format ipynb` (nbformat 4.5). Its cells are
 * notebooks-export/notebook.py, embedded at build time (sk_export_notebook_py) and split at
 * its "# %%" markers; a title cell and a parameter cell (trace, run, region, sweep parameter)
 * written here come first.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

extern const char sk_export_notebook_py[];

struct nb {
	struct ew w;
	int ncells;
};

static void cell_begin(struct nb *nb, int code)
{
	char id[24];

	snprintf(id, sizeof(id), "cell-%d", ++nb->ncells);
	sk_ew_str(&nb->w, nb->ncells > 1 ? ",\n{\"cell_type\":\"" : "\n{\"cell_type\":\"");
	sk_ew_str(&nb->w, code ? "code\",\"execution_count\":null,\"outputs\":[]," : "markdown\",");
	sk_ew_str(&nb->w, "\"id\":");
	sk_ew_json(&nb->w, id);
	sk_ew_str(&nb->w, ",\"metadata\":{},\"source\":[");
}

/* The lines of @text[@n] as the source array: each but the last keeps its newline. */
static void cell_source(struct nb *nb, const char *text, size_t n)
{
	size_t i = 0;
	int first = 1;

	while (n && text[n - 1] == '\n') /* no trailing blank lines */
		n--;
	while (i < n) {
		const char *nl = memchr(text + i, '\n', n - i);
		size_t len = nl ? (size_t)(nl - (text + i)) + 1 : n - i;

		if (!first)
			sk_ew_chr(&nb->w, ',');
		first = 0;
		sk_ew_json_n(&nb->w, text + i, len);
		i += len;
	}
	sk_ew_str(&nb->w, "]}");
}

static void cell(struct nb *nb, int code, const char *text)
{
	cell_begin(nb, code);
	cell_source(nb, text, strlen(text));
}

/* The embedded template's cells: a markdown cell's lines lose their leading "# " or "#". */
static void template_cells(struct nb *nb)
{
	const char *p = strstr(sk_export_notebook_py, "# %%");
	char *buf = sk_xmalloc(strlen(sk_export_notebook_py) + 1);

	while (p) {
		int code = strncmp(p, "# %% [markdown]", 15) != 0;
		const char *body = strchr(p, '\n'), *next;
		size_t n = 0;

		body = body ? body + 1 : p + strlen(p);
		next = strstr(body, "\n# %%");
		next = next ? next + 1 : NULL;
		for (const char *q = body; q < (next ? next : body + strlen(body));) {
			const char *eol = strchr(q, '\n');
			size_t len = eol ? (size_t)(eol - q) + 1 : strlen(q);

			if (!code && !strncmp(q, "# ", 2))
				q += 2, len -= 2;
			else if (!code && *q == '#')
				q++, len--;
			memcpy(buf + n, q, len);
			n += len;
			q += len;
		}
		cell_begin(nb, code);
		cell_source(nb, buf, n);
		p = next;
	}
	free(buf);
}

/* @s as a Python string literal (JSON's escapes are Python's), or None; malloc'ed. */
static char *py_str(const char *s)
{
	char *out = NULL;
	size_t n = 0;
	FILE *f;
	struct ew *w;

	if (!s)
		return sk_xstrdup("None");
	f = open_memstream(&out, &n);
	if (!f)
		return sk_xstrdup("None");
	w = sk_xmalloc(sizeof(*w));
	sk_ew_init(w, f);
	sk_ew_json(w, s);
	sk_ew_flush(w);
	free(w);
	fclose(f);
	return out;
}

static void params_cell(struct nb *nb, const struct skip_notebook_opts *o)
{
	char *trace = py_str(o->trace_ref), *region = py_str(o->region), *param = py_str(o->param);
	char run[32] = "None";
	char *text;

	if (o->run_id)
		snprintf(run, sizeof(run), "%lld", (long long)o->run_id);
	text = sk_xasprintf("# Parameters: change them and run all cells again.\n"
			    "TRACE = %s  # the trace, relative to this notebook's folder\n"
			    "RUN = %s  # the run the region cells show; None: the first\n"
			    "REGION = %s  # an NVTX range, or None: the whole run\n"
			    "OCCURRENCE = %d  # which occurrence of REGION\n"
			    "PARAM = %s  # the swept parameter, or None\n",
			    trace, run, region, o->occurrence > 0 ? o->occurrence : 1, param);
	cell(nb, 1, text);
	free(text);
	free(trace);
	free(region);
	free(param);
}

int skip_export_notebook(const struct skip_notebook_opts *o, FILE *out)
{
	struct nb *nb = sk_xcalloc(1, sizeof(*nb));
	char *title;
	int err;

	sk_ew_init(&nb->w, out);
	sk_ew_str(&nb->w, "{\"metadata\":{\"skip_export\":\"ipynb\",\"kernelspec\":{\"name\":"
			  "\"python3\",\"display_name\":\"Python 3\",\"language\":\"python\"},"
			  "\"language_info\":{\"name\":\"python\"}},\"nbformat\":4,"
			  "\"nbformat_minor\":5,\"cells\":[");
	title = sk_xasprintf(
	    "# Where the time between the CPU and the GPU goes\n\n"
	    "Written by `skip export --format ipynb` (skip %s) for the trace `%s`. Every number "
	    "below is computed in this notebook from the trace's SQLite tables (the schema: "
	    "[docs/trace-format.md](docs/trace-format.md)) with the definitions of "
	    "[docs/skip-report.md](docs/skip-report.md), so it can be checked against `skip "
	    "report`. The docs are in skip's source tree under `docs/`, and installed under "
	    "`share/doc/skip`. Run all cells (Jupyter, or `jupyter nbconvert --to notebook "
	    "--execute`); it needs sqlite3, pandas and matplotlib.",
	    SKIP_VERSION, o->trace_ref);
	cell(nb, 0, title);
	free(title);
	params_cell(nb, o);
	template_cells(nb);
	sk_ew_str(&nb->w, "\n]}\n");
	err = sk_ew_flush(&nb->w) ? sk_fail(SKIP_E_IO, "writing the notebook failed") : 0;
	free(nb);
	return err;
}

char *skip_export_sweep_param(struct skip_trace *t)
{
	sqlite3_stmt *st = NULL;
	char *name = NULL;

	if (sqlite3_prepare_v2(skip_trace_db(t),
			       "SELECT name FROM SKIP_PARAMETERS WHERE numericValue IS NOT NULL "
			       "GROUP BY name HAVING count(DISTINCT numericValue) >= 2 ORDER BY "
			       "min(rowid) LIMIT 1",
			       -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		name = sk_xstrdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return name;
}
