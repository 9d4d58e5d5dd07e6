/*
 * inject.c: the collector's entry points and life cycle.
 *
 * CUDA calls InitializeInjection() at cuInit (CUDA_INJECTION64_PATH); NVTX calls
 * InitializeInjectionNvtx2() at a library's first NVTX call (NVTX_INJECTION64_PATH). Either
 * one starts the collector once: open the per-process trace file, pin CUPTI's clock to
 * CLOCK_MONOTONIC_RAW, register the buffer callbacks, enable the kinds SKIP_TRACE asks for,
 * start the writer thread, and arrange the final flush (atexit, cudaDeviceReset and context
 * destruction, SIGINT/SIGTERM with the program's own handlers chained). The NVTX entry always
 * forwards to CUPTI, because NVTX v3 initializes once per shared library: PyTorch loads its
 * own libcupti, and only this way do its ranges reach the copy that records
 * (shared/research/h100-cupti-probes.md). With NVTX alone asked for (the baseline mode), the
 * collector never enables CUPTI: the NVTX entry installs the collector's own handlers (nvtx.c)
 * instead, and no activity buffer is allocated. With a capture range (SKIP_CAPTURE), the kinds
 * and the callbacks of the selected API calls (apicalls.c) are switched on at each
 * cudaProfilerStart and off at each cudaProfilerStop, or where the NVTX trigger (capture.c)
 * says (device and context records stay on), seen through the same CUPTI subscriber as the
 * flush points.
 *
 * Never harm the program: nothing on stdout, no exit or abort. If anything at start-up fails
 * the collector logs one line and stays out of the way.
 */
#define SK_LOG_DOMAIN "collector"
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"

#define EXPORT __attribute__((visibility("default")))

struct sk_collector sk_g = {.lock = PTHREAD_MUTEX_INITIALIZER};

static struct sigaction old_int, old_term;
static int have_old_int, have_old_term;

/* exported by libcupti (not in a header): NVTX's injection entry into CUPTI */
extern int cuptiNvtxInitialize2(void *getExportTable);

EXPORT int InitializeInjection(void);
EXPORT int InitializeInjectionNvtx2(void *getExportTable);

static uint64_t CUPTIAPI trace_clock(void)
{
	return skip_clock_ns(SKIP_TRACE_CLOCK);
}

static long env_long(const char *name, long dflt, long min, long max)
{
	const char *s = getenv(name);
	char *end = NULL;
	long v;

	if (!s || !*s)
		return dflt;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max) {
		sk_warn("%s=%s is not a number in [%ld, %ld]; using %ld", name, s, min, max, dflt);
		return dflt;
	}
	return v;
}

/* The per-process file: SKIP_OUT_DIR/p<pid>-r<run>[-N].skip.db, or SKIP_OUTPUT, or
 * ./skip-<pid>.skip.db. Returns nonzero in standalone mode (not under skip record). */
static int choose_path(char *buf, size_t n, int64_t run)
{
	const char *dir = getenv("SKIP_OUT_DIR");
	const char *out = getenv("SKIP_OUTPUT");
	pid_t pid = getpid();

	if (dir && *dir) {
		snprintf(buf, n, "%s/p%d-r%lld.skip.db", dir, (int)pid, (long long)run);
		for (int i = 2; access(buf, F_OK) == 0 && i < 1000; i++)
			snprintf(buf, n, "%s/p%d-r%lld-%d.skip.db", dir, (int)pid, (long long)run,
				 i);
		return 0;
	}
	if (out && *out) {
		const char *p = strstr(out, "%p");

		if (p)
			snprintf(buf, n, "%.*s%d%s", (int)(p - out), out, (int)pid, p + 2);
		else
			snprintf(buf, n, "%s", out);
	} else {
		snprintf(buf, n, "skip-%d.skip.db", (int)pid);
	}
	return 1;
}

