# capture/: the interposer (lib/libisland-capture.so) and island-capture,
# a folder per job (capture/README.md): preload/ the interposer, loader/
# the way into static programs, run/ the command and the app's run,
# spool/ from the spool to the node's model, writer/ the trace, session/
# nodes meeting and holding, discover/ the passes compared and merged,
# cluster/ the cluster runner and its namespaces, packets/ --pcap. The
# model they share is at the top: capture.h, spool.h, syscalls.def (the
# table of calls is trace/calls.def).
CAPTURE_DIRS := run spool writer session discover cluster packets

PRELOAD_SRCS := $(wildcard capture/preload/*.c)
PRELOAD_OBJS := $(patsubst %.c,$(O)/%.pic.o,$(PRELOAD_SRCS)) $(O)/capture/preload/vfork.pic.o \
	$(O)/capture/preload/sudstub.pic.o
# The interposer runs inside other programs: no sanitizers, only its
# wrappers exported, its TLS in the static block (initial-exec), its
# frames walkable by frame pointers (the profiler skips them so).
PRELOAD_CFLAGS := -O2 -g -std=gnu11 $(WARN) -MMD -MP -fPIC -fvisibility=hidden \
	-fno-stack-protector -ftls-model=initial-exec -fno-omit-frame-pointer -Icapture
ifeq ($(DEBUG),1)
PRELOAD_CFLAGS += -O0
endif

$(O)/capture/preload/%.pic.o: capture/preload/%.c
	$(call msg,CC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CPPFLAGS) $(PRELOAD_CFLAGS) -c -o $@ $<

$(O)/capture/preload/vfork.pic.o: capture/preload/vfork.S
	$(call msg,AS,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) -fPIC -c -o $@ $<

$(O)/capture/preload/sudstub.pic.o: capture/preload/sudstub.S
	$(call msg,AS,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) -fPIC -c -o $@ $<

lib/libisland-capture.so: $(PRELOAD_OBJS)
	$(call msg,LD,$@)
	@mkdir -p lib
	$(Q)$(CC) -shared -fPIC -Wl,-z,now -Wl,-z,nodelete -o $@ $^ -ldl -lpthread

# The kernel's system call names (for --syscalls), from its own header.
$(O)/capture/spool/sysnames.h: GNUmakefile capture/build.mk
	$(call msg,GEN,$@)
	@mkdir -p $(dir $@)
	$(Q)echo '#include <asm/unistd.h>' | $(CC) -dM -E -x c - | \
		awk '$$1 == "#define" && $$2 ~ /^__NR_/ && $$3 ~ /^[0-9]+$$/ { \
			printf "[%s] = \"%s\",\n", $$3, substr($$2, 6) }' > $@.tmp && mv $@.tmp $@
$(O)/capture/spool/sysnames.o: $(O)/capture/spool/sysnames.h
$(O)/capture/spool/sysnames.o: CPPFLAGS += -I$(O)/capture/spool

# The cluster file's schema, built in: the names it may use (names.c).
$(O)/capture/cluster/cluster_xsd.h: docs/cluster.xsd
	$(call msg,GEN,$@)
	@mkdir -p $(dir $@)
	$(Q)od -An -v -tx1 $< | sed -e 's/\([0-9a-f][0-9a-f]\)/0x\1,/g' > $@.tmp && mv $@.tmp $@
$(O)/capture/cluster/names.o: $(O)/capture/cluster/cluster_xsd.h
$(O)/capture/cluster/names.o: CPPFLAGS += -I$(O)/capture/cluster

# island-loader: the way into static programs (--syscalls), a static-pie
# with the interposer's core built in (thread state behind %gs).
LOADER_SRCS := capture/loader/loader.c capture/loader/stubs.c \
	$(addprefix capture/preload/,base.c spool.c payload.c record.c vforked.c procinfo.c \
	envpass.c life.c init.c extras.c sud.c spawn_acts.c limits.c holds.c nest.c \
	appmem.c privdrop.c aio_ops.c uring.c)
LOADER_OBJS := $(patsubst %.c,$(O)/%.ldr.o,$(LOADER_SRCS)) $(O)/capture/preload/sudstub.ldr.o
$(O)/%.ldr.o: %.c
	$(call msg,CC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CPPFLAGS) -DISLAND_LOADER -O2 -g -std=gnu11 $(WARN) -MMD -MP -fPIE \
		-fvisibility=hidden -fno-stack-protector -Icapture -c -o $@ $<
$(O)/capture/preload/sudstub.ldr.o: capture/preload/sudstub.S
	$(call msg,AS,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) -fPIE -c -o $@ $<
lib/island-loader: $(LOADER_OBJS)
	$(call msg,LD,$@)
	@mkdir -p lib
	$(Q)$(CC) -static-pie -o $@ $^
LIB_TARGETS += lib/island-loader
-include $(LOADER_OBJS:.o=.d)

CAPTURE_SRCS := $(foreach d,$(CAPTURE_DIRS),$(wildcard capture/$(d)/*.c))
CAPTURE_OBJS := $(patsubst %.c,$(O)/%.o,$(CAPTURE_SRCS))
# capture/ for the model its folders share (capture.h, spool.h); a
# folder's header is included by its path from the root
CAPTURE_INC  := -Icapture
$(CAPTURE_OBJS): CPPFLAGS += $(CAPTURE_INC)

# libpcap is opened by --pcap alone (packets/pcap_lazy.c), by the name
# its development link points to
# soname NAME: the SONAME libNAME.so, the development link, points to
soname = $(shell objdump -p "$$($(CC) -print-file-name=lib$(1).so)" 2>/dev/null | awk '$$1 == "SONAME" { print $$2 }')
PCAP_SONAME := $(call soname,pcap)
$(O)/capture/packets/pcap_lazy.o: CPPFLAGS += $(if $(PCAP_SONAME),-DPCAP_SONAME='"$(PCAP_SONAME)"')
# libcrypto likewise, by sessions across hosts alone (session/sesskey.c)
CRYPTO_SONAME := $(call soname,crypto)
$(O)/capture/session/sesskey.o: CPPFLAGS += $(if $(CRYPTO_SONAME),-DCRYPTO_SONAME='"$(CRYPTO_SONAME)"')


bin/island-capture: $(CAPTURE_OBJS) $(COMMON_OBJS) $(TRACE_LIB)
	$(call msg,LD,$@)
	@mkdir -p bin
	$(Q)$(CC) $(TOOL_LDFLAGS) -o $@ $^ $(XML_LIBS) -ldl -lpthread -lm

BIN_TARGETS += bin/island-capture
LIB_TARGETS += lib/libisland-capture.so

# Unit tests of the capture's pure functions (everything but capture_main.c).
$(O)/tests/unit/test-capture: $(O)/tests/unit/test-capture.o \
		$(filter-out $(O)/capture/run/capture_main.o,$(CAPTURE_OBJS)) \
		$(COMMON_OBJS) $(TRACE_LIB)
	$(call msg,LD,$@)
	$(Q)$(CC) $(TOOL_LDFLAGS) -o $@ $^ $(XML_LIBS) $(CUNIT_LIBS) -ldl -lpthread -lm
$(O)/tests/unit/test-capture.o: CPPFLAGS += $(CAPTURE_INC)
TEST_BINS += $(O)/tests/unit/test-capture

# The throttled node's judgement of the others: capture/preload/holds.c
# built into the test, the interposer's core stood in for.
$(O)/tests/unit/test-session-hold: $(O)/tests/unit/test-session-hold.o
	$(call msg,LD,$@)
	$(Q)$(CC) $(TOOL_LDFLAGS) -o $@ $^ $(CUNIT_LIBS) -lpthread
$(O)/tests/unit/test-session-hold.o: capture/preload/holds.c capture/preload/preload.h
$(O)/tests/unit/test-session-hold.o: CPPFLAGS += -Icapture
TEST_BINS += $(O)/tests/unit/test-session-hold

# The interposer's lookup of its real functions: capture/preload/symfind.c
# built into the test, against the loader's own lookup.
$(O)/tests/unit/test-symfind: $(O)/tests/unit/test-symfind.o
	$(call msg,LD,$@)
	$(Q)$(CC) $(TOOL_LDFLAGS) -o $@ $^ $(CUNIT_LIBS) -ldl -lpthread
$(O)/tests/unit/test-symfind.o: capture/preload/symfind.c capture/preload/symfind.h \
	capture/preload/reals.def
$(O)/tests/unit/test-symfind.o: CPPFLAGS += -Icapture -Icapture/preload
TEST_BINS += $(O)/tests/unit/test-symfind

# The MPI level (capture/mpi/build.mk)
include capture/mpi/build.mk
