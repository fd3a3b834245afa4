# Silent success on failure (issue 13, item 3): output that cannot be
# written is an error naming the file and errno, exit status non-zero, and
# what can be kept is kept. A full disk is a small tmpfs; a full stdout is
# /dev/full.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
REPLAY="$ISLAND_ROOT/bin/island-replay"
[ "$(id -u)" = 0 ] || { echo "needs root to mount a small tmpfs"; exit 77; }
mkdir full root
mount -t tmpfs -o size=64k tmpfs full 2>/dev/null || { echo "cannot mount tmpfs"; exit 77; }
if ! mount -t tmpfs -o size=64k tmpfs root; then umount full; exit 77; fi
trap 'umount full; umount root' EXIT

"$CAPTURE" -n w -o w.xml -- "$APPS/writes" 1 4 65536 "$PWD/out.bin" || fail "capture w"

# every tool's stdout: the buffered report is lost at exit, which says so
for cmd in "$ANALYZE sums w.xml" "$ANALYZE summary w.xml" "$ANALYZE export w.xml" \
	   "$REPLAY -r $PWD/r1 w.xml" "$CAPTURE --version"; do
	rc=0; $cmd > /dev/full 2>err || rc=$?
	[ "$rc" -ne 0 ] || fail "$cmd > /dev/full: exit 0"
	grep -q ': write error: No space left on device$' err || fail "$cmd > /dev/full: $(cat err)"
done

# a capture onto a full disk, plain, -z, zstd and the binary encoding: no
# trace, the spool kept and named (each written by the output's own thread)
dd if=/dev/zero of=full/filler bs=4k 2>/dev/null
for z in "" -z .zst .isb .isb.zst; do
	t=full/t.xml
	case $z in .zst) t=$t.zst; z= ;; .isb*) t=full/t$z; z= ;; esac
	rc=0; "$CAPTURE" $z -n n1 -o $t -- "$APPS/writes" 1 2000 8 /dev/null 2>err || rc=$?
	expect_eq "capture $z $t onto a full disk: status" "$rc" 1
	expect_eq "capture $z $t: lines" "$(wc -l < err)" 1
	spool=$(sed -n "s|^island-capture: $t: cannot write the trace: No space left on device; the records are kept in \(/.*island-spool\.[A-Za-z0-9]*\)\$|\1|p" err)
	[ -n "$spool" ] || fail "capture $z: message: $(cat err)"
	[ -d "$spool" ] && [ -n "$(ls "$spool")" ] || fail "capture $z: spool $spool not kept"
	rm -rf "$spool"
	expect_eq "capture $z: nothing left in full/" "$(ls -A full)" "filler"
done

# a replay onto a full root: short writes counted, reported, exit 1
rc=0; "$REPLAY" -q -r "$PWD/root" w.xml 2>err || rc=$?
expect_eq "replay onto a full root: status" "$rc" 1
grep -qx "island-replay: node w: 196608 bytes not written to $PWD/out.bin under $PWD/root: No space left on device" err ||
	fail "replay: $(cat err)"

# a 4 GiB write goes in bounded chunks: 1 GiB of address space is plenty
# (not under ASan, whose shadow memory needs more)
sed -e 's|amount="65536" size="65536" fd="3" path="[^"]*"|amount="4294967296" size="4294967296" fd="3" path="/dev/null"|' \
    -e 's|path="[^"]*out.bin" flags|path="/dev/null" flags|' w.xml > big.xml
if ldd "$REPLAY" | grep -q libasan; then
	echo "ASan build: the 4 GiB write is not run under a memory limit"
else
	rc=0; (ulimit -v 1048576; "$REPLAY" -q -m afap -c none -r "$PWD/r2" big.xml) 2>err || rc=$?
	expect_eq "4 GiB write under 1 GiB of memory: status" "$rc" 0
	expect_eq "4 GiB write: messages" "$(cat err)" ""
fi
exit 0
