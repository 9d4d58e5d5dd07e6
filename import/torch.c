/*
 * torch.c: Kineto's Chrome trace JSON (torch.profiler) into the trace store, one input per run.
 *
 * The text is walked with scan.c: the top-level members are parsed with cJSON one at a time,
 * and each element of traceEvents is parsed on its own, mapped to its table by its "cat" and
 * written through prepared statements in one transaction. The field names are Kineto's
 * (libkineto/src/output_json.cpp, CuptiActivity.cpp, DeviceProperties.cpp); the mapping is the
 * table of docs/skip-import.md. Kineto puts a GPU operation on pid = device, tid = stream, so
 * its process is found afterwards: the process of the runtime or driver call with its
 * correlation id, else the process with the most CPU events.
 */
#define SK_LOG_DOMAIN "import"
#include <cjson/cJSON.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Times are refused at or above 2^62 ns, as the analyzer's well-formed rule says
 * (docs/trace-format.md). */
#define TIME_MAX ((int64_t)1 << 62)

enum stmt {
	INS_STRING,
	INS_KERNEL,
	INS_MEMCPY,
	INS_MEMSET,
	INS_RUNTIME,
	INS_DRIVER,
	INS_SYNC,
	INS_RANGE,
	NSTMT
};

/* Column lists name every column written; the rest keep their NULL (or default). */
static const char *const stmt_sql[NSTMT] = {
    [INS_STRING] = "INSERT INTO StringIds(id, value) VALUES (?1, ?2)",
    [INS_KERNEL] = "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL(runId, start, end, deviceId, "
		   "contextId, streamId, correlationId, globalPid, demangledName, shortName, "
		   "registersPerThread, gridX, gridY, gridZ, blockX, blockY, blockZ, "
		   "staticSharedMemory, dynamicSharedMemory, graphId, graphNodeId) VALUES (?1, ?2, "
		   "?3, ?4, ?5, ?6, ?7, 0, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, 0, ?18, "
		   "?19)",
    [INS_MEMCPY] = "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY(runId, start, end, deviceId, "
		   "contextId, streamId, correlationId, globalPid, bytes, copyKind, srcKind, "
		   "dstKind) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 0, ?8, ?9, ?10, ?11)",
    [INS_MEMSET] = "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET(runId, start, end, deviceId, "
		   "contextId, streamId, correlationId, globalPid, value, bytes, memKind) VALUES "
		   "(?1, ?2, ?3, ?4, ?5, ?6, ?7, 0, 0, ?8, ?9)",
    [INS_RUNTIME] = "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME(runId, start, end, eventClass, "
		    "globalTid, correlationId, nameId, returnValue, cbid) VALUES (?1, ?2, ?3, 0, "
		    "?4, ?5, ?6, 0, ?7)",
    /* driver calls share the runtime table, as in nsys's export (eventClass 1) */
    [INS_DRIVER] = "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME(runId, start, end, eventClass, "
		   "globalTid, correlationId, nameId, returnValue, cbid) VALUES (?1, ?2, ?3, 1, "
		   "?4, ?5, ?6, 0, ?7)",
    [INS_SYNC] = "INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION(runId, start, end, deviceId, "
		 "contextId, streamId, correlationId, globalPid, syncType, eventId) VALUES (?1, "
		 "?2, ?3, ?4, ?5, ?6, ?7, 0, ?8, ?9)",
    [INS_RANGE] = ("INSERT INTO NVTX_EVENTS(runId, start, end, eventType, text, globalTid, "
		   "endGlobalTid, domainId) VALUES (?1, ?2, ?3, 59, ?4, ?5, ?5, 0)"),
};

/* The tables whose rows get their process afterwards (globalPid written as 0 first). */
static const char *const op_table[] = {
    "CUPTI_ACTIVITY_KIND_KERNEL",
    "CUPTI_ACTIVITY_KIND_MEMCPY",
    "CUPTI_ACTIVITY_KIND_MEMSET",
    "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
};

struct skip_importer {
	sqlite3 *db;		 /* borrowed */
	sqlite3_stmt *st[NSTMT]; /* prepared inserts */
	struct sk_strtab names;	 /* every name written to StringIds (id = base + its id) */
	int64_t string_base;	 /* the largest StringIds id before the importer's */
	int64_t next_run;	 /* the run the next input becomes */
	int64_t added;		 /* inputs imported: the next one's repetition */
	int dead;		 /* an input failed: the importer is not used again */
};

/* A GPU operation or synchronization whose process is settled at the end of its input. */
struct gpu_row {
	int64_t rowid;
	uint32_t corr;
	uint8_t table; /* index into op_table */
};

/* A process_name or thread_name metadata event. */
struct proc_name {
	int64_t pid, tid; /* tid -1 for a process name */
	char *name;	  /* owned */
};

/* One input being imported. */
struct input {
	struct skip_importer *im;
	const char *path;
	const char *text; /* the whole JSON text */
	int64_t run;
	int64_t index;		 /* the current event, from 0 */
	const cJSON *ev;	 /* the current event's tree, for messages */
	struct sk_hash corr_pid; /* correlation id + 1 -> pid of its runtime or driver call */
	struct sk_hash cpu_pids; /* pid + 1 -> CPU events seen in it */
	struct gpu_row *rows;
	size_t nrows, caprows;
	struct proc_name *names;
	size_t nnames, capnames;
	int64_t t_min, t_max; /* over all imported events, ns */
	int graph_launches;   /* runtime or driver calls that launch CUDA graphs */
	int graph_ids;	      /* kernels with a graph id */
	cJSON *devices;	      /* the deviceProperties array, owned */
	char base_ns[32];     /* baseTimeNanoseconds as written, "" when absent */
	char schema[32];      /* schemaVersion, "" when absent */
	char rank[32];	      /* distributedInfo.rank, "" when absent */
	struct skip_import_counts c;
};

