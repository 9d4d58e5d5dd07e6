/*
 * test_whatif.c: the discrete-event model (advisor/whatif.c) on programs whose answers are
 * computed by hand in the comments: a launch-bound chain, a GPU-bound chain, two streams that
 * do or do not fit the GPU together, a synchronization, and a cross-stream dependency; kernel
 * starts that cost a running kernel, kernels sharing the memory system (their demands); costs
 * past int64_t's range (saturated), negative ones (taken as 0), a submission before t0.
 */
#include <math.h>

#include <criterion/criterion.h>

#include "advisor/internal.h"

/* One thread launching @n kernels on stream 0: calls of @call ns after @gap ns (the first at
 * t0), kernels of @dur ns, @lat ns after their call, @sgap ns after their predecessor. */
static void chain(struct wi_prog *p, int n, int64_t call, int64_t gap, int64_t dur, int64_t lat,
		  int64_t sgap)
{
	for (int i = 0; i < n; i++) {
		struct wi_call c = {.thread = 0, .gap = i ? gap : 0, .dur = call};
		struct wi_op o = {.dur = dur, .stream = 0, .sms = 1, .lat = lat, .gap = sgap};

		o.call = wi_add_call(p, &c);
		wi_add_op(p, &o);
	}
}

Test(whatif, launch_bound_chain)
{
	struct wi_prog p = {.t0 = 0, .sms = 132};

	/* call k: 6000k .. 6000k + 5000; kernel k: 7000 + 6000k .. 8000 + 6000k (its call ends,
	 * plus 2000; the stream is idle by then). IL = 8000 + 4 x 6000 = 32000. */
	chain(&p, 5, 5000, 1000, 1000, 2000, 500);
	cr_expect_eq(wi_simulate(&p), 32000);
	for (int k = 0; k < 5; k++) {
		cr_expect_eq(p.ops[k].start, 7000 + 6000 * k, "kernel %d", k);
		cr_expect_eq(p.calls[k].start, 6000 * k, "call %d", k);
	}
	cr_expect_eq(p.host_end, 29000);
	wi_free(&p);
}

Test(whatif, gpu_bound_chain)
{
	struct wi_prog p = {.t0 = 1000000, .sms = 132};

	/* kernels of 10000: 7000-17000, then each 500 after the previous one ends:
	 * 17500-27500, 28000-38000, 38500-48500, 49000-59000 (relative to t0). */
	chain(&p, 5, 5000, 1000, 10000, 2000, 500);
	cr_expect_eq(wi_simulate(&p), 59000);
	cr_expect_eq(p.ops[1].start, 1000000 + 17500);
	cr_expect_eq(p.ops[4].start, 1000000 + 49000);
	wi_free(&p);
}

static int64_t two_streams(int sms_each)
{
	struct wi_prog p = {.t0 = 0, .sms = 132};
	int64_t il;

	/* calls 0-1000 and 1000-2000 launch A (stream 0) and B (stream 1) of 10000 each, no
	 * latency: A 1000-11000; B 2000-12000 if both fit, else after A: 11000-21000 */
	for (int i = 0; i < 2; i++) {
		struct wi_call c = {.thread = 0, .dur = 1000};
		struct wi_op o = {.dur = 10000, .stream = i, .sms = sms_each};

		o.call = wi_add_call(&p, &c);
		wi_add_op(&p, &o);
	}
	il = wi_simulate(&p);
	wi_free(&p);
	return il;
}

Test(whatif, two_streams_concurrent)
{
	cr_expect_eq(two_streams(50), 12000);
}

Test(whatif, two_streams_limited_by_sms)
{
	cr_expect_eq(two_streams(100), 21000);
}

