# The least a per-call recorder costs here (bench/floor.sh), beside
# island-capture: the floor under issue 14's capture targets.
FLOOR_LIB := $(O)/bench/floor.so

$(FLOOR_LIB): bench/floor.c
	$(call msg,CC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) -O2 -Wall -Wextra -shared -fPIC -o $@ $< -ldl -lpthread

bench-run: $(FLOOR_LIB)
BENCH_SCRIPTS += bench/floor.sh
