# fuzz/ -> coverage-guided fuzz targets (libFuzzer) and their plain replays. fuzz/README.md says
# how to run them longer and how a crash becomes a regression input.
#
#   make fuzz [FUZZ_SECONDS=60]   build the targets with clang into $(FUZZ_O) (every library
#                                 with -fsanitize=fuzzer-no-link,address,undefined, the
#                                 runtime's CPU half only), replay tests/fuzz-regress/, then
#                                 fuzz each target for FUZZ_SECONDS (make -j2 runs two at once)
#   make fuzz-regress             the replay alone
#   make fuzz-clean               remove $(FUZZ_O)
#
# Each target is fuzz/fuzz_<name>.c. Linked with -fsanitize=fuzzer it is $(FUZZ_O)/fuzz/fuzz_<name>;
# linked with fuzz/replay.c (a main() that runs each file argument once) in the ordinary tree it
# is $(O)/fuzz/replay_<name>, which `make test` uses (tests/cli/t_fuzz_regress.sh) without clang.
FUZZ_TARGETS := trace sql workload plan expr calib import
FUZZ_SECONDS ?= 60
# `make check`: seven targets in about two and a half minutes on two cores.
FUZZ_CHECK_SECONDS ?= 20
FUZZ_O ?= $(O)-fuzz
FUZZ_CC ?= clang
FUZZ_SAN := fuzzer-no-link,address,undefined

FUZZ_TRACE_LIBS := $(ADVISOR_LIB) $(ANALYZER_LIB) $(RUNTIME_LIB) $(COMMON_LIB)
FUZZ_LIBS_trace := $(FUZZ_TRACE_LIBS)
FUZZ_LIBS_sql := $(FUZZ_TRACE_LIBS)
FUZZ_LIBS_import := $(IMPORT_LIB) $(FUZZ_TRACE_LIBS)
FUZZ_LIBS_calib := $(CLI_LIBS)
FUZZ_LIBS_workload := $(RUNTIME_LIB) $(COMMON_LIB)
FUZZ_LIBS_plan := $(RUNTIME_LIB) $(COMMON_LIB)
FUZZ_LIBS_expr := $(RUNTIME_LIB) $(COMMON_LIB)
FUZZ_OBJS_trace := $(O)/obj/fuzz/drive.o
FUZZ_OBJS_sql := $(O)/obj/fuzz/drive.o
FUZZ_OBJS_import := $(O)/obj/fuzz/drive.o
# The calibration reader is cmd_advise.c's: the target runs `skip advise` itself, linked with
# the CLI's objects but the hub (skip.c, main()).
FUZZ_OBJS_calib := $(filter-out $(O)/obj/cli/skip.o,$(CLI_OBJS))

$(O)/obj/fuzz/%.o: EXTRA_CFLAGS += -I. -Ifuzz -Ianalyzer -Iadvisor -Iruntime -Icli -Iimport \
	-DFZ_SRCDIR=\"$(CURDIR)\"

# fuzz_rules NAME: the libFuzzer binary and the replay of one target.
define fuzz_rules
$(O)/fuzz/fuzz_$(1): $(O)/obj/fuzz/fuzz_$(1).o $(O)/obj/fuzz/common.o $(FUZZ_OBJS_$(1)) \
		$(FUZZ_LIBS_$(1))
	@mkdir -p $$(@D)
	@echo "  LD      $$@"
	$$(Q)$$(CC) -o $$@ $$(filter %.o,$$^) $(FUZZ_LIBS_$(1)) $$(ALL_LDFLAGS) -fsanitize=fuzzer \
		$$(RUNTIME_LDLIBS) $$(LIBS) -lstdc++

$(O)/fuzz/replay_$(1): $(O)/obj/fuzz/fuzz_$(1).o $(O)/obj/fuzz/common.o $(FUZZ_OBJS_$(1)) \
		$(O)/obj/fuzz/replay.o $(FUZZ_LIBS_$(1))
	@mkdir -p $$(@D)
	@echo "  LD      $$@"
	$$(Q)$$(CC) -o $$@ $$(filter %.o,$$^) $(FUZZ_LIBS_$(1)) $$(ALL_LDFLAGS) \
		$$(RUNTIME_LDLIBS) $$(LIBS) -lstdc++
endef
$(foreach t,$(FUZZ_TARGETS),$(eval $(call fuzz_rules,$(t))))

# The replays are part of the CLI tests (tests/cli/t_fuzz_regress.sh).
FUZZ_REPLAYS := $(FUZZ_TARGETS:%=$(O)/fuzz/replay_%)
test-cli: $(FUZZ_REPLAYS)

FUZZ_BINS := $(FUZZ_TARGETS:%=$(FUZZ_O)/fuzz/fuzz_%)

.PHONY: fuzz fuzz-build fuzz-regress fuzz-clean $(FUZZ_TARGETS:%=fuzz-run-%)

# The fuzz tree: clang, the sanitizers with fuzzer coverage, no CUDA (nothing here needs a GPU),
# and no -Werror (a clang warning the project's compiler does not give must not stop fuzzing).
fuzz-build:
	$(Q)CC=$(FUZZ_CC) sh mk/deps.sh ensure build fuzz
	$(Q)$(MAKE) --no-print-directory O=$(FUZZ_O) FUZZ_O=$(FUZZ_O) CC=$(FUZZ_CC) HAVE_CUDA=0 \
		SAN="$(FUZZ_SAN)" WERROR=0 $(FUZZ_BINS)

fuzz-regress: fuzz-build
	$(Q)FUZZ_BINDIR=$(FUZZ_O)/fuzz FUZZ_PREFIX=fuzz_ sh tests/cli/t_fuzz_regress.sh

$(FUZZ_TARGETS:%=fuzz-run-%): fuzz-run-%: fuzz-build fuzz-regress
	$(Q)sh fuzz/run.sh $* $(FUZZ_O) $(FUZZ_SECONDS)

fuzz: $(FUZZ_TARGETS:%=fuzz-run-%)
	@echo "skip: make fuzz passed ($(words $(FUZZ_TARGETS)) targets, $(FUZZ_SECONDS) s each)"

fuzz-clean:
	rm -rf $(FUZZ_O)
