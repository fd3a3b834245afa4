#!/bin/sh
# Replay fidelity and overhead.
#  1. Each //TRACE pseudo-application (tests/apps/pseudo*.c, 4 nodes) is
#     captured CAPTURES times with island-capture --cluster --discover
#     (WAIT/SIGNAL found by throttling), each capture replayed RUNS times in
#     each mode; the median error of the whole run and the worst node's are
#     printed per capture and over the captures, with mpirun -n 4
#     island-replay --mpi where mpirun is found. The application's own
#     spread from capture to capture is printed beside.
#     Scale: compute phases of UNIT ms times (1 + index) (pseudo) or
#     (1 + 2 index) (the sync apps); pseudo runs 8 phases, so that its
#     shortest node lasts 160 ms, the sync apps 4 (their nodes wait for the
#     slowest: 0.6 s each). Four nodes spinning on two cores are preempted
#     every few ms, so a node of 35 ms (UNIT=5 PHASES=4) does not repeat its
#     own time within 5 %; PHASES overrides both counts.
#  2. Overhead: 1,000,000 64-byte writes (build/tests/apps/writes) are
#     captured once and replayed with --mode afap --compute none: calls per
#     second of the replayer, beside the application's own run.
#   RUNS=5 CAPTURES=3 UNIT=20 [PHASES=N] bench/replay.sh
cd "$(dirname "$0")/.." || exit 2
ROOT=$PWD
RUNS=${RUNS:-5}
UNIT=${UNIT:-20}
CAPTURES=${CAPTURES:-3}
R=$ROOT/bin/island-replay
C=$ROOT/bin/island-capture
APPS=$ROOT/build/tests/apps
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

. bench/lib.sh
# errors REPORT: "RUN WORST" (the run's error, the node error farthest from 0)
errors() {
	run=$(sed -n 's/.*<run .* error="\([-0-9.]*\)".*/\1/p' "$1")
	worst=$(sed -n 's/.*<node .* error="\([-0-9.]*\)".*/\1/p' "$1" |
		awk '{ a = $1 < 0 ? -$1 : $1; if (a >= m) { m = a; w = $1 } } END { print w }')
	echo "$run $worst"
}

# one TRACE LABEL COMMAND...: RUNS replays of TRACE; appends the medians of
# both errors ("RUN WORST") to $tmp/LABEL
one() {
	t=$1 label=$2; shift 2
	: > "$tmp/run"; : > "$tmp/worst"
	for i in $(seq "$RUNS"); do
		rm -rf "$tmp/root"
		"$@" -q --root "$tmp/root" --report "$tmp/rep.xml" "$t" > /dev/null 2>&1 ||
			{ echo "  $label: replay failed"; return; }
		e=$(errors "$tmp/rep.xml")
		echo "${e% *}" >> "$tmp/run"; echo "${e#* }" >> "$tmp/worst"
		echo "$e" >> "$tmp/all.$label"
	done
	echo "$(median < "$tmp/run") $(median < "$tmp/worst")" >> "$tmp/res.$label"
}

# farthest FILE COLUMN: the value of COLUMN farthest from 0
farthest() {
	awk -v c="$2" '{ a = $c < 0 ? -$c : $c; if (a >= m) { m = a; w = $c } } END { printf "%+.1f", w }' "$1"
}

# show LABEL: per capture and the median over captures, then the farthest
# single replay
show() {
	[ -s "$tmp/res.$1" ] || return
	printf '  %-14s run %+6.1f %% (%s)   worst node %+6.1f %% (%s)   single replays: run %s %%, node %s %%\n' "$1" \
		"$(awk '{ print $1 }' "$tmp/res.$1" | median)" \
		"$(awk '{ printf "%s%+.1f", (NR > 1 ? " " : ""), $1 }' "$tmp/res.$1")" \
		"$(awk '{ print $2 }' "$tmp/res.$1" | median)" \
		"$(awk '{ printf "%s%+.1f", (NR > 1 ? " " : ""), $2 }' "$tmp/res.$1")" \
		"$(farthest "$tmp/all.$1" 1)" "$(farthest "$tmp/all.$1" 2)"
}

# durations TRACE: the nodes' run times, one line
durations() {
	sed -n 's/.*<node name="[^"]*" [^>]*start="\([0-9.]*\)" end="\([0-9.]*\)".*/\1 \2/p' "$1" |
		awk '{ printf "%s%.6f", (NR > 1 ? " " : ""), $2 - $1 } END { print "" }'
}

