# island-replay: a trace that writes /etc/passwd, ../../x, unlinks
# /etc/shadow, renames /etc/hosts, writes through a symlink planted under
# the root and through /proc/self/root: all of it stays under the root.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
REPLAY="$ISLAND_ROOT/bin/island-replay"
T="$ISLAND_ROOT/tests/traces/replay-escape.xml"
check_trace "$T"
sums() { for f in /etc/passwd /etc/shadow /etc/hosts /etc/group; do
	[ -e "$f" ] && cksum "$f"; done; }
sums > before.txt
mkdir -p r outside
ln -s "$PWD/outside" r/evil
# a root that holds something is refused, unless asked for
"$REPLAY" -q --root r "$T" 2> refused.txt && fail "a root not empty was not refused"
expect_eq "refused" "$(cat refused.txt)" \
	"island-replay: --root r: refused: not empty (it holds evil; --reuse-root to replay over it)"
"$REPLAY" -q --reuse-root --root r --report rep.xml "$T" 2> err.txt || fail "replay: $(cat err.txt)"
sums > after.txt
diff before.txt after.txt || fail "files outside the root changed"
[ -e /x ] && [ "$(stat -c %s /x)" = 7 ] && fail "/x was written"
expect_eq "files escaped through the planted symlink" "$(ls outside | wc -l)" 0
expect_eq "r/etc/passwd" "$(stat -c %s r/etc/passwd)" 13
expect_eq "r/x" "$(stat -c %s r/x)" 7
[ -e r/etc/shadow ] && fail "r/etc/shadow was not unlinked"
[ -d r/root/.ssh ] || fail "no r/root/.ssh"
[ -e r/root/.ssh/authorized_keys ] || fail "rename did not happen under the root"
[ -e r/etc/hosts ] && fail "r/etc/hosts was not renamed"
# the refused open is reported and counted; /proc/self/root is only a
# directory name under the root
expect_eq "warning" "$(cat err.txt)" \
	"$T:18: node evil: replay of open /evil/planted: Invalid cross-device link (outside the root: refused)"
expect_eq "failed calls" "$(sed -n 's/.*<node name="evil".* failed="\([0-9]*\)".*/\1/p' rep.xml)" 1
expect_eq "r/proc/self/root/etc/group" "$(stat -c %s r/proc/self/root/etc/group)" 5
exit 0
