# Under mpirun, each rank's capture is a node of the session, named after
# its rank.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
command -v mpirun >/dev/null || { echo "mpirun not installed"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir sess
timeout 60 mpirun --oversubscribe -n 4 "$CAPTURE" --session mpi$$ --session-dir sess -- \
	sh -c 'echo "rank $OMPI_COMM_WORLD_RANK" > out.$OMPI_COMM_WORLD_RANK' ||
	fail "mpirun failed"
for r in 0 1 2 3; do
	check_trace rank$r.xml
	grep -q "<node name=\"rank$r\"" rank$r.xml || fail "rank$r.xml is not node rank$r"
	grep -q 'api="write".*path="[^"]*/out\.'$r'" seq="[0-9]*"' rank$r.xml ||
		fail "rank $r: its write is not in its trace, numbered"
done
[ -z "$(find sess -type f)" ] || fail "session files left"
exit 0