/* ---- messages ------------------------------------------------------------------------- */

/* "PATH: event N (cat 'kernel', name 'x'): WHAT" with SKIP_E_INVAL. */
static int SK_PRINTF(2, 3) bad_event(struct input *in, const char *fmt, ...)
{
	const cJSON *cat = cJSON_GetObjectItemCaseSensitive(in->ev, "cat");
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(in->ev, "name");
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return sk_fail(SKIP_E_INVAL, "%s: event %lld (cat '%.40s', name '%.60s'): %s", in->path,
		       (long long)in->index, cJSON_IsString(cat) ? cat->valuestring : "",
		       cJSON_IsString(name) ? name->valuestring : "", what);
}

/* "PATH:LINE:COLUMN: WHAT" with SKIP_E_INVAL, for a place in the text. */
static int bad_text(struct input *in, const char *at, const char *what)
{
	long line, col;

	sk_jscan_where(in->text, (size_t)(at - in->text), &line, &col);
	return sk_fail(SKIP_E_INVAL, "%s:%ld:%ld: %s", in->path, line, col, what);
}

static int db_error(struct input *in)
{
	int rc = sqlite3_errcode(in->im->db);

	return sk_fail(rc == SQLITE_FULL ? SKIP_E_FULL : SKIP_E_DB, "%s: writing the trace: %s",
		       in->path, sqlite3_errmsg(in->im->db));
}

/* ---- fields --------------------------------------------------------------------------- */

/* An integer member of @obj (a JSON number with no fraction) into *@out. Returns 1 when
 * present, 0 when absent, or a negative code (with the message) when it is not an integer. */
static int get_int(struct input *in, const cJSON *obj, const char *key, int64_t *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	if (!v)
		return 0;
	if (!cJSON_IsNumber(v) || v->valuedouble != (double)(int64_t)v->valuedouble ||
	    v->valuedouble < -9.0e15 || v->valuedouble > 9.0e15)
		return bad_event(in, "'%s' is not an integer", key);
	*out = (int64_t)v->valuedouble;
	return 1;
}

/* The same for a member that must be there. 0 or a negative code. */
static int need_int(struct input *in, const cJSON *obj, const char *key, int64_t *out)
{
	int rc = get_int(in, obj, key, out);

	if (rc == 0)
		return bad_event(in, "no '%s'%s", key, obj == in->ev ? "" : " in args");
	return rc < 0 ? rc : 0;
}

/* The first of two alternative integer members of args (Kineto's memcpy between devices
 * writes "inDevice" for "device"). */
static int need_int2(struct input *in, const cJSON *args, const char *key, const char *alt,
		     int64_t *out)
{
	int rc = get_int(in, args, key, out);

	if (rc == 0)
		rc = get_int(in, args, alt, out);
	if (rc == 0)
		return bad_event(in, "no '%s' in args", key);
	return rc < 0 ? rc : 0;
}

static int check_range(struct input *in, const char *what, int64_t v, int64_t lo, int64_t hi)
{
	if (v < lo || v > hi)
		return bad_event(in, "%s %lld is out of range [%lld, %lld]", what, (long long)v,
				 (long long)lo, (long long)hi);
	return 0;
}

/* "ts" and "dur" (both required) from the event's text, exactly, as [start, end) in ns. */
static int get_times(struct input *in, struct sk_jspan ev, int64_t *start, int64_t *end)
{
	struct sk_jspan ts, dur;
	int64_t d;

	if (!sk_jscan_member(ev, "ts", &ts))
		return bad_event(in, "no 'ts'");
	if (!sk_jscan_member(ev, "dur", &dur))
		return bad_event(in, "no 'dur'");
	if (sk_us_to_ns(ts, start) || *start < 0)
		return bad_event(in, "'ts' %.*s is not a time in [0, 2^62) ns", (int)(ts.n % 64),
				 ts.p);
	if (sk_us_to_ns(dur, &d) || d < 0 || d >= TIME_MAX - *start)
		return bad_event(in, "'dur' %.*s is not a duration that ends before 2^62 ns",
				 (int)(dur.n % 64), dur.p);
	*end = *start + d;
	if (*start < in->t_min)
		in->t_min = *start;
	if (*end > in->t_max)
		in->t_max = *end;
	return 0;
}

/* The name's StringIds id, inserting it when new. */
static int64_t name_id(struct input *in, const char *s)
{
	struct skip_importer *im = in->im;
	int is_new = 0;
	int64_t id = sk_strtab_intern(&im->names, s, &is_new);
	sqlite3_stmt *st = im->st[INS_STRING];

	if (id < 0)
		return sk_fail(SKIP_E_NOMEM, "%s: out of memory", in->path);
	if (!is_new)
		return im->string_base + id;
	sqlite3_bind_int64(st, 1, im->string_base + id);
	sqlite3_bind_text(st, 2, s, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE) {
		sqlite3_reset(st);
		return db_error(in);
	}
	sqlite3_reset(st);
	return im->string_base + id;
}

/* Run a bound insert; 0 or a negative code. */
static int step(struct input *in, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE ? 0 : db_error(in);
}

/* ?1..?3 of every insert but the string's: the run and the event's [start, end). */
static void bind_span(const struct input *in, sqlite3_stmt *st, int64_t start, int64_t end)
{
	sqlite3_bind_int64(st, 1, in->run);
	sqlite3_bind_int64(st, 2, start);
	sqlite3_bind_int64(st, 3, end);
}

static int remember_row(struct input *in, uint8_t table, int64_t corr)
{
	struct gpu_row r = {sqlite3_last_insert_rowid(in->im->db), (uint32_t)corr, table};

	if (SK_VEC_PUSH(in->rows, in->nrows, in->caprows, r))
		return sk_fail(SKIP_E_NOMEM, "%s: out of memory", in->path);
	return 0;
}

