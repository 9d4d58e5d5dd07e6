/*
 * tlmeta.c: the parts of a timeline export around the events: the document's metadata (GPUs,
 * runs, sweep parameters, the region; Kineto's deviceProperties and baseTimeNanoseconds) and,
 * at the end, the metadata events that name each process and track the events used.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tl.h"

void sk_tl_cpu(const struct tl *tl, int64_t gtid, int64_t *pid, int64_t *tid)
{
	(void)tl;
	*pid = gtid >> 24;
	*tid = gtid & 0xFFFFFF;
}

/* Perfetto: the stream is a thread of the recording process, numbered above every OS thread
 * id (those are below 2^22); Kineto: pid = device, tid = stream, as PyTorch writes them. */
void sk_tl_gpu(const struct tl *tl, int64_t gpid, int64_t device, int64_t stream, int64_t *pid,
	       int64_t *tid)
{
	if (tl->fmt == SKIP_TIMELINE_KINETO) {
		*pid = device;
		*tid = stream;
		return;
	}
	*pid = gpid >> 24;
	*tid = ((int64_t)1 << 30) | (device & 0x3FF) << 20 | (stream & 0xFFFFF);
}

void sk_tl_track(struct tl *tl, int64_t pid, int64_t tid, int64_t gtid, int64_t gpid,
		 int64_t device, int64_t stream)
{
	uint64_t key = ((uint64_t)pid << 32 | (uint32_t)tid) + 1;

	if (sk_hash_get(&tl->track_idx, key))
		return;
	SK_VEC_XPUSH(tl->tracks, tl->ntracks, tl->cap,
		     (struct tl_track){pid, tid, tl->run_id, gtid, device, stream, gpid});
	sk_hash_xreserve(&tl->track_idx, 1);
	sk_hash_put(&tl->track_idx, key, tl->ntracks - 1);
}

void sk_tl_head(struct tl *tl, const char *ph, const char *cat, const char *name, int64_t pid,
		int64_t tid, int64_t ts_ns)
{
	struct ew *w = &tl->w;

	sk_ew_str(w, tl->nevents++ ? ",\n{\"ph\":\"" : "\n{\"ph\":\"");
	sk_ew_str(w, ph);
	sk_ew_str(w, "\",\"cat\":\"");
	sk_ew_str(w, cat);
	sk_ew_str(w, "\",\"name\":");
	sk_ew_json(w, name);
	sk_ew_str(w, ",\"pid\":");
	sk_ew_i64(w, pid);
	sk_ew_str(w, ",\"tid\":");
	sk_ew_i64(w, tid);
	sk_ew_str(w, ",\"ts\":");
	sk_ew_us(w, ts_ns - tl->base_ns);
}

static void value(struct ew *w, sqlite3_stmt *st, int i)
{
	char buf[40];
	double d;

	switch (sqlite3_column_type(st, i)) {
	case SQLITE_INTEGER:
		sk_ew_i64(w, sqlite3_column_int64(st, i));
		break;
	case SQLITE_FLOAT:
		d = sqlite3_column_double(st, i);
		if (!isfinite(d)) {
			sk_ew_str(w, "null");
			break;
		}
		snprintf(buf, sizeof(buf), "%.17g", d);
		sk_ew_str(w, buf);
		break;
	case SQLITE_NULL:
		sk_ew_str(w, "null");
		break;
	default:
		sk_ew_json_n(w, (const char *)sqlite3_column_text(st, i),
			     (size_t)sqlite3_column_bytes(st, i));
	}
}

