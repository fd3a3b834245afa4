# A node that polls forever (a shell loop retrying curl against a server
# that never listens) ends the pass at --timeout with a message naming it,
# never later (issue 17): every node stopped, nothing left behind, a
# non-zero exit. The server is a role="server" node: stopped only once the
# client is done, which never happens here; it is not named (it serves by
# design). Then a hold that nothing releases: the timeout names it.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
command -v curl >/dev/null || { echo "needs curl"; exit 77; }
mkdir sess
nap=6$$                        # a sleep of our own, to look for afterwards
cat > poll.cluster.xml <<XML
<?xml version="1.0"?>
<cluster version="1">
  <node name="srv" role="server"><arg>sleep</arg><arg>$nap</arg></node>
  <node name="cli" cwd="\${SCRATCH}"><arg>/bin/sh</arg><arg>-c</arg><arg>until curl -s -o out http://127.0.0.1:\${PORT}/; do sleep 0.05; done</arg></node>
</cluster>
XML
start=$(date +%s.%N)
"$CAPTURE" --cluster poll.cluster.xml --discover --timeout 3 --session-dir sess \
	-o poll.xml 2> err && fail "a pass that never ends succeeded"
secs=$(echo "$(date +%s.%N) - $start" | bc)
cat err
echo "ended after $secs s"
grep -q '^island-capture: unthrottled pass: node cli did not finish in time (--timeout); stopping every node$' err ||
	fail "no message naming the node that did not finish"
# the server serves by design: only the client is late
grep -q 'node srv' err && fail "the server, still serving, is blamed"
# 3 s, then at most 2 s for the nodes to write their traces, and the rest
[ "$(echo "$secs < 7" | bc)" = 1 ] || fail "ended $secs s after the start, past --timeout 3"
[ ! -e poll.xml ] || fail "a trace was written for a failed run"
[ -z "$(find sess -type f)" ] || fail "session files left: $(find sess -type f)"
pgrep -x -f "sleep $nap" >/dev/null && fail "the server's process was left running"

# A hold that nothing releases: w makes progress every millisecond and
# finds h's file without failing a call, so it hardly ever waits; one of
# h's holds before it writes that file lasts until --timeout, which names
# the hold under way.
[ -x "$APPS/spinwait" ] || { echo "tests/apps not built"; exit 77; }
cat > hold.cluster.xml <<XML
<?xml version="1.0"?>
<cluster version="1">
  <node name="h" cwd="\${SCRATCH}"><arg>/bin/sh</arg><arg>-c</arg><arg>sleep 0.2; echo x > done</arg></node>
  <node name="w"><arg>$APPS/spinwait</arg><arg>\${SCRATCH}</arg><arg>done</arg></node>
</cluster>
XML
start=$(date +%s.%N)
"$CAPTURE" --cluster hold.cluster.xml --discover --throttle-nodes h --timeout 4 \
	--session-dir sess -o hold.xml 2> err && fail "a hold nothing releases ended well"
secs=$(echo "$(date +%s.%N) - $start" | bc)
cat err
grep -q '^island-capture: throttle-h pass: node h was holding its [a-z_0-9]* (after its I/O [0-9]*) for [0-9.]* s: node w neither waited for it nor exited$' err ||
	fail "the timeout does not name the hold under way"
[ "$(echo "$secs < 12" | bc)" = 1 ] || fail "ended $secs s after the start: the hold outlived --timeout"
[ -z "$(find sess -type f)" ] || fail "session files left: $(find sess -type f)"
exit 0
