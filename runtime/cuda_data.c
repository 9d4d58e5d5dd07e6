/*
 * cuda_data.c: buffer contents on the device. skip_graph_reset() writes the initial contents
 * (zeros by memset, constants and seeded random values by the built-in kernels, files by
 * copy); checkpoints keep copies of the written buffers (on the device, or on the host when
 * the device has no room) and skip_graph_compare() checks the current contents against one.
 */
#define SK_LOG_DOMAIN "runtime"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bf16.h"
#include "cuda_internal.h"

/* The 8-byte pattern that repeats @value as an element of @dt. */
static unsigned long long const_pattern(enum skip_dtype dt, double value)
{
	unsigned long long pat = 0;
	size_t es = sk_dtype_size(dt);
	unsigned char elem[8];
	float f = (float)value;
	int32_t i32 = (int32_t)value;
	int64_t i64 = (int64_t)value;
	uint8_t u8 = (uint8_t)value;
	uint16_t bf = sk_bf16_from_float(f);

	switch (dt) {
	case SKIP_DT_BF16:
		memcpy(elem, &bf, 2);
		break;
	case SKIP_DT_F32:
		memcpy(elem, &f, 4);
		break;
	case SKIP_DT_F64:
		memcpy(elem, &value, 8);
		break;
	case SKIP_DT_I32:
	case SKIP_DT_U32:
		memcpy(elem, &i32, 4);
		break;
	case SKIP_DT_I64:
	case SKIP_DT_U64:
		memcpy(elem, &i64, 8);
		break;
	default:
		elem[0] = u8;
		break;
	}
	for (size_t k = 0; k < 8; k++)
		pat |= (unsigned long long)elem[k % es] << (8 * k);
	return pat;
}

static int reset_from_file(struct sk_cuda *c, struct sk_buffer *b)
{
	FILE *f = fopen(b->init.path, "rb");
	char *host = malloc(b->size);
	size_t got = 0;
	cudaError_t e;

	if (!f || !host) {
		free(host);
		if (f)
			fclose(f);
		return f ? sk_fail(SKIP_E_NOMEM, "out of memory")
			 : sk_fail(SKIP_E_NOTFOUND, "buffer '%s': cannot open %s: %m", b->name,
				   b->init.path);
	}
	got = fread(host, 1, b->size, f);
	fclose(f);
	if (got != b->size) {
		free(host);
		return sk_fail(SKIP_E_IO, "buffer '%s': %s has %zu bytes, %zu needed", b->name,
			       b->init.path, got, b->size);
	}
	e = cudaMemcpyAsync(b->dptr, host, b->size, cudaMemcpyHostToDevice, c->stream);
	if (e == cudaSuccess)
		e = cudaStreamSynchronize(c->stream);
	free(host);
	return e == cudaSuccess ? 0
				: sk_cuda_fail(e, "buffer '%s': copying %s", b->name, b->init.path);
}

static int reset_buffer(struct sk_cuda *c, struct sk_buffer *b)
{
	size_t n = b->size / sk_dtype_size(b->dtype);
	unsigned long long pat, seed = b->init.seed;
	int dt = (int)b->dtype;
	cudaError_t e;

	switch (b->init.kind) {
	case SKIP_INIT_NONE:
		return 0;
	case SKIP_INIT_ZERO:
		e = cudaMemsetAsync(b->dptr, 0, b->size, c->stream);
		return e == cudaSuccess ? 0 : sk_cuda_fail(e, "buffer '%s': memset", b->name);
	case SKIP_INIT_CONST: {
		void *params[] = {&b->dptr, &b->size, &pat};

		pat = const_pattern(b->dtype, b->init.value);
		return sk_cuda_launch_builtin(c, c->fn[SK_BUILTIN_FILL], b->size / 8 + 1, params);
	}
	case SKIP_INIT_RANDOM: {
		void *params[] = {&b->dptr, &n, &dt, &seed, &b->init.lo, &b->init.hi};

		return sk_cuda_launch_builtin(c, c->fn[SK_BUILTIN_RANDOM], n, params);
	}
	case SKIP_INIT_FILE:
		return reset_from_file(c, b);
	}
	return 0;
}

