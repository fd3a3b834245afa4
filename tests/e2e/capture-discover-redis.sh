# --discover on a second stock server (issue 17): redis-server (role
# "server", with its timer reading /proc at times of its own: set aside as
# polling) and redis-cli run by a shell, pinging until the server answers,
# then a set and a get (traces/redis.cluster.xml). Every request's
# dependencies are found (accept on connect, the request's read on its
# send, the reply's recv on its write), 90 % of what is found is true,
# each throttled pass takes at most 3x the unthrottled one, and the
# dependencies found replay (every call, no failure) with each node
# within 10 % of its time. The client node lasts some 65 ms; the server's
# three bio threads, 100 ms each in pthread_cond_wait, spun whole phases
# and starved it on two cores (7 to 39 % long) until the replay spun only
# what their host's CPU time allows (docs/island-replay.md, Modes).
# With four clients (redis-benchmark -c 4) no wait crosses connections.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
command -v redis-server >/dev/null && command -v redis-cli >/dev/null ||
	{ echo "needs redis-server and redis-cli"; exit 77; }
[ -x /usr/bin/python3 ] || { echo "needs /usr/bin/python3"; exit 77; }
mkdir sess
"$CAPTURE" --cluster "$ISLAND_ROOT/traces/redis.cluster.xml" --discover --timeout 60 \
	--session-dir sess --passes-dir passes -o redis.xml > out 2> err ||
	{ cat err; fail "discover failed"; }
check_trace redis.xml
# whole, but for the calls redis-server's SIGTERM handler makes (its
# shutdown log) when it interrupts a call, its epoll_wait: counted, not
# recorded, and said so (the trace said it was whole without them)
missing=$(grep -o 'complete="false" reason="[^"]*"' redis.xml | sort -u |
	grep -v 'reason="thread [0-9]* made [0-9]* calls* inside calls being recorded (a signal handler.s, a callback.s), not recorded"$')
[ -z "$missing" ] || fail "the trace is not complete: $missing"
expect_eq "replies" "$(grep -x 'PONG\|OK\|hello' out | tail -3 | tr '\n' ' ')" "PONG OK hello "
grep -q 'poll="kernel"' redis.xml || fail "the server's /proc reads are not set aside"
# the server's stop is in its trace, and what it did once told to stop
# (its SIGTERM log lines, its shutdown) is set aside: which call the
# signal interrupts is timing
grep -q '<node name="srv" [^>]*role="server" stopped="[0-9.]*"' redis.xml ||
	fail "the server's node says not when it was stopped"
grep -q 'poll="stopped"' redis.xml || fail "the server's shutdown is not set aside"
discovered redis.xml redis
passes_within 3 err "$ISLAND_ROOT/traces/redis.cluster.xml"
replay_within 10 redis.xml
for r in rep1.xml rep2.xml rep3.xml; do
	[ -s $r ] || fail "no replay report $r"
	grep -q '<node [^>]* failed="[1-9]' $r && fail "calls failed in the replay ($r)"
done
# what the nodes write to island-capture's own output (out, which they
# inherit) and, in a second run, to /dev/null, no node reads: the group
# pass does not hold it, and no wait is for it (three of the server's
# reads were found waiting on the client's flushes of its replies, and
# the server's start-up log was held 55 ms a line: its listen came up to
# 280 ms late, the group pass took 3.5x the run's own time in CI)
waits_on_output() {
	/usr/bin/python3 - "$1" "$2" <<'PY'
import sys, xml.etree.ElementTree as ET
nodes = list(ET.parse(sys.argv[1]).getroot().iter("node"))
out = {(n.get("name"), io.get("seq")) for n in nodes for io in n.iter("io")
       if io.get("seq") and io.get("path") == sys.argv[2]}
print(sum((w.get("node"), w.get("seq")) in out for n in nodes for w in n.iter("wait")))
PY
}
expect_eq "waits on what went to island-capture's output" "$(waits_on_output redis.xml "$PWD/out")" 0
"$CAPTURE" --cluster "$ISLAND_ROOT/traces/redis.cluster.xml" --discover --timeout 60 \
	--session-dir sess -o null.xml > /dev/null 2> null.err ||
	{ cat null.err; fail "discover with the output to /dev/null failed"; }
expect_eq "waits on what went to /dev/null" "$(waits_on_output null.xml /dev/null)" 0
# a server slow to start: the client's pings are refused a different
# number of times in each pass, in new redis-cli runs and within one (a
# refused attempt's socket, fcntl calls, connect in progress and close
# are all polling: the passes once differed by its fcntl calls)
sed 's|<arg>/usr/bin/redis-server</arg>|<arg>/bin/sh</arg><arg>-c</arg><arg>sleep 0.12; exec /usr/bin/redis-server "$@"</arg><arg>x</arg>|' \
	"$ISLAND_ROOT/traces/redis.cluster.xml" > slow.cluster.xml
"$CAPTURE" --cluster slow.cluster.xml --discover --timeout 60 --session-dir sess \
	-o slow.xml > slow.out 2> slow.err || { cat slow.err; fail "discover with a slow server failed"; }
# (refused in every pass: at least as many times as there were passes)
npasses=$(grep 'passes: ' slow.err | sed 's/.*(passes: //' | tr ',' '\n' | grep -c ' s')
[ "$npasses" -ge 2 ] || fail "fewer than 2 passes: $(grep 'passes: ' slow.err)"
[ "$(grep -c 'Connection refused' slow.err)" -ge "$npasses" ] || fail "the slow server's pings were not refused"
discovered slow.xml redis
# four clients at once (redis-benchmark -c 4): in which order the server's
# event loop reads its connections, and the client's its replies, is
# timing; each request's read waits on the send on its own connection,
# each reply's receive on the write on its own (6 of 804 waits crossed
# connections: two requests of as many bytes, in either order)
if command -v redis-benchmark >/dev/null; then
	sed 's|redis-cli -p ${PORT} set k hello; redis-cli -p ${PORT} get k|redis-benchmark -p ${PORT} -n 200 -c 4 -t set,get --csv|' \
		"$ISLAND_ROOT/traces/redis.cluster.xml" > c4.cluster.xml
	grep -q 'redis-benchmark' c4.cluster.xml || fail "no redis-benchmark in c4.cluster.xml"
	"$CAPTURE" --cluster c4.cluster.xml --discover --timeout 60 --session-dir sess \
		-o c4.xml > c4.out 2> c4.err || { cat c4.err; fail "discover with four clients failed"; }
	/usr/bin/python3 "$ISLAND_ROOT/tests/e2e/conncheck.py" c4.xml > c4.check || fail "conncheck failed"
	tail -5 c4.check
	expect_eq "waits across connections" "$(sed -n 's/^pairs [0-9]* cross-connection //p' c4.check)" 0
	[ "$(sed -n 's/^pairs \([0-9]*\) .*/\1/p' c4.check)" -ge 400 ] ||
		fail "fewer than 400 receives (of some 800) wait on a send"
else
	echo "no redis-benchmark: four clients not checked"
fi
[ -z "$(find sess -type f)" ] || fail "session files left: $(find sess -type f)"
exit 0
