// nvtx_threads: NVTX ranges from two threads, nested, with kernels launched inside them,
// plus a start/end range that ends on another thread, a mark, and a range in a named domain
// with a payload.
//   per thread:  push "outer-T" { kernel; 3 x push "inner" { kernel } pop } pop
//   main:        mark "hello"; domain "skip-test" range "dom-range" (payload 42) { kernel }
//                start "cross" on main, ended by thread 1
#include "common.h"
#include <nvtx3/nvToolsExt.h>
#include <pthread.h>

static float *x;
static nvtxRangeId_t cross;

static void *worker(void *arg)
{
	long t = (long)arg;
	char name[32];

	snprintf(name, sizeof(name), "outer-%ld", t);
	nvtxRangePushA(name);
	add_one<<<4, 256>>>(x, 1024);
	for (int i = 0; i < 3; i++) {
		nvtxRangePushA("inner");
		add_one<<<4, 256>>>(x, 1024);
		nvtxRangePop();
	}
	nvtxRangePop();
	if (t == 1)
		nvtxRangeEnd(cross);
	return NULL;
}

int main(void)
{
	pthread_t th[2];
	nvtxDomainHandle_t dom;
	nvtxEventAttributes_t attr;

	CHECK(cudaMalloc(&x, 1024 * sizeof(float)));
	cross = nvtxRangeStartA("cross");
	nvtxMarkA("hello");
	dom = nvtxDomainCreateA("skip-test");
	memset(&attr, 0, sizeof(attr));
	attr.version = NVTX_VERSION;
	attr.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
	attr.messageType = NVTX_MESSAGE_TYPE_ASCII;
	attr.message.ascii = "dom-range";
	attr.payloadType = NVTX_PAYLOAD_TYPE_UNSIGNED_INT64;
	attr.payload.ullValue = 42;
	attr.colorType = NVTX_COLOR_ARGB;
	attr.color = 0xFF00FF00;
	nvtxDomainRangePushEx(dom, &attr);
	add_one<<<4, 256>>>(x, 1024);
	nvtxDomainRangePop(dom);
	CHECK(cudaDeviceSynchronize());
	for (long t = 0; t < 2; t++)
		pthread_create(&th[t], NULL, worker, (void *)t);
	for (int t = 0; t < 2; t++)
		pthread_join(th[t], NULL);
	CHECK(cudaDeviceSynchronize());
	printf("APP nvtx_threads kernels=9 pushpop_ranges=9 startend_ranges=1 marks=1 "
	       "inner_kernels=6\n");
	return 0;
}
