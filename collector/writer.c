/*
 * writer.c: the writer thread. Every SKIP_FLUSH_MS it asks CUPTI for the buffers whose
 * records are complete (cuptiActivityFlushAll(0), so a program killed at any moment leaves a
 * file holding everything up to the last commit), walks every queued buffer, inserts its
 * records in one transaction and commits. It also serves forced flushes asked for by a signal
 * handler, and at stop drains the queue before the file is closed.
 *
 * In the baseline mode (no CUPTI) it writes the NVTX events nvtx.c logged, every SKIP_FLUSH_MS
 * and at a flush or the stop, and otherwise only waits.
 *
 * Threading: the only thread that touches SQLite. It blocks SIGINT/SIGTERM so that those are
 * always handled on a program thread, which then waits for this one.
 */
#define SK_LOG_DOMAIN "collector"
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

#define TAKE_MAX 64
#define POLL_NS	 (10 * 1000000ull) /* how often a pending signal flush is noticed */
#define QUIET_NS (20 * 1000000ull) /* after a forced flush: no buffer for this long = done */

/* Record drop counts that changed since the last call (in the open transaction). */
static void store_drops(struct sk_collector *c, uint64_t *last)
{
	struct sk_sink *sink = &c->sink;
	uint64_t now[3] = {atomic_load(&c->pool.cupti_dropped), 0, 0};
	uint64_t lost = 0;

	pthread_mutex_lock(&c->pool.lock);
	now[1] = c->pool.refused;
	pthread_mutex_unlock(&c->pool.lock);
	for (int k = 0; k < SK_K_COUNT; k++)
		lost += sink->lost[k];
	now[2] = lost;
	if (sink->failed || !memcmp(now, last, sizeof(now)))
		return;
	if (now[0] != last[0])
		sk_sink_set_drops(sink, "any", "cupti_buffer_full", now[0]);
	if (now[1] != last[1])
		sk_sink_set_drops(sink, "any", "pool_exhausted", now[1]);
	for (int k = 0; now[2] != last[2] && k < SK_K_COUNT; k++)
		if (sink->lost[k])
			sk_sink_set_drops(sink, sk_kind_names[k], "write_error", sink->lost[k]);
	memcpy(last, now, sizeof(now));
}

/* Insert everything queued right now, in one transaction. Returns buffers processed. */
static size_t drain(struct sk_collector *c, uint64_t deadline_ns, uint64_t *drops)
{
	struct sk_qent ents[TAKE_MAX];
	size_t n, total = 0;

	while ((n = sk_pool_take(&c->pool, ents, TAKE_MAX, total ? 0 : deadline_ns)) > 0) {
		sk_sink_begin(&c->sink);
		for (size_t i = 0; i < n; i++) {
			sk_sink_buffer(&c->sink, ents[i].buf, ents[i].valid);
			sk_pool_give_back(&c->pool, ents[i].buf);
		}
		total += n;
	}
	sk_apicalls_write(&c->sink); /* a capture range's API calls (not buffers: not counted) */
	if (c->sink.in_txn || total) {
		sk_sink_begin(&c->sink);
		store_drops(c, drops);
		sk_sink_commit(&c->sink);
	}
	return total;
}

/* The baseline mode: write the NVTX events nvtx.c logged, in one transaction. */
static size_t write_nvtx(struct sk_collector *c, uint64_t *drops)
{
	size_t n = sk_nvtx_write(&c->sink);

	if (c->sink.in_txn) {
		store_drops(c, drops);
		sk_sink_commit(&c->sink);
	}
	return n;
}

/* After a forced flush CUPTI may hand buffers over from its own thread a little later: keep
 * draining until none has arrived for @quiet_ns. */
static size_t drain_quiet(struct sk_collector *c, uint64_t quiet_ns, uint64_t *drops)
{
	size_t n, total = 0;

	while ((n = drain(c, skip_clock_ns(CLOCK_MONOTONIC) + quiet_ns, drops)) > 0)
		total += n;
	return total;
}

static void *writer_main(void *arg)
{
	struct sk_collector *c = arg;
	uint64_t period = (uint64_t)c->flush_ms * 1000000ull;
	uint64_t next_flush = skip_clock_ns(CLOCK_MONOTONIC) + period;
	uint64_t drops[3] = {0, 0, 0};
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);

	for (;;) {
		uint64_t now = skip_clock_ns(CLOCK_MONOTONIC);
		uint64_t wake = now + POLL_NS < next_flush ? now + POLL_NS : next_flush;
		size_t n;
		int stop, req;

		req = atomic_exchange(&c->flush_request, 0);
		if (req) {
			char one = 1;
			ssize_t unused SK_UNUSED;

			if (req == SK_FLUSH_FORCED && c->cupti)
				SK_CUPTI_CHECK(
				    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
			n = c->cupti ? drain_quiet(c, QUIET_NS, drops) : write_nvtx(c, drops);
			unused = write(c->done_fd[1], &one, 1);
			sk_dbg(1, "flush asked by the program (%s): %zu buffers written",
			       req == SK_FLUSH_FORCED ? "signal" : "device reset", n);
		}
		if (now >= next_flush) {
			/* Non-forced: returns the buffers whose records are all complete. */
			if (c->cupti)
				SK_CUPTI_CHECK(cuptiActivityFlushAll(0));
			else
				write_nvtx(c, drops);
			next_flush = now + period;
		}
		drain(c, wake, drops);
		pthread_mutex_lock(&c->pool.lock);
		stop = c->pool.stop && c->pool.qlen == 0;
		pthread_mutex_unlock(&c->pool.lock);
		if (stop)
			break;
	}
	if (c->cupti)
		drain_quiet(c, QUIET_NS, drops);
	else
		write_nvtx(c, drops);
	if (!c->sink.failed) {
		sk_sink_begin(&c->sink);
		store_drops(c, drops);
		sk_sink_commit(&c->sink);
	}
	return NULL;
}

int sk_writer_start(struct sk_collector *c)
{
	int rc = pthread_create(&c->writer_thread, NULL, writer_main, c);

	if (rc != 0)
		return sk_fail(-rc, "cannot start the writer thread: %s", strerror(rc));
	return 0;
}

void sk_writer_stop(struct sk_collector *c, int timeout_s)
{
	struct timespec ts;
	int rc;

	pthread_mutex_lock(&c->pool.lock);
	c->pool.stop = 1;
	pthread_cond_signal(&c->pool.cond);
	pthread_mutex_unlock(&c->pool.lock);
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += timeout_s;
	rc = pthread_timedjoin_np(c->writer_thread, NULL, &ts);
	if (rc == ETIMEDOUT) {
		sk_err("the trace writer did not finish within %d s; %s keeps what was committed",
		       timeout_s, c->sink.path);
		pthread_detach(c->writer_thread);
	}
}
