# The capture never changes what the app does: errno, an app that closes
# every descriptor, descriptors above 1024, an app with its own LD_PRELOAD.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
out=$("$CAPTURE" -n rb "$APPS/robust" "$PWD") || fail "robust failed: $out"
expect_eq "robust output" "$out" "robust child: own preload kept, capture present
robust: ok"
check_trace rb.xml
n=$(grep -c 'api="write" res="filewrite".* amount="10" size="10" fd="2000"' rb.xml)
expect_eq "writes on fd 2000" "$n" 1000
expect_eq "robust.txt bytes" "$(files_of rb.xml | grep robust.txt | cut -d' ' -f3)" 10001
grep -q 'api="open".*path="/nonexistent/x".*result="-1" errno="ENOENT"' rb.xml ||
	fail "failed open not recorded with its errno"
[ "$(grep -c '<process ' rb.xml)" = 2 ] || fail "the child with its own LD_PRELOAD was not captured"
exit 0