/* The CPU side: pid and tid as numbers, packed as nsys does; the pid counted. */
static int cpu_thread(struct input *in, int64_t *global_tid)
{
	int64_t pid, tid;
	uint64_t *n;
	int rc;

	if ((rc = need_int(in, in->ev, "pid", &pid)) || (rc = need_int(in, in->ev, "tid", &tid)) ||
	    (rc = check_range(in, "pid", pid, 0, UINT32_MAX)))
		return rc;
	*global_tid = (pid << 24) | (tid & 0xFFFFFF);
	n = sk_hash_get(&in->cpu_pids, (uint64_t)pid + 1);
	if (n)
		++*n;
	else if (sk_hash_put(&in->cpu_pids, (uint64_t)pid + 1, 1))
		return sk_fail(SKIP_E_NOMEM, "%s: out of memory", in->path);
	return 0;
}

/* ---- GPU operations ------------------------------------------------------------------- */

/* device, context, stream and correlation of a GPU operation, bound as ?4..?7. */
static int bind_gpu_where(struct input *in, const cJSON *args, sqlite3_stmt *st, int64_t *corr)
{
	int64_t dev, ctx, stream;
	int rc;

	if ((rc = need_int2(in, args, "device", "inDevice", &dev)) ||
	    (rc = need_int2(in, args, "context", "inContext", &ctx)) ||
	    (rc = need_int(in, args, "stream", &stream)) ||
	    (rc = need_int(in, args, "correlation", corr)) ||
	    (rc = check_range(in, "device", dev, 0, 65535)) ||
	    (rc = check_range(in, "correlation", *corr, 0, UINT32_MAX)))
		return rc;
	sqlite3_bind_int64(st, 4, dev);
	sqlite3_bind_int64(st, 5, ctx);
	sqlite3_bind_int64(st, 6, stream);
	sqlite3_bind_int64(st, 7, *corr);
	return 0;
}

/* "grid": [x, y, z] into ?first..?first+2. */
static int bind_dim3(struct input *in, const cJSON *args, const char *key, sqlite3_stmt *st,
		     int first)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(args, key), *v;
	int i = 0;

	if (!a)
		return bad_event(in, "no '%s' in args", key);
	if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != 3)
		return bad_event(in, "'%s' is not an array of 3 integers", key);
	cJSON_ArrayForEach(v, a)
	{
		if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > UINT32_MAX ||
		    v->valuedouble != (double)(int64_t)v->valuedouble)
			return bad_event(in, "'%s' is not an array of 3 integers", key);
		sqlite3_bind_int64(st, first + i++, (int64_t)v->valuedouble);
	}
	return 0;
}

static int do_kernel(struct input *in, struct sk_jspan text, const cJSON *args, const char *name)
{
	sqlite3_stmt *st = in->im->st[INS_KERNEL];
	int64_t start, end, corr, regs, shmem, gid, nid, dem, shrt;
	char shortbuf[512];
	int rc;

	if ((rc = get_times(in, text, &start, &end)) ||
	    (rc = bind_gpu_where(in, args, st, &corr)) ||
	    (rc = need_int(in, args, "registers per thread", &regs)) ||
	    (rc = need_int(in, args, "shared memory", &shmem)) ||
	    (rc = bind_dim3(in, args, "grid", st, 11)) ||
	    (rc = bind_dim3(in, args, "block", st, 14)))
		goto out;
	sk_short_name(name, shortbuf, sizeof(shortbuf));
	if ((dem = name_id(in, name)) < 0 || (shrt = name_id(in, shortbuf)) < 0) {
		rc = (int)(dem < 0 ? dem : shrt);
		goto out;
	}
	bind_span(in, st, start, end);
	sqlite3_bind_int64(st, 8, dem);
	sqlite3_bind_int64(st, 9, shrt);
	sqlite3_bind_int64(st, 10, regs);
	sqlite3_bind_int64(st, 17, shmem);
	if ((rc = get_int(in, args, "graph id", &gid)) < 0)
		goto out;
	if (rc == 1) {
		sqlite3_bind_int64(st, 18, gid);
		in->graph_ids++;
	}
	if ((rc = get_int(in, args, "graph node id", &nid)) < 0)
		goto out;
	if (rc == 1)
		sqlite3_bind_int64(st, 19, nid);
	if (!(rc = step(in, st)) && !(rc = remember_row(in, 0, corr)))
		in->c.kernels++;
	return rc;
out:
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc;
}

/* Kineto's names for CUPTI's memory kinds, in skip's numbering (docs/trace-format.md:
 * 0 pageable ... 7 unknown), and for CUPTI's memcpy kinds (CUPTI's numbering). */
static const char *const mem_kinds[] = {"Pageable", "Pinned",	     "Device",	       "Array",
					"Managed",  "Device Static", "Managed Static", "Unknown"};
static const char *const copy_kinds[] = {"Unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA",
					 "AtoD",    "DtoA", "DtoD", "HtoH", "PtoP"};

static int kind_of(const char *s, size_t n, const char *const *names, int count)
{
	for (int i = 0; i < count; i++)
		if (strlen(names[i]) == n && !strncasecmp(s, names[i], n))
			return i;
	return -1;
}

/* "Memcpy HtoD (Pageable -> Device)": the copy kind and the two memory kinds, -1 each when the
 * name does not say. */
static void memcpy_kinds(const char *name, int *copy, int *src, int *dst)
{
	const char *p = strchr(name, ' '), *open = strchr(name, '('), *arrow = strstr(name, " -> ");
	const char *close = strrchr(name, ')');

	*copy = *src = *dst = -1;
	if (p && open && open > p + 1)
		*copy = kind_of(p + 1, (size_t)(open - 1 - (p + 1)), copy_kinds, 11);
	if (open && arrow && close && arrow > open && close > arrow) {
		*src = kind_of(open + 1, (size_t)(arrow - open - 1), mem_kinds, 8);
		*dst = kind_of(arrow + 4, (size_t)(close - arrow - 4), mem_kinds, 8);
	}
}

