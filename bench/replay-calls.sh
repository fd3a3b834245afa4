#!/bin/sh
# The replayer's own cost per call, where calls take microseconds.
#  1. N calls that the replay does not reissue (fcntl without a descriptor
#     to duplicate), replayed with --mode afap --compute none: what the
#     replayer spends per call around the call itself (loop, clock reads,
#     report counters, watchdog marks), in ns.
#  2. sqlite3 inserting ROWS rows, one transaction each, in /dev/shm (some
#     76,000 calls of a few microseconds: stat, open, pread, pwrite,
#     fdatasync, fcntl locks), captured once and replayed RUNS times in
#     causal mode under a root in /dev/shm: the median error of the run
#     and the replayed / captured time of each call family (1.00: the
#     calls cost what they did).
#   RUNS=5 N=300000 ROWS=2000 [R=other/island-replay] bench/replay-calls.sh
cd "$(dirname "$0")/.." || exit 2
ROOT=$PWD
RUNS=${RUNS:-5}
N=${N:-300000}
ROWS=${ROWS:-2000}
R=${R:-$ROOT/bin/island-replay}
C=$ROOT/bin/island-capture
tmp=$(mktemp -d)
shm=$(mktemp -d /dev/shm/island-bench.XXXXXX)
trap 'rm -rf "$tmp" "$shm"' EXIT
. bench/lib.sh

# 1. the replayer alone
awk -v n="$N" 'BEGIN {
	printf "<?xml version=\"1.0\"?>\n<trace version=\"1\">\n<node name=\"a\" epoch=\"0\" start=\"0\" end=\"%.9f\">\n", n * 1e-7
	printf "<process pid=\"1\" ppid=\"0\" cwd=\"/\" start=\"0\" end=\"%.9f\" status=\"exit:0\">\n", n * 1e-7
	printf "<thread tid=\"1\" start=\"0\" end=\"%.9f\">\n", n * 1e-7
	for (i = 0; i < n; i++)
		printf "<io api=\"fcntl\" res=\"filemeta\" start=\"%.9f\" end=\"%.9f\"/>\n", i * 1e-7, i * 1e-7 + 5e-8
	print "</thread>\n</process>\n</node>\n</trace>" }' > "$tmp/nop.xml"
: > "$tmp/ns"
for i in $(seq "$RUNS"); do
	rm -rf "$tmp/root"
	"$R" -q --root "$tmp/root" -m afap -c none --report "$tmp/rep.xml" "$tmp/nop.xml" ||
		{ echo "replay failed"; exit 1; }
	sed -n 's/.*<node .* replayed="\([0-9.]*\)".*/\1/p' "$tmp/rep.xml" |
		awk -v n="$N" '{ printf "%.0f\n", $1 * 1e9 / n }' >> "$tmp/ns"
done
echo "replayer's own cost: $(median < "$tmp/ns") ns per call (median of $RUNS replays of $N calls not reissued; afap, compute none)"

# 2. sqlite3
command -v sqlite3 > /dev/null || { echo "sqlite3: not installed"; exit 0; }
sqlite3 "$shm/db" "create table t(a, b);" || exit 1
awk -v n="$ROWS" 'BEGIN { for (i = 1; i <= n; i++) printf "insert into t values(%d, %c row %d%c);\n", i, 39, i, 39 }' > "$tmp/ins.sql"
"$C" -n sq -o "$tmp/sq.xml" sqlite3 "$shm/db" ".read $tmp/ins.sql" || { echo "capture failed"; exit 1; }
calls=$(grep -c '<io ' "$tmp/sq.xml")
orig=$(sed -n 's/.*<node name="sq".* end="\([0-9.]*\)".*/\1/p' "$tmp/sq.xml")
: > "$tmp/err"
for i in $(seq "$RUNS"); do
	rm -rf "$shm/root"
	"$R" -q --root "$shm/root" --report "$tmp/s$i.xml" "$tmp/sq.xml" || { echo "replay failed"; exit 1; }
	sed -n 's/.*<node .* error="\([-0-9.]*\)".*/\1/p' "$tmp/s$i.xml" >> "$tmp/err"
done
echo "sqlite3, $ROWS inserts in /dev/shm ($calls calls in $orig s): causal error $(median < "$tmp/err") % (median of $RUNS; $(sort -n "$tmp/err" | head -1) to $(sort -n "$tmp/err" | tail -1))"
for f in read write open sync; do
	for i in $(seq "$RUNS"); do
		sed -n "s/.*<family name=\"$f\" calls=\"\([0-9]*\)\" original=\"\([0-9.]*\)\" replayed=\"\([0-9.]*\)\".*/\1 \2 \3/p" "$tmp/s$i.xml"
	done | awk '$2 > 0 { print $3 / $2, $1, $2 }' > "$tmp/f"
	[ -s "$tmp/f" ] || continue
	printf "  %-6s %6d calls  replayed / captured %.2f\n" "$f" "$(head -1 "$tmp/f" | cut -d' ' -f2)" "$(cut -d' ' -f1 "$tmp/f" | median)"
done
