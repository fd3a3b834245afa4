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

# A retrying client: curl's first connect is refused (the server starts
# half a second late), its retry a second later connects: the client
# node has two sockets to the server's address. The messages are still
# matched, by both ports (the descriptor's local address, from its
# connect): the request (curl's send) to the server's recv, the reply
# (the server's first send) to curl's recv.
command -v curl >/dev/null || { echo "curl not installed"; exit 77; }
cat > retry.cluster.xml <<'XML'
<cluster version="1">
  <node name="srv" role="server">
    <arg>sh</arg><arg>-c</arg><arg>sleep 0.5; exec /usr/bin/python3 -m http.server "$0" --bind 127.0.0.1</arg><arg>${PORT}</arg>
  </node>
  <node name="cli">
    <arg>curl</arg><arg>-s</arg><arg>-o</arg><arg>/dev/null</arg><arg>--retry</arg><arg>5</arg>
    <arg>--retry-connrefused</arg><arg>--retry-delay</arg><arg>1</arg><arg>http://127.0.0.1:${PORT}/</arg>
  </node>
</cluster>
XML
"$CAPTURE" --cluster retry.cluster.xml -o retry.xml 2> retry.err || fail "retry cluster: $(cat retry.err)"
# the client's sockets to the server: the refused one (or more, on a
# busy machine where the server is late), the real one; curl's connects
# do not block: each says EINPROGRESS, a refusal comes after
socks=$(sed -n '/<node name="cli"/,/<\/node>/p' retry.xml | grep -c '<socket proto="tcp" [^>]*direction="out"')
[ "$socks" -ge 2 ] || fail "client sockets: $socks, not two or more"
expect_eq "connects" "$(grep -c 'api="connect"[^>]*peer="127.0.0.1:' retry.xml)" "$socks"
"$ANALYZE" export --format chrome retry.xml > retry.json || fail "export retry"
# each arrow: from which node's call to which (pids: the nodes' order)
/usr/bin/python3 - retry.json retry.xml > arrows.out <<'PY' || fail "arrows"
import json, re, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
names = {e["pid"]: e["args"]["name"].split()[0] for e in ev if e.get("ph") == "M" and e.get("name") == "process_name"}
fl = {}
for e in ev:
    if e["ph"] in ("s", "f") and e["name"] == "message":
        fl.setdefault(e["id"], {})[e["ph"]] = names.get(e["pid"], e["pid"])
for k in sorted(fl):
    print("%s -> %s" % (fl[k]["s"], fl[k]["f"]))
PY
expect_eq "retrying client's arrows" "$(sort -u arrows.out)" "cli -> srv
srv -> cli"
# one arrow per receive of the connection (curl may read the reply in
# one recv or two)
expect_eq "an arrow per receive" "$(wc -l < arrows.out)" \
	"$(grep -c '<io api="recv[a-z]*" res="netrecv" [^>]*amount="[1-9][0-9]*"[^>]*peer="127.0.0.1:[0-9]*" proto="tcp"' retry.xml)"
echo ok