void sk_tl_row_object(struct tl *tl, sqlite3_stmt *st)
{
	int n = sqlite3_column_count(st), first = 1;
	const char *name;
	size_t len;

	sk_ew_chr(&tl->w, '{');
	for (int i = 0; i < n; i++) {
		if (sqlite3_column_type(st, i) == SQLITE_NULL)
			continue;
		if (!first)
			sk_ew_chr(&tl->w, ',');
		first = 0;
		name = sqlite3_column_name(st, i);
		len = strlen(name);
		if (len > 5 && !strcmp(name + len - 5, ":json")) { /* JSON that SQLite built */
			sk_ew_json_n(&tl->w, name, len - 5);
			sk_ew_chr(&tl->w, ':');
			sk_ew_str(&tl->w, (const char *)sqlite3_column_text(st, i));
			continue;
		}
		sk_ew_json(&tl->w, name);
		sk_ew_chr(&tl->w, ':');
		value(&tl->w, st, i);
	}
	sk_ew_chr(&tl->w, '}');
}

/* "[{row}, ...]" of @sql (with the run condition in place of %s). */
static void rows_array(struct tl *tl, const char *sql_fmt, const char *cond)
{
	char *sql = sk_xasprintf(sql_fmt, cond);
	sqlite3_stmt *st = NULL;
	int n = 0, rc;

	sk_ew_chr(&tl->w, '[');
	if (sqlite3_prepare_v2(tl->db, sql, -1, &st, NULL) == SQLITE_OK) {
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			if (n++)
				sk_ew_chr(&tl->w, ',');
			sk_tl_row_object(tl, st);
		}
		if (rc != SQLITE_DONE && !tl->err)
			tl->err = sk_fail(SKIP_E_DB, "%s", sqlite3_errmsg(tl->db));
	} else if (!tl->err) {
		tl->err = sk_fail(SKIP_E_DB, "%s", sqlite3_errmsg(tl->db));
	}
	sqlite3_finalize(st);
	free(sql);
	sk_ew_chr(&tl->w, ']');
}

static const char gpus_sql[] =
    "SELECT id, name, uuid, totalMemory, smCount, computeMajor, computeMinor, clockRate "
    "FROM sk_gpus WHERE %s GROUP BY id ORDER BY id";
static const char devprops_sql[] =
    "SELECT id, name, totalMemory AS totalGlobalMem, computeMajor, computeMinor, "
    "maxThreadsPerBlock, maxWarpsPerSm * threadsPerWarp AS maxThreadsPerMultiprocessor, "
    "maxRegistersPerBlock AS regsPerBlock, maxRegistersPerSm AS regsPerMultiprocessor, "
    "threadsPerWarp AS warpSize, maxShmemPerBlock AS sharedMemPerBlock, maxShmemPerSm AS "
    "sharedMemPerMultiprocessor, smCount AS numSms FROM sk_gpus WHERE %s GROUP BY id "
    "ORDER BY id";
static const char runs_sql[] =
    "SELECT runId, label, commandLine, repetition, status, exitCode, hostname, pid, "
    "(SELECT json_group_object(name, value) FROM SKIP_PARAMETERS p WHERE p.runId = r.runId) "
    "AS \"parameters:json\" FROM SKIP_RUNS r WHERE %s ORDER BY runId";

/* Kineto's timestamps count from the first exported run's start (or the region's), whose
 * wall-clock time is baseTimeNanoseconds. */
static void kineto_base(struct tl *tl, int64_t *utc)
{
	char *sql = sk_xasprintf("SELECT start, startUtcNs FROM SKIP_RUNS WHERE %s AND "
				 "typeof(start) = 'integer' AND typeof(startUtcNs) = 'integer' "
				 "ORDER BY runId LIMIT 1",
				 tl->sel->run_id ? "runId = ?1" : "1");
	sqlite3_stmt *st = NULL;

	*utc = -1;
	tl->base_ns = tl->sel->windowed ? tl->sel->start_ns : 0;
	if (sqlite3_prepare_v2(tl->db, sql, -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, tl->sel->run_id);
		if (sqlite3_step(st) == SQLITE_ROW) {
			if (!tl->sel->windowed)
				tl->base_ns = sqlite3_column_int64(st, 0);
			*utc =
			    sqlite3_column_int64(st, 1) + tl->base_ns - sqlite3_column_int64(st, 0);
		}
	}
	sqlite3_finalize(st);
	free(sql);
}

