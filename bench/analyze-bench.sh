#!/bin/sh
# The analyzer benchmark (make bench): generate a trace of EVENTS <io>
# records over THREADS threads, time sums, consumption, ttx, calls and access on it (best
# of RUNS), and print events per second and peak memory.
# Targets: at least 1,000,000 events/s, under 64 MiB; exit 1 when a
# report misses one (the rows say which).
#   bench/analyze-bench.sh [EVENTS [THREADS [RUNS]]]
cd "$(dirname "$0")/.." || exit 2
events=${1:-1000000} threads=${2:-16} runs=${3:-3}
gen=${O:-build}/bench/analyze-gen
A=bin/island-analyze
[ -x "$gen" ] && [ -x "$A" ] || { echo "analyze-bench: build first (make bench)"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$gen" "$events" "$threads" > "$tmp/bench.xml" || exit 2
size=$(wc -c < "$tmp/bench.xml")
echo "analyze-bench: $events events, $threads threads, $((size / 1048576)) MiB trace, best of $runs"
printf '%-12s %9s %12s %10s\n' report seconds events/s "peak RSS"
missed=""
for r in sums consumption ttx calls access; do
	best="" rss=0
	i=0
	while [ $i -lt "$runs" ]; do
		i=$((i + 1))
		if [ -x /usr/bin/time ]; then
			/usr/bin/time -f '%e %M' -o "$tmp/time" "$A" "$r" "$tmp/bench.xml" > /dev/null || exit 2
			read -r secs kb < "$tmp/time"
		else
			t0=$(date +%s.%N)
			"$A" "$r" "$tmp/bench.xml" > /dev/null || exit 2
			secs=$(echo "$(date +%s.%N) - $t0" | bc)
			kb=0
		fi
		if [ -z "$best" ] || [ "$(echo "$secs < $best" | bc)" = 1 ]; then best=$secs; fi
		[ "$kb" -gt "$rss" ] && rss=$kb
	done
	rate=$(echo "$events / $best" | bc 2>/dev/null || echo 0)
	printf '%-12s %9s %12s %6s MiB\n' "$r" "$best" "$rate" "$(echo "scale=1; $rss / 1024" | bc)"
	{ [ "$rate" -ge 1000000 ] && [ "$rss" -lt 65536 ]; } || missed="$missed $r"
done
if [ -z "$missed" ]; then
	echo "analyze-bench: targets met (>= 1000000 events/s, < 64 MiB)"
else
	echo "analyze-bench: targets NOT met (>= 1000000 events/s, < 64 MiB):$missed"
	exit 1
fi
