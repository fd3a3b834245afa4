# analysis/: island-analyze, the reports. Its objects without analyze_main.o are
# also linked into the unit tests (tests/unit/test-analyze*.c).

ANALYZE_SRCS := $(wildcard analysis/*.c)
ANALYZE_OBJS := $(patsubst %.c,$(O)/%.o,$(ANALYZE_SRCS))
ANALYZE_LIB_OBJS := $(filter-out $(O)/analysis/analyze_main.o,$(ANALYZE_OBJS))
# libdw resolves call sites (analysis/sites.c)
ANALYZE_LIBS := -ldw -lelf
# export --format otf2 (analysis/export_otf2.c) with Debian's
# libopen-trace-format2-dev when it is there; without it the format is
# an error and the rest builds
OTF2_LIBS := $(shell pkg-config --libs otf2 2>/dev/null)
ifneq ($(OTF2_LIBS),)
$(O)/analysis/export_otf2.o: CPPFLAGS += -DHAVE_OTF2 $(shell pkg-config --cflags otf2)
ANALYZE_LIBS += $(OTF2_LIBS)
endif

bin/island-analyze: $(ANALYZE_OBJS) $(COMMON_OBJS) $(TRACE_LIB)
	$(call msg,LD,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(TOOL_LDFLAGS) -o $@ $^ $(XML_LIBS) $(ANALYZE_LIBS) -lm

BIN_TARGETS += bin/island-analyze

ANALYZE_TEST_SRCS := $(wildcard tests/unit/test-analyze*.c)
ANALYZE_TESTS := $(patsubst %.c,$(O)/%,$(ANALYZE_TEST_SRCS))

$(O)/tests/unit/test-analyze%: $(O)/tests/unit/test-analyze%.o $(ANALYZE_LIB_OBJS) $(COMMON_OBJS) $(TRACE_LIB)
	$(call msg,LD,$@)
	$(Q)$(CC) $(TOOL_LDFLAGS) -o $@ $^ $(XML_LIBS) $(ANALYZE_LIBS) $(CUNIT_LIBS) -lm

$(O)/tests/unit/test-analyze%.o: CPPFLAGS += -Ianalysis

TEST_BINS += $(ANALYZE_TESTS)
.SECONDARY: $(patsubst %,%.o,$(ANALYZE_TESTS))

# The net report reads pcap files (analysis/net.mk).
include analysis/net.mk
