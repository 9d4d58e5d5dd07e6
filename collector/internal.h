/*
 * internal.h: shared by the collector's .c files only.
 *
 * Data flow: CUPTI asks for buffers (pool.c), fills them on its own threads, and hands them
 * back completed; they go on a queue (pool.c) to the one writer thread (writer.c, sk_writer_*),
 * which hands each buffer to the sink (records.c, struct sk_sink and sk_sink_*): the sink
 * turns the records into rows of one SQLite trace file, in the batched transactions the
 * writer opens and commits. "Writer" always means that thread; "sink" the trace file it
 * writes through. CUPTI threads never touch SQLite; the writer never holds a pool lock while
 * calling into CUPTI. inject.c owns start-up, shutdown, signals and fork.
 *
 * Memory: buffers come from aligned_alloc() and are handed to CUPTI exactly as allocated;
 * they go back to the pool after the writer is done with them and are freed at shutdown.
 * The collector uses plain malloc and handles NULL: it must never abort the host program.
 */
#ifndef SKIP_COLLECTOR_INTERNAL_H
#define SKIP_COLLECTOR_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include <cupti.h>

#include "skip_common.h"
#include "skip_collector.h"

/* Log a failed CUPTI call once per call site and go on (never exit, unlike the samples). */
#define SK_CUPTI_CHECK(call)                                                                       \
	({                                                                                         \
		CUptiResult _r = (call);                                                           \
		if (_r != CUPTI_SUCCESS) {                                                         \
			static int _logged;                                                        \
			if (!_logged++) {                                                          \
				const char *_s = NULL;                                             \
				cuptiGetResultString(_r, &_s);                                     \
				sk_warn("%s failed: %s", #call, _s ? _s : "?");                    \
			}                                                                          \
		}                                                                                  \
		_r;                                                                                \
	})

/* ---- kernel names (kernel_names.c) --------------------------------------------------- */

/* Kernel names: demangle @mangled (returns a malloc'ed string the caller frees, or NULL when
 * @mangled is NULL or not a valid C++ mangled name). The short name is common's
 * sk_short_name(). */
char *sk_demangle(const char *mangled);

/* ---- the SQLite side (records.c) ----------------------------------------------------- */

enum sk_stmt {
	SK_INS_STRING,
	SK_INS_KERNEL,
	SK_INS_RUNTIME,
	SK_INS_DRIVER,
	SK_INS_MEMCPY,
	SK_INS_MEMSET,
	SK_INS_SYNC,
	SK_INS_GRAPH,
	SK_INS_NVTX,
	SK_INS_OVERHEAD,
	SK_INS_GPU,
	SK_INS_THREAD,
	SK_INS_DROP,
	SK_INS_COUNT
};

/* Which event kinds rows are counted under (rows written, rows lost to write errors). */
enum sk_kind {
	SK_K_KERNEL,
	SK_K_RUNTIME,
	SK_K_DRIVER,
	SK_K_MEMCPY,
	SK_K_MEMSET,
	SK_K_SYNC,
	SK_K_GRAPH,
	SK_K_NVTX,
	SK_K_OVERHEAD,
	SK_K_OTHER,
	SK_K_COUNT
};
extern const char *const sk_kind_names[SK_K_COUNT];

struct sk_kname { /* the StringIds ids of one kernel name */
	int64_t demangled, shortname, mangled;
};

struct sk_pending_marker; /* an NVTX range start (or end) waiting for its other half */

/*
 * The sink: one open trace file and everything needed to turn CUPTI records into rows. Used
 * by one thread at a time (the writer thread, or a test); not thread-safe.
 */
struct sk_sink {
	sqlite3 *db;
	char path[4096];
	int64_t run_id;
	uint32_t pid;
	int64_t global_pid; /* pid << 24, as nsys packs it */
	sqlite3_stmt *st[SK_INS_COUNT];
	struct sk_strtab strings;   /* StringIds: what was written, content -> id */
	struct sk_hash kname_index; /* CUPTI's kernel name pointer -> index in knames */
	struct sk_kname *knames;    /* the ids of each name pointer seen */
	size_t nknames, knames_cap;
	int64_t api_names[2][4096];  /* [runtime, driver][cbid] -> StringIds id (0: unknown) */
	struct sk_hash marker_index; /* CUPTI marker id -> index in markers */
	struct sk_pending_marker *markers; /* NVTX ranges waiting for their other half; an entry
					      with id 0 is free, on the list from free_marker */
	size_t nmarkers, markers_cap;
	size_t free_marker; /* index + 1 of the first free entry; 0: none */
	char *domains[64];  /* NVTX domain names; domainId = index + 1 */
	int ndomains;
	uint32_t ctx_dev[256][2]; /* contextId -> deviceId, from CONTEXT records */
	int nctx;
	uint32_t threads[1024][2]; /* CUPTI thread id -> 24-bit id stored in globalTid */
	int nthreads;
	uint32_t next_synthetic_tid; /* for CUPTI thread ids that do not fit 24 bits */
	int in_txn;
	int failed; /* a write error turned writing off */
	int error_logged;
	uint64_t rows[SK_K_COUNT]; /* rows written, by kind */
	uint64_t lost[SK_K_COUNT]; /* rows lost to write errors, by kind */
	uint64_t nvtx_unmatched;   /* range ends whose start never arrived */
};

/*
 * Create the trace at @path (replacing nothing: it must not exist) for @run_id and process
 * @pid and prepare the statements. Returns 0 or a negative code (skip_errmsg() says why).
 */
int sk_sink_open(struct sk_sink *sink, const char *path, int64_t run_id, uint32_t pid);
/* Insert one CUPTI record (any kind; unknown kinds are counted as "other" and skipped).
 * Returns 0, or a negative code after a write error (the sink then stays failed). */
int sk_sink_record(struct sk_sink *sink, const CUpti_Activity *rec);
/* Walk one completed CUPTI buffer and insert its records; once the sink has failed, each
 * record left is counted as lost under "other". The buffer stays the caller's. */
void sk_sink_buffer(struct sk_sink *sink, uint8_t *buf, size_t valid);
int sk_sink_begin(struct sk_sink *sink);
int sk_sink_commit(struct sk_sink *sink);
/* Store a drop count (replacing the previous value for the same kind and cause). */
int sk_sink_set_drops(struct sk_sink *sink, const char *kind, const char *cause, uint64_t n);
int sk_sink_meta(struct sk_sink *sink, const char *key, const char *value);
/* Write one start/end NVTX range (eventType 60) of the default domain, begun and ended on the
 * OS thread @tid. Returns 0 or a negative code. */
int sk_sink_range(struct sk_sink *sink, const char *text, uint64_t start_ns, uint64_t end_ns,
		  uint32_t tid);
/* Write NVTX ranges still open (end NULL), finalize statements and close the file; with
 * @standalone also checkpoint the WAL so the file is complete on its own. Safe on a sink
 * that failed or was never opened. */
void sk_sink_close(struct sk_sink *sink, int standalone);
/* The 24-bit thread number skip stores in globalTid for a CUPTI thread id. */
uint32_t sk_sink_tid(struct sk_sink *sink, uint32_t cupti_tid);

/* ---- buffers and the queue to the writer (pool.c) --------------------------------------- */

/*
 * CUPTI's activity buffers: a free list for CUPTI and a FIFO queue of completed buffers for the
 * writer. The pool owns every buffer it allocated. @lock guards every field after it except
 * cupti_dropped (atomic); size and max do not change after sk_pool_init(). The collector has one
 * pool, sk_g.pool, which CUPTI's callbacks use.
 */
struct sk_pool {
	pthread_mutex_t lock;
	pthread_cond_t cond; /* signalled when the queue gets work or stop is asked */
	uint8_t **free;	     /* buffers ready for CUPTI */
	size_t nfree;
	struct sk_qent {
		uint8_t *buf;
		size_t valid;
	} * queue; /* completed buffers, FIFO ring of capacity max */
	size_t qhead, qlen;
	size_t size;			    /* bytes per buffer */
	size_t total;			    /* buffers allocated so far */
	size_t max;			    /* buffers that may ever be allocated */
	uint64_t refused;		    /* requests answered with no buffer */
	uint64_t grown;			    /* buffers allocated after start-up */
	int stop;			    /* the writer should drain and exit */
	atomic_uint_fast64_t cupti_dropped; /* records CUPTI dropped for lack of buffer space */
};

/*
 * Allocate @prealloc buffers of @size bytes (rounded up to a multiple of 8, 8-byte aligned),
 * with room for @max in all (a @max below @prealloc is raised to it). If memory runs out part
 * way, the pool starts smaller. Returns 0, or SKIP_E_NOMEM when not even one buffer could be
 * allocated (so also for @prealloc 0); the pool is then zeroed.
 */
int sk_pool_init(struct sk_pool *p, size_t size, size_t prealloc, size_t max);
/* A pool with no buffer, whose queue stays empty (the baseline mode: the writer only waits on
 * it for a flush or the stop). Returns 0. */
int sk_pool_init_empty(struct sk_pool *p);
/* Free the buffers on the free list and in the queue and zero the pool. Buffers handed out
 * and not returned are not freed: call it after the final forced flush, with the writer
 * stopped. */
void sk_pool_fini(struct sk_pool *p);
/*
 * CUPTI's callbacks (registered by inject.c), on sk_g.pool; thread-safe, and they never block
 * on the writer. Requested hands out a free buffer (the one returned last comes out first);
 * with none free and fewer than max allocated it allocates one (counted in grown); otherwise
 * *@buffer is NULL and *@size 0, counted in refused (CUPTI then drops records and counts
 * them). *@max_records is 0: as many as fit. Completed adds CUPTI's drop count for @ctx and
 * @stream_id to cupti_dropped; a buffer with records (@valid > 0) joins the queue, an empty one
 * goes back to the free list, and a NULL @buffer only reports drops.
 */
void CUPTIAPI sk_buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records);
void CUPTIAPI sk_buffer_completed(CUcontext ctx, uint32_t stream_id, uint8_t *buffer, size_t size,
				  size_t valid);
