# cli/ -> $(O)/skip (the hub and one cmd_<name>.c per subcommand)
CLI_SRCS := $(wildcard cli/*.c)
CLI_OBJS := $(CLI_SRCS:%.c=$(O)/obj/%.o)
# Link order: the parts on top first, common last (static libraries resolve left to right).
CLI_LIBS := $(IMPORT_LIB) $(GATE_LIB) $(EXPORT_LIB) $(ADVISOR_LIB) $(ANALYZER_LIB) $(RUNTIME_LIB) $(COMMON_LIB)

$(CLI_OBJS): EXTRA_CFLAGS += -Icli -Ianalyzer -Iruntime -Inotebooks-export -Iadvisor -Iimport

$(O)/skip: $(CLI_OBJS) $(CLI_LIBS)
	@echo "  LD      $@"
	$(Q)$(CC) -o $@ $(CLI_OBJS) $(CLI_LIBS) $(ALL_LDFLAGS) $(RUNTIME_LDLIBS) $(LIBS) -lstdc++

TARGETS += $(O)/skip
