/*
 * floor.c: libskip_floor.so, the overhead floor for bench/overhead. A minimal CUPTI activity
 * client injected like the collector (CUDA_INJECTION64_PATH, NVTX_INJECTION64_PATH) that
 * enables exactly the same activity kinds, API selection and clock (it calls the collector's
 * own sk_activity_enable), walks every record and writes nothing. The difference between it
 * and `skip record` is what skip's own work (buffers, queue, SQLite) costs.
 */
#include <stdlib.h>

#include "internal.h"

#define BUF_SIZE (4u << 20)

extern int cuptiNvtxInitialize2(void *getExportTable);
__attribute__((visibility("default"))) int InitializeInjection(void);
__attribute__((visibility("default"))) int InitializeInjectionNvtx2(void *getExportTable);

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int started;
static unsigned long long records;

static uint64_t CUPTIAPI trace_clock(void)
{
	return skip_clock_ns(SKIP_TRACE_CLOCK);
}

static void CUPTIAPI requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
	*buffer = aligned_alloc(8, BUF_SIZE);
	*size = *buffer ? BUF_SIZE : 0;
	*max_records = 0;
}

static void CUPTIAPI completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
			       size_t valid)
{
	CUpti_Activity *rec = NULL;

	(void)ctx;
	(void)stream;
	(void)size;
	while (cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS)
		__atomic_add_fetch(&records, 1, __ATOMIC_RELAXED);
	free(buffer);
}

static void at_exit(void)
{
	cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
}

static void start(void)
{
	unsigned trace = SKIP_TRACE_DEFAULT;

	pthread_mutex_lock(&lock);
	if (!started) {
		started = 1;
		skip_log_init("skip-floor", NULL, 1);
		if (skip_trace_opts_parse(getenv("SKIP_TRACE"), &trace))
			trace = SKIP_TRACE_DEFAULT;
		cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
		cuptiActivityRegisterTimestampCallback(trace_clock);
		cuptiActivityRegisterCallbacks(requested, completed);
		sk_activity_enable(trace, 0);
		atexit(at_exit);
	}
	pthread_mutex_unlock(&lock);
}

int InitializeInjection(void)
{
	start();
	return 1;
}

int InitializeInjectionNvtx2(void *getExportTable)
{
	start();
	return cuptiNvtxInitialize2(getExportTable) == CUPTI_SUCCESS;
}
