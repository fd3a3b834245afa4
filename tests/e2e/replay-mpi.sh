# island-replay --mpi: one node per rank, WAIT/SIGNAL over MPI messages.
# The two-node trace gives the order and the run time of the local replay
# (within 5 %).
. "$ISLAND_ROOT/tests/e2e/lib.sh"
REPLAY="$ISLAND_ROOT/bin/island-replay"
T="$ISLAND_ROOT/tests/traces/replay-2node.xml"
command -v mpirun > /dev/null || { echo "mpirun not found (install openmpi-bin)"; exit 77; }
if "$REPLAY" --mpi --root nompi "$T" 2>&1 | grep -q 'built without MPI'; then
	echo "island-replay built without MPI (mpicc not found at build time)"; exit 77
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader,tcp
MPIRUN="mpirun --oversubscribe --bind-to none -n"
run_err() { sed -n 's/.*<run original="[0-9.]*" replayed="\([0-9.]*\)".*/\1/p' "$1"; }

timeout 50 $MPIRUN 2 "$REPLAY" --mpi -q --root m --report mpi.xml "$T" > out.txt 2>&1 ||
	{ cat out.txt; fail "mpirun"; }
mt() { stat -c %.9Y "$1"; }
awk -v a="$(mt m/work/a3.dat)" -v b="$(mt m/work/b.dat)" 'BEGIN { exit !(b >= a) }' ||
	fail "b.dat was written before node a's seq 4"
expect_eq "b.dat size" "$(stat -c %s m/work/b.dat)" 500
for n in a b; do
	grep -q "<node name=\"$n\" " mpi.xml || fail "node $n missing from the report"
done
"$REPLAY" -q --root l --report local.xml "$T" || fail "local replay"
m=$(run_err mpi.xml) l=$(run_err local.xml)
echo "replayed run: mpi $m s, local $l s"
if why=$(untimed); then
	echo "timing not checked: $why"
else
	awk -v m="$m" -v l="$l" 'BEGIN { d = (m - l) / l * 100; exit !(d >= -5 && d <= 5) }' ||
		fail "mpi ($m s) and local ($l s) differ by more than 5 %"
fi
# too few ranks is refused with a clear message
timeout 50 $MPIRUN 1 "$REPLAY" --mpi -q --root m1 "$T" > one.txt 2>&1
grep -q "island-replay: --mpi: $T has 2 nodes: run it with at least 2 ranks (mpirun -n 2)" one.txt ||
	{ cat one.txt; fail "one rank for two nodes was not refused"; }
exit 0
