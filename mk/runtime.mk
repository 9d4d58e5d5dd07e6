# runtime/ -> $(O)/libskip_runtime.a (task graphs, plans, executors). Filled in by the runtime
# work (issue "The bundled runtime"); until then it defines an empty library.
RUNTIME_SRCS := $(wildcard runtime/*.c)
RUNTIME_OBJS := $(RUNTIME_SRCS:%.c=$(O)/obj/%.o)
RUNTIME_LIB := $(O)/libskip_runtime.a
RUNTIME_LDLIBS :=

$(RUNTIME_OBJS): EXTRA_CFLAGS += -Iruntime

$(RUNTIME_LIB): $(RUNTIME_OBJS)
	@echo "  AR      $@"
	$(Q)rm -f $@ && $(AR) rcs $@ $^

TARGETS += $(RUNTIME_LIB)
