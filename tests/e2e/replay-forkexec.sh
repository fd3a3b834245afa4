# island-replay: processes (fork, vfork, posix_spawn, system, exec) and a
# thread replayed: each file written under the root with its original size.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
REPLAY="$ISLAND_ROOT/bin/island-replay"
# timing_ok REPORT...: the median run error of the reports is within 25 %;
# on a machine whose CPUs other work keeps busy the timing is only shown
timing_ok() {
	e=$(for r in "$@"; do sed -n 's/.*<run .* error="\(-*[0-9.]*\)".*/\1/p' "$r"; done |
		sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
	echo "replay error: $e % (median of $#)"
	a=$(head -1 /proc/stat); sleep 1; b=$(head -1 /proc/stat)
	if echo "$a
$b" | awk '{ t = 0; for (i = 2; i <= NF; i++) t += $i; idle = $5 + $6 }
		NR == 1 { t0 = t; i0 = idle } NR == 2 { exit !(1 - (idle - i0) / (t - t0) > 0.5) }'; then
		echo "timing not checked: other work keeps the CPUs busy"
		return 0
	fi
	awk -v e="$e" 'BEGIN { exit !(e >= -25 && e <= 25) }' || fail "run time error $e % beyond 25 %"
}
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
