/*
 * cuda_persist.c: E5, the persistent executor, on the GPU: the state of persist.h in device
 * memory, one cooperative launch of the mode's worker kernel (skip_persist_worker or
 * skip_persist_worker_ring, compiled into the workload's module by skip_task.cuh) per run (AOT:
 * a kernel that stays between runs), and the wait that turns what stopped it into a message.
 *
 * Memory: one device block holds the plan's arrays (with the plan itself, its pointers
 * rewritten to device addresses), the counters (a 128-byte line per task), the tiles' epochs,
 * the JIT ring, the task table (entry, packed arguments, block, tiles), struct sk_persist and
 * its shared words.
 * It is built as one host image and copied once. Two host-mapped words per worker say which
 * tile it started and whether it still runs it, and one mirrors the abort flag, so that the
 * host learns of an error without a copy and can name the tile after a trap, when the
 * context is gone.
 *
 * The co-pilot (COPILOT): the feed ring's slots and the report rings are host-mapped; the
 * calling thread feeds and reads them (persist_host.c, sk_persist_copilot_run()) between the
 * launch and the end of the kernel, spinning, and stops when the kernel does.
 */
#define SK_LOG_DOMAIN "runtime"
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_internal.h"
#include "persist.h"

/* The worker kernels: AOT's, and JIT's and the co-pilot's (skip_task.cuh). */
#define WORKER		  "skip_persist_worker"
#define WORKER_RING	  "skip_persist_worker_ring"
#define worker_name(mode) ((mode) == SK_PERSIST_AOT ? WORKER : WORKER_RING)
/* Stack a task's body may use besides its kernel form's local memory: its call frame, where it
 * saves the worker's registers and spills under the worker's register budget (up to 328
 * bytes among the bundled modules). */
#define BODY_STACK_SLACK 512

/* The host-mapped block of the abort flag: a 128-byte line each (uint64_t indices). */
#define DOOR_BELL   16
#define DOOR_SERVED 32
#define DOOR_LEFT   48
#define DOOR_BYTES  512

struct sk_cuda_persist {
	const struct skip_graph *g;
	const struct sk_persist_plan *p;
	CUfunction worker;
	int nthreads;
	unsigned smem;
	void *dmem;			     /* the device block */
	CUdeviceptr drt;		     /* its struct sk_persist */
	CUdeviceptr dsw;		     /* its struct sk_persist_words */
	struct sk_persist_started *started;  /* [nworkers] host-mapped */
	uint64_t *abort_host;		     /* host-mapped: abort, then (a line each) the resident
					      * kernel's bell, served and left */
	struct sk_persist_started *dstarted; /* the same two, as the device sees them */
	uint64_t *dabort;
	uint64_t *tiles,
	    *dtiles; /* SKIP_E5_TILE_TIMES=1: struct sk_persist's tile_times, host-mapped */
	/* AOT: the kernel stays between runs (persist.h, "resident") */
	int may_reside;	     /* AOT, unless SKIP_E5_RESIDENT=0 */
	int sm_order;	     /* AOT: workers numbered by SM (skip_task.cuh) */
	int sm_shared;	     /* AOT: more workers than SMs (struct sk_persist) */
	uint64_t linger_ns;  /* SKIP_E5_LINGER_US, else SK_PERSIST_LINGER_NS */
	int resident;	     /* a resident kernel was launched on @stream and may still run */
	cudaStream_t stream; /* its stream */
	volatile uint64_t *bell, *served, *left; /* in abort_host's block */
	/* COPILOT */
	uint64_t *feed;			/* [feed_cap] host-mapped slots */
	struct sk_persist_reports *rep; /* [nworkers] host-mapped */
	uint32_t *ids;			/* [nworkers * report_cap] host-mapped */
	struct sk_persist *co;		/* the host's side */
	cudaStream_t co_stream;		/* the launch the co-pilot feeds */
	unsigned co_polls;		/* idle rounds */
	int co_err;			/* it stopped before the end */
	uint64_t co_since, co_sig;	/* the started tiles' signature, and since when */
	uint64_t epochs;		/* completed so far */
	int spent;			/* a run failed */
	const char **names;		/* [ntasks] */
};

/* ---- what runs under E5 ---------------------------------------------------------------------- */

/* The device value of @name's global @sym in module @m: 0, 1 when it has none, or an error. */
static int get_global(CUmodule m, const char *name, const char *suffix, void *out, size_t size)
{
	char sym[320];
	CUdeviceptr d;
	size_t bytes;
	cudaError_t e;

	snprintf(sym, sizeof(sym), "%s%s", name, suffix);
	if (sk_drv.module_get_global(&d, &bytes, m, sym) != CUDA_SUCCESS || bytes != size)
		return 1;
	e = cudaMemcpy(out, (void *)(uintptr_t)d, size, cudaMemcpyDeviceToHost);
	return e == cudaSuccess ? 0 : sk_cuda_fail(e, "reading %s", sym);
}