Test(whatif, synchronize_waits_for_the_gpu)
{
	struct wi_prog p = {.t0 = 0, .sms = 132};
	struct wi_call c = {.thread = 0, .dur = 1000};
	struct wi_op o = {.dur = 10000, .stream = 0, .sms = 1};
	int first;

	/* launch 0-1000, kernel 1000-11000; synchronize from 1000, returns 11000 + 500; the next
	 * launch 11500-12500, its kernel 12500-22500 */
	o.call = wi_add_call(&p, &c);
	first = wi_add_op(&p, &o);
	{
		struct wi_call s = {.thread = 0, .dur = 100, .is_sync = 1, .ret = 500, .nwaits = 1};

		s.waits = malloc(sizeof(int));
		s.waits[0] = first;
		wi_add_call(&p, &s);
	}
	o.call = wi_add_call(&p, &c);
	wi_add_op(&p, &o);
	cr_expect_eq(wi_simulate(&p), 22500);
	cr_expect_eq(p.calls[1].end, 11500);
	cr_expect_eq(p.calls[2].start, 11500);
	cr_expect_eq(p.host_end, 12500);
	wi_free(&p);
}

Test(whatif, cross_stream_dependency)
{
	struct wi_prog p = {.t0 = 0, .sms = 132};
	struct wi_op a = {.dur = 5000, .stream = 0, .sms = 1, .call = -1, .submit_at = 0};
	struct wi_op b = {
	    .dur = 1000, .stream = 1, .sms = 1, .call = -1, .submit_at = 0, .gap = 300, .ndeps = 1};

	/* submitted at 0 without a host call: A 0-5000; B waits for A: 5300-6300 */
	wi_add_op(&p, &a);
	b.deps = malloc(sizeof(int));
	b.deps[0] = 0;
	wi_add_op(&p, &b);
	cr_expect_eq(wi_simulate(&p), 6300);
	cr_expect_eq(p.ops[1].start, 5300);
	wi_free(&p);
}

Test(whatif, unfinishable_synchronize)
{
	struct wi_prog p = {.t0 = 0, .sms = 132};
	struct wi_call s = {.thread = 0, .dur = 100, .is_sync = 1, .nwaits = 1};
	struct wi_op o = {.dur = 1000, .stream = 0, .sms = 1};

	/* the sync waits for an operation its own thread launches only after it */
	s.waits = malloc(sizeof(int));
	s.waits[0] = 0;
	wi_add_call(&p, &s);
	o.call = wi_add_call(&p, &(struct wi_call){.thread = 0, .dur = 100});
	wi_add_op(&p, &o);
	cr_expect_eq(wi_simulate(&p), -1);
	wi_free(&p);
}

/* Kernels submitted at 0 without host calls, for the placement tests: @blocks each, 1000 ns. */
static int placed_op(struct wi_prog *p, int stream, int blocks)
{
	struct wi_op o = {
	    .dur = 1000, .stream = stream, .sms = 1, .call = -1, .submit_at = 0, .blocks = blocks};

	return wi_add_op(p, &o);
}

/* C reads 100 bytes from each of A and B: @serial_remote of them from a writer of another
 * grid in the recording. */
static void reader(struct wi_prog *p, int stream, int a, int b, int dep, double serial_remote)
{
	struct wi_op c = {.dur = 1000,
			  .stream = stream,
			  .sms = 1,
			  .call = -1,
			  .submit_at = 0,
			  .blocks = 2,
			  .read_bytes = 200,
			  .serial_remote = serial_remote,
			  .nsrcs = 2};

	c.srcs = malloc(2 * sizeof(*c.srcs));
	c.srcs[0] = (struct wi_src){a, 100};
	c.srcs[1] = (struct wi_src){b, 100};
	if (dep >= 0) {
		c.deps = malloc(sizeof(int));
		c.deps[0] = dep;
		c.ndeps = 1;
	}
	wi_add_op(p, &c);
}

