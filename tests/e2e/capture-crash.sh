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

# SIGKILL from outside, mid-run
"$CAPTURE" -n kl "$APPS/crash" 1000 kill 2>/dev/null &
cap=$!
sleep 0.5
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
exit 0
