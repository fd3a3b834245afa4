#!/bin/sh
# export --format otf2 -o DIR: an OTF2 archive that otf2-print and
# Python's otf2 read. On two hand-made nodes (tests/traces/basic.xml and
# node2.xml, node2 started 0.5 s later) and on real captures (tar czf,
# a 4-node pseudosync): every thread is a location under its
# process under its node; as many I/O operations as calls counts file
# reads and writes; the bytes per node and path, summed by a Python otf2
# reader, those of files; node2's first call at 0.6 s of the run.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
PY=/usr/bin/python3
if ! pkg-config --exists otf2 2>/dev/null; then
	echo "libopen-trace-format2-dev not installed"; exit 77
fi
command -v otf2-print > /dev/null || { echo "otf2-tools not installed"; exit 77; }
$PY -c 'import otf2' 2> /dev/null || { echo "python3-otf2 not installed"; exit 77; }
T="$ISLAND_ROOT/tests/traces"

# check NAME TRACE...: export, then the checks
check() {
	name=$1; shift
	"$ANALYZE" export --format otf2 -o "$name.otf2" "$@" 2> "$name.err" ||
		{ cat "$name.err"; fail "$name: export"; }
	otf2-print "$name.otf2/traces.otf2" > "$name.print" 2> "$name.perr" || fail "$name: otf2-print"
	[ -s "$name.perr" ] && { cat "$name.perr"; fail "$name: otf2-print warned"; }
	otf2-print -G "$name.otf2/traces.otf2" > "$name.defs" || fail "$name: otf2-print -G"
	# every thread: "TID NAME" as a location
	threads=$("$ANALYZE" summary --csv "$@" 2> /dev/null | awk -F, '$1 == "threads" { print $2 }')
	expect_eq "$name: locations" "$(grep -c '^LOCATION .*Type: CPU_THREAD' "$name.defs")" "$threads"
	cat "$@" | sed -n 's/.*<thread tid="\([0-9]*\)" name="\([^"]*\)".*/\1 \2/p' | sort -u > "$name.want"
	sed -n 's/^LOCATION .*Name: "\(.*\)" <[0-9]*>, Type: CPU_THREAD.*/\1/p' "$name.defs" | sort -u > "$name.got"
	diff "$name.want" "$name.got" || fail "$name: the threads and the locations differ (above)"
	# I/O operations: the traces' file reads and writes (a read of a
	# pipe is a netrecv, of an eventfd a wait: by the calls' names on a
	# path, calls counts those too)
	ncalls=$(cat "$@" | grep -cE '<io [^>]*res="file(read|write)"')
	[ "$ncalls" -gt 0 ] || fail "$name: no file reads or writes"
	expect_eq "$name: I/O operations" "$(grep -c '^IO_OPERATION_BEGIN' "$name.print")" "$ncalls"
	expect_eq "$name: I/O completions" "$(grep -c '^IO_OPERATION_COMPLETE' "$name.print")" "$ncalls"
	# bytes per node and path, by a reader of OTF2, against files
	"$ANALYZE" files --csv "$@" 2> /dev/null |
		awk -F, 'NR > 1 && $5 + $8 > 0 { r[$1 " " $2] += $5; w[$1 " " $2] += $8 }
			END { for (k in r) print k, r[k], w[k] }' | sort > "$name.files"
	$PY - "$name.otf2/traces.otf2" <<'PYEOF' | sort > "$name.otf2sum" || fail "$name: python otf2"
import collections, sys, otf2
mode, sums = {}, collections.defaultdict(lambda: [0, 0])
with otf2.reader.open(sys.argv[1]) as t:
    for loc, ev in t.events:
        if isinstance(ev, otf2.events.IoOperationBegin):
            mode[(loc, ev.matching_id)] = ev.mode
        elif isinstance(ev, otf2.events.IoOperationComplete):
            key = "%s %s" % (ev.handle.file.scope.name, ev.handle.file.name)
            sums[key][mode.pop((loc, ev.matching_id)) == otf2.IoOperationMode.WRITE] += ev.bytes_result
for k, (r, w) in sums.items():
    if r + w: print(k, r, w)
PYEOF
	diff "$name.files" "$name.otf2sum" || fail "$name: the bytes in OTF2 and in files differ (above)"
	echo "$name: $threads threads, $ncalls I/O operations, $(wc -l < "$name.files") files"
}
check hand "$T/basic.xml" "$T/node2.xml"
# node2 (0.5 s after node1) accepted at 0.1 s of its own: 0.6 s of the run
expect_eq "aligned" "$(grep -m1 '^ENTER  *2 ' hand.print | awk '{ print $3 }')" 600000000
grep -q 'SYSTEM_TREE_NODE .*Name: "node2" .*Class: "node"' hand.defs || fail "no system tree node node2"
grep -q 'LOCATION_GROUP .*Name: "200 /bin/server" .*Type: PROCESS, Parent: "node::node2"' hand.defs ||
	fail "process 200 is not under node2"
