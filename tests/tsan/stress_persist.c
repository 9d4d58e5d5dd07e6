/*
 * stress_persist.c: E5's scheduling protocol (runtime/persist.h) under ThreadSanitizer, as a
 * plain program (Criterion does not start under TSan here). `make check-tsan` builds it with
 * -fsanitize=thread and runs it.
 *
 * For a bounded time (argv[1] seconds, default 3) it runs rounds of seeded random plans
 * (seeds from argv[2], default 1, so that a failing round can be replayed):
 * random DAGs of 2..120 tasks (chains, diamonds and fans among them), every mode in turn, 1..8
 * workers, 1..6 iterations (AOT's in half its rounds as a resident kernel that the host rings,
 * leaving at once or lingering 1 ms), random co-pilot lookahead, report batch and feed ring size,
 * and random delays in the task bodies and at every step of the protocol (tests/tsan/
 * persist_check.h checks each tile's inputs and the final values). Then the ends that must not
 * hang, once per mode: a cycle and a missing producer end with the watchdog's -ETIMEDOUT, a
 * failing task with its error. Exit status 0 only if every result was right (ThreadSanitizer
 * adds its own failure on a race: TSAN_OPTIONS=halt_on_error=1 in mk/persist.mk).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "skip_common.h"
#include "tests/tsan/persist_check.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void make_dag(struct pc_dag *d, uint64_t r)
{
	switch (r % 6) {
	case 0:
		pc_chain(d, 2 + (int)(r >> 8 & 15), 1 + (int)(r >> 16 & 3), (int)(r >> 20 & 1));
		break;
	case 1:
		pc_diamond(d);
		break;
	case 2:
		pc_fan(d, 2 + (int)(r >> 8 & 31));
		break;
	default:
		pc_random(d, 2 + (int)((r >> 8) % 119), 1 + (int)(r >> 16 & 7), r);
	}
}

/* One seeded round; 0 or -1 with a message on stderr. */
static int round_ok(uint64_t seed, long *tiles)
{
	uint64_t r = pc_mix(seed);
	struct sk_persist_opts o = SK_PERSIST_OPTS_DEFAULT;
	struct sk_persist_plan *p = NULL;
	struct sk_persist *rt = NULL;
	struct sk_persist_dag view;
	struct pc_check c;
	struct pc_dag d;
	int err = 0, iters = 1 + (int)(r >> 40 & 3), runs = 1 + (int)(r >> 44 & 1), bad = -1;
	int resident = seed % SK_PERSIST_NMODES == SK_PERSIST_AOT && (r >> 45 & 1);

	make_dag(&d, r);
	view = pc_view(&d);
	o.mode = (enum sk_persist_mode)(seed % SK_PERSIST_NMODES);
	o.nworkers = 1 + (int)(r >> 24 & 7);
	o.lookahead = (int)(r >> 28 & 7);
	o.report_batch = 1 + (int)(r >> 32 & 7);
	o.feed_tiles = r >> 36 & 1 ? 0 : 1; /* 1: replaced by the smallest allowed below */
	pc_check_init(&c, &d);
	c.seed = r;
	c.delay_permille = 200;
	c.jitter_permille = 100;
	if (o.feed_tiles) {
		int most = o.nworkers;

		for (int t = 0; t < d.ntasks; t++)
			if (d.tasks[t].ntiles > most)
				most = d.tasks[t].ntiles;
		o.feed_tiles = most;
	}
	if (!(p = sk_persist_plan_new(&view, &o, &err)) ||
	    !(rt = sk_persist_new(p, &(struct sk_persist_hooks){pc_body, pc_jitter, &c}, &err))) {
		fprintf(stderr, "round %llu: %s\n", (unsigned long long)seed, skip_errmsg());
		goto out;
	}
	if (resident) {
		struct pc_resident res;

		pc_resident_init(&res, rt, r >> 46 & 1 ? 0 : 1000000);
		for (int k = 0; k < runs && !err; k++) {
			pc_resident_ring(&res, iters);
			err = pc_resident_wait(&res);
		}
		pc_resident_park(&res);
		if (err) {
			fprintf(stderr, "round %llu (resident aot, %d workers): stopped [%s]\n",
				(unsigned long long)seed, o.nworkers, c.msg);
			goto out;
		}
	}
	for (int k = 0; k < runs && !resident; k++)
		if ((err = sk_persist_run(rt, iters))) {
			fprintf(stderr, "round %llu (%s, %d workers): %s [%s]\n",
				(unsigned long long)seed, sk_persist_mode_name(o.mode), o.nworkers,
				skip_errmsg(), c.msg);
			goto out;
		}
	if (pc_verify(&c, (uint64_t)iters * (uint64_t)runs)) {
		fprintf(stderr, "round %llu (%s, %d workers): wrong result: %s\n",
			(unsigned long long)seed, sk_persist_mode_name(o.mode), o.nworkers, c.msg);
		goto out;
	}
	*tiles += (long)c.total * iters * runs;
	bad = 0;
out:
	sk_persist_free(rt);
	sk_persist_plan_free(p);
	pc_check_fini(&c);
	pc_dag_free(&d);
	return bad;
}

