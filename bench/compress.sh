#!/bin/sh
# Trace compression by -o's suffix: 1,000,000 64-byte writes (one thread,
# and 4 threads x 250,000) captured to .xml, .xml.gz and .xml.zst, and to
# the binary encoding .isb and .isb.zst (docs/trace-binary.md). Prints,
# in one run, the time in the run (the node's end: the application's life
# under the capture) and the capture's end-to-end wall time (the
# application and writing its trace; medians of RUNS runs), each with its
# ratio to native, the CPU seconds (user + system, the application's
# included: steadier than wall time on a loaded machine), the trace's
# bytes per event, and island-analyze sums on each trace: events per
# second and peak RSS (/usr/bin/time, median of RUNS).
#   RUNS=3 bench/compress.sh
# Targets (issue 14): capture+write <= 1.25x native, <= 16 B/event
# compressed, sums >= 2M events/s on the compressed trace.
cd "$(dirname "$0")/.." || exit 2
RUNS=${RUNS:-3}
W=build/tests/apps/writes
C=bin/island-capture
A=bin/island-analyze
TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "compress.sh: needs /usr/bin/time (Debian: time)" >&2; exit 2; }

. bench/lib.sh
bench_tmp

# in_run TRACE: its node's end, seconds (the application's life under
# the capture), from the start of its XML export
in_run() {
	$A export --format xml "$1" 2>/dev/null | head -5 |
		sed -n 's/^ *<node [^>]* end="\([0-9.]*\)".*/\1/p' | head -1
}

bench() {
	threads=$1 count=$2 label=$3
	: > "$tmp/native"
	for i in $(seq "$RUNS"); do
		t0=$(now); $W "$threads" "$count" 64; t1=$(now)
		echo "$t1 - $t0" | bc >> "$tmp/native"
	done
	native=$(median < "$tmp/native")
	events=""
	for suffix in .xml .xml.gz .xml.zst .isb .isb.zst; do
		out="$tmp/t$suffix"
		: > "$tmp/total"; : > "$tmp/times"; : > "$tmp/cpu"; : > "$tmp/run"
		for i in $(seq "$RUNS"); do
			rm -f "$out"
			t0=$(now)
			$TIME -o "$tmp/ctime" -f '%U %S' $C -n bench -o "$out" $W "$threads" "$count" 64 || exit 1
			t1=$(now)
			echo "$t1 - $t0" | bc >> "$tmp/total"
			in_run "$out" >> "$tmp/run"
			awk '{ print $1 + $2 }' "$tmp/ctime" >> "$tmp/cpu"
			$TIME -o "$tmp/time" -f '%e %M' $A sums "$out" > /dev/null || exit 1
			cat "$tmp/time" >> "$tmp/times"
		done
		secs=$(awk '{ print $1 }' "$tmp/times" | median)
		rss=$(awk '{ print $2 }' "$tmp/times" | median)
		# events: the trace's <io> records, counted once on the plain one
		[ -n "$events" ] || events=$(grep -c '<io ' "$out")
		total=$(median < "$tmp/total")
		cpu=$(median < "$tmp/cpu")
		run=$(median < "$tmp/run")
		bytes=$(stat -c %s "$out")
		awk -v l="$label" -v s="$suffix" -v n="$native" -v t="$total" -v e="$events" \
		    -v b="$bytes" -v a="$secs" -v r="$rss" -v c="$cpu" -v u="$run" 'BEGIN {
			printf "%-28s %-8s %7.3f s %7.3f s %5.2fx %7.3f s %6.2fx %7.2f s %7.1f B/event %8.2f M/s %7.1f MiB\n",
			       l, s, n, u, u / n, t, t / n, c, b / e, (a > 0 ? e / a / 1e6 : 0), r / 1024
		}'
	done
}

printf '%-28s %-8s %9s %17s %18s %9s %15s %10s %11s\n' "workload" "output" "native" \
	"in the run" "capture+write" "CPU" "trace size" "sums" "sums RSS"
bench 1 1000000 "1 thread x 1,000,000 writes"
bench 4 250000 "4 threads x 250,000 writes"
echo "(targets: capture+write <= 1.25x native; <= 16 B/event compressed; sums >= 2M events/s on the compressed trace; medians of $RUNS runs; $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg))"

# Streaming (every output above is streamed): a longer run, where
# the writing the application's run hides shows, with and without it
# (ISLAND_STREAM=0: all of the trace written after the app's exit).
echo
printf '%-28s %-8s %9s %17s %18s %18s\n' "streaming" "output" "native" "in the run" \
	"streamed" "written at the end"
: > "$tmp/native"
for i in $(seq "$RUNS"); do
	t0=$(now); $W 1 5000000 64; t1=$(now)
	echo "$t1 - $t0" | bc >> "$tmp/native"
done
native=$(median < "$tmp/native")
for suffix in .xml .xml.gz .xml.zst .isb.zst; do
	out="$tmp/s$suffix"
	for mode in 1 0; do
		: > "$tmp/total.$mode"; : > "$tmp/run.$mode"
		for i in $(seq "$RUNS"); do
			rm -f "$out"
			t0=$(now)
			ISLAND_STREAM=$mode $C -n bench -o "$out" $W 1 5000000 64 || exit 1
			t1=$(now)
			echo "$t1 - $t0" | bc >> "$tmp/total.$mode"
			in_run "$out" >> "$tmp/run.$mode"
		done
	done
	awk -v s="$suffix" -v n="$native" -v u="$(median < "$tmp/run.1")" \
	    -v a="$(median < "$tmp/total.1")" -v b="$(median < "$tmp/total.0")" 'BEGIN {
		printf "%-28s %-8s %7.3f s %7.3f s %5.2fx %7.3f s %6.2fx %7.3f s %6.2fx\n",
		       "1 thread x 5,000,000 writes", s, n, u, u / n, a, a / n, b, b / n
	}'
done
