#!/bin/sh
# --discover on the programs of traces/*.cluster.xml that we did not write
# for the engine (issue 17): per program, RUNS discoveries, each pass's
# time against the unthrottled pass (the run's own time), the passes
# needed, the dependencies found, recall and precision against the
# program's known dependencies (traces/PROGRAM.deps, checked by
# tests/e2e/depcheck.py), and the causal replay's error per node.
#   RUNS=3 bench/discover.sh
cd "$(dirname "$0")/.." || exit 2
RUNS=${RUNS:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

printf '%-11s %3s %6s %9s %9s %6s %5s %7s %9s  %s\n' program run passes unthrottl "max pass" ratio deps recall precision "replay error per node"
progs="http redis retryranks"
if [ -x build/tests/apps/mpiring ] && command -v mpirun >/dev/null; then
	progs="$progs mpiring"
else
	echo "(mpiring: no mpirun or not built with mpicc: left out)"
fi
for prog in $progs; do
	known=$(grep -v "^#" "traces/$prog.deps")
	for run in $(seq "$RUNS"); do
		if ! bin/island-capture --cluster "traces/$prog.cluster.xml" --discover --timeout 120 \
			-o "$tmp/$prog.xml" >/dev/null 2>"$tmp/err"; then
			printf '%-11s %3s failed: %s\n' "$prog" "$run" "$(tail -1 "$tmp/err")"
			continue
		fi
		line=$(grep 'passes: ' "$tmp/err" | sed 's/.*passes: //; s/)$//')
		set -- $(echo "$line" | tr ',' '\n' | awk '$1 == "unthrottled" { u = $2 } $1 != "unthrottled" { n++; if ($2 > m) m = $2 }
			END { printf "%d %.2f %.2f %.2f\n", n + 1, u, m, m / u }')
		dc=$(/usr/bin/python3 tests/e2e/depcheck.py "$tmp/$prog.xml" $known | head -1)
		rec=$(echo "$dc" | awk '{ print $2 }')
		prec=$(echo "$dc" | awk '{ print $4 }')
		deps=$(echo "$dc" | awk '{ print $6 }')
		bin/island-replay -q --root "$tmp/root.$prog.$run" -o "$tmp/rep.xml" "$tmp/$prog.xml" >/dev/null 2>&1
		rep=$(sed -n 's/.*<node name="\([^"]*\)" .* error="\(-*[0-9.]*\)".*/\1 \2%/p' "$tmp/rep.xml" | tr '\n' ' ')
		printf '%-11s %3s %6s %8ss %8ss %5sx %5s %6s%% %8s%%  %s\n' "$prog" "$run" "$1" "$2" "$3" "$4" \
			"$deps" "$rec" "$prec" "$rep"
	done
done
echo "(passes: the unthrottled one and one per node; max pass: the longest throttled"
echo " pass; ratio: max pass / unthrottled, the issue's bar is 3x)"
