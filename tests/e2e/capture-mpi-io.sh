# The MPI-IO and HDF5 levels: under mpirun each rank's MPI_File_* calls
# (tests/apps/mpi/mpiio: independent and collective, _at, _all, views,
# non-blocking with a Wait, the shared pointer in order) and, through
# h5py's parallel build, its H5F*/H5D* calls are in its trace with the
# file's path (the dataset's, the transfer mode), linked to what they
# made below: H5Dwrite -> MPI_File_write_at -> pwrite, each within the
# one above. The per-file totals count the bytes once (the pwrites').
. "$ISLAND_ROOT/tests/e2e/lib.sh"
command -v mpirun >/dev/null || { echo "mpirun not installed"; exit 77; }
[ -x "$APPS/mpiio" ] || { echo "tests/apps/mpi not built (no mpicc)"; exit 77; }
[ -f "$ISLAND_ROOT/lib/libisland-mpi.so" ] || { echo "no lib/libisland-mpi.so (no mpicc)"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir io
(cd io && timeout 300 mpirun --oversubscribe -n 4 "$CAPTURE" -n n -- "$APPS/mpiio" data.bin 2> err) ||
	{ cat io/err; fail "mpirun mpiio failed"; }
f=$PWD/io/data.bin
for r in 0 1 2 3; do
	t=io/n.rank$r.xml
	check_trace $t
	# every MPI-IO call once, in the program's order, on the file
	expect_eq "rank $r: MPI-IO calls" "$(grep -o 'api="MPI_File_[a-z_]*"' $t | cut -d'"' -f2 | tr '\n' ' ')" \
"MPI_File_open MPI_File_write_at MPI_File_write_at_all MPI_File_iwrite_at MPI_File_set_view \
MPI_File_write_all MPI_File_set_view MPI_File_write_ordered MPI_File_sync MPI_File_read_at \
MPI_File_read_at_all MPI_File_iread_at MPI_File_set_view MPI_File_read_all MPI_File_set_view \
MPI_File_read_ordered MPI_File_close "
	expect_eq "rank $r: calls on other paths" \
		"$(grep 'api="MPI_File_' $t | grep -vc "path=\"$f\"")" 0
	grep -q "api=\"MPI_File_write_at\" .* level=\"mpi-io\" amount=\"16\" comm=\"0\" path=\"$f\" offset=\"$((16 * r))\"/>" $t ||
		fail "rank $r: MPI_File_write_at: $(grep -m1 'MPI_File_write_at"' $t)"
	grep -q "api=\"MPI_File_open\" .* comm=\"0\" coll=\"1\" path=\"$f\" flags=\"MPI_MODE_CREATE|MPI_MODE_RDWR\"/>" $t ||
		fail "rank $r: MPI_File_open: $(grep -m1 'MPI_File_open' $t)"
	# the independent write's own pwrite, at its offset, within it
	grep -A1 'api="MPI_File_write_at" ' $t | grep -q "api=\"pwrite\" .* within=\"MPI_File_write_at\" amount=\"16\" size=\"16\" offset=\"$((16 * r))\" fd=\"[0-9]*\" path=\"$f\"" ||
		fail "rank $r: no pwrite within MPI_File_write_at"
	# the Wait completes the iwrite_at's request
	grep -q 'api="MPI_File_iwrite_at" .* request="1" ' $t || fail "rank $r: iwrite_at's request"
	grep -q 'api="MPI_Wait" .* done="1"/>' $t || fail "rank $r: the Wait of request 1"
done
# collective buffering: the collective write's bytes are written by the
# ranks that aggregate, within their MPI_File_write_at_all
cat io/n.rank*.xml | grep -q 'api="pwrite[v]*" .* within="MPI_File_write_at_all"' ||
	fail "no pwrite within any rank's MPI_File_write_at_all"
# counted once: the file's bytes written are the calls' below (5 regions
# of 4 blocks of 16 bytes, each written once: 320), not the MPI level's
# again; MPI_File_iwrite_at's go through glibc's POSIX aio, itemised as
# its aio_write operations
"$ANALYZE" files --csv io/n.rank*.xml > files.csv || fail "files"
expect_eq "data.bin's size" "$(stat -c %s io/data.bin)" 320
expect_eq "bytes written to data.bin below the MPI level" \
	"$(awk -F, -v p="$f" '$2 == p { s += $8 } END { print s }' files.csv)" 320
expect_eq "bytes the MPI level wrote" "$(cat io/n.rank*.xml | grep 'api="MPI_File_[a-z_]*write' |
	sed 's/.* amount="\([0-9]*\)".*/\1/' | awk '{ s += $1 } END { print s }')" 320