/* The module every task of @g comes from, or an error naming the first task that does not. */
static int one_module(const struct skip_graph *g)
{
	int m = -1;

	for (int i = 0; i < g->ntasks; i++) {
		const struct sk_task *t = &g->tasks[i];

		if (t->kernel.kind != SKIP_KERNEL_MODULE)
			return sk_fail(
			    SKIP_E_INVAL,
			    "persistent: task '%s' is not a module's kernel; E5 runs the "
			    "tasks of one module built with runtime/skip_task.cuh",
			    t->name);
		if (m >= 0 && t->kernel.module != m)
			return sk_fail(SKIP_E_INVAL,
				       "persistent: task '%s' comes from %s, task '%s' from %s; E5 "
				       "runs the tasks of one module",
				       t->name, g->modules[t->kernel.module], g->tasks[0].name,
				       g->modules[m]);
		m = t->kernel.module;
	}
	return m < 0 ? sk_fail(SKIP_E_INVAL, "persistent: the graph has no tasks") : m;
}

int sk_cuda_persist_fit(const struct skip_graph *g, int mode, int *nthreads, unsigned *smem,
			int *sms)
{
	int m = one_module(g), per_sm = 0, dev = g->cuda->device;
	CUfunction fn;
	CUresult r;

	if (m < 0)
		return m;
	*nthreads = 1;
	*smem = 0;
	for (int i = 0; i < g->ntasks; i++) {
		const struct sk_task *t = &g->tasks[i];

		if (t->grid[1] > 1 || t->grid[2] > 1 || t->block[1] > 1 || t->block[2] > 1)
			return sk_fail(
			    SKIP_E_INVAL,
			    "persistent: task '%s' has a %ux%ux%u grid of %ux%ux%u blocks; "
			    "E5 runs one-dimensional grids and blocks",
			    t->name, t->grid[0], t->grid[1], t->grid[2], t->block[0], t->block[1],
			    t->block[2]);
		if ((int)t->block[0] > *nthreads)
			*nthreads = (int)t->block[0];
		if (t->shared_bytes > *smem)
			*smem = t->shared_bytes;
	}
	r = sk_drv.module_get_function(&fn, g->cuda->mods[m], worker_name(mode));
	if (r != CUDA_SUCCESS)
		return sk_fail(SKIP_E_INVAL,
			       "persistent: %s has no %s kernel: build the module with "
			       "runtime/skip_task.cuh (docs/persistent.md) to run it under E5",
			       g->modules[m], worker_name(mode));
	if (*smem &&
	    (r = sk_drv.func_set_attribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
					   (int)*smem)) != CUDA_SUCCESS)
		return sk_cu_fail(r, "persistent: %u bytes of shared memory for the worker", *smem);
	/* no dynamic shared memory: the most L1 the SM can give (the worker's own shared state
	 * is a few KB), for bodies that read their data again and again (stencils, weights) */
	if (!*smem &&
	    (r = sk_drv.func_set_attribute(fn, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
					   CU_SHAREDMEM_CARVEOUT_MAX_L1)) != CUDA_SUCCESS)
		return sk_cu_fail(r, "persistent: the worker's L1 and shared memory split");
	r = sk_drv.occupancy(&per_sm, fn, *nthreads + SK_PERSIST_PROTOCOL_THREADS, *smem);
	if (r != CUDA_SUCCESS)
		return sk_cu_fail(r, "persistent: the worker's occupancy");
	if (cudaDeviceGetAttribute(sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess)
		return sk_fail(SKIP_E_CUDA, "persistent: the device's SM count");
	if (per_sm < 1)
		return sk_fail(SKIP_E_INVAL,
			       "persistent: no worker of %d threads and %u bytes of shared memory "
			       "fits on an SM",
			       *nthreads, *smem);
	return per_sm * *sms;
}

/* The module's worker was compiled with this runtime's persist.h: the layouts agree. */
static int check_abi(CUmodule m, const char *path)
{
	const unsigned want[4] = {sizeof(struct sk_persist), sizeof(struct sk_persist_words),
				  sizeof(struct sk_persist_plan), sizeof(struct sk_persist_step)};
	unsigned got[4];
	int err = get_global(m, "skip_persist", "_abi", got, sizeof(got));

	if (err > 0 || (!err && memcmp(got, want, sizeof(want))))
		return sk_fail(SKIP_E_INVAL,
			       "persistent: %s was built with another version of skip_task.cuh; "
			       "rebuild it with this one",
			       path);
	return err;
}

/*
 * The worker calls each task's body through the task table, so the compiler cannot size the
 * stack the calls need: make the context's per-thread stack hold the worker's own local memory
 * plus the largest body's (its kernel form's local memory, and BODY_STACK_SLACK for the
 * call). The limit only grows (the CUDA default is 1 KiB).
 */
