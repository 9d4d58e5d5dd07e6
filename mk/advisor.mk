# advisor/ -> $(O)/libskip_advisor.a (fusion chains, graph regions, stream plans, what-if model).
# On top of the analyzer; it uses the runtime's CPU half (workloads, plans) for --workload.
ADVISOR_SRCS := $(wildcard advisor/*.c)
ADVISOR_OBJS := $(ADVISOR_SRCS:%.c=$(O)/obj/%.o)
ADVISOR_LIB := $(O)/libskip_advisor.a

$(ADVISOR_OBJS): EXTRA_CFLAGS += -Iadvisor -Ianalyzer -Iruntime

$(ADVISOR_LIB): $(ADVISOR_OBJS)
	@echo "  AR      $@"
	$(Q)rm -f $@ && $(AR) rcs $@ $^

TARGETS += $(ADVISOR_LIB)
