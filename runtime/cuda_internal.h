/*
 * cuda_internal.h: shared by the CUDA half of the runtime (cuda_*.c), compiled only with
 * SKIP_HAVE_CUDA. The executors (exec.h) never include it: they reach the GPU through the
 * device of cuda_exec.c.
 *
 * The runtime API comes from libcudart_static; every driver-API function is a pointer in
 * sk_drv, filled once through cudaGetDriverEntryPointByVersion(), so nothing links libcuda
 * and programs start on machines without a driver (the first CUDA call then fails cleanly).
 */
#ifndef SKIP_RUNTIME_CUDA_INTERNAL_H
#define SKIP_RUNTIME_CUDA_INTERNAL_H

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>

#include "internal.h"

struct sk_driver {
	PFN_cuModuleLoadData_v2000 module_load_data;
	PFN_cuModuleUnload_v2000 module_unload;
	PFN_cuModuleGetFunction_v2000 module_get_function;
	PFN_cuLaunchKernelEx_v11060 launch_kernel_ex;
	PFN_cuGraphAddKernelNode_v12000 graph_add_kernel_node;
	PFN_cuFuncSetAttribute_v9000 func_set_attribute;
	PFN_cuFuncGetAttribute_v2020 func_get_attribute;
	PFN_cuFuncGetParamInfo_v12040 func_get_param_info; /* NULL on drivers before 12.4 */
	PFN_cuGetErrorString_v6000 get_error_string;
	PFN_cuModuleGetGlobal_v3020 module_get_global;
	PFN_cuOccupancyMaxActiveBlocksPerMultiprocessor_v6050 occupancy;
};
/* Filled by sk_cuda_init(); read-only afterwards. */
extern struct sk_driver sk_drv;

/* Per graph, after skip_graph_load(). */
struct sk_cuda {
	int device;
	CUmodule *mods;		     /* [g->nmodules] */
	CUmodule builtin;	     /* runtime/builtin.cu */
	CUfunction fn[SK_NBUILTINS]; /* its kernels, by enum sk_builtin */
	cudaStream_t stream;	     /* for resets and comparisons */
	unsigned long long *dres;    /* [2] device scratch: mismatch count, first index */
};

/* Select @device, making sure a driver and the device exist, and resolve sk_drv (once per
 * process). 0, SKIP_E_NODEV or SKIP_E_CUDA, with skip_errmsg() set. Thread-safe. */
int sk_cuda_init(int device);
/* sk_fail(SKIP_E_CUDA, "<what>: <CUDA's message>"); returns SKIP_E_CUDA. */
int sk_cuda_fail(cudaError_t e, const char *fmt, ...) SK_PRINTF(2, 3);
int sk_cu_fail(CUresult r, const char *fmt, ...) SK_PRINTF(2, 3);

/* Release the device state of @g (buffers, modules, functions): g->unload. */
void sk_cuda_unload(struct skip_graph *g);

/* Launch task @t on @stream, with the programmatic-stream-serialization attribute if @pdl. */
int sk_cuda_launch(const struct sk_task *t, cudaStream_t stream, int pdl);
/* Launch one of the built-in kernels with a 1-D grid on the graph's stream. */
int sk_cuda_launch_builtin(struct sk_cuda *c, CUfunction fn, size_t n, void **params);

/* ---- cuda_persist.c: E5 on the GPU ----------------------------------------------------------- */

struct sk_persist_plan;
struct sk_cuda_persist;

/*
 * How E5 would run @g in @mode (enum sk_persist_mode): the worker kernel for the mode of the
 * module every task comes from, its block (the largest task block) into *@nthreads, dynamic
 * shared memory into *@smem and the device's SMs into *@sms; returns how many worker CTAs fit
 * co-resident (occupancy times SMs), or a negative code naming the task that cannot run under E5
 * (another module, no SKIP_TASK entry, a 2-D grid, ...).
 */
int sk_cuda_persist_fit(const struct skip_graph *g, int mode, int *nthreads, unsigned *smem,
			int *sms);
/* E5's state for plan @p of @g on the GPU (device memory, and host-mapped words for errors);
 * @p must outlive it. NULL and *@err. Free with sk_cuda_persist_free(). */
struct sk_cuda_persist *sk_cuda_persist_new(const struct skip_graph *g,
					    const struct sk_persist_plan *p, int *err);
/* @niters iterations on @stream: one cooperative launch, or under AOT the bell of the kernel
 * that stayed resident since an earlier run (a launch when none does). */
int sk_cuda_persist_launch(struct sk_cuda_persist *s, cudaStream_t stream, int niters);
/* Wait for it: 0, the run's error (its message names the task), or SKIP_E_CUDA after a trap
 * or when no tile started for twice the watchdog (a body that never returns). */
int sk_cuda_persist_wait(struct sk_cuda_persist *s, cudaStream_t stream);
/* Let a resident kernel end (after the epochs already rung) and wait for it; 0 when none ran. */
int sk_cuda_persist_park(struct sk_cuda_persist *s);
void sk_cuda_persist_free(struct sk_cuda_persist *s);
/* @s's tile timeline (skip_exec_tile_times()), after a run has been waited for. */
int sk_cuda_persist_tiles(const struct sk_cuda_persist *s, struct skip_tile_time *out, int max);

/* The embedded PTX of runtime/builtin.cu (generated at build time). */
extern const char sk_builtin_ptx[];

#endif /* SKIP_RUNTIME_CUDA_INTERNAL_H */
