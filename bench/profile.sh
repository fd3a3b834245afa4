#!/bin/sh
# The profiler's cost: a fixed amount of CPU work (bench/prof-work.c,
# about a second) natively, under island-capture without and with
# --profile (997 Hz: cpu,wall; then with alloc counting), and under
# perf record -F 997 -g, in one run. Medians of RUNS runs, ratios to
# native; beside the profiled rows, the rate the snapshots really came at
# (timer snapshots per CPU second, the trace's <profile rate>: 997 with
# the task-clock event, the kernel's tick with the CPU-clock timer).
# Target: --profile=cpu,wall within 5 % of native (goal 2 %), flagged
# when over. Measured (2 cores, other work running): CPU 1.014x native,
# wall 0.80-1.27x (noise), 997-998 snapshots per CPU second; perf record
# -F 997 -g 1.20x CPU.
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
printf '%-40s %8s %8s %8s %8s %8s\n' "" "wall s" "ratio" "CPU s" "ratio" "rate/s"
printf '%-40s %8.3f %8s %8.3f %8s\n' "native" "$native" "" "$ncpu" ""
# row LABEL TRACE COMMAND...: TRACE, when not -, is the trace the command
# writes, for its <profile rate>; +TRACE: also the ratios against the
# target, over it when both are (the wall time varies with what else runs,
# the CPU time is counted in 10 ms ticks)
row() {
	label=$1 trace=${2#+} flag=
	case $2 in +*) flag=1 ;; esac
	shift 2
	r=$(run "$@") || { printf '%-40s %s\n' "$label" "(did not run)"; return; }
	set -- $r
	rate=
	[ "$trace" = - ] || rate=$(sed -n 's/.*<profile .* rate="\([0-9]*\)".*/\1/p' "$trace")
	awk -v l="$label" -v t="$1" -v c="$2" -v n="$native" -v nc="$ncpu" -v rate="$rate" \
	    -v flag="$flag" 'BEGIN {
		printf "%-40s %8.3f %7.3fx %8.3f %7.3fx %8s%s\n", l, t, t / n, c, c / nc,
			rate, (flag && t / n > 1.05 && c / nc > 1.05) ? "  OVER TARGET (1.05x)" : "" }'
}
row "island-capture" - "$C" -o "$tmp/a.xml" -- "$W" "$ITERS"
row "island-capture --profile=cpu,wall" "+$tmp/b.xml" "$C" --profile=cpu,wall -o "$tmp/b.xml" -- "$W" "$ITERS"
row "island-capture --profile (+alloc)" "$tmp/c.xml" "$C" --profile -o "$tmp/c.xml" -- "$W" "$ITERS"
if command -v perf > /dev/null && perf record -F 997 -g -o "$tmp/p.data" true > /dev/null 2>&1; then
	row "perf record -F 997 -g" - perf record -q -F 997 -g -o "$tmp/p.data" "$W" "$ITERS"
else
	printf '%-40s %s\n' "perf record -F 997 -g" "(perf does not run here)"
fi
echo "(target: --profile=cpu,wall <= 1.05x native, flagged when wall and CPU are over; medians of $RUNS runs;"
echo " CPU: user + system of the command and its children: the capture's own work, writing"
echo " the trace, is in it; rate/s: snapshots per CPU second, the last run's, asked 997)"
