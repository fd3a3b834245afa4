#!/bin/sh
# Honest completeness with the descriptors exhausted (ulimit -n 64,
# tests/apps/emfile opens /dev/null until EMFILE): the thread and the
# child it then makes cannot get a spool. The app runs as without the
# capture; the trace is not complete, its process says why, the capture
# says so, and every report prints the reason in one warning line.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
[ -x "$APPS/emfile" ] || { echo "tests/apps not built"; exit 77; }
(ulimit -n 64 && "$APPS/emfile") > native.out || fail "the app fails natively"
(ulimit -n 64 && exec "$CAPTURE" -n em -o em.xml "$APPS/emfile") > app.out 2> cap.err ||
	fail "capture: $(cat cap.err)"
diff -u native.out app.out || fail "the app behaved otherwise under the capture"
check_trace em.xml
grep -q '<trace version="1" generator="[^"]*" complete="false">' em.xml || fail "trace marked complete"
[ "$(grep -c '<process ' em.xml)" = 1 ] && [ "$(grep -c '<thread ' em.xml)" = 1 ] ||
	fail "expected the one process and thread that had spools"
why='child process N has no record (no spool: descriptors or memory exhausted, or an image without the interposer); 1 thread created with pthread_create has no record (no spool: descriptors or memory exhausted)'
got=$(sed -n 's/.*<process .* status="exit:0" complete="false" reason="\([^"]*\)">.*/\1/p' em.xml |
	sed -E 's/process [0-9]+/process N/')
expect_eq "process reason" "$got" "$why"
got=$(sed -E 's/process [0-9]+/process N/g' cap.err)
expect_eq "capture's message" "$got" "island-capture: em.xml: process N is incomplete: $why"
for r in summary sums files consumption timeline; do
	"$ANALYZE" $r em.xml 2>&1 >/dev/null | sed -E 's/process [0-9]+/process N/g' > warn.txt
	cat > warn.want <<WANT
em.xml:2: warning: trace is incomplete (a process was killed or not fully seen); analysing what was recorded
em.xml:5: warning: process N is incomplete: $why
WANT
	diff -u warn.want warn.txt || fail "$r: warnings differ"
done
exit 0
