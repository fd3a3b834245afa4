# The --discover merge on many simulated nodes (bench/merge-scale.sh).
MERGE_SCALE := $(O)/bench/merge-scale

$(MERGE_SCALE): $(O)/bench/merge-scale.o $(filter-out $(O)/capture/run/capture_main.o,$(CAPTURE_OBJS)) $(COMMON_OBJS) $(TRACE_LIB)
	$(call msg,LD,$@)
	$(Q)$(CC) $(TOOL_LDFLAGS) -o $@ $^ $(XML_LIBS) $(CRYPTO_LIBS) -lpcap -lpthread -lm

$(O)/bench/merge-scale.o: bench/merge-scale.c
	$(call msg,CC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CPPFLAGS) $(CAPTURE_INC) $(CFLAGS) -c -o $@ $<

bench-run: $(MERGE_SCALE)
BENCH_SCRIPTS += bench/merge-scale.sh
