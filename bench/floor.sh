#!/bin/sh
# The floor under the capture's cost: 1,000,000 64-byte writes (one
# thread) natively, under the least a per-call recorder can do
# (bench/floor.c: two cycle-counter readings a call and nothing kept; the
# same and a 32-byte record per call, into a ring that stays in the cache, the same ring read by a
# thread on the other core, or into fresh memory given in one call at
# the start) and under island-capture (the application's
# run, and with its trace written, .isb). Medians of RUNS runs of the
# whole process, each with its ratio to native.
#   RUNS=5 bench/floor.sh
cd "$(dirname "$0")/.." || exit 2
RUNS=${RUNS:-5}
COUNT=1000000
W=build/tests/apps/writes
C=bin/island-capture
A=bin/island-analyze
FLOOR=build/bench/floor.so
[ -f "$FLOOR" ] || { echo "floor.sh: $FLOOR is not built (make bench)" >&2; exit 2; }

. bench/lib.sh
bench_tmp

: > "$tmp/native"; : > "$tmp/none"; : > "$tmp/ring"; : > "$tmp/drain"; : > "$tmp/fresh"; : > "$tmp/run"; : > "$tmp/total"
mb=$((COUNT * 32 / 1048576 + 2))
for i in $(seq "$RUNS"); do
	timed $W 1 $COUNT 64 >> "$tmp/native"
	timed env FLOOR_NONE=1 LD_PRELOAD="$PWD/$FLOOR" $W 1 $COUNT 64 >> "$tmp/none"
	timed env FLOOR_RING=1 LD_PRELOAD="$PWD/$FLOOR" $W 1 $COUNT 64 >> "$tmp/ring"
	timed env FLOOR_RING=1 FLOOR_DRAIN=1 LD_PRELOAD="$PWD/$FLOOR" $W 1 $COUNT 64 >> "$tmp/drain"
	timed env FLOOR_MB=$mb LD_PRELOAD="$PWD/$FLOOR" $W 1 $COUNT 64 >> "$tmp/fresh"
	rm -f "$tmp/t.isb"
	timed $C -n bench -o "$tmp/t.isb" $W 1 $COUNT 64 >> "$tmp/total"
	# the application's run: the node's end in the trace
	$A export --format xml "$tmp/t.isb" 2>/dev/null | head -5 |
		sed -n 's/^ *<node [^>]* end="\([0-9.]*\)".*/\1/p' | head -1 >> "$tmp/run"
done
native=$(median < "$tmp/native")
row() {
	awk -v l="$1" -v t="$2" -v n="$native" 'BEGIN { printf "%-52s %7.3f s %6.2fx\n", l, t, t / n }'
}
row "native" "$native"
row "floor: 2 readings a call, nothing kept" "$(median < "$tmp/none")"
row "floor: 2 readings + 32 B a call, in a cached ring" "$(median < "$tmp/ring")"
row "floor: the same ring, read by a thread 1 ms behind" "$(median < "$tmp/drain")"
row "floor: 2 readings + 32 B a call, in fresh memory" "$(median < "$tmp/fresh")"
row "island-capture: the application's run" "$(median < "$tmp/run")"
row "island-capture: with its trace written (.isb)" "$(median < "$tmp/total")"
echo "(1 thread x $COUNT 64-byte writes to /dev/null; medians of $RUNS runs; issue 14's target: capture+write <= 1.25x native)"