/* A plan that cannot finish or fails must end with @want, within the watchdog and a margin. */
static int must_end(int mode, int kind, int want)
{
	struct sk_persist_opts o = SK_PERSIST_OPTS_DEFAULT;
	struct sk_persist_plan *p;
	struct sk_persist *rt;
	struct pc_check c;
	struct pc_dag d;
	double t0;
	int err, bad = -1;

	pc_random(&d, 30, 3, 7);
	if (kind == 0) { /* a cycle: 20 -> 25 -> 20 */
		pc_edge(&d, 25, 20, 0);
		pc_edge(&d, 20, 25, 0);
	}
	o.mode = (enum sk_persist_mode)mode;
	o.nworkers = 3;
	o.watchdog_ms = 150;
	o.flags = SK_PERSIST_UNCHECKED;
	pc_check_init(&c, &d);
	c.seed = (uint64_t)mode;
	c.delay_permille = 100;
	c.jitter_permille = 50;
	if (kind == 2) {
		c.fail_task = 12;
		c.fail_epoch = 2;
	}
	if (!(p = sk_persist_plan_new(
		  &(struct sk_persist_dag){d.ntasks, d.tasks, d.nedges, d.edges}, &o, &err))) {
		fprintf(stderr, "%s\n", skip_errmsg());
		goto out_dag;
	}
	if (kind == 1 && sk_persist_plan_lose(p, 5)) {
		fprintf(stderr, "%s\n", skip_errmsg());
		goto out_plan;
	}
	if (!(rt = sk_persist_new(p, &(struct sk_persist_hooks){pc_body, pc_jitter, &c}, &err)))
		goto out_plan;
	t0 = now_s();
	err = sk_persist_run(rt, 3);
	if (err != want || now_s() - t0 > 0.150 + 3.0)
		fprintf(stderr, "%s, case %d: returned %d after %.3f s, want %d: %s\n",
			sk_persist_mode_name(mode), kind, err, now_s() - t0, want, skip_errmsg());
	else
		bad = 0;
	sk_persist_free(rt);
out_plan:
	sk_persist_plan_free(p);
out_dag:
	pc_check_fini(&c);
	pc_dag_free(&d);
	return bad;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 3, t0 = now_s();
	uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 0) : 1;
	long rounds = 0, tiles = 0;
	int failed = 0;

	for (; !failed && (rounds < 3 || now_s() - t0 < seconds); seed++, rounds++)
		failed = round_ok(seed, &tiles) != 0;
	for (int mode = 0; !failed && mode < SK_PERSIST_NMODES; mode++)
		failed = must_end(mode, 0, -ETIMEDOUT) || must_end(mode, 1, -ETIMEDOUT) ||
			 must_end(mode, 2, -EIO);
	printf("stress_persist: %ld rounds, %ld tiles in %.1f s: %s\n", rounds, tiles, now_s() - t0,
	       failed ? "FAILED" : "ok");
	return failed;
}
