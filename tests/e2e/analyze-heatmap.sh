#!/bin/sh
# heatmap: Darshan's bins. On two hand-made nodes (tests/traces/heatmap-*.xml:
# a 25 s run, so 200 bins of 0.1 s do not cover it and the bins are 0.2 s,
# 125 of them for both nodes, node b starting 2 s later) the bins that
# hold something, worked out by hand: the write of 3000 bytes over
# 0.1-0.4 s spends a third of its time in bin 0 and two in bin 1; 1000
# bytes over 3.0-3.5 s are 400, 400, 200; node b's 7 bytes over 0.3 s of
# run time 2.0-2.3 are 4 (floor of 7 x 2/3) and 3. The failed read and
# the write on no path are not counted. A window (--from/--to) is binned
# from 0.1 s. On a real trace (tar czf, sqlite3) the bins add up to the
# bytes of `files`, per node.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
T="$ISLAND_ROOT/tests/traces"
"$ANALYZE" heatmap --csv "$T/heatmap-a.xml" "$T/heatmap-b.xml" > h.csv || fail "heatmap"
expect_eq "rows" "$(wc -l < h.csv)" 251
expect_eq "rows of b" "$(grep -c '^b,' h.csv)" 125
expect_eq "last bin" "$(tail -1 h.csv)" "b,124,24.800000,25.000000,0,0,0,0"
awk -F, 'NR == 1 || $5 + $6 + $7 + $8 > 0' h.csv > got
cat > want <<'E'
node,bin,start_s,end_s,read_ops,read_bytes,write_ops,write_bytes
a,0,0.000000,0.200000,0,0,1,1000
a,1,0.200000,0.400000,0,0,0,2000
a,5,1.000000,1.200000,1,10,0,0
a,15,3.000000,3.200000,0,0,1,400
a,16,3.200000,3.400000,0,0,0,400
a,17,3.400000,3.600000,0,0,0,200
a,124,24.800000,25.000000,0,0,1,9
b,10,2.000000,2.200000,1,4,0,0
b,11,2.200000,2.400000,0,3,0,0
E
diff want got || fail "heatmap bins (above)"
# node b read first: the run's start is known only once a is read (the
# bins then come from a second reading), the same bins
"$ANALYZE" heatmap --csv "$T/heatmap-b.xml" "$T/heatmap-a.xml" > r.csv || fail "heatmap b a"
expect_eq "b first" "$(sort r.csv | md5sum)" "$(sort h.csv | md5sum)"

"$ANALYZE" heatmap --csv --node b --from 2 --to 3 "$T/heatmap-a.xml" "$T/heatmap-b.xml" > w.csv ||
	fail "heatmap window"
expect_eq "window rows" "$(wc -l < w.csv)" 11
expect_eq "window bins" "$(sed -n '2,4p' w.csv | tr '\n' ' ')" \
	"b,0,2.000000,2.100000,1,2,0,0 b,1,2.100000,2.200000,0,2,0,0 b,2,2.200000,2.300000,0,3,0,0 "

# sums NODE-COLUMN READ-COLUMN WRITE-COLUMN < CSV: "node read write" per node
sums() { awk -F, -v r="$2" -v w="$3" 'NR > 1 { R[$1] += $r; W[$1] += $w } END { for (n in R) print n, R[n], W[n] }' | sort; }
check_real() {
	"$ANALYZE" files --csv "$1" | sums 1 5 8 > files.sum || fail "files $1"
	"$ANALYZE" heatmap --csv "$1" | sums 1 6 8 > heat.sum || fail "heatmap $1"
	diff files.sum heat.sum || fail "$1: the bins do not add up to files' bytes (above)"
	awk '$2 + $3 == 0 { exit 1 }' heat.sum || fail "$1: no bytes"
	cat heat.sum
}
mkdir src
seq 1 300000 > src/numbers
cp "$ISLAND_ROOT"/analysis/*.c src/
"$CAPTURE" -n tar -o tar.xml tar czf out.tgz src || fail "capture tar"
check_real tar.xml
if command -v sqlite3 > /dev/null; then
	sql="create table t(a, b); begin; with recursive c(x) as (select 1 union all select x+1 from c where x<20000) insert into t select x, hex(randomblob(40)) from c; commit; select count(*) from t;"
	"$CAPTURE" -n sq -o sq.xml sqlite3 "$PWD/db.sqlite" "$sql" > out.txt || fail "capture sqlite3"
	check_real sq.xml
fi
exit 0
