# mpirun island-replay --mpi issues the trace's MPI calls again (the MPI
# level's point-to-point calls and collectives on MPI_COMM_WORLD: same
# peers, tags, sizes and order), on a communicator of the replaying
# ranks, and not the calls they made below. Checked by capturing the
# replay itself: each rank's replay makes, on a communicator other than
# MPI_COMM_WORLD (comm 0, the replay's own messages), the MPI calls the
# original rank made, as many of each, with the same peers and tags; and
# the MPI-IO calls on the file beneath the replay's root.
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
# MPI-IO at its level (tests/apps/mpi/mpiio: independent, collective,
# views, shared pointer, non-blocking): the replay's library opens the
# file beneath the replay's root and makes the calls again, so that its
# collective buffering happens again (the same ranks aggregate, with the
# same pwrites within the collective writes); the calls they made below
# are theirs, not replayed beside them. A non-blocking one is issued in
# its blocking form (replay/mpi.c says why).
if [ -x "$APPS/mpiio" ]; then
	mkdir io iorep
	(cd io && timeout 300 mpirun --oversubscribe -n 4 "$CAPTURE" -n o -- "$APPS/mpiio" data.bin) ||
		fail "the original MPI-IO run failed"
	"$ANALYZE" merge -o io.xml io/o.rank0.xml io/o.rank1.xml io/o.rank2.xml io/o.rank3.xml ||
		fail "merge of the MPI-IO run failed"
	(cd iorep && timeout 300 mpirun --oversubscribe --bind-to none -n 4 "$CAPTURE" -n r -- \
		"$REPLAY" --mpi -q ../io.xml 2> err) || { cat iorep/err; fail "the MPI-IO replay failed"; }
	fio() { grep -o 'api="MPI_File_[a-z_]*"' "$1" | cut -d'"' -f2 | tr '\n' ' '; }
	agg() { grep 'api="pwrite".*within="MPI_File_write_\(at_all\|all\)"' "$1" |
		grep -o 'within="[^"]*" amount="[0-9]*"' | tr '\n' ' '; }
	for r in 0 1 2 3; do
		check_trace iorep/r.rank$r.xml
		expect_eq "rank $r: MPI-IO calls issued again" "$(fio iorep/r.rank$r.xml)" \
			"$(fio io/o.rank$r.xml | sed 's/MPI_File_iwrite_at/MPI_File_write_at/; s/MPI_File_iread_at/MPI_File_read_at/')"
		expect_eq "rank $r: MPI-IO calls that failed" \
			"$(grep 'level="mpi-io"' iorep/r.rank$r.xml | grep -c ' result=')" 0
		expect_eq "rank $r: collective buffering's pwrites" "$(agg iorep/r.rank$r.xml)" "$(agg io/o.rank$r.xml)"
		grep -q 'api="MPI_File_write_at" .*path="[^"]*/replay-root\.[^"/]*'"$PWD"'/io/data.bin"' iorep/r.rank$r.xml ||
			fail "rank $r: MPI_File_write_at not on the file beneath the root"
	done
	[ -n "$(agg io/o.rank0.xml)$(agg io/o.rank1.xml)" ] || fail "no rank aggregated in the original"
	expect_eq "data.bin's size in the replay's root" \
		"$(stat -c %s iorep/replay-root.*"$PWD"/io/data.bin)" "$(stat -c %s io/data.bin)"
fi
# HDF5 through h5py's MPI build (h5py's documentation's example): its
# MPI-IO calls are on HDF5's duplicates of MPI_COMM_WORLD, which the
# replay duplicates again; every one is issued again, none fails, and
# the file has its size
if /usr/bin/python3 -c 'import h5py._debian_h5py_mpi, mpi4py' 2>/dev/null; then
	mkdir h5 h5rep
	cp "$ISLAND_ROOT/tests/apps/mpi/h5par.py" h5/
	(cd h5 && timeout 300 mpirun --oversubscribe -n 4 "$CAPTURE" -n o -- /usr/bin/python3 h5par.py) ||
		fail "the original h5py run failed"
	"$ANALYZE" merge -o h5.xml h5/o.rank0.xml h5/o.rank1.xml h5/o.rank2.xml h5/o.rank3.xml ||
		fail "merge of the h5py run failed"
	(cd h5rep && timeout 300 mpirun --oversubscribe --bind-to none -n 4 "$CAPTURE" -n r -- \
		"$REPLAY" --mpi -q ../h5.xml 2> err) || { cat h5rep/err; fail "the h5py replay failed"; }
	for r in 0 1 2 3; do
		n=$(grep -c 'level="mpi-io"' h5/o.rank$r.xml)
		[ "$n" -gt 0 ] || fail "rank $r: no MPI-IO call in the h5py run"
		grep -q 'api="MPI_File_open" [^>]*comm="[1-9]' h5/o.rank$r.xml ||
			fail "rank $r: h5py's file not on a communicator of its own"
		expect_eq "rank $r: h5py's MPI-IO calls issued again" "$(grep -c 'level="mpi-io"' h5rep/r.rank$r.xml)" "$n"
		expect_eq "rank $r: h5py's MPI calls that failed" \
			"$(grep 'level="mpi' h5rep/r.rank$r.xml | grep -c ' result=')" 0
	done
	expect_eq "the HDF5 file's size in the replay's root" \
		"$(stat -c %s h5rep/replay-root.*"$PWD"/h5/parallel_test.hdf5)" "$(stat -c %s h5/parallel_test.hdf5)"
fi
# ISLAND_REPLAY_MPI_CALLS=0: spent, not issued
mkdir spent
(cd spent && ISLAND_REPLAY_MPI_CALLS=0 timeout 300 mpirun --oversubscribe --bind-to none \
	-x ISLAND_REPLAY_MPI_CALLS -n 4 "$CAPTURE" -n s -- "$REPLAY" --mpi -q ../orig.xml 2> err) ||
	fail "the replay with ISLAND_REPLAY_MPI_CALLS=0 failed"
app=$(grep -o 'api="MPI_Comm_split" [^/]*newcomm="[0-9]*"' spent/s.rank1.xml | sed 's/.*newcomm="\([0-9]*\)"/\1/')
expect_eq "MPI calls issued with ISLAND_REPLAY_MPI_CALLS=0" "$(calls spent/s.rank1.xml $app)" ""
exit 0
