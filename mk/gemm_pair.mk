# bench/gemm_pair: the producer/consumer bf16 GEMM pair of cuSync's MLP (issue 16's tile edges):
# the module $(O)/gemm_pair/gemm_pair.fatbin (the task form of bench/gemm_pair/gemm_pair.cu,
# SASS for sm_90 plus PTX), which bench/gemm_pair/mlp.json and mlp_full.json name, and the
# driver $(O)/gemm_pair/gemmbench (CPU reference check, verification across executors, the
# timing table), which links the runtime. Built by `make bench`; bench/gemm_pair/device.sh
# runs it on the GPU machine. Uses DAG_NVCC and TASK_HDRS of mk/runtime.mk.
ifeq ($(HAVE_CUDA),1)
GEMM_PAIR_MODULE := $(O)/gemm_pair/gemm_pair.fatbin

$(GEMM_PAIR_MODULE): bench/gemm_pair/gemm_pair.cu $(TASK_HDRS)
	@mkdir -p $(@D)
	@echo "  NVCC    $<"
	$(Q)$(DAG_NVCC) -Iruntime -fatbin -o $@ $<

$(O)/obj/bench/gemm_pair/gemmbench.o: bench/gemm_pair/gemmbench.cu bench/driver.h runtime/skip_runtime.h \
		runtime/bf16.h bench/check.h | $(DEPS_BUILD)
	@mkdir -p $(@D)
	@echo "  NVCC    $<"
	$(Q)$(DAG_NVCC) -Iruntime -Icommon $(DEPS_CFLAGS) -c -o $@ $<

$(O)/gemm_pair/gemmbench: $(O)/obj/bench/gemm_pair/gemmbench.o $(RUNTIME_LIB) $(COMMON_LIB)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) -o $@ $^ $(ALL_LDFLAGS) $(RUNTIME_LDLIBS) $(LIBS) -lstdc++ -lm

BENCH_TARGETS += $(GEMM_PAIR_MODULE) $(O)/gemm_pair/gemmbench
GPU_TARGETS += $(GEMM_PAIR_MODULE) $(O)/gemm_pair/gemmbench
endif
