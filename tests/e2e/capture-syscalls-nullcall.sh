# island-capture --syscalls maps a page at address 0 for its rewritten
# `syscall` sites (call *%rax): a call of a NULL function pointer must
# still crash as it does natively, with SIGSEGV, not make a system call.
# tests/apps/nullcall calls address 0 through `call *%rax` with the
# registers of a read(0, buf, 64) in place: natively, and captured, it
# dies with SIGSEGV (status 139); its SIGSEGV handler, when it has one,
# is given the fault at address 0 with the instruction pointer at 0, in
# the main thread or another; a blocked or ignored SIGSEGV kills all the
# same, as the kernel forces a fault's signal. System call numbers past
# the slide fail with ENOSYS as they do natively.
. "$ISLAND_ROOT/tests/e2e/lib.sh"

# run MODE NAME: status and output of nullcall MODE, natively (NAME=native)
# or under --syscalls
run() {
	rc=0
	if [ "$2" = native ]; then
		"$APPS/nullcall" $1 < /dev/null > "$2.$1.out" 2> "$2.$1.err" || rc=$?
	else
		"$CAPTURE" --syscalls -o "$1.xml" -- "$APPS/nullcall" $1 < /dev/null \
			> "$2.$1.out" 2> "$2.$1.err" || rc=$?
	fi
	echo "$rc $(cat "$2.$1.out")"
}

want_handler="7 signal 11 code 1 addr (nil) rip 0 rdi 0"
for how in native captured; do
	expect_eq "$how: NULL call" "$(run plain $how)" "139 "
	expect_eq "$how: NULL call, with a handler" "$(run handler $how)" "$want_handler"
	expect_eq "$how: NULL call in a thread, with a handler" "$(run thread $how)" "$want_handler"
	expect_eq "$how: NULL call, SIGSEGV blocked" "$(run blocked $how)" "139 "
	expect_eq "$how: NULL call, SIGSEGV ignored" "$(run ignored $how)" "139 "
done
grep -q 'status="signal:SIGSEGV"' plain.xml || fail "the trace does not say the app died of SIGSEGV"
grep -q 'fd="0" path="/dev/null"' plain.xml && fail "the NULL call was recorded as a read"
# a rewritten site (libc's syscall()) called with a number x86-64 does
# not have lands on page 0 past the slide: ENOSYS all the same (512: the
# jump to the capture; 513: inside it; 600, 2058, 2068 and 4094: the
# slides to the two `syscall`s, and those; see sud.c)
nrs="512 513 600 2058 2068 4094"
want="512: -1 38
513: -1 38
600: -1 38
2058: -1 38
2068: -1 38
4094: -1 38"
expect_eq "numbers past the slide natively" "$("$APPS/badnr" $nrs)" "$want"
expect_eq "numbers past the slide captured" \
	"$("$CAPTURE" --syscalls -o nr.xml -- "$APPS/badnr" $nrs)" "$want"
# the case only arises where the capture maps page 0 (root here)
if [ "$(id -u)" = 0 ]; then
	expect_eq "page 0 under --syscalls as root" "$(grep 'page 0' captured.handler.err)" "page 0 mapped"
fi
exit 0