Test(whatif, remote_reads_cost_more)
{
	struct wi_prog p = {.t0 = 0, .sms = 8, .remote_cost = 0.5};

	/* A (stream 0) and B (stream 1), 2 blocks each, run at once: A on SMs 0-1, B on 2-3.
	 * C after both (stream 0 after A, a dependency on B) starts at 1000 on SMs 0-1: A's
	 * data is local, B's (half of what C reads) remote: 1000 x (1 + 0.5 x 0.5) = 1250,
	 * 1000-2250. */
	int a = placed_op(&p, 0, 2), b = placed_op(&p, 1, 2);

	reader(&p, 0, a, b, b, 0);
	cr_expect_eq(wi_simulate(&p), 2250);
	cr_expect_eq(p.ops[a].first_sm, 0);
	cr_expect_eq(p.ops[b].first_sm, 2);
	cr_expect_eq(p.ops[2].first_sm, 0);
	cr_expect_eq(p.ops[2].start, 1000);
	wi_free(&p);
}

Test(whatif, serial_placement_is_the_recording)
{
	struct wi_prog p = {.t0 = 0, .sms = 8, .remote_cost = 0.5};

	/* One stream: A (2 blocks) 0-1000 on SMs 0-1, B (4 blocks) 1000-2000 on SMs 0-3, C (2
	 * blocks) on SMs 0-1: A's data local, B's remote (another grid), as in the recording
	 * (serial_remote 100): 1000 x 1.25 / 1.25 = 1000, 2000-3000. */
	int a = placed_op(&p, 0, 2), b = placed_op(&p, 0, 4);

	reader(&p, 0, a, b, -1, 100);
	cr_expect_eq(wi_simulate(&p), 3000);
	cr_expect_eq(p.ops[2].end - p.ops[2].start, 1000);
	wi_free(&p);
}

Test(whatif, placement_takes_the_least_loaded)
{
	struct wi_prog p = {.t0 = 0, .sms = 4, .remote_cost = 0.5};

	/* A (3 blocks) on SMs 0-2; B (3 blocks, at once) on SM 3, then 0 and 1 (one block
	 * each already): its first block on SM 3. C (3 blocks) after both on SMs 0-2: B's data
	 * remote, 1000 x 1.25, 1000-2250. Without remote_cost the same program takes 2000. */
	int a = placed_op(&p, 0, 3), b = placed_op(&p, 1, 3);

	p.ops[b].blocks = 3;
	reader(&p, 0, a, b, b, 0);
	p.ops[2].blocks = 3;
	cr_expect_eq(wi_simulate(&p), 2250);
	cr_expect_eq(p.ops[b].first_sm, 3);
	p.remote_cost = 0;
	cr_expect_eq(wi_simulate(&p), 2000);
	wi_free(&p);
}

Test(whatif, shared_multiprocessors_slow_the_newcomer)
{
	struct wi_prog p = {.t0 = 0, .sms = 4, .share_rate = 0.5};

	/* A (2 blocks, 1000 ns) at 0 on SMs 0-1. B (3 blocks, 600 ns) submitted at 200: SMs 2-3
	 * free, its third block on SM 0 beside A's older block until 1000: it does 0.5 x 800 =
	 * 400 ns of its work by then and the other 200 after, ending at 1200 (its free blocks at
	 * 800). A keeps its pace: 0-1000. */
	int a = placed_op(&p, 0, 2), b = placed_op(&p, 1, 3);

	p.ops[b].submit_at = 200;
	p.ops[b].dur = 600;
	cr_expect_eq(wi_simulate(&p), 1200);
	cr_expect_eq(p.ops[a].end, 1000);
	cr_expect_eq(p.ops[b].start, 200);
	cr_expect_eq(p.ops[b].end, 1200);
	/* 400 ns of work fits in the 800 ns beside A: at half pace, 200-1000. */
	p.ops[b].dur = 400;
	cr_expect_eq(wi_simulate(&p), 1000);
	cr_expect_eq(p.ops[b].end, 1000);
	/* B with 2 blocks fits the free SMs 2-3: 200-600. */
	p.ops[b].blocks = 2;
	cr_expect_eq(wi_simulate(&p), 1000);
	cr_expect_eq(p.ops[b].end, 600);
	/* Rate 1 (or 0): sharing costs nothing; 3 blocks again, 200-600. */
	p.ops[b].blocks = 3;
	p.share_rate = 1;
	cr_expect_eq(wi_simulate(&p), 1000);
	cr_expect_eq(p.ops[b].end, 600);
	p.share_rate = 0;
	cr_expect_eq(wi_simulate(&p), 1000);
	cr_expect_eq(p.ops[b].end, 600);
	wi_free(&p);
}