static void read_first_line(const char *path, char *buf, size_t n)
{
	FILE *f = fopen(path, "re");

	buf[0] = '\0';
	if (!f)
		return;
	if (fgets(buf, (int)n, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

static void write_anchor(struct sk_sink *sink, const char *what)
{
	sqlite3_stmt *st = NULL;
	uint64_t trace = 0;

	if (!sk_g.cupti || cuptiGetTimestamp(&trace) != CUPTI_SUCCESS)
		trace = skip_clock_ns(SKIP_TRACE_CLOCK);
	if (sqlite3_prepare_v2(sink->db,
			       "INSERT INTO SKIP_CLOCK_ANCHORS(runId, globalPid, what, traceNs, "
			       "realtimeNs, monotonicNs, monotonicRawNs) VALUES (?,?,?,?,?,?,?)",
			       -1, &st, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_int64(st, 1, sink->run_id);
	sqlite3_bind_int64(st, 2, sink->global_pid);
	sqlite3_bind_text(st, 3, what, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, (int64_t)trace);
	sqlite3_bind_int64(st, 5, (int64_t)skip_clock_ns(CLOCK_REALTIME));
	sqlite3_bind_int64(st, 6, (int64_t)skip_clock_ns(CLOCK_MONOTONIC));
	sqlite3_bind_int64(st, 7, (int64_t)skip_clock_ns(CLOCK_MONOTONIC_RAW));
	sqlite3_step(st);
	sqlite3_finalize(st);
}

static void write_process(struct sk_sink *sink, int at_end)
{
	sqlite3_stmt *st = NULL;
	char comm[64], cmd[4096];
	size_t len = 0;
	int fd;

	if (at_end) {
		char sql[160];

		snprintf(sql, sizeof(sql),
			 "UPDATE SKIP_PROCESSES SET end = %llu WHERE globalPid = %lld",
			 (unsigned long long)skip_clock_ns(SKIP_TRACE_CLOCK),
			 (long long)sink->global_pid);
		skip_store_exec(sink->db, sql);
		return;
	}
	read_first_line("/proc/self/comm", comm, sizeof(comm));
	fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		ssize_t r = read(fd, cmd, sizeof(cmd) - 1);

		len = r > 0 ? (size_t)r : 0;
		close(fd);
	}
	for (size_t i = 0; i + 1 < len; i++)
		if (cmd[i] == '\0')
			cmd[i] = ' ';
	cmd[len] = '\0';
	if (sqlite3_prepare_v2(sink->db,
			       "INSERT OR REPLACE INTO SKIP_PROCESSES(runId, globalPid, pid, "
			       "parentPid, name, commandLine, start) VALUES (?,?,?,?,?,?,?)",
			       -1, &st, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_int64(st, 1, sink->run_id);
	sqlite3_bind_int64(st, 2, sink->global_pid);
	sqlite3_bind_int64(st, 3, sink->pid);
	sqlite3_bind_int64(st, 4, getppid());
	sqlite3_bind_text(st, 5, comm, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 6, cmd, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 7, (int64_t)sk_g.start_ns);
	sqlite3_step(st);
	sqlite3_finalize(st);
}

static void write_start_meta(struct sk_sink *sink, int clock_ok)
{
	char buf[256], opts[128];
	uint32_t cupti_version = 0;

	sk_sink_begin(sink);
	sk_sink_meta(sink, "collector_version", SKIP_VERSION);
	if (sk_g.cupti && cuptiGetVersion(&cupti_version) == CUPTI_SUCCESS) {
		snprintf(buf, sizeof(buf), "%u", cupti_version);
		sk_sink_meta(sink, "cupti_api_version", buf);
	}
	skip_trace_opts_format(sk_g.trace, opts, sizeof(opts));
	sk_sink_meta(sink, "trace", opts);
	sk_sink_meta(sink, "clock",
		     clock_ok ? "CLOCK_MONOTONIC_RAW" : "CUPTI default (CLOCK_REALTIME on Linux)");
	if (!sk_g.cupti)
		sk_sink_meta(sink, "cupti", "off (NVTX recorded by the collector)");
	read_first_line("/proc/driver/nvidia/version", buf, sizeof(buf));
	if (buf[0])
		sk_sink_meta(sink, "nvidia_driver", buf);
	if (gethostname(buf, sizeof(buf)) == 0) {
		buf[sizeof(buf) - 1] = '\0';
		sk_sink_meta(sink, "hostname", buf);
	}
	if (sk_g.cupti) {
		snprintf(buf, sizeof(buf), "%zu KiB x %zu preallocated, at most %zu",
			 sk_g.pool.size / 1024, sk_g.pool.total, sk_g.pool.max);
		sk_sink_meta(sink, "buffers", buf);
	}
	snprintf(buf, sizeof(buf), "%d", sk_g.flush_ms);
	sk_sink_meta(sink, "flush_ms", buf);
	write_process(sink, 0);
	write_anchor(sink, "start");
	sk_sink_commit(sink);
}

static void write_end_meta(struct sk_sink *sink)
{
	int (*drv_version)(int *) = (int (*)(int *))dlsym(RTLD_DEFAULT, "cuDriverGetVersion");
	char buf[64];
	int v = 0;

	if (sink->failed)
		return;
	sk_sink_begin(sink);
	if (drv_version && drv_version(&v) == 0) {
		snprintf(buf, sizeof(buf), "%d.%d", v / 1000, (v % 1000) / 10);
		sk_sink_meta(sink, "cuda_driver_api", buf);
	}
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)sk_g.pool.grown);
	sk_sink_meta(sink, "buffers_grown", buf);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)sink->nvtx_unmatched);
	sk_sink_meta(sink, "nvtx_unmatched_ends", buf);
	if (sk_g.capture) {
		sk_sink_meta(sink, "capture_range", getenv("SKIP_CAPTURE"));
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)sk_g.captures);
		sk_sink_meta(sink, "captures", buf);
	}
	write_process(sink, 1);
	write_anchor(sink, "end");
	sk_sink_commit(sink);
}

