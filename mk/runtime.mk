# runtime/ -> two static libraries:
#   $(O)/libskip_taskgraph.a  the CPU half: graphs, DAGs, plans and their JSON, stream
#                             assignment, workload files and expressions, and the executors
#                             (runtime/exec.c, runtime/exec/*.c) with what they launch
#                             (runtime/launches.c). No CUDA: compiled without its headers, and
#                             $(O)/tests/check_taskgraph links it alone with --no-undefined.
#   $(O)/libskip_runtime.a    the whole runtime: those objects plus the CUDA half
#                             (runtime/cuda_*.c: memory, data, probes, the GPU device the
#                             executors drive) or, without the toolkit, runtime/nocuda.c.
# The advisor needs only the first; `skip` and the DAG suite link the second.
#
# With the CUDA toolkit, the CUDA half reaches CUDA through the statically linked runtime
# (RUNTIME_LDLIBS: -lcudart_static, never libcuda or the dynamic cudart, so `skip` starts on
# machines without a driver), and the runtime's own kernels (runtime/builtin.cu) are embedded
# as PTX.
#
# Also here: the runtime's unit tests ($(O)/tests/test_runtime, CPU only, on the first library)
# and the DAG suite (bench/dags: one module per DAG in $(O)/dags/*.fatbin and the driver
# $(O)/dags/dagbench).
RUNTIME_CUDA_SRCS := $(wildcard runtime/cuda_*.c)
TASKGRAPH_SRCS := $(filter-out $(RUNTIME_CUDA_SRCS) runtime/nocuda.c,\
	$(wildcard runtime/*.c runtime/exec/*.c))
TASKGRAPH_OBJS := $(TASKGRAPH_SRCS:%.c=$(O)/obj/%.o)
TASKGRAPH_LIB := $(O)/libskip_taskgraph.a
RUNTIME_LIB := $(O)/libskip_runtime.a

$(TASKGRAPH_OBJS): EXTRA_CFLAGS += -Iruntime

ifeq ($(HAVE_CUDA),1)
RUNTIME_DEV_OBJS := $(RUNTIME_CUDA_SRCS:%.c=$(O)/obj/%.o) $(O)/obj/gen/runtime_builtin_ptx.o
RUNTIME_LDLIBS := -L$(CUDA_LIB) -lcudart_static -lrt -ldl -lpthread
$(RUNTIME_DEV_OBJS): EXTRA_CFLAGS += -Iruntime -isystem $(CUDA_INC) -DSKIP_HAVE_CUDA=1

# The built-in kernels as PTX text (JIT-compiled by the driver at load; any GPU >= sm_90).
$(O)/gen/runtime_builtin.ptx: runtime/builtin.cu runtime/bf16.h
	@mkdir -p $(@D)
	@echo "  NVCC    $<"
	$(Q)$(NVCC) -ptx -arch=compute_90 -O3 -o $@ $<

$(O)/gen/runtime_builtin_ptx.c: $(O)/gen/runtime_builtin.ptx mk/embed.sh
	$(Q)sh mk/embed.sh sk_builtin_ptx $< > $@
else
RUNTIME_DEV_OBJS := $(O)/obj/runtime/nocuda.o
RUNTIME_LDLIBS :=
$(RUNTIME_DEV_OBJS): EXTRA_CFLAGS += -Iruntime
endif
RUNTIME_OBJS := $(TASKGRAPH_OBJS) $(RUNTIME_DEV_OBJS)

$(TASKGRAPH_LIB): $(TASKGRAPH_OBJS)
	@echo "  AR      $@"
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(RUNTIME_LIB): $(RUNTIME_OBJS)
	@echo "  AR      $@"
	$(Q)rm -f $@ && $(AR) rcs $@ $^

# The CPU half stands alone: every object of it in one shared object with nothing undefined
# but common's, the C library's and cJSON's (a CUDA symbol would fail the link).
$(O)/tests/check_taskgraph.so: $(TASKGRAPH_LIB) $(COMMON_LIB)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) -shared -o $@ -Wl,--no-undefined -Wl,--whole-archive $(TASKGRAPH_LIB) \
		-Wl,--no-whole-archive $(COMMON_LIB) $(ALL_LDFLAGS) $(LIBS)

TARGETS += $(TASKGRAPH_LIB) $(RUNTIME_LIB) $(O)/tests/check_taskgraph.so

# ---- unit tests (CPU only: graphs, plans, workloads, the executors on the recording device,
# the window scheduler on threads): linked with the CPU half alone -------------------------------
TEST_RUNTIME_SRCS := $(wildcard tests/unit/runtime/*.c)
$(TEST_RUNTIME_SRCS:%.c=$(O)/obj/%.o): EXTRA_CFLAGS += -I. -Iruntime

$(O)/tests/test_runtime: $(TEST_RUNTIME_SRCS:%.c=$(O)/obj/%.o) $(TASKGRAPH_LIB) $(COMMON_LIB)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) -o $@ $^ $(ALL_LDFLAGS) $(TEST_LDLIBS)
TEST_BINS += $(O)/tests/test_runtime

# ---- the DAG suite (bench/dags) -----------------------------------------------------------------
# Each bench/dags/kernels/NAME.cu becomes $(O)/dags/NAME.fatbin (SASS for sm_90 plus PTX), the
# module bench/dags/NAME.json names. The driver compiles the same kernels into itself for the
# hand-written multi-stream references (bench/dags/hand/*.cu) and links the runtime.
ifeq ($(HAVE_CUDA),1)
DAG_KERNELS := $(wildcard bench/dags/kernels/*.cu)
DAG_MODULES := $(DAG_KERNELS:bench/dags/kernels/%.cu=$(O)/dags/%.fatbin)
DAG_BENCH_SRCS := $(wildcard bench/dags/*.cu) $(wildcard bench/dags/hand/*.cu)
DAG_BENCH_OBJS := $(DAG_BENCH_SRCS:%.cu=$(O)/obj/%.o)
DAG_NVCC := $(NVCC) $(NVCC_ARCH) -gencode=arch=compute_90,code=compute_90 -O3 -std=c++17

# The task header compiles E5's worker (runtime/persist_core.c) into every module.
TASK_HDRS := runtime/skip_task.cuh runtime/persist.h runtime/persist_core.c

$(O)/dags/%.fatbin: bench/dags/kernels/%.cu bench/dags/kernels/common.cuh $(TASK_HDRS)
	@mkdir -p $(@D)
	@echo "  NVCC    $<"
	$(Q)$(DAG_NVCC) -Iruntime -fatbin -o $@ $<

# Modules of the GPU tests (tests/gpu/modules), next to the DAG modules.
GPU_TEST_MODULES := $(patsubst tests/gpu/modules/%.cu,$(O)/dags/%.fatbin,\
	$(wildcard tests/gpu/modules/*.cu))
$(O)/dags/%.fatbin: tests/gpu/modules/%.cu $(TASK_HDRS)
	@mkdir -p $(@D)
	@echo "  NVCC    $<"
	$(Q)$(DAG_NVCC) -Iruntime -fatbin -o $@ $<
GPU_TARGETS += $(GPU_TEST_MODULES)

$(O)/obj/bench/dags/%.o: bench/dags/%.cu $(wildcard bench/dags/*.h bench/dags/kernels/*.cu*) bench/driver.h \
		runtime/skip_runtime.h $(TASK_HDRS) | $(DEPS_BUILD)
	@mkdir -p $(@D)
	@echo "  NVCC    $<"
	$(Q)$(DAG_NVCC) -Ibench/dags -Iruntime -Icommon $(DEPS_CFLAGS) -c -o $@ $<

$(O)/dags/dagbench: $(DAG_BENCH_OBJS) $(RUNTIME_LIB) $(COMMON_LIB)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) -o $@ $^ $(ALL_LDFLAGS) $(RUNTIME_LDLIBS) $(LIBS) -lstdc++

BENCH_TARGETS += $(DAG_MODULES) $(O)/dags/dagbench
GPU_TARGETS += $(DAG_MODULES) $(O)/dags/dagbench
endif
