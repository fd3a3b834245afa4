# island-replay of link, linkat, symlink, symlinkat (they were skipped:
# git writes each object as a temporary file linked to its name, and
# probes symlinks with lstat; its replay failed 6-9 calls). A symlink's
# target names the original machine's path, under the root here: an
# absolute target leads to the root's copy, never outside it.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
PY=/usr/bin/python3
"$CAPTURE" -o t.xml -- $PY -c "
import os
open('tmp', 'w').write('y' * 50)
os.link('tmp', 'obj')
os.unlink('tmp')
os.makedirs('sub/d')
os.mkdir('$PWD/outside')
os.symlink('obj', 'lnk')
os.symlink('../../obj', 'sub/d/rel')
os.symlink('$PWD/outside/f', 'sub/esc')
os.lstat('lnk')
open('sub/esc', 'w').write('z' * 7)
" 2> cap.err || fail "capture: $(cat cap.err)"
check_trace t.xml
expect_eq "captured outside/f" "$(stat -c %s outside/f)" 7
rm -r obj lnk sub outside
for m in causal think timed afap; do
	"$REPLAY" -q --mode $m --root r$m --report rep$m.xml t.xml 2> err$m.txt ||
		fail "replay $m: $(cat err$m.txt)"
	expect_eq "$m: warnings" "$(cat err$m.txt)" ""
	expect_eq "$m: failed" "$(sed -n 's/.*<node name="[^"]*".* failed="\([0-9]*\)".*/\1/p' rep$m.xml)" 0
	R=r$m$PWD
	expect_eq "$m: obj" "$(stat -c %s "$R/obj")" 50
	[ -e "$R/tmp" ] && fail "$m: tmp not unlinked"
	expect_eq "$m: lnk" "$(readlink -f "$R/lnk")" "$PWD/$R/obj"
	expect_eq "$m: sub/d/rel" "$(readlink -f "$R/sub/d/rel")" "$PWD/$R/obj"
	expect_eq "$m: sub/esc" "$(readlink -f "$R/sub/esc")" "$PWD/$R/outside/f"
	expect_eq "$m: outside/f under the root" "$(stat -c %s "$R/outside/f")" 7
	[ -e outside ] && fail "$m: the replay wrote outside its root"
done
# git: objects written as tmp_obj_* and linked to their names
command -v git > /dev/null || { echo "no git: git part skipped"; exit 0; }
mkdir g && cd g && echo hello > a.txt
"$CAPTURE" -o ../g.xml -- sh -c 'git init -q . && git add . && git -c user.name=a -c user.email=a@b commit -q -m m' \
	2> ../gcap.err || fail "git capture: $(cat ../gcap.err)"
expect_eq "git objects" "$(find .git/objects -type f | wc -l)" 3
cd ..
for m in causal think timed afap; do
	"$REPLAY" -q --mode $m --root g$m --report g$m.xml g.xml 2> gerr$m.txt ||
		fail "git replay $m: $(cat gerr$m.txt)"
	expect_eq "git $m: warnings" "$(cat gerr$m.txt)" ""
	expect_eq "git $m: failed" "$(sed -n 's/.*<node name="[^"]*".* failed="\([0-9]*\)".*/\1/p' g$m.xml)" 0
	expect_eq "git $m: objects" "$(find g$m$PWD/g/.git/objects -type f -size +0 | wc -l)" 3
done
exit 0
