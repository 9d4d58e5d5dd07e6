# common/ -> $(O)/libskip_common.a (errors, logging, clocks, the trace store)
COMMON_SRCS := $(wildcard common/*.c)
COMMON_OBJS := $(COMMON_SRCS:%.c=$(O)/obj/%.o) $(O)/obj/gen/trace_sql.o
COMMON_LIB := $(O)/libskip_common.a

$(COMMON_LIB): $(COMMON_OBJS)
	@echo "  AR      $@"
	$(Q)rm -f $@ && $(AR) rcs $@ $^

TARGETS += $(COMMON_LIB)
