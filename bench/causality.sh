#!/bin/sh
# --discover on //TRACE's pseudo-applications (4 nodes, traces/*.cluster.xml):
# recall and precision against the apps' ground truth, and capture time,
# for sampling periods 1, 5, 10 and watchdog factors 1.5, 2, 4.
#   PERIODS="1 5 10" FACTORS="1.5 2 4" APPS="pseudosync pseudosyncdat" bench/causality.sh
cd "$(dirname "$0")/.." || exit 2
PERIODS=${PERIODS:-1 5 10}
FACTORS=${FACTORS:-1.5 2 4}
APPS=${APPS:-pseudosync pseudosyncdat}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

printf '%-14s %6s %6s %10s %10s %10s %7s %9s %9s\n' app period factor precision recall "within P" deps "capture" "native"
for app in $APPS; do
	# the application alone, one run of the 4 nodes, for scale
	t0=$(date +%s.%N)
	bin/island-capture --cluster "traces/$app.cluster.xml" -o "$tmp/plain.xml" 2>/dev/null
	plain=$(echo "$(date +%s.%N) - $t0" | bc)
	for p in $PERIODS; do
		for f in $FACTORS; do
			rm -rf "$tmp/passes"
			t0=$(date +%s.%N)
			if ! bin/island-capture --cluster "traces/$app.cluster.xml" --discover \
				--period "$p" --watchdog-factor "$f" --passes-dir "$tmp/passes" \
				-o "$tmp/$app.xml" 2>"$tmp/err"; then
				printf '%-14s %6s %6s   failed: %s\n' "$app" "$p" "$f" "$(tail -1 "$tmp/err")"
				continue
			fi
			secs=$(echo "$(date +%s.%N) - $t0" | bc)
			bin/island-analyze deps --csv --table measures --truth "$tmp/passes/unthrottled/scratch" \
				--within "$p" "$tmp/$app.xml" > "$tmp/deps"
			prec=$(sed -n 's/^precision,\([^,]*\),.*/\1/p' "$tmp/deps")
			rec=$(sed -n 's/^recall,\([^,]*\),.*/\1/p' "$tmp/deps")
			near=$(sed -n 's/^recall_within_[0-9]*,\([^,]*\),.*/\1/p' "$tmp/deps")
			[ -n "$near" ] || near=$rec
			n=$(grep -c '<wait ' "$tmp/$app.xml")
			printf '%-14s %6s %6s %9s%% %9s%% %9s%% %7s %8.2fs %8.2fs\n' "$app" "$p" "$f" \
				"$prec" "$rec" "$near" "$n" "$secs" "$plain"
		done
	done
done
echo "(recall: the true dependencies the found ones imply exactly; within P: to within"
echo " P I/Os of the sender, //TRACE's promise for a sampling period P; capture: all"
echo " passes of --discover; native: one plain run of the 4 nodes under capture)"
