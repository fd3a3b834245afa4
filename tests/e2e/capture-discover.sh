# --discover on //TRACE's pseudo-applications (4 nodes): every true
# dependency is found (recall 100%) and at least 90% of what is found is
# true (precision, against the happens-before order of the ground truth
# the apps write); pseudo, whose nodes never communicate, yields none.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
mkdir sess                      # this test's session files, nobody else's
measure() { # APP: discover, check, print "precision recall"
	pseudo_cluster "$1" > "$1.cluster.xml"     # 4 phases of 5 ms units: quick
	"$CAPTURE" --cluster "$1.cluster.xml" --discover --session-dir sess \
		--passes-dir "passes-$1" -o "$1.xml" 2>"$1.err" || { cat "$1.err"; fail "$1: discover failed"; }
	check_trace "$1.xml"
	expect_eq "$1: nodes" "$(grep -c '<node ' "$1.xml")" 4
	"$ANALYZE" deps --csv --table measures --truth "passes-$1/unthrottled/scratch" "$1.xml" > "$1.deps" ||
		fail "$1: deps failed"
	p=$(sed -n 's/^precision,\([^,]*\),.*/\1/p' "$1.deps")
	r=$(sed -n 's/^recall,\([^,]*\),.*/\1/p' "$1.deps")
	echo "$1: precision $p recall $r ($(grep -c '<wait ' "$1.xml") waits)"
}

measure pseudosync
expect_eq "pseudosync recall" "$r" "100.00"
[ "$(echo "$p >= 90" | bc)" = 1 ] || fail "pseudosync precision $p < 90"
# the merged trace: per node, in order, compute, waits, the io, signals
awk '/<wait /{ w = 1; next } w && /<io / { w = 0; next } w && !/^ *$/ { bad = 1 } END { exit bad }' \
	pseudosync.xml || fail "a <wait> not directly followed by its <io>"
[ "$(grep -c '<signal ' pseudosync.xml)" -gt 0 ] || fail "no signals"

measure pseudosyncdat
expect_eq "pseudosyncdat recall" "$r" "100.00"
[ "$(echo "$p >= 90" | bc)" = 1 ] || fail "pseudosyncdat precision $p < 90"

measure pseudo
expect_eq "pseudo waits" "$(grep -c '<wait ' pseudo.xml)" 0
expect_eq "pseudo signals" "$(grep -c '<signal ' pseudo.xml)" 0
# pseudo in 20 ms units, as replay-pseudo runs it: in the group pass each
# node holds its first open until the others are done, and one released
# from its hold (its I/O not yet counted) was taken for waiting since the
# hold of another began, in 2 runs of 4. Twice, each with no wait.
for i in 1 2; do
	"$CAPTURE" --cluster "$ISLAND_ROOT/traces/pseudo.cluster.xml" --discover --session-dir sess \
		-o pseudo20-$i.xml 2> pseudo20-$i.err || { cat pseudo20-$i.err; fail "pseudo 20 ms: discover failed"; }
	expect_eq "pseudo 20 ms, run $i: waits" "$(grep -c '<wait ' pseudo20-$i.xml)" 0
done

# deps as a Graphviz graph
"$ANALYZE" deps --dot pseudosync.xml > g.dot
head -1 g.dot | grep -q '^digraph deps {$' || fail "no dot graph"
expect_eq "dot edges" "$(grep -c '" -> "[^"]*";$' g.dot)" "$(grep -c '<wait ' pseudosync.xml)"

# no session file or process is left behind
[ -z "$(find sess -type f)" ] || fail "session files left: $(find sess -type f)"
exit 0
