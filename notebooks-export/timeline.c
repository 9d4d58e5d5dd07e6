/*
 * timeline.c: a trace's timeline as Chrome trace-event JSON (Perfetto) or PyTorch profiler
 * (Kineto) JSON, streamed. Per run, NVTX events are one pass; then per process the API calls
 * (one cursor per thread over sk_api_calls, runtime and driver calls of both schema versions
 * (views.c), in correlation-id order through the RUNTIME_run_corr index and version 1's
 * DRIVER_run_corr)
 * and the GPU operations (kernels, memcpys, memsets, synchronizations, also by correlation id)
 * are merged on the correlation id, so that each operation meets its launch call without any
 * table in memory: memory is bounded by the number of threads and streams. Field mapping:
 * docs/skip-export.md.
 */
#include <stdlib.h>
#include <string.h>

#include "tl.h"

enum src_kind { SRC_API, SRC_KERNEL, SRC_MEMCPY, SRC_MEMSET, SRC_SYNC };

/* One cursor of the merge; column 0 of every query is correlationId, 1 start, 2 end. */
struct src {
	sqlite3_stmt *st;
	enum src_kind kind;
	int live;     /* a row is current */
	int64_t corr; /* its correlation id; -1 when not an integer of [0, 2^32) */
	/* Kineto, API calls: the push/pop NVTX ranges of the thread in start order, and those
	 * open at the last call read (innermost last), for the calls' External id */
	sqlite3_stmt *nv;
	int nv_live;
	struct open_range {
		int64_t id, start, end;
	} * open;
	size_t nopen, cap;
};

/* The last launch call read: GPU operations with its correlation id follow it. */
struct call {
	int64_t corr, start, end, gtid;
	int in_window;
	int64_t ext; /* Kineto's External id: the innermost NVTX range around it, or -1 */
};

static const char *const src_sql[] = {
    /* a runtime call before a driver call of the same correlation id */
    [SRC_API] = "SELECT correlationId, start, end, globalTid, nameId, cbid, returnValue, driver "
		"FROM sk_api_calls WHERE runId = ?1 AND globalTid = ?2 "
		"ORDER BY correlationId, driver",
    [SRC_KERNEL] =
	"SELECT correlationId, start, end, globalPid, deviceId, contextId, streamId, "
	"demangledName, shortName, gridX, gridY, gridZ, blockX, blockY, blockZ, "
	"registersPerThread, staticSharedMemory + dynamicSharedMemory, graphId, "
	"graphNodeId, queued FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE runId = ?1 AND globalPid = "
	"?2 AND %s ORDER BY correlationId",
    [SRC_MEMCPY] = "SELECT correlationId, start, end, globalPid, deviceId, contextId, streamId, "
		   "bytes, copyKind, srcKind, dstKind FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE "
		   "runId = ?1 AND globalPid = ?2 AND %s ORDER BY correlationId",
    [SRC_MEMSET] = "SELECT correlationId, start, end, globalPid, deviceId, contextId, streamId, "
		   "bytes, memKind, value FROM CUPTI_ACTIVITY_KIND_MEMSET WHERE runId = ?1 AND "
		   "globalPid = ?2 AND %s ORDER BY correlationId",
    [SRC_SYNC] = "SELECT correlationId, start, end, globalPid, deviceId, contextId, streamId, "
		 "syncType FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION WHERE runId = ?1 AND "
		 "globalPid = ?2 AND %s ORDER BY correlationId",
};

static int is_int(sqlite3_stmt *st, int i, int64_t lo, int64_t hi)
{
	int64_t v;

	if (sqlite3_column_type(st, i) != SQLITE_INTEGER)
		return 0;
	v = sqlite3_column_int64(st, i);
	return v >= lo && v < hi;
}

/* Columns 1 and 2 are a well-formed [start, end] (docs/trace-format.md). */
static int good_times(sqlite3_stmt *st)
{
	return is_int(st, 1, 0, SKIP_TIME_MAX) && is_int(st, 2, 0, SKIP_TIME_MAX) &&
	       sqlite3_column_int64(st, 2) >= sqlite3_column_int64(st, 1);
}

static int64_t col(sqlite3_stmt *st, int i)
{
	return sqlite3_column_int64(st, i);
}

