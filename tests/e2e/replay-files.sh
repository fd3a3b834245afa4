# island-replay: a captured single-node run (threads, a copy, a sleep)
# replayed under --root: same file sizes, nothing written outside the root,
# run time close to the original.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
REPLAY="$ISLAND_ROOT/bin/island-replay"
mkdir work
"$CAPTURE" -n w -o w.xml sh -c "$APPS/writes 2 3000 4096 $PWD/work/out%d.dat && cat work/out0.dat > work/copy.dat && sleep 0.3" ||
	fail "capture"
check_trace w.xml
rm -rf work
"$REPLAY" --root r --report rep.xml w.xml > out.txt 2> err.txt || { cat err.txt; fail "replay"; }
# the original paths, mapped under the root, with the original sizes
for f in out0.dat out1.dat copy.dat; do
	expect_eq "size of $f" "$(stat -c %s "r$PWD/work/$f")" 12288000
done
[ -e work ] && fail "the replay wrote outside its root"
grep -q "^island-replay: root $PWD/r\$" out.txt || fail "root not printed: $(head -1 out.txt)"
# the report: every call issued, none failed; the run within 25 %
grep -q '<node name="w" ' rep.xml || fail "no node in the report"
expect_eq "failed calls" "$(sed -n 's/.*<node name="w".* failed="\([0-9]*\)".*/\1/p' rep.xml)" 0
expect_eq "write calls" "$(sed -n 's/.*<family name="write" calls="\([0-9]*\)".*/\1/p' rep.xml)" \
	"$(grep -c 'res="filewrite"' w.xml)"
# the bytes read and written, exactly
for fam in read write; do
	o=$(sed -n "s/.*<family name=\"$fam\"[^>]* bytes_original=\"\([0-9]*\)\".*/\1/p" rep.xml)
	r=$(sed -n "s/.*<family name=\"$fam\"[^>]* bytes_replayed=\"\([0-9]*\)\".*/\1/p" rep.xml)
	expect_eq "$fam bytes" "$r" "$o"
done
expect_eq "bytes written" "$(sed -n 's/.*<family name="write"[^>]* bytes_replayed="\([0-9]*\)".*/\1/p' rep.xml)" \
	$((3 * 12288000))
# two more replays: the timing is the median of three
for i in 2 3; do
	"$REPLAY" -q --root r$i --report rep$i.xml w.xml || fail "replay $i"
done
timing_ok rep.xml rep2.xml rep3.xml
# the default root: a fresh directory under the current one
"$REPLAY" -q w.xml || fail "replay with the default root"
n=$(ls -d replay-root.* | wc -l)
expect_eq "fresh roots" "$n" 1
expect_eq "size under the default root" "$(stat -c %s replay-root.*"$PWD/work/out0.dat")" 12288000

# the kernel's own files: a read of /sys that took the kernel 80 ms lasts
# 80 ms replayed (hwloc's PCI reads in MPI_Init, 0.9 ms each, were 11 %
# of an Open MPI rank's run and went missing); a regular file's read of
# 80 ms lasts what the replay's storage takes
T="$ISLAND_ROOT/tests/traces/replay-kfile.xml"
check_trace "$T"
"$REPLAY" -q --root kf --report kf.xml "$T" || fail "replay of $T"
t=$(sed -n 's/.*<family name="read"[^>]* replayed="\([0-9.]*\)".*/\1/p' kf.xml)
awk -v t="$t" 'BEGIN { exit !(t >= 0.08 && t < 0.15) }' ||
	fail "reads of /sys and of a file replayed in $t s, not the /sys read's 0.08 s and the file's moment"
exit 0
