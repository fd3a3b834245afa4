# island-capture runs the program exactly as it would run: arguments,
# stdin, stdout, stderr, exit status; clear errors before the app starts.
. "$ISLAND_ROOT/tests/e2e/lib.sh"

# exit status, and 128+signal
rc=0; "$CAPTURE" -n n1 sh -c 'exit 3' || rc=$?
expect_eq "exit status" "$rc" 3
rc=0; "$CAPTURE" -n n1 sh -c 'kill -TERM $$' || rc=$?
expect_eq "status after SIGTERM" "$rc" 143
grep -q 'status="signal:SIGTERM"' n1.xml || fail "no signal status in trace"
grep -q 'complete="false"' n1.xml || fail "killed run not marked incomplete"
check_trace n1.xml

# a stderr whose reader is gone (2>&1 | head): the capture's warning
# fails, the trace is written, the status is the app's (island-capture
# died of SIGPIPE, and left no trace when it warned before writing it);
# the app's SIGPIPE is its own (not ignored: ours is set after the fork)
/usr/bin/python3 - "$CAPTURE" <<'PY' > epipe.out || fail "stderr closed: $(cat epipe.out)"
import os, subprocess, sys
r, w = os.pipe()
os.close(r)
p = subprocess.run([sys.argv[1], "-n", "n1", "-o", "epipe.xml", "--", "sh", "-c", "kill -SEGV $$"], stderr=w)
print(p.returncode, os.path.exists("epipe.xml"))
PY
expect_eq "status and trace, stderr closed" "$(cat epipe.out)" "139 True"
"$CAPTURE" -n n1 -o ign.xml -- grep SigIgn /proc/self/status > ign.out || fail "capture of grep SigIgn failed"
expect_eq "signals the app ignores" "$(cat ign.out)" "$(grep SigIgn /proc/self/status)"

# a thread's cpu fits in its start..end: the process island-capture runs
# starts at its fork, before exec and the dynamic loader, whose CPU time
# its main thread's cpu counts (true: 0.5 ms of cpu in a 0.1 ms life)
for k in 1 2 3; do
	"$CAPTURE" -o span$k.xml true
	over=$(sed -n 's/.*<thread [^>]*start="\([0-9.]*\)" end="\([0-9.]*\)" cpu="\([0-9.]*\)".*/\1 \2 \3/p' span$k.xml |
		awk '$3 > $2 - $1 + 0.000020 { print "cpu " $3 " in " $1 ".." $2 }')
	expect_eq "run $k: cpu beyond the thread's span" "$over" ""
done

# stdin, stdout and stderr are the app's, unchanged
out=$(printf 'hello\nworld\n' | "$CAPTURE" -n n1 cat)
expect_eq "stdout" "$out" "$(printf 'hello\nworld')"
err=$("$CAPTURE" -n n1 sh -c 'echo oops >&2' 2>&1 >/dev/null)
expect_eq "stderr" "$err" "oops"

# options end at the program's name; -- is optional
out=$("$CAPTURE" -n n1 echo -n -x)
expect_eq "program options" "$out" "-x"
out=$("$CAPTURE" -n n1 -- echo a b)
expect_eq "after --" "$out" "a b"

# default output: NODE.xml; -o; -z
"$CAPTURE" -n mynode true
[ -f mynode.xml ] || fail "default output mynode.xml missing"
"$CAPTURE" -n zn -z true
[ -f zn.xml.gz ] || fail "-z: zn.xml.gz missing"
gzip -t zn.xml.gz || fail "zn.xml.gz is not gzip"
gzip -dc zn.xml.gz > zn.xml && check_trace zn.xml
"$CAPTURE" -o custom.xml true
[ -f custom.xml ] || fail "-o custom.xml missing"
grep -q "<node name=\"$(hostname)\"" custom.xml || fail "default node name is not the host name"

# errors before the app starts
rc=0; msg=$("$CAPTURE" -n n1 ./no-such-program 2>&1) || rc=$?
expect_eq "missing program status" "$rc" 127
expect_eq "missing program message" "$msg" "island-capture: ./no-such-program: No such file or directory"
rc=0; msg=$("$CAPTURE" -n n1 no-such-command-xyz 2>&1) || rc=$?
expect_eq "unknown command status" "$rc" 127
expect_eq "unknown command message" "$msg" "island-capture: no-such-command-xyz: command not found"
rc=0; "$CAPTURE" --bogus true 2>err || rc=$?
expect_eq "unknown option status" "$rc" 2
expect_eq "unknown option message" "$(cat err)" "island-capture: unknown option '--bogus' (try --help)"
mkdir ro && chmod 555 ro
if [ "$(id -u)" != 0 ]; then
	rc=0; "$CAPTURE" -o ro/t.xml touch ran 2>err || rc=$?
	expect_eq "unwritable output status" "$rc" 2
	[ ! -e ran ] || fail "the app ran although the output is unwritable"
fi
rc=0; "$CAPTURE" -o no/such/dir/t.xml touch ran 2>err || rc=$?
expect_eq "output in a missing directory" "$rc" 2
grep -q "no/such/dir/t.xml: cannot write the trace here" err || fail "message: $(cat err)"
[ ! -e ran ] || fail "the app ran although the output is unwritable"
exit 0
