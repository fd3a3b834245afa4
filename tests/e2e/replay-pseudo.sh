# The issue's fidelity check: the //TRACE pseudo-applications (4 nodes),
# captured with island-capture --cluster --discover and replayed on the same
# machine (median of 3 causal replays): every node and the whole run within
# 5 % of the capture, or within the application's own spread over 3 more
# runs if that is larger (no replay can repeat a run more closely than the
# application repeats itself). The apps run as in their cluster files in
# traces/, with compute phases of 20 ms units (pseudo: 8 phases, its
# shortest node 160 ms; the sync apps: 4 phases, 0.6 s nodes): four nodes
# spinning on two cores are preempted every few ms, and nodes of a few tens
# of ms do not repeat their own times within 5 %. Without the
# WAITs (--mode think) the worst node is off by more. Skipped when other
# work keeps more than half of the CPUs busy.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
REPLAY="$ISLAND_ROOT/bin/island-replay"
APPS_HERE=${PSEUDO_APPS:-"pseudo pseudosync"}
"$CAPTURE" --help 2>&1 | grep -q -- --discover || { echo "island-capture has no --discover"; exit 77; }
for app in $APPS_HERE; do
	[ -x "$APPS/$app" ] || { echo "$app not built"; exit 77; }
done
why=$(untimed) && { echo "no timing check: $why"; exit 77; }

# errors REPORT...: "NAME ERROR" per node and "run ERROR", one line each
errors() {
	for r in "$@"; do
		sed -n -e 's/.*<node name="\([^"]*\)" .* error="\([-0-9.]*\)".*/\1 \2/p' \
		       -e 's/.*<run .* error="\([-0-9.]*\)".*/run \1/p' "$r"
	done
}
# node_times TRACE: "NAME SECONDS" per node and "run SECONDS" (epochs aligned)
node_times() {
	sed -n 's/.*<node name="\([^"]*\)" [^>]*epoch="\([0-9.]*\)" start="\([0-9.]*\)" end="\([0-9.]*\)".*/\1 \2 \3 \4/p' "$1" |
		awk '{ print $1, $4 - $3; a = $2 + $3; b = $2 + $4
		       if (NR == 1 || a < lo) lo = a; if (NR == 1 || b > hi) hi = b }
		     END { printf "run %.9f\n", hi - lo }'
}
# spread TRACE RUN...: per name, the largest |run - trace| / trace in %
spread() {
	t=$1; shift
	node_times "$t" > spread.ref
	for r in "$@"; do node_times "$r"; done | awk 'NR == FNR { ref[$1] = $2; next }
		{ d = ($2 - ref[$1]) / ref[$1] * 100; if (d < 0) d = -d; if (d > m[$1]) m[$1] = d }
		END { for (n in m) printf "%s %.2f\n", n, m[n] }' spread.ref -
}
# medians of errors per name: "NAME MEDIAN"
medians() {
	errors "$@" | awk '{ print $1 }' | sort -u | while read -r n; do
		echo "$n $(errors "$@" | awk -v n="$n" '$1 == n { print $2 }' | median)"
	done
}

for app in $APPS_HERE; do
	cl="$ISLAND_ROOT/traces/$app.cluster.xml"
	timeout 200 "$CAPTURE" --cluster "$cl" --discover --timeout 90 -o $app.xml > $app-cap.log 2>&1 ||
		{ cat $app-cap.log; fail "island-capture --discover failed on $app: $(tail -1 $app-cap.log)"; }
	check_trace $app.xml
	expect_eq "$app: nodes" "$(grep -c '<node ' $app.xml)" 4
	# three causal replays (their median is checked), one think (only
	# compared with them: it is off by tens of %)
	for r in causal-1 causal-2 causal-3 think-1; do
		"$REPLAY" -q --root $app-$r --mode ${r%-*} --report $app-$r.xml $app.xml ||
			fail "$app: ${r%-*} replay"
	done
	# the application's own spread: 3 more runs, no discovery
	for i in 1 2 3; do
		timeout 20 "$CAPTURE" --cluster "$cl" --timeout 15 -o $app-again-$i.xml > /dev/null 2>&1 ||
			fail "$app: run $i"
	done
	spread $app.xml $app-again-*.xml | sort > $app-spread.txt
	medians $app-causal-*.xml > $app-causal.txt
	medians $app-think-*.xml > $app-think.txt
	echo "$app ($(grep -c '<wait ' $app.xml) WAITs): causal, think median errors, the app's own spread (%):"
	join $app-causal.txt $app-think.txt | join - $app-spread.txt | sed 's/^/  /'
	while read -r n e; do
		b=$(awk -v n="$n" '$1 == n { print ($2 > 5 ? $2 : 5) }' $app-spread.txt)
		awk -v e="$e" -v b="$b" 'BEGIN { exit !(e >= -b && e <= b) }' ||
			fail "$app: $n: error $e % beyond $b %"
	done < $app-causal.txt
	if grep -q '<wait ' $app.xml; then
		# the worst node without causality is worse than the worst with
		worst() { awk '$1 != "run" { a = $2 < 0 ? -$2 : $2; if (a > m) m = a } END { print m + 0 }' "$1"; }
		awk -v c="$(worst $app-causal.txt)" -v t="$(worst $app-think.txt)" 'BEGIN { exit !(t > c) }' ||
			fail "$app: think's worst node is not worse than causal's"
	fi
done
exit 0