/* The starts scenario below, every kernel with memory demand @q. */
static void starts_scenario(double q)
{
	struct wi_prog p = {.t0 = 0, .sms = 132};
	struct wi_op a = {
	    .dur = 10000, .stream = 0, .sms = 1, .call = -1, .start_cost = 1000, .demand = q};
	struct wi_op k = {.stream = 1, .sms = 1, .call = -1, .demand = q};
	struct wi_call s = {.thread = 0, .dur = 100, .is_sync = 1, .nwaits = 1};

	/* A (start_cost 1000) runs from 0. On stream 1: B 0-500 starts with A (costs nothing),
	 * C 500-3500 (costs A min(1000, 500 - 0) = 500), D 3500-3600 (1000: 3000 since C); E on
	 * stream 2, submitted at 3800 (min(1000, 3800 - 3500) = 300); a copy G at 5000 costs
	 * nothing. A ends 10000 + 500 + 1000 + 300 = 11800, F after it on stream 0 11800-12800. A
	 * synchronization on A from 0 returns at 11800, not at A's first end, 10000. */
	wi_add_op(&p, &a);
	k.dur = 500;
	wi_add_op(&p, &k); /* B, 1 */
	k.dur = 3000;
	wi_add_op(&p, &k); /* C, 2 */
	k.dur = 100;
	wi_add_op(&p, &k); /* D, 3 */
	k.stream = 2;
	k.submit_at = 3800;
	wi_add_op(&p, &k); /* E, 4 */
	k.stream = 3;
	k.sms = 0;
	k.submit_at = 5000;
	wi_add_op(&p, &k); /* G, 5 */
	a.start_cost = 0;
	a.dur = 1000;
	wi_add_op(&p, &a); /* F, 6 */
	s.waits = malloc(sizeof(int));
	s.waits[0] = 0;
	wi_add_call(&p, &s);
	cr_expect_eq(wi_simulate(&p), 12800);
	cr_expect_eq(p.ops[0].end, 11800);
	cr_expect_eq(p.ops[2].start, 500);
	cr_expect_eq(p.ops[4].start, 3800);
	cr_expect_eq(p.ops[6].start, 11800);
	cr_expect_eq(p.calls[0].end, 11800);
	wi_free(&p);
}

Test(whatif, kernel_starts_cost_the_running)
{
	starts_scenario(0);
}

/* The same with every kernel's memory demand 0.2: at most five run at once, so their demands
 * never add up to more than 1 and nothing changes, the starts' costs now going through the
 * work left (mem_retime()). */
Test(whatif, demands_that_fit_the_memory_change_nothing)
{
	starts_scenario(0.2);
}

Test(whatif, two_kernels_starting_at_once_charge_a_running_one_once)
{
	struct wi_prog p = {.t0 = 0, .sms = 132};
	struct wi_op a = {.dur = 10000, .stream = 0, .sms = 1, .call = -1, .start_cost = 1000};
	struct wi_op k = {.dur = 100, .sms = 1, .call = -1, .submit_at = 500};

	/* A (start_cost 1000) from 0; B and C, on streams 1 and 2, both start at 500: B costs A
	 * min(1000, 500) = 500, C nothing (no time since B): A ends once, at 10500, and D after
	 * it on stream 0 runs 10500-11500. */
	wi_add_op(&p, &a);
	k.stream = 1;
	wi_add_op(&p, &k);
	k.stream = 2;
	wi_add_op(&p, &k);
	a.start_cost = 0;
	a.dur = 1000;
	wi_add_op(&p, &a); /* D, 3 */
	cr_expect_eq(wi_simulate(&p), 11500);
	cr_expect_eq(p.ops[0].end, 10500);
	cr_expect_eq(p.ops[3].start, 10500);
	wi_free(&p);
}