static void region_meta(struct tl *tl)
{
	const struct skip_export_sel *s = tl->sel;

	if (!s->windowed)
		return;
	sk_ew_str(&tl->w, ",\"region\":{\"name\":");
	sk_ew_json(&tl->w, s->region);
	sk_ew_str(&tl->w, ",\"occurrence\":");
	sk_ew_i64(&tl->w, s->occurrence);
	sk_ew_str(&tl->w, ",\"runId\":");
	sk_ew_i64(&tl->w, s->run_id);
	sk_ew_str(&tl->w, ",\"start_ns\":");
	sk_ew_i64(&tl->w, s->start_ns);
	sk_ew_str(&tl->w, ",\"end_ns\":");
	sk_ew_i64(&tl->w, s->end_ns);
	sk_ew_chr(&tl->w, '}');
}

/* skip's own account of the export: the marker skip_outfile_open() recognizes, first. */
static void skip_meta(struct tl *tl, const char *trace_path, const char *cond)
{
	sk_ew_str(&tl->w, "\"generator\":\"skip " SKIP_VERSION "\",\"trace\":");
	sk_ew_json(&tl->w, trace_path);
	sk_ew_str(&tl->w, ",\"clock\":\"CLOCK_MONOTONIC_RAW ns of the recording host\",\"gpus\":");
	rows_array(tl, gpus_sql, cond);
	sk_ew_str(&tl->w, ",\"runs\":");
	rows_array(tl, runs_sql, cond);
	region_meta(tl);
}

int sk_tl_preamble(struct tl *tl, const char *trace_path)
{
	char cond[48] = "1";
	int64_t utc;

	if (tl->sel->run_id)
		snprintf(cond, sizeof(cond), "runId = %lld", (long long)tl->sel->run_id);
	if (tl->fmt == SKIP_TIMELINE_PERFETTO) {
		sk_ew_str(&tl->w, "{\"skip_export\":\"perfetto\",\"displayTimeUnit\":\"ns\","
				  "\"otherData\":{");
		skip_meta(tl, trace_path, cond);
		sk_ew_str(&tl->w, "},\"traceEvents\":[");
		return tl->err;
	}
	kineto_base(tl, &utc);
	sk_ew_str(&tl->w, "{\"skip_export\":\"kineto\",\"schemaVersion\":1,\"skip\":{");
	skip_meta(tl, trace_path, cond);
	sk_ew_str(&tl->w, "},\"distributedInfo\":{\"rank\":0,\"world_size\":1},"
			  "\"deviceProperties\":");
	rows_array(tl, devprops_sql, cond);
	sk_ew_str(&tl->w, ",\"traceName\":");
	sk_ew_json(&tl->w, trace_path);
	sk_ew_str(&tl->w, ",\"displayTimeUnit\":\"ms\"");
	if (utc >= 0) {
		sk_ew_str(&tl->w, ",\"baseTimeNanoseconds\":");
		sk_ew_i64(&tl->w, utc);
	}
	sk_ew_str(&tl->w, ",\"traceEvents\":[");
	return tl->err;
}

/* ---- naming the tracks ------------------------------------------------------------------- */

static void meta_event(struct tl *tl, const char *what, int64_t pid, int64_t tid, const char *name,
		       int64_t sort)
{
	sk_tl_head(tl, "M", "__metadata", what, pid, tid, tl->base_ns);
	sk_ew_str(&tl->w, ",\"args\":{\"name\":");
	sk_ew_json(&tl->w, name);
	sk_ew_str(&tl->w, "}}");
	if (sort < 0)
		return;
	sk_tl_head(tl, "M", "__metadata",
		   !strcmp(what, "process_name") ? "process_sort_index" : "thread_sort_index", pid,
		   tid, tl->base_ns);
	sk_ew_str(&tl->w, ",\"args\":{\"sort_index\":");
	sk_ew_i64(&tl->w, sort);
	sk_ew_str(&tl->w, "}}");
}