static void arg(struct tl *tl, const char *key, int64_t v)
{
	sk_ew_str(&tl->w, key);
	sk_ew_i64(&tl->w, v);
}

static void dur(struct tl *tl, int64_t start, int64_t end)
{
	sk_ew_str(&tl->w, ",\"dur\":");
	sk_ew_us(&tl->w, end - start);
}

/* ---- Kineto's External id ------------------------------------------------------------------ */

/* The push/pop ranges of a thread, as write_nvtx() exports them: rowid (the External id),
 * start, end (NULL: open, until tl->open_end). */
static const char nv_sql[] = "SELECT rowid, start, end FROM NVTX_EVENTS WHERE runId = ?1 AND "
			     "globalTid = ?2 AND eventType = 59 AND %s ORDER BY start, end DESC";

/* Columns 1 and 2 of an NVTX row as write_nvtx() reads them; 0 when it leaves the row out. */
static int nv_times(const struct tl *tl, sqlite3_stmt *st, int64_t *start, int64_t *end)
{
	*start = sqlite3_column_int64(st, 1);
	if (!is_int(st, 1, 0, SKIP_TIME_MAX))
		return 0;
	if (sqlite3_column_type(st, 2) == SQLITE_NULL) {
		*end = *start > tl->open_end ? *start : tl->open_end;
		return 1;
	}
	*end = sqlite3_column_int64(st, 2);
	return is_int(st, 2, 0, SKIP_TIME_MAX) && *end >= *start;
}

/* The innermost range open at @t on the thread of @s, reading its ranges up to @t (calls come
 * in correlation-id order, which on one thread is time order). */
static int64_t ext_at(struct tl *tl, struct src *s, int64_t t)
{
	int64_t start, end;

	while (s->nv_live && sqlite3_column_int64(s->nv, 1) <= t) {
		if (nv_times(tl, s->nv, &start, &end)) {
			while (s->nopen && s->open[s->nopen - 1].end < start)
				s->nopen--;
			SK_VEC_XPUSH(
			    s->open, s->nopen, s->cap,
			    (struct open_range){sqlite3_column_int64(s->nv, 0), start, end});
		}
		s->nv_live = sqlite3_step(s->nv) == SQLITE_ROW;
	}
	while (s->nopen && s->open[s->nopen - 1].end < t)
		s->nopen--;
	if (!s->nopen || s->open[s->nopen - 1].start > t)
		return -1;
	return s->open[s->nopen - 1].id;
}

static void ext_arg(struct tl *tl, int64_t ext, const char *after)
{
	if (ext < 0)
		return;
	sk_ew_str(&tl->w, "\"External id\":");
	sk_ew_i64(&tl->w, ext);
	sk_ew_str(&tl->w, after);
}

/* ---- API calls ----------------------------------------------------------------------------- */

static void write_call(struct tl *tl, struct src *s, struct call *last)
{
	sqlite3_stmt *st = s->st;
	int64_t pid, tid, start = col(st, 1), end = col(st, 2);
	const char *name;
	char *kname = NULL;

	if (s->corr < 0 || !good_times(st) || !is_int(st, 3, 0, (int64_t)1 << 56)) {
		tl->c.malformed++;
		return;
	}
	*last = (struct call){s->corr,
			      start,
			      end,
			      col(st, 3),
			      !tl->sel->windowed ||
				  (start <= tl->sel->end_ns && end >= tl->sel->start_ns),
			      s->nv ? ext_at(tl, s, start) : -1};
	if (!last->in_window)
		return;
	sk_tl_cpu(tl, last->gtid, &pid, &tid);
	sk_tl_track(tl, pid, tid, last->gtid, last->gtid >> 24 << 24, -1, 0);
	name = skip_trace_string(tl->t, col(st, 4));
	if (tl->fmt == SKIP_TIMELINE_KINETO) {
		size_t n = sk_kineto_api_len(name);

		name = kname = sk_xasprintf("%.*s", (int)n, name);
	}
	sk_tl_head(tl, "X", col(st, 7) ? "cuda_driver" : "cuda_runtime", name, pid, tid, start);
	free(kname);
	dur(tl, start, end);
	sk_ew_str(&tl->w, ",\"args\":{");
	ext_arg(tl, last->ext, ",");
	arg(tl, "\"correlation\":", s->corr);
	arg(tl, ",\"cbid\":", col(st, 5));
	arg(tl, ",\"returnValue\":", col(st, 6));
	sk_ew_str(&tl->w, "}}");
	tl->c.events++;
}

