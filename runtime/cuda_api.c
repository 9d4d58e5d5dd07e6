/*
 * cuda_api.c: the runtime's door to CUDA. Finds the driver through the statically linked
 * CUDA runtime (no libcuda at link time: `skip` must start on CI machines without a driver),
 * resolves the driver-API functions it needs with cudaGetDriverEntryPointByVersion(), turns
 * CUDA errors into skip errors, and launches kernels with cuLaunchKernelEx so that a launch
 * can carry the programmatic-dependent-launch attribute.
 */
#define SK_LOG_DOMAIN "runtime"
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cuda_internal.h"

struct sk_driver sk_drv;

static pthread_once_t drv_once = PTHREAD_ONCE_INIT;
static int drv_err;
static char drv_msg[256];

int sk_cuda_fail(cudaError_t e, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return sk_fail(SKIP_E_CUDA, "%s: %s (%s)", what, cudaGetErrorString(e),
		       cudaGetErrorName(e));
}

int sk_cu_fail(CUresult r, const char *fmt, ...)
{
	const char *msg = NULL;
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (sk_drv.get_error_string)
		sk_drv.get_error_string(r, &msg);
	return sk_fail(SKIP_E_CUDA, "%s: %s (CUresult %d)", what, msg ? msg : "CUDA driver error",
		       (int)r);
}

static int resolve(const char *sym, void **fn, int required)
{
	enum cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
	cudaError_t e = cudaGetDriverEntryPointByVersion(sym, fn, 12000, cudaEnableDefault, &q);

	if (e == cudaSuccess && q == cudaDriverEntryPointSuccess && *fn)
		return 0;
	*fn = NULL;
	if (!required)
		return 0;
	snprintf(drv_msg, sizeof(drv_msg), "the CUDA driver has no %s (driver too old?)", sym);
	return SKIP_E_CUDA;
}

/* Entry points resolved at CUDA 12.0 ABI; cuFuncGetParamInfo is 12.4 and optional. */
static void resolve_all(void)
{
	int err = 0;

	err |= resolve("cuModuleLoadData", (void **)&sk_drv.module_load_data, 1);
	err |= resolve("cuModuleUnload", (void **)&sk_drv.module_unload, 1);
	err |= resolve("cuModuleGetFunction", (void **)&sk_drv.module_get_function, 1);
	err |= resolve("cuLaunchKernelEx", (void **)&sk_drv.launch_kernel_ex, 1);
	err |= resolve("cuGraphAddKernelNode", (void **)&sk_drv.graph_add_kernel_node, 1);
	err |= resolve("cuFuncSetAttribute", (void **)&sk_drv.func_set_attribute, 1);
	err |= resolve("cuFuncGetAttribute", (void **)&sk_drv.func_get_attribute, 1);
	err |= resolve("cuGetErrorString", (void **)&sk_drv.get_error_string, 1);
	err |= resolve("cuModuleGetGlobal", (void **)&sk_drv.module_get_global, 1);
	err |=
	    resolve("cuOccupancyMaxActiveBlocksPerMultiprocessor", (void **)&sk_drv.occupancy, 1);
	if (cudaGetDriverEntryPointByVersion("cuFuncGetParamInfo",
					     (void **)&sk_drv.func_get_param_info, 12040,
					     cudaEnableDefault, NULL) != cudaSuccess)
		sk_drv.func_get_param_info = NULL;
	drv_err = err ? SKIP_E_CUDA : 0;
}

static int device_count(void)
{
	int n = 0;
	cudaError_t e = cudaGetDeviceCount(&n);

	if (e == cudaErrorNoDevice || (e == cudaSuccess && n == 0))
		return sk_fail(SKIP_E_NODEV, "no CUDA device found");
	if (e == cudaErrorInsufficientDriver || e == cudaErrorStubLibrary)
		return sk_fail(SKIP_E_NODEV, "no usable CUDA driver (%s)", cudaGetErrorString(e));
	if (e != cudaSuccess)
		return sk_fail(SKIP_E_NODEV, "CUDA is not available: %s", cudaGetErrorString(e));
	return n;
}

int sk_cuda_init(int device)
{
	int n = device_count();
	cudaError_t e;

	if (n < 0)
		return n;
	if (device < 0 || device >= n)
		return sk_fail(SKIP_E_NODEV, "no CUDA device %d (%d found)", device, n);
	e = cudaSetDevice(device);
	if (e == cudaSuccess)
		e = cudaFree(NULL); /* create the primary context now */
	if (e != cudaSuccess)
		return sk_cuda_fail(e, "device %d", device);
	pthread_once(&drv_once, resolve_all);
	if (drv_err)
		return sk_fail(drv_err, "%s", drv_msg);
	return 0;
}

int skip_runtime_has_cuda(void)
{
	return 1;
}

int skip_runtime_probe(int device, char *desc, size_t desc_len)
{
	struct cudaDeviceProp prop;
	int err = sk_cuda_init(device), drv = 0;
	cudaError_t e;

	if (err)
		return err;
	e = cudaGetDeviceProperties(&prop, device);
	if (e != cudaSuccess)
		return sk_cuda_fail(e, "cudaGetDeviceProperties");
	cudaDriverGetVersion(&drv);
	if (desc && desc_len)
		snprintf(desc, desc_len, "%s (%d SMs, sm_%d%d, driver %d.%d)", prop.name,
			 prop.multiProcessorCount, prop.major, prop.minor, drv / 1000,
			 drv % 1000 / 10);
	return 0;
}

int sk_cuda_launch(const struct sk_task *t, cudaStream_t stream, int pdl)
{
	CUlaunchAttribute attr;
	CUlaunchConfig cfg;
	CUresult r;

	memset(&cfg, 0, sizeof(cfg));
	cfg.gridDimX = t->grid[0];
	cfg.gridDimY = t->grid[1];
	cfg.gridDimZ = t->grid[2];
	cfg.blockDimX = t->block[0];
	cfg.blockDimY = t->block[1];
	cfg.blockDimZ = t->block[2];
	cfg.sharedMemBytes = t->shared_bytes;
	cfg.hStream = (CUstream)stream;
	if (pdl) {
		memset(&attr, 0, sizeof(attr));
		attr.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
		attr.value.programmaticStreamSerializationAllowed = 1;
		cfg.attrs = &attr;
		cfg.numAttrs = 1;
	}
	r = sk_drv.launch_kernel_ex(&cfg, (CUfunction)t->fn, t->params, NULL);
	return r == CUDA_SUCCESS ? 0 : sk_cu_fail(r, "launching task '%s'", t->name);
}

int sk_cuda_launch_builtin(struct sk_cuda *c, CUfunction fn, size_t n, void **params)
{
	struct sk_task t;
	size_t blocks = (n + 255) / 256;

	memset(&t, 0, sizeof(t));
	t.name = "(built-in)";
	t.fn = fn;
	t.params = params;
	t.grid[0] = (unsigned)(blocks < 1 ? 1 : blocks > 8192 ? 8192 : blocks);
	t.grid[1] = t.grid[2] = t.block[1] = t.block[2] = 1;
	t.block[0] = 256;
	return sk_cuda_launch(&t, c->stream, 0);
}
