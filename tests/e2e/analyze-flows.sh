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

# the receiver's recv (node 2's first process) holds the 100 bytes of the
# sender's send: from the send's end to the recv's start
"$ANALYZE" export --format chrome "$T/peer-sendnode.xml" "$T/peer-recvnode.xml" | flows > msg.out
expect_eq "message arrow" "$(cat msg.out)" "$(printf '%s\n' "s message 1 28741 1011345.206 -" "f message 2 28739 11464.236 e")"

# one trace alone: its peer is not in the run, no arrow
expect_eq "no peer, no arrow" "$("$ANALYZE" export --format chrome "$T/peer-recvnode.xml" | flows)" ""
echo ok