static int stack_for(struct sk_cuda_persist *s)
{
	const struct skip_graph *g = s->g;
	int own = 0, body = 0;
	size_t have = 0, need;
	cudaError_t e;

	if (sk_drv.func_get_attribute(&own, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, s->worker) !=
	    CUDA_SUCCESS)
		return sk_fail(SKIP_E_CUDA, "persistent: the worker's local memory size");
	for (int i = 0; i < g->ntasks; i++) {
		int n = 0;

		if (sk_drv.func_get_attribute(&n, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES,
					      (CUfunction)g->tasks[i].fn) == CUDA_SUCCESS &&
		    n > body)
			body = n;
	}
	need = (size_t)own + (size_t)body + BODY_STACK_SLACK;
	if ((e = cudaDeviceGetLimit(&have, cudaLimitStackSize)) != cudaSuccess)
		return sk_cuda_fail(e, "persistent: the stack size limit");
	sk_dbg(1, "persistent: worker local memory %d bytes, largest body %d, stack limit %zu%s",
	       own, body, have, have < need ? " (raised)" : "");
	if (have < need && (e = cudaDeviceSetLimit(cudaLimitStackSize, need)) != cudaSuccess)
		return sk_cuda_fail(e, "persistent: a stack of %zu bytes a thread", need);
	return 0;
}

/* ---- the device image ------------------------------------------------------------------------ */

/* The image under construction: host bytes that become the device block at the same offsets. */
struct image {
	unsigned char *h;
	size_t len, cap;
	uintptr_t dbase; /* the device block's address */
};

/* Reserve @n bytes aligned to @align; returns the offset, or (size_t)-1 without memory. */
static size_t img_take(struct image *im, size_t n, size_t align)
{
	size_t off = (im->len + align - 1) / align * align;

	if (off + n > im->cap) {
		size_t cap = (off + n) * 2 + 4096;
		unsigned char *h = realloc(im->h, cap);

		if (!h)
			return (size_t)-1;
		memset(h + im->cap, 0, cap - im->cap);
		im->h = h;
		im->cap = cap;
	}
	im->len = off + n;
	return off;
}

/* Copy @n bytes of @src into the image; the device address they will have, 0 on NOMEM. */
static uintptr_t img_put(struct image *im, const void *src, size_t n, size_t align)
{
	size_t off = img_take(im, n ? n : 1, align);

	if (off == (size_t)-1)
		return 0;
	if (n)
		memcpy(im->h + off, src, n);
	return im->dbase + off;
}

#define PUT_ARRAY(im, ptr, count) img_put(im, ptr, sizeof(*(ptr)) * (size_t)(count), 16)

/* The task's arguments as the kernel's parameters lie in memory: each at the offset the driver
 * gives (cuFuncGetParamInfo), else at its natural alignment; checked against the entry's
 * struct size. */
static int pack_args(const struct sk_task *t, unsigned argsize, unsigned char *out)
{
	size_t off = 0;

	for (int i = 0; i < t->nargs; i++) {
		size_t size = t->args[i].size,
		       align = size >= 8   ? 8
			       : size >= 4 ? 4
			       : size >= 2 ? 2
					   : 1,
		       doff, dsize;

		off = (off + align - 1) / align * align;
		if (sk_drv.func_get_param_info &&
		    sk_drv.func_get_param_info((CUfunction)t->fn, (size_t)i, &doff, &dsize) ==
			CUDA_SUCCESS)
			off = doff;
		if (off + size > argsize)
			return sk_fail(
			    SKIP_E_INVAL,
			    "persistent: task '%s': its arguments take %zu bytes or more; "
			    "the SKIP_TASK entry of '%s' takes %u (different parameters?)",
			    t->name, off + size, t->kernel.name, argsize);
		memcpy(out + off, t->params[i], size);
		off += size;
	}
	return 0;
}

/* The task table: entries and packed arguments, into the image; the entries also into @gt. */
static int put_tasks(struct sk_cuda_persist *s, struct image *im, uintptr_t *table,
		     struct sk_persist_gpu_task *gt)
{
	const struct skip_graph *g = s->g;
	CUmodule mod = g->cuda->mods[g->tasks[0].kernel.module];
	int err = 0;

	for (int i = 0; i < g->ntasks && !err; i++) {
		const struct sk_task *t = &g->tasks[i];
		unsigned argsize = 0;
		unsigned char *args;
		uint64_t fn = 0;

		err = get_global(mod, t->kernel.name, "__skip_task", &fn, sizeof(fn));
		if (!err)
			err = get_global(mod, t->kernel.name, "__skip_task_argsize", &argsize,
					 sizeof(argsize));
		if (err > 0)
			err = sk_fail(SKIP_E_INVAL,
				      "persistent: task '%s': kernel %s of %s has no task entry: "
				      "write it with SKIP_TASK (runtime/skip_task.cuh) to run it "
				      "under E5",
				      t->name, t->kernel.name, g->modules[t->kernel.module]);
		if (err)
			break;
		if (!(args = calloc(1, argsize + 1))) {
			err = sk_fail(SKIP_E_NOMEM, "out of memory");
			break;
		}
		err = pack_args(t, argsize, args);
		gt[i].fn = (void *)(uintptr_t)fn;
		gt[i].args = (const void *)img_put(im, args, argsize, 16);
		gt[i].nthreads = t->block[0];
		gt[i].ntiles = t->grid[0];
		free(args);
		if (!err && !gt[i].args)
			err = sk_fail(SKIP_E_NOMEM, "out of memory");
	}
	if (!err && !(*table = PUT_ARRAY(im, gt, g->ntasks)))
		err = sk_fail(SKIP_E_NOMEM, "out of memory");
	return err;
}

