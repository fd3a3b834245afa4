#!/bin/sh
# What-if replay: capture on a fast file system, predict a slow one.
# Each workload is captured on tmpfs (/dev/shm), run for real on ext4 on
# a loop device throttled by a cgroup (IOPS=200 I/Os and BPS=20 MiB/s
# each way), and its trace replayed there in causal, think and timed
# modes; one table: the real time, each mode's prediction and error
# (medians of RUNS). Needs root, a loop device and an io controller: it
# says why and ends (status 0) where it cannot. Everything it made (the
# mount, the loop device, its image, the cgroup) goes on every exit.
# Then island-analyze whatif is checked: each of PREDICT (sqlite) captured
# on the slow system, its time predicted for a device twice as fast and
# twice as slow, against a replay on the device throttled so, and that
# replay against the program run there for real.
#   RUNS=3 IOPS=200 BPS=20971520 [ONLY="sqlite fio"] [PREDICT=sqlite] bench/whatif.sh
# (ONLY= none of the first table, PREDICT= none of the second)
cd "$(dirname "$0")/.." || exit 2
ROOT=$PWD
RUNS=${RUNS:-3}
IOPS=${IOPS:-200}
BPS=${BPS:-20971520}
MODES=${MODES:-causal think timed}
ONLY=${ONLY-sqlite fio-sync fio-psync git tar pseudosync}
C=$ROOT/bin/island-capture
R=$ROOT/bin/island-replay
APPS=$ROOT/build/tests/apps
. bench/lib.sh
. bench/slowfs.sh

fast=$(mktemp -d /dev/shm/island-whatif.XXXXXX) || exit 2
trap 'slowfs_drop; rm -rf "$fast"' EXIT
trap 'exit 130' INT TERM HUP
slowfs_make "$IOPS" "$BPS" || { echo "whatif: skipped: $slow_why"; exit 0; }
echo "whatif: $slow_how, $IOPS IOPS, $BPS B/s on $slow_loop; RUNS=$RUNS (medians)"

. bench/whatif-work.sh

# one NAME DIR: set up and run NAME in DIR, its seconds on stdout
real_once() {
	slowfs_fresh && mkdir -p "$2" && "wl_$1" "$2" && sync -f "$2"
	(cd "$2" && t0=$(now) && slow_run sh -c ". '$ROOT/bench/whatif-work.sh'; run_$1" > /dev/null 2>&1 &&
		echo "$(now) - $t0" | bc)
}
# the capture on tmpfs: $fast/NAME.xml
capture() {
	d=$fast/$1/w
	rm -rf "$d" && mkdir -p "$d" && "wl_$1" "$d" &&
	(cd "$d" && "$C" -o "$fast/$1.xml" -- sh -c ". '$ROOT/bench/whatif-work.sh'; run_$1" > /dev/null 2> "$fast/$1.cap.err")
}
replay_once() {
	slowfs_fresh || { echo fail; return; }
	slow_run "$R" -q --mode "$2" --root "$slow_mnt/rep" --report "$fast/rep.xml" "$3" \
		> /dev/null 2> "$fast/rep.err" || { echo fail; return; }
	sed -n 's/.*<node .* failed="\([0-9]*\)".*/\1/p' "$fast/rep.xml" >> "$fast/failed"
	grep '<failed ' "$fast/rep.xml" | sed "s/^ */$1 $2: /" >> "$fast/failed.all"
	sed -n 's/.*<run original="[^"]*" replayed="\([0-9.]*\)".*/\1/p' "$fast/rep.xml"
}
# predict NAME MODE TRACE: the median of RUNS replays ("fail" if one
# failed), the calls that failed in them added to $fast/failed
predict() {
	for i in $(seq "$RUNS"); do replay_once "$@"; done > "$fast/pred"
	if grep -q fail "$fast/pred"; then echo fail; else median < "$fast/pred"; fi
}
failed() { awk '{ s += $1 } END { print s + 0 }' "$fast/failed"; }
# rows NAME TRACE REAL...: RUNS rounds of the real run (REAL...) and a
# replay in each mode, interleaved (a shared disk's load drifts over
# minutes: it then weighs on both alike); the medians' row
rows() {
	name=$1 trace=$2
	shift 2
	: > "$fast/real"
	for m in $MODES; do : > "$fast/pred.$m"; done
	for i in $(seq "$RUNS"); do
		"$@" "$i" >> "$fast/real"
		for m in $MODES; do replay_once "$name" "$m" "$trace" >> "$fast/pred.$m"; done
	done
	real=$(median < "$fast/real")
	printf '%-12s %9.3f' "$(echo "$name" | tr _ -)" "$real"
	for m in $MODES; do
		if grep -q fail "$fast/pred.$m"; then p=fail; else p=$(median < "$fast/pred.$m"); fi
		printf ' %9s %7s' "$(echo "$p" | awk '$1 == "fail" { print; next } { printf "%.3f", $1 }')" "$(err "$p" "$real")"
	done
	echo " $(failed)"
}
# pseudosync: 4 nodes, a write and fsync per phase, a TCP barrier
# through n0; captured with --discover (its WAITs), run for real as four
# processes on the slow file system
ps_cluster() {
	echo '<cluster version="1">'
	for i in 0 1 2 3; do
		printf '  <node name="n%d">' $i
		for a in "$APPS/pseudosync" '${NODE}' '${INDEX}' '${NNODES}' 127.0.0.1 '${PORT}' '${SCRATCH}' 4 20 fsync; do
			printf '<arg>%s</arg>' "$a"
		done
		echo '</node>'
	done
	echo '</cluster>'
}
ps_capture() {
	ps_cluster > "$fast/ps.cluster.xml"
	"$C" --cluster "$fast/ps.cluster.xml" --discover --passes-dir "$fast/passes" \
		-o "$fast/pseudosync.xml" > /dev/null 2> "$fast/pseudosync.cap.err"
}
ps_real() {
	d=$slow_mnt/ps port=$((20000 + $$ % 20000 + $1))
	slowfs_fresh && mkdir -p "$d" && sync -f "$d" || return
	t0=$(now)
	pids=
	for i in 0 1 2 3; do
		slow_run "$APPS/pseudosync" n$i $i 4 127.0.0.1 $port "$d" 4 20 fsync > /dev/null 2>&1 &
		pids="$pids $!"
	done
	ok=1
	for p in $pids; do wait "$p" || ok=0; done
	[ $ok = 1 ] && echo "$(now) - $t0" | bc
}
pseudosync_row() {
	ps_capture || { echo "pseudosync: capture failed: $(tail -3 "$fast/pseudosync.cap.err")"; return; }
	: > "$fast/failed"
	rows pseudosync "$fast/pseudosync.xml" ps_real
}
err() { echo "$1 $2" | awk '$1 == "fail" { print "fail"; next } { printf "%+.1f%%", ($1 / $2 - 1) * 100 }'; }

