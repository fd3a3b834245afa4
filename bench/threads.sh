#!/bin/sh
# A server that starts a thread a request (tests/apps/churn): N threads,
# one at a time, each writing a byte and joined; natively and captured
# (to .isb.zst, end to end), in one run: medians of RUNS runs, the ratio,
# and the app's peak memory a thread (the spool's pages it touched).
#   RUNS=3 N=20000 bench/threads.sh
cd "$(dirname "$0")/.." || exit 2
RUNS=${RUNS:-3}
N=${N:-20000}
APP=build/tests/apps/churn
C=bin/island-capture

. bench/lib.sh
bench_tmp

: > "$tmp/native"; : > "$tmp/cap"; : > "$tmp/rss"
for i in $(seq "$RUNS"); do
	timed $APP "$N" >> "$tmp/native" 2> /dev/null
	rm -f "$tmp/t.isb.zst"
	timed $C -n bench -o "$tmp/t.isb.zst" $APP "$N" >> "$tmp/cap" 2> "$tmp/out"
	sed -n 's/^peak rss: \([0-9]*\) KB$/\1/p' "$tmp/out" >> "$tmp/rss"
done
native=$(median < "$tmp/native")
cap=$(median < "$tmp/cap")
rss=$(median < "$tmp/rss")
printf '%-34s %10s %8s\n' "$N threads, one at a time" seconds "x native"
printf '%-34s %10.3f %8.2f\n' native "$native" 1
printf '%-34s %10.3f %8.2f\n' "island-capture -o .isb.zst" "$cap" "$(echo "$cap / $native" | bc -l)"
printf '%-34s %10.1f KB\n' "app's peak memory a thread" "$(echo "$rss / $N" | bc -l)"