/* The plan with its arrays, pointers rewritten, and each AOT step holding its task's entry
 * from @gt; the device address of the plan. */
static uintptr_t put_plan(const struct sk_persist_plan *p, const struct sk_persist_gpu_task *gt,
			  struct image *im)
{
	struct sk_persist_plan d = *p;
	int W = p->o.nworkers;
	uintptr_t steps;

#define MOVE(member, count)                                                                        \
	do {                                                                                       \
		uintptr_t a = PUT_ARRAY(im, p->member, count);                                     \
		if (!a)                                                                            \
			return 0;                                                                  \
		memcpy(&d.member, &a, sizeof(a));                                                  \
	} while (0)
	MOVE(ntiles, p->ntasks);
	MOVE(tile_base, p->ntasks + 1);
	MOVE(tile_task, p->total_tiles);
	MOVE(pred_off, p->ntasks + 1);
	MOVE(pred, p->nedges);
	MOVE(pred_tile, p->nedges);
	MOVE(succ_off, p->ntasks + 1);
	MOVE(succ, p->nedges);
	MOVE(succ_tile, p->nedges);
	MOVE(lost, p->ntasks);
	MOVE(jtask, p->ntasks);
	MOVE(roots, p->nroots);
	MOVE(q_off, W + 1);
	MOVE(step_wait, p->nstep_wait);
#undef MOVE
	if (!(steps = PUT_ARRAY(im, p->step, p->total_tiles)))
		return 0;
	for (int i = 0; i < p->total_tiles; i++) {
		struct sk_persist_step *st =
		    (struct sk_persist_step *)(im->h + (steps - im->dbase)) + i;

		st->gt = gt[st->task];
	}
	memcpy(&d.step, &steps, sizeof(steps));
	/* host-only: the device never reads them */
	d.topo = d.dispatch = d.q = NULL;
	d.start_us = NULL;
	return img_put(im, &d, sizeof(d), 128);
}

/* The whole block: plan, counters, rings, tasks and the state; copied to the device. */
static int build(struct sk_cuda_persist *s)
{
	const struct sk_persist_plan *p = s->p;
	struct image im = {0};
	struct sk_persist rt;
	size_t ctr_off = 0, done_off = 0, jit_off = 0, rt_off = 0, sw_off = 0, own_off = 0,
	       feed_off = 0, total = 0;
	uintptr_t plan = 0, table = 0;
	struct sk_persist_gpu_task *gt = calloc((size_t)p->ntasks + 1, sizeof(*gt));
	uint64_t *slot;
	cudaError_t e;
	int err;

	if (!gt)
		return sk_fail(SKIP_E_NOMEM, "out of memory");
	/* the size first, with a dry run at address 0; then again at the block's address */
	for (int pass = 0; pass < 2; pass++) {
		im.len = 128; /* so that no part lies at address 0 of the dry run */
		memset(&rt, 0, sizeof(rt));
		if ((err = put_tasks(s, &im, &table, gt)))
			goto fail;
		if (!(plan = put_plan(p, gt, &im)))
			goto nomem;
		ctr_off = img_take(&im, sizeof(struct sk_persist_ctr) * (size_t)p->ntasks, 128);
		done_off = img_take(&im, sizeof(uint64_t) * (size_t)p->total_tiles, 128);
		jit_off = img_take(&im, sizeof(uint64_t) * (size_t)p->jit_cap, 128);
		rt_off = img_take(&im, sizeof(rt), 128);
		sw_off = img_take(&im, sizeof(struct sk_persist_words), 128);
		own_off =
		    img_take(&im, sizeof(struct sk_persist_reporter) * (size_t)p->o.nworkers, 128);
		feed_off =
		    img_take(&im, sizeof(uint64_t) * (size_t)(s->feed ? p->feed_cap : 1), 128);
		if (rt_off == (size_t)-1 || jit_off == (size_t)-1 || done_off == (size_t)-1 ||
		    ctr_off == (size_t)-1 || sw_off == (size_t)-1 || own_off == (size_t)-1 ||
		    feed_off == (size_t)-1)
			goto nomem;
		if (pass)
			break;
		total = im.len;
		if ((e = cudaMalloc(&s->dmem, total)) != cudaSuccess) {
			err = sk_cuda_fail(e, "persistent: %zu bytes of device memory", total);
			goto fail;
		}
		im.dbase = (uintptr_t)s->dmem;
		memset(im.h, 0, im.cap);
	}
	slot = (uint64_t *)(im.h + jit_off);
	for (int i = 0; i < p->jit_cap; i++) /* slot i starts free for position i */
		slot[i] = (uint64_t)i << SK_RING_TASK_BITS;
	rt.p = (const struct sk_persist_plan *)plan;
	rt.ctr = (struct sk_persist_ctr *)(im.dbase + ctr_off);
	rt.tile_done = (sk_au64 *)(im.dbase + done_off);
	rt.sw = (struct sk_persist_words *)(im.dbase + sw_off);
	rt.jit.slot = (sk_au64 *)(im.dbase + jit_off);
	rt.jit.mask = (uint64_t)p->jit_cap - 1;
	rt.jit.head = &rt.sw->jit_head;
	rt.jit.tail = &rt.sw->jit_tail;
	rt.timeout_ns = (uint64_t)p->o.watchdog_ms * 1000000u;
	rt.gtask = (const struct sk_persist_gpu_task *)table;
	if (s->feed) { /* COPILOT: the rings in host memory, as the device sees them */
		struct sk_persist_reporter *own = (struct sk_persist_reporter *)(im.h + own_off);
		uint32_t *ids;

		if ((e = cudaHostGetDevicePointer((void **)&rt.hfeed.slot, s->feed, 0)) ||
		    (e = cudaHostGetDevicePointer((void **)&rt.rep, s->rep, 0)) ||
		    (e = cudaHostGetDevicePointer((void **)&ids, s->ids, 0))) {
			err = sk_cuda_fail(e, "persistent: the co-pilot's rings");
			goto fail;
		}
		rt.hfeed.mask = rt.feed.mask = (uint64_t)p->feed_cap - 1;
		rt.feed.slot = (sk_au64 *)(im.dbase + feed_off); /* empty: 0 */
		rt.feed.head = &rt.sw->feed_head;
		rt.own = (struct sk_persist_reporter *)(im.dbase + own_off);
		for (int w = 0; w < p->o.nworkers; w++)
			own[w].ids = ids + (size_t)w * (size_t)p->report_cap;
	}
	rt.started = s->dstarted;
	rt.tile_times = s->dtiles;
	rt.abort_host = (sk_au64 *)s->dabort;
	rt.bell = (sk_au64 *)s->dabort + DOOR_BELL;
	rt.served = (sk_au64 *)s->dabort + DOOR_SERVED;
	rt.left = (sk_au64 *)s->dabort + DOOR_LEFT;
	rt.linger_ns = s->linger_ns;
	rt.sm_order = s->sm_order;
	rt.sm_shared = s->sm_shared;
	memcpy(im.h + rt_off, &rt, sizeof(rt));
	s->drt = (CUdeviceptr)(im.dbase + rt_off);
	s->dsw = (CUdeviceptr)(im.dbase + sw_off);
	e = cudaMemcpy(s->dmem, im.h, total, cudaMemcpyHostToDevice);
	free(im.h);
	free(gt);
	return e == cudaSuccess ? 0 : sk_cuda_fail(e, "persistent: copying the state");
nomem:
	err = sk_fail(SKIP_E_NOMEM, "out of memory");
fail:
	free(im.h);
	free(gt);
	return err;
}

