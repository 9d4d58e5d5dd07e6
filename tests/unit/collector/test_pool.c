/*
 * test_pool.c: the buffer pool through CUPTI's two callbacks and the writer's take/give-back:
 * preallocation and size rounding, growth up to the maximum and counted refusals past it,
 * reuse of returned buffers, the FIFO queue (order, partial takes, wrap-around), waiting
 * (deadline, stop, a completion from another thread) and many threads at once. The callbacks
 * work on the collector's global pool, sk_g.pool; Criterion runs each test in a fresh process.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "collector/internal.h"

struct sk_collector sk_g; /* the collector's global: the CUPTI callbacks use sk_g.pool */

static struct sk_pool *const p = &sk_g.pool;

/* CUPTI asking for a buffer; checks that it always asks for as many records as fit. */
static uint8_t *request(size_t *size_bytes)
{
	uint8_t *b = (uint8_t *)p; /* anything but NULL, to see it overwritten */
	size_t size = 12345, max_records = 99;

	sk_buffer_requested(&b, &size, &max_records);
	cr_assert_eq(max_records, 0);
	if (size_bytes)
		*size_bytes = size;
	return b;
}

/* CUPTI handing a buffer back with @valid bytes of records. */
static void complete(uint8_t *b, size_t valid)
{
	sk_buffer_completed(NULL, 0, b, p->size, valid);
}

static uint64_t now_ns(void)
{
	return skip_clock_ns(CLOCK_MONOTONIC);
}

Test(collector_pool, init_preallocates_and_rounds_the_size_up_to_8_bytes)
{
	cr_assert_eq(sk_pool_init(p, 1001, 3, 5), 0);
	cr_expect_eq(p->size, 1008);
	cr_expect_eq(p->total, 3);
	cr_expect_eq(p->nfree, 3);
	cr_expect_eq(p->max, 5);
	cr_expect_eq(p->qlen, 0);
	cr_expect_eq(p->grown, 0);
	cr_expect_eq(p->refused, 0);
	cr_expect_eq(atomic_load(&p->cupti_dropped), 0);
	sk_pool_fini(p);
}

Test(collector_pool, a_max_below_the_preallocation_is_raised_to_it)
{
	cr_assert_eq(sk_pool_init(p, 4096, 4, 2), 0);
	cr_expect_eq(p->max, 4);
	cr_expect_eq(p->total, 4);
	sk_pool_fini(p);
}

Test(collector_pool, init_with_no_buffer_fails_and_leaves_the_pool_zeroed)
{
	cr_expect_eq(sk_pool_init(p, 4096, 0, 8), SKIP_E_NOMEM);
	cr_expect_eq(p->total, 0);
	cr_expect_eq(p->max, 0);
	cr_expect_null(p->free);
	cr_expect_null(p->queue);
}

Test(collector_pool, requests_take_the_preallocated_buffers_before_growing)
{
	uint8_t *a, *b;
	size_t size_a, size_b;

	cr_assert_eq(sk_pool_init(p, 1000, 2, 4), 0);
	a = request(&size_a);
	b = request(&size_b);
	cr_assert_not_null(a);
	cr_assert_not_null(b);
	cr_expect_neq(a, b);
	cr_expect_eq(size_a, 1000);
	cr_expect_eq(size_b, 1000);
	cr_expect_eq((uintptr_t)a % 8, 0, "CUPTI needs 8-byte aligned buffers");
	cr_expect_eq((uintptr_t)b % 8, 0);
	memset(a, 0xa5, 1000); /* the whole size is usable (ASan checks) */
	memset(b, 0x5a, 1000);
	cr_expect_eq(p->nfree, 0);
	cr_expect_eq(p->total, 2);
	cr_expect_eq(p->grown, 0);
	complete(a, 0);
	complete(b, 0);
	sk_pool_fini(p);
}

