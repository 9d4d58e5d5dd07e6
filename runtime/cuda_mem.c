/*
 * cuda_mem.c: a graph on the device. skip_graph_load() allocates buffers, loads the modules
 * (the workload's and the runtime's built-in one), resolves every task's kernel to a
 * CUfunction, checks the argument count where the driver can tell (cuFuncGetParamInfo), and
 * lays out each task's arguments in one block. skip_graph_reset() writes initial contents on
 * the device (fills and seeded random values by built-in kernels, files by copy).
 * Checkpoints keep device copies of written buffers (host copies when the device is full)
 * for skip_graph_compare().
 */
#define SK_LOG_DOMAIN "runtime"
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_internal.h"

/* ---- modules and kernels --------------------------------------------------------------------- */

static int load_modules(struct skip_graph *g, struct sk_cuda *c)
{
	CUresult r;

	r = sk_drv.module_load_data(&c->builtin, sk_builtin_ptx);
	if (r != CUDA_SUCCESS)
		return sk_cu_fail(r, "loading the runtime's built-in kernels (PTX JIT)");
	for (int i = 0; i < SK_NBUILTINS; i++)
		if ((r = sk_drv.module_get_function(&c->fn[i], c->builtin, sk_builtin_names[i])))
			return sk_cu_fail(r, "built-in kernels");
	c->mods = calloc((size_t)g->nmodules + 1, sizeof(CUmodule));
	if (!c->mods)
		return sk_fail(SKIP_E_NOMEM, "out of memory");
	for (int i = 0; i < g->nmodules; i++) {
		char *image; /* NUL-terminated, as PTX images must be */
		int err = skip_read_file(g->modules[i], SIZE_MAX, &image, NULL);

		if (err)
			return sk_fail(err, "%s: cannot %s the module: %s", g->modules[i],
				       err == SKIP_E_NOTFOUND ? "open" : "read", strerror(errno));
		r = sk_drv.module_load_data(&c->mods[i], image);
		free(image);
		if (r != CUDA_SUCCESS)
			return sk_cu_fail(r, "%s: loading the module (is it built for this GPU?)",
					  g->modules[i]);
	}
	return 0;
}

static int resolve_kernel(struct skip_graph *g, struct sk_cuda *c, struct sk_task *t)
{
	CUresult r = CUDA_SUCCESS;
	CUfunction f = NULL;
	cudaFunction_t rf = NULL;
	cudaError_t e;

	switch (t->kernel.kind) {
	case SKIP_KERNEL_MODULE:
		r = sk_drv.module_get_function(&f, c->mods[t->kernel.module], t->kernel.name);
		if (r != CUDA_SUCCESS)
			return sk_cu_fail(r, "task '%s': kernel '%s' in %s", t->name,
					  t->kernel.name, g->modules[t->kernel.module]);
		t->fn = f;
		break;
	case SKIP_KERNEL_FUNCTION:
		t->fn = t->kernel.function;
		break;
	case SKIP_KERNEL_SYMBOL:
		e = cudaGetFuncBySymbol(&rf, t->kernel.symbol);
		if (e != cudaSuccess)
			return sk_cuda_fail(e, "task '%s': kernel symbol", t->name);
		t->fn = rf; /* cudaFunction_t and CUfunction are the same type */
		break;
	}
	if (t->shared_bytes > 48 * 1024)
		r = sk_drv.func_set_attribute((CUfunction)t->fn,
					      CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
					      (int)t->shared_bytes);
	return r == CUDA_SUCCESS ? 0
				 : sk_cu_fail(r, "task '%s': %u bytes of shared memory", t->name,
					      t->shared_bytes);
}

/* Where the driver can tell, the kernel's parameter count and sizes must match the task's.
 * cuFuncGetParamInfo answers CUDA_ERROR_INVALID_VALUE past the last parameter; any other
 * failure on the first one means it cannot tell (an old driver, an old cubin): no check. */
static int check_params(const struct sk_task *t)
{
	size_t off, size;
	CUresult r = CUDA_SUCCESS;
	int n = 0;

	if (!sk_drv.func_get_param_info)
		return 0;
	while (n <= t->nargs && (r = sk_drv.func_get_param_info((CUfunction)t->fn, (size_t)n, &off,
								&size)) == CUDA_SUCCESS) {
		if (n < t->nargs && size != t->args[n].size)
			return sk_fail(SKIP_E_INVAL,
				       "task '%s': argument %d is %zu bytes; the kernel's "
				       "parameter %d is %zu bytes",
				       t->name, n, t->args[n].size, n, size);
		n++;
	}
	if (n == 0 && r != CUDA_SUCCESS && r != CUDA_ERROR_INVALID_VALUE)
		return 0;
	if (n != t->nargs)
		return sk_fail(SKIP_E_INVAL, "task '%s': %d arguments given; the kernel takes %s%d",
			       t->name, t->nargs, n > t->nargs ? "more than " : "",
			       n > t->nargs ? t->nargs : n);
	return 0;
}