static int copilot_new(struct sk_cuda_persist *s);

/* With SKIP_E5_TILE_TIMES=1 in the environment or SK_PERSIST_TILE_TIMES in the plan's flags,
 * the tile timeline's host-mapped words. */
static int tiles_new(struct sk_cuda_persist *s)
{
	const char *on = getenv("SKIP_E5_TILE_TIMES");
	size_t n = 3 * (size_t)s->p->total_tiles;
	cudaError_t e;

	if ((!on || strcmp(on, "1")) && !(s->p->o.flags & SK_PERSIST_TILE_TIMES))
		return 0;
	e = cudaHostAlloc((void **)&s->tiles, n * sizeof(uint64_t), cudaHostAllocMapped);
	if (e == cudaSuccess)
		e = cudaHostGetDevicePointer((void **)&s->dtiles, s->tiles, 0);
	if (e != cudaSuccess)
		return sk_cuda_fail(e, "persistent: the tile timeline's host-mapped memory");
	memset(s->tiles, 0, n * sizeof(uint64_t));
	return 0;
}

int sk_cuda_persist_tiles(const struct sk_cuda_persist *s, struct skip_tile_time *out, int max)
{
	const struct sk_persist_plan *p = s->p;
	const volatile uint64_t *v = s->tiles;

	if (!v || !s->epochs)
		return 0;
	for (int g = 0; g < p->total_tiles && g < max; g++) {
		int t = p->tile_task[g];

		out[g] = (struct skip_tile_time){t, g - p->tile_base[t], (int)v[3 * g + 2],
						 v[3 * g], v[3 * g + 1]};
	}
	return p->total_tiles;
}

