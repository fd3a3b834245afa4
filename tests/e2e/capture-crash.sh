# Nothing already recorded is lost when the app crashes or is killed: the
# trace is still written, valid, and marked incomplete.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
rc=0; "$CAPTURE" -n cr "$APPS/crash" 5000 2>/dev/null || rc=$?
expect_eq "status after SIGSEGV" "$rc" 139
check_trace cr.xml
grep -q '<trace version="1" generator="[^"]*" complete="false">' cr.xml || fail "not marked incomplete"
grep -q 'status="signal:SIGSEGV" complete="false"' cr.xml || fail "no SIGSEGV status"
expect_eq "writes before the crash" "$(grep -c 'api="write"' cr.xml)" 5000
grep -q 'exit="killed" complete="false"' cr.xml || fail "thread not marked killed"

# SIGKILL from outside, mid-run: 0.1 s after its first write (some
# 300,000 writes, whose trace xmllint validates at 20 MB/s; a fixed 0.5 s
# made the test 10 s)
rm -f crash.out
"$CAPTURE" -n kl "$APPS/crash" 1000 kill 2>/dev/null &
cap=$!
for i in $(seq 100); do [ -s crash.out ] && break; sleep 0.05; done
sleep 0.1
app=$(pgrep -P $cap | head -1)
[ -n "$app" ] || fail "no app process under the capture"
kill -KILL "$app"
rc=0; wait $cap || rc=$?
expect_eq "status after SIGKILL" "$rc" 137
check_trace kl.xml
grep -q 'status="signal:SIGKILL"' kl.xml || fail "no SIGKILL status"
recorded=$(grep -c 'api="write"' kl.xml)
written=$(( $(stat -c %s crash.out) / 5 ))
# every write that returned before the kill is in the trace (the one in
# flight at the kill may have reached the file without being recorded)
[ "$recorded" -eq "$written" ] || [ "$recorded" -eq $((written - 1)) ] ||
	fail "recorded $recorded writes, the file holds $written"
[ "$recorded" -gt 1000 ] || fail "only $recorded writes recorded"

# a server stopped by SIGTERM after 50 ms of CPU: no code of its ran at
# the end, its main thread's CPU time is read before it is reaped
"$CAPTURE" --server -o term.xml -- "$APPS/termburn" 50 > term.out &
cap=$!
for i in $(seq 100); do grep -q ready term.out && break; sleep 0.1; done
kill -TERM $cap
rc=0; wait $cap || rc=$?
expect_eq "status after SIGTERM" "$rc" 143
check_trace term.xml
grep -q 'status="signal:SIGTERM"' term.xml || fail "no SIGTERM status"
grep -q '<thread [^>]* cpu="[0-9.]*" exit="killed"' term.xml || fail "killed thread without cpu"
within "sums cpu of a server stopped by SIGTERM" \
	"$("$ANALYZE" sums --csv term.xml 2>&1 | awk -F, '$1 == "cpu" { print $2 }')" 0.050 0.150
exit 0