Test(whatif, kernels_with_a_memory_demand_share_the_memory_system)
{
	struct wi_prog p = {.t0 = 0, .sms = 132};
	struct wi_op a = {.dur = 10000, .stream = 0, .sms = 64, .call = -1, .demand = 0.8};
	struct wi_op b = {
	    .dur = 3000, .stream = 1, .sms = 64, .call = -1, .submit_at = 2000, .demand = 0.6};
	struct wi_op c = {.dur = 9000, .stream = 2, .sms = 4, .call = -1};
	struct wi_call s = {.thread = 0, .dur = 100, .is_sync = 1, .nwaits = 1};

	/* A (0.8) alone 0-2000 at full pace: 8000 left. B (0.6) from 2000: 1.4 in all, pace
	 * 1/1.4, so B's 3000 take 4200 (ends 6200) while A does 3000 (5000 left), then A alone
	 * ends 11200. C (no demand) runs 0-9000 beside them, unslowed. A synchronization on A
	 * returns at its end. */
	wi_add_op(&p, &a);
	wi_add_op(&p, &b);
	wi_add_op(&p, &c);
	s.waits = malloc(sizeof(int));
	s.waits[0] = 0;
	wi_add_call(&p, &s);
	cr_expect_eq(wi_simulate(&p), 11200);
	cr_expect_eq(p.ops[0].end, 11200);
	cr_expect_eq(p.ops[1].start, 2000);
	cr_expect_eq(p.ops[1].end, 6200);
	cr_expect_eq(p.ops[2].end, 9000);
	cr_expect_eq(p.calls[0].end, 11200);
	wi_free(&p);
}

Test(whatif, two_kernels_of_full_demand_take_as_long_as_in_turn)
{
	struct wi_prog p = {.t0 = 0, .sms = 132};
	struct wi_op a = {.dur = 10000, .stream = 0, .sms = 64, .call = -1, .demand = 1};

	/* both from 0 at pace 1/2: both end at 20000; a third on stream 0 after the first
	 * runs alone 20000-30000 */
	wi_add_op(&p, &a);
	a.stream = 1;
	wi_add_op(&p, &a);
	a.stream = 0;
	wi_add_op(&p, &a);
	cr_expect_eq(wi_simulate(&p), 30000);
	cr_expect_eq(p.ops[0].end, 20000);
	cr_expect_eq(p.ops[1].end, 20000);
	cr_expect_eq(p.ops[2].start, 20000);
	wi_free(&p);
}

/* The probe's formula and the model agree: two copies of a kernel of demand q, started
 * together on other multiprocessors, take alone x max(1, 2q) in the model, and that pair
 * gives back q (from 0.6; 0 below, where two copies do not show it). */
Test(whatif, the_model_gives_back_the_demand_the_probe_reads)
{
	static const double qs[] = {0.3, 0.5, 0.6, 0.8, 1};

	for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		struct wi_prog p = {.t0 = 0, .sms = 132};
		struct wi_op k = {.dur = 100000, .sms = 64, .call = -1, .demand = qs[i]};
		int64_t il;

		wi_add_op(&p, &k);
		k.stream = 1;
		wi_add_op(&p, &k);
		il = wi_simulate(&p);
		cr_expect_eq(il, (int64_t)(100000 * (2 * qs[i] > 1 ? 2 * qs[i] : 1) + 0.5), "q %g",
			     qs[i]);
		cr_expect_float_eq(skip_memory_demand(100000, (double)il), qs[i] >= 0.6 ? qs[i] : 0,
				   1e-4, "q %g", qs[i]);
		wi_free(&p);
	}
}

