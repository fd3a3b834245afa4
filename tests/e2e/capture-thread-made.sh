#!/bin/sh
# Which thread each pthread_create made: tests/apps/spawnorder makes 200
# threads back to back, the i-th writing i + 1 bytes. The trace's
# pthread_create i names as its child the thread that wrote i + 1 bytes,
# whichever of them started first (the thread's spool header names the
# call; matched by start times, 64-87 % of them were another's), written
# at the end, streamed, and under --syscalls.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
[ -x "$APPS/spawnorder" ] || { echo "tests/apps not built"; exit 77; }

# made TRACE: "N made, M named another" from the trace's XML
made() {
	awk '/<thread tid="/ { match($0, /tid="[0-9]+"/); tid = substr($0, RSTART + 5, RLENGTH - 6)
			       if (main == "") main = tid }
	     tid == main && /api="pthread_create"/ && match($0, /child="[0-9]+"/) {
			       kid[n++] = substr($0, RSTART + 7, RLENGTH - 8) }
	     tid != main && !(tid in wrote) && /api="write"/ && match($0, /amount="[0-9]+"/) {
			       wrote[tid] = substr($0, RSTART + 8, RLENGTH - 9) }
	     END { for (i = 0; i < n; i++) bad += wrote[kid[i]] != i + 1
		   printf "%d made, %d named another\n", n, bad }' "$1"
}

"$CAPTURE" -n end -o end.xml -- "$APPS/spawnorder" 200 2> end.err || fail "capture: $(cat end.err)"
check_trace end.xml
expect_eq "written at the end" "$(made end.xml)" "200 made, 0 named another"

"$CAPTURE" -n st -o st.xml.zst -- "$APPS/spawnorder" 200 2> st.err || fail "capture: $(cat st.err)"
"$ANALYZE" export --format xml st.xml.zst > st.xml || fail "export failed"
expect_eq "streamed" "$(made st.xml)" "200 made, 0 named another"

if "$CAPTURE" --syscalls -n sy -o sy.xml -- "$APPS/spawnorder" 200 2> sy.err; then
	if grep -q 'syscalls="kernel"' sy.xml; then
		expect_eq "--syscalls" "$(made sy.xml)" "200 made, 0 named another"
	fi
else
	fail "capture --syscalls: $(cat sy.err)"
fi
exit 0