expect_eq "bytes of MPI_File_iwrite_at" "$(cat io/n.rank*.xml | grep 'api="MPI_File_iwrite_at"' |
	sed 's/.* amount="\([0-9]*\)".*/\1/' | awk '{ s += $1 } END { print s }')" 64
# Darshan's MPI-IO counters (access --table mpiio): per rank one
# collective open, 1 independent read and write, 3 collective (_at_all,
# _all, _ordered), 1 non-blocking, 4 views, 1 sync, 5 x 16 bytes each way
"$ANALYZE" access --table mpiio --csv io/n.rank*.xml | cut -d, -f1-14 > mpiio.csv ||
	fail "access --table mpiio"
expect_eq "MPI-IO counters" "$(cat mpiio.csv)" "node,path,indep_opens,coll_opens,indep_reads,indep_writes,coll_reads,coll_writes,nb_reads,nb_writes,views,syncs,bytes_read,bytes_written
n.rank0,$f,0,1,1,1,3,3,1,1,4,1,80,80
n.rank1,$f,0,1,1,1,3,3,1,1,4,1,80,80
n.rank2,$f,0,1,1,1,3,3,1,1,4,1,80,80
n.rank3,$f,0,1,1,1,3,3,1,1,4,1,80,80"
# calls --by level: the levels apart (each call's row under its level)
"$ANALYZE" calls --by level --csv io/n.rank0.xml | cut -d, -f1,2,3 > levels.csv || fail "calls --by level"
expect_eq "MPI-IO calls of rank 0 by level" "$(grep '^mpi-io,MPI_File_write_at,\|^mpi,MPI_Wait,\|^libc,pwrite,' levels.csv | sort)" \
"libc,pwrite,$(grep -c 'api="pwrite"' io/n.rank0.xml)
mpi,MPI_Wait,2
mpi-io,MPI_File_write_at,1"

# HDF5 through h5py's MPI build (h5py's documentation's example)
/usr/bin/python3 -c 'import h5py._debian_h5py_mpi, mpi4py' 2>/dev/null ||
	{ echo "no h5py MPI build: the HDF5 level not checked"; exit 0; }
mkdir h5
cp "$ISLAND_ROOT/tests/apps/mpi/h5par.py" h5/
(cd h5 && timeout 300 mpirun --oversubscribe -n 4 "$CAPTURE" -n n -- /usr/bin/python3 h5par.py 2> err) ||
	{ cat h5/err; fail "mpirun h5par.py failed"; }
h=$PWD/h5/parallel_test.hdf5
for r in 0 1 2 3; do
	t=h5/n.rank$r.xml
	check_trace $t
	grep -q "api=\"H5Fcreate\" .* level=\"hdf5\" path=\"$h\" flags=\"H5F_ACC_TRUNC\"/>" $t ||
		fail "rank $r: H5Fcreate: $(grep -m1 H5Fcreate $t)"
	# the chain, each within the one above: H5Dwrite of one int (4
	# bytes, independent), its MPI_File_write_at at the dataset's
	# place, its pwrite
	grep -A2 'api="H5Dwrite"' $t > chain.$r
	sed -n 1p chain.$r | grep -q "api=\"H5Dwrite\" res=\"filewrite\" .* level=\"hdf5\" amount=\"4\" path=\"$h\" dataset=\"/test\" xfer=\"independent\"/>" ||
		fail "rank $r: H5Dwrite: $(sed -n 1p chain.$r)"
	sed -n 2p chain.$r | grep -q "api=\"MPI_File_write_at[_all]*\" .* level=\"mpi-io\" within=\"H5Dwrite\" amount=\"4\" .*path=\"$h\"" ||
		fail "rank $r: no MPI_File_write_at within H5Dwrite: $(sed -n 2p chain.$r)"
	sed -n 3p chain.$r | grep -q "api=\"pwrite\" .* within=\"MPI_File_write_at[_all]*\" amount=\"4\" size=\"4\" .*path=\"$h\"" ||
		fail "rank $r: no pwrite within MPI_File_write_at: $(sed -n 3p chain.$r)"
done
exit 0
