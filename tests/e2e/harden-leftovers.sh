# Issue 13, items 2 and 7. A name planted in a shared directory is never
# followed: a symlink at a session file's path (to a 0600 file of ours)
# makes --session refuse, its target untouched. A cluster run stopped by
# SIGTERM leaves no namespace, temporary directory or process behind.
. "$ISLAND_ROOT/tests/e2e/lib.sh"

mkdir sess
echo secret > target
chmod 600 target
ln -s "$PWD/target" "sess/island-session.$(id -u).evil"
rc=0; "$CAPTURE" --session evil --session-dir sess -n a -- true 2>err || rc=$?
expect_eq "symlinked session: status" "$rc" 2
expect_eq "symlinked session: message" "$(cat err)" \
	"island-capture: $PWD/sess/island-session.$(id -u).evil: is a symbolic link, not a session file: refused"
expect_eq "the link's target" "$(cat target)" "secret"

# SIGTERM in the middle of a cluster run (with namespaces where root may
# make them)
ns=no
if [ "$(id -u)" = 0 ] && command -v ip >/dev/null && ip netns add isl-probe-$$ 2>/dev/null; then
	ip netns del isl-probe-$$
	ns=yes
fi
if [ $ns = yes ]; then
	attrs1=' netns="yes" address="10.77.0.1/24"' attrs2=' netns="yes" address="10.77.0.2/24"'
else
	attrs1= attrs2=
fi
cat > c.xml <<XML
<cluster version="1">
  <node name="n0"$attrs1><arg>sh</arg><arg>-c</arg><arg>sleep 30; : n0-$$</arg></node>
  <node name="n1"$attrs2><arg>sh</arg><arg>-c</arg><arg>sleep 30; : n1-$$</arg></node>
</cluster>
XML
nsbefore=$(ip netns list 2>/dev/null | grep -c '^isl-')
"$CAPTURE" --cluster c.xml -o c.out.xml 2>cerr &
cap=$!
for i in $(seq 50); do pgrep -f "sleep 30; : n1-$$" >/dev/null && break; sleep 0.1; done
pgrep -f "sleep 30; : n1-$$" >/dev/null || fail "the nodes did not start: $(cat cerr)"
[ $ns = no ] || [ "$(ip netns list | grep -c '^isl-')" -gt "$nsbefore" ] || fail "no namespace made"
kill -TERM $cap
rc=0; wait $cap || rc=$?
expect_eq "status after SIGTERM" "$rc" 143
sleep 0.3
[ -z "$(pgrep -f "sleep 30; : n[01]-$$")" ] || fail "nodes left running"
[ -z "$(ls -d /tmp/island-cluster.$cap.* 2>/dev/null)" ] || fail "temporary directory left: $(ls -d /tmp/island-cluster.$cap.*)"
expect_eq "namespaces left" "$(ip netns list 2>/dev/null | grep -c '^isl-')" "$nsbefore"

# --cleanup: what a killed run left (named after its island-capture's pid)
# goes when that pid is gone, and stays while it lives
sh -c 'exit 0' & dead=$!
wait $dead
mkdir "/tmp/island-cluster.$dead.ABCDEF" "/tmp/island-cluster.$$.GHIJKL"
ln -s "$PWD/target" "/tmp/island-cluster.$dead.ABCDEF/link"
rc=0; "$CAPTURE" --session-dir sess --cleanup 2>clean.err || rc=$?
ok_live=$([ -d "/tmp/island-cluster.$$.GHIJKL" ] && echo kept || echo removed)
rm -rf "/tmp/island-cluster.$$.GHIJKL"
expect_eq "--cleanup status" "$rc" 0
[ ! -e "/tmp/island-cluster.$dead.ABCDEF" ] || fail "a dead run's directory kept: $(cat clean.err)"
expect_eq "a live run's directory" "$ok_live" kept
expect_eq "the target of a link in it" "$(cat target)" "secret"
grep -q "^island-capture: removed /tmp/island-cluster.$dead.ABCDEF (of island-capture $dead, gone)$" clean.err ||
	fail "--cleanup said: $(cat clean.err)"
echo ok

