/*
 * skip_collector.h: the contract between `skip record` and libskip_collector.so.
 *
 * The collector is loaded into the recorded program by CUDA (CUDA_INJECTION64_PATH) and by
 * NVTX (NVTX_INJECTION64_PATH), both pointing at the library; it exports only
 * InitializeInjection() and InitializeInjectionNvtx2(). Everything else it learns from the
 * environment below. It writes one trace file per process (schemas/trace.sql) and never
 * writes to stdout, exits or aborts: failures are logged once to stderr as "skip[PID]: ..."
 * and counted in SKIP_DROPS.
 *
 * Environment (all optional):
 *   SKIP_OUT_DIR     folder for per-process files "p<pid>-r<run>.skip.db" (set by skip record)
 *   SKIP_OUTPUT      file when SKIP_OUT_DIR is unset ("%p" becomes the pid);
 *                    default "skip-<pid>.skip.db" in the working directory
 *   SKIP_RUN_ID      runId stored on every row (default 1)
 *   SKIP_TRACE       what to record, as `skip record --trace` takes it (skip_trace_opts_parse)
 *   SKIP_CAPTURE     "cudaProfilerApi": record CUDA activity only between cudaProfilerStart
 *                    and cudaProfilerStop (every such range, in the same file); unset or
 *                    "none": the whole process
 *   SKIP_BUFFER_KB   size of one CUPTI activity buffer in KiB (default 4096)
 *   SKIP_BUFFERS     buffers allocated up front (default 8)
 *   SKIP_BUFFERS_MAX most buffers ever allocated (default 128); past it records are dropped
 *                    and counted
 *   SKIP_FLUSH_MS    how often completed records are collected and committed (default 100)
 *   SKIP_DEBUG       log levels, e.g. "collector:2"
 */
#ifndef SKIP_COLLECTOR_H
#define SKIP_COLLECTOR_H

#define SKIP_COLLECTOR_DEFAULT_BUFFER_KB 4096
#define SKIP_COLLECTOR_DEFAULT_BUFFERS	 8
#define SKIP_COLLECTOR_DEFAULT_MAX	 128
#define SKIP_COLLECTOR_DEFAULT_FLUSH_MS	 100

/* Seconds the final flush may take at exit before the collector gives up (and says so). */
#define SKIP_COLLECTOR_EXIT_TIMEOUT_S 60
/* Seconds a SIGINT/SIGTERM handler waits for the flush before chaining to the app's handler. */
#define SKIP_COLLECTOR_SIGNAL_TIMEOUT_S 5

#endif /* SKIP_COLLECTOR_H */