/* ---- GPU operations ------------------------------------------------------------------------ */

static const char *const copy_kinds[] = {"Unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA",
					 "AtoD",    "DtoA", "DtoD", "HtoH", "PtoP"};
static const char *const mem_kinds[] = {"Pageable", "Pinned",	     "Device",	       "Array",
					"Managed",  "Device Static", "Managed Static", "Unknown"};
static const char *const sync_names[] = {"Sync", "Event Sync", "Stream Wait Event", "Stream Sync",
					 "Context Sync"};

static const char *pick(const char *const *names, size_t n, int64_t i, const char *dflt)
{
	return i >= 0 && (size_t)i < n ? names[i] : dflt;
}
#define PICK(names, i, dflt) pick(names, sizeof(names) / sizeof(names[0]), i, dflt)

static void op_name(struct tl *tl, struct src *s, char *buf, size_t n, const char **name)
{
	sqlite3_stmt *st = s->st;

	switch (s->kind) {
	case SRC_KERNEL:
		*name = skip_trace_string(tl->t, col(st, 7));
		if (!**name)
			*name = skip_trace_string(tl->t, col(st, 8));
		break;
	case SRC_MEMCPY:
		snprintf(buf, n, "Memcpy %s (%s -> %s)", PICK(copy_kinds, col(st, 8), "Unknown"),
			 PICK(mem_kinds, col(st, 9), "Unknown"),
			 PICK(mem_kinds, col(st, 10), "Unknown"));
		*name = buf;
		break;
	case SRC_MEMSET:
		snprintf(buf, n, "Memset (%s)", PICK(mem_kinds, col(st, 8), "Unknown"));
		*name = buf;
		break;
	default:
		*name = PICK(sync_names, col(st, 7), "Sync");
	}
}

/* gridX x gridY x gridZ (or the block's) from column @i on, -1 when not positive integers or
 * too large */
static int64_t dims(sqlite3_stmt *st, int i)
{
	int64_t p = 1;

	for (int k = 0; k < 3; k++) {
		if (!is_int(st, i + k, 1, (int64_t)1 << 31) || p > INT64_MAX / col(st, i + k))
			return -1;
		p *= col(st, i + k);
	}
	return p;
}

static void grid(struct tl *tl, const char *key, sqlite3_stmt *st, int i)
{
	arg(tl, key, col(st, i));
	arg(tl, ",", col(st, i + 1));
	arg(tl, ",", col(st, i + 2));
	sk_ew_chr(&tl->w, ']');
}

static void op_args(struct tl *tl, struct src *s, int64_t ext)
{
	sqlite3_stmt *st = s->st;
	int64_t d = col(st, 2) - col(st, 1);
	char buf[48];

	sk_ew_str(&tl->w, ",\"args\":{");
	ext_arg(tl, ext, ",");
	if (s->kind == SRC_KERNEL && tl->fmt == SKIP_TIMELINE_KINETO &&
	    sqlite3_column_type(st, 19) == SQLITE_INTEGER) {
		arg(tl, "\"queued\":", col(st, 19));
		sk_ew_chr(&tl->w, ',');
	}
	arg(tl, "\"correlation\":", s->corr);
	arg(tl, ",\"device\":", col(st, 4));
	arg(tl, ",\"context\":", col(st, 5));
	arg(tl, ",\"stream\":", col(st, 6));
	if (s->kind == SRC_KERNEL) {
		grid(tl, ",\"grid\":[", st, 9);
		grid(tl, ",\"block\":[", st, 12);
		arg(tl, ",\"registers per thread\":", col(st, 15));
		arg(tl, ",\"shared memory\":", col(st, 16));
		if (sqlite3_column_type(st, 17) == SQLITE_INTEGER) {
			arg(tl, ",\"graph id\":", col(st, 17));
			arg(tl, ",\"graph node id\":", col(st, 18));
		}
		if (tl->fmt == SKIP_TIMELINE_KINETO)
			sk_kineto_kernel_args(tl, col(st, 4), dims(st, 9), dims(st, 12),
					      col(st, 15), col(st, 16));
	} else if (s->kind == SRC_MEMCPY || s->kind == SRC_MEMSET) {
		arg(tl, ",\"bytes\":", col(st, 7));
		snprintf(buf, sizeof(buf), ",\"memory bandwidth (GB/s)\":%.3f",
			 d > 0 ? (double)col(st, 7) / (double)d : 0.0);
		sk_ew_str(&tl->w, buf);
	} else {
		arg(tl, ",\"syncType\":", col(st, 7));
	}
	sk_ew_str(&tl->w, "}}");
}