static int do_memop(struct input *in, struct sk_jspan text, const cJSON *args, const char *name,
		    int is_copy)
{
	sqlite3_stmt *st = in->im->st[is_copy ? INS_MEMCPY : INS_MEMSET];
	int64_t start, end, corr, bytes;
	int rc, copy, src, dst;

	if ((rc = get_times(in, text, &start, &end)) ||
	    (rc = bind_gpu_where(in, args, st, &corr)) ||
	    (rc = need_int(in, args, "bytes", &bytes))) {
		sqlite3_reset(st);
		sqlite3_clear_bindings(st);
		return rc;
	}
	bind_span(in, st, start, end);
	sqlite3_bind_int64(st, 8, bytes);
	if (is_copy) {
		memcpy_kinds(name, &copy, &src, &dst);
		sqlite3_bind_int(st, 9, copy < 0 ? 0 : copy);
		if (src >= 0)
			sqlite3_bind_int(st, 10, src);
		if (dst >= 0)
			sqlite3_bind_int(st, 11, dst);
	} else {
		const char *open = strchr(name, '('), *close = strrchr(name, ')');
		int k = open && close > open
			    ? kind_of(open + 1, (size_t)(close - open - 1), mem_kinds, 8)
			    : -1;

		if (k >= 0)
			sqlite3_bind_int(st, 9, k);
	}
	if ((rc = step(in, st)) || (rc = remember_row(in, is_copy ? 1 : 2, corr)))
		return rc;
	if (is_copy)
		in->c.memcpys++;
	else
		in->c.memsets++;
	return 0;
}

/* Kineto's cuda_sync_kind strings, in CUPTI's numbering of synchronization types. */
static const char *const sync_kinds[] = {"Unknown", "Event Sync", "Stream Wait Event",
					 "Stream Sync", "Context Sync"};

static int do_sync(struct input *in, struct sk_jspan text, const cJSON *args)
{
	sqlite3_stmt *st = in->im->st[INS_SYNC];
	const cJSON *kind = cJSON_GetObjectItemCaseSensitive(args, "cuda_sync_kind");
	int64_t start, end, dev = -1, ctx, stream, corr, ev;
	int rc, type = 0;

	if ((rc = get_times(in, text, &start, &end)) ||
	    (rc = need_int(in, args, "context", &ctx)) ||
	    (rc = need_int(in, args, "stream", &stream)) ||
	    (rc = need_int(in, args, "correlation", &corr)) ||
	    (rc = check_range(in, "correlation", corr, 0, UINT32_MAX)) ||
	    (rc = get_int(in, args, "device", &dev)) < 0)
		return rc;
	if (cJSON_IsString(kind))
		type = kind_of(kind->valuestring, strlen(kind->valuestring), sync_kinds, 5);
	bind_span(in, st, start, end);
	if (dev >= 0 && dev <= 65535)
		sqlite3_bind_int64(st, 4, dev);
	sqlite3_bind_int64(st, 5, ctx);
	sqlite3_bind_int64(st, 6, stream);
	sqlite3_bind_int64(st, 7, corr);
	sqlite3_bind_int(st, 8, type < 0 ? 0 : type);
	if (get_int(in, args, "wait_on_cuda_event_id", &ev) == 1)
		sqlite3_bind_int64(st, 9, ev);
	if ((rc = step(in, st)) || (rc = remember_row(in, 3, corr)))
		return rc;
	in->c.syncs++;
	return 0;
}

/* ---- CPU side ------------------------------------------------------------------------- */

static int do_api(struct input *in, struct sk_jspan text, const cJSON *args, const char *name,
		  int driver)
{
	sqlite3_stmt *st = in->im->st[driver ? INS_DRIVER : INS_RUNTIME];
	int64_t start, end, gtid, corr, cbid, nid;
	int rc;

	if ((rc = get_times(in, text, &start, &end)) || (rc = cpu_thread(in, &gtid)) ||
	    (rc = need_int(in, args, "correlation", &corr)) ||
	    (rc = need_int(in, args, "cbid", &cbid)) ||
	    (rc = check_range(in, "correlation", corr, 0, UINT32_MAX)))
		return rc;
	if ((nid = name_id(in, name)) < 0)
		return (int)nid;
	if (!sk_hash_get(&in->corr_pid, (uint64_t)corr + 1) &&
	    sk_hash_put(&in->corr_pid, (uint64_t)corr + 1, (uint64_t)(gtid >> 24)))
		return sk_fail(SKIP_E_NOMEM, "%s: out of memory", in->path);
	if (strstr(name, "GraphLaunch"))
		in->graph_launches++;
	bind_span(in, st, start, end);
	sqlite3_bind_int64(st, 4, gtid);
	sqlite3_bind_int64(st, 5, corr);
	sqlite3_bind_int64(st, 6, nid);
	sqlite3_bind_int64(st, 7, cbid);
	if ((rc = step(in, st)))
		return rc;
	if (driver)
		in->c.driver_calls++;
	else
		in->c.runtime_calls++;
	return 0;
}

/* torch.profiler names each step it is told of (prof.step()) "ProfilerStep#N": the length of
 * @name without a "#N" (digits) after "ProfilerStep", so that the steps are one range that
 * repeats, as HTA's iterations; -1 (all of it) for any other name. */
static int step_name_len(const char *name)
{
	static const char pfx[] = "ProfilerStep#";
	const char *d = name + sizeof(pfx) - 1;

	if (strncmp(name, pfx, sizeof(pfx) - 1) || !*d)
		return -1;
	for (; *d; d++)
		if (*d < '0' || *d > '9')
			return -1;
	return (int)sizeof(pfx) - 2;
}

