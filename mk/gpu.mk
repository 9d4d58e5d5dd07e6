# GPU programs: bench/apps/*.cu (small bundled workloads, also the GPU tests' subjects).
# Built with nvcc for Hopper (sm_90); nothing here runs without a GPU.
GPU_APP_SRCS := $(wildcard bench/apps/*.cu)
GPU_APPS := $(GPU_APP_SRCS:bench/apps/%.cu=$(O)/apps/%)

ifeq ($(HAVE_CUDA),1)
$(O)/apps/%: bench/apps/%.cu bench/apps/common.h
	@mkdir -p $(@D)
	@echo "  NVCC    $<"
	$(Q)$(NVCC) $(NVCC_ARCH) -O2 -std=c++17 -Ibench/apps -I$(CUDA_INC) -o $@ $< \
		-lcuda -lcublas -lpthread $(NVCC_LIBS_$(*F))

GPU_TARGETS += $(GPU_APPS)
endif
