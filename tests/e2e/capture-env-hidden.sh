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
# /proc/PID/environ, the kernel's copy (the memory between the process's
# env_start and env_end), shows none of ours either: the strings taken out
# are set to NULs. The app's own variables stay as they are, in their order,
# its LD_PRELOAD without what our entry leaves past its end.
env -i A=1 B=2 "$CAPTURE" -o k.xml -- /bin/cat /proc/self/environ > k.out ||
	fail "capture of cat /proc/self/environ failed"
expect_eq "/proc/self/environ under capture" "$(tr '\0' '\n' < k.out | grep -v '^$')" "A=1
B=2"
expect_eq "bytes of /proc/self/environ other than NUL, A=1 and B=2" \
	"$(tr -d '\0' < k.out)" "A=1B=2"
env -i A=1 LD_PRELOAD="$libc" B=2 "$CAPTURE" -o l.xml -- /bin/cat /proc/self/environ > l.out ||
	fail "capture of cat /proc/self/environ with LD_PRELOAD failed"
expect_eq "/proc/self/environ with the app's LD_PRELOAD" \
	"$(tr '\0' '\n' < l.out | grep -v '^$')" "A=1
LD_PRELOAD=$libc
B=2"
expect_eq "bytes of /proc/self/environ other than NUL, with LD_PRELOAD" \
	"$(tr -d '\0' < l.out)" "A=1LD_PRELOAD=${libc}B=2"
# ... and in an image the app execs, where the capture puts them back
env -i A=1 "$CAPTURE" -o m.xml -- /bin/sh -c '/bin/cat /proc/self/environ' > m.out ||
	fail "capture of sh -c cat /proc/self/environ failed"
expect_eq "/proc/self/environ of a child of the app" "$(tr '\0' '\n' < m.out | grep -v '^$')" "A=1
PWD=$(pwd -P)"
# With --syscalls too (dynamic programs, which island-loader starts and
# the interposer takes over): neither environ nor /proc/PID/environ shows
# ours, and a child exec'd by the libc wrappers or by a raw execve system
# call still gets them, and is recorded
env -i A=1 B=2 "$CAPTURE" --syscalls -o ks.xml -- /bin/cat /proc/self/environ > ks.out ||
	fail "--syscalls capture of cat /proc/self/environ failed"
expect_eq "--syscalls: bytes of /proc/self/environ other than NUL" "$(tr -d '\0' < ks.out)" "A=1B=2"
env -i A=1 "$CAPTURE" --syscalls -o ss.xml -- /bin/sh -c '/usr/bin/env; /bin/cat /proc/self/environ > ce' > ss.out ||
	fail "--syscalls capture of sh -c env failed"
expect_eq "--syscalls: env in a shell" "$(cat ss.out)" "A=1
PWD=$(pwd -P)"
expect_eq "--syscalls: /proc/self/environ of a child" "$(tr -d '\0' < ce)" "A=1PWD=$(pwd -P)"
check_trace ss.xml
[ "$(grep -c "api=\"write\"[^>]*level=\"[a-z|]*kernel\"[^>]*path=\"$PWD/ce\"" ss.xml)" -ge 1 ] ||
	fail "--syscalls: the write of the shell's child is not in the trace"
# the same by libc's syscall() in the default mode: followed like execve
env -i A=1 "$CAPTURE" -o rd.xml -- "$APPS/rawexec" /bin/sh -c 'echo hi > rd; /usr/bin/env' > rd.out ||
	fail "capture of rawexec failed"
expect_eq "env after syscall(SYS_execve)" "$(cat rd.out)" "A=1
PWD=$(pwd -P)"
[ "$(grep -c "api=\"write\"[^>]*path=\"$PWD/rd\"" rd.xml)" -ge 1 ] ||
	fail "the write of the image syscall(SYS_execve) started is not in the trace"
grep -q '<io api="execve"' rd.xml || fail "syscall(SYS_execve) is not recorded as an execve"
env -i A=1 "$CAPTURE" --syscalls -o rx.xml -- "$APPS/rawexec" /bin/sh -c 'echo hi > rf; /usr/bin/env' > rx.out ||
	fail "--syscalls capture of rawexec failed"
expect_eq "--syscalls: env after a raw execve" "$(cat rx.out)" "A=1
PWD=$(pwd -P)"
[ "$(grep -c "api=\"write\"[^>]*path=\"$PWD/rf\"" rx.xml)" -ge 1 ] ||
	fail "--syscalls: the write of the image a raw execve started is not in the trace"
exit 0