static int do_range(struct input *in, struct sk_jspan text, const char *name)
{
	sqlite3_stmt *st = in->im->st[INS_RANGE];
	int64_t start, end, gtid;
	int rc;

	if ((rc = get_times(in, text, &start, &end)) || (rc = cpu_thread(in, &gtid)))
		return rc;
	bind_span(in, st, start, end);
	sqlite3_bind_text(st, 4, name, step_name_len(name), SQLITE_STATIC);
	sqlite3_bind_int64(st, 5, gtid);
	if ((rc = step(in, st)))
		return rc;
	in->c.ranges++;
	return 0;
}

/* process_name and thread_name: kept until the end, when the CPU processes are known. */
static int do_meta(struct input *in, const char *what, const cJSON *args)
{
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(args, "name");
	struct proc_name p = {0, -1, NULL};
	int is_thread = !strcmp(what, "thread_name");

	if ((!is_thread && strcmp(what, "process_name")) || !cJSON_IsString(name) ||
	    get_int(in, in->ev, "pid", &p.pid) != 1 ||
	    (is_thread && get_int(in, in->ev, "tid", &p.tid) != 1)) {
		in->c.ignored++; /* other metadata, or GPU rows named by strings ("Spans") */
		return 0;
	}
	if (!(p.name = strdup(name->valuestring)) ||
	    SK_VEC_PUSH(in->names, in->nnames, in->capnames, p)) {
		free(p.name);
		return sk_fail(SKIP_E_NOMEM, "%s: out of memory", in->path);
	}
	return 0;
}

/* The categories read (docs/skip-import.md's mapping); every other one is left out. */
enum kind { K_RANGE, K_RUNTIME, K_DRIVER, K_KERNEL, K_MEMCPY, K_MEMSET, K_SYNC, K_OTHER };
static const char *const kind_cats[K_OTHER][2] = {
    [K_RANGE] = {"cpu_op", "user_annotation"},
    [K_RUNTIME] = {"cuda_runtime"},
    [K_DRIVER] = {"cuda_driver"},
    [K_KERNEL] = {"kernel"},
    [K_MEMCPY] = {"gpu_memcpy"},
    [K_MEMSET] = {"gpu_memset"},
    [K_SYNC] = {"cuda_sync"},
};

static enum kind kind_of_cat(const char *cat)
{
	for (int k = 0; k < K_OTHER; k++)
		for (int i = 0; i < 2; i++)
			if (kind_cats[k][i] && !strcmp(cat, kind_cats[k][i]))
				return (enum kind)k;
	return K_OTHER;
}

/* A complete event ("ph": "X") of category @kind. */
static int do_complete(struct input *in, struct sk_jspan text, enum kind kind)
{
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(in->ev, "name");
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(in->ev, "args");
	const char *n;

	if (kind == K_OTHER) {
		in->c.ignored++;
		return 0;
	}
	if (!cJSON_IsString(name))
		return bad_event(in, "no 'name' string");
	if (args && !cJSON_IsObject(args))
		return bad_event(in, "'args' is not an object");
	n = name->valuestring;
	switch (kind) {
	case K_RANGE:
		return do_range(in, text, n);
	case K_RUNTIME:
	case K_DRIVER:
		return do_api(in, text, args, n, kind == K_DRIVER);
	case K_KERNEL:
		return do_kernel(in, text, args, n);
	case K_MEMCPY:
	case K_MEMSET:
		return do_memop(in, text, args, n, kind == K_MEMCPY);
	case K_SYNC:
		return do_sync(in, text, args);
	default:
		return 0;
	}
}

/* One element of traceEvents. */
static int do_event(struct input *in, struct sk_jspan text)
{
	const char *end = NULL;
	cJSON *ev = cJSON_ParseWithLengthOpts(text.p, text.n, &end, 0);
	const cJSON *ph, *cat, *name;
	int rc = 0;

	if (!ev || end != text.p + text.n) {
		cJSON_Delete(ev);
		return bad_text(in, end && end >= text.p && end <= text.p + text.n ? end : text.p,
				"JSON syntax error in an event");
	}
	in->ev = ev;
	in->c.events++;
	ph = cJSON_GetObjectItemCaseSensitive(ev, "ph");
	cat = cJSON_GetObjectItemCaseSensitive(ev, "cat");
	name = cJSON_GetObjectItemCaseSensitive(ev, "name");
	if (!cJSON_IsObject(ev))
		rc = bad_event(in, "not an object");
	else if (!cJSON_IsString(ph))
		rc = bad_event(in, "no 'ph' (phase) string");
	else if (!strcmp(ph->valuestring, "M"))
		rc = do_meta(in, cJSON_IsString(name) ? name->valuestring : "",
			     cJSON_GetObjectItemCaseSensitive(ev, "args"));
	else if (!strcmp(ph->valuestring, "X") && cJSON_IsString(cat))
		rc = do_complete(in, text, kind_of_cat(cat->valuestring));
	else
		in->c.ignored++; /* instants, flows, counters */
	in->ev = NULL;
	cJSON_Delete(ev);
	return rc;
}

/* ---- the top level -------------------------------------------------------------------- */

/* Parse the top-level value @v (any member but traceEvents) with cJSON: it checks the text. */
static int parse_member(struct input *in, struct sk_jspan v, cJSON **out)
{
	const char *end = NULL;
	cJSON *tree = cJSON_ParseWithLengthOpts(v.p, v.n, &end, 0);

	if (!tree || end != v.p + v.n) {
		cJSON_Delete(tree);
		return bad_text(in, end && end >= v.p && end <= v.p + v.n ? end : v.p,
				"JSON syntax error");
	}
	*out = tree;
	return 0;
}