if [ -n "$ONLY" ]; then
	printf '%-12s %9s' workload real
	for m in $MODES; do printf ' %9s %7s' "$m" error; done
	echo " failed"
fi
for w in $ONLY; do
	fn=$(echo "$w" | tr - _)
	if [ "$w" = pseudosync ]; then
		pseudosync_row
		continue
	fi
	capture "$fn" || { echo "$w: capture failed: $(cat "$fast/$fn.cap.err")"; continue; }
	: > "$fast/failed"
	rows "$fn" "$fast/$fn.xml" real_once "$fn" "$slow_mnt/real"
done
# island-analyze whatif validated: each of PREDICT captured on the slow
# system; its time predicted for a device twice as fast and twice as
# slow (--if '*:file*2', '*:file*0.5'), and the trace replayed (causal) on
# the device throttled so, and the program run there (medians of RUNS)
slow_capture() {
	d=$slow_mnt/cap/$1
	slowfs_fresh && mkdir -p "$d" && "wl_$1" "$d" && sync -f "$d" &&
	(cd "$d" && slow_run "$C" -o "$fast/$1.slow.xml" -- sh -c ". '$ROOT/bench/whatif-work.sh'; run_$1" \
		> /dev/null 2> "$fast/$1.cap.err")
}
if [ -n "${PREDICT-sqlite}" ]; then
	echo
	printf '%-12s %7s %9s %9s %9s %7s %9s %7s\n' workload device captured predicted replayed error \
		real "replay error"
fi
for w in ${PREDICT-sqlite}; do
	fn=$(echo "$w" | tr - _)
	slow_capture "$fn" || { echo "$w: capture failed: $(cat "$fast/$fn.cap.err")"; continue; }
	orig=$(sed -n 's/.*<node name="[^"]*" [^>]*start="\([0-9.]*\)" end="\([0-9.]*\)".*/\1 \2/p' "$fast/$fn.slow.xml" |
		awk '{ print $2 - $1; exit }')
	for fac in 2 0.5; do
		slowfs_rate "$(echo "$IOPS * $fac / 1" | bc)" "$(echo "$BPS * $fac / 1" | bc)"
		pred=$("$ROOT/bin/island-analyze" whatif --csv --if "*:file*$fac" "$fast/$fn.slow.xml" |
			awk -F, '$1 == "run" { print $3 }')
		: > "$fast/failed"
		rep=$(predict "$fn" causal "$fast/$fn.slow.xml")
		for i in $(seq "$RUNS"); do real_once "$fn" "$slow_mnt/real"; done > "$fast/real"
		real=$(median < "$fast/real")
		printf '%-12s %6sx %9.3f %9.3f %9s %7s %9.3f %7s\n' "$w" "$fac" "$orig" "$pred" \
			"$(echo "$rep" | awk '$1 == "fail" { print; next } { printf "%.3f", $1 }')" "$(err "$pred" "$rep")" \
			"$real" "$(err "$rep" "$real")"
	done
	slowfs_rate "$IOPS" "$BPS"
done
# what failed, by workload, mode and call (the replays' reports)
[ -s "$fast/failed.all" ] && { echo "failed calls:"; sort "$fast/failed.all" | uniq -c; }
exit 0
