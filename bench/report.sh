#!/bin/sh
# The HTML page at scale: NODES generated node traces (bench/analyze-gen,
# 4 threads each) of EVENTS events in all, merged into one run, then
# `island-analyze report -o run.html` (RUNS times: the median seconds, the
# largest peak RSS), and the page opened in headless Chromium (a
# screenshot). Target: under 10 s and 64 MiB at 64 nodes, 1,000,000 events.
#   NODES=64 EVENTS=1000000 RUNS=3 bench/report.sh
cd "$(dirname "$0")/.." || exit 2
NODES=${NODES:-64} EVENTS=${EVENTS:-1000000} RUNS=${RUNS:-3}
gen=${O:-build}/bench/analyze-gen
A=bin/island-analyze
[ -x "$gen" ] && [ -x "$A" ] || { echo "report: build first (make bench)"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
i=0
while [ $i -lt "$NODES" ]; do
	"$gen" $((EVENTS / NODES)) 4 "n$i" > "$tmp/n$i.xml" || exit 2
	i=$((i + 1))
done
"$A" merge -o "$tmp/run.xml" "$tmp"/n*.xml 2> /dev/null || { echo "report: merge failed"; exit 2; }
rm -f "$tmp"/n*.xml
echo "report: $NODES nodes, $EVENTS events, $(($(stat -c %s "$tmp/run.xml") / 1048576)) MiB trace, median of $RUNS"
i=0 rss=0
: > "$tmp/secs"
while [ $i -lt "$RUNS" ]; do
	i=$((i + 1))
	/usr/bin/time -f '%e %M' -o "$tmp/time" "$A" report -o "$tmp/run.html" "$tmp/run.xml" ||
		{ echo "report: the page failed"; exit 1; }
	read -r secs kb < "$tmp/time"
	echo "$secs" >> "$tmp/secs"
	[ "$kb" -gt "$rss" ] && rss=$kb
done
med=$(sort -n "$tmp/secs" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
printf '%-8s %9s %12s %10s %10s\n' step seconds events/s "peak RSS" "page"
printf '%-8s %9s %12s %6s MiB %6s KiB\n' report "$med" "$(echo "$EVENTS / $med" | bc 2>/dev/null)" \
	"$(echo "scale=1; $rss / 1024" | bc)" $(($(stat -c %s "$tmp/run.html") / 1024))
ok=1
[ "$(echo "$med < 10" | bc)" = 1 ] && [ "$rss" -lt 65536 ] || ok=0
chromium=$(command -v chromium || command -v chromium-browser)
if [ -n "$chromium" ]; then
	t0=$(date +%s.%N)
	"$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$tmp/chr" --screenshot="$tmp/run.png" --window-size=1200,3000 \
		"file://$tmp/run.html" > /dev/null 2>&1
	if [ -s "$tmp/run.png" ]; then
		echo "chromium: opened it, a screenshot in $(echo "$(date +%s.%N) - $t0" | bc) s"
	else
		echo "chromium: no screenshot"; ok=0
	fi
fi
if [ $ok = 1 ]; then
	echo "report: targets met (< 10 s, < 64 MiB, opens in Chromium)"
else
	echo "report: targets NOT met (< 10 s, < 64 MiB, opens in Chromium)"; exit 1
fi