Test(whatif, a_demand_comes_from_a_kernel_beside_a_copy_of_itself)
{
	/* two copies of demand q take alone * max(1, 2q): pair / (2 alone), from 1.2x */
	cr_expect_float_eq(skip_memory_demand(1000, 2000), 1.0, 1e-12);
	cr_expect_float_eq(skip_memory_demand(1000, 1500), 0.75, 1e-12);
	cr_expect_float_eq(skip_memory_demand(1000, 1200), 0.6, 1e-12);
	cr_expect_eq(skip_memory_demand(1000, 1199), 0);
	cr_expect_eq(skip_memory_demand(1000, 900), 0);
	cr_expect_eq(skip_memory_demand(1000, 3000), 1);
	cr_expect_eq(skip_memory_demand(0, 100), 0);
	cr_expect_eq(skip_memory_demand(1000, 0), 0);
	cr_expect_eq(skip_memory_demand(NAN, 2000), 0);
	cr_expect_eq(skip_memory_demand(1000, INFINITY), 0);
	cr_expect_float_eq(skip_memory_pace(2), 0.5, 1e-12);
	cr_expect_float_eq(skip_memory_pace(1.4), 1 / 1.4, 1e-12);
	cr_expect_eq(skip_memory_pace(1), 1);
	cr_expect_eq(skip_memory_pace(0.3), 1);
}

Test(whatif, huge_costs_saturate_instead_of_overflowing)
{
	struct wi_prog p = {.t0 = 1000, .sms = 132};
	struct wi_call s = {.thread = 0, .dur = 100, .is_sync = 1, .nwaits = 1, .ret = INT64_MAX};

	/* three kernels of 2^62 ns in a row: the second ends past INT64_MAX, which saturates;
	 * the synchronization on the last returns at INT64_MAX too: IL INT64_MAX - t0 */
	chain(&p, 3, 0, 0, (int64_t)1 << 62, (int64_t)1 << 62, INT64_MAX);
	s.waits = malloc(sizeof(int));
	s.waits[0] = 2;
	wi_add_call(&p, &s);
	cr_expect_eq(wi_simulate(&p), INT64_MAX - 1000);
	cr_expect_eq(p.ops[0].start, 1000 + ((int64_t)1 << 62));
	cr_expect_eq(p.ops[1].end, INT64_MAX);
	cr_expect_eq(p.ops[2].end, INT64_MAX);
	cr_expect_eq(p.host_end, INT64_MAX);
	wi_free(&p);
}

Test(whatif, negative_costs_count_as_zero)
{
	struct wi_prog p = {.t0 = 0, .sms = 132, .dispatch_gap = -5};
	struct wi_call c = {.thread = 0, .gap = -5000, .dur = 1000};
	struct wi_op o = {
	    .dur = -100, .stream = 0, .sms = 1, .lat = -300, .gap = -7, .graph_node = 1};

	/* the call cannot start before t0 nor the kernel end before it starts: the call 0-1000,
	 * the kernel at 1000 for 0 ns, then a second one of 500 right after it */
	o.call = wi_add_call(&p, &c);
	wi_add_op(&p, &o);
	o.dur = 500;
	wi_add_op(&p, &o);
	cr_expect_eq(wi_simulate(&p), 1500);
	cr_expect_eq(p.calls[0].start, 0);
	cr_expect_eq(p.ops[0].start, 1000);
	cr_expect_eq(p.ops[0].end, 1000);
	cr_expect_eq(p.ops[1].start, 1000);
	wi_free(&p);
}

Test(whatif, an_operation_submitted_before_t0_starts_after_its_latency)
{
	struct wi_prog p = {.t0 = 0, .sms = 132};
	struct wi_op o = {
	    .dur = 1000, .stream = 0, .sms = 1, .call = -1, .submit_at = -2000, .lat = 2500};

	/* a kernel with no launch call that started at 500 in the recording is submitted at its
	 * start less the launch latency, -2000: it starts at 500, not never */
	wi_add_op(&p, &o);
	cr_expect_eq(wi_simulate(&p), 1500);
	cr_expect_eq(p.ops[0].start, 500);
	wi_free(&p);
}