/* The first text column of @sql with ?1 = @a, ?2 = @b, malloc'ed, or NULL. */
static char *lookup(sqlite3 *db, const char *sql, int64_t a, int64_t b)
{
	sqlite3_stmt *st = NULL;
	char *s = NULL;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, a);
		sqlite3_bind_int64(st, 2, b);
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
			s = sk_xstrdup((const char *)sqlite3_column_text(st, 0));
	}
	sqlite3_finalize(st);
	return s;
}

static void name_track(struct tl *tl, const struct tl_track *k)
{
	char *name = NULL, *label;

	if (k->gtid >= 0)
		name = lookup(tl->db,
			      "SELECT s.value FROM ThreadNames n JOIN StringIds s ON s.id = "
			      "n.nameId WHERE n.runId = ?1 AND n.globalTid = ?2",
			      k->run_id, k->gtid);
	if (k->device >= 0)
		label = sk_xasprintf("GPU %lld stream %lld", (long long)k->device,
				     (long long)k->stream);
	else if (k->tid == TL_SYNC_TID)
		label = sk_xstrdup("CUDA synchronization");
	else
		label = sk_xasprintf("%s (thread %lld)", name ? name : "thread", (long long)k->tid);
	meta_event(tl, "thread_name", k->pid, k->tid, label,
		   k->device >= 0 || k->tid == TL_SYNC_TID ? k->tid : -1);
	free(label);
	free(name);
}

static void name_process(struct tl *tl, const struct tl_track *k)
{
	char *name, *label;

	name = lookup(tl->db, "SELECT name FROM SKIP_PROCESSES WHERE runId = ?1 AND globalPid = ?2",
		      k->run_id, k->gpid);
	label = sk_xasprintf("%s (pid %lld, run %lld)", name ? name : "process", (long long)k->pid,
			     (long long)k->run_id);
	meta_event(tl, "process_name", k->pid, 0, label, -1);
	free(label);
	free(name);
}

/* Kineto's names: the process's name, "thread T (NAME)", "stream S" (Kineto writes "stream S "
 * with a space when the stream has no name). */
static void kineto_names(struct tl *tl, const struct tl_track *k, int first)
{
	char *pname = NULL, *tname = NULL, *label;

	if (k->gtid >= 0)
		tname = lookup(tl->db,
			       "SELECT s.value FROM ThreadNames n JOIN StringIds s ON s.id = "
			       "n.nameId WHERE n.runId = ?1 AND n.globalTid = ?2",
			       k->run_id, k->gtid);
	if (first && k->device < 0)
		pname = lookup(
		    tl->db, "SELECT name FROM SKIP_PROCESSES WHERE runId = ?1 AND globalPid = ?2",
		    k->run_id, k->gpid);
	if (first && !pname)
		pname = k->device >= 0 ? sk_xasprintf("GPU %lld", (long long)k->pid)
				       : sk_xstrdup("process");
	if (k->device >= 0)
		label = sk_xasprintf("stream %lld", (long long)k->stream);
	else if (k->tid == TL_SYNC_TID)
		label = sk_xstrdup("CUDA synchronization");
	else
		label =
		    sk_xasprintf("thread %lld (%s)", (long long)k->tid, tname ? tname : "thread");
	sk_kineto_meta(tl, k, pname, label, first);
	free(label);
	free(tname);
	free(pname);
}

int sk_tl_finish(struct tl *tl)
{
	struct sk_hash seen = {0};
	size_t n = tl->ntracks; /* naming adds no track */

	for (size_t i = 0; i < n; i++) {
		const struct tl_track k = tl->tracks[i];
		uint64_t key = (uint64_t)k.pid + 1;
		int first = !sk_hash_get(&seen, key);

		if (first) {
			sk_hash_xreserve(&seen, 1);
			sk_hash_put(&seen, key, 1);
		}
		if (tl->fmt == SKIP_TIMELINE_KINETO) {
			kineto_names(tl, &k, first);
			continue;
		}
		name_track(tl, &k);
		if (first)
			name_process(tl, &k);
	}
	sk_hash_fini(&seen);
	sk_ew_str(&tl->w, "\n]}\n");
	return tl->err;
}
