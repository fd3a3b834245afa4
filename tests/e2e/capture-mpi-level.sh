# The MPI level (lib/libisland-mpi.so, PMPI): under mpirun every rank's
# MPI calls are in its trace, level="mpi", with peer (world rank), tag,
# communicator, bytes, requests made and completed; the calls they made
# below are within them. Message edges are then exact from one run over
# shared memory (Open MPI's default between ranks of one host):
# deps --from mpi against the truth tests/apps/mpi/mpimsgs writes, on 4
# and 8 ranks, precision and recall 100 %. The level is inert in images
# that make no MPI call, and hidden from the program's environment.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
command -v mpirun >/dev/null || { echo "mpirun not installed"; exit 77; }
[ -x "$APPS/mpimsgs" ] || { echo "tests/apps/mpi not built (no mpicc)"; exit 77; }
[ -f "$ISLAND_ROOT/lib/libisland-mpi.so" ] || { echo "no lib/libisland-mpi.so (no mpicc)"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for np in 4 8; do
	mkdir run$np run$np/truth
	(cd run$np && timeout 300 mpirun --oversubscribe -n $np "$CAPTURE" -n n -- \
		"$APPS/mpimsgs" 3 n truth 2> err) || { cat run$np/err; fail "mpirun -n $np failed"; }
	for r in $(seq 0 $((np - 1))); do
		check_trace run$np/n.rank$r.xml
	done
	"$ANALYZE" deps --from mpi --truth run$np/truth --csv -o run$np/deps run$np/n.rank*.xml ||
		fail "deps --from mpi failed"
	edges=$(cat run$np/truth/truth.* | wc -l)
	expect_eq "$np ranks: measures" "$(cat run$np/deps/measures.csv)" "measure,percent,matched,total,of
precision,100.00,$edges,$edges,found
recall,100.00,$edges,$edges,true"
done
# 4 ranks, 3 rounds: 3 rings of 4 messages each way, 3 x (allreduce 12 +
# bcast 3 + barrier 12) collective edges
expect_eq "edges on 4 ranks" "$(cat run4/truth/truth.* | wc -l)" $((3 * (4 + 4 + 12 + 3 + 12)))
t=run4/n.rank1.xml
# rank 1 receives first from rank 0 (tag 1, 4 bytes), then sends to rank 2
grep -q '<io api="MPI_Recv" res="netrecv" start="[0-9.]*" end="[0-9.]*" level="mpi" amount="4" rank="0" tag="1" comm="0"/>' $t ||
	fail "rank 1's first MPI_Recv: $(grep -m1 MPI_Recv $t)"
grep -q '<io api="MPI_Send" res="netsend" start="[0-9.]*" end="[0-9.]*" level="mpi" amount="4" rank="2" tag="1" comm="0"/>' $t ||
	fail "rank 1's first MPI_Send: $(grep -m1 MPI_Send $t)"
# the Irecv is request 1, the Isend 2: the Waitall completes both, the
# receive from rank 0 with tag 101 and 4 bytes
grep -q 'api="MPI_Irecv" .* rank="0" tag="101" comm="0" request="1"/>' $t || fail "rank 1's MPI_Irecv"
grep -q 'api="MPI_Isend" .* amount="4" rank="2" tag="101" comm="0" request="2"/>' $t || fail "rank 1's MPI_Isend"
grep -q 'api="MPI_Waitall" res="wait" .* level="mpi" done="1:0:101:4 2"/>' $t ||
	fail "rank 1's MPI_Waitall: $(grep -m1 MPI_Waitall $t)"
grep -q 'api="MPI_Bcast" .* amount="4" rank="0" comm="0" coll="2"/>' $t || fail "rank 1's first MPI_Bcast"
expect_eq "MPI calls of rank 1" "$(grep -c 'level="mpi"' $t)" $((1 + 3 * 8 + 1))
# what MPI_Init does below it is within it, in its time
grep -q 'within="MPI_Init"' $t || fail "nothing within MPI_Init"
awk -F'"' '/api="MPI_Init"/ { for (i = 1; i < NF; i++) { if ($i ~ / start=$/) s = $(i+1); if ($i ~ / end=$/) e = $(i+1) } }
	/within="MPI_Init"/ { for (i = 1; i < NF; i++) { if ($i ~ / start=$/) a = $(i+1); if ($i ~ / end=$/) b = $(i+1) }
		if (a < s || b > e) bad = 1 }
	END { exit bad }' $t || fail "a call within MPI_Init outside its time"

# no MPI: the level is inert, and neither it nor its variable is seen
mkdir plain
(cd plain && timeout 60 mpirun --oversubscribe -n 2 "$CAPTURE" -- \
	sh -c 'echo "[$LD_PRELOAD]" > pre.$OMPI_COMM_WORLD_RANK; env | grep -c -e ^ISLAND_SPOOL= -e ^ISLAND_CLOCK= -e ^ISLAND_LIB= -e ^ISLAND_MPI_LIB= > env.$OMPI_COMM_WORLD_RANK; true') ||
	fail "a program without MPI failed under the level"
expect_eq "LD_PRELOAD seen" "$(cat plain/pre.0 plain/pre.1 | tr '\n' ' ')" "[] [] "
expect_eq "the capture's variables seen" "$(cat plain/env.0 plain/env.1 | tr '\n' ' ')" "0 0 "
check_trace plain/$(hostname).rank0.xml
# an MPI program a shell starts: the level goes into the images exec'd
mkdir viash viash/truth
(cd viash && timeout 120 mpirun --oversubscribe -n 2 "$CAPTURE" -n n -- \
	sh -c "\"$APPS/mpimsgs\" 1 n truth; true") || fail "mpirun of a shell failed"
expect_eq "MPI calls of rank 0 under a shell" "$(grep -c 'level="mpi"' viash/n.rank0.xml)" $((1 + 8 + 1))
# ISLAND_MPI_LEVEL=0: none
mkdir off off/truth
(cd off && ISLAND_MPI_LEVEL=0 timeout 120 mpirun --oversubscribe -x ISLAND_MPI_LEVEL -n 2 \
	"$CAPTURE" -n n -- "$APPS/mpimsgs" 1 n truth) || fail "mpirun with ISLAND_MPI_LEVEL=0 failed"
expect_eq "MPI calls with ISLAND_MPI_LEVEL=0" "$(cat off/n.rank*.xml | grep -c 'level="mpi"')" 0
exit 0
