#!/bin/sh
# The seed's multi-threaded example (tests/apps/seedmt) at 1% of a CPU and
# 100000 B/s of filewrite: threads "writer" and "burner" sleep 0.1 s, then
# the writer writes twice the limit and the burner computes for one second
# of wall time; the main thread sleeps 0.2 s and ends. As in the seed:
# the writer shows 1 s of filewrite and the rest of its life stopped
# (besides its sleep), the burner's cpu / (cpu + stopped) is the CPU
# share, the main thread shows its 0.2 s of sleep.
#
# --cpu-period 0.05: at the default 0.01 s the whole run holds 2 to 9
# stops on 2 cores, and the startup CPU of the other threads takes a
# varying part of each window, so that the burner's share varied from
# 0.3% to 1.0% over our runs; with 0.05 s it was 0.92% in every run.
# Times vary, so the checks are ranges; sleeps are the requested times,
# exactly, unless a sleep overran where no stop covers it (see
# want_sleep). cpu is wall time outside calls and stops: on a busy machine
# the burner also waits for a core while not stopped and its share reads
# high. A run in which its measured CPU (cpu attribute) fell 10% short of
# its cpu time was starved by other load and is run again, at most three
# times; if all three were, the share is not checked and the test is
# skipped once the other checks passed.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
[ -x "$CAPTURE" ] && [ -x "$ANALYZE" ] && [ -x "$APPS/seedmt" ] || { echo "not built"; exit 77; }
command -v bc > /dev/null || { echo "bc missing"; exit 77; }

calc() { echo "scale=6; $*" | bc; }

get() { # THREAD CATEGORY
	awk -F, -v t="$1" -v c="$2" '$3 == t && $4 == c { print $5 }' cons.csv
}
# want_sleep THREAD: what its sleep must show. The request, exactly, when
# stops inside the call cover its overrun (the usual case: the start-up
# CPU has the app stopped before the sleeps end); else the request plus
# the overrun no stop covers (the sleep ended in a window where the app
# ran, and it was late waking up).
want_sleep() {
	awk -v t="$1" '
		function attr(n,   v) { v = $0; if (!sub(".* " n "=\"", "", v)) return ""; sub("\".*", "", v); return v }
		/<thread / { cur = attr("name") }
		/<io .*res="sleep"/ && cur == t { s = attr("start"); e = attr("end"); r = attr("req") }
		/<stop / { ns++; ss[ns] = attr("start"); se[ns] = ss[ns] + attr("dur") }
		END {
			over = e - s - r; cov = 0
			for (i = 1; i <= ns; i++) {
				lo = ss[i] > s ? ss[i] : s; hi = se[i] < e ? se[i] : e
				if (hi > lo) cov += hi - lo
			}
			printf "%.6f\n", (over > cov ? r + over - cov : r)
		}' mt.xml
}
runs=0 starved=0
while :; do
	runs=$((runs + 1))
	"$CAPTURE" --cpu 0.01 --cpu-period 0.05 --filewrite 100000 -n mt "$APPS/seedmt" 100000 ||
		fail "capture"
	check_trace mt.xml
	"$ANALYZE" consumption --csv mt.xml > cons.csv || fail "consumption"
	cpu=$(get burner compute) st=$(get burner stopped)
	share=$(calc "$cpu / ($cpu + $st)")
	used=$(sed -n 's/.*<thread .* name="burner" .* cpu="\([0-9.]*\)".*/\1/p' mt.xml)
	echo "run $runs: burner cpu $cpu (measured $used), stopped $st, share $share"
	[ "$(calc "$share >= 0.007 && $share <= 0.013")" = 1 ] && break
	[ "$(calc "$used < 0.9 * $cpu")" = 1 ] || break
	[ $runs -lt 3 ] && continue
	starved=1
	break
done
for t in seedmt writer burner; do
	[ -n "$(get $t live)" ] || fail "no thread $t"
	sum=$(awk -F, -v t=$t '$3 == t && $4 != "live" { s += $5 } END { printf "%.6f", s }' cons.csv)
	within "$t: categories - live" "$(calc "$sum - $(get $t live)")" -0.000010 0.000010
done

# main: its 0.2 s of sleep, exactly the request
expect_eq "main sleep" "$(get seedmt sleep)" "$(want_sleep seedmt)"

# writer: 1 s of filewrite, its 0.1 s sleep, the rest mostly stopped
live=$(get writer live) fw=$(get writer filewrite) st=$(get writer stopped)
within "writer filewrite" "$fw" 0.90 1.10
expect_eq "writer sleep" "$(get writer sleep)" "$(want_sleep writer)"
rest=$(calc "$live - $fw - 0.1")
within "writer stopped / rest of its life" "$(calc "$st / $rest")" 0.95 1.00
echo "writer: live $live, filewrite $fw, stopped $st of $rest"

# burner: cpu / (cpu + stopped) is the CPU share, about 1%
[ $starved = 1 ] || within "burner cpu share" "$share" 0.007 0.013
expect_eq "burner sleep" "$(get burner sleep)" "$(want_sleep burner)"

# The timeline shows the write's start and return and the stops.
"$ANALYZE" timeline --starts mt.xml > tl.txt || fail "timeline"
grep -q ' writer  *start call write  ' tl.txt || fail "no start of the write"
grep -q ' writer  *write  *200000  ' tl.txt || fail "no return of the write"
[ "$(grep -c ' ALL  *Stopped ' tl.txt)" = "$(grep -c '<stop ' mt.xml)" ] || fail "stops missing from the timeline"
if [ $starved = 1 ]; then
	echo "skip: the machine is too busy (3 runs starved of CPU): burner's share not checked"
	exit 77
fi
exit 0
