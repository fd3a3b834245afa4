#!/bin/sh
# A server under load for a long time (issue 40): nginx (workers as
# nobody, its files in a directory of its own) captured with
# -o soak.isb.zst while wrk (2 threads, 8 connections; not captured)
# loads it for SOAK_SECONDS (default 600). Prints and checks: the
# capture's peak RSS (VmHWM, under 256 MiB; printed only, not checked,
# when island-capture is built with ASAN=1), the trace's bytes per event
# (under 4), the events, and that nothing is lost (the trace whole, its
# access-log writes the lines nginx logged). Then the same run with the
# capture killed (SIGKILL) at SOAK_KILL_AT (default 300) s: --recover
# writes the records up to there (its access-log writes at least the
# lines logged at the kill, at most those at the end). Needs root (the
# workers' nobody), nginx and wrk.
# SOAK_CONNS: wrk's connections (default 8); SOAK_BPE=0: the bytes per
# event printed, not checked (the short e2e version: not met today).
#   SOAK_SECONDS=600 SOAK_KILL_AT=300 bench/soak.sh
cd "$(dirname "$0")/.." || exit 2
SECS=${SOAK_SECONDS:-600}
KILL_AT=${SOAK_KILL_AT:-300}
CONNS=${SOAK_CONNS:-8}
THREADS=2; [ "$CONNS" -lt 2 ] && THREADS=1
C=$PWD/bin/island-capture
A=$PWD/bin/island-analyze
for c in nginx wrk python3; do
	command -v $c > /dev/null || { echo "soak.sh: needs $c" >&2; exit 77; }