/* ---- flush triggers ----------------------------------------------------------------------- */

/*
 * Ask the writer thread to write everything it has (@request: SK_FLUSH_FORCED also makes it
 * call CUPTI's forced flush first; SK_FLUSH_DRAIN only drains) and wait until it has
 * committed, or @timeout_s passed. Only async-signal-safe calls: signal handlers use it too.
 */
static void flush_and_wait(int request, int timeout_s)
{
	struct pollfd pfd = {.fd = sk_g.done_fd[0], .events = POLLIN};
	char byte;

	if (!sk_g.active || sk_g.finished || pthread_equal(pthread_self(), sk_g.writer_thread))
		return;
	while (read(sk_g.done_fd[0], &byte, 1) > 0) /* stale acknowledgements */
		;
	atomic_store(&sk_g.flush_request, request);
	if (poll(&pfd, 1, timeout_s * 1000) > 0)
		(void)!read(sk_g.done_fd[0], &byte, 1);
}

/* Note a capture range's start (@on) or end, now; lock held. A start that finds no memory is
 * not noted (its activity is kept, the range is not written). */
static void note_span(int on)
{
	uint64_t now = skip_clock_ns(SKIP_TRACE_CLOCK);

	if (!on) {
		if (sk_g.nspans && !sk_g.spans[sk_g.nspans - 1].end_ns)
			sk_g.spans[sk_g.nspans - 1].end_ns = now;
		return;
	}
	if (sk_g.nspans == sk_g.spans_cap) {
		size_t cap = sk_g.spans_cap ? 2 * sk_g.spans_cap : 16;
		struct sk_capture_span *v = realloc(sk_g.spans, cap * sizeof(*v));

		if (!v)
			return;
		sk_g.spans = v;
		sk_g.spans_cap = cap;
	}
	sk_g.spans[sk_g.nspans++] =
	    (struct sk_capture_span){.start_ns = now, .tid = (uint32_t)syscall(SYS_gettid)};
}

/* Write the capture ranges as NVTX ranges (SKIP_CAPTURE_RANGE_TEXT); one still open ends now.
 * At the end, with the writer stopped. */
