#!/bin/sh
# The profiler's cost: a fixed amount of CPU work (bench/prof-work.c,
# about a second) natively, under island-capture without and with
# --profile (997 Hz: cpu,wall; then with alloc counting), and under
# perf record -F 997 -g, in one run. Medians of RUNS runs, ratios to
# native. Target: --profile=cpu,wall within 5 % of native (goal 2 %).
#   RUNS=5 bench/profile.sh [ITERS]
cd "$(dirname "$0")/.." || exit 2
RUNS=${RUNS:-5}
ITERS=${1:-100000}
W=${O:-build}/bench/prof-work
C=bin/island-capture
[ -x "$W" ] && [ -x "$C" ] || { echo "profile bench: build first (make bench)"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. bench/lib.sh

# run COMMAND...: "WALL CPU", the medians of RUNS runs of its wall time and
# of the CPU time (user + system) of it and its children: the CPU time
# holds on a machine busy with other work, where the wall time does not
run() {
	: > "$tmp/t"; : > "$tmp/c"
	for i in $(seq "$RUNS"); do
		t0=$(now)
		/usr/bin/time -f '%U %S' -o "$tmp/cpu" "$@" > /dev/null 2>&1 || return 1
		t1=$(now)
		echo "$t1 - $t0" | bc >> "$tmp/t"
		awk '{ print $1 + $2 }' "$tmp/cpu" >> "$tmp/c"
	done
	echo "$(median < "$tmp/t") $(median < "$tmp/c")"
}

set -- $(run "$W" "$ITERS")
native=$1 ncpu=$2
printf '%-40s %8s %8s %8s %8s\n' "" "wall s" "ratio" "CPU s" "ratio"
printf '%-40s %8.3f %8s %8.3f %8s\n' "native" "$native" "" "$ncpu" ""
row() {
	label=$1; shift
	r=$(run "$@") || { printf '%-40s %s\n' "$label" "(did not run)"; return; }
	set -- $r
	awk -v l="$label" -v t="$1" -v c="$2" -v n="$native" -v nc="$ncpu" 'BEGIN {
		printf "%-40s %8.3f %7.3fx %8.3f %7.3fx\n", l, t, t / n, c, c / nc }'
}
row "island-capture" "$C" -o "$tmp/a.xml" -- "$W" "$ITERS"
row "island-capture --profile=cpu,wall" "$C" --profile=cpu,wall -o "$tmp/b.xml" -- "$W" "$ITERS"
row "island-capture --profile (+alloc)" "$C" --profile -o "$tmp/c.xml" -- "$W" "$ITERS"
if command -v perf > /dev/null && perf record -F 997 -g -o "$tmp/p.data" true > /dev/null 2>&1; then
	row "perf record -F 997 -g" perf record -q -F 997 -g -o "$tmp/p.data" "$W" "$ITERS"
else
	printf '%-40s %s\n' "perf record -F 997 -g" "(perf does not run here)"
fi
echo "(target: --profile=cpu,wall <= 1.05x native; medians of $RUNS runs; CPU: user + system"
echo " of the command and its children: the capture's own work, writing the trace, is in it)"