/* Take up to @max queued buffers into @out, oldest first. With the queue empty, wait for one
 * until @deadline_ns (CLOCK_MONOTONIC) or until stop is set. Returns how many were taken (0
 * at the deadline). The buffers are the caller's until sk_pool_give_back(). Thread-safe. */
size_t sk_pool_take(struct sk_pool *p, struct sk_qent *out, size_t max, uint64_t deadline_ns);
/* Return a buffer from sk_pool_take() to the free list. Thread-safe. */
void sk_pool_give_back(struct sk_pool *p, uint8_t *buf);

/* ---- the NVTX capture range (capture.c) --------------------------------------------------- */

enum { SK_TRIGGER_START = 1, SK_TRIGGER_STOP = 2 };

/* Process-wide: the capture range asked for (not owned) and the occurrences of its name
 * seen. */
struct sk_trigger {
	const struct skip_capture *cap;
	atomic_uint_fast64_t seen;
};
/* One thread's: the domain and depth of the pushes since occurrence FIRST - 1's (depth 0:
 * none pending). */
struct sk_trigger_thread {
	const void *domain;
	int depth;
};
/* A push of @name (NULL: not an ASCII message) in @domain (NULL: the default one), or a pop
 * in @domain, on the thread whose state is @th. Return SK_TRIGGER_START when the capture range
 * begins now, SK_TRIGGER_STOP when it ends now, else 0 (the caller makes a repeated start or
 * stop a no-op). */
