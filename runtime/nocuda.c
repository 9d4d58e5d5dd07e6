/*
 * nocuda.c: the device half of the API in a build without the CUDA toolkit. Graphs, plans and
 * workloads still work (they are CPU-only), and so does what the executors would launch
 * (skip_plan_launches()); everything that would touch a GPU says that this build has no
 * executors. Compiled instead of cuda_*.c.
 */
#define SK_LOG_DOMAIN "runtime"
#include "internal.h"

static int unsupported(void)
{
	return sk_fail(SKIP_E_UNSUPPORTED,
		       "this skip was built without the CUDA toolkit: the executors are "
		       "unavailable (rebuild with CUDA_HOME set)");
}

int skip_runtime_has_cuda(void)
{
	return 0;
}

int skip_runtime_probe(int device, char *desc, size_t desc_len)
{
	(void)device;
	if (desc && desc_len)
		desc[0] = '\0';
	return unsupported();
}

int skip_graph_load(struct skip_graph *g, int device)
{
	(void)g;
	(void)device;
	return unsupported();
}

int skip_graph_reset(struct skip_graph *g)
{
	(void)g;
	return unsupported();
}

int skip_graph_checkpoint(struct skip_graph *g, struct skip_checkpoint **out)
{
	(void)g;
	*out = NULL;
	return unsupported();
}

int skip_graph_compare(struct skip_graph *g, const struct skip_checkpoint *cp)
{
	(void)g;
	(void)cp;
	return unsupported();
}

void skip_checkpoint_free(struct skip_checkpoint *cp)
{
	(void)cp;
}

struct skip_exec *skip_exec_new(struct skip_graph *g, const struct skip_plan *p, int *err)
{
	(void)g;
	(void)p;
	*err = unsupported();
	return NULL;
}

int skip_probe_starts(struct skip_graph *g, int starts, int reps, struct skip_start_probe *out)
{
	(void)g;
	(void)starts;
	(void)reps;
	(void)out;
	return unsupported();
}
