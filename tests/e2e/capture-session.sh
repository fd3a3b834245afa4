# Sessions by hand: nodes started separately join a session; the
# throttled node's dependencies land in every node's trace; two sessions
# on one host do not see each other; a peer that never blocks or whose
# capture is killed does not hang the throttled node; nothing is left.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
S=e2e$$
mkdir a b c sess spool          # this test's session files and spools
SD="--session-dir sess --spool-dir $PWD/spool"
node() { # SESSION NAME INDEX DIR PORT [OPTIONS...]
	s=$1 n=$2 i=$3 d=$4 port=$5; shift 5
	"$CAPTURE" $SD --session "$s" -n "$n" -o "$d/$n.xml" "$@" -- \
		"$APPS/pseudosync" "$n" "$i" 2 127.0.0.1 "$port" "$d" 3
}
ports=$(free_ports 16)
free_port() { echo $(( ports + $1 )); }

# session a throttles n1; session b, at the same time and with the same
# node names, is unthrottled
node "$S-a" n0 0 a "$(free_port 1)" --throttle n1 --watchdog 0.05 &
node "$S-a" n1 1 a "$(free_port 1)" --throttle n1 --watchdog 0.05 &
node "$S-b" n0 0 b "$(free_port 2)" &
node "$S-b" n1 1 b "$(free_port 2)" &
wait
for f in a/n0.xml a/n1.xml b/n0.xml b/n1.xml; do check_trace "$f"; done
[ "$(grep -c '<wait node="n1"' a/n0.xml)" -gt 0 ] || fail "session a: n0 waits for nothing of n1"
[ "$(grep -c '<signal node="n0"' a/n1.xml)" -gt 0 ] || fail "session a: n1 signals nobody"
expect_eq "session b waits" "$(cat b/n0.xml b/n1.xml | grep -c '<wait ')" 0
expect_eq "session b signals" "$(cat b/n0.xml b/n1.xml | grep -c '<signal ')" 0
grep -q 'seq="1"' a/n0.xml || fail "no I/O numbers"
[ -z "$(find sess -type f)" ] || fail "session files left: $(find sess -type f)"

# n1 never blocks (it writes all the time): each of the throttled node's
# holds ends at --hold-timeout, with a message; then n1's capture is
# killed, and the next holds end at once.
"$CAPTURE" $SD --session "$S-c" -n n1 -o c/n1.xml -- "$APPS/writes" 1 1000000000 8 /dev/null 2>/dev/null &
cap1=$!
sleep 0.2
start=$(date +%s.%N)
"$CAPTURE" $SD --session "$S-c" -n n0 -o c/n0.xml --throttle n0 --period 100 --watchdog 0.05 \
	--hold-timeout 0.5 -- "$APPS/writes" 1 250 8 c/out 2>c/n0.err
held=$(echo "$(date +%s.%N) - $start" | bc)
grep -q '2 of 2 held I/Os were released by --hold-timeout' c/n0.err ||
	fail "message: $(cat c/n0.err)"
[ "$(echo "$held < 3" | bc)" = 1 ] || fail "two holds of 0.5 s took $held s"
kill -KILL $cap1
wait $cap1 2>/dev/null
start=$(date +%s.%N)
"$CAPTURE" $SD --session "$S-c" -n n2 -o c/n2.xml --throttle n2 --period 100 --watchdog 0.05 \
	--hold-timeout 10 -- "$APPS/writes" 1 250 8 c/out2 2>c/n2.err
held=$(echo "$(date +%s.%N) - $start" | bc)
[ "$(echo "$held < 3" | bc)" = 1 ] || fail "holds waited $held s for a dead node"
pkill -KILL -f "writes 1 1000000000 8 /dev/null" 2>/dev/null
rm -f sess/island-session.$(id -u).$S-c      # n1's capture died without leaving
rm -rf spool/*                                 # and its spool with it
[ -z "$(find sess -type f)" ] || fail "session files left: $(find sess -type f)"

# a cluster pass whose node dies leaves the others hanging at the app's
# level: --timeout stops every node, says so, and leaves nothing behind
cat > dies.cluster.xml <<XML
<cluster version="1">
  <node name="n0"><arg>$APPS/pseudosync</arg><arg>n0</arg><arg>0</arg><arg>2</arg><arg>127.0.0.1</arg><arg>\${PORT}</arg><arg>\${SCRATCH}</arg></node>
  <node name="n1"><arg>sh</arg><arg>-c</arg><arg>kill -KILL \$\$</arg></node>
</cluster>
XML
rc=0; "$CAPTURE" $SD --cluster dies.cluster.xml --timeout 2 -o dies.xml 2>err || rc=$?
expect_eq "cluster status" "$rc" 1
grep -q 'run pass: node n0 did not finish in time (--timeout); stopping every node' err ||
	fail "message: $(cat err)"
[ -z "$(pgrep -f "$APPS/pseudosync n0 0 2")" ] || fail "processes left"
[ -z "$(find sess -type f)" ] || fail "session files left: $(find sess -type f)"
[ -z "$(find spool -mindepth 1)" ] || fail "spools left: $(find spool -mindepth 1)"
exit 0
