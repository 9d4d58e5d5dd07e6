# Tests: Criterion unit tests (one binary per part, build/tests/test_<part>), golden CLI tests
# (tests/cli/*.sh) and GPU tests (tests/gpu, `make test-gpu` on a GPU machine).
TEST_COMMON_SRCS := $(wildcard tests/unit/common/*.c)
TEST_COLLECTOR_SRCS := $(wildcard tests/unit/collector/*.c)
TEST_LDLIBS := -lcriterion $(LIBS)

$(O)/obj/tests/%.o: EXTRA_CFLAGS += -I. -Icollector -Icli -Ianalyzer -I$(CUDA_INC) -Itests
$(O)/obj/tests/%.o: | $(DEPS_TEST)

$(O)/tests/test_common: $(TEST_COMMON_SRCS:%.c=$(O)/obj/%.o) $(COMMON_LIB)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) -o $@ $^ $(ALL_LDFLAGS) $(TEST_LDLIBS)
TEST_BINS += $(O)/tests/test_common

ifeq ($(HAVE_CUDA),1)
$(O)/tests/test_collector: $(TEST_COLLECTOR_SRCS:%.c=$(O)/obj/%.o) $(COLLECTOR_AR) $(COMMON_LIB)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) -o $@ $^ $(ALL_LDFLAGS) -L$(CUDA_LIB) -Wl,-rpath,$(CUDA_LIB) -lcupti \
		$(TEST_LDLIBS) -lstdc++
TEST_BINS += $(O)/tests/test_collector
endif

TEST_ANALYZER_SRCS := $(wildcard tests/unit/analyzer/*.c)
$(O)/tests/test_analyzer: $(TEST_ANALYZER_SRCS:%.c=$(O)/obj/%.o) $(ANALYZER_LIB) $(COMMON_LIB)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) -o $@ $^ $(ALL_LDFLAGS) $(TEST_LDLIBS)
TEST_BINS += $(O)/tests/test_analyzer

TEST_ADVISOR_SRCS := $(wildcard tests/unit/advisor/*.c) tests/unit/analyzer/hand.c
# Linked with the runtime's CPU half only: the advisor never reaches the executors' CUDA side.
$(O)/tests/test_advisor: $(TEST_ADVISOR_SRCS:%.c=$(O)/obj/%.o) $(ADVISOR_LIB) $(ANALYZER_LIB) \
		$(TASKGRAPH_LIB) $(COMMON_LIB)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) -o $@ $^ $(ALL_LDFLAGS) $(TEST_LDLIBS)
$(TEST_ADVISOR_SRCS:%.c=$(O)/obj/%.o): EXTRA_CFLAGS += -Iadvisor -Ianalyzer -Iruntime \
	-Itests/unit/analyzer
TEST_BINS += $(O)/tests/test_advisor

TEST_EXPORT_SRCS := $(wildcard tests/unit/export/*.c) tests/unit/analyzer/hand.c
$(O)/tests/test_export: $(TEST_EXPORT_SRCS:%.c=$(O)/obj/%.o) $(EXPORT_LIB) $(ADVISOR_LIB) \
		$(ANALYZER_LIB) $(RUNTIME_LIB) $(COMMON_LIB)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) -o $@ $^ $(ALL_LDFLAGS) $(RUNTIME_LDLIBS) $(TEST_LDLIBS) -lstdc++
$(TEST_EXPORT_SRCS:%.c=$(O)/obj/%.o): EXTRA_CFLAGS += -Inotebooks-export -Iadvisor -Ianalyzer \
	-Iruntime -Itests/unit/analyzer
TEST_BINS += $(O)/tests/test_export

# Every TEST_BINS += must come before this rule: prerequisites expand when it is read.
test-unit: $(TEST_BINS) | $(DEPS_TEST)
	$(Q)for t in $(TEST_BINS); do echo "== $$t"; $$t --jobs=2 || exit 1; done

test-cli: all | $(DEPS_CLI)
	$(Q)SKIP=$(CURDIR)/$(O)/skip O=$(O) sh tests/cli/run.sh

test: all $(DEPS_TEST)
	$(Q)$(MAKE) --no-print-directory format-check
	$(Q)$(MAKE) --no-print-directory test-unit
	$(Q)$(MAKE) --no-print-directory test-cli
	@echo "skip: make test passed"

TEST_GPU_SRCS := $(wildcard tests/gpu/*.c)
$(O)/tests/test_gpu: $(TEST_GPU_SRCS:%.c=$(O)/obj/%.o) $(COMMON_LIB)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) -o $@ $^ $(ALL_LDFLAGS) $(TEST_LDLIBS)

test-gpu: all $(GPU_TARGETS) $(O)/tests/test_gpu
	$(Q)SKIP=$(CURDIR)/$(O)/skip SKIP_APPS=$(CURDIR)/$(O)/apps SKIP_SRC=$(CURDIR) \
		$(O)/tests/test_gpu --jobs=1 --verbose
