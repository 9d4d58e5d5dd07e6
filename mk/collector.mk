# collector/ -> $(O)/libskip_collector.so, loaded by CUDA through CUDA_INJECTION64_PATH.
# It exports only InitializeInjection and InitializeInjectionNvtx2 (collector/exports.map).
COLLECTOR_SRCS := $(wildcard collector/*.c)
COLLECTOR_OBJS := $(COLLECTOR_SRCS:%.c=$(O)/obj/%.o)
COLLECTOR_LIB := $(O)/libskip_collector.so
COLLECTOR_AR := $(O)/libskip_collector_core.a

ifeq ($(HAVE_CUDA),1)
$(COLLECTOR_OBJS): EXTRA_CFLAGS += -I$(CUDA_INC) -Icollector

$(COLLECTOR_LIB): $(COLLECTOR_OBJS) $(COMMON_LIB) collector/exports.map
	@echo "  LD      $@"
	$(Q)$(CC) -shared -o $@ $(COLLECTOR_OBJS) $(COMMON_LIB) $(ALL_LDFLAGS) \
		-Wl,--no-undefined -Wl,--version-script=collector/exports.map \
		-L$(CUDA_LIB) -Wl,-rpath,$(CUDA_LIB) -Wl,-rpath,$(CUDA_HOME)/extras/CUPTI/lib64 \
		-lcupti -lsqlite3 -lstdc++ -lpthread -ldl -lm

# The same objects without the injection entry points, for the unit tests.
$(COLLECTOR_AR): $(filter-out $(O)/obj/collector/inject.o,$(COLLECTOR_OBJS))
	$(Q)rm -f $@ && $(AR) rcs $@ $^

# The --torch-ops shim lives next to the collector: $(O)/python/sitecustomize.py.
$(O)/python/sitecustomize.py: collector/python/sitecustomize.py
	@mkdir -p $(@D)
	$(Q)cp $< $@

TARGETS += $(COLLECTOR_LIB) $(O)/python/sitecustomize.py
endif
