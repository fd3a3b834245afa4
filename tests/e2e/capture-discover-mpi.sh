#!/bin/sh
# --discover on real Open MPI programs (issue 17): a cluster file's <mpi>
# job runs as one mpirun per pass, its ranks the nodes rank0..rank2.
# Over TCP (btl tcp,self, pml ob1) the messages are socket calls: the
# token ring's dependencies (rank r's receive of round k waits for rank
# r-1's send of round k: the readv and writev of the ranks' main threads)
# are all found, 90 % of what is found is true, each throttled pass takes
# at most 3x the unthrottled one; so are an allreduce's and a halo
# exchange's (ranks with more than one peer). Over shared memory (btl vader,self) the
# messages are no calls: the trace and island-analyze deps say so, and
# what they order is found between the ranks' files (the allreduce).
. "$ISLAND_ROOT/tests/e2e/lib.sh"
# bad <mpi> elements: one line naming file:line, exit 2, before anything runs
bad() {
	printf '<cluster version="1">\n%s\n</cluster>\n' "$1" > bad.cluster.xml
	"$CAPTURE" --cluster bad.cluster.xml -o bad.xml 2> bad.err && fail "accepted: $1"
	expect_eq "error for $1" "$(cat bad.err)" "$2"
}
bad '<mpi np="0"><arg>x</arg></mpi>' \
	'bad.cluster.xml:2: <mpi np="0">: the number of ranks, 1 to 64'
bad '<mpi np="2" name="r"><arg>x</arg></mpi>' \
	'bad.cluster.xml:2: <mpi name=...>: unknown attribute (np, cwd)'
bad '<mpi np="2"><arg>${NODE}</arg></mpi>' \
	"bad.cluster.xml:2: '\${NODE}' in <mpi>: every rank runs one command (take the rank from MPI)"
bad '<mpi np="2"><arg>x</arg></mpi><node name="rank1"><arg>y</arg></node>' \
	"bad.cluster.xml:2: node 'rank1' is listed twice (an <mpi> job's ranks are rank0, rank1...)"
bad '<mpi np="2"><arg>x</arg></mpi><mpi np="2"><arg>x</arg></mpi>' \
	'bad.cluster.xml:2: a second <mpi>: one job per cluster (its ranks are rank0, rank1...)'
[ ! -e bad.xml ] || fail "a trace was written for a bad cluster file"
command -v mpirun >/dev/null || { echo "mpirun not installed"; exit 77; }
[ -x "$APPS/mpiring" ] || { echo "tests/apps/mpi not built (no mpicc)"; exit 77; }
[ -x /usr/bin/python3 ] || { echo "needs /usr/bin/python3"; exit 77; }
mkdir sess
echo "mpiring:"
"$CAPTURE" --cluster "$ISLAND_ROOT/traces/mpiring.cluster.xml" --discover --timeout 60 \
	--session-dir sess --passes-dir passes -o ring.xml 2> err || { cat err; fail "discover failed"; }
check_trace ring.xml
expect_eq "nodes" "$(grep -o '<node name="[^"]*"' ring.xml | tr '\n' ' ')" \
	'<node name="rank0" <node name="rank1" <node name="rank2" '
# the ring ran: rank 0's last token went round 4 times
expect_eq "rank 0's token" "$(cat passes/unthrottled/scratch/ring.0.4)" 4002
# (precision was 75-100 % while a thread counted as waiting on time alone:
# false waits in MPI_Init; 98-100 % since the kernel must have it asleep)
discovered ring.xml mpiring
passes_within 3 err "$ISLAND_ROOT/traces/mpiring.cluster.xml"
expect_eq "unseen over TCP" "$(grep -c 'unseen=' ring.xml)" 0
grep -q '<node name="rank2" [^>]*mpi_rank="2"' ring.xml || fail "rank2's node has no mpi_rank"
# the replay with what was found: within 10 % per node (issue 17; these
# 0.1 s runs, all Open MPI's start-up, replay 3 to 6 % long here)
replay_within 10 ring.xml

# more than one peer per rank over TCP: Open MPI connects ranks lazily,
# which side connects and in which order the connections come up is
# timing (set aside as poll="runtime"), and a rank reads what has come
# from any peer: passes are compared peer by peer. The allreduce: every
# rank's file of round k after every other rank's of round k-1; the halo
# exchange: each receive from a neighbour after that neighbour's send.
for app in mpiallreduce mpihalo; do
	"$CAPTURE" --cluster "$ISLAND_ROOT/traces/$app.cluster.xml" --discover --timeout 60 \
		--session-dir sess -o $app.xml 2> err || { cat err; fail "$app: discover failed"; }
	check_trace $app.xml
	grep -q 'poll="runtime"' $app.xml || fail "$app: no connection set aside"
	echo "$app:"
	discovered $app.xml $app
	passes_within 3 err "$ISLAND_ROOT/traces/$app.cluster.xml"
	replay_within 10 $app.xml
done

# shared memory: the allreduce discovered. Its messages are no calls
# (every rank says so, and deps repeats it), but what they order is found
# between the ranks' files: every rank's file of round k after every other
# rank's of round k-1. Its throttled passes are printed, not bounded: a
# rank waiting in shared memory looks busy until its watchdog maximum.
# These waits are dense and in lockstep (every rank's write waits for
# every other's, each rank holding its own write while the others hold
# theirs) and no message shows them: a group pass, which sees a wait only
# on a node holding while the waiter does not, misses half of them
# (recall 50-67 % in 4 passes here), so this one is discovered a node at
# a time (--one-by-one, //TRACE's N + 1 passes).
echo "mpiallreduce over shared memory:"
"$CAPTURE" --cluster "$ISLAND_ROOT/traces/mpiallreduce-shm.cluster.xml" --discover --one-by-one \
	--timeout 60 --session-dir sess --passes-dir shmpasses -o shm.xml 2> err ||
	{ cat err; fail "shared-memory discovery failed"; }
check_trace shm.xml
expect_eq "unseen over shared memory" "$(grep -c '<node [^>]*unseen="shared-memory"' shm.xml)" 3
discovered shm.xml mpiallreduce
grep 'passes: ' err
replay_within 10 shm.xml
"$ANALYZE" deps shm.xml > deps.out 2> deps.err || fail "deps failed"
expect_eq "deps says it" "$(cat deps.err)" "$(for r in 0 1 2; do
	echo "island-analyze: node rank$r: its MPI messages to ranks on its host may go through shared memory, with no call the capture sees: what they order is found between the ranks' own calls (files, sockets), never as a message's send and receive (unseen=\"shared-memory\")"
done)"
[ -z "$(find sess -type f)" ] || fail "session files left: $(find sess -type f)"
exit 0
