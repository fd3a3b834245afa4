# One validator (issue 13, items 8 and 9): island-analyze and island-replay
# refuse the same bad traces with the same one-line message and exit 2,
# huge numbers included (an error, never a hang, a wrap or UB), and the
# replay runs nothing.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
REPLAY="$ISLAND_ROOT/bin/island-replay"

# trace NAME IO [MORE]: a one-node trace whose thread holds IO, MORE after
# the node
trace() {
	cat > "$1.xml" <<EOT
<?xml version="1.0" encoding="UTF-8"?>
<trace version="1" generator="t" complete="true">
<node name="a" host="h" epoch="1.0" start="0.0" end="1.0">
  <process pid="1" ppid="0" cwd="/" start="0.0" end="1.0">
    <thread tid="1" start="0.0" end="1.0">
      $2
    </thread>
  </process>
</node>$3
</trace>
EOT
}
w() { echo "<io api=\"write\" res=\"filewrite\" start=\"0.1\" end=\"0.2\" path=\"/x\" $1/>"; }

# both NAME WANT: each tool refuses NAME.xml with WANT (line 6: the io)
both() {
	for tool in analyze replay; do
		case $tool in
		analyze) (timeout 20 "$ANALYZE" summary "$1.xml") > "$1.$tool.out" 2> "$1.$tool.err" ;;
		replay) (timeout 20 "$REPLAY" -q -m afap -c none -r "r-$1" "$1.xml") > "$1.$tool.out" 2> "$1.$tool.err" ;;
		esac
		rc=$?
		expect_eq "$1: $tool: exit status" "$rc" 2
		expect_eq "$1: $tool: message" "$(cat "$1.$tool.err")" "$2"
		[ -e "r-$1" ] && fail "$1: the replay created its root before refusing"
	done
	return 0
}

trace negamount "$(w 'amount="-5"')"
both negamount 'negamount.xml:6: <io> has a negative amount (-5)'
trace negsize "$(w 'amount="5" size="-1"')"
both negsize 'negsize.xml:6: <io> has a negative size (-1)'
trace nantime '<io api="write" res="filewrite" start="nan" end="0.2" fd="1"/>'
both nantime 'nantime.xml:6: <io> start="nan" is not a number of seconds'
trace negtime '<io api="write" res="filewrite" start="-0.1" end="0.2" fd="1"/>'
both negtime 'negtime.xml:6: <io> start="-0.1" is negative'
trace negdur '<compute dur="-1"/>'
both negdur 'negdur.xml:6: <compute> dur="-1" is negative'
trace endbefore '<io api="write" res="filewrite" start="0.3" end="0.2" fd="1"/>'
both endbefore 'endbefore.xml:6: <io> ends before it starts (end 0.200000000 < start 0.300000000)'
trace nores '<io api="write" start="0.1" end="0.2" fd="1"/>'
both nores 'nores.xml:6: <io> lacks attribute res'
trace badres '<io api="write" res="teleport" start="0.1" end="0.2"/>'
both badres 'badres.xml:6: <io> has unknown res="teleport"'
trace nanlimit "$(w 'amount="1"')"
sed -i 's|<process|<restrictions><limit resource="filewrite" value="nan"/></restrictions>\n  <process|' nanlimit.xml
both nanlimit 'nanlimit.xml:4: <limit> value="nan" is not a positive number'
trace dupnode "$(w 'amount="1"')" '
<node name="a" host="h" epoch="1.0" start="0.0" end="1.0"/>'
both dupnode 'dupnode.xml:10: node "a" appears twice'
trace misplaced '<process pid="2"/>'
both misplaced 'misplaced.xml:6: <process> is misplaced (inside <thread>)'
trace badfd "$(w 'amount="1" fd="one"')"
both badfd 'badfd.xml:6: <io> fd="one" is not an integer'
trace region '<region id="2" parent="2" label="x" start="0.1" end="0.2"/>'
both region 'region.xml:6: <region> parent="2" is not before its id="2"'
# a call's row of trace/calls.def: its res (a read on a file, socket or
# event object), a byte count only when it has one
trace rowres '<io api="read" res="netsend" start="0.1" end="0.2" fd="3" amount="1"/>'
both rowres 'rowres.xml:6: <io api="read"> res="netsend" is not one of read'"'"'s (fileread, netrecv, wait)'
trace rowamount '<io api="close" res="filemeta" start="0.1" end="0.2" fd="3" amount="1"/>'
both rowamount 'rowamount.xml:6: <io api="close"> has amount="1": close has no byte count'
trace rowlibc '<io api="mmap" res="sys" start="0.1" end="0.2" level="libc"/>'
both rowlibc 'rowlibc.xml:6: <io api="mmap"> res="sys" is not one of mmap'"'"'s (filemeta)'
# accepted: a socket's read, a call the table lacks (another producer's,
# a kernel name), the kernel's anonymous mmap, vmsplice's two rows
trace rowgood '<io api="read" res="netrecv" start="0.1" end="0.2" fd="3" amount="1" peer="pipe"/>
      <io api="frobnicate" res="proc" start="0.2" end="0.3" amount="3"/>
      <io api="pread64" res="fileread" start="0.3" end="0.4" fd="3" amount="1" level="kernel"/>
      <io api="mmap" res="sys" start="0.4" end="0.5" level="kernel"/>
      <io api="vmsplice" res="fileread" start="0.5" end="0.6" fd="3" amount="1"/>
      <io api="vmsplice" res="netsend" start="0.6" end="0.7" fd="3" amount="1"/>'
