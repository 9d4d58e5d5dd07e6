# notebooks-export/ -> $(O)/libskip_export.a (the report as HTML; on top of the analyzer)
EXPORT_SRCS := $(wildcard notebooks-export/*.c)
EXPORT_OBJS := $(EXPORT_SRCS:%.c=$(O)/obj/%.o)
EXPORT_LIB := $(O)/libskip_export.a

$(EXPORT_OBJS): EXTRA_CFLAGS += -Inotebooks-export -Ianalyzer

$(EXPORT_LIB): $(EXPORT_OBJS)
	@echo "  AR      $@"
	$(Q)rm -f $@ && $(AR) rcs $@ $^

TARGETS += $(EXPORT_LIB)
