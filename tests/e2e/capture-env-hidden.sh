# The capture does not change the environment the app sees (issue 13.10):
# our variables (ISLAND_SPOOL, ISLAND_CLOCK, ISLAND_LIB, ...) and our entry
# in LD_PRELOAD are taken out of environ once read, and put back only into
# the images the app execs, so a child exec'd with an empty environment is
# still captured.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
"$CAPTURE" -o a.xml -- env -i /usr/bin/env > a.out || fail "capture of env -i env failed"
expect_eq "env -i env under capture" "$(cat a.out)" ""
check_trace a.xml
"$CAPTURE" -o b.xml -- env > b.out || fail "capture of env failed"
expect_eq "our variables in env's output" \
	"$(grep -c -e '^ISLAND_SPOOL=' -e '^ISLAND_CLOCK=' -e '^ISLAND_LIB=' -e '^LD_PRELOAD=' b.out)" "0"
# the app's own LD_PRELOAD stays, without ours
libc=$(ldd /bin/sh | awk '/libc\.so/ { print $3 }')
LD_PRELOAD="$libc" "$CAPTURE" -o c.xml -- env > c.out || fail "capture with LD_PRELOAD failed"
expect_eq "the app's LD_PRELOAD" "$(grep '^LD_PRELOAD=' c.out)" "LD_PRELOAD=$libc"
# a child exec'd with an empty environment is captured
"$CAPTURE" -o d.xml -- env -i /bin/sh -c 'echo hi > f' || fail "capture of env -i sh failed"
check_trace d.xml
[ "$(grep -c "api=\"write\"[^>]*path=\"$PWD/f\"" d.xml)" -ge 1 ] ||
	fail "the write of the shell exec'd with an empty environment is not in the trace"
# ... and a shell started by popen(), which no exec wrapper sees
"$CAPTURE" -o p.xml -- "$APPS/popenwrite" pf || fail "capture of popenwrite failed"
check_trace p.xml
[ "$(grep -c "api=\"write\"[^>]*path=\"$PWD/pf\"" p.xml)" -ge 1 ] ||
	fail "the write of the shell started by popen is not in the trace"
exit 0
