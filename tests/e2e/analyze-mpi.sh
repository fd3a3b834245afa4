# The MPI level's edges in the reports (tests/traces/mpicrit.*: three
# ranks, one clock): net's messages, and deps --critical-path. Rank 1's receive waits 0.3 s for rank 0's
# send, rank 2's 0.4 s for rank 1's; in the barrier rank 1 comes last.
# The path runs back from rank 0's end (the last) through the barrier to
# rank 1 (the last in), then through rank 1's receive to rank 0's send:
# a receive holds once its send began, a collective once its last rank
# came in. What each rank waited for is summed per rank and call, a
# call's wait ending when the last of what it needed began.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
T="$ISLAND_ROOT/tests/traces/mpicrit"
for r in 0 1 2; do check_trace $T.rank$r.xml; done
"$ANALYZE" deps --from mpi --critical-path $T.rank0.xml $T.rank1.xml $T.rank2.xml > out.txt 2> err.txt ||
	fail "deps --critical-path: $(cat err.txt)"
[ -s err.txt ] && fail "deps --critical-path warned: $(cat err.txt)"
cat > want.txt <<'WANT'
critical:
node       from_s      to_s   seconds  io  api          on_node  on_io  on_api
c.rank0  0.000000  0.500000  0.500000
c.rank1  0.502000  0.800000  0.298000   1  MPI_Recv     c.rank0      1  MPI_Send
c.rank0  0.810000  1.000000  0.190000   2  MPI_Barrier  c.rank1      3  MPI_Barrier

waited:
node     on_node  on_api       calls   seconds
c.rank2  c.rank1  MPI_Send         1  0.400000
c.rank1  c.rank0  MPI_Send         1  0.300000
c.rank0  c.rank1  MPI_Barrier      1  0.200000
c.rank2  c.rank1  MPI_Barrier      1  0.050000
WANT
diff -u want.txt out.txt || fail "critical path differs"
# one table by name, as CSV; both into a directory
expect_eq "--table waited --csv" "$("$ANALYZE" deps --from mpi --table waited --csv $T.rank*.xml)" "node,on_node,on_api,calls,seconds
c.rank2,c.rank1,MPI_Send,1,0.400000
c.rank1,c.rank0,MPI_Send,1,0.300000
c.rank0,c.rank1,MPI_Barrier,1,0.200000
c.rank2,c.rank1,MPI_Barrier,1,0.050000"
"$ANALYZE" deps --from mpi --critical-path -o tables $T.rank*.xml || fail "deps -o"
expect_eq "tables written" "$(ls tables | tr '\n' ' ')" "critical.csv waited.csv "
# the rank order of the files does not matter
"$ANALYZE" deps --from mpi --critical-path $T.rank2.xml $T.rank0.xml $T.rank1.xml > out2.txt ||
	fail "deps, files in another order"
diff -u want.txt out2.txt || fail "the path depends on the files' order"
# asked where there is no path to follow: one line, status 2
"$ANALYZE" deps --from net --critical-path $T.rank0.xml > /dev/null 2> err.txt
expect_eq "--from net: status" "$?" 2
expect_eq "--from net: message" "$(cat err.txt)" "island-analyze: --critical-path: through the waits (--from trace) or the MPI level's messages (--from mpi), not --from net"
"$ANALYZE" deps --from mpi --critical-path --dot $T.rank0.xml > /dev/null 2> err.txt
expect_eq "--dot: status" "$?" 2
expect_eq "--dot: message" "$(cat err.txt)" "island-analyze: --critical-path is a table: not with --dot"
# net: the MPI messages beside the sockets' (none here), sender's call
# to receiver's, numbered among each rank's MPI calls
"$ANALYZE" net --table mpi --csv $T.rank*.xml > mpi.csv 2> err.txt || fail "net: $(cat err.txt)"
expect_eq "net --table mpi" "$(cat mpi.csv)" "from_node,from_io,from_api,bytes,to_node,to_io,to_api,sent,received
c.rank0,1,MPI_Send,4,c.rank1,1,MPI_Recv,0.501000,0.502000
c.rank1,2,MPI_Send,4,c.rank2,1,MPI_Recv,0.701000,0.702000"
exit 0
