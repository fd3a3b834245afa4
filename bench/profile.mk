# The profiler's cost against native and perf record (bench/profile.sh).
PROF_WORK := $(O)/bench/prof-work

$(PROF_WORK): bench/prof-work.c
	$(call msg,CC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) -O2 -g -o $@ $<

bench-run: $(PROF_WORK)
BENCH_SCRIPTS += bench/profile.sh
