# trace/: the trace library (include/island-trace.h): the one reader and
# validator of traces, a static library every tool that reads traces
# links (island-analyze, island-replay).

TRACE_SRCS := $(wildcard trace/*.c)
TRACE_OBJS := $(patsubst %.c,$(O)/%.o,$(TRACE_SRCS))
TRACE_LIB  := $(O)/libisland-trace.a

$(TRACE_LIB): $(TRACE_OBJS)
	$(call msg,AR,$@)
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

# The library as make install puts it: the reader with the helpers it
# needs (common/util.c, common/zstdio.c) in one object whose only global
# symbols are the trace_* of include/island-trace.h, so that a program
# linking it keeps its own die() or xcalloc().
TRACE_PUB := $(O)/pub/libisland-trace.a
$(O)/pub/island-trace.o: $(TRACE_OBJS) $(O)/common/util.o $(O)/common/zstdio.o
	$(call msg,LD,$@)
	@mkdir -p $(dir $@)
	$(Q)$(LD) -r -o $@.tmp $^ && \
		objcopy --wildcard --keep-global-symbol='trace_*' $@.tmp $@ && rm -f $@.tmp

$(TRACE_PUB): $(O)/pub/island-trace.o
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $<

# its pkg-config file, for this PREFIX
$(O)/island-trace.pc: include/island-trace.pc.in FORCE
	@mkdir -p $(dir $@)
	$(Q)sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' $< > $@.tmp && mv $@.tmp $@

# its unit tests (tests/unit/test-trace*.c)
TRACE_TEST_SRCS := $(wildcard tests/unit/test-trace*.c)
TRACE_TESTS := $(patsubst %.c,$(O)/%,$(TRACE_TEST_SRCS))

$(O)/tests/unit/test-trace%: $(O)/tests/unit/test-trace%.o $(COMMON_OBJS) $(TRACE_LIB)
	$(call msg,LD,$@)
	$(Q)$(CC) $(TOOL_LDFLAGS) -o $@ $^ $(XML_LIBS) $(CUNIT_LIBS) -lm

TEST_BINS += $(TRACE_TESTS)
.SECONDARY: $(patsubst %,%.o,$(TRACE_TESTS))

# The library as a shared object, lib/libisland-trace.so, for bindings
# (python/island loads it with cffi; make install puts it with the
# interposer in PREFIX/lib/island, out of the linker's way: -lisland-trace
# stays the static library): objects of its own, position-independent and without sanitizers (it runs inside
# another program), only the trace_* of include/island-trace.h exported.
TRACE_SO := lib/libisland-trace.so
TRACE_SO_OBJS := $(patsubst %.c,$(O)/pic/%.o,$(TRACE_SRCS) common/util.c common/zstdio.c)

$(O)/pic/%.o: %.c
	$(call msg,CC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -fPIC $(XML_CFLAGS) -c -o $@ $<

$(TRACE_SO): $(TRACE_SO_OBJS) trace/exports.map
	$(call msg,LD,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CC) -shared -Wl,-soname,libisland-trace.so -Wl,--version-script=trace/exports.map \
		-Wl,-z,now -o $@ $(TRACE_SO_OBJS) $(XML_LIBS) -lz

LIB_TARGETS += $(TRACE_SO)