static void write_spans(struct sk_sink *sink)
{
	uint64_t now = skip_clock_ns(SKIP_TRACE_CLOCK);

	if (!sk_g.nspans || sink->failed)
		return;
	sk_sink_begin(sink);
	for (size_t i = 0; i < sk_g.nspans; i++)
		sk_sink_range(sink, SKIP_CAPTURE_RANGE_TEXT, sk_g.spans[i].start_ns,
			      sk_g.spans[i].end_ns ? sk_g.spans[i].end_ns : now, sk_g.spans[i].tid);
	sk_sink_commit(sink);
}

/* The capture range: cudaProfilerStart turns recording on (after the call), cudaProfilerStop
 * off (before it), or the NVTX trigger. The runtime's calls go through the driver's, so each
 * arrives twice: the state makes the second a no-op, as CUDA documents for a repeated start or
 * stop (and the trigger may start twice). */
static void capture_set(int on)
{
	/* Before recording stops, the completed records are taken (a plain flush: completed
	 * records only). Without it, the kernels of the last CUDA graph replay before the stop
	 * got their end times from a later, unrecorded replay of the same graph (seen on the
	 * H100 with transformers' GPT-2 and BERT graphs, not with simpler ones). Outside the
	 * lock: the flush calls the writer's buffer callback. */
	int take;

	pthread_mutex_lock(&sk_g.lock);
	take = !on && sk_g.active && !sk_g.finished && sk_g.capturing;
	pthread_mutex_unlock(&sk_g.lock);
	if (take)
		SK_CUPTI_CHECK(cuptiActivityFlushAll(0));
	pthread_mutex_lock(&sk_g.lock);
	if (sk_g.active && !sk_g.finished && sk_g.capturing != on) {
		if (!on) /* the range ends before recording stops, begins once it has started */
			note_span(0);
		if (sk_activity_capture(sk_g.trace, 1, on) == 0) {
			if (sk_activity_capture_apis(sk_g.trace)) {
				int n = sk_apicalls_select(sk_g.subscriber, sk_g.trace, on);

				sk_dbg(1, "callbacks of %d API calls %s", n, on ? "on" : "off");
			}
			if (on)
				note_span(1);
			sk_g.capturing = on;
			sk_g.captures += (uint64_t)on;
			sk_dbg(1, "capture range %llu %s", (unsigned long long)sk_g.captures,
			       on ? "begins" : "ends");
		} else {
			sk_warn("%s", skip_errmsg());
		}
	}
	pthread_mutex_unlock(&sk_g.lock);
}

static int is_profiler_call(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, int *start)
{
	if (domain == CUPTI_CB_DOMAIN_RUNTIME_API &&
	    (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000 ||
	     cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000)) {
		*start = cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000;
		return 1;
	}
	if (domain == CUPTI_CB_DOMAIN_DRIVER_API &&
	    (cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStart ||
	     cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStop)) {
		*start = cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStart;
		return 1;
	}
	return 0;
}

static void CUPTIAPI on_api(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
			    const void *data)
{
	const CUpti_CallbackData *cb = data;
	int start;

	(void)userdata;
	if (domain == CUPTI_CB_DOMAIN_NVTX) {
		static __thread struct sk_trigger_thread th;
		int act = sk_trigger_nvtx(&sk_g.trigger, &th, cbid,
					  ((const CUpti_NvtxData *)data)->functionParams);

		if (act)
			capture_set(act == SK_TRIGGER_START);
		return;
	}
	if (sk_apicalls_callback(domain, cbid, cb))
		return;
	if (is_profiler_call(domain, cbid, &start)) {
		if (cb->callbackSite == (start ? CUPTI_API_EXIT : CUPTI_API_ENTER))
			capture_set(start);
		return;
	}
	/* cudaDeviceReset / context destruction: the records of that context are written and
	 * committed before it goes away (programs often _exit right after a reset). */
	if (cb->callbackSite != CUPTI_API_ENTER || !sk_g.active || sk_g.finished)
		return;
	/* The forced flush runs here, on the program's thread, which may hold locks CUPTI needs. */
	SK_CUPTI_CHECK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
	flush_and_wait(SK_FLUSH_DRAIN, SKIP_COLLECTOR_SIGNAL_TIMEOUT_S);
}

