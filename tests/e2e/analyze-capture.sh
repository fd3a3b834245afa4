#!/bin/sh
# With the capture: the seed's single-threaded example run for real at 10%
# of a CPU and 100000 B/s of filewrite (tests/apps/seedbasic), then
# analysed. As in the seed: about one second of filewrite (the write of
# twice the limit is held a second), cpu / (cpu + stopped) near the CPU
# restriction, categories adding up to live, and every report running on a
# real trace. Times vary from run to run, so checks are ranges.
R="$ISLAND_ROOT"
A="$R/bin/island-analyze"
C="$R/bin/island-capture"
APP="$R/build/tests/apps/seedbasic"
[ -x "$A" ] && [ -x "$C" ] && [ -x "$APP" ] || { echo "island-capture or tests/apps not built"; exit 77; }
fail=0
"$C" --cpu 0.10 --filewrite 100000 -n seed -o seed.xml "$APP" 100000 > /dev/null ||
	{ echo "FAIL: capture"; exit 1; }
"$A" consumption --csv seed.xml > cons.csv || { echo "FAIL: consumption"; exit 1; }
# field CATEGORY: seconds of the ALL row
field() { awk -F, -v c="$1" '$1 == "ALL" && $4 == c { print $5 }' cons.csv; }
within() { # WHAT VALUE LOW HIGH
	[ "$(echo "$2 >= $3 && $2 <= $4" | bc)" = 1 ] || { echo "FAIL: $1 = $2, not in [$3, $4]"; fail=1; }
}
live=$(field live) cpu=$(field cpu) stopped=$(field stopped) fw=$(field filewrite)
within filewrite "$fw" 0.95 1.10
within "cpu share" "$(echo "scale=4; $cpu / ($cpu + $stopped)" | bc)" 0.05 0.20
sum=$(awk -F, '$1 == "ALL" && $4 != "live" { s += $5 } END { printf "%.6f", s }' cons.csv)
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
exit $fail
