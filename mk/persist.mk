# E5's scheduling protocol (runtime/persist.h). Its sources, runtime/persist*.c, are part of the
# runtime's CPU half through mk/runtime.mk's wildcard; its Criterion tests are in the runtime's
# test binary (tests/unit/runtime/test_persist.c).
#
# Here: the ThreadSanitizer stress program (tests/tsan/, a plain C program: Criterion does not
# start under TSan), linked from the protocol's objects and common alone. `make check-tsan`
# (part of `make check`) builds it in its own tree, $(O)-tsan, with SAN=thread, and runs it for
# PERSIST_TSAN_SECONDS; a race stops it at once (halt_on_error=1) and fails the target.
PERSIST_TSAN_SECONDS ?= 3
PERSIST_OBJS := $(patsubst %.c,$(O)/obj/%.o,$(wildcard runtime/persist*.c))
STRESS_PERSIST_SRCS := $(wildcard tests/tsan/*.c)

$(O)/tests/stress_persist: $(STRESS_PERSIST_SRCS:%.c=$(O)/obj/%.o) $(PERSIST_OBJS) $(COMMON_LIB)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) -o $@ $^ $(ALL_LDFLAGS) $(LIBS)

.PHONY: check-tsan stress-persist-run
check-tsan:
	$(Q)$(MAKE) --no-print-directory O=$(O)-tsan SAN=thread stress-persist-run

stress-persist-run: $(O)/tests/stress_persist
	$(Q)TSAN_OPTIONS="halt_on_error=1 $(TSAN_OPTIONS)" $(O)/tests/stress_persist \
		$(PERSIST_TSAN_SECONDS)