static void flow(struct tl *tl, const struct call *c, int64_t pid, int64_t tid, int64_t ts)
{
	int64_t cpid, ctid, id = ++tl->c.flows;

	sk_tl_cpu(tl, c->gtid, &cpid, &ctid);
	sk_tl_head(tl, "s", "ac2g", "launch", cpid, ctid, c->start);
	arg(tl, ",\"id\":", id);
	sk_ew_chr(&tl->w, '}');
	sk_tl_head(tl, "f", "ac2g", "launch", pid, tid, ts);
	arg(tl, ",\"id\":", id);
	sk_ew_str(&tl->w, ",\"bp\":\"e\"}");
}

static const char *const op_cats[] = {[SRC_KERNEL] = "kernel",
				      [SRC_MEMCPY] = "gpu_memcpy",
				      [SRC_MEMSET] = "gpu_memset",
				      [SRC_SYNC] = "cuda_sync"};

static void write_op(struct tl *tl, struct src *s, const struct call *last)
{
	sqlite3_stmt *st = s->st;
	int64_t pid, tid, start = col(st, 1), gpid = col(st, 3), dev = col(st, 4);
	int linked = last->corr == s->corr && s->corr >= 0 && last->gtid >> 24 == gpid >> 24;
	const char *name;
	char buf[96];

	if (s->corr < 0 || !good_times(st) || !is_int(st, 3, 0, (int64_t)1 << 56) ||
	    !(is_int(st, 4, 0, 65536) ||
	      (s->kind == SRC_SYNC && sqlite3_column_type(st, 4) == SQLITE_NULL))) {
		tl->c.malformed++;
		return;
	}
	if (s->kind == SRC_SYNC && linked) {
		sk_tl_cpu(tl, last->gtid, &pid, &tid);
		sk_tl_track(tl, pid, tid, last->gtid, gpid, -1, 0);
	} else if (s->kind == SRC_SYNC) {
		pid = gpid >> 24;
		tid = TL_SYNC_TID;
		sk_tl_track(tl, pid, tid, -1, gpid, -1, 0);
	} else {
		sk_tl_gpu(tl, gpid, dev, col(st, 6), &pid, &tid);
		sk_tl_track(tl, pid, tid, -1, tl->fmt == SKIP_TIMELINE_KINETO ? -1 : gpid, dev,
			    col(st, 6));
	}
	op_name(tl, s, buf, sizeof(buf), &name);
	sk_tl_head(tl, "X", op_cats[s->kind], name, pid, tid, start);
	dur(tl, start, col(st, 2));
	op_args(tl, s, linked ? last->ext : -1);
	tl->c.events++;
	if (linked && last->in_window && s->kind != SRC_SYNC)
		flow(tl, last, pid, tid, start);
}

/* ---- the merge of one process ------------------------------------------------------------ */

static void advance(struct tl *tl, struct src *s)
{
	int rc = sqlite3_step(s->st);

	s->live = rc == SQLITE_ROW;
	if (rc != SQLITE_ROW && rc != SQLITE_DONE && !tl->err)
		tl->err =
		    sk_fail(SKIP_E_DB, "reading the trace failed: %s", sqlite3_errmsg(tl->db));
	if (s->live)
		s->corr = is_int(s->st, 0, 0, (int64_t)1 << 32) ? col(s->st, 0) : -1;
}

