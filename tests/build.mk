# tests/: CUnit unit tests (tests/unit/test-*.c, one binary each), the
# programs the end-to-end tests capture (tests/apps/*.c), and the e2e scripts
# (tests/e2e/*.sh). `make test` runs them all through tests/run.

CUNIT_LIBS := -lcunit
TEST_APP_SRCS := $(filter-out tests/apps/lib%.c,$(wildcard tests/apps/*.c))
TEST_LIB_SRCS := $(wildcard tests/apps/lib*.c)
TEST_APPS := $(patsubst tests/apps/%.c,$(O)/tests/apps/%,$(TEST_APP_SRCS)) \
	     $(patsubst tests/apps/%.c,$(O)/tests/apps/%.so,$(TEST_LIB_SRCS))

$(O)/tests/apps/%.so: tests/apps/%.c
	$(call msg,CC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) -shared -fPIC -O2 -o $@ $<

$(O)/tests/apps/%: tests/apps/%.c include/island.h tests/apps/pseudo.h tests/apps/cpuburn.h
	$(call msg,CC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CPPFLAGS) -O2 -g -std=gnu11 -Wall -o $@ $< -lpthread

# The routes of tests/e2e/capture-syscalls.sh, also linked statically.
$(O)/tests/apps/routes-static: tests/apps/routes.c
	$(call msg,CC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CPPFLAGS) -O2 -g -std=gnu11 -Wall -static -o $@ $<
TEST_APPS += $(O)/tests/apps/routes-static

# What a program sees of itself, dynamic and static (capture-syscalls.sh)
$(O)/tests/apps/selfexe-static: tests/apps/selfexe.c
	$(call msg,CC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CPPFLAGS) -O2 -g -std=gnu11 -Wall -static -o $@ $<
TEST_APPS += $(O)/tests/apps/selfexe-static

# A signal stack in two threads, static too (capture-syscalls.sh)
$(O)/tests/apps/altstack-static: tests/apps/altstack.c
	$(call msg,CC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CPPFLAGS) -O2 -g -std=gnu11 -Wall -static -o $@ $< -lpthread
TEST_APPS += $(O)/tests/apps/altstack-static

# A clone() child on a stack of its own, static too (capture-syscalls.sh)
$(O)/tests/apps/clonestack-static: tests/apps/clonestack.c
	$(call msg,CC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CPPFLAGS) -O2 -g -std=gnu11 -Wall -static -o $@ $<
TEST_APPS += $(O)/tests/apps/clonestack-static

# A drop of root before an exec, static too (capture-privdrop.sh)
$(O)/tests/apps/dropexec-static: tests/apps/dropexec.c
	$(call msg,CC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CPPFLAGS) -O2 -g -std=gnu11 -Wall -static -o $@ $<
TEST_APPS += $(O)/tests/apps/dropexec-static

# Other interposers' programs: one built with ASan (capture-interposers.sh)
$(O)/tests/apps/stacked-asan: tests/apps/stacked.c
	$(call msg,CC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CPPFLAGS) -O1 -g -std=gnu11 -Wall -fsanitize=address -o $@ $<
TEST_APPS += $(O)/tests/apps/stacked-asan

# Descriptors on no file, static too (capture-anonfds.sh)
$(O)/tests/apps/anonfds-static: tests/apps/anonfds.c
	$(call msg,CC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CPPFLAGS) -O2 -g -std=gnu11 -Wall -static -o $@ $<
TEST_APPS += $(O)/tests/apps/anonfds-static

$(O)/tests/apps/rseqcpu-static: tests/apps/rseqcpu.c
	$(call msg,CC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CPPFLAGS) -O2 -g -std=gnu11 -Wall -static -o $@ $< -lpthread
TEST_APPS += $(O)/tests/apps/rseqcpu-static

# The profiler's program of known shape, built with frame pointers: the
# walk by frame pointers (ISLAND_UNWIND=fp) in tests/e2e/capture-profile.sh.
$(O)/tests/apps/profiled-fp: tests/apps/profiled.c tests/apps/cpuburn.h
	$(call msg,CC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CPPFLAGS) -O2 -g -std=gnu11 -Wall -fno-omit-frame-pointer -o $@ $< -lpthread
TEST_APPS += $(O)/tests/apps/profiled-fp

# Open MPI programs (tests/apps/mpi/*.c), built with mpicc when there is
# one; their tests skip (exit 77) without them.
MPICC ?= mpicc
ifneq ($(shell command -v $(MPICC) 2>/dev/null),)
MPI_APPS := $(patsubst tests/apps/mpi/%.c,$(O)/tests/apps/%,$(wildcard tests/apps/mpi/*.c))
$(O)/tests/apps/mpi%: tests/apps/mpi/mpi%.c tests/apps/mpi/rankfile.h
	$(call msg,MPICC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(MPICC) -O2 -g -std=gnu11 -Wall -o $@ $<
TEST_APPS += $(MPI_APPS)
endif

test-apps: $(TEST_APPS)

# make again once the packages are in: what this makefile probes when it
# is read (mpicc, pkg-config) must see them on a fresh machine
test: deps
	$(Q)$(MAKE) --no-print-directory test-run

# ASAN=1: any ASan or UBSan report fails its test; LeakSanitizer is off
# (the tools keep what they read until they exit, as the fuzzers do), and
# the runtime need not come first (capture-env-hidden runs the capture
# under an LD_PRELOAD of the user's)
ifeq ($(ASAN),1)
test-run: export ASAN_OPTIONS := detect_leaks=0:verify_asan_link_order=0:$(ASAN_OPTIONS)
test-run: export UBSAN_OPTIONS := halt_on_error=1:print_stacktrace=1:$(UBSAN_OPTIONS)
endif
test-run: build-all $(TEST_BINS) $(TEST_APPS)
	$(Q)tests/run $(TEST_BINS)

# What CI runs: the suite, then the suite again with ASan and UBSan
# (issue 13), built in a copy of the tree (the tracked files and the new
# ones, as they are now) so that bin/ and lib/ here stay as they were.
# The copy is readable by all, as a checkout is: the tests that drop root
# (runuser, PostgreSQL's own user) load the interposer from it.
check: test
	$(Q)d=$$(mktemp -d) && trap 'rm -rf "$$d"' EXIT && chmod 755 "$$d" && \
	git ls-files -co --exclude-standard -z | tar --null -T - -cf - | tar -xf - -C "$$d" && \
	echo "== the suite again, built with ASAN=1 (in $$d)" && \
	$(MAKE) --no-print-directory -C "$$d" test-run ASAN=1

.PHONY: test-apps test-run check
include tests/fuzz/fuzz.mk

# Asynchronous I/O through libaio and liburing (capture-aio.sh)
$(O)/tests/apps/aioops: tests/apps/aioops.c
	$(call msg,CC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CPPFLAGS) -O2 -g -std=gnu11 -Wall -o $@ $< -laio
$(O)/tests/apps/uring: tests/apps/uring.c
	$(call msg,CC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CPPFLAGS) -O2 -g -std=gnu11 -Wall -o $@ $< -luring