struct sk_cuda_persist *sk_cuda_persist_new(const struct skip_graph *g,
					    const struct sk_persist_plan *p, int *err)
{
	struct sk_cuda_persist *s = calloc(1, sizeof(*s));
	size_t W = (size_t)p->o.nworkers;
	const char *resident, *linger;
	int fit, m, sms = 0;
	cudaError_t e;

	if (!s) {
		*err = sk_fail(SKIP_E_NOMEM, "out of memory");
		return NULL;
	}
	s->g = g;
	s->p = p;
	if ((fit = sk_cuda_persist_fit(g, p->o.mode, &s->nthreads, &s->smem, &sms)) < 0) {
		*err = fit;
		goto fail;
	}
	if (p->o.nworkers + (p->o.mode == SK_PERSIST_COPILOT) > fit) {
		*err =
		    sk_fail(SKIP_E_INVAL,
			    "persistent: the plan has %d workers%s; %d fit co-resident on this GPU "
			    "(blocks of %d threads): E5 never launches more than fit, which "
			    "could hang",
			    p->o.nworkers,
			    p->o.mode == SK_PERSIST_COPILOT ? " and the co-pilot's dispatcher" : "",
			    fit, s->nthreads);
		goto fail;
	}
	m = g->tasks[0].kernel.module;
	if (sk_drv.module_get_function(&s->worker, g->cuda->mods[m], worker_name(p->o.mode)) !=
	    CUDA_SUCCESS) {
		*err = sk_fail(SKIP_E_INVAL, "persistent: %s has no %s kernel", g->modules[m],
			       worker_name(p->o.mode));
		goto fail;
	}
	if ((*err = check_abi(g->cuda->mods[m], g->modules[m])) || (*err = stack_for(s)))
		goto fail;
	e = cudaHostAlloc((void **)&s->started, W * sizeof(*s->started) + 128, cudaHostAllocMapped);
	if (e == cudaSuccess)
		e = cudaHostAlloc((void **)&s->abort_host, DOOR_BYTES, cudaHostAllocMapped);
	if (e == cudaSuccess)
		e = cudaHostGetDevicePointer((void **)&s->dstarted, s->started, 0);
	if (e == cudaSuccess)
		e = cudaHostGetDevicePointer((void **)&s->dabort, s->abort_host, 0);
	if (e != cudaSuccess) {
		*err = sk_cuda_fail(e, "persistent: host-mapped memory");
		goto fail;
	}
	memset(s->started, 0, W * sizeof(*s->started));
	if ((*err = tiles_new(s)))
		goto fail;
	memset(s->abort_host, 0, DOOR_BYTES);
	s->bell = s->abort_host + DOOR_BELL;
	s->served = s->abort_host + DOOR_SERVED;
	s->left = s->abort_host + DOOR_LEFT;
	resident = getenv("SKIP_E5_RESIDENT");
	linger = getenv("SKIP_E5_LINGER_US");
	s->may_reside = p->o.mode == SK_PERSIST_AOT && !(resident && !strcmp(resident, "0"));
	s->linger_ns = linger ? strtoull(linger, NULL, 10) * 1000u : SK_PERSIST_LINGER_NS;
	s->sm_order = p->o.mode == SK_PERSIST_AOT && sms <= SK_PERSIST_MAX_SMS;
	s->sm_shared = p->o.mode == SK_PERSIST_AOT && p->o.nworkers > sms;
	if (p->o.mode == SK_PERSIST_COPILOT && (*err = copilot_new(s)))
		goto fail;
	if (!(s->names = calloc((size_t)g->ntasks, sizeof(char *)))) {
		*err = sk_fail(SKIP_E_NOMEM, "out of memory");
		goto fail;
	}
	for (int i = 0; i < g->ntasks; i++)
		s->names[i] = g->tasks[i].name;
	if ((*err = build(s)))
		goto fail;
	return s;
fail:
	sk_cuda_persist_free(s);
	return NULL;
}

void sk_cuda_persist_free(struct sk_cuda_persist *s)
{
	if (!s)
		return;
	sk_cuda_persist_park(s);
	cudaFree(s->dmem);
	sk_persist_free(s->co);
	if (s->feed)
		cudaFreeHost(s->feed);
	if (s->rep)
		cudaFreeHost(s->rep);
	if (s->started)
		cudaFreeHost(s->started);
	if (s->abort_host)
		cudaFreeHost(s->abort_host);
	if (s->tiles)
		cudaFreeHost(s->tiles);
	free(s->names);
	free(s);
}

/* ---- running --------------------------------------------------------------------------------- */

/* One cooperative launch of the workers: epochs @first .. @first + @niters - 1, or resident
 * from @first on (niters 0). */
static int launch(struct sk_cuda_persist *s, cudaStream_t stream, uint64_t first, int niters)
{
	int dispatcher = s->co ? s->p->o.nworkers : -1; /* COPILOT: one more CTA */
	void *params[] = {&s->drt, &first, &niters, &dispatcher};
	CUlaunchAttribute attr;
	CUlaunchConfig cfg;
	CUresult r;

	memset(&cfg, 0, sizeof(cfg));
	memset(&attr, 0, sizeof(attr));
	cfg.gridDimX = (unsigned)(s->p->o.nworkers + (s->co != NULL));
	cfg.gridDimY = cfg.gridDimZ = 1;
	cfg.blockDimX = (unsigned)s->nthreads + SK_PERSIST_PROTOCOL_THREADS;
	cfg.blockDimY = cfg.blockDimZ = 1;
	cfg.sharedMemBytes = s->smem;
	cfg.hStream = (CUstream)stream;
	attr.id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
	attr.value.cooperative = 1;
	cfg.attrs = &attr;
	cfg.numAttrs = 1;
	if (s->sm_order) { /* skip_task.cuh, sk_gpu_worker_by_sm() */
		size_t off = offsetof(struct sk_persist_words, sm_ctas);
		cudaError_t e = cudaMemsetAsync(
		    (void *)(uintptr_t)(s->dsw + off), 0,
		    offsetof(struct sk_persist_words, n_second) + sizeof(unsigned) - off, stream);

		if (e != cudaSuccess)
			return sk_cuda_fail(e, "persistent: clearing the workers' numbering");
	}
	r = sk_drv.launch_kernel_ex(&cfg, s->worker, params, NULL);
	if (r != CUDA_SUCCESS)
		return sk_cu_fail(r, "persistent: launching %d workers", s->p->o.nworkers);
	return 0;
}