Test(collector_pool, the_pool_grows_to_max_then_refuses_and_counts_each_refusal)
{
	uint8_t *b[3];
	size_t size;

	cr_assert_eq(sk_pool_init(p, 64, 1, 3), 0);
	for (int i = 0; i < 3; i++) {
		b[i] = request(&size);
		cr_assert_not_null(b[i], "buffer %d of 3", i + 1);
		cr_expect_eq(size, 64);
	}
	cr_expect_eq(p->total, 3);
	cr_expect_eq(p->grown, 2);
	cr_expect_eq(p->refused, 0);

	cr_expect_null(request(&size));
	cr_expect_eq(size, 0, "no buffer, no size");
	cr_expect_eq(p->refused, 1);
	cr_expect_null(request(&size));
	cr_expect_eq(p->refused, 2);
	cr_expect_eq(p->total, 3, "never more than max");
	cr_expect_eq(p->grown, 2);
	for (int i = 0; i < 3; i++)
		complete(b[i], 0);
	sk_pool_fini(p);
}

Test(collector_pool, an_empty_completed_buffer_goes_back_to_the_free_list_and_is_reused)
{
	uint8_t *b;

	cr_assert_eq(sk_pool_init(p, 64, 1, 1), 0);
	b = request(NULL);
	cr_assert_not_null(b);
	cr_expect_null(request(NULL));
	cr_expect_eq(p->refused, 1);
	complete(b, 0);
	cr_expect_eq(p->nfree, 1);
	cr_expect_eq(p->qlen, 0, "no records: nothing for the writer");
	cr_expect_eq(request(NULL), b);
	cr_expect_eq(p->refused, 1);
	cr_expect_eq(p->grown, 0);
	complete(b, 0);
	sk_pool_fini(p);
}

Test(collector_pool, the_buffer_returned_last_is_handed_out_first)
{
	uint8_t *a, *b, *c;

	cr_assert_eq(sk_pool_init(p, 64, 3, 3), 0);
	a = request(NULL);
	b = request(NULL);
	c = request(NULL);
	complete(b, 0);
	complete(c, 0);
	complete(a, 0);
	cr_expect_eq(request(NULL), a);
	cr_expect_eq(request(NULL), c);
	cr_expect_eq(request(NULL), b);
	complete(a, 0);
	complete(b, 0);
	complete(c, 0);
	sk_pool_fini(p);
}

Test(collector_pool, completed_buffers_queue_in_order_with_their_valid_bytes)
{
	struct sk_qent got[8];
	uint8_t *a, *b, *c;

	cr_assert_eq(sk_pool_init(p, 64, 3, 3), 0);
	a = request(NULL);
	b = request(NULL);
	c = request(NULL);
	complete(b, 10);
	complete(a, 20);
	complete(c, 30);
	cr_expect_eq(p->qlen, 3);
	cr_expect_eq(p->nfree, 0);
	cr_assert_eq(sk_pool_take(p, got, 8, 0), 3);
	cr_expect_eq(got[0].buf, b);
	cr_expect_eq(got[0].valid, 10);
	cr_expect_eq(got[1].buf, a);
	cr_expect_eq(got[1].valid, 20);
	cr_expect_eq(got[2].buf, c);
	cr_expect_eq(got[2].valid, 30);
	cr_expect_eq(p->qlen, 0);
	for (int i = 0; i < 3; i++)
		sk_pool_give_back(p, got[i].buf);
	cr_expect_eq(p->nfree, 3);
	sk_pool_fini(p);
}

Test(collector_pool, take_stops_at_its_max_and_leaves_the_rest_queued)
{
	struct sk_qent got[2];
	uint8_t *b[3];

	cr_assert_eq(sk_pool_init(p, 64, 3, 3), 0);
	for (int i = 0; i < 3; i++)
		b[i] = request(NULL);
	for (int i = 0; i < 3; i++)
		complete(b[i], (size_t)(i + 1) * 8);
	cr_assert_eq(sk_pool_take(p, got, 2, 0), 2);
	cr_expect_eq(got[0].buf, b[0]);
	cr_expect_eq(got[1].buf, b[1]);
	cr_expect_eq(p->qlen, 1);
	sk_pool_give_back(p, got[0].buf);
	sk_pool_give_back(p, got[1].buf);
	cr_assert_eq(sk_pool_take(p, got, 2, 0), 1);
	cr_expect_eq(got[0].buf, b[2]);
	cr_expect_eq(got[0].valid, 24);
	sk_pool_give_back(p, got[0].buf);
	sk_pool_fini(p);
}