"$ANALYZE" summary rowgood.xml > rowgood.out 2>&1 || fail "rowgood: analyze: $(cat rowgood.out)"

# huge numbers: refused, not wrapped, saturated or looped on
trace hugeamount "$(w 'amount="99999999999999999999"')"
both hugeamount 'hugeamount.xml:6: <io> amount="99999999999999999999" is out of range (0 to 1099511627776)'
trace bigamount "$(w 'amount="1099511627777"')"
both bigamount 'bigamount.xml:6: <io> amount="1099511627777" is out of range (0 to 1099511627776)'
trace hugetime '<io api="write" res="filewrite" start="99999999999.1" end="99999999999.2" fd="1"/>'
both hugetime 'hugetime.xml:6: <io> start="99999999999.1" is too large (at most 4611686018.427387903 s)'
# past INT64_MAX ns by less than a second (9223372036.854775807 s is the max)
trace wraptime '<io api="write" res="filewrite" start="0.1" end="9223372036.9" fd="1"/>'
both wraptime 'wraptime.xml:6: <io> end="9223372036.9" is too large (at most 4611686018.427387903 s)'
trace hugeseq "$(w 'amount="1" seq="99999999999"')"
both hugeseq 'hugeseq.xml:6: <io> seq="99999999999" is out of range (1 to 2147483647)'
trace hugewait "<wait node=\"a\" seq=\"4294967297\"/>$(w 'amount="1" seq="1"')"
both hugewait 'hugewait.xml:6: <wait> seq="4294967297" is out of range (1 to 2147483647)'
trace hugefd "$(w 'amount="1" fd="4294967297"')"
both hugefd 'hugefd.xml:6: <io> fd="4294967297" is out of range (-2147483648 to 2147483647)'
trace hugepid '<compute dur="0.1"/>'
sed -i 's|pid="1" ppid|pid="99999999999" ppid|' hugepid.xml
both hugepid 'hugepid.xml:4: <process> pid="99999999999" is out of range (-2147483648 to 2147483647)'
trace hugecount "$(w 'amount="1"')" '
<node name="b" host="h"><files><file path="/x" bytes_read="9223372036854775807"/></files></node>'
both hugecount 'hugecount.xml:10: <file> bytes_read="9223372036854775807" is out of range (0 to 4611686018427387903)'

# a seq past its node's numbered I/O: the dependency report refuses it as
# the replay does, before an array by seq (it took 48 GiB: 2 GiB of address
# space is plenty now; not under ASan, whose shadow needs more)
trace seqpast "$(w 'amount="1" seq="2147483647"')"
lim="ulimit -v 2097152;"
ldd "$ANALYZE" | grep -q libasan && lim=
for from in trace net; do
	rc=0; sh -c "$lim exec \"\$0\" deps --from $from seqpast.xml" "$ANALYZE" > sp.out 2> sp.err || rc=$?
	expect_eq "seqpast: deps --from $from: status" "$rc" 2
	case $from in
	trace) want='island-analyze: seq 2147483647 out of range 1..1 for node "a"' ;;
	net) want='seqpast.xml: seq 2147483647 out of range 1..1 for node "a"' ;;
	esac
	expect_eq "seqpast: deps --from $from" "$(cat sp.err)" "$want"
done
rc=0; "$REPLAY" -q -r r-seqpast seqpast.xml 2> sp.err || rc=$?
expect_eq "seqpast: replay: status" "$rc" 2
expect_eq "seqpast: replay" "$(cat sp.err)" 'seqpast.xml:6: seq 2147483647 out of range 1..1 for node "a"'

# values each in range that add up past the limit: refused where they do
trace sumtime '<compute dur="3000000000"/><compute dur="3000000000"/>'
both sumtime 'sumtime.xml:6: <compute>: the trace'"'"'s durations add up past 4611686018.427387903 s'
trace sumbytes '<compute dur="1"/>' '
<node name="b" host="h"><files><file path="/x" bytes_read="3000000000000000000"/>
<file path="/y" bytes_written="3000000000000000000"/></files></node>'
both sumbytes 'sumbytes.xml:11: <file>: the trace'"'"'s amounts add up past 4611686018427387903'

# at the limits: accepted by both (a node's largest end, an amount of 1
# TiB, durations adding up to just under the limit)
trace edge "<compute dur=\"4611686016.427387903\"/>$(w 'amount="1099511627776"' | sed 's|/x|/dev/null|')"
sed -i 's|<node name="a" host="h" epoch="1.0" start="0.0" end="1.0">|<node name="a" host="h" epoch="4611686018.427387903" start="0.0" end="4611686018.427387903">|' edge.xml
"$ANALYZE" summary edge.xml > edge.out 2>&1 || fail "edge: analyze: $(cat edge.out)"
"$ANALYZE" consumption edge.xml > edge.out 2>&1 || fail "edge: analyze consumption: $(cat edge.out)"
"$REPLAY" -q -m afap -c none -n a -r r-edge edge.xml > edge.out 2>&1 &
pid=$!
sleep 1
kill $pid 2>/dev/null && wait $pid
grep -q " is \(negative\|too large\|out of range\|not \)\|lacks attribute\|add up past" edge.out && fail "edge: replay refused it: $(cat edge.out)"
exit $fail
