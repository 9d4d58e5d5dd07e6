# runtime/ -> $(O)/libskip_runtime.a (task graphs, plans, workloads, executors E1-E4).
#
# With the CUDA toolkit, the executors (runtime/cuda_*.c) reach CUDA through
# the statically linked runtime (RUNTIME_LDLIBS: -lcudart_static, never libcuda or the dynamic
# cudart, so `skip` starts on machines without a driver), and the runtime's own kernels
# (runtime/builtin.cu) are embedded as PTX. Without it, runtime/nocuda.c stands in for them.
#
# Also here: the runtime's unit tests ($(O)/tests/test_runtime, CPU only) and the DAG suite
# (bench/dags: one module per DAG in $(O)/dags/*.fatbin and the driver $(O)/dags/dagbench).
RUNTIME_CUDA_SRCS := $(wildcard runtime/cuda_*.c)
RUNTIME_LIB := $(O)/libskip_runtime.a

ifeq ($(HAVE_CUDA),1)
RUNTIME_SRCS := $(filter-out runtime/nocuda.c,$(wildcard runtime/*.c runtime/exec/*.c))
RUNTIME_OBJS := $(RUNTIME_SRCS:%.c=$(O)/obj/%.o) $(O)/obj/gen/runtime_builtin_ptx.o
RUNTIME_LDLIBS := -L$(CUDA_LIB) -lcudart_static -lrt -ldl -lpthread
$(RUNTIME_OBJS): EXTRA_CFLAGS += -Iruntime -isystem $(CUDA_INC) -DSKIP_HAVE_CUDA=1

# The built-in kernels as PTX text (JIT-compiled by the driver at load; any GPU >= sm_90).
$(O)/gen/runtime_builtin.ptx: runtime/builtin.cu
	@mkdir -p $(@D)
	@echo "  NVCC    $<"
	$(Q)$(NVCC) -ptx -arch=compute_90 -O3 -o $@ $<

$(O)/gen/runtime_builtin_ptx.c: $(O)/gen/runtime_builtin.ptx mk/embed.sh
	$(Q)sh mk/embed.sh sk_builtin_ptx $< > $@
else
RUNTIME_SRCS := $(filter-out $(RUNTIME_CUDA_SRCS),$(wildcard runtime/*.c runtime/exec/*.c))
RUNTIME_OBJS := $(RUNTIME_SRCS:%.c=$(O)/obj/%.o)
RUNTIME_LDLIBS :=
$(RUNTIME_OBJS): EXTRA_CFLAGS += -Iruntime
endif

$(RUNTIME_LIB): $(RUNTIME_OBJS)
	@echo "  AR      $@"
	$(Q)rm -f $@ && $(AR) rcs $@ $^

TARGETS += $(RUNTIME_LIB)

# ---- unit tests (CPU only: graphs, plans, workloads, the window scheduler on threads) --------
TEST_RUNTIME_SRCS := $(wildcard tests/unit/runtime/*.c)
$(TEST_RUNTIME_SRCS:%.c=$(O)/obj/%.o): EXTRA_CFLAGS += -I. -Iruntime

$(O)/tests/test_runtime: $(TEST_RUNTIME_SRCS:%.c=$(O)/obj/%.o) $(RUNTIME_LIB) $(COMMON_LIB)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) -o $@ $^ $(ALL_LDFLAGS) $(RUNTIME_LDLIBS) $(TEST_LDLIBS) -lstdc++
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

$(O)/dags/%.fatbin: bench/dags/kernels/%.cu bench/dags/kernels/common.cuh
	@mkdir -p $(@D)
	@echo "  NVCC    $<"
	$(Q)$(DAG_NVCC) -fatbin -o $@ $<

$(O)/obj/bench/dags/%.o: bench/dags/%.cu $(wildcard bench/dags/*.h bench/dags/kernels/*.cu*) \
		runtime/skip_runtime.h | $(DEPS_BUILD)
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