/* Returns 0, or -1 when no subscriber could be had (another CUPTI subscriber is active). */
static int subscribe(void)
{
	if (cuptiSubscribe(&sk_g.subscriber, on_api, NULL) != CUPTI_SUCCESS) {
		sk_g.subscriber = NULL;
		return -1;
	}
	SK_CUPTI_CHECK(cuptiEnableCallback(1, sk_g.subscriber, CUPTI_CB_DOMAIN_RUNTIME_API,
					   CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020));
	SK_CUPTI_CHECK(cuptiEnableCallback(1, sk_g.subscriber, CUPTI_CB_DOMAIN_DRIVER_API,
					   CUPTI_DRIVER_TRACE_CBID_cuCtxDestroy_v2));
	SK_CUPTI_CHECK(cuptiEnableCallback(1, sk_g.subscriber, CUPTI_CB_DOMAIN_DRIVER_API,
					   CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxReset_v2));
	for (int i = 0; sk_g.cap.mode == SKIP_CAPTURE_NVTX && i < SK_TRIGGER_NCBIDS; i++)
		SK_CUPTI_CHECK(cuptiEnableCallback(1, sk_g.subscriber, CUPTI_CB_DOMAIN_NVTX,
						   sk_trigger_cbids[i]));
	if (sk_g.cap.mode == SKIP_CAPTURE_PROFILER) {
		SK_CUPTI_CHECK(
		    cuptiEnableCallback(1, sk_g.subscriber, CUPTI_CB_DOMAIN_RUNTIME_API,
					CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000));
		SK_CUPTI_CHECK(
		    cuptiEnableCallback(1, sk_g.subscriber, CUPTI_CB_DOMAIN_RUNTIME_API,
					CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000));
		SK_CUPTI_CHECK(cuptiEnableCallback(1, sk_g.subscriber, CUPTI_CB_DOMAIN_DRIVER_API,
						   CUPTI_DRIVER_TRACE_CBID_cuProfilerStart));
		SK_CUPTI_CHECK(cuptiEnableCallback(1, sk_g.subscriber, CUPTI_CB_DOMAIN_DRIVER_API,
						   CUPTI_DRIVER_TRACE_CBID_cuProfilerStop));
	}
	return 0;
}

/* The final flush: at exit, or from a fatal signal. Runs once. */
static void finish(void)
{
	static const CUpti_ActivityKind kinds[] = {
	    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
	    CUPTI_ACTIVITY_KIND_MEMCPY,
	    CUPTI_ACTIVITY_KIND_MEMSET,
	    CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
	    CUPTI_ACTIVITY_KIND_MARKER,
	    CUPTI_ACTIVITY_KIND_MARKER_DATA,
	    CUPTI_ACTIVITY_KIND_OVERHEAD,
	    CUPTI_ACTIVITY_KIND_RUNTIME,
	    CUPTI_ACTIVITY_KIND_DRIVER,
	    CUPTI_ACTIVITY_KIND_GRAPH_TRACE,
	};

	pthread_mutex_lock(&sk_g.lock);
	if (!sk_g.active || sk_g.finished) {
		pthread_mutex_unlock(&sk_g.lock);
		return;
	}
	sk_g.finished = 1;
	pthread_mutex_unlock(&sk_g.lock);

	if (sk_g.cupti) {
		SK_CUPTI_CHECK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
		/* Nothing after this point would reach the file: stop producing records. */
		for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
			cuptiActivityDisable(kinds[i]);
		SK_CUPTI_CHECK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
	}
	sk_writer_stop(&sk_g, SKIP_COLLECTOR_EXIT_TIMEOUT_S);
	for (int k = 0; k < SK_K_COUNT; k++)
		if (sk_g.sink.rows[k] || sk_g.sink.lost[k])
			sk_dbg(1, "%s: %llu rows written, %llu lost", sk_kind_names[k],
			       (unsigned long long)sk_g.sink.rows[k],
			       (unsigned long long)sk_g.sink.lost[k]);
	if (sk_g.capture && !sk_g.captures && sk_g.cap.mode == SKIP_CAPTURE_NVTX)
		sk_warn("--capture-range %s: the process began %llu occurrence%s of the NVTX "
			"range '%s', not %llu; no CUDA activity was recorded",
			getenv("SKIP_CAPTURE"), (unsigned long long)atomic_load(&sk_g.trigger.seen),
			atomic_load(&sk_g.trigger.seen) == 1 ? "" : "s", sk_g.cap.name,
			(unsigned long long)sk_g.cap.first);
	else if (sk_g.capture && !sk_g.captures)
		sk_warn("--capture-range cudaProfilerApi: the process never called "
			"cudaProfilerStart; no CUDA activity was recorded");
	write_spans(&sk_g.sink);
	write_end_meta(&sk_g.sink);
	sk_sink_close(&sk_g.sink, sk_g.standalone);
	/* The pool is not freed: CUPTI may still ask for buffers until the process is gone. */
}