/* A top-level number kept as text (baseTimeNanoseconds, schemaVersion). */
static void keep_number(const cJSON *tree, struct sk_jspan v, char *buf, size_t n)
{
	if (cJSON_IsNumber(tree) && v.n < n)
		snprintf(buf, n, "%.*s", (int)v.n, v.p);
}

static int do_member(struct input *in, struct sk_jspan key, struct sk_jspan v)
{
	cJSON *tree = NULL;
	int rc = parse_member(in, v, &tree);

#define IS(k) (key.n == sizeof(k) - 1 && !memcmp(key.p, k, sizeof(k) - 1))
	if (rc)
		return rc;
	if (IS("deviceProperties") && cJSON_IsArray(tree) && !in->devices) {
		in->devices = tree;
		return 0;
	}
	if (IS("baseTimeNanoseconds"))
		keep_number(tree, v, in->base_ns, sizeof(in->base_ns));
	else if (IS("schemaVersion"))
		keep_number(tree, v, in->schema, sizeof(in->schema));
	else if (IS("distributedInfo")) {
		const cJSON *rank = cJSON_GetObjectItemCaseSensitive(tree, "rank");

		if (cJSON_IsNumber(rank))
			snprintf(in->rank, sizeof(in->rank), "%.0f", rank->valuedouble);
	}
#undef IS
	cJSON_Delete(tree);
	return 0;
}

static int scan_error(struct input *in, struct sk_jscan *j)
{
	return bad_text(in, in->text + (j->pos < j->n ? j->pos : j->n), j->msg);
}

/* The elements of the traceEvents array, whose '[' is next. */
static int do_events(struct input *in, struct sk_jscan *j)
{
	int first = 1, more, rc;

	if (sk_jscan_peek(j) != '[')
		return bad_text(in, in->text + j->pos, "traceEvents is not an array");
	j->pos++;
	while ((more = sk_jscan_more(j, ']', &first)) == 1) {
		struct sk_jspan v;

		if (sk_jscan_value(j, &v))
			return scan_error(in, j);
		if ((rc = do_event(in, v)))
			return rc;
		in->index++;
	}
	return more < 0 ? scan_error(in, j) : 0;
}

/* The whole text: an object with traceEvents (Kineto), or a bare array of events. */
static int walk(struct input *in, size_t len)
{
	struct sk_jscan j = {in->text, len, 0, NULL};
	int first = 1, more, rc, seen = 0, c = sk_jscan_peek(&j);

	if (c == '[') {
		seen = 1;
		if ((rc = do_events(in, &j)))
			return rc;
	} else if (c == '{') {
		j.pos++;
		while ((more = sk_jscan_more(&j, '}', &first)) == 1) {
			struct sk_jspan k, v;

			if (sk_jscan_string(&j, &k) || sk_jscan_expect(&j, ':'))
				return scan_error(in, &j);
			if (k.n == 11 && !memcmp(k.p, "traceEvents", 11)) {
				seen = 1;
				rc = do_events(in, &j);
			} else {
				rc = sk_jscan_value(&j, &v) ? scan_error(in, &j)
							    : do_member(in, k, v);
			}
			if (rc)
				return rc;
		}
		if (more < 0)
			return scan_error(in, &j);
	} else {
		return bad_text(in, in->text + j.pos,
				"not a JSON object: a torch.profiler trace starts with '{'");
	}
	if (sk_jscan_peek(&j))
		return bad_text(in, in->text + j.pos, "text after the end of the JSON value");
	if (!seen)
		return sk_fail(SKIP_E_INVAL,
			       "%s: no traceEvents: a JSON file, but not a torch.profiler trace "
			       "(prof.export_chrome_trace() or a *.pt.trace.json)",
			       in->path);
	return 0;
}

/* ---- after the events ------------------------------------------------------------------ */

/* Run @sql with integer parameters ?1.. (@n of them) and text parameters after them. */
static int exec_bound(struct input *in, const char *sql, const int64_t *ints, int nints,
		      const char *const *texts, int ntexts)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (sqlite3_prepare_v2(in->im->db, sql, -1, &st, NULL) != SQLITE_OK)
		return db_error(in);
	for (int i = 0; i < nints; i++)
		sqlite3_bind_int64(st, i + 1, ints[i]);
	for (int i = 0; i < ntexts; i++)
		if (texts[i])
			sqlite3_bind_text(st, nints + i + 1, texts[i], -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : db_error(in);
}

/* The process with the most CPU events (the smaller pid on a tie), 0 when there is none. */
static int64_t main_pid(const struct input *in)
{
	uint64_t best = 0, most = 0;

	for (size_t i = 0; i < in->cpu_pids.cap; i++) {
		const struct sk_hash_slot *s = &in->cpu_pids.slots[i];

		if (s->key && (s->val > most || (s->val == most && s->key < best))) {
			best = s->key;
			most = s->val;
		}
	}
	return best ? (int64_t)best - 1 : 0;
}

/* Each GPU operation and synchronization gets the process of its launch call. */
static int settle_processes(struct input *in, int64_t pid)
{
	sqlite3_stmt *st[4] = {NULL};
	int rc = 0;

	for (size_t t = 0; t < 4 && !rc; t++) {
		char sql[128];

		snprintf(sql, sizeof(sql), "UPDATE %s SET globalPid = ?1 WHERE rowid = ?2",
			 op_table[t]);
		if (sqlite3_prepare_v2(in->im->db, sql, -1, &st[t], NULL) != SQLITE_OK)
			rc = db_error(in);
	}
	for (size_t i = 0; i < in->nrows && !rc; i++) {
		const struct gpu_row *r = &in->rows[i];
		const uint64_t *p = sk_hash_get(&in->corr_pid, (uint64_t)r->corr + 1);

		sqlite3_bind_int64(st[r->table], 1, (int64_t)(p ? *p : (uint64_t)pid) << 24);
		sqlite3_bind_int64(st[r->table], 2, r->rowid);
		rc = step(in, st[r->table]);
	}
	for (size_t t = 0; t < 4; t++)
		sqlite3_finalize(st[t]);
	return rc;
}

