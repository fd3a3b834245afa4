#!/bin/sh
# Many nodes (issue 14): NODES generated node traces of EVENTS events each
# (16 threads, .xml.zst), merged into one run with `island-analyze merge`,
# then `island-analyze sums` on the merged trace, and the same merged
# into the binary encoding (.isb.zst): seconds, events/s and peak RSS of
# each step. Target: both under 64 MiB at 64 x 1,000,000.
#   NODES=64 EVENTS=1000000 bench/scale.sh
cd "$(dirname "$0")/.." || exit 2
NODES=${NODES:-64}
EVENTS=${EVENTS:-1000000}
gen=${O:-build}/bench/analyze-gen
A=bin/island-analyze
[ -x "$gen" ] && [ -x "$A" ] || { echo "scale: build first (make bench)"; exit 2; }
command -v zstd >/dev/null || { echo "scale: zstd not installed"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

i=0
while [ $i -lt "$NODES" ]; do
	"$gen" "$EVENTS" 16 "n$i" | zstd -1 -q -o "$tmp/n$i.xml.zst" || exit 2
	i=$((i + 1))
done
total=$((NODES * EVENTS))
echo "scale: $NODES nodes x $EVENTS events ($total events), $(du -sm "$tmp" | cut -f1) MiB of .xml.zst"
printf '%-8s %9s %12s %10s\n' step seconds events/s "peak RSS"
step() { # NAME CMD...: time CMD, print a row
	name=$1; shift
	/usr/bin/time -f '%e %M' -o "$tmp/time" "$@" > /dev/null || { echo "scale: $name failed"; exit 1; }
	read -r secs kb < "$tmp/time"
	printf '%-8s %9s %12s %6s MiB\n' "$name" "$secs" "$(echo "$total / $secs" | bc 2>/dev/null)" \
		"$(echo "scale=1; $kb / 1024" | bc)"
}
step merge "$A" merge -o "$tmp/run.xml.zst" "$tmp"/n*.xml.zst
step sums "$A" sums "$tmp/run.xml.zst"
# the same run merged into the binary encoding (docs/trace-binary.md)
step merge-isb "$A" merge -o "$tmp/run.isb.zst" "$tmp"/n*.xml.zst
step sums-isb "$A" sums "$tmp/run.isb.zst"
echo "merged: $(($(stat -c %s "$tmp/run.xml.zst") / 1048576)) MiB .xml.zst, $(($(stat -c %s "$tmp/run.isb.zst") / 1048576)) MiB .isb.zst"