static void at_exit(void)
{
	finish();
}

static void on_signal(int sig, siginfo_t *info, void *uctx)
{
	struct sigaction *old = sig == SIGINT ? &old_int : &old_term;
	int saved = errno;

	/* CUPTI is not called from here: the interrupted thread may be inside it. */
	flush_and_wait(SK_FLUSH_FORCED, SKIP_COLLECTOR_SIGNAL_TIMEOUT_S);
	/* Chain to what the program had installed. */
	if (old->sa_flags & SA_SIGINFO) {
		old->sa_sigaction(sig, info, uctx);
	} else if (old->sa_handler == SIG_DFL) {
		/* The signal is blocked while we run: it is delivered, with its default action,
		 * as soon as this handler returns. */
		signal(sig, SIG_DFL);
		raise(sig);
	} else if (old->sa_handler != SIG_IGN) {
		old->sa_handler(sig);
	}
	errno = saved;
}

static void install_signal(int sig, struct sigaction *old, int *have_old)
{
	struct sigaction sa;

	if (sigaction(sig, NULL, old) != 0 ||
	    (!(old->sa_flags & SA_SIGINFO) && old->sa_handler == SIG_IGN))
		return; /* an ignored signal ends nothing: no flush needed */
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(sig, &sa, NULL) == 0)
		*have_old = 1;
}

/* A forked child shares our file descriptor and has no writer thread: it must not touch
 * either. It records nothing unless it execs (then the new image injects afresh). */
static void after_fork_child(void)
{
	sk_g.active = 0;
	sk_g.finished = 1;
}

/* ---- start-up ------------------------------------------------------------------------------ */

/* SKIP_CAPTURE (skip_capture_parse()): what part of the process to record, into sk_g.cap;
 * unset, empty, "none" or not understood: the whole process. Returns whether it is a part. */
static int capture_mode(void)
{
	const char *s = getenv("SKIP_CAPTURE");

	if (skip_capture_parse(s, &sk_g.cap) != 0) {
		sk_warn("SKIP_CAPTURE: %s; recording the whole process", skip_errmsg());
		memset(&sk_g.cap, 0, sizeof(sk_g.cap));
	}
	sk_g.trigger.cap = &sk_g.cap;
	return sk_g.cap.mode != SKIP_CAPTURE_NONE;
}

