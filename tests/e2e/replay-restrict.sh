# The //TRACE experiment on one machine: capture pseudosyncdat (4 nodes)
# unrestricted with --discover; run the real application again with node
# n1's file writes limited; replay the trace with the same limit on n1.
# The causal replay's run time is within 10 % of the real restricted run;
# the think-limited replay (no WAITs) misses how the other nodes wait for
# n1, so its error is the larger.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
REPLAY="$ISLAND_ROOT/bin/island-replay"
APP="$APPS/pseudosyncdat"
RATE=25000	# bytes/s: from the second phase on, n1 is held about 0.3-0.6 s per phase
[ -x "$APP" ] || { echo "pseudosyncdat not built"; exit 77; }
"$CAPTURE" --help 2>&1 | grep -q -- --discover || { echo "island-capture has no --discover"; exit 77; }
{
	echo '<cluster version="1">'
	for i in 0 1 2 3; do
		echo "<node name=\"n$i\"><arg>$APP</arg><arg>\${NODE}</arg><arg>\${INDEX}</arg><arg>\${NNODES}</arg><arg>127.0.0.1</arg><arg>\${PORT}</arg><arg>\${SCRATCH}</arg></node>"
	done
	echo '</cluster>'
} > c.xml
timeout 55 "$CAPTURE" --cluster c.xml --discover --timeout 20 -o t.xml > cap.log 2>&1 ||
	{ cat cap.log; echo "island-capture --discover failed: $(tail -1 cap.log)"; exit 77; }
grep -q '<wait ' t.xml || fail "no WAIT discovered"

# the real restricted run: n1 under island-capture --filewrite, the others
# plain; each node's run time measured around it
mkdir scratch
port=$(free_ports 16)
now() { date +%s.%N; }
for i in 0 1 2 3; do
	if [ $i = 1 ]; then
		set -- "$CAPTURE" --filewrite $RATE -n n1 -o real-n1.xml "$APP"
	else
		set -- "$APP"
	fi
	( t0=$(now); "$@" n$i $i 4 127.0.0.1 $port "$PWD/scratch" > /dev/null; rc=$?
	  echo "$t0 $(now) $rc" > time.n$i ) &
done
wait
for i in 0 1 2 3; do
	read t0 t1 rc < time.n$i
	expect_eq "real run: n$i exit" "$rc" 0
	echo "n$i $(echo "$t1 - $t0" | bc)"
done > real.txt
real_run=$(cat time.n* | awk 'NR == 1 || $1 < a { a = $1 } $2 > b { b = $2 } END { print b - a }')
echo "real restricted run: $real_run s; nodes:"; cat real.txt

# the replays, with the same limit on n1
"$REPLAY" -q --root rc --limit n1:filewrite=$RATE --report causal.xml t.xml || fail "causal replay"
"$REPLAY" -q --root rt --mode think --limit n1:filewrite=$RATE --report think.xml t.xml || fail "think replay"
# a node whose name holds ':' (-n n:1): the resource is after the last
# ':' before '=' (--limit n:1:fileread=... was refused)
"$CAPTURE" -n n:1 -o colon.xml -- sh -c 'cat /etc/passwd > /dev/null' || fail "capture -n n:1"
"$REPLAY" -q --root rcolon --limit n:1:fileread=100000 colon.xml || fail "--limit n:1:fileread refused"
# mean |error| of the nodes against the real restricted run
node_err() {
	sed -n 's/.*<node name="\([^"]*\)" original="[0-9.]*" replayed="\([0-9.]*\)".*/\1 \2/p' "$1" |
		awk 'NR == FNR { real[$1] = $2; next } { e = ($2 - real[$1]) / real[$1] * 100
			s += e < 0 ? -e : e; n++ } END { printf "%.2f\n", s / n }' real.txt -
}
run_of() { sed -n 's/.*<run original="[0-9.]*" replayed="\([0-9.]*\)".*/\1/p' "$1"; }
c=$(node_err causal.xml) t=$(node_err think.xml)
cr=$(run_of causal.xml) tr=$(run_of think.xml)
echo "causal replay: run $cr s, nodes' mean error $c %"
echo "think replay:  run $tr s, nodes' mean error $t %"
awk -v r="$cr" -v real="$real_run" 'BEGIN { e = (r - real) / real * 100; exit !(e >= -10 && e <= 10) }' ||
	fail "causal replay run $cr s is not within 10 % of the real restricted run ($real_run s)"
awk -v c="$c" -v t="$t" 'BEGIN { exit !(t > c) }' ||
	fail "the think-limited replay's error ($t %) is not larger than the causal one's ($c %)"
# the limit held n1 in the replay as in the capture
awk -v r="$cr" 'BEGIN { exit !(r > 1.0) }' || fail "the limit on n1 did not slow the replay"
exit 0