/* A resident kernel for the epochs after the last served one (the bell says up to where). */
static int launch_resident(struct sk_cuda_persist *s, cudaStream_t stream)
{
	int err;

	*s->left = 0;
	if ((err = launch(s, stream, *s->served + 1, 0)))
		return err;
	s->resident = 1;
	s->stream = stream;
	return 0;
}

int sk_cuda_persist_launch(struct sk_cuda_persist *s, cudaStream_t stream, int niters)
{
	uint64_t first = s->epochs + 1;
	int err;

	if (s->spent)
		return sk_fail(SKIP_E_INVAL,
			       "persistent: an earlier run stopped on an error, which "
			       "left its counters mid-epoch");
	if (s->resident && (stream != s->stream || !s->may_reside))
		if ((err = sk_cuda_persist_park(s)))
			return err;
	if (s->may_reside) {
		/* ring; a kernel that left (or is leaving) serves no more: a new one queues
		 * behind it */
		*s->bell = s->epochs + (uint64_t)niters;
		if (s->resident && *s->left)
			s->resident = 0;
		if (!s->resident && (err = launch_resident(s, stream)))
			return err;
		s->epochs += (uint64_t)niters;
		return 0;
	}
	if ((err = launch(s, stream, first, niters)))
		return err;
	s->epochs += (uint64_t)niters;
	if (s->co) {
		s->co_stream = stream;
		s->co_polls = 0;
		s->co_since = 0;
		/* the co-pilot stops early only when the kernel stops, or a tile never returns:
		 * the wait says why */
		if ((err = sk_persist_copilot_run(s->co, first, niters)))
			s->co_err = err;
	}
	return 0;
}

int sk_cuda_persist_park(struct sk_cuda_persist *s)
{
	cudaError_t e;

	if (!s || !s->resident)
		return 0;
	*s->bell = s->epochs | SK_BELL_STOP;
	e = cudaStreamSynchronize(s->stream);
	s->resident = 0;
	*s->bell = s->epochs;
	return e == cudaSuccess ? 0 : sk_cuda_fail(e, "persistent: stopping the resident kernel");
}

/* The tiles running when the kernel died, in words. */
static int trapped(struct sk_cuda_persist *s, cudaError_t e)
{
	char list[512];
	size_t at = 0;
	int n = 0;

	list[0] = '\0';
	for (int w = 0; w < s->p->o.nworkers && at < sizeof(list); w++) {
		const volatile struct sk_persist_started *st = &s->started[w];

		if (!st->running || st->task < 0 || st->task >= s->g->ntasks)
			continue;
		if (n++ < 4)
			at += (size_t)snprintf(list + at, sizeof(list) - at,
					       "%sworker %d: task '%s' tile %d (epoch %llu)",
					       n > 1 ? "; " : "", w, s->names[st->task], st->tile,
					       (unsigned long long)st->epoch);
	}
	s->spent = 1;
	return sk_fail(SKIP_E_CUDA, "persistent: the GPU stopped the kernel (%s) while %s%s%s",
		       cudaGetErrorString(e), n ? "these tiles ran: " : "no tile ran", list,
		       n > 4 ? "; ..." : "");
}

/* The state's own error: its why, copied back, in words. */
static int stopped(struct sk_cuda_persist *s)
{
	struct sk_persist_words sw;
	struct sk_persist rt;
	cudaError_t e;

	memset(&rt, 0, sizeof(rt));
	e = cudaMemcpy(&sw, (void *)(uintptr_t)s->dsw, sizeof(sw), cudaMemcpyDeviceToHost);
	if (e != cudaSuccess)
		return sk_cuda_fail(e, "persistent: reading why the run stopped");
	rt.sw = &sw;
	rt.p = s->p;
	rt.names = s->names;
	rt.timeout_ns = (uint64_t)s->p->o.watchdog_ms * 1000000u;
	sk_persist_why_text(&rt);
	s->spent = 1;
	return sk_fail(-(int)*(volatile uint64_t *)s->abort_host,
		       "persistent run (%s, %d workers): %s", sk_persist_mode_name(s->p->o.mode),
		       s->p->o.nworkers, rt.diag);
}

/* No tile began or ended anywhere for twice the watchdog (*@since, *@seen: when the started
 * tiles last changed, and how they were): a body that never returns, which the device's
 * watchdog cannot catch. */
