# Restrictions: a CPU share enforced by stopping the app (every stop
# logged), rate limits enforced in the interposer with Repy's rule (every
# hold recorded), restrictions files with file:line errors.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
sum_attr() { # FILE REGEX ATTR: the sum of ATTR over the matching lines
	grep -E "$2" "$1" | sed -E "s/.* $3=\"([0-9.]+)\".*/\1/" | awk '{ s += $1 } END { printf "%.3f\n", s }'
}

# The seed's single-threaded example: write twice the per-second limit,
# then compute for one second of wall time, at 10% of a CPU.
"$CAPTURE" --cpu 0.10 --filewrite 100000 -n seed "$APPS/seedbasic" 100000 || fail "seedbasic"
check_trace seed.xml
grep -q '<limit resource="cpu" value="0.1"/>' seed.xml || fail "cpu limit not in the trace"
grep -q '<limit resource="filewrite" value="100000"/>' seed.xml || fail "filewrite limit not in the trace"
w=$(grep 'api="write"' seed.xml)
held=$(echo "$w" | sed -E 's/.* throttle="([0-9.]+)".*/\1/')
within "write held" "$held" 0.99 1.01
echo "$w" | grep -q 'limit="filewrite"' || fail "no limit on the write"
took=$(echo "$w" | sed -E 's/.* start="([0-9.]+)" end="([0-9.]+)".*/\2 - \1/' | bc)
within "write duration" "$took" 0.95 1.10
stopped=$(sum_attr seed.xml '<stop ' dur)
within "time stopped" "$stopped" 0.8 1.2
[ "$(grep -c '<stop ' seed.xml)" -ge 5 ] || fail "few stops"

# The same from a restrictions file; the command line overrides it.
printf '# the seed restrictions\nresource cpu .50\nresource filewrite 100000   # bytes/s\n\n' > r.txt
"$CAPTURE" --restrictions r.txt --cpu 0.10 -n seed2 "$APPS/seedbasic" 100000 || fail "seedbasic 2"
grep -q '<limit resource="cpu" value="0.1"/>' seed2.xml || fail "--cpu does not override the file"
grep -q 'throttle="1.0' seed2.xml || fail "file's filewrite limit not applied"

# Traffic on a pipe counts as netsend: 100000 bytes at 50000 B/s hold 1 s.
"$CAPTURE" --netsend 50000 -n pipe sh -c 'head -c 100000 /dev/zero | cat > /dev/null' || fail "pipe"
within "netsend held" "$(sum_attr pipe.xml 'limit="netsend"' throttle)" 0.95 1.05
[ "$(grep -c 'limit="filewrite"' pipe.xml)" = 0 ] || fail "unlimited resource held"

# Bad restrictions: one line, file:line, exit 2, the app never runs.
check_bad() { # CONTENT MESSAGE
	printf "$1" > bad.txt
	rc=0; "$CAPTURE" --restrictions bad.txt touch ran 2>err || rc=$?
	expect_eq "status for '$1'" "$rc" 2
	expect_eq "message for '$1'" "$(cat err)" "$2"
	[ ! -e ran ] || fail "the app ran with bad restrictions"
}
check_bad 'resource cpu .1\nresource memory 100\n' "bad.txt:2: unknown resource 'memory' (island-capture enforces cpu, fileread, filewrite, netsend, netrecv)"
check_bad 'resource cpu\n' "bad.txt:1: expected 'resource NAME VALUE'"
check_bad 'call open allow\n' "bad.txt:1: unknown directive 'call' (expected 'resource')"
check_bad 'resource filewrite lots\n' "bad.txt:1: filewrite: 'lots' is not a non-negative number (of bytes per second: 100000, 64k, 10M, 1G)"
check_bad 'resource cpu 1.5\n' "bad.txt:1: cpu: '1.5' is not a share of one CPU in (0, 1]"
rc=0; "$CAPTURE" --restrictions missing.txt true 2>err || rc=$?
expect_eq "missing file status" "$rc" 2
expect_eq "missing file message" "$(cat err)" "island-capture: missing.txt: No such file or directory"
exit 0
