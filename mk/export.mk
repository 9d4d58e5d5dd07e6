# notebooks-export/ -> $(O)/libskip_export.a (HTML report, Perfetto/Kineto JSON, CSV, Jupyter
# notebook; on top of the analyzer). The notebook's cells (notebooks-export/notebook.py) are
# embedded, so the binary writes the notebook without the tree.
EXPORT_SRCS := $(wildcard notebooks-export/*.c)
EXPORT_OBJS := $(EXPORT_SRCS:%.c=$(O)/obj/%.o) $(O)/obj/gen/notebook_py.o
EXPORT_LIB := $(O)/libskip_export.a

$(EXPORT_OBJS): EXTRA_CFLAGS += -Inotebooks-export -Ianalyzer

$(O)/gen/notebook_py.c: notebooks-export/notebook.py mk/embed.sh
	@mkdir -p $(@D)
	$(Q)sh mk/embed.sh sk_export_notebook_py $< > $@

$(EXPORT_LIB): $(EXPORT_OBJS)
	@echo "  AR      $@"
	$(Q)rm -f $@ && $(AR) rcs $@ $^

TARGETS += $(EXPORT_LIB)
