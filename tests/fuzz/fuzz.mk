# tests/fuzz/: a libFuzzer harness per parser (clang; Debian clang-14 and
# libfuzzer-14-dev). `make fuzz FUZZ_S=60` builds them and runs each for
# FUZZ_S seconds from its seed corpus (tests/fuzz/corpus/NAME/, copied:
# what the run finds goes to $(O)/fuzz/corpus/NAME/, crashes to
# $(O)/fuzz/crash-NAME-*, the whole output to $(O)/fuzz/NAME.log). See tests/fuzz/README.md (AFL++ too).

FUZZ_CC   ?= $(shell command -v clang-14 2>/dev/null || command -v clang 2>/dev/null)
FUZZ_S    ?= 60
FUZZ_SAN  := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_CFLAGS := -O1 -g -std=gnu11 -Wall -Wextra -Wno-unused-parameter $(FUZZ_SAN) \
	       -fsanitize=fuzzer-no-link -Itests/fuzz -Ianalysis -Ireplay $(CAPTURE_INC)
FUZZ_NAMES := trace_analyze trace_replay spans pcap spool cluster session session_auth mpi_deps replayrep acl
FUZZ_BINS  := $(patsubst %,$(O)/fuzz/%,$(FUZZ_NAMES))

# The objects each harness needs, built apart with clang and sanitizers.
fuzzobj = $(patsubst %.c,$(O)/fuzz/obj/%.o,$(1))
FUZZ_COMMON  := $(call fuzzobj,$(patsubst $(O)/%.o,%.c,$(COMMON_OBJS)))
FUZZ_TRACE   := $(call fuzzobj,$(TRACE_SRCS))
FUZZ_ANALYZE := $(call fuzzobj,$(filter-out analysis/analyze_main.c,$(ANALYZE_SRCS))) $(FUZZ_TRACE) $(FUZZ_COMMON)
FUZZ_REPLAY  := $(call fuzzobj,$(filter-out replay/replay_main.c,$(REPLAY_SRCS))) $(FUZZ_TRACE) $(FUZZ_COMMON)
FUZZ_CAPTURE := $(call fuzzobj,$(filter-out capture/run/capture_main.c,$(CAPTURE_SRCS))) \
	$(FUZZ_TRACE) $(FUZZ_COMMON)
FUZZ_LIBS    := $(XML_LIBS) $(ANALYZE_LIBS) $(CRYPTO_LIBS) -lpcap -lpthread -lm

# the system call names capture/spool/sysnames.c includes are generated
$(O)/fuzz/obj/capture/spool/sysnames.o: $(O)/capture/spool/sysnames.h
$(O)/fuzz/obj/capture/spool/sysnames.o: CPPFLAGS += -I$(O)/capture/spool
# and the cluster file's schema capture/cluster/names.c builds in
$(O)/fuzz/obj/capture/cluster/names.o: $(O)/capture/cluster/cluster_xsd.h
$(O)/fuzz/obj/capture/cluster/names.o: CPPFLAGS += -I$(O)/capture/cluster

# -MMD: an object whose headers changed is built again (a check.o left
# from an older struct process read another layout: a false crash)
$(O)/fuzz/obj/%.o: %.c
	$(call msg,FUZZCC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_CFLAGS) $(XML_CFLAGS) -MMD -MP -c -o $@ $<
-include $(patsubst %.o,%.d,$(sort $(FUZZ_ANALYZE) $(FUZZ_REPLAY) $(FUZZ_CAPTURE)))

# $(call fuzzbin,NAME,OBJS)
define fuzzbin
$(O)/fuzz/$(1): tests/fuzz/$(1).c tests/fuzz/fuzz.h $(2)
	$$(call msg,FUZZLD,$$@)
	@mkdir -p $$(dir $$@)
	$$(Q)$$(FUZZ_CC) $$(CPPFLAGS) $$(FUZZ_CFLAGS) $$(XML_CFLAGS) -fsanitize=fuzzer \
		-o $$@ tests/fuzz/$(1).c $(2) $$(FUZZ_LIBS)
endef
$(eval $(call fuzzbin,trace_analyze,$(FUZZ_ANALYZE)))
$(eval $(call fuzzbin,spans,$(FUZZ_ANALYZE)))
$(eval $(call fuzzbin,pcap,$(FUZZ_ANALYZE)))
$(eval $(call fuzzbin,mpi_deps,$(FUZZ_ANALYZE)))
$(eval $(call fuzzbin,replayrep,$(FUZZ_ANALYZE)))
$(eval $(call fuzzbin,trace_replay,$(FUZZ_REPLAY)))
# replay's asynchronous queues (replay/aio.c), as replay/build.mk links them
$(O)/fuzz/trace_replay: FUZZ_LIBS += -laio -luring
$(eval $(call fuzzbin,spool,$(FUZZ_CAPTURE)))
# capture/acl.h: the header alone
$(eval $(call fuzzbin,acl,))
# cluster.c and coordinator.c are compiled into their harnesses (their
# parsers are static)
$(eval $(call fuzzbin,cluster,$(filter-out $(O)/fuzz/obj/capture/cluster/cluster.o,$(FUZZ_CAPTURE))))
$(eval $(call fuzzbin,session,$(filter-out $(O)/fuzz/obj/capture/session/coordinator.o,$(FUZZ_CAPTURE))))
$(eval $(call fuzzbin,session_auth,$(filter-out $(O)/fuzz/obj/capture/session/coordinator.o,$(FUZZ_CAPTURE))))

fuzz-build: $(FUZZ_BINS)

# Each harness for FUZZ_S seconds; any crash fails the run, at the end.
fuzz: fuzz-build
	$(Q)bad=; for f in $(FUZZ_NAMES); do \
		mkdir -p $(O)/fuzz/corpus/$$f; \
		echo "== fuzz $$f ($(FUZZ_S) s)"; \
		ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1 \
		$(O)/fuzz/$$f -max_total_time=$(FUZZ_S) -detect_leaks=0 -rss_limit_mb=2048 \
			-max_len=65536 -close_fd_mask=2 -print_final_stats=1 -artifact_prefix=$(O)/fuzz/crash-$$f- \
			$(O)/fuzz/corpus/$$f tests/fuzz/corpus/$$f > $(O)/fuzz/$$f.log 2>&1; \
		grep -E '^(stat::number_of_executed_units|stat::new_units_added|==[0-9]+==ERROR|SUMMARY|.*runtime error|.*Test unit written)' \
			$(O)/fuzz/$$f.log || true; \
		test -z "$$(ls $(O)/fuzz/crash-$$f-* 2>/dev/null)" || \
			{ echo "fuzz $$f: crash: $$(ls $(O)/fuzz/crash-$$f-*)"; bad="$$bad $$f"; }; \
	done; test -z "$$bad" || { echo "fuzz: crashes in$$bad"; exit 1; }

.PHONY: fuzz fuzz-build