static int stuck(struct sk_cuda_persist *s, uint64_t *since, uint64_t *seen)
{
	uint64_t limit = (uint64_t)s->p->o.watchdog_ms * 2000000u, now, sig = 0;

	for (int w = 0; w < s->p->o.nworkers; w++) {
		const volatile struct sk_persist_started *st = &s->started[w];

		sig = sig * 1000003u + st->epoch * 131u + (uint64_t)st->tile * 7u +
		      (uint64_t)st->task + (uint64_t)st->running;
	}
	now = skip_clock_ns(CLOCK_MONOTONIC);
	if (!*since || sig != *seen) {
		*since = now;
		*seen = sig;
		return 0;
	}
	if (now - *since <= limit)
		return 0;
	s->spent = 1;
	return sk_fail(SKIP_E_CUDA,
		       "persistent: no tile began or ended for %u ms: a task body that never "
		       "returns? (the kernel cannot be stopped; the process must end)",
		       2 * s->p->o.watchdog_ms);
}

/* The co-pilot found nothing to do: go on while the kernel runs. A worker's abort is seen at
 * once (host-mapped); the kernel's end, and a tile that never returns, every few thousand
 * rounds (a stream query costs about a microsecond). */
static int copilot_idle(void *ctx)
{
	struct sk_cuda_persist *s = ctx;
	uint64_t ab = *(volatile uint64_t *)s->abort_host;
	cudaError_t e;

	if (ab)
		return -(int)ab;
	if (++s->co_polls % 4096)
		return 0;
	if ((e = cudaStreamQuery(s->co_stream)) != cudaErrorNotReady)
		return sk_fail(SKIP_E_CUDA, "persistent: the kernel ended before every task was "
					    "reported");
	return stuck(s, &s->co_since, &s->co_sig);
}

/* COPILOT: the host-mapped rings (the feed slots start empty: 0) and the host's side. */
static int copilot_new(struct sk_cuda_persist *s)
{
	const struct sk_persist_plan *p = s->p;
	size_t W = (size_t)p->o.nworkers, rep = (W * sizeof(*s->rep) + 127) / 128 * 128;
	cudaError_t e;
	int err;

	e = cudaHostAlloc((void **)&s->feed, sizeof(uint64_t) * (size_t)p->feed_cap,
			  cudaHostAllocMapped);
	if (e == cudaSuccess)
		e = cudaHostAlloc((void **)&s->rep,
				  rep + sizeof(uint32_t) * W * (size_t)p->report_cap,
				  cudaHostAllocMapped);
	if (e != cudaSuccess)
		return sk_cuda_fail(e, "persistent: the co-pilot's host-mapped rings");
	memset(s->feed, 0, sizeof(uint64_t) * (size_t)p->feed_cap);
	memset(s->rep, 0, rep);
	s->ids = (uint32_t *)((char *)s->rep + rep);
	s->co =
	    sk_persist_copilot_new(p, (sk_au64 *)s->feed, s->rep, s->ids, copilot_idle, s, &err);
	return s->co ? 0 : err;
}

/* Wait for the kernel on @stream to end, and say what stopped it, if anything did. */
static int wait_kernel(struct sk_cuda_persist *s, cudaStream_t stream)
{
	uint64_t since = 0, seen = 0;
	unsigned polls = 0;
	cudaError_t e;

	while ((e = cudaStreamQuery(stream)) == cudaErrorNotReady) {
		int err;

		if (++polls % 4096)
			continue;
		if ((err = stuck(s, &since, &seen)))
			return err;
	}
	if (e != cudaSuccess)
		return trapped(s, e);
	if (*(volatile uint64_t *)s->abort_host)
		return stopped(s);
	if (s->co_err) {
		s->spent = 1;
		return sk_fail(s->co_err,
			       "persistent run (copilot, %d workers): the kernel ended before "
			       "every task was reported",
			       s->p->o.nworkers);
	}
	return 0;
}

/*
 * Resident: until the porter reports the last epoch rung. A kernel that left before it saw
 * the bell (it lingered out) is followed by a new one; an abort, or a kernel that died,
 * ends the wait as wait_kernel() does. The stream is queried only now and then (about a
 * microsecond each), for a trap, and the started tiles for a body that never returns.
 */
static int wait_resident(struct sk_cuda_persist *s)
{
	uint64_t since = 0, seen = 0;

	for (unsigned polls = 1;; polls++) {
		cudaError_t e;
		int err;

		if (*s->served >= s->epochs)
			break;
		if (*(volatile uint64_t *)s->abort_host) {
			s->resident = 0;
			return wait_kernel(s, s->stream);
		}
		if (*s->left) {
			if (*s->served >= s->epochs)
				break;
			if ((err = launch_resident(s, s->stream)))
				return err;
			continue;
		}
		if (polls % 1024)
			continue;
		if ((e = cudaStreamQuery(s->stream)) != cudaErrorNotReady && e != cudaSuccess) {
			s->resident = 0;
			return trapped(s, e);
		}
		if (polls % 16384 == 0 && (err = stuck(s, &since, &seen)))
			return err;
	}
	__atomic_thread_fence(__ATOMIC_ACQUIRE); /* the results after the word that says so */
	return 0;
}

int sk_cuda_persist_wait(struct sk_cuda_persist *s, cudaStream_t stream)
{
	if (s->resident)
		return wait_resident(s);
	return wait_kernel(s, stream);
}
