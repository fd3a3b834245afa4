# island-replay: processes (fork, vfork, posix_spawn, system, exec) and a
# thread replayed: each file written under the root with its original size.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
REPLAY="$ISLAND_ROOT/bin/island-replay"
mkdir d
"$CAPTURE" -n f -o f.xml "$APPS/forkexec" "$PWD/d" > /dev/null || fail "capture"
for f in d/*; do echo "$(basename "$f") $(stat -c %s "$f")"; done > want.txt
[ "$(wc -l < want.txt)" -ge 5 ] || fail "forkexec wrote only $(wc -l < want.txt) files"
rm -rf d
"$REPLAY" -q --root r --report rep.xml f.xml || fail "replay"
for f in r"$PWD"/d/*; do echo "$(basename "$f") $(stat -c %s "$f")"; done > got.txt
diff want.txt got.txt || fail "file sizes differ"
[ -e d ] && fail "the replay wrote outside its root"
expect_eq "failed calls" "$(sed -n 's/.*<node name="f".* failed="\([0-9]*\)".*/\1/p' rep.xml)" 0
for i in 2 3; do
	"$REPLAY" -q --root r$i --report rep$i.xml f.xml || fail "replay $i"
done
timing_ok rep.xml rep2.xml rep3.xml
exit 0
