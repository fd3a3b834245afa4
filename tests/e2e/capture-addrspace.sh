# A limit of address space (ulimit -v) and the capture's arena, mapped
# whole by every process image (64 GiB, sparse): under a 2 GiB limit the
# capture records everything (the arena is a quarter of the limit); a
# child that lowers its own limit below the arena's size is not recorded,
# and the trace says so (complete="false" reason="address-space") with one
# line naming the count, instead of an empty trace marked complete.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
# AddressSanitizer maps terabytes of shadow: no ulimit -v for it (ASAN=1)
ldd "$CAPTURE" | grep -q libasan && { echo "island-capture built with ASAN=1"; exit 77; }

(ulimit -v 2097152; "$CAPTURE" -o lim.xml -- /bin/echo hi > out.txt 2> err.txt) ||
	fail "capture under ulimit -v: $(cat err.txt)"
expect_eq "output" "$(cat out.txt)" hi
check_trace lim.xml
grep -q '<trace [^>]*complete="true"' lim.xml || fail "lim.xml: not complete: $(grep -o '<trace [^>]*' lim.xml)"
grep -q '<io api="fputs" [^>]*amount="2"' lim.xml || fail "lim.xml: echo's output not recorded"
[ -s err.txt ] && fail "unexpected messages: $(cat err.txt)"

"$CAPTURE" -o child.xml -- sh -c 'ulimit -v 60000; /bin/echo hi' > out.txt 2> err.txt ||
	fail "capture of a child under its own limit: $(cat err.txt)"
expect_eq "output" "$(cat out.txt)" hi
check_trace child.xml
grep -q '<trace [^>]*complete="false" reason="address-space"' child.xml ||
	fail "child.xml: $(grep -o '<trace [^>]*' child.xml)"
expect_eq "message" "$(cat err.txt)" "island-capture: child.xml: 1 process images were not recorded: they could not map the capture's arena (a limit of address space, ulimit -v?); the trace is marked incomplete"
exit 0