static int layout_args(struct skip_graph *g, struct sk_task *t)
{
	size_t off = 0;

	t->params = calloc((size_t)t->nargs + 1, sizeof(void *));
	t->argblob = malloc((size_t)t->nargs * (SK_MAX_ARG_BYTES + 16) + 16);
	if (!t->params || !t->argblob)
		return sk_fail(SKIP_E_NOMEM, "out of memory");
	for (int i = 0; i < t->nargs; i++) {
		const struct sk_arg *a = &t->args[i];
		unsigned char *dst = t->argblob + off;

		if (a->kind == SKIP_ARG_BUFFER) {
			char *p = (char *)g->bufs[a->buffer].dptr + a->offset;

			memcpy(dst, &p, sizeof(p));
		} else {
			memcpy(dst, a->value, a->size);
		}
		t->params[i] = dst;
		off += (a->size + 15) / 16 * 16; /* keep every value 16-byte aligned */
	}
	return 0;
}

/* ---- load / unload --------------------------------------------------------------------------- */

static int alloc_buffers(struct skip_graph *g)
{
	for (int i = 0; i < g->nbufs; i++) {
		struct sk_buffer *b = &g->bufs[i];
		cudaError_t e;

		if (b->registered)
			continue;
		e = cudaMalloc(&b->dptr, b->size);
		if (e != cudaSuccess) {
			b->dptr = NULL;
			return sk_cuda_fail(e, "buffer '%s': allocating %zu bytes", b->name,
					    b->size);
		}
	}
	return 0;
}

int skip_graph_load(struct skip_graph *g, int device)
{
	struct sk_cuda *c;
	cudaError_t e;
	int err;

	if (!g || !g->finalized)
		return sk_fail(SKIP_E_INVAL, "load: finalize the graph first");
	if (g->cuda)
		return sk_fail(SKIP_E_INVAL, "load: the graph is already loaded");
	if ((err = sk_cuda_init(device)))
		return err;
	c = calloc(1, sizeof(*c));
	if (!c)
		return sk_fail(SKIP_E_NOMEM, "out of memory");
	c->device = device;
	g->cuda = c;
	g->unload = sk_cuda_unload;
	e = cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking);
	if (e == cudaSuccess)
		e = cudaMalloc((void **)&c->dres, 2 * sizeof(unsigned long long));
	if (e != cudaSuccess)
		err = sk_cuda_fail(e, "load");
	if (!err)
		err = load_modules(g, c);
	if (!err)
		err = alloc_buffers(g);
	for (int i = 0; i < g->ntasks && !err; i++) {
		err = resolve_kernel(g, c, &g->tasks[i]);
		if (!err)
			err = check_params(&g->tasks[i]);
		if (!err)
			err = layout_args(g, &g->tasks[i]);
	}
	if (err)
		sk_cuda_unload(g);
	return err;
}

void sk_cuda_unload(struct skip_graph *g)
{
	struct sk_cuda *c = g->cuda;

	if (!c)
		return;
	cudaSetDevice(c->device);
	cudaDeviceSynchronize();
	for (int i = 0; i < g->nbufs; i++) {
		if (!g->bufs[i].registered && g->bufs[i].dptr)
			cudaFree(g->bufs[i].dptr);
		if (!g->bufs[i].registered)
			g->bufs[i].dptr = NULL;
	}
	for (int i = 0; i < g->ntasks; i++) {
		free(g->tasks[i].params);
		free(g->tasks[i].argblob);
		g->tasks[i].params = NULL;
		g->tasks[i].argblob = NULL;
		g->tasks[i].fn = NULL;
	}
	for (int i = 0; c->mods && i < g->nmodules; i++)
		if (c->mods[i])
			sk_drv.module_unload(c->mods[i]);
	if (c->builtin)
		sk_drv.module_unload(c->builtin);
	if (c->stream)
		cudaStreamDestroy(c->stream);
	if (c->dres)
		cudaFree(c->dres);
	free(c->mods);
	free(c);
	g->cuda = NULL;
	g->unload = NULL;
}
