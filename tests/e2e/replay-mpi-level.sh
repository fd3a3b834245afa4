# mpirun island-replay --mpi issues the trace's MPI calls again (the MPI
# level's point-to-point calls and collectives on MPI_COMM_WORLD: same
# peers, tags, sizes and order), on a communicator of the replaying
# ranks, and not the calls they made below. Checked by capturing the
# replay itself: each rank's replay makes, on a communicator other than
# MPI_COMM_WORLD (comm 0, the replay's own messages), the MPI calls the
# original rank made, as many of each, with the same peers and tags.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
command -v mpirun >/dev/null || { echo "mpirun not installed"; exit 77; }
[ -x "$APPS/mpimsgs" ] || { echo "tests/apps/mpi not built (no mpicc)"; exit 77; }
[ -f "$ISLAND_ROOT/lib/libisland-mpi.so" ] || { echo "no lib/libisland-mpi.so (no mpicc)"; exit 77; }
"$REPLAY" --help 2>&1 | grep -q -- --mpi || { echo "island-replay without --mpi"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir orig orig/truth rep
(cd orig && timeout 300 mpirun --oversubscribe -n 4 "$CAPTURE" -n o -- "$APPS/mpimsgs" 3 o truth) ||
	fail "the original run failed"
"$ANALYZE" merge -o orig.xml orig/o.rank0.xml orig/o.rank1.xml orig/o.rank2.xml orig/o.rank3.xml ||
	fail "merge failed"
(cd rep && timeout 300 mpirun --oversubscribe --bind-to none -n 4 "$CAPTURE" -n r -- \
	"$REPLAY" --mpi -q --report rep.xml ../orig.xml 2> err) || { cat rep/err; fail "the replay failed"; }
# (the ranks' opens of each other's shared-memory segments in MPI_Init
# are not ordered without a session: they may fail in the replay)
# "API RANK TAG" of each MPI call, in order: the original's (comm 0, all
# of them the program's) and the replay's on its own communicator
calls() {
	grep -o "api=\"MPI_\(Send\|Recv\|Isend\|Irecv\|Allreduce\|Bcast\|Barrier\)\"[^/]*comm=\"$2\"" "$1" |
		sed -E 's/api="([A-Za-z_]*)".*/\1/' | tr '\n' ' '
}
for r in 0 1 2 3; do
	check_trace rep/r.rank$r.xml
	app=$(grep -o 'api="MPI_Comm_split" [^/]*newcomm="[0-9]*"' rep/r.rank$r.xml | sed 's/.*newcomm="\([0-9]*\)"/\1/')
	[ -n "$app" ] || fail "rank $r: the replay made no communicator of its own"
	want=$(calls orig/o.rank$r.xml 0)
	[ -n "$want" ] || fail "rank $r: no MPI call in the original"
	expect_eq "rank $r: MPI calls issued again" "$(calls rep/r.rank$r.xml $app)" "$want"
	expect_eq "rank $r: MPI calls that failed" \
		"$(grep "level=\"mpi\".* comm=\"$app\"" rep/r.rank$r.xml | grep -c ' result=')" 0
	# the peers and tags of the point-to-point calls
	pt() { grep -o "api=\"MPI_\(Send\|Recv\|Isend\)\"[^/]*rank=\"[0-9]*\" tag=\"[0-9]*\" comm=\"$2\"" "$1" |
		sed -E 's/api="([A-Za-z_]*)".* rank="([0-9]*)" tag="([0-9]*)".*/\1:\2:\3/' | tr '\n' ' '; }
	expect_eq "rank $r: peers and tags" "$(pt rep/r.rank$r.xml $app)" "$(pt orig/o.rank$r.xml 0)"
done
# ISLAND_REPLAY_MPI_CALLS=0: spent, not issued
mkdir spent
(cd spent && ISLAND_REPLAY_MPI_CALLS=0 timeout 300 mpirun --oversubscribe --bind-to none \
	-x ISLAND_REPLAY_MPI_CALLS -n 4 "$CAPTURE" -n s -- "$REPLAY" --mpi -q ../orig.xml 2> err) ||
	fail "the replay with ISLAND_REPLAY_MPI_CALLS=0 failed"
app=$(grep -o 'api="MPI_Comm_split" [^/]*newcomm="[0-9]*"' spent/s.rank1.xml | sed 's/.*newcomm="\([0-9]*\)"/\1/')
expect_eq "MPI calls issued with ISLAND_REPLAY_MPI_CALLS=0" "$(calls spent/s.rank1.xml $app)" ""
exit 0
