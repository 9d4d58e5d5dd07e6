# skip: top-level Makefile. `make help` lists the targets.
#
# Out-of-tree builds: everything goes under $(O) (default build/). Each part adds its rules in
# mk/<part>.mk. Missing Debian packages are installed by mk/deps.sh when running as root with
# apt, otherwise it prints the command to run. Without a CUDA toolkit everything but the
# collector and the GPU programs builds, and one line says so.

O ?= build
PREFIX ?= /usr/local
CUDA_HOME ?= /usr/local/cuda
WERROR ?= 1
SAN ?=
V ?= 0

ifeq ($(V),1)
Q :=
else
Q := @
endif

# A local dependency prefix (.deps/include, .deps/lib) for machines without apt, such as the
# GPU machine; made by mk/devdeps.sh. DT_RPATH (not RUNPATH) so that the libraries those
# link find each other there too.
ifneq ($(wildcard .deps/include),)
DEPS_CFLAGS := -isystem $(CURDIR)/.deps/include
DEPS_LDFLAGS := -L$(CURDIR)/.deps/lib -Wl,-rpath,$(CURDIR)/.deps/lib -Wl,--disable-new-dtags
endif
export DEPS_CFLAGS

HAVE_CUDA := $(shell test -f $(CUDA_HOME)/include/cupti.h && test -x $(CUDA_HOME)/bin/nvcc && echo 1)
NVCC := $(CUDA_HOME)/bin/nvcc
CUDA_INC := $(CUDA_HOME)/include
CUDA_LIB := $(CUDA_HOME)/lib64
NVCC_ARCH ?= -gencode=arch=compute_90,code=sm_90

CFLAGS ?= -O2 -g
WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 \
	-Wno-format-nonliteral
ifeq ($(WERROR),1)
WARN += -Werror
endif
ifneq ($(SAN),)
SAN_FLAGS := -fsanitize=$(SAN) -fno-omit-frame-pointer -fno-sanitize-recover=undefined
endif

ALL_CFLAGS = -std=c11 -D_GNU_SOURCE $(WARN) $(CFLAGS) -fPIC -fvisibility=hidden -MMD -MP \
	-Icommon -I$(O)/gen $(DEPS_CFLAGS) $(SAN_FLAGS) $(EXTRA_CFLAGS)
ALL_LDFLAGS = $(LDFLAGS) $(DEPS_LDFLAGS) $(SAN_FLAGS)
LIBS := -lsqlite3 -lcjson -lz -lpthread -ldl -lm

DEPS_BUILD := $(O)/.deps-build
DEPS_TEST := $(O)/.deps-test
DEPS_CLI := $(O)/.deps-cli

.DEFAULT_GOAL := all
.PHONY: all test test-unit test-cli test-gpu check demo bench install deps format format-check \
	tidy compdb clean help fuzz fuzz-regress fuzz-clean

# Per-part rules; each appends to TARGETS, TEST_BINS, GPU_TARGETS, BENCH_TARGETS.
TARGETS :=
TEST_BINS :=
GPU_TARGETS :=
BENCH_TARGETS :=
include mk/common.mk
include mk/collector.mk
include mk/analyzer.mk
include mk/runtime.mk
include mk/gemm_pair.mk
include mk/persist.mk
include mk/export.mk
include mk/advisor.mk
include mk/gate.mk
include mk/import.mk
include mk/cli.mk
include mk/gpu.mk
include mk/bench.mk
include mk/tests.mk
include mk/fuzz.mk

all: $(TARGETS)
ifneq ($(HAVE_CUDA),1)
	@echo "skip: no CUDA toolkit at $(CUDA_HOME) (set CUDA_HOME=...): the collector was skipped"
endif

$(DEPS_BUILD):
	$(Q)CC="$(CC)" sh mk/deps.sh ensure build
	@mkdir -p $(@D) && touch $@

$(DEPS_TEST): | $(DEPS_BUILD)
	$(Q)CC="$(CC)" sh mk/deps.sh ensure test
	@mkdir -p $(@D) && touch $@

