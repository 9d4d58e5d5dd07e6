# gate/ -> $(O)/libskip_gate.a (skip gate and skip diff: per-run values of each side, baseline
# files, the rank test and the decision, what changed). On top of the analyzer; the baseline
# schema (schemas/baseline.schema.json) is embedded, so a baseline is checked without the tree.
# Included before mk/cli.mk, whose CLI_LIBS names $(GATE_LIB).
GATE_SRCS := $(wildcard gate/*.c)
GATE_OBJS := $(GATE_SRCS:%.c=$(O)/obj/%.o) $(O)/obj/gen/baseline_schema.o
GATE_LIB := $(O)/libskip_gate.a

$(GATE_OBJS): EXTRA_CFLAGS += -Igate -Ianalyzer

$(O)/gen/baseline_schema.c: schemas/baseline.schema.json mk/embed.sh
	@mkdir -p $(@D)
	$(Q)sh mk/embed.sh sk_gate_baseline_schema $< > $@

$(GATE_LIB): $(GATE_OBJS)
	@echo "  AR      $@"
	$(Q)rm -f $@ && $(AR) rcs $@ $^

TARGETS += $(GATE_LIB)

# The two subcommands on top of it.
$(O)/obj/cli/cmd_gate.o $(O)/obj/cli/cmd_diff.o: EXTRA_CFLAGS += -Igate

# Unit tests (tests/unit/gate/test_*.c, one Criterion binary, with the analyzer tests' builder
# of hand-written traces, tests/unit/analyzer/hand.c) and the power-table program
# (tests/unit/gate/power.c: `make gate-power` prints docs/skip-gate.md's table).
TEST_GATE_SRCS := $(wildcard tests/unit/gate/test_*.c)
TEST_GATE_OBJS := $(TEST_GATE_SRCS:%.c=$(O)/obj/%.o) $(O)/obj/tests/unit/gate/sim.o \
	$(O)/obj/tests/unit/analyzer/hand.o
$(TEST_GATE_OBJS) $(O)/obj/tests/unit/gate/power.o: EXTRA_CFLAGS += -Igate -Itests/unit/gate \
	-Itests/unit/analyzer

$(O)/tests/test_gate: $(TEST_GATE_OBJS) $(GATE_LIB) $(ANALYZER_LIB) $(COMMON_LIB)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) -o $@ $^ $(ALL_LDFLAGS) $(TEST_LDLIBS)
TEST_BINS += $(O)/tests/test_gate

$(O)/tests/gate_power: $(O)/obj/tests/unit/gate/power.o $(O)/obj/tests/unit/gate/sim.o \
		$(GATE_LIB) $(ANALYZER_LIB) $(COMMON_LIB)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) -o $@ $^ $(ALL_LDFLAGS) $(LIBS)
BENCH_TARGETS += $(O)/tests/gate_power

.PHONY: gate-power
gate-power: $(O)/tests/gate_power
	$(Q)$(O)/tests/gate_power
