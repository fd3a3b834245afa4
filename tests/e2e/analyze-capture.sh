#!/bin/sh
# With the capture: the seed's single-threaded example run for real at 10%
# of a CPU and 100000 B/s of filewrite (tests/apps/seedbasic), then
# analysed. As in the seed: about one second of filewrite (the write of
# twice the limit is held a second), cpu / (cpu + stopped) the CPU
# restriction within 20%, live the thread's life, categories adding up to
# live, the timeline showing the write's start, its return a second later
# and the stops, and every report running on a real trace. Times vary from
# run to run, so checks are ranges.
R="$ISLAND_ROOT"
A="$R/bin/island-analyze"
C="$R/bin/island-capture"
APP="$R/build/tests/apps/seedbasic"
[ -x "$A" ] && [ -x "$C" ] && [ -x "$APP" ] || { echo "island-capture or tests/apps not built"; exit 77; }
fail=0
field() { awk -F, -v c="$1" '$3 == "SUM" && $4 == c { print $5 }' cons.csv; }
within() { # WHAT VALUE LOW HIGH
	[ "$(echo "$2 >= $3 && $2 <= $4" | bc)" = 1 ] || { echo "FAIL: $1 = $2, not in [$3, $4]"; fail=1; }
}
# The share is cpu / (cpu + stopped), with cpu the wall time the app was
# outside calls and not stopped. On a busy machine the app also waits for
# a core while not stopped, which the monitor (it counts CPU used) rightly
# does not stop, and the share reads high: a run in which the thread's
# measured CPU (its cpu attribute) fell 10% short of its cpu time was
# starved by other load and is run again, at most three times; if all
# three were starved the machine cannot show the share: the other checks
# still run, and the test then says so and is skipped.
runs=0 starved=0
while :; do
	runs=$((runs + 1))
	"$C" --cpu 0.10 --filewrite 100000 -n seed -o seed.xml "$APP" 100000 > /dev/null ||
		{ echo "FAIL: capture"; exit 1; }
	"$A" consumption --csv seed.xml > cons.csv || { echo "FAIL: consumption"; exit 1; }
	live=$(field live) cpu=$(field compute) stopped=$(field stopped) fw=$(field filewrite)
	share=$(echo "scale=4; $cpu / ($cpu + $stopped)" | bc)
	used=$(sed -n 's/.*<thread .* cpu="\([0-9.]*\)".*/\1/p' seed.xml)
	echo "run $runs: cpu $cpu (measured $used), stopped $stopped, share $share, filewrite $fw"
	[ "$(echo "$share >= 0.08 && $share <= 0.12" | bc)" = 1 ] && break
	[ "$(echo "$used < 0.9 * $cpu" | bc)" = 1 ] || break
	[ $runs -lt 3 ] && continue
	starved=1
	break
done
within filewrite "$fw" 0.95 1.10
[ $starved = 1 ] || within "cpu share" "$share" 0.08 0.12
# live is the thread's life in the trace
se=$(sed -n 's/.*<thread .* start="\([0-9.]*\)" end="\([0-9.]*\)".*/\2 - \1/p' seed.xml)
within "live - (end - start)" "$(echo "$live - ($se)" | bc)" -0.000001 0.000001
# the timeline: the write's start, its return about a second later, the stops
"$A" timeline --starts seed.xml > tl.txt || { echo "FAIL: timeline"; fail=1; }
ws=$(awk '/ start call write / { print $1 }' tl.txt)
wr=$(awk '$7 == "write" && $8 == 200000 { print $1 }' tl.txt)
[ -n "$ws" ] && [ -n "$wr" ] || { echo "FAIL: the write's start or return is not in the timeline"; fail=1; }
[ -n "$ws" ] && [ -n "$wr" ] && within "write's return - start" "$(echo "$wr - $ws" | bc)" 0.95 1.10
nstops=$(grep -c ' ALL  *Stopped ' tl.txt)
[ "$nstops" -ge 1 ] && [ "$nstops" = "$(grep -c '<stop ' seed.xml)" ] ||
	{ echo "FAIL: $nstops ALL Stopped lines for $(grep -c '<stop ' seed.xml) stops"; fail=1; }
sum=$(awk -F, '$3 == "SUM" && $4 != "live" { s += $5 } END { printf "%.6f", s }' cons.csv)
within "categories - live" "$(echo "$sum - $live" | bc)" -0.000010 0.000010
for r in summary sums timeline files sockets ttx regions; do
	"$A" $r seed.xml > /dev/null || { echo "FAIL: $r"; fail=1; }
done
"$A" utilization --cores 1 seed.xml > /dev/null || { echo "FAIL: utilization"; fail=1; }
"$A" plot -o seed.svg seed.xml || { echo "FAIL: plot"; fail=1; }
"$A" export --format chrome -o seed.json seed.xml || { echo "FAIL: export"; fail=1; }
if command -v xmllint > /dev/null; then
	xmllint --noout --schema "$R/docs/trace.xsd" seed.xml || fail=1
	xmllint --noout seed.svg || fail=1
fi
if [ $fail = 0 ] && [ $starved = 1 ]; then
	echo "skip: the machine is too busy (3 runs starved of CPU): cpu share not checked"
	exit 77
fi
exit $fail
