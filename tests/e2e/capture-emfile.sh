#!/bin/sh
# The descriptors exhausted (ulimit -n 64, tests/apps/emfile opens
# /dev/null until EMFILE), then a thread and a child: the app opens as
# many as without the capture (the interposer holds no descriptor), and
# the thread and the child are recorded all the same (their spools are
# chunks of the arena, mapped before the app ran: nothing to open).
. "$ISLAND_ROOT/tests/e2e/lib.sh"
[ -x "$APPS/emfile" ] || { echo "tests/apps not built"; exit 77; }
(ulimit -n 64 && "$APPS/emfile") > native.out || fail "the app fails natively"
expect_eq "native" "$(cat native.out)" "opened 61"
(ulimit -n 64 && exec "$CAPTURE" -n em -o em.xml "$APPS/emfile") > app.out 2> cap.err ||
	fail "capture: $(cat cap.err)"
diff -u native.out app.out || fail "the app behaved otherwise under the capture"
check_trace em.xml
grep -q '<trace version="1" generator="[^"]*" complete="true">' em.xml || fail "trace not complete"
expect_eq "processes" "$(grep -c '<process .* status="exit:0" complete="true">' em.xml)" 2
expect_eq "threads" "$(grep -c '<thread .* complete="true">' em.xml)" 3
expect_eq "capture's messages" "$(cat cap.err)" ""
for r in summary sums files consumption timeline; do
	"$ANALYZE" $r em.xml 2> warn.txt >/dev/null
	expect_eq "$r: warnings" "$(cat warn.txt)" ""
done
exit 0