static int open_src(struct tl *tl, struct src *s, enum src_kind kind, int64_t key, const char *cond)
{
	char *sql = sk_xasprintf(src_sql[kind], cond);
	int rc = sqlite3_prepare_v2(tl->db, sql, -1, &s->st, NULL);

	free(sql);
	if (rc != SQLITE_OK)
		return sk_fail(SKIP_E_DB, "reading the trace failed: %s", sqlite3_errmsg(tl->db));
	sqlite3_bind_int64(s->st, 1, tl->run_id);
	sqlite3_bind_int64(s->st, 2, key);
	s->kind = kind;
	if (kind == SRC_API && tl->fmt == SKIP_TIMELINE_KINETO) {
		sql = sk_xasprintf(nv_sql, cond);
		rc = sqlite3_prepare_v2(tl->db, sql, -1, &s->nv, NULL);
		free(sql);
		if (rc != SQLITE_OK)
			return sk_fail(SKIP_E_DB, "reading NVTX_EVENTS failed: %s",
				       sqlite3_errmsg(tl->db));
		sqlite3_bind_int64(s->nv, 1, tl->run_id);
		sqlite3_bind_int64(s->nv, 2, key);
		s->nv_live = sqlite3_step(s->nv) == SQLITE_ROW;
	}
	advance(tl, s);
	return tl->err;
}

/* Merge @n cursors on the correlation id, calls before operations of the same id. */
static void merge(struct tl *tl, struct src *srcs, size_t n)
{
	struct call last = {.corr = -2};

	while (!tl->err && !tl->w.err) {
		struct src *best = NULL;

		for (size_t i = 0; i < n; i++)
			if (srcs[i].live &&
			    (!best || srcs[i].corr < best->corr ||
			     (srcs[i].corr == best->corr && srcs[i].kind < best->kind)))
				best = &srcs[i];
		if (!best)
			break;
		if (best->kind == SRC_API)
			write_call(tl, best, &last);
		else
			write_op(tl, best, &last);
		advance(tl, best);
	}
}

/* Process @gpid of the current run, whose calling threads are @gtids[@nt]. */
static int write_process(struct tl *tl, int64_t gpid, const int64_t *gtids, size_t nt)
{
	struct src *srcs = sk_xcalloc(nt + 4, sizeof(*srcs));
	char *cond = sk_sel_where(tl->sel, "", 0, 1);
	size_t n = 0;
	int err = 0;

	for (size_t i = 0; i < nt && !err; i++)
		err = open_src(tl, &srcs[n++], SRC_API, gtids[i], cond);
	for (int k = SRC_KERNEL; k <= SRC_SYNC && !err; k++)
		err = open_src(tl, &srcs[n++], (enum src_kind)k, gpid, cond);
	if (!err)
		merge(tl, srcs, n);
	for (size_t i = 0; i < n; i++) {
		sqlite3_finalize(srcs[i].st);
		sqlite3_finalize(srcs[i].nv);
		free(srcs[i].open);
	}
	free(srcs);
	free(cond);
	return err ? err : tl->err;
}

/* ---- NVTX ---------------------------------------------------------------------------------- */

static const char *nvtx_cat(const struct tl *tl, const char *text)
{
	struct tl_op op;

	if (tl->fmt == SKIP_TIMELINE_PERFETTO)
		return "nvtx";
	sk_kineto_parse(text, &op);
	return op.is_op ? "cpu_op" : "user_annotation";
}

/* A push/pop range in Kineto's shape: a PyTorch operator is a cpu_op named without emit_nvtx's
 * suffix, with its sequence number, and its fwdbwd flow; every range has its External id
 * (its rowid, which the API calls inside it carry too). A range 'ProfilerStep' (skip import's
 * name for torch.profiler's steps) is numbered again, ProfilerStep#0, #1, ... in start order,
 * as HTA finds a trace's iterations. */
static void kineto_range(struct tl *tl, sqlite3_stmt *st, const char *text, int64_t pid,
			 int64_t tid, int64_t start, int64_t end, int open)
{
	struct tl_op op;
	char *name;

	sk_kineto_parse(text, &op);
	if (!op.is_op && !strcmp(text, "ProfilerStep"))
		name = sk_xasprintf("ProfilerStep#%lld", (long long)tl->steps++);
	else
		name = sk_xasprintf("%.*s", (int)op.name_len, text);
	sk_tl_head(tl, "X", op.is_op ? "cpu_op" : "user_annotation", name, pid, tid, start);
	free(name);
	dur(tl, start, end);
	arg(tl, ",\"args\":{\"External id\":", col(st, 5));
	if (op.is_op)
		sk_kineto_op_args(tl, &op, pid);
	sk_ew_str(&tl->w, open ? ",\"open\":1}}" : "}}");
	if (op.is_op)
		sk_kineto_op_flow(tl, &op, pid, tid, start);
}