int sk_trigger_push(struct sk_trigger *t, struct sk_trigger_thread *th, const void *domain,
		    const char *name);
int sk_trigger_pop(struct sk_trigger_thread *th, const void *domain);
/* The same for CUPTI's NVTX callback @cbid with its @params (CUpti_NvtxData.functionParams):
 * one of sk_trigger_cbids[], else 0. */
int sk_trigger_nvtx(struct sk_trigger *t, struct sk_trigger_thread *th, CUpti_CallbackId cbid,
		    const void *params);
/* The NVTX callbacks the trigger needs: every push and pop. */
#define SK_TRIGGER_NCBIDS 6
extern const CUpti_CallbackId sk_trigger_cbids[SK_TRIGGER_NCBIDS];

/* ---- the collector as a whole (inject.c, writer.c) ----------------------------------- */

struct sk_collector {
	pthread_mutex_t lock; /* init and shutdown */
	int initialized;      /* InitializeInjection or the NVTX entry ran */
	int active;	      /* activities enabled and the writer running */
	int finished;	      /* the final flush ran */
	int standalone;	      /* not under skip record: finalize the file ourselves */
	unsigned trace;	      /* SKIP_TRACE_* bits */
	int cupti;	      /* CUPTI is used (skip_trace_needs_cupti): 0 in the baseline mode */
	int flush_ms;
	struct sk_pool pool;
	struct sk_sink sink; /* the trace file; the writer thread's alone while it runs */
	pthread_t writer_thread;
	int wake_fd[2];		  /* signal handler -> writer: flush now */
	int done_fd[2];		  /* writer -> signal handler: flushed */
	atomic_int flush_request; /* 0, or what a program thread asked the writer for */
	CUpti_SubscriberHandle subscriber;
	uint64_t start_ns;	   /* trace clock at init */
	int capture;		   /* SKIP_CAPTURE set: record inside the capture ranges only */
	struct skip_capture cap;   /* what SKIP_CAPTURE asks for */
	struct sk_trigger trigger; /* its NVTX trigger (SKIP_CAPTURE_NVTX) */
	int capturing;		   /* inside a capture range (guarded by lock) */
	uint64_t captures;	   /* capture ranges begun (guarded by lock) */
	struct sk_capture_span {
		uint64_t start_ns, end_ns; /* trace clock; end 0 while open */
		uint32_t tid;		   /* the thread that called cudaProfilerStart */
	} * spans; /* the capture ranges, written at the end (guarded by lock) */
	size_t nspans, spans_cap;
};
extern struct sk_collector sk_g;