grep -q 'ENTER .*Region: "work"' hand.print || fail "the user region work is not there"
# bad use: an existing non-empty directory is refused
mkdir full && touch full/x
"$ANALYZE" export --format otf2 -o full "$T/basic.xml" 2> err && fail "a full directory was written to"
grep -q "full: exists and is not an empty directory" err || fail "message: $(cat err)"

mkdir src
seq 1 100000 > src/numbers
cp "$ISLAND_ROOT"/analysis/*.c src/
"$CAPTURE" -n tar -o tar.xml tar czf out.tgz src || fail "capture tar"
check tar tar.xml
if [ -x "$APPS/pseudosync" ]; then
	pseudo_cluster pseudosync 2 20 > c.cluster.xml
	"$CAPTURE" --cluster c.cluster.xml -o run.xml 2> cap.err || { cat cap.err; fail "capture cluster"; }
	check cluster run.xml
fi
# MPI: 4 ranks of tests/apps/mpimsgs (blocking and non-blocking rings,
# Allreduce, Bcast, Barrier) under mpirun. Each MPI call is a record as
# many times as the ranks' traces hold it; every message sent, matched
# by a Python otf2 reader to its receive (ranks of MPI_COMM_WORLD, tag,
# bytes); a rank's trace missing: its calls as regions, said once.
if command -v mpirun > /dev/null && [ -x "$APPS/mpimsgs" ] && [ -f "$ISLAND_ROOT/lib/libisland-mpi.so" ]; then
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	mkdir mpi mpi/truth
	(cd mpi && timeout 300 mpirun --oversubscribe -n 4 "$CAPTURE" -n n -- \
		"$APPS/mpimsgs" 3 n truth 2> err) || { cat mpi/err; fail "mpirun of mpimsgs failed"; }
	check mpi mpi/n.rank0.xml mpi/n.rank1.xml mpi/n.rank2.xml mpi/n.rank3.xml
	n() { cat mpi/n.rank*.xml | grep -c "api=\"$1\""; }
	r() { grep -c "^$1 " mpi.print; }
	expect_eq "MPI records" \
		"$(r MPI_SEND) $(r MPI_RECV) $(r MPI_ISEND) $(r MPI_ISEND_COMPLETE) $(r MPI_IRECV_REQUEST) $(r MPI_IRECV)" \
		"$(n MPI_Send) $(n MPI_Recv) $(n MPI_Isend) $(n MPI_Isend) $(n MPI_Irecv) $(n MPI_Irecv)"
	colls=$(($(n MPI_Allreduce) + $(n MPI_Bcast) + $(n MPI_Barrier)))
	expect_eq "collectives" "$(r MPI_COLLECTIVE_BEGIN) $(r MPI_COLLECTIVE_END)" "$colls $colls"
	grep -q '^COMM .*Name: "MPI_COMM_WORLD"' mpi.defs || fail "no MPI_COMM_WORLD"
	$PY - mpi.otf2/traces.otf2 > mpi.match <<'PYEOF' || fail "python otf2 of the MPI archive"
import collections, sys, otf2
sent, got = collections.Counter(), collections.Counter()
with otf2.reader.open(sys.argv[1]) as t:
    comm = [c for c in t.definitions.comms if c.name == "MPI_COMM_WORLD"][0]
    rank = {loc.name: r for r, loc in enumerate(comm.group.members)}
    for loc, ev in t.events:
        if isinstance(ev, (otf2.events.MpiSend, otf2.events.MpiIsend)):
            sent[(rank[loc.name], ev.receiver, ev.msg_tag, ev.msg_length)] += 1
        elif isinstance(ev, (otf2.events.MpiRecv, otf2.events.MpiIrecv)):
            got[(ev.sender, rank[loc.name], ev.msg_tag, ev.msg_length)] += 1
print("sent %d, received %d, matched %d" % (sum(sent.values()), sum(got.values()), sum((sent & got).values())))
PYEOF
	msgs=$(($(n MPI_Send) + $(n MPI_Isend)))
	expect_eq "messages matched" "$(cat mpi.match)" "sent $msgs, received $msgs, matched $msgs"
	"$ANALYZE" export --format otf2 -o three.otf2 mpi/n.rank0.xml mpi/n.rank1.xml mpi/n.rank2.xml 2> three.err ||
		fail "export of 3 ranks of 4"
	expect_eq "a rank missing" "$(cat three.err)" \
		"island-analyze: export --format otf2: not every rank's trace is here (0 to 3, as the ranks' peers say): no MPI records, the MPI calls as regions"
	otf2-print three.otf2/traces.otf2 | grep -q '^MPI_' && fail "MPI records without every rank"
	"$ANALYZE" export --format otf2 -o one.otf2 --node n.rank1 mpi/n.rank*.xml 2> one.err ||
		fail "export of --node n.rank1"
	expect_eq "--node: some ranks" "$(cat one.err)" \
		"island-analyze: export --format otf2: --node or --thread keeps some ranks' calls only: no MPI records, the MPI calls as regions"
	echo "mpi: $msgs messages, all matched"
else
	echo "no mpirun or tests/apps/mpi: the MPI records not checked"
fi
exit 0
