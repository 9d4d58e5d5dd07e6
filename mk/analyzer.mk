# analyzer/ -> $(O)/libskip_analyzer.a (load a trace, link API -> kernel -> operator, metrics)
ANALYZER_SRCS := $(wildcard analyzer/*.c)
ANALYZER_OBJS := $(ANALYZER_SRCS:%.c=$(O)/obj/%.o)
ANALYZER_LIB := $(O)/libskip_analyzer.a

$(ANALYZER_OBJS): EXTRA_CFLAGS += -Ianalyzer

$(ANALYZER_LIB): $(ANALYZER_OBJS)
	@echo "  AR      $@"
	$(Q)rm -f $@ && $(AR) rcs $@ $^

TARGETS += $(ANALYZER_LIB)
