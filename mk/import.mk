# import/ -> $(O)/libskip_import.a (skip import: torch.profiler traces into the trace store).
# On common only; zlib reads gzip inputs. Included before mk/cli.mk, whose CLI_LIBS names
# $(IMPORT_LIB).
IMPORT_SRCS := $(wildcard import/*.c)
IMPORT_OBJS := $(IMPORT_SRCS:%.c=$(O)/obj/%.o)
IMPORT_LIB := $(O)/libskip_import.a

$(IMPORT_OBJS): EXTRA_CFLAGS += -Iimport

$(IMPORT_LIB): $(IMPORT_OBJS)
	@echo "  AR      $@"
	$(Q)rm -f $@ && $(AR) rcs $@ $^

TARGETS += $(IMPORT_LIB)

# Unit tests (tests/unit/import/test_*.c, one Criterion binary); the hand-written traces they
# read are tests/fixtures/torchprof/.
TEST_IMPORT_SRCS := $(wildcard tests/unit/import/test_*.c)
TEST_IMPORT_OBJS := $(TEST_IMPORT_SRCS:%.c=$(O)/obj/%.o)
$(TEST_IMPORT_OBJS): EXTRA_CFLAGS += -Iimport -DFIXTURES=\"$(CURDIR)/tests/fixtures\"

$(O)/tests/test_import: $(TEST_IMPORT_OBJS) $(IMPORT_LIB) $(COMMON_LIB)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) -o $@ $^ $(ALL_LDFLAGS) $(TEST_LDLIBS)
TEST_BINS += $(O)/tests/test_import
