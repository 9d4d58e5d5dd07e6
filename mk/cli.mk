# cli/ -> $(O)/skip (the hub and one cmd_<name>.c per subcommand)
CLI_SRCS := $(wildcard cli/*.c)
CLI_OBJS := $(CLI_SRCS:%.c=$(O)/obj/%.o)
CLI_LIBS := $(COMMON_LIB)

$(CLI_OBJS): EXTRA_CFLAGS += -Icli

$(O)/skip: $(CLI_OBJS) $(CLI_LIBS)
	@echo "  LD      $@"
	$(Q)$(CC) -o $@ $(CLI_OBJS) $(CLI_LIBS) $(ALL_LDFLAGS) $(LIBS) -lstdc++

TARGETS += $(O)/skip
