# island-replay: WAIT/SIGNAL between two local nodes. In the hand-made
# trace node b's write waits for node a's I/O seq 4, which comes after
# 0.3 s of compute; b alone would write after 0.05 s. The files' times
# show the order: b.dat after a3.dat in causal mode, long before it in
# think mode (no waits).
. "$ISLAND_ROOT/tests/e2e/lib.sh"
REPLAY="$ISLAND_ROOT/bin/island-replay"
T="$ISLAND_ROOT/tests/traces/replay-2node.xml"
check_trace "$T"
"$REPLAY" -q --root c "$T" || fail "causal replay"
"$REPLAY" -q --root t --mode think "$T" || fail "think replay"
mt() { stat -c %.9Y "$1"; }
for m in c t; do
	for f in a1 a3 b; do
		expect_eq "$m: $f.dat size" "$(stat -c %s $m/work/$f.dat)" \
			"$(case $f in a1) echo 1000;; a3) echo 3000;; b) echo 500;; esac)"
	done
done
echo "causal: a3 $(mt c/work/a3.dat) b $(mt c/work/b.dat); think: a3 $(mt t/work/a3.dat) b $(mt t/work/b.dat)"
awk -v a="$(mt c/work/a3.dat)" -v b="$(mt c/work/b.dat)" 'BEGIN { exit !(b >= a) }' ||
	fail "causal: b.dat was written before node a's seq 4"
awk -v a="$(mt t/work/a3.dat)" -v b="$(mt t/work/b.dat)" 'BEGIN { exit !(b < a - 0.1) }' ||
	fail "think: b.dat was not written early (the WAIT is not what orders it)"
# causal keeps both nodes' run times (0.4 s and 0.32 s): within 25 %
"$REPLAY" --root c2 --report rep.xml "$T" > out.txt || fail "replay with report"
for n in a b; do
	e=$(sed -n "s/.*<node name=\"$n\" .* error=\"\(-*[0-9.]*\)\".*/\1/p" rep.xml)
	awk -v e="$e" 'BEGIN { exit !(e >= -25 && e <= 25) }' || fail "node $n: error $e %"
done
# b's WAIT (about 0.25 s) is its open's time, as an original call that
# blocked held it
o=$(sed -n '/<node name="b"/,/<\/node>/s/.*<family name="open" calls="1" original="[0-9.]*" replayed="\([0-9.]*\)".*/\1/p' rep.xml)
awk -v o="$o" 'BEGIN { exit !(o >= 0.2 && o <= 0.3) }' || fail "node b: open replayed in $o s, not its 0.25 s WAIT"
# --speed 2: compute and waits in half the time (0.2 s)
"$REPLAY" -q --root s --speed 2 --report speed.xml "$T" || fail "--speed 2"
r=$(sed -n 's/.*<run original="[0-9.]*" replayed="\([0-9.]*\)".*/\1/p' speed.xml)
awk -v r="$r" 'BEGIN { exit !(r >= 0.15 && r <= 0.25) }' || fail "--speed 2 ran $r s, not about 0.2 s"
awk -v a="$(mt s/work/a3.dat)" -v b="$(mt s/work/b.dat)" 'BEGIN { exit !(b >= a) }' ||
	fail "--speed 2: b.dat was written before node a's seq 4"
# one node alone: its WAITs on a node not replayed cannot hold it
"$REPLAY" -q --root one --node b "$T" || fail "--node b"
[ -e one/work/b.dat ] || fail "--node b did not write b.dat"
[ -e one/work/a1.dat ] && fail "--node b replayed node a"
exit 0
