# bench/: benchmark programs (run them on a GPU machine; figures go to docs/BENCHMARKS.md).
#   bench/overhead: libskip_floor.so, the CUPTI floor skip's overhead is measured against.
ifeq ($(HAVE_CUDA),1)
$(O)/obj/bench/overhead/floor.o: EXTRA_CFLAGS += -I$(CUDA_INC) -Icollector

$(O)/bench/libskip_floor.so: $(O)/obj/bench/overhead/floor.o $(COLLECTOR_AR) $(COMMON_LIB)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) -shared -o $@ $^ $(ALL_LDFLAGS) -Wl,--no-undefined \
		-L$(CUDA_LIB) -Wl,-rpath,$(CUDA_LIB) -lcupti -lsqlite3 -lstdc++ -lpthread -ldl -lm

BENCH_TARGETS += $(O)/bench/libskip_floor.so $(GPU_APPS)
endif

bench: all $(BENCH_TARGETS)
	@echo "skip: benchmarks built; on a GPU machine run: python3 bench/overhead/overhead.py"

# bench/report_scale: a synthetic 10-million-kernel trace and `skip report` on it.
$(O)/bench/report_scale_gen: $(O)/obj/bench/report_scale/gen.o $(COMMON_LIB)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) -o $@ $^ $(ALL_LDFLAGS) $(LIBS)
BENCH_TARGETS += $(O)/bench/report_scale_gen