$(DEPS_CLI): | $(DEPS_BUILD)
	$(Q)CC="$(CC)" sh mk/deps.sh ensure cli
	@mkdir -p $(@D) && touch $@

deps: $(DEPS_BUILD) $(DEPS_TEST) $(DEPS_CLI)

$(O)/obj/%.o: %.c | $(DEPS_BUILD)
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(O)/gen/trace_sql.c: schemas/trace.sql mk/embed.sh
	@mkdir -p $(@D)
	$(Q)sh mk/embed.sh skip_trace_sql $< > $@

$(O)/obj/gen/%.o: $(O)/gen/%.c | $(DEPS_BUILD)
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

# Sanitizer build of every CPU test, in its own tree; then a short fuzzing run of every fuzz target
# (mk/fuzz.mk, tree $(O)-fuzz).
check:
	$(Q)$(MAKE) --no-print-directory O=$(O)-san SAN=address,undefined test
	$(Q)$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=$(FUZZ_CHECK_SECONDS)
	$(Q)$(MAKE) --no-print-directory check-tsan
	@echo "skip: make check passed (ASan + UBSan, fuzzing)"

demo: all $(GPU_TARGETS)
	$(Q)O=$(O) sh mk/demo.sh

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/skip $(DESTDIR)$(PREFIX)/share/doc/skip
	install -m 755 $(O)/skip $(DESTDIR)$(PREFIX)/bin/skip
ifeq ($(HAVE_CUDA),1)
	install -m 755 $(O)/libskip_collector.so $(DESTDIR)$(PREFIX)/lib/skip/libskip_collector.so
	install -d $(DESTDIR)$(PREFIX)/lib/skip/python
	install -m 644 collector/python/sitecustomize.py $(DESTDIR)$(PREFIX)/lib/skip/python/
endif
	install -m 644 README.md docs/*.md $(DESTDIR)$(PREFIX)/share/doc/skip/
	@echo "skip: installed under $(DESTDIR)$(PREFIX)"

FORMAT_SRCS = $(shell git ls-files '*.c' '*.h' '*.cu' 2>/dev/null)
format:
	clang-format -i $(FORMAT_SRCS)
format-check:
	$(Q)CC="$(CC)" sh mk/deps.sh ensure format
	$(Q)clang-format --dry-run --Werror $(FORMAT_SRCS)
	@echo "skip: format-check passed"
tidy: compdb
	clang-tidy -p . $(shell git ls-files 'common/*.c' 'cli/*.c' 'analyzer/*.c' 2>/dev/null)
compdb:
	bear -- $(MAKE) -B all

clean:
	rm -rf $(O) $(O)-san

help:
	@echo "skip $(shell sed -n 's/^#define SKIP_VERSION "\(.*\)"/\1/p' common/skip_common.h): targets"
	@echo "  make [all]            build $(O)/skip and $(O)/libskip_collector.so"
	@echo "  make demo             record and report the bundled workload (a bundled H100 trace without a GPU)"
	@echo "  make test             build and run every CPU test (unit + CLI golden tests)"
	@echo "  make test-gpu         build and run the GPU tests (they skip themselves without a GPU)"
	@echo "  make check            the CPU tests under ASan + UBSan (tree $(O)-san), then make fuzz"
	@echo "                        for FUZZ_CHECK_SECONDS=$(FUZZ_CHECK_SECONDS) s per target"
	@echo "  make fuzz             fuzz every target (fuzz/) for FUZZ_SECONDS=60 s each, with clang"
	@echo "                        (tree $(O)-fuzz); make fuzz-regress replays tests/fuzz-regress/"
	@echo "  make bench            build the benchmarks in bench/ (run them on a GPU machine)"
	@echo "  make install PREFIX=  install skip, the collector and the docs (default $(PREFIX))"
	@echo "  make deps             install missing Debian packages (as root), or print the command"
	@echo "  make format | format-check | tidy | compdb | clean"
	@echo "variables: O=build CUDA_HOME=$(CUDA_HOME) WERROR=1 SAN=address,undefined V=1"

-include $(shell find $(O) -name '*.d' 2>/dev/null)
