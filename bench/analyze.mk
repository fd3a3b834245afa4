# bench/: the analyzer benchmark. analyze-gen writes a 1,000,000-event,
# 16-thread trace; analyze-bench.sh times sums, consumption, ttx, calls and access on it.

ANALYZE_GEN := $(O)/bench/analyze-gen

$(ANALYZE_GEN): bench/analyze-gen.c
	$(call msg,CC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CPPFLAGS) $(TOOL_CFLAGS) -o $@ $<

bench-run: $(ANALYZE_GEN)
# analyze-report-html's page of 16 generated nodes, bounded in memory and
# time, is made from it: without it that check did not run in make check
test-run: $(ANALYZE_GEN)
BENCH_SCRIPTS += bench/analyze-bench.sh
BENCH_SCRIPTS += bench/scale.sh
BENCH_SCRIPTS += bench/report.sh