/* One NVTX row: st columns start, end, eventType, text, globalTid, rowid. */
static void write_nvtx(struct tl *tl, sqlite3_stmt *st)
{
	int64_t pid, tid, type = col(st, 2), start = col(st, 0), gtid = col(st, 4), end;
	const char *text = (const char *)sqlite3_column_text(st, 3);
	int open = sqlite3_column_type(st, 1) == SQLITE_NULL;

	end = open ? (start > tl->open_end ? start : tl->open_end) : col(st, 1);
	if (!is_int(st, 0, 0, SKIP_TIME_MAX) || !is_int(st, 4, 0, (int64_t)1 << 56) ||
	    (!open && (!is_int(st, 1, 0, SKIP_TIME_MAX) || end < start))) {
		tl->c.malformed++;
		return;
	}
	text = text ? text : "";
	sk_tl_cpu(tl, gtid, &pid, &tid);
	sk_tl_track(tl, pid, tid, gtid, gtid >> 24 << 24, -1, 0);
	tl->c.events++;
	if (type == 34) {
		sk_tl_head(tl, "i", nvtx_cat(tl, text), text, pid, tid, start);
		sk_ew_str(&tl->w, ",\"s\":\"t\"}");
		return;
	}
	if (type == 59 && tl->fmt == SKIP_TIMELINE_KINETO) {
		kineto_range(tl, st, text, pid, tid, start, end, open);
		return;
	}
	if (type == 59) {
		sk_tl_head(tl, "X", nvtx_cat(tl, text), text, pid, tid, start);
		dur(tl, start, end);
		sk_ew_str(&tl->w, open ? ",\"args\":{\"open\":1}}" : "}");
		return;
	}
	/* a start/end range may overlap others on its thread: an async slice of its own */
	sk_tl_head(tl, "b", nvtx_cat(tl, text), text, pid, tid, start);
	arg(tl, ",\"id\":", tl->c.events);
	sk_ew_chr(&tl->w, '}');
	sk_tl_head(tl, "e", nvtx_cat(tl, text), text, pid, tid, end);
	arg(tl, ",\"id\":", tl->c.events);
	sk_ew_chr(&tl->w, '}');
}

static int write_nvtx_all(struct tl *tl)
{
	char *cond = sk_sel_where(tl->sel, "", 0, 1);
	/* Kineto: in start order, so that a forward operator comes before its backward one */
	char *sql = sk_xasprintf("SELECT start, end, eventType, text, globalTid, rowid FROM "
				 "NVTX_EVENTS WHERE runId = ?1 AND eventType IN (34, 59, 60) AND "
				 "%s%s",
				 cond, tl->fmt == SKIP_TIMELINE_KINETO ? " ORDER BY start" : "");
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(tl->db, sql, -1, &st, NULL);

	if (rc == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, tl->run_id);
		while (!tl->w.err && (rc = sqlite3_step(st)) == SQLITE_ROW)
			write_nvtx(tl, st);
	}
	if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW)
		tl->err =
		    sk_fail(SKIP_E_DB, "reading NVTX_EVENTS failed: %s", sqlite3_errmsg(tl->db));
	sqlite3_finalize(st);
	free(sql);
	free(cond);
	return tl->err;
}

/* ---- one run --------------------------------------------------------------------------------- */

/* The integers of the first column of @sql (?1 = the run), malloc'ed; returns the count. */
static size_t int_list(struct tl *tl, const char *sql, int64_t **out)
{
	sqlite3_stmt *st = NULL;
	size_t n = 0, cap = 0;
	int rc = sqlite3_prepare_v2(tl->db, sql, -1, &st, NULL);

	*out = NULL;
	if (rc == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, tl->run_id);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW)
			if (is_int(st, 0, 0, (int64_t)1 << 56))
				SK_VEC_XPUSH(*out, n, cap, col(st, 0));
	}
	if (rc != SQLITE_DONE && !tl->err)
		tl->err =
		    sk_fail(SKIP_E_DB, "reading the trace failed: %s", sqlite3_errmsg(tl->db));
	sqlite3_finalize(st);
	return n;
}

