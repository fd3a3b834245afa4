#!/bin/sh
# --discover on the programs of traces/*.cluster.xml that we did not write
# for the engine (issue 17): per program, RUNS discoveries, each pass's
# time against the unthrottled pass (the run's own time), the passes
# needed, the dependencies found, recall and precision against the
# program's known dependencies (tests/e2e/depcheck.py), and the causal
# replay's error per node.
#   RUNS=3 bench/discover.sh
cd "$(dirname "$0")/.." || exit 2
RUNS=${RUNS:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# the dependencies each program's logic implies (as in its e2e test)
known_http="cli:connect#1<-srv:listen#1 cli:recv#1<-srv:send#1 cli:recv#last<-srv:send#last"
for k in 1 2 3; do known_http="$known_http srv:accept#$k<-cli:connect#$k srv:recv#$k<-cli:send#$k"; done
known_retryranks="n1:connect#1<-n0:listen#1 n2:connect#1<-n0:listen#1"
for k in 2 3 4 5; do
	known_retryranks="$known_retryranks n0:recv#$((2 * k - 1))<-n1:send#$k n0:recv#$((2 * k))<-n2:send#$k"
done
for k in 1 2 3 4; do
	known_retryranks="$known_retryranks n1:recv#$k<-n0:send#$((2 * k - 1)) n2:recv#$k<-n0:send#$((2 * k))"
done

known_redis=""
for k in 1 2 3; do
	known_redis="$known_redis srv:accept#$k<-cli:connect#$k srv:read#$((2 * k - 1))<-cli:send#$k cli:recv#$k<-srv:write#$k"
done

# the Open MPI token ring over TCP: rank r's receive of round k waits for
# rank r-1's send of round k (the main threads' readv and writev)
known_mpiring=
for k in 1 2 3 4; do
	known_mpiring="$known_mpiring rank1:readv@1#$k<-rank0:writev@1#$k rank2:readv@1#$k<-rank1:writev@1#$k"
	known_mpiring="$known_mpiring rank0:readv@1#$k<-rank2:writev@1#$k"
done

printf '%-11s %3s %6s %9s %9s %6s %5s %7s %9s  %s\n' program run passes unthrottl "max pass" ratio deps recall precision "replay error per node"
progs="http redis retryranks"
if [ -x build/tests/apps/mpiring ] && command -v mpirun >/dev/null; then
	progs="$progs mpiring"
else
	echo "(mpiring: no mpirun or not built with mpicc: left out)"
fi
for prog in $progs; do
	eval known=\$known_$prog
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
