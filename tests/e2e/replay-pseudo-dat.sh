# The fidelity check of replay-pseudo.sh on pseudosyncdat (a data
# dependency through shared storage on top of the barriers), locally and,
# where mpirun is found, with mpirun -n 4 island-replay --mpi: the issue
# asks for the same result as the local replay within 5 %, which this test
# asserts on the medians of 3 runs each.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
PSEUDO_APPS=pseudosyncdat
export PSEUDO_APPS
sh "$ISLAND_ROOT/tests/e2e/replay-pseudo.sh" || exit $?

command -v mpirun > /dev/null || { echo "mpirun not found: --mpi not checked"; exit 0; }
REPLAY="$ISLAND_ROOT/bin/island-replay"
"$REPLAY" --mpi --root nompi pseudosyncdat.xml 2>&1 | grep -q 'built without MPI' &&
	{ echo "built without MPI: --mpi not checked"; exit 0; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
run_of() { sed -n 's/.*<run original="[0-9.]*" replayed="\([0-9.]*\)".*/\1/p' "$1"; }
for i in 1 2 3; do
	timeout 30 mpirun --oversubscribe --bind-to none -n 4 "$REPLAY" --mpi -q --root mpi-$i \
		--report mpi-$i.xml pseudosyncdat.xml > mpi.log 2>&1 || { cat mpi.log; fail "mpirun"; }
done
m=$(for i in 1 2 3; do run_of mpi-$i.xml; done | median)
l=$(for i in 1 2 3; do run_of pseudosyncdat-causal-$i.xml; done | median)
echo "replayed run: mpi $m s, local $l s (medians of 3)"
awk -v m="$m" -v l="$l" 'BEGIN { d = (m - l) / l * 100; printf "difference %+.2f %%\n", d
	exit !(d >= -5 && d <= 5) }' || fail "mpi ($m s) and local ($l s) differ by more than 5 %"
exit 0
