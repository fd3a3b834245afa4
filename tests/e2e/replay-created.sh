# island-replay: a file the trace creates is not made beforehand when only
# its maker's thread uses it. think, timed and afap pre-create what any
# call reads (no causality: a reader may run first), and the O_EXCL
# create of f, read back by the same thread, failed with EEXIST there
# (failed=1). A file one process makes and another reads still exists
# from the start in those modes.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
"$CAPTURE" -o t.xml -- /usr/bin/python3 -c "
import os
fd = os.open('f', os.O_WRONLY | os.O_CREAT | os.O_EXCL)
os.write(fd, b'x' * 100)
os.close(fd)
open('f').read()
open('g', 'w').write('y' * 60)
open('g').read()
" 2> cap.err || fail "capture: $(cat cap.err)"
check_trace t.xml
"$CAPTURE" -o p.xml -- sh -c 'seq 1 1000 > a; cat a > b' 2> cap.err || fail "capture: $(cat cap.err)"
check_trace p.xml
rm f g a b
# replayed MODE TRACE ROOT LABEL: replayed in MODE under ROOT with no
# warning and no failed call
replayed() {
	"$REPLAY" -q --mode "$1" --root "$3" --report "$3.xml" "$2" 2> "$3.err" ||
		fail "replay $1: $(cat "$3.err")"
	expect_eq "$1: $4warnings" "$(cat "$3.err")" ""
	expect_eq "$1: $4failed" "$(sed -n 's/.*<node name="[^"]*".* failed="\([0-9]*\)".*/\1/p' "$3.xml")" 0
}
for m in causal think timed afap; do
	replayed $m t.xml r$m ""
	expect_eq "$m: f" "$(stat -c %s "r$m$PWD/f")" 100
	expect_eq "$m: g" "$(stat -c %s "r$m$PWD/g")" 60
	replayed $m p.xml p$m "pipeline "
	expect_eq "$m: a" "$(stat -c %s "p$m$PWD/a")" 3893
	expect_eq "$m: b" "$(stat -c %s "p$m$PWD/b")" 3893
done
exit 0
