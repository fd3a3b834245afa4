#!/bin/sh
# Replay fidelity and overhead.
#  1. Each //TRACE pseudo-application (tests/apps/pseudo*.c, 4 nodes) is
#     captured with island-capture --cluster --discover (WAIT/SIGNAL found
#     by throttling), then replayed RUNS times in each mode; the median
#     error of the whole run and the worst node's are printed, with
#     mpirun -n 4 island-replay --mpi where mpirun is found.
#  2. Overhead: 1,000,000 64-byte writes (build/tests/apps/writes) are
#     captured once and replayed with --mode afap --compute none: calls per
#     second of the replayer, beside the application's own run.
#   RUNS=5 PHASES=4 bench/replay.sh
cd "$(dirname "$0")/.." || exit 2
ROOT=$PWD
RUNS=${RUNS:-5}
PHASES=${PHASES:-4}
R=$ROOT/bin/island-replay
C=$ROOT/bin/island-capture
APPS=$ROOT/build/tests/apps
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# errors REPORT: "RUN WORST" (the run's error, the node error farthest from 0)
errors() {
	run=$(sed -n 's/.*<run .* error="\([-0-9.]*\)".*/\1/p' "$1")
	worst=$(sed -n 's/.*<node .* error="\([-0-9.]*\)".*/\1/p' "$1" |
		awk '{ a = $1 < 0 ? -$1 : $1; if (a >= m) { m = a; w = $1 } } END { print w }')
	echo "$run $worst"
}

# one REPORT-PREFIX COMMAND...: RUNS replays, medians of both errors
one() {
	label=$1; shift
	: > "$tmp/run"; : > "$tmp/worst"
	for i in $(seq "$RUNS"); do
		rm -rf "$tmp/root"
		"$@" -q --root "$tmp/root" --report "$tmp/rep.xml" "$tmp/t.xml" > /dev/null 2>&1 || { echo "  $label: replay failed"; return; }

		e=$(errors "$tmp/rep.xml")
		echo "${e% *}" >> "$tmp/run"; echo "${e#* }" >> "$tmp/worst"
	done
	printf '  %-16s run %+7.2f %%   worst node %+7.2f %%\n' "$label" \
		"$(median < "$tmp/run")" "$(median < "$tmp/worst")"
}

echo "replay fidelity (median of $RUNS replays; error = (replayed - original) / original)"
for app in pseudo pseudosync pseudosyncdat; do
	[ -x "$APPS/$app" ] || { echo "$app: not built"; continue; }
	{
		echo '<cluster version="1">'
		for i in 0 1 2 3; do
			echo "  <node name=\"n$i\"><arg>$APPS/$app</arg><arg>\${NODE}</arg><arg>\${INDEX}</arg><arg>\${NNODES}</arg><arg>127.0.0.1</arg><arg>\${PORT}</arg><arg>\${SCRATCH}</arg><arg>$PHASES</arg></node>"
		done
		echo '</cluster>'
	} > "$tmp/c.xml"
	how="--discover"
	if ! (cd "$tmp" && timeout 300 "$C" --cluster c.xml --discover --timeout 60 -o t.xml > cap.log 2>&1); then
		how="one pass, no WAIT (--discover failed: $(grep -v '^island-capture: c.xml' "$tmp/cap.log" | tail -1))"
		(cd "$tmp" && timeout 120 "$C" --cluster c.xml -o t.xml > cap.log 2>&1) ||
			{ echo "$app: capture failed: $(tail -1 "$tmp/cap.log")"; continue; }
	fi
	echo "$app: 4 nodes, $PHASES phases, $(grep -c '<wait ' "$tmp/t.xml") WAITs, captured with $how"
	for m in causal think timed afap; do
		one "$m" "$R" --mode "$m"
	done
	if command -v mpirun > /dev/null && ! "$R" --mpi --root "$tmp/probe" "$tmp/t.xml" 2>&1 | grep -q "built without MPI"; then
		one "causal (mpi)" mpirun --oversubscribe --bind-to none -n 4 "$R" --mpi
	fi
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
