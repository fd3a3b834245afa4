#!/bin/sh
# --discover on the programs of traces/*.cluster.xml that we did not write
# for the engine: per program, RUNS discoveries, each pass's
# time against the unthrottled pass (the run's own time), the passes
# needed, the dependencies found (and by origin: messages, group passes,
# single-node passes), recall and precision against the
# program's known dependencies (traces/PROGRAM.deps, checked by
# tests/e2e/depcheck.py), and the causal replay's error per node.
#   RUNS=3 bench/discover.sh       (PROGS="" skips to group testing)
cd "$(dirname "$0")/.." || exit 2
RUNS=${RUNS:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

printf '%-11s %3s %6s %9s %9s %6s %5s %9s %7s %9s  %s\n' program run passes unthrottl "max pass" ratio deps "msg/grp/1" recall precision "replay error per node"
progs=${PROGS-"http redis retryranks"}
if [ -z "${PROGS+set}" ] && [ -x build/tests/apps/mpiring ] && command -v mpirun >/dev/null; then
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
		orig=$(sed -n 's/.*(\([0-9]*\) from messages, \([0-9]*\) from group passes, \([0-9]*\) from single-node passes.*/\1\/\2\/\3/p' "$tmp/err")
		bin/island-replay -q --root "$tmp/root.$prog.$run" -o "$tmp/rep.xml" "$tmp/$prog.xml" >/dev/null 2>&1
		rep=$(sed -n 's/.*<node name="\([^"]*\)" .* error="\(-*[0-9.]*\)".*/\1 \2%/p' "$tmp/rep.xml" | tr '\n' ' ')
		printf '%-11s %3s %6s %8ss %8ss %5sx %5s %9s %6s%% %8s%%  %s\n' "$prog" "$run" "$1" "$2" "$3" "$4" \
			"$deps" "$orig" "$rec" "$prec" "$rep"
	done
done
echo "(passes: the unthrottled one, a group pass and the bit passes it needed; max"
echo " pass: the longest throttled pass; ratio: max pass / unthrottled, the bar is 3x)"

# Group testing at scale (tests/apps/pseudowait): N nodes, a barrier over
# TCP, then half of them wait each for one other, through a file or
# shared memory; the program writes its own truth. Per N and medium:
# passes (the budget: 2 + ceil(log2 N)), the waits by origin, recall and
# precision against the truth (island-analyze deps --truth); then the
# causal replay's run error on that trace and on the trace of //TRACE's
# N + 1 passes (--one-by-one) of the same program: group testing should
# replay as well as the passes it saves (ONE_BY_ONE=0 leaves them out).
# The floor: how far a second plain run of the same cluster lands from
# the unthrottled pass the trace was made of, run against run (first
# node start to last node end, as the replay's run error measures): the
# program's own spread on this machine, which no replay of it can be
# asked to beat.
#   NS="4 8 16 32" RUNS=3 bench/discover.sh
echo
printf '%-6s %3s %3s %6s %6s %7s %6s %6s %7s %9s %8s %8s %8s %8s\n' medium N run passes budget message group single unsure recall precision replay "1by1 rep" floor
# run_time TRACE: the run's seconds, first node start to last node end
run_time() {
	sed -n 's/.*<node name="[^"]*" [^>]*epoch="\([0-9.]*\)" start="\([0-9.]*\)" end="\([0-9.]*\)".*/\1 \2 \3/p' "$1" |
		awk '{ a = $1 + $2; b = $1 + $3; if (NR == 1 || a < lo) lo = a; if (NR == 1 || b > hi) hi = b }
		     END { if (NR) printf "%.9f\n", hi - lo }'
}
# run_error TRACE NAME: the causal replay's run error (%), "-" when it failed
run_error() {
	rm -rf "$tmp/root.$2"
	bin/island-replay -q --root "$tmp/root.$2" -o "$tmp/rep.$2.xml" "$1" > /dev/null 2>&1 &&
		sed -n 's/.*<run .* error="\(-*[0-9.]*\)".*/\1%/p' "$tmp/rep.$2.xml" || echo -
}
for n in ${NS:-4 8 16 32}; do
	budget=2 b=1
	while [ "$b" -lt "$n" ]; do b=$((b * 2)); budget=$((budget + 1)); done
	for medium in file shm; do
		{
			echo '<cluster version="1">'
			i=0
			while [ $i -lt "$n" ]; do
				printf '  <node name="n%d">' $i
				for a in "$PWD/build/tests/apps/pseudowait" '${NODE}' '${INDEX}' '${NNODES}' 127.0.0.1 \
					'${PORT}' '${SCRATCH}' $medium; do
					printf '<arg>%s</arg>' "$a"
				done
				echo '</node>'
				i=$((i + 1))
			done
			echo '</cluster>'
		} > "$tmp/w.cluster.xml"
		for run in $(seq "$RUNS"); do
			rm -rf "$tmp/wp"
			if ! bin/island-capture --cluster "$tmp/w.cluster.xml" --discover --watchdog-factor 4 \
				--timeout 300 --passes-dir "$tmp/wp" -o "$tmp/w.xml" >/dev/null 2>"$tmp/err"; then
				printf '%-6s %3s %3s failed: %s\n' $medium $n $run "$(tail -1 "$tmp/err")"
				continue
			fi
			np=$(grep 'passes: ' "$tmp/err" | sed 's/.*(passes: //' | tr ',' '\n' | grep -c ' s')
			set -- $(sed -n 's/.*(\([0-9]*\) from messages, \([0-9]*\) from group passes, \([0-9]*\) from single-node passes; \([0-9]*\) not certain)/\1 \2 \3 \4/p' "$tmp/err")
			m=$(bin/island-analyze deps --csv --table measures --truth "$tmp/wp/unthrottled/scratch" "$tmp/w.xml")
			rec=$(echo "$m" | sed -n 's/^recall,\([^,]*\),.*/\1/p')
			prec=$(echo "$m" | sed -n 's/^precision,\([^,]*\),.*/\1/p')
			rg=$(run_error "$tmp/w.xml" group)
			u=$(run_time "$tmp/w.xml")
			fl=-
			rm -f "$tmp/plain.xml"
			if bin/island-capture --cluster "$tmp/w.cluster.xml" --timeout 300 -o "$tmp/plain.xml" \
				>/dev/null 2>"$tmp/errp"; then
				p=$(run_time "$tmp/plain.xml")
				[ -n "$u" ] && [ -n "$p" ] && fl=$(awk -v u="$u" -v p="$p" 'BEGIN { printf "%.2f%%", (p - u) * 100 / u }')
			fi
			r1=-
			if [ "${ONE_BY_ONE:-1}" = 1 ] &&
			   bin/island-capture --cluster "$tmp/w.cluster.xml" --discover --one-by-one \
				--watchdog-factor 4 --timeout 300 -o "$tmp/w1.xml" >/dev/null 2>"$tmp/err1"; then
				r1=$(run_error "$tmp/w1.xml" one)
			fi
			printf '%-6s %3s %3s %6s %6s %7s %6s %6s %7s %8s%% %8s%% %8s %8s %8s\n' $medium $n $run $np $budget \
				"$1" "$2" "$3" "$4" "$rec" "$prec" "$rg" "$r1" "$fl"
		done
	done
done
echo "(message/group/single: waits from the unthrottled pass's messages, from group"
echo " and bit passes, from single-node passes; unsure: marked certain=\"no\"; replay,"
echo " 1by1 rep: the causal replay's run error on this trace and on --one-by-one's;"
echo " floor: a second plain run's time against the unthrottled pass's)"
