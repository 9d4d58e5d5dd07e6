/*
 * gen.c: write a realistic synthetic trace for bench/report_scale.
 *
 *   report_scale_gen OUT.skip.db [KERNELS]     (default 10,000,000)
 *
 * One run of one process whose main thread launches KERNELS kernels alternately on two streams,
 * half in a launch-bound phase (a launch every ~5 us, kernels of ~1 us) and half in a GPU-bound
 * phase (kernels of ~8 us: the launch queue fills, and launch calls block while 1024 launches
 * are pending, as CUDA's do), with NVTX operators ("op_N", 10 kernels each) inside "step"
 * ranges (1,000 kernels each), 50 kernel names, a memcpy every 10,000 kernels and a stream
 * synchronize every step. Deterministic (fixed seed).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skip_common.h"

#define PID	  4242LL
#define GPID	  (PID << 24)
#define GTID	  (GPID | 4242)
#define QUEUE_MAX 1024

static uint64_t rng = 88172645463325252ull;

static int64_t jitter(int64_t base, int64_t spread)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return base + (int64_t)(rng % (uint64_t)spread);
}

static sqlite3_stmt *prep(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		fprintf(stderr, "gen: %s\n", sqlite3_errmsg(db));
		exit(1);
	}
	return st;
}

static void step_or_die(sqlite3 *db, sqlite3_stmt *st)
{
	if (sqlite3_step(st) != SQLITE_DONE) {
		fprintf(stderr, "gen: %s\n", sqlite3_errmsg(db));
		exit(1);
	}
	sqlite3_reset(st);
}

int main(int argc, char **argv)
{
	long long n = argc > 2 ? atoll(argv[2]) : 10000000LL;
	sqlite3 *db = NULL;
	sqlite3_stmt *k, *api, *nvtx, *mc;
	int64_t host = 1000000, gpu_free[2] = {0, 0}, *starts;
	int64_t step_start = 0, op_start = 0;
	uint32_t corr = 0;
	char name[64];

	if (argc < 2) {
		fprintf(stderr, "usage: report_scale_gen OUT.skip.db [KERNELS]\n");
		return 2;
	}
	skip_log_init("gen", NULL, 0);
	if (skip_store_create(argv[1], SKIP_STORE_OVERWRITE | SKIP_STORE_FAST, &db)) {
		fprintf(stderr, "gen: %s\n", skip_errmsg());
		return 1;
	}
	skip_store_exec(db, "PRAGMA journal_mode=OFF; PRAGMA cache_size=-262144; BEGIN;"
			    "INSERT INTO SKIP_RUNS(runId, commandLine, status) VALUES (1, "
			    "'report_scale_gen', 'ok');"
			    "INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel_v7000'), "
			    "(2, 'cudaMemcpyAsync_v3020'), (3, 'cudaStreamSynchronize_v3020');"
			    "INSERT INTO SKIP_GPUS(runId, globalPid, id, name, smCount) VALUES "
			    "(1, 4242 << 24, 0, 'Synthetic GPU', 132);");
	for (int i = 0; i < 50; i++) {
		snprintf(name, sizeof(name),
			 "INSERT INTO StringIds VALUES (%d, 'synthetic_kernel_%02d')", 10 + i, i);
		skip_store_exec(db, name);
	}
	k = prep(db,
		 "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL(runId, start, end, deviceId, contextId, "
		 "streamId, correlationId, globalPid, demangledName, shortName, mangledName, "
		 "registersPerThread, gridX, gridY, gridZ, blockX, blockY, blockZ, "
		 "staticSharedMemory, dynamicSharedMemory) VALUES (1, ?1, ?2, 0, 1, ?3, ?4, "
		 "4242 << 24, ?5, ?5, ?5, 32, 128, 1, 1, 256, 1, 1, 0, 0)");
	api = prep(db, "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME(runId, start, end, eventClass, "
		       "globalTid, correlationId, nameId, returnValue, cbid) VALUES (1, ?1, ?2, 0, "
		       "(4242 << 24) | 4242, ?3, ?4, 0, 211)");
	nvtx = prep(db, "INSERT INTO NVTX_EVENTS(runId, start, end, eventType, text, globalTid, "
			"endGlobalTid, domainId) VALUES (1, ?1, ?2, 59, ?3, (4242 << 24) | 4242, "
			"(4242 << 24) | 4242, 0)");
	mc = prep(db,
		  "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY(runId, start, end, deviceId, contextId, "
		  "streamId, correlationId, globalPid, bytes, copyKind) VALUES (1, ?1, ?2, 0, 1, "
		  "7, ?3, 4242 << 24, 1048576, 1)");
	starts = calloc(QUEUE_MAX, sizeof(int64_t)); /* kernel starts of the last 1024 launches */
	for (long long i = 0; i < n; i++) {
		int gpu_bound = i >= n / 2, s = (int)(i & 1);
		int64_t a0, a1, ks, ke;

		if (i % 1000 == 0)
			step_start = host;
		if (i % 10 == 0)
			op_start = host;
		a0 = host + jitter(500, 1000);
		a1 = a0 + jitter(2500, 1500);
		/* A full launch queue blocks the call until the oldest pending kernel starts. */
		if (starts[i % QUEUE_MAX] > a1)
			a1 = starts[i % QUEUE_MAX] + jitter(200, 300);
		ks = a1 + jitter(1500, 1000);
		ks = ks > gpu_free[s] ? ks : gpu_free[s] + jitter(600, 400);
		ke = ks + (gpu_bound ? jitter(7000, 2000) : jitter(800, 400));
		gpu_free[s] = ke;
		starts[i % QUEUE_MAX] = ks;
		corr++;
		sqlite3_bind_int64(api, 1, a0);
		sqlite3_bind_int64(api, 2, a1);
		sqlite3_bind_int64(api, 3, corr);
		sqlite3_bind_int64(api, 4, 1);
		step_or_die(db, api);
		sqlite3_bind_int64(k, 1, ks);
		sqlite3_bind_int64(k, 2, ke);
		sqlite3_bind_int64(k, 3, s ? 13 : 7);
		sqlite3_bind_int64(k, 4, corr);
		sqlite3_bind_int64(k, 5, 10 + (int)((i / 3) % 50));
		step_or_die(db, k);
		host = a1;
		if (i % 10 == 9) {
			snprintf(name, sizeof(name), "op_%lld", (i / 10) % 20);
			sqlite3_bind_int64(nvtx, 1, op_start);
			sqlite3_bind_int64(nvtx, 2, host + 100);
			sqlite3_bind_text(nvtx, 3, name, -1, SQLITE_TRANSIENT);
			step_or_die(db, nvtx);
		}
		if (i % 10000 == 9999) {
			corr++;
			sqlite3_bind_int64(mc, 1, gpu_free[1] + 500);
			sqlite3_bind_int64(mc, 2, gpu_free[1] + 40000);
			sqlite3_bind_int64(mc, 3, corr);
			step_or_die(db, mc);
			sqlite3_bind_int64(api, 1, host + 200);
			sqlite3_bind_int64(api, 2, host + 2200);
			sqlite3_bind_int64(api, 3, corr);
			sqlite3_bind_int64(api, 4, 2);
			step_or_die(db, api);
			host += 2400;
		}
		if (i % 1000 == 999) { /* end of step: synchronize the streams */
			int64_t done = gpu_free[0] > gpu_free[1] ? gpu_free[0] : gpu_free[1];

			corr++;
			sqlite3_bind_int64(api, 1, host + 300);
			sqlite3_bind_int64(api, 2, (done > host ? done : host) + 2000);
			sqlite3_bind_int64(api, 3, corr);
			sqlite3_bind_int64(api, 4, 3);
			step_or_die(db, api);
			host = (done > host ? done : host) + 2500;
			sqlite3_bind_int64(nvtx, 1, step_start);
			sqlite3_bind_int64(nvtx, 2, host);
			sqlite3_bind_text(nvtx, 3, "step", -1, SQLITE_STATIC);
			step_or_die(db, nvtx);
		}
		if (i % 1000000 == 999999) {
			skip_store_exec(db, "COMMIT; BEGIN");
			fprintf(stderr, "gen: %lld kernels\n", i + 1);
		}
	}
	skip_store_exec(db, "COMMIT");
	sqlite3_finalize(k);
	sqlite3_finalize(api);
	sqlite3_finalize(nvtx);
	sqlite3_finalize(mc);
	free(starts);
	if (skip_store_finalize(db)) {
		fprintf(stderr, "gen: %s\n", skip_errmsg());
		return 1;
	}
	sqlite3_close(db);
	return 0;
}