done
[ "$(id -u)" = 0 ] || { echo "soak.sh: needs root (nginx's workers as nobody)" >&2; exit 77; }
. bench/lib.sh
tmp=$(mktemp -d)
chmod 755 "$tmp"
ngx=
cleanup() {
	[ -n "$ngx" ] && kill "$ngx" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
bad=0
check() {	# check WHAT OK: prints WHAT, counts a failure
	if [ "$2" = 1 ]; then echo "ok:   $1"; else echo "FAIL: $1"; bad=1; fi
}

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# run DIR: nginx in DIR under the capture (trace DIR/soak.isb.zst, spool
# in DIR/spool), loaded by wrk for SECS; with KILL, the capture is
# killed at KILL_AT s and nginx stopped at the end
run() {
	d=$1 kill=$2
	mkdir -p "$d/www" "$d/spool"
	chmod 755 "$d" "$d/www"
	head -c 4096 /dev/urandom > "$d/www/f.bin"
	chmod 644 "$d/www/f.bin"
	sed "s|@SCRATCH@|$d|g; s|@PORT@|$port|g" traces/nginx.conf.in > "$d/nginx.conf"
	"$C" --server --spool-dir "$d/spool" -o "$d/soak.isb.zst" -- \
		nginx -c "$d/nginx.conf" -g 'daemon off;' 2> "$d/cap.err" &
	cap=$!
	i=0
	while [ ! -s "$d/nginx.pid" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
	ngx=$(cat "$d/nginx.pid")
	wrk -t $THREADS -c "$CONNS" -d "${SECS}s" "http://127.0.0.1:$port/f.bin" > "$d/wrk.out" 2>&1 &
	load=$!
	hwm=0 t0=$(date +%s) killed=
	while kill -0 $load 2>/dev/null; do
		h=$(awk '/^VmHWM/ { print $2 }' /proc/$cap/status 2>/dev/null)
		[ -n "$h" ] && [ "$h" -gt $hwm ] && hwm=$h
		if [ -n "$kill" ] && [ -z "$killed" ] && [ $(($(date +%s) - t0)) -ge "$KILL_AT" ]; then
			# the lines counted before the kill were all logged
			# before it (counted after it, a 1.8 GB log's count
			# ran on for the half second nginx went on logging)
			killed=$(wc -l < "$d/access.log")
			kill -KILL $cap
			echo "killed the capture at $(($(date +%s) - t0)) s: $killed lines logged before"
		fi
		sleep 1
	done
	wait $load
	if [ -n "$kill" ]; then
		kill -TERM "$ngx"
		while kill -0 "$ngx" 2>/dev/null; do sleep 0.1; done
		wait $cap 2>/dev/null
	else
		kill -TERM $cap        # --server: its planned end
		# its peak while it writes what it is behind by, too
		while kill -0 $cap 2>/dev/null; do
			h=$(awk '/^VmHWM/ { print $2 }' /proc/$cap/status 2>/dev/null)
			[ -n "$h" ] && [ "$h" -gt $hwm ] && hwm=$h
			sleep 0.2
		done
		wait $cap || { cat "$d/cap.err"; echo "FAIL: the capture exited $?"; bad=1; }
	fi
	ngx=
	echo "$hwm" > "$d/hwm"
	echo "${killed:-0}" > "$d/killed"
}
# logged TRACE: the trace's writes to access.log; events TRACE: its calls
logged() { "$A" files --csv "$1" 2>/dev/null | awk -F, '$2 ~ /\/access\.log$/ { n += $7 } END { print n + 0 }'; }
events() { "$A" calls --csv "$1" 2>/dev/null | awk -F, 'NR > 1 { n += $2 } END { print n + 0 }'; }

echo "soak: nginx under wrk ($CONNS connections) for $SECS s, -o .isb.zst"
run "$tmp/a"
a=$tmp/a
req=$(awk '/requests in/ { print $1 }' "$a/wrk.out")
lines=$(wc -l < "$a/access.log")
ev=$(events "$a/soak.isb.zst")
sz=$(wc -c < "$a/soak.isb.zst")
hwm=$(cat "$a/hwm")
bpe=$(echo "scale=3; $sz / $ev" | bc)
echo "wrk requests $req, access log $lines lines, trace $sz B, $ev events, $bpe B/event, capture peak RSS $((hwm / 1024)) MiB"
# the bound is the plain build's: ASan's adds its shadow, redzones and a
# quarantine of freed blocks (256 MiB: 431 MiB, 143 MiB without it)
if asan_built "$C"; then
	echo "not checked: capture peak RSS under 256 MiB ($((hwm / 1024)) MiB): island-capture is built with ASAN=1 (the plain build is checked)"
else
	check "capture peak RSS under 256 MiB ($((hwm / 1024)) MiB)" "$([ "$hwm" -gt 0 ] && [ "$hwm" -lt 262144 ] && echo 1)"
fi
[ "${SOAK_BPE:-1}" = 0 ] || check "under 4 B/event ($bpe)" "$(echo "$bpe < 4" | bc)"
"$A" export --format xml "$a/soak.isb.zst" 2>/dev/null | head -3 | grep -q '<trace [^>]*complete="true"'
check "the trace is whole" "$([ $? = 0 ] && echo 1)"
tl=$(logged "$a/soak.isb.zst")
check "every logged request in the trace ($tl of $lines)" "$([ "$tl" = "$lines" ] && echo 1)"
check "the log has wrk's requests ($lines >= $req)" "$([ "$lines" -ge "$req" ] && echo 1)"

echo "soak: the capture killed at $KILL_AT s, then --recover"
run "$tmp/b" kill
b=$tmp/b
"$C" --recover --spool-dir "$b/spool" -o "$b/rec.isb.zst" 2> "$b/rec.err" ||
	{ cat "$b/rec.err"; echo "FAIL: --recover"; bad=1; }
rl=$(logged "$b/rec.isb.zst")
k=$(cat "$b/killed") all=$(wc -l < "$b/access.log")
echo "recovered: $rl access-log writes; $k lines logged at the kill, $all at the end; $(events "$b/rec.isb.zst") events"
check "--recover has every request up to the kill ($rl >= $k)" "$([ "$rl" -ge "$k" ] && [ "$rl" -le "$all" ] && echo 1)"
"$A" export --format xml "$b/rec.isb.zst" 2>/dev/null | head -3 | grep -q '<trace [^>]*complete="false" reason="capture-killed"'
check "marked capture-killed" "$([ $? = 0 ] && echo 1)"
exit $bad
