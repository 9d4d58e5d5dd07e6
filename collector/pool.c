/*
 * pool.c: CUPTI activity buffers and the queue that carries completed ones to the writer.
 *
 * Buffers are allocated up front (SKIP_BUFFERS of SKIP_BUFFER_KB) so that collection does not
 * allocate on the program's threads; if the writer falls behind, the pool grows up to
 * SKIP_BUFFERS_MAX, and past that a request gets no buffer: CUPTI then drops records and counts
 * them, and we count the refusals. The queue is a ring with room for every buffer that can
 * exist, so handing a buffer to the writer never allocates or blocks on the writer.
 *
 * Locking: one mutex guards the free list and the queue; CUPTI's callbacks hold it only for a
 * few instructions and never call into CUPTI while holding it.
 */
#define SK_LOG_DOMAIN "collector"
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

#define BUF_ALIGN 8 /* CUPTI needs 8-byte aligned buffers */

/* The lock, the condition on the monotonic clock and the drop counter. */
static int init_sync(struct sk_pool *p)
{
	pthread_condattr_t ca;

	pthread_mutex_init(&p->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&p->cond, &ca);
	pthread_condattr_destroy(&ca);
	atomic_init(&p->cupti_dropped, 0);
	return 0;
}

int sk_pool_init_empty(struct sk_pool *p)
{
	memset(p, 0, sizeof(*p));
	return init_sync(p);
}

int sk_pool_init(struct sk_pool *p, size_t size, size_t prealloc, size_t max)
{
	memset(p, 0, sizeof(*p));
	size = (size + BUF_ALIGN - 1) & ~(size_t)(BUF_ALIGN - 1);
	if (max < prealloc)
		max = prealloc;
	p->size = size;
	p->max = max;
	p->free = calloc(max, sizeof(*p->free));
	p->queue = calloc(max, sizeof(*p->queue));
	if (!p->free || !p->queue)
		goto nomem;
	for (size_t i = 0; i < prealloc; i++) {
		uint8_t *b = aligned_alloc(BUF_ALIGN, size);

		if (!b)
			break; /* run with fewer; grow later if memory allows */
		p->free[p->nfree++] = b;
		p->total++;
	}
	if (!p->total)
		goto nomem;
	return init_sync(p);
nomem:
	free(p->free);
	free(p->queue);
	memset(p, 0, sizeof(*p));
	return SKIP_E_NOMEM;
}

void sk_pool_fini(struct sk_pool *p)
{
	/* Buffers still with CUPTI are not ours to free: fini runs after the final forced flush,
	 * when CUPTI has returned every buffer it held. */
	for (size_t i = 0; i < p->nfree; i++)
		free(p->free[i]);
	for (size_t i = 0; i < p->qlen; i++)
		free(p->queue[(p->qhead + i) % p->max].buf);
	free(p->free);
	free(p->queue);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->cond);
	memset(p, 0, sizeof(*p));
}

void CUPTIAPI sk_buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
	struct sk_pool *p = &sk_g.pool;
	uint8_t *b = NULL;

	*max_records = 0; /* as many as fit */
	pthread_mutex_lock(&p->lock);
	if (p->nfree) {
		b = p->free[--p->nfree];
	} else if (p->total < p->max) {
		b = aligned_alloc(BUF_ALIGN, p->size);
		if (b) {
			p->total++;
			p->grown++;
		}
	}
	if (!b)
		p->refused++;
	pthread_mutex_unlock(&p->lock);
	*buffer = b;
	*size = b ? p->size : 0;
}

void CUPTIAPI sk_buffer_completed(CUcontext ctx, uint32_t stream_id, uint8_t *buffer, size_t size,
				  size_t valid)
{
	struct sk_pool *p = &sk_g.pool;
	size_t dropped = 0;

	(void)size;
	if (cuptiActivityGetNumDroppedRecords(ctx, stream_id, &dropped) == CUPTI_SUCCESS && dropped)
		atomic_fetch_add(&p->cupti_dropped, dropped);
	if (!buffer)
		return;
	pthread_mutex_lock(&p->lock);
	if (valid == 0) {
		p->free[p->nfree++] = buffer;
	} else {
		p->queue[(p->qhead + p->qlen) % p->max] = (struct sk_qent){buffer, valid};
		p->qlen++;
		pthread_cond_signal(&p->cond);
	}
	pthread_mutex_unlock(&p->lock);
}

size_t sk_pool_take(struct sk_pool *p, struct sk_qent *out, size_t max, uint64_t deadline_ns)
{
	struct timespec ts = {.tv_sec = (time_t)(deadline_ns / 1000000000ull),
			      .tv_nsec = (long)(deadline_ns % 1000000000ull)};
	size_t n = 0;

	pthread_mutex_lock(&p->lock);
	while (!p->qlen && !p->stop && skip_clock_ns(CLOCK_MONOTONIC) < deadline_ns)
		if (pthread_cond_timedwait(&p->cond, &p->lock, &ts) != 0)
			break;
	while (p->qlen && n < max) {
		out[n++] = p->queue[p->qhead];
		p->qhead = (p->qhead + 1) % p->max;
		p->qlen--;
	}
	pthread_mutex_unlock(&p->lock);
	return n;
}

void sk_pool_give_back(struct sk_pool *p, uint8_t *buf)
{
	pthread_mutex_lock(&p->lock);
	p->free[p->nfree++] = buf;
	pthread_mutex_unlock(&p->lock);
}
