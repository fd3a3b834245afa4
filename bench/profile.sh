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

run() { # LABEL COMMAND...: median wall seconds of RUNS runs
	label=$1; shift
	: > "$tmp/t"
	for i in $(seq "$RUNS"); do
		t0=$(now); "$@" > /dev/null 2>&1 || return 1; t1=$(now)
		echo "$t1 - $t0" | bc >> "$tmp/t"
	done
	median < "$tmp/t"
}

native=$(run native "$W" "$ITERS")
printf '%-40s %8.3f s\n' "native" "$native"
row() {
	label=$1; shift
	t=$(run "$label" "$@") || { printf '%-40s %s\n' "$label" "(did not run)"; return; }
	awk -v l="$label" -v t="$t" -v n="$native" 'BEGIN { printf "%-40s %8.3f s  %6.3fx  %+6.1f %%\n", l, t, t / n, (t / n - 1) * 100 }'
}
row "island-capture" "$C" -o "$tmp/a.xml" -- "$W" "$ITERS"
row "island-capture --profile=cpu,wall" "$C" --profile=cpu,wall -o "$tmp/b.xml" -- "$W" "$ITERS"
row "island-capture --profile (+alloc)" "$C" --profile -o "$tmp/c.xml" -- "$W" "$ITERS"
if command -v perf > /dev/null && perf record -F 997 -g -o "$tmp/p.data" true > /dev/null 2>&1; then
	row "perf record -F 997 -g" perf record -q -F 997 -g -o "$tmp/p.data" "$W" "$ITERS"
else
	printf '%-40s %s\n' "perf record -F 997 -g" "(perf does not run here)"
fi
echo "(target: --profile=cpu,wall <= 1.05x native; medians of $RUNS runs)"
