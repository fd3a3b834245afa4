# The Chrome export draws each dependency and each matched network message
# as a flow arrow (trace-event "s"/"f") between the two calls' slices.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
T="$ISLAND_ROOT/tests/traces"

flows() {
	python3 -c 'import json, sys
for e in json.load(sys.stdin)["traceEvents"]:
    if e["ph"] in ("s", "f"):
        print(e["ph"], e["name"], e["pid"], e["tid"], "%.3f" % e["ts"], e.get("bp", "-"))'
}

# b's open waits for a's I/O 4 (the write of a3.dat, ending at 0.3106 s)
"$ANALYZE" export --format chrome "$T/replay-2node.xml" | flows > dep.out
expect_eq "dependency arrow" "$(cat dep.out)" "$(printf '%s\n' "s dependency 1 10 310600.000 -" "f dependency 2 20 310600.000 e")"

# the receiver's recv (node 2's first process, 0.011444 to 1.318499 s)
# holds the 100 bytes of the sender's send (1.011292 to 1.011345 s): the
# arrow goes from the send's end to the same time inside the blocking
# recv, which started a second before the send; it ended at the recv's
# start, back in time
"$ANALYZE" export --format chrome "$T/peer-sendnode.xml" "$T/peer-recvnode.xml" | flows > msg.out
expect_eq "message arrow" "$(cat msg.out)" "$(printf '%s\n' "s message 1 28741 1011345.206 -" "f message 2 28739 1011345.206 e")"

# the sender's clock half a second ahead: its send ends (1.511 s) after
# the recv did (0.011444 + 1.307055 s): the arrow ends at the recv's end,
# inside its slice
sed 's/<node name="sendnode"/<node name="sendnode" clock_offset="0.500000000"/' "$T/peer-sendnode.xml" > skew.xml
"$ANALYZE" export --format chrome skew.xml "$T/peer-recvnode.xml" | flows > skew.out
expect_eq "message arrow, skewed clocks" "$(cat skew.out)" "$(printf '%s\n' "s message 1 28741 1511324.896 -" "f message 2 28739 1318498.603 e")"

# one trace alone: its peer is not in the run, no arrow
expect_eq "no peer, no arrow" "$("$ANALYZE" export --format chrome "$T/peer-recvnode.xml" | flows)" ""
echo ok