int skip_graph_reset(struct skip_graph *g)
{
	struct sk_cuda *c = g ? g->cuda : NULL;
	cudaError_t e;
	int err = 0;

	if (!c)
		return sk_fail(SKIP_E_INVAL, "reset: the graph is not loaded");
	cudaSetDevice(c->device);
	for (int i = 0; i < g->nbufs && !err; i++)
		err = reset_buffer(c, &g->bufs[i]);
	e = cudaStreamSynchronize(c->stream);
	if (!err && e != cudaSuccess)
		err = sk_cuda_fail(e, "reset");
	return err;
}

/* ---- checkpoints ----------------------------------------------------------------------------- */

struct skip_checkpoint {
	int nbufs;
	void **copy;  /* [nbufs] NULL for buffers no task writes */
	int *on_host; /* [nbufs] copy is host memory */
};

void skip_checkpoint_free(struct skip_checkpoint *cp)
{
	if (!cp)
		return;
	for (int i = 0; i < cp->nbufs; i++) {
		if (cp->copy[i] && cp->on_host[i])
			free(cp->copy[i]);
		else if (cp->copy[i])
			cudaFree(cp->copy[i]);
	}
	free(cp->copy);
	free(cp->on_host);
	free(cp);
}

/* On the graph's stream: a device-to-device cudaMemcpy may return before the copy is done,
 * and the next reset (on that stream) must not overwrite the buffer under it. */
static int copy_out(struct sk_cuda *c, struct skip_checkpoint *cp, int i, const struct sk_buffer *b)
{
	cudaError_t e = cudaMalloc(&cp->copy[i], b->size);
	enum cudaMemcpyKind kind = cudaMemcpyDeviceToDevice;

	if (e != cudaSuccess) {
		cudaGetLastError(); /* out of device memory: keep the copy on the host */
		cp->copy[i] = malloc(b->size);
		if (!cp->copy[i])
			return sk_fail(SKIP_E_NOMEM, "checkpoint of '%s': out of memory", b->name);
		cp->on_host[i] = 1;
		kind = cudaMemcpyDeviceToHost;
	}
	e = cudaMemcpyAsync(cp->copy[i], b->dptr, b->size, kind, c->stream);
	if (e == cudaSuccess)
		e = cudaStreamSynchronize(c->stream);
	return e == cudaSuccess ? 0 : sk_cuda_fail(e, "checkpoint of '%s'", b->name);
}

int skip_graph_checkpoint(struct skip_graph *g, struct skip_checkpoint **out)
{
	struct skip_checkpoint *cp;
	int err = 0;

	*out = NULL;
	if (!g || !g->cuda)
		return sk_fail(SKIP_E_INVAL, "checkpoint: the graph is not loaded");
	cudaSetDevice(g->cuda->device);
	cp = calloc(1, sizeof(*cp));
	if (!cp || !(cp->copy = calloc((size_t)g->nbufs + 1, sizeof(void *))) ||
	    !(cp->on_host = calloc((size_t)g->nbufs + 1, sizeof(int)))) {
		skip_checkpoint_free(cp);
		return sk_fail(SKIP_E_NOMEM, "out of memory");
	}
	cp->nbufs = g->nbufs;
	for (int i = 0; i < g->nbufs && !err; i++)
		if (g->bufs[i].written)
			err = copy_out(g->cuda, cp, i, &g->bufs[i]);
	if (err) {
		skip_checkpoint_free(cp);
		return err;
	}
	*out = cp;
	return 0;
}

/* ---- comparison ------------------------------------------------------------------------------ */

static double elem_value(enum skip_dtype dt, const void *p)
{
	switch (dt) {
	case SKIP_DT_BF16:
		return sk_bf16_to_float(*(const uint16_t *)p);
	case SKIP_DT_F32:
		return *(const float *)p;
	case SKIP_DT_F64:
		return *(const double *)p;
	case SKIP_DT_I32:
		return *(const int32_t *)p;
	case SKIP_DT_U32:
		return *(const uint32_t *)p;
	case SKIP_DT_I64:
		return (double)*(const int64_t *)p;
	case SKIP_DT_U64:
		return (double)*(const uint64_t *)p;
	default:
		return *(const uint8_t *)p;
	}
}

static int elems_match(const struct sk_buffer *b, const void *x, const void *y)
{
	double a, c;

	if (b->dtype != SKIP_DT_F32 && b->dtype != SKIP_DT_F64 && b->dtype != SKIP_DT_BF16)
		return !memcmp(x, y, sk_dtype_size(b->dtype));
	a = elem_value(b->dtype, x);
	c = elem_value(b->dtype, y);
	if (isnan(a) || isnan(c))
		return isnan(a) && isnan(c);
	return a == c || fabs(a - c) <= b->atol + b->rtol * fabs(c);
}

