# A node that leaves a local session last unlinks its file; a node that had
# just opened that file and joined after the other looked must not run on
# it (its application's interposer opens the session by path: its I/O went
# unnumbered, in a trace that said complete="true"). Many short pairs of
# nodes, the second starting as the first ends, with both cores kept busy.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
busy() { end=$(( $(date +%s) + 20 )); while [ "$(date +%s)" -lt "$end" ]; do :; done; }
busy & b1=$!
busy & b2=$!
busy & b3=$!
trap 'kill $b1 $b2 $b3 2>/dev/null' EXIT
mkdir sess
bad=0
for i in $(seq 1 25); do
	"$CAPTURE" --session race$$.$i --session-dir sess -n a -o a$i.xml -- true & pa=$!
	"$CAPTURE" --session race$$.$i --session-dir sess -n b -o b$i.xml -- sh -c "echo $i > out.$i" & pb=$!
	# the pair only: a bare wait waited for the busy loops too, and all
	# but the first pair ran on idle cores
	wait $pa $pb
	grep -q 'api="write".*path="[^"]*/out\.'$i'" seq="[0-9]*"' b$i.xml || bad=$((bad + 1))
done
expect_eq "unnumbered runs of 25" "$bad" 0
[ -z "$(find sess -type f)" ] || fail "session files left: $(find sess -type f)"
echo ok