Test(collector_pool, the_queue_keeps_its_order_across_the_end_of_its_ring)
{
	struct sk_qent got[4];
	uint8_t *a, *b;

	/* A ring of 2: the third completion goes into slot 0 while slot 1 is still queued. */
	cr_assert_eq(sk_pool_init(p, 64, 2, 2), 0);
	a = request(NULL);
	b = request(NULL);
	complete(a, 1);
	complete(b, 2);
	cr_assert_eq(sk_pool_take(p, got, 1, 0), 1);
	cr_expect_eq(got[0].buf, a);
	sk_pool_give_back(p, a);
	cr_assert_eq(request(NULL), a);
	complete(a, 3);
	cr_assert_eq(sk_pool_take(p, got, 4, 0), 2);
	cr_expect_eq(got[0].buf, b);
	cr_expect_eq(got[0].valid, 2);
	cr_expect_eq(got[1].buf, a);
	cr_expect_eq(got[1].valid, 3);
	sk_pool_give_back(p, a);
	sk_pool_give_back(p, b);
	sk_pool_fini(p);
}

Test(collector_pool, a_buffer_with_the_writer_is_not_handed_out_until_given_back)
{
	struct sk_qent got[1];
	uint8_t *b;

	cr_assert_eq(sk_pool_init(p, 64, 1, 1), 0);
	b = request(NULL);
	complete(b, 5);
	cr_assert_eq(sk_pool_take(p, got, 1, 0), 1);
	cr_expect_null(request(NULL), "the only buffer is being written");
	cr_expect_eq(p->refused, 1);
	sk_pool_give_back(p, got[0].buf);
	cr_expect_eq(request(NULL), b);
	cr_expect_eq(p->refused, 1);
	complete(b, 0);
	sk_pool_fini(p);
}

Test(collector_pool, completing_no_buffer_only_reports_drops)
{
	cr_assert_eq(sk_pool_init(p, 64, 2, 2), 0);
	complete(NULL, 0);
	complete(NULL, 100);
	cr_expect_eq(p->nfree, 2);
	cr_expect_eq(p->qlen, 0);
	cr_expect_eq(p->total, 2);
	cr_expect_eq(atomic_load(&p->cupti_dropped), 0, "CUPTI dropped nothing here");
	sk_pool_fini(p);
}

Test(collector_pool, take_on_an_empty_queue_waits_until_the_deadline, .timeout = 20)
{
	struct sk_qent got[1];
	uint64_t deadline;

	cr_assert_eq(sk_pool_init(p, 64, 1, 1), 0);
	deadline = now_ns() + 50 * 1000000ull;
	cr_expect_eq(sk_pool_take(p, got, 1, deadline), 0);
	cr_expect_geq(now_ns(), deadline, "returned before the deadline");
	cr_expect_lt(now_ns(), deadline + 5000000000ull, "waited far past the deadline");
	sk_pool_fini(p);
}

Test(collector_pool, take_with_a_past_deadline_does_not_wait, .timeout = 20)
{
	struct sk_qent got[1];
	uint64_t t0 = now_ns();

	cr_assert_eq(sk_pool_init(p, 64, 1, 1), 0);
	cr_expect_eq(sk_pool_take(p, got, 1, 0), 0);
	cr_expect_lt(now_ns() - t0, 5000000000ull);
	sk_pool_fini(p);
}

Test(collector_pool, take_returns_at_once_when_stop_is_asked, .timeout = 20)
{
	struct sk_qent got[1];
	uint64_t t0;

	cr_assert_eq(sk_pool_init(p, 64, 1, 1), 0);
	pthread_mutex_lock(&p->lock);
	p->stop = 1;
	pthread_mutex_unlock(&p->lock);
	t0 = now_ns();
	cr_expect_eq(sk_pool_take(p, got, 1, t0 + 10000000000ull), 0);
	cr_expect_lt(now_ns() - t0, 5000000000ull, "waited for the deadline despite stop");
	sk_pool_fini(p);
}

static void *complete_later(void *arg)
{
	struct timespec ms50 = {0, 50 * 1000000L};

	nanosleep(&ms50, NULL);
	complete(arg, 7);
	return NULL;
}