/* Host comparison, for checkpoints that did not fit on the device. */
static int compare_host(const struct sk_buffer *b, const void *ref, unsigned long long res[2])
{
	size_t es = sk_dtype_size(b->dtype), n = b->size / es;
	char *cur = malloc(b->size);
	cudaError_t e;

	if (!cur)
		return sk_fail(SKIP_E_NOMEM, "out of memory");
	e = cudaMemcpy(cur, b->dptr, b->size, cudaMemcpyDeviceToHost);
	if (e != cudaSuccess) {
		free(cur);
		return sk_cuda_fail(e, "comparing '%s'", b->name);
	}
	res[0] = 0;
	res[1] = ~0ULL;
	for (size_t i = 0; i < n; i++)
		if (!elems_match(b, cur + i * es, (const char *)ref + i * es) && !res[0]++)
			res[1] = i;
	free(cur);
	return 0;
}

static int compare_device(struct sk_cuda *c, const struct sk_buffer *b, const void *ref,
			  unsigned long long res[2])
{
	size_t n = b->size / sk_dtype_size(b->dtype);
	int dt = (int)b->dtype, err;
	double rtol = b->rtol, atol = b->atol;
	void *dptr = b->dptr, *params[] = {&dptr, &ref, &n, &dt, &rtol, &atol, &c->dres};
	cudaError_t e;

	res[0] = 0;
	res[1] = ~0ULL;
	e = cudaMemcpyAsync(c->dres, res, 2 * sizeof(*res), cudaMemcpyHostToDevice, c->stream);
	if (e != cudaSuccess)
		return sk_cuda_fail(e, "comparing '%s'", b->name);
	if ((err = sk_cuda_launch_builtin(c, c->fn[SK_BUILTIN_COMPARE], n, params)))
		return err;
	e = cudaMemcpyAsync(res, c->dres, 2 * sizeof(*res), cudaMemcpyDeviceToHost, c->stream);
	if (e == cudaSuccess)
		e = cudaStreamSynchronize(c->stream);
	return e == cudaSuccess ? 0 : sk_cuda_fail(e, "comparing '%s'", b->name);
}

static int describe_mismatch(const struct sk_buffer *b, const void *ref, int ref_on_host,
			     const unsigned long long res[2], int nbad)
{
	size_t es = sk_dtype_size(b->dtype), n = b->size / es;
	unsigned char x[8] = {0}, y[8] = {0};
	enum cudaMemcpyKind kind = ref_on_host ? cudaMemcpyHostToHost : cudaMemcpyDeviceToHost;

	cudaMemcpy(x, (char *)b->dptr + res[1] * es, es, cudaMemcpyDeviceToHost);
	cudaMemcpy(y, (const char *)ref + res[1] * es, es, kind);
	return sk_fail(1,
		       "buffer '%s': %llu of %zu elements differ from the reference (first at "
		       "[%llu]: %.9g, expected %.9g)%s",
		       b->name, res[0], n, res[1], elem_value(b->dtype, x), elem_value(b->dtype, y),
		       nbad > 1 ? "; other buffers differ too" : "");
}

int skip_graph_compare(struct skip_graph *g, const struct skip_checkpoint *cp)
{
	int nbad = 0, first = -1, err = 0;
	unsigned long long res[2], first_res[2] = {0, 0};

	if (!g || !g->cuda || !cp || cp->nbufs != g->nbufs)
		return sk_fail(
		    SKIP_E_INVAL,
		    "compare: the graph is not loaded or the checkpoint is another graph's");
	cudaSetDevice(g->cuda->device);
	for (int i = 0; i < g->nbufs && !err; i++) {
		const struct sk_buffer *b = &g->bufs[i];

		if (!cp->copy[i])
			continue;
		err = cp->on_host[i] ? compare_host(b, cp->copy[i], res)
				     : compare_device(g->cuda, b, cp->copy[i], res);
		if (!err && res[0] && !nbad++) {
			first = i;
			memcpy(first_res, res, sizeof(res));
		}
	}
	if (err)
		return err;
	if (!nbad)
		return 0;
	describe_mismatch(&g->bufs[first], cp->copy[first], cp->on_host[first], first_res, nbad);
	return 1;
}
