#!/bin/sh
# --pcap's cost, medians of RUNS runs (tests/apps/msgs, both ends in one
# process, over loopback):
#  - bulk: one connection carrying 1,000 MiB in 64 KiB sends;
#  - conns: 2,000 connections of 5 rounds of 100 + 50 bytes;
#  - start: island-capture -- /bin/true (opening the capture, the settle
#    time after the app, the filter).
# For each: the time natively, under island-capture, under --pcap; the
# packets the kernel dropped, the pcap's size, whether the bytes in the
# pcap match the calls; then the net report's and deps --from net's time.
#   RUNS=3 bench/pcap.sh
cd "$(dirname "$0")/.." || exit 2
RUNS=${RUNS:-3}
M=build/tests/apps/msgs
C=bin/island-capture
A=bin/island-analyze
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
$C --pcap -n probe -o "$tmp/probe.xml" -- /bin/true 2>"$tmp/err" ||
	{ echo "skipped: $(cat "$tmp/err")"; exit 0; }

. bench/lib.sh
timed() { # FILE CMD...: append the seconds CMD took
	f=$1; shift
	t0=$(now); "$@" > /dev/null 2>>"$tmp/stderr"; t1=$(now)
	echo "$t1 - $t0" | bc >> "$f"
}

bench() { # LABEL CMD...
	label=$1; shift
	: > "$tmp/n"; : > "$tmp/i"; : > "$tmp/p"; : > "$tmp/stderr"
	for r in $(seq "$RUNS"); do
		timed "$tmp/n" "$@"
		timed "$tmp/i" $C -n b -o "$tmp/i.xml" -- "$@"
		timed "$tmp/p" $C --pcap -n b -o "$tmp/b.xml" -- "$@"
	done
	drops=$(sed -n 's/.*dropped \([0-9]*\) packets.*/\1/p' "$tmp/stderr" | awk '{ s += $1 } END { print s + 0 }')
	size=$(stat -c %s "$tmp/b.pcap")
	$A net --csv "$tmp/b.xml" > "$tmp/net.csv"
	conn_rows() { awk '/^$/ { exit } NR > 1' "$tmp/net.csv"; }
	bad=$(conn_rows | awk -F, '$6 != $7 || $9 != $10' | wc -l)
	conns=$(conn_rows | wc -l)
	awk -v l="$label" -v n="$(median < "$tmp/n")" -v i="$(median < "$tmp/i")" \
	    -v p="$(median < "$tmp/p")" -v d="$drops" -v s="$size" -v c="$conns" -v b="$bad" 'BEGIN {
		printf "%-26s %8.3f s %8.3f s %8.3f s %6.2fx  %6d  %9.1f KB  %d conns, %d with bytes != calls\n",
		       l, n, i, p, p / i, d, s / 1024, c, b
	}'
}

printf '%-26s %10s %10s %10s %7s  %6s  %12s\n' "workload" "native" "capture" "--pcap" "ratio" "drops" "pcap"
bench "bulk 1,000 MiB" $M bulk 127.0.0.1 1000
bench "conns 2,000 x 5 rounds" $M conns 127.0.0.1 2000
bench "start (/bin/true)" /bin/true
: > "$tmp/net"; : > "$tmp/deps"
$C --pcap -n b -o "$tmp/b.xml" -- $M conns 127.0.0.1 2000 > /dev/null
for r in $(seq "$RUNS"); do
	timed "$tmp/net" $A net "$tmp/b.xml"
	timed "$tmp/deps" $A deps --from net "$tmp/b.xml"
done
echo "analysis of 2,000 connections ($(grep -c '<io ' "$tmp/b.xml") calls, $(stat -c %s "$tmp/b.pcap") B of pcap):" \
	"net $(median < "$tmp/net") s, deps --from net $(median < "$tmp/deps") s"
echo "(ratio: --pcap over island-capture without; medians of $RUNS runs)"
