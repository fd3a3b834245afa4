# --discover on MPI jobs over shared memory (Open MPI's default between
# ranks of one host), with no throttled pass at all (--throttle-nodes
# none): the MPI level's messages and collectives of the unthrottled pass,
# moved onto the ranks' numbered I/O (the waiting rank's next I/O of the
# thread, the other's last one before its call), are the dependencies.
# The allreduce of tests/apps/mpi (traces/mpiallreduce.deps: every
# rank's file of round k after every other rank's of round k-1, whatever
# carries the messages): recall 100 %, precision at least 90 %, from one
# run. (The ring's and the halo's .deps name their TCP sockets' calls,
# which shared memory has none of.)
. "$ISLAND_ROOT/tests/e2e/lib.sh"
command -v mpirun >/dev/null || { echo "mpirun not installed"; exit 77; }
[ -x "$APPS/mpiring" ] || { echo "tests/apps/mpi not built (no mpicc)"; exit 77; }
[ -f "$ISLAND_ROOT/lib/libisland-mpi.so" ] || { echo "no lib/libisland-mpi.so (no mpicc)"; exit 77; }
[ -x /usr/bin/python3 ] || { echo "needs /usr/bin/python3"; exit 77; }
mkdir sess
for app in mpiallreduce; do
	rounds=3
	cat > $app.cluster.xml <<EOC
<?xml version="1.0"?>
<cluster version="1">
  <mpi np="3">
    <arg>$APPS/$app</arg><arg>$rounds</arg><arg>\${SCRATCH}</arg>
    <env name="OMPI_MCA_btl" value="vader,self"/>
    <env name="OMPI_MCA_pml" value="ob1"/>
  </mpi>
</cluster>
EOC
	"$CAPTURE" --cluster $app.cluster.xml --discover --throttle-nodes none --timeout 60 \
		--session-dir sess -o $app.xml 2> err || { cat err; fail "$app: discover failed"; }
	check_trace $app.xml
	grep -q 'pass throttling' err && fail "$app: a throttled pass ran"
	grep -q 'island-capture: [1-9][0-9]* dependencies found ([1-9][0-9]* from messages, 0 from group passes, 0 from single-node passes' err ||
		fail "$app: no dependency from the MPI level's messages: $(cat err)"
	echo "$app over shared memory, MPI level only:"
	discovered $app.xml $app
done
[ -z "$(find sess -type f)" ] || fail "session files left: $(find sess -type f)"
exit 0
