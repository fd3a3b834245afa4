# The report for the storage engineer: per family latency, IOPS and
# MB/s on both systems; skipped and failed calls by name with why; the
# column named "change" on another file system; --repeat's spread.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
PY=/usr/bin/python3
"$CAPTURE" -o t.xml -- $PY -c "
import os
fd = os.open('f', os.O_CREAT | os.O_WRONLY, 0o644)
for i in range(20): os.write(fd, b'x' * 4096)
os.fsync(fd)
os.fchmod(fd, 0o600)
os.close(fd)
" 2> cap.err || fail "capture: $(cat cap.err)"
"$REPLAY" --root r --report rep.xml t.xml > out.txt 2> err.txt || fail "replay: $(cat err.txt)"
grep -q "^node  *family  *p50_orig  *p50_repl  *p99_orig  *p99_repl iops_orig iops_repl MBs_orig MBs_repl$" out.txt ||
	fail "no storage table: $(cat out.txt)"
grep -q "^[^ ]*  *write  *[0-9.]*  *[0-9.]*  *[0-9.]*  *[0-9.]*  *[0-9.]*  *[0-9.]*  *[0-9.]*  *[0-9.]*$" out.txt ||
	fail "no write row"
grep -q "^skipped [^ ]*  *fchmod  *x1  *not reissued (the trace holds no value): its time spent$" out.txt ||
	fail "fchmod not listed: $(grep skipped out.txt)"
grep -q '<family name="write" calls="[0-9]*" .* p50_original="[0-9.]*" p50_replayed="[0-9.]*" p99_original="[0-9.]*" p99_replayed="[0-9.]*" iops_original="[0-9.]*" iops_replayed="[0-9.]*" mbs_original="[0-9.]*" mbs_replayed="[0-9.]*"/>' rep.xml ||
	fail "no percentiles in the XML family"
grep -q '<skipped api="fchmod" count="1" reason="no value in the trace: time spent"/>' rep.xml || fail "no <skipped>"
expect_eq "write bytes" "$(sed -n 's/.*<family name="write" .* bytes_replayed="\([0-9]*\)".*/\1/p' rep.xml)" 81920
# the trace's directory is here, the root on the same file system: error
grep -q 'system="same"' rep.xml || fail "not system=same"
grep -q "^node  *original  *replayed  *error " out.txt || fail "not named error"
if [ -d /dev/shm ] && [ "$(stat -c %d /dev/shm)" != "$(stat -c %d .)" ]; then
	d=$(mktemp -d /dev/shm/replay-report.XXXXXX)
	"$REPLAY" --root "$d/r" --report rep2.xml t.xml > out2.txt 2> err.txt || fail "replay: $(cat err.txt)"
	rm -rf "$d"
	grep -q 'system="other"' rep2.xml || fail "not system=other"
	grep -q "^node  *original  *replayed  *change " out2.txt || fail "not named change"
	grep -q "^island-replay: the root is on another file system than the trace's: the difference is the change it makes$" out2.txt ||
		fail "no note of the other system"
fi
# failed by name: the escape trace's refused open
mkdir -p e outside && ln -s "$PWD/outside" e/evil
"$REPLAY" --reuse-root --root e --report e.xml "$ISLAND_ROOT/tests/traces/replay-escape.xml" > eout.txt 2> /dev/null
grep -q "^failed  evil  *open  *x1  *EXDEV (Invalid cross-device link)$" eout.txt || fail "open not listed: $(grep failed eout.txt)"
grep -q '<failed api="open" count="1" errno="EXDEV"/>' e.xml || fail "no <failed>"
# --repeat: each replay in a fresh ROOT/I, then the spread
"$REPLAY" --repeat 3 --root rr t.xml > rep3.txt 2> err.txt || fail "repeat: $(cat err.txt)"
for i in 1 2 3; do
	grep -q "^island-replay: replay $i of 3 under $PWD/rr/$i$" rep3.txt || fail "no replay $i"
	[ -f "rr/$i$PWD/f" ] || fail "replay $i: no file"
done
grep -q "^island-replay: 3 replays: median [0-9.]* s ([-+][0-9.]*%), min [0-9.]* s ([-+][0-9.]*%), max [0-9.]* s ([-+][0-9.]*%)$" rep3.txt ||
	fail "no spread: $(tail -1 rep3.txt)"
"$REPLAY" --repeat 0 t.xml 2> e0.txt; expect_eq "repeat 0 status" $? 2
expect_eq "repeat 0" "$(cat e0.txt)" "island-replay: --repeat 0: not a count from 1 to 1000"
exit 0