/* When an NVTX range never closed ends: the window's end, else the run's end, else the last
 * API call's end. */
static void run_end(struct tl *tl)
{
	sqlite3_stmt *st = NULL;

	tl->open_end = tl->sel->windowed ? tl->sel->end_ns : 0;
	if (tl->sel->windowed)
		return;
	if (sqlite3_prepare_v2(tl->db,
			       "SELECT coalesce((SELECT end FROM SKIP_RUNS WHERE runId = ?1 AND "
			       "typeof(end) = 'integer'), (SELECT max(end) FROM "
			       "sk_api_calls WHERE runId = ?1), 0)",
			       -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, tl->run_id);
		if (sqlite3_step(st) == SQLITE_ROW)
			tl->open_end = col(st, 0);
	}
	sqlite3_finalize(st);
}

static int write_run(struct tl *tl)
{
	int64_t *gtids = NULL, *gpids = NULL;
	size_t nt, np;
	int err;

	run_end(tl);
	if (tl->fmt == SKIP_TIMELINE_KINETO)
		sk_kineto_run(tl);
	err = write_nvtx_all(tl);
	nt = int_list(tl, "SELECT DISTINCT globalTid FROM sk_api_calls WHERE runId = ?1 ORDER BY 1",
		      &gtids);
	np = int_list(tl,
		      "SELECT DISTINCT globalTid >> 24 << 24 FROM sk_api_calls WHERE runId = ?1 "
		      "UNION SELECT DISTINCT globalPid FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE "
		      "runId = ?1 UNION SELECT DISTINCT globalPid FROM CUPTI_ACTIVITY_KIND_MEMCPY "
		      "WHERE runId = ?1 UNION SELECT DISTINCT globalPid FROM "
		      "CUPTI_ACTIVITY_KIND_MEMSET WHERE runId = ?1 UNION SELECT DISTINCT globalPid "
		      "FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION WHERE runId = ?1 ORDER BY 1",
		      &gpids);
	err = err ? err : tl->err;
	for (size_t p = 0, i = 0; p < np && !err && !tl->w.err; p++) {
		size_t first;

		while (i < nt && gtids[i] >> 24 < gpids[p] >> 24)
			i++;
		first = i;
		while (i < nt && gtids[i] >> 24 == gpids[p] >> 24)
			i++;
		err = write_process(tl, gpids[p], gtids + first, i - first);
	}
	free(gtids);
	free(gpids);
	return err;
}

int skip_export_timeline(struct skip_trace *t, const char *trace_path,
			 const struct skip_export_sel *sel, enum skip_timeline_format fmt,
			 FILE *out, struct skip_export_counts *counts)
{
	struct tl *tl = sk_xcalloc(1, sizeof(*tl));
	int64_t *runs = NULL, nruns = 0;
	int err;

	sk_ew_init(&tl->w, out);
	tl->t = t;
	tl->db = skip_trace_db(t);
	tl->sel = sel;
	tl->fmt = fmt;
	err = sk_export_views(tl->db);
	if (!err && fmt == SKIP_TIMELINE_KINETO)
		err = sk_kineto_init(tl);
	if (!err)
		err = sk_tl_preamble(tl, trace_path);
	if (sel->run_id) {
		runs = sk_xmalloc(sizeof(*runs));
		runs[0] = sel->run_id;
		nruns = 1;
	} else {
		nruns = skip_trace_runs(t, &runs);
	}
	for (int64_t i = 0; i < nruns && !err && !tl->w.err; i++) {
		tl->run_id = runs[i];
		tl->steps = 0;
		err = write_run(tl);
	}
	if (!err)
		err = sk_tl_finish(tl);
	if (!err && sk_ew_flush(&tl->w))
		err = sk_fail(SKIP_E_IO, "writing the export failed");
	tl->c.bytes = tl->w.bytes;
	*counts = tl->c;
	free(runs);
	free(tl->tracks);
	sk_hash_fini(&tl->track_idx);
	sk_kineto_fini(tl);
	free(tl);
	return err;
}
