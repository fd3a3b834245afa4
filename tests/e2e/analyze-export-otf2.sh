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
	# I/O operations: the calls' count of file reads and writes (the
	# calls of their names on a path: a read of a pipe is a netrecv)
	apis=$(cat "$@" | grep -oE 'api="[a-z0-9_]+" res="file(read|write)"' | cut -d'"' -f2 | sort -u | paste -sd, -)
	[ -n "$apis" ] || fail "$name: no file reads or writes"
	ncalls=$("$ANALYZE" calls --csv --call "$apis" --path '*' "$@" 2> /dev/null |
		awk -F, 'NR > 1 { n += $2 } END { print n }')
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
exit 0