Test(collector_pool, take_wakes_when_a_buffer_completes_on_another_thread, .timeout = 20)
{
	struct sk_qent got[1];
	pthread_t t;
	uint64_t t0;
	uint8_t *b;

	cr_assert_eq(sk_pool_init(p, 64, 1, 1), 0);
	b = request(NULL);
	t0 = now_ns();
	cr_assert_eq(pthread_create(&t, NULL, complete_later, b), 0);
	cr_expect_eq(sk_pool_take(p, got, 1, t0 + 10000000000ull), 1);
	cr_expect_lt(now_ns() - t0, 5000000000ull, "slept to the deadline instead of waking");
	pthread_join(t, NULL);
	cr_expect_eq(got[0].buf, b);
	cr_expect_eq(got[0].valid, 7);
	sk_pool_give_back(p, b);
	sk_pool_fini(p);
}

Test(collector_pool, fini_frees_queued_and_free_buffers_and_zeroes_the_pool)
{
	uint8_t *b;

	cr_assert_eq(sk_pool_init(p, 64, 3, 4), 0);
	b = request(NULL);
	complete(b, 9); /* left in the queue: fini frees it (ASan would report a leak) */
	sk_pool_fini(p);
	cr_expect_eq(p->total, 0);
	cr_expect_eq(p->nfree, 0);
	cr_expect_eq(p->qlen, 0);
	cr_expect_null(p->free);
	cr_expect_null(p->queue);
}

/*
 * Four "CUPTI threads" request and complete buffers (every other one with records) while a
 * "writer" takes and gives them back. Each holder stamps a buffer with its own tag and checks
 * it after yielding: a buffer handed to two holders at once would show another tag.
 */
#define PRODUCERS 4
#define ROUNDS	  2000

static atomic_uint_fast64_t got_n, refused_n, shared_n;
static atomic_int producers_done;

static int stamp_and_check(uint8_t *b, uint64_t tag)
{
	uint64_t seen;

	memcpy(b, &tag, sizeof(tag));
	sched_yield();
	memcpy(&seen, b, sizeof(seen));
	return seen == tag;
}

static void *producer(void *arg)
{
	uint64_t tag = (uint64_t)(uintptr_t)arg;

	for (int i = 0; i < ROUNDS; i++) {
		uint8_t *b = NULL;
		size_t size, max_records;

		/* Not request(): Criterion's asserts belong on the test's own thread. */
		sk_buffer_requested(&b, &size, &max_records);

		if (!b) {
			atomic_fetch_add(&refused_n, 1);
			sched_yield();
			continue;
		}
		atomic_fetch_add(&got_n, 1);
		if (!stamp_and_check(b, tag))
			atomic_fetch_add(&shared_n, 1);
		complete(b, i % 2 ? 0 : 16);
	}
	return NULL;
}

static void *consumer(void *arg)
{
	struct sk_qent got[4];

	(void)arg;
	for (;;) {
		int finished = atomic_load(&producers_done);
		size_t n = sk_pool_take(p, got, 4, now_ns() + 1000000);

		for (size_t i = 0; i < n; i++) {
			if (got[i].valid != 16 || !stamp_and_check(got[i].buf, 99))
				atomic_fetch_add(&shared_n, 1);
			sk_pool_give_back(p, got[i].buf);
		}
		if (finished && n == 0)
			break; /* nothing can arrive any more and the queue is empty */
	}
	return NULL;
}

Test(collector_pool, concurrent_callbacks_and_writer_lose_no_buffer_and_share_none, .timeout = 60)
{
	pthread_t prod[PRODUCERS], cons;

	cr_assert_eq(sk_pool_init(p, 64, 2, 8), 0);
	cr_assert_eq(pthread_create(&cons, NULL, consumer, NULL), 0);
	for (int i = 0; i < PRODUCERS; i++)
		cr_assert_eq(pthread_create(&prod[i], NULL, producer, (void *)(uintptr_t)(i + 1)),
			     0);
	for (int i = 0; i < PRODUCERS; i++)
		pthread_join(prod[i], NULL);
	atomic_store(&producers_done, 1);
	pthread_join(cons, NULL);

	cr_expect_eq(atomic_load(&shared_n), 0, "a buffer had two holders at once");
	cr_expect_eq(atomic_load(&got_n) + atomic_load(&refused_n), PRODUCERS * ROUNDS);
	cr_expect_eq(p->refused, atomic_load(&refused_n));
	cr_expect_leq(p->total, 8);
	cr_expect_eq(p->grown, p->total - 2);
	cr_expect_eq(p->qlen, 0);
	cr_expect_eq(p->nfree, p->total, "every buffer is back on the free list");
	sk_pool_fini(p);
}
