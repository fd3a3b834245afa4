# The net report (analysis/net*.c) reads the nodes' pcap files: libpcap for
# the tool and the tests linked with the analyzer's objects; its own unit
# tests (tests/unit/test-net*.c).
bin/island-analyze: XML_LIBS += -lpcap
$(O)/tests/unit/test-analyze%: XML_LIBS += -lpcap

NET_TEST_SRCS := $(wildcard tests/unit/test-net*.c)
NET_TESTS := $(patsubst %.c,$(O)/%,$(NET_TEST_SRCS))

$(O)/tests/unit/test-net%: $(O)/tests/unit/test-net%.o $(ANALYZE_LIB_OBJS) $(COMMON_OBJS) $(TRACE_LIB)
	$(call msg,LD,$@)
	$(Q)$(CC) $(TOOL_LDFLAGS) -o $@ $^ $(XML_LIBS) -lpcap $(ANALYZE_LIBS) $(CUNIT_LIBS) -lm

$(O)/tests/unit/test-net%.o: CPPFLAGS += -Ianalysis

TEST_BINS += $(NET_TESTS)
.SECONDARY: $(patsubst %,%.o,$(NET_TESTS))

# --pcap's exact filter lives in capture/packets/: its test links the capture's
# objects instead (an explicit rule, over the pattern above).
$(O)/tests/unit/test-net-filter: $(O)/tests/unit/test-net-filter.o \
		$(filter-out $(O)/capture/run/capture_main.o,$(CAPTURE_OBJS)) \
		$(COMMON_OBJS) $(TRACE_LIB)
	$(call msg,LD,$@)
	$(Q)$(CC) $(TOOL_LDFLAGS) -o $@ $^ $(XML_LIBS) $(CRYPTO_LIBS) -lpcap -lpthread $(CUNIT_LIBS) -lm
$(O)/tests/unit/test-net-filter.o: CPPFLAGS += $(CAPTURE_INC)
