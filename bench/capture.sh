#!/bin/sh
# Capture overhead: 1,000,000 64-byte writes to /dev/null (one thread, and
# 4 threads x 250,000), natively, under island-capture and under
# strace -f -o, in one run. Prints medians of RUNS runs (strace: one run),
# the ratios to native, and trace bytes per event; then the one-thread
# workload with --callsites (a return address recorded per call).
#   RUNS=5 STRACE=1 bench/capture.sh
# The captured time is the application's own run (the trace's node end);
# "with writing" adds writing the XML trace after it exits.
cd "$(dirname "$0")/.." || exit 2
RUNS=${RUNS:-5}
W=build/tests/apps/writes
C=bin/island-capture

. bench/lib.sh
bench_tmp

bench() {
	threads=$1 count=$2 label=$3 opts=$4
	: > "$tmp/native"; : > "$tmp/island"; : > "$tmp/total"
	for i in $(seq "$RUNS"); do
		t0=$(now); $W "$threads" "$count" 64; t1=$(now)
		echo "$t1 - $t0" | bc >> "$tmp/native"
		t0=$(now); $C $opts -n bench -o "$tmp/t.xml" $W "$threads" "$count" 64; t1=$(now)
		echo "$t1 - $t0" | bc >> "$tmp/total"
		sed -n 's/.*<node [^>]* end="\([0-9.]*\)".*/\1/p' "$tmp/t.xml" >> "$tmp/island"
	done
	native=$(median < "$tmp/native")
	island=$(median < "$tmp/island")
	total=$(median < "$tmp/total")
	events=$(grep -c '<io ' "$tmp/t.xml")
	bytes=$(stat -c %s "$tmp/t.xml")
	if [ -z "$opts" ] && [ "${STRACE:-1}" = 1 ] && command -v strace >/dev/null; then
		t0=$(now); strace -f -o "$tmp/s.out" $W "$threads" "$count" 64; t1=$(now)
		strace_t=$(echo "$t1 - $t0" | bc)
		sbytes=$(stat -c %s "$tmp/s.out")
		rm -f "$tmp/s.out"
	else
		strace_t=""
	fi
	awk -v l="$label" -v n="$native" -v i="$island" -v t="$total" -v s="$strace_t" \
	    -v e="$events" -v b="$bytes" -v sb="${sbytes:-0}" 'BEGIN {
		printf "%-30s %8.3f s  %8.3f s %6.2fx  %8.3f s %6.2fx", l, n, i, i / n, t, t / n
		if (s != "") printf "  %8.2f s %7.1fx", s, s / n; else printf "  %21s", "(not run)"
		printf "  %6.1f B/event (%d events)\n", b / e, e
	}'
}

printf '%-30s %10s  %19s  %19s  %21s  %s\n' "workload" "native" "island-capture" \
	"with writing" "strace -f -o" "trace size"
bench 1 1000000 "1 thread x 1,000,000 writes"
bench 4 250000 "4 threads x 250,000 writes"
bench 1 1000000 "1 thread, --callsites" --callsites
echo "(target: island-capture <= 1.25x native; medians of $RUNS runs, strace one run; clock: $($C --help >/dev/null; grep -q tsc /sys/devices/system/clocksource/clocksource0/current_clocksource && echo tsc || echo monotonic))"