enum sk_flush_request {
	SK_FLUSH_FORCED = 1, /* call cuptiActivityFlushAll(FORCED), then write and commit */
	SK_FLUSH_DRAIN = 2,  /* write and commit what is queued (CUPTI was flushed already) */
};

/* Start the writer thread, which writes @c->pool's buffers through @c->sink; stop it after
 * draining everything queued. */
int sk_writer_start(struct sk_collector *c);
void sk_writer_stop(struct sk_collector *c, int timeout_s);
/* Enable what is recorded all along (device and context records, the latency option, and
 * NVTX) and, unless @capture (recording only between cudaProfilerStart and cudaProfilerStop),
 * the other kinds and API selection @trace asks for. Returns 0 or SKIP_E_CUPTI. */
int sk_activity_enable(unsigned trace, int capture);
/* Turn the kinds of @trace on (@on 1) or off (0): at start-up without a capture range, and at
 * each start and stop of one (@capture 1: NVTX is left as it is, and the selected API calls are
 * the caller's to switch, sk_apicalls_select()). Returns 0 or SKIP_E_CUPTI. */
int sk_activity_capture(unsigned trace, int capture, int on);
/* The callback ids of @domain's API calls that @trace's categories record, into @ids (room for
 * @max); returns how many. */
int sk_activity_selected(CUpti_CallbackDomain domain, unsigned trace, uint16_t *ids, int max);
/* Whether @trace records a selection of API calls (not every call, and some): in a capture
 * range they are taken through callbacks (apicalls.c), switched by the range's owner. */
int sk_activity_capture_apis(unsigned trace);

/* ---- a capture range's API calls, through callbacks (apicalls.c) ---------------------- */

/* Turn the callbacks of the API calls @trace selects on (@on 1) or off (0) for @sub, whose
 * callback passes them to sk_apicalls_callback(). Returns how many were switched. Called by one
 * thread at a time (inject.c holds its lock). */
int sk_apicalls_select(CUpti_SubscriberHandle sub, unsigned trace, int on);
/* From the subscriber's callback: log the call's record at its exit when @cbid of @domain is
 * one switched on; returns 1 when it was (the caller is done with it), else 0. Thread-safe. */
int sk_apicalls_callback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
			 const CUpti_CallbackData *cb);
/* Write the records logged since the last call through @sink (opening a transaction when
 * there are some; the caller commits). Returns how many. Writer thread only. */
size_t sk_apicalls_write(struct sk_sink *sink);

/* ---- an event log, program threads to the writer (evlog.c) ------------------------------- */

#define SK_EVLOG_CHUNK (64 * 1024)

struct sk_evchunk {
	struct sk_evchunk *next;
	size_t used; /* bytes of data in use: whole events, each padded to a multiple of 8 */
	_Alignas(8) char data[SK_EVLOG_CHUNK];
};
/* Zero-initialized but for the lock: {.lock = PTHREAD_MUTEX_INITIALIZER}. */
struct sk_evlog {
	pthread_mutex_t lock;
	struct sk_evchunk *head, *tail; /* oldest chunk first */
	uint64_t lost;			/* events that found no memory since the last write */
};
/* Append one event: @hlen bytes from @head, then @tlen from @tail (may be 0), padded to a
 * multiple of 8 (so the next event is 8-byte aligned). Returns 0, or -1 when there was no
 * memory for it (counted in lost) or it is larger than a chunk. Thread-safe. */
int sk_evlog_append(struct sk_evlog *log, const void *head, size_t hlen, const void *tail,
		    size_t tlen);
/* Write every event logged so far through @sink, oldest first: @put writes one (opening no
 * transaction: this call opens one when there are events; the caller commits) and returns its
 * size as appended (@hlen + @tlen). Adds the events lost since the last call to
 * @sink->lost[@kind]. Returns how many were written. Writer thread only (appends may go on). */
size_t sk_evlog_write(struct sk_evlog *log, struct sk_sink *sink, enum sk_kind kind,
		      size_t (*put)(struct sk_sink *sink, const void *ev));

/* ---- NVTX without CUPTI (nvtx.c) --------------------------------------------------------- */

/* Fill the NVTX function tables behind @get_export_table (NVTX's NvtxGetExportTableFunc_t)
 * with the collector's own handlers. Returns 1 (NVTX's success), 0 when the table is not
 * usable. Called once per library that initializes NVTX; thread-safe. */
int sk_nvtx_attach(void *get_export_table);
/* Write the NVTX events logged since the last call through @sink (opening a transaction
 * when there are some; the caller commits). Returns how many. Writer thread only. */
size_t sk_nvtx_write(struct sk_sink *sink);

#endif /* SKIP_COLLECTOR_INTERNAL_H */