echo "replay fidelity: $CAPTURES captures of each application, $RUNS replays of each;"
echo "error = (replayed - original) / original, median over the replays of a capture,"
echo "then over the captures (each capture's in parentheses); then the farthest"
echo "of all single replays"
modes="causal think timed afap"
for app in pseudo pseudosync pseudosyncdat; do
	[ -x "$APPS/$app" ] || { echo "$app: not built"; continue; }
	case $app in pseudo) phases=${PHASES:-8} ;; *) phases=${PHASES:-4} ;; esac
	pseudo_cluster "$app" "$phases" "$UNIT" > "$tmp/c.xml"
	rm -f "$tmp"/res.* "$tmp"/all.* "$tmp/dur"
	mpi=""
	for k in $(seq "$CAPTURES"); do
		how="--discover"
		if ! (cd "$tmp" && timeout 300 "$C" --cluster c.xml --discover --timeout 60 -o t$k.xml > cap.log 2>&1); then
			how="one pass, no WAIT (--discover failed: $(grep -v '^island-capture: c.xml' "$tmp/cap.log" | tail -1))"
			(cd "$tmp" && timeout 120 "$C" --cluster c.xml -o t$k.xml > cap.log 2>&1) ||
				{ echo "$app: capture failed: $(tail -1 "$tmp/cap.log")"; continue; }
		fi
		durations "$tmp/t$k.xml" >> "$tmp/dur"
		for m in $modes; do
			one "$tmp/t$k.xml" "$m" "$R" --mode "$m"
		done
		if command -v mpirun > /dev/null && ! "$R" --mpi --root "$tmp/probe" "$tmp/t$k.xml" 2>&1 | grep -q "built without MPI"; then
			mpi="causal-mpi"
			one "$tmp/t$k.xml" causal-mpi mpirun --oversubscribe --bind-to none -n 4 "$R" --mpi
		fi
	done
	[ -s "$tmp/dur" ] || continue
	# the application's own spread: per node, (longest - shortest) / shortest
	spread=$(awk '{ for (i = 1; i <= NF; i++) { if (NR == 1 || $i < lo[i]) lo[i] = $i; if ($i > hi[i]) hi[i] = $i } }
		END { for (i in lo) { d = (hi[i] - lo[i]) / lo[i] * 100; if (d > m) m = d }; printf "%.1f", m }' "$tmp/dur")
	echo "$app: 4 nodes, $phases phases of $UNIT ms units, $(grep -c '<wait ' "$tmp/t1.xml") WAITs, captured with $how;"
	echo "  its own run times vary by up to $spread % per node from capture to capture"
	for m in $modes $mpi; do
		show "$m"
	done
done

echo "replay overhead: 1,000,000 writes of 64 bytes to /dev/null, --mode afap --compute none"
t0=$(date +%s.%N); "$APPS/writes" 1 1000000 64; t1=$(date +%s.%N)
native=$(echo "$t1 - $t0" | bc)
"$C" -z -n big -o "$tmp/big.xml.gz" "$APPS/writes" 1 1000000 64 || { echo "capture failed"; exit 1; }
: > "$tmp/calls"
for i in $(seq "$RUNS"); do
	t0=$(date +%s.%N)
	"$R" -q --root "$tmp/root" --mode afap --compute none --report "$tmp/rep.xml" "$tmp/big.xml.gz" || exit 1
	t1=$(date +%s.%N)
	echo "$t1 - $t0" | bc >> "$tmp/total"
	sed -n 's/.*<run .* replayed="\([0-9.]*\)".*/\1/p' "$tmp/rep.xml" >> "$tmp/calls"
done
repl=$(median < "$tmp/calls")
total=$(median < "$tmp/total")
calls=$(sed -n 's/.*<node .* calls="\([0-9]*\)".*/\1/p' "$tmp/rep.xml")
printf '  native run          %8.3f s\n' "$native"
printf '  replayed calls      %8.3f s   %.2f M calls/s   %.0f ns per call\n' "$repl" \
	"$(echo "$calls / $repl / 1000000" | bc -l)" "$(echo "$repl * 1000000000 / $calls" | bc -l)"
printf '  with loading        %8.3f s   (%s, %s bytes gzip)\n' "$total" "trace load and check" \
	"$(stat -c %s "$tmp/big.xml.gz")"