static int start(void)
{
	char path[4096], prefix[32], *spec = getenv("SKIP_TRACE");
	int64_t run = env_long("SKIP_RUN_ID", 1, 0, INT32_MAX);
	int clock_ok, err;

	snprintf(prefix, sizeof(prefix), "skip[%d]", (int)getpid());
	skip_log_init(prefix, NULL, 1);
	if (skip_trace_opts_parse(spec, &sk_g.trace) != 0) {
		sk_warn("SKIP_TRACE: %s; using the defaults", skip_errmsg());
		sk_g.trace = SKIP_TRACE_DEFAULT;
	}
	sk_g.flush_ms = (int)env_long("SKIP_FLUSH_MS", SKIP_COLLECTOR_DEFAULT_FLUSH_MS, 1, 60000);
	sk_g.cupti = skip_trace_needs_cupti(sk_g.trace);
	sk_g.capture = sk_g.cupti && capture_mode();
	err = !sk_g.cupti
		  ? sk_pool_init_empty(&sk_g.pool)
		  : sk_pool_init(
			&sk_g.pool,
			(size_t)env_long("SKIP_BUFFER_KB", SKIP_COLLECTOR_DEFAULT_BUFFER_KB, 64,
					 1 << 20) *
			    1024,
			(size_t)env_long("SKIP_BUFFERS", SKIP_COLLECTOR_DEFAULT_BUFFERS, 1, 4096),
			(size_t)env_long("SKIP_BUFFERS_MAX", SKIP_COLLECTOR_DEFAULT_MAX, 1, 65536));
	if (err) {
		sk_err("cannot allocate activity buffers; not recording this process");
		return err;
	}
	sk_g.standalone = choose_path(path, sizeof(path), run);
	err = sk_sink_open(&sk_g.sink, path, run, (uint32_t)getpid());
	if (err) {
		sk_err("%s; not recording this process", skip_errmsg());
		return err;
	}
	if (pipe2(sk_g.done_fd, O_CLOEXEC | O_NONBLOCK) != 0) {
		sk_err("pipe: %s; not recording this process", strerror(errno));
		return -errno;
	}
	if (!sk_g.cupti) { /* the baseline mode: NVTX on the trace clock, CUPTI untouched */
		sk_g.start_ns = skip_clock_ns(SKIP_TRACE_CLOCK);
		write_start_meta(&sk_g.sink, 1);
		goto started;
	}
	/* OS thread ids (gettid), as nsys stores them, instead of pthread_self() values. */
	SK_CUPTI_CHECK(cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM));
	/* Before any kind is enabled, so every record uses the same clock. */
	clock_ok = cuptiActivityRegisterTimestampCallback(trace_clock) == CUPTI_SUCCESS;
	sk_g.start_ns = skip_clock_ns(SKIP_TRACE_CLOCK);
	write_start_meta(&sk_g.sink, clock_ok);
	if (SK_CUPTI_CHECK(cuptiActivityRegisterCallbacks(sk_buffer_requested,
							  sk_buffer_completed)) != CUPTI_SUCCESS)
		return SKIP_E_CUPTI;
	/* A capture range needs the subscriber first, to see its start. */
	if (sk_g.capture && subscribe() != 0) {
		sk_warn("another CUPTI subscriber is active: the capture range's start cannot be "
			"seen; recording the whole process");
		sk_g.capture = 0;
	}
	err = sk_activity_enable(sk_g.trace, sk_g.capture);
	if (err) {
		sk_err("%s; not recording this process", skip_errmsg());
		return err;
	}
	if (!sk_g.capture && !sk_g.subscriber && subscribe() != 0)
		sk_dbg(1, "another CUPTI subscriber is active; no flush on cudaDeviceReset");
started:
	err = sk_writer_start(&sk_g);
	if (err) {
		sk_err("%s; not recording this process", skip_errmsg());
		return err;
	}
	sk_g.active = 1;
	atexit(at_exit);
	install_signal(SIGINT, &old_int, &have_old_int);
	install_signal(SIGTERM, &old_term, &have_old_term);
	pthread_atfork(NULL, NULL, after_fork_child);
	sk_dbg(1, "recording to %s (run %lld)", path, (long long)run);
	return 0;
}

static int collector_init(void)
{
	int ok;

	pthread_mutex_lock(&sk_g.lock);
	if (!sk_g.initialized) {
		sk_g.initialized = 1;
		if (start() != 0)
			sk_g.active = 0;
	}
	ok = sk_g.active;
	pthread_mutex_unlock(&sk_g.lock);
	return ok;
}

int InitializeInjection(void)
{
	collector_init();
	return 1; /* CUDA reads nonzero as success; the program runs either way */
}

int InitializeInjectionNvtx2(void *getExportTable)
{
	int active = collector_init();

	/* Every call attaches: NVTX v3 initializes once per shared library that uses it. */
	if (!sk_g.cupti)
		return active && sk_nvtx_attach(getExportTable);
	return cuptiNvtxInitialize2(getExportTable) == CUPTI_SUCCESS;
}