/* deviceProperties (DeviceProperties.cpp) into SKIP_GPUS (a trigger fills nsys's
 * TARGET_INFO_GPU from it); what it lacks stays NULL. */
static int write_gpus(struct input *in, int64_t pid)
{
	static const char *const cols[][2] = {
	    {"totalMemory", "totalGlobalMem"},
	    {"computeMajor", "computeMajor"},
	    {"computeMinor", "computeMinor"},
	    {"maxThreadsPerBlock", "maxThreadsPerBlock"},
	    {"maxRegistersPerBlock", "regsPerBlock"},
	    {"maxRegistersPerSm", "regsPerMultiprocessor"},
	    {"maxShmemPerBlock", "sharedMemPerBlock"},
	    {"maxShmemPerSm", "sharedMemPerMultiprocessor"},
	    {"threadsPerWarp", "warpSize"},
	    {"smCount", "numSms"},
	};
	const cJSON *d;

	cJSON_ArrayForEach(d, in->devices)
	{
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(d, "id");
		const cJSON *name = cJSON_GetObjectItemCaseSensitive(d, "name");
		const cJSON *thr =
		    cJSON_GetObjectItemCaseSensitive(d, "maxThreadsPerMultiprocessor");
		const cJSON *warp = cJSON_GetObjectItemCaseSensitive(d, "warpSize");
		sqlite3_stmt *st = NULL;
		int rc;

		if (!cJSON_IsNumber(id) || id->valuedouble < 0 || id->valuedouble > 65535)
			continue;
		if (sqlite3_prepare_v2(
			in->im->db,
			"INSERT INTO SKIP_GPUS(runId, globalPid, id, name, "
			"totalMemory, computeMajor, computeMinor, maxThreadsPerBlock, "
			"maxRegistersPerBlock, maxRegistersPerSm, maxShmemPerBlock, "
			"maxShmemPerSm, threadsPerWarp, smCount, maxWarpsPerSm) VALUES "
			"(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			-1, &st, NULL) != SQLITE_OK)
			return db_error(in);
		sqlite3_bind_int64(st, 1, in->run);
		sqlite3_bind_int64(st, 2, pid << 24);
		sqlite3_bind_int64(st, 3, (int64_t)id->valuedouble);
		if (cJSON_IsString(name))
			sqlite3_bind_text(st, 4, name->valuestring, -1, SQLITE_STATIC);
		for (int i = 0; i < 10; i++) {
			const cJSON *v = cJSON_GetObjectItemCaseSensitive(d, cols[i][1]);

			if (cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble < 9.0e18)
				sqlite3_bind_int64(st, 5 + i, (int64_t)v->valuedouble);
		}
		/* Warps per multiprocessor: the threads it holds over the warp size. */
		if (cJSON_IsNumber(thr) && cJSON_IsNumber(warp) && warp->valuedouble >= 1 &&
		    thr->valuedouble >= 0 && thr->valuedouble < 1e9)
			sqlite3_bind_int64(st, 15,
					   (int64_t)thr->valuedouble / (int64_t)warp->valuedouble);
		rc = sqlite3_step(st);
		sqlite3_finalize(st);
		if (rc != SQLITE_DONE)
			return db_error(in);
		in->c.gpus++;
	}
	return 0;
}

/* Thread names and processes, for the processes that have CPU events. */
static int write_names(struct input *in)
{
	int rc = 0;

	for (size_t i = 0; i < in->nnames && !rc; i++) {
		const struct proc_name *p = &in->names[i];
		int64_t v[3], nid;

		if (p->tid < 0 || !sk_hash_get(&in->cpu_pids, (uint64_t)p->pid + 1))
			continue;
		if ((nid = name_id(in, p->name)) < 0)
			return (int)nid;
		v[0] = in->run;
		v[1] = (p->pid << 24) | (p->tid & 0xFFFFFF);
		v[2] = nid;
		rc = exec_bound(
		    in, "INSERT INTO ThreadNames(runId, globalTid, nameId) VALUES (?, ?, ?)", v, 3,
		    NULL, 0);
	}
	for (size_t i = 0; i < in->cpu_pids.cap && !rc; i++) {
		const struct sk_hash_slot *s = &in->cpu_pids.slots[i];
		const char *name = NULL;
		int64_t v[3];

		if (!s->key)
			continue;
		v[0] = in->run;
		v[2] = (int64_t)s->key - 1;
		v[1] = v[2] << 24;
		for (size_t k = 0; k < in->nnames; k++)
			if (in->names[k].tid < 0 && in->names[k].pid == v[2])
				name = in->names[k].name;
		rc = exec_bound(in,
				"INSERT OR IGNORE INTO SKIP_PROCESSES(runId, globalPid, pid, name) "
				"VALUES (?, ?, ?, ?)",
				v, 3, &name, 1);
	}
	return rc;
}

/* What a torch.profiler trace does not hold, for skip report (analyzer/analyze.c names each). */
static void unavailable(const struct input *in, char *buf, size_t n)
{
	snprintf(buf, n, "dropped_records,submitted,exit_status%s",
		 in->graph_launches && !in->graph_ids ? ",graph_nodes" : "");
}

static int write_run(struct input *in, int64_t pid, const struct skip_import_opts *o, int64_t rep)
{
	char *copy = strdup(in->path), unav[128], ignored[32];
	const char *label = o && o->label ? o->label : copy ? basename(copy) : in->path;
	int64_t v[6] = {in->run, rep, in->t_min, in->t_max, pid, 0};
	const char *texts[2] = {label, "(torch.profiler trace)"};
	const char *meta[][2] = {
	    {"source", "torch.profiler"},
	    {"source_file", in->path},
	    {"clock", "torch.profiler: ns since the trace's baseTimeNanoseconds"},
	    {"unavailable", unav},
	    {"ignored_events", ignored},
	    {"kineto_schema_version", in->schema},
	    {"base_time_ns", in->base_ns},
	    {"rank", in->rank},
	};
	int rc;

	unavailable(in, unav, sizeof(unav));
	snprintf(ignored, sizeof(ignored), "%lld", (long long)in->c.ignored);
	rc = exec_bound(in,
			"INSERT INTO SKIP_RUNS(runId, repetition, start, end, pid, status, label, "
			"commandLine) VALUES (?, ?, ?, ?, ?, 'ok', ?, ?)",
			v, 5, texts, 2);
	if (!rc && in->base_ns[0]) {
		char *end;
		long long base = strtoll(in->base_ns, &end, 10);

		/* baseTimeNanoseconds is a wall-clock (epoch) instant in Kineto. */
		if (!*end && base >= 0 && base < TIME_MAX) {
			v[1] = base + in->t_min;
			v[2] = base + in->t_max;
			rc = exec_bound(in,
					"UPDATE SKIP_RUNS SET startUtcNs = ?2, endUtcNs = ?3 WHERE "
					"runId = ?1",
					v, 3, NULL, 0);
		}
	}
	for (size_t i = 0; i < sizeof(meta) / sizeof(meta[0]) && !rc; i++)
		if (meta[i][1][0] &&
		    skip_store_meta_set(in->im->db, in->run, 0, meta[i][0], meta[i][1]))
			rc = db_error(in);
	free(copy);
	return rc;
}

static int finish(struct input *in, const struct skip_import_opts *o, int64_t rep)
{
	const struct skip_import_counts *c = &in->c;
	int64_t pid;
	int rc;

	if (c->events == 0)
		return sk_fail(SKIP_E_EMPTY,
			       "%s: no events in traceEvents (an empty trace: did the profiler "
			       "record anything?)",
			       in->path);
	if (c->kernels + c->memcpys + c->memsets + c->runtime_calls + c->driver_calls + c->syncs +
		c->ranges ==
	    0)
		return sk_fail(SKIP_E_INVAL,
			       "%s: none of its %lld events is a torch.profiler event (kernel, "
			       "cuda_runtime, cpu_op, ...): not a torch.profiler trace",
			       in->path, (long long)c->events);
	pid = main_pid(in);
	if ((rc = settle_processes(in, pid)) || (rc = write_gpus(in, pid)) ||
	    (rc = write_names(in)) || (rc = write_run(in, pid, o, rep)))
		return rc;
	return 0;
}

/* ---- the importer ---------------------------------------------------------------------- */

struct skip_importer *skip_importer_new(sqlite3 *db, int *err)
{
	struct skip_importer *im = calloc(1, sizeof(*im));

	*err = 0;
	if (!im) {
		*err = sk_fail(SKIP_E_NOMEM, "out of memory");
		return NULL;
	}
	im->db = db;
	for (int i = 0; i < NSTMT; i++)
		if (sqlite3_prepare_v2(db, stmt_sql[i], -1, &im->st[i], NULL) != SQLITE_OK) {
			*err =
			    sk_fail(SKIP_E_DB, "cannot prepare the import: %s", sqlite3_errmsg(db));
			skip_importer_free(im);
			return NULL;
		}
	im->string_base = sk_db_int(db, 0, "SELECT max(id) FROM StringIds");
	im->next_run = sk_db_int(db, 0, "SELECT max(runId) FROM SKIP_RUNS") + 1;
	return im;
}

void skip_importer_free(struct skip_importer *im)
{
	if (!im)
		return;
	for (int i = 0; i < NSTMT; i++)
		sqlite3_finalize(im->st[i]);
	sk_strtab_fini(&im->names);
	free(im);
}

static void input_fini(struct input *in)
{
	for (size_t i = 0; i < in->nnames; i++)
		free(in->names[i].name);
	free(in->names);
	free(in->rows);
	sk_hash_fini(&in->corr_pid);
	sk_hash_fini(&in->cpu_pids);
	cJSON_Delete(in->devices);
}

int skip_importer_add(struct skip_importer *im, const char *path, const struct skip_import_opts *o,
		      struct skip_import_counts *c)
{
	size_t max = o && o->max_bytes ? o->max_bytes : SKIP_IMPORT_DEFAULT_MAX_BYTES, len = 0;
	struct input in = {.im = im, .path = path, .t_min = INT64_MAX, .t_max = 0};
	char *text = NULL;
	int err;

	if (im->dead)
		return sk_fail(SKIP_E_INVAL, "%s: the importer failed before", path);
	if (max > SIZE_MAX / 4)
		max = SIZE_MAX / 4;
	if ((err = sk_import_read(path, max, &text, &len)))
		return err;
	in.text = text;
	in.run = im->next_run;
	if ((err = skip_store_exec(im->db, "BEGIN")))
		goto out;
	err = walk(&in, len);
	if (!err)
		err = finish(&in, o, im->added);
	if (!err)
		err = skip_store_exec(im->db, "COMMIT");
	if (err) {
		char msg[1024];

		snprintf(msg, sizeof(msg), "%s", skip_errmsg());
		sqlite3_exec(im->db, "ROLLBACK", NULL, NULL, NULL);
		im->dead = 1;
		sk_fail(err, "%s", msg);
		goto out;
	}
	in.c.run_id = im->next_run++;
	im->added++;
	if (c)
		*c = in.c;
out:
	input_fini(&in);
	free(text);
	return err;
}
