# Every --csv output is one table that CSV readers take as it is: one
# header line (the columns --list-columns declares), every row as wide,
# numbers plain in the numeric columns (a missing value an empty field,
# never '-'); a report of several tables prints its first with --csv,
# another with --table NAME, all with -o DIR (DIR/NAME.csv).
. "$ISLAND_ROOT/tests/e2e/lib.sh"
T="$ISLAND_ROOT/tests/traces"
"$ANALYZE" --list-columns > cols || fail "--list-columns"
expect_eq "--list-columns net" "$("$ANALYZE" --list-columns net)" "$(grep '^net ' cols)"
expect_eq "net --list-columns" "$("$ANALYZE" net --list-columns)" "$(grep '^net ' cols)"
expect_eq "net tables" "$(awk '$1 == "net" { print $2 }' cols | uniq | tr '\n' ' ')" "connections calls messages mpi "
# check REPORT TABLE FILE [NAME...]: FILE is to be table TABLE of REPORT;
# NAME are the names a placeholder column expands to, or the optional
# columns the options brought (checked all at once, at the end)
check() { echo "$*" >> checks; }
# one CSV per report on stdout: its first table
one() {
	report=$1 table=$2
	shift 2
	"$ANALYZE" $report --csv "$@" > $report.csv 2>err || fail "$report: $(cat err)"
	check $report $table $report.csv
}
one summary summary $T/basic.xml $T/node2.xml
one calls calls $T/basic.xml
one access access $T/basic.xml $T/copy.xml
"$ANALYZE" calls --csv --by thread $T/basic.xml > calls-thread.csv || fail "calls --by thread"
check calls calls calls-thread.csv node pid process tid
"$ANALYZE" calls --csv --by file $T/basic.xml > calls-file.csv || fail "calls --by file"
check calls calls calls-file.csv node path
one timeline timeline --starts $T/basic.xml
one consumption consumption $T/basic.xml
one files files $T/basic.xml $T/copy.xml
one sockets sockets $T/basic.xml
one regions regions $T/basic.xml
one compare compare $T/node2.xml $T/basic.xml
one utilization utilization --cores 2 $T/basic.xml
one sums sums $T/basic.xml
"$ANALYZE" sums --csv --by node $T/basic.xml $T/node2.xml > sums-by.csv || fail "sums --by node"
check sums sums sums-by.csv node1 node2
"$ANALYZE" ttx --csv $T/basic.xml > ttx.csv || fail "ttx"
check ttx ttx ttx.csv compute sleep fileread filewrite filemeta netsend netrecv pipe blocked stopped
"$ANALYZE" export --format csv $T/basic.xml > events.csv || fail "export"
check export events events.csv

# several tables: --csv the first, --table another, -o DIR all
"$ANALYZE" net --csv $T/basic.xml $T/node2.xml > net.csv 2>/dev/null || fail "net --csv"
check net connections net.csv
"$ANALYZE" net --csv --table calls $T/basic.xml $T/node2.xml > net-calls.csv 2>/dev/null || fail "net --table calls"
check net calls net-calls.csv
expect_eq "net calls" "$(tail -n +2 net-calls.csv | cut -d, -f1-7)" "node1,4,send,127.0.0.1:5000,0,10,
node1,5,recv,127.0.0.1:5000,0,20,
node1,6,sendto,127.0.0.1:6000,0,5,
node2,1,recv,127.0.0.1:40002,0,10,
node2,2,send,127.0.0.1:40002,0,20,"
"$ANALYZE" net -o tables $T/basic.xml $T/node2.xml > stdout 2>/dev/null || fail "net -o"
[ ! -s stdout ] || fail "net -o DIR wrote on stdout"
expect_eq "net -o files" "$(cd tables && ls)" "calls.csv
connections.csv
messages.csv"
for t in connections calls messages; do check net $t tables/$t.csv; done
cmp -s net-calls.csv tables/calls.csv || fail "--table calls and -o DIR differ"
"$ANALYZE" deps -o deps --truth /dev/null $T/replay-2node.xml > /dev/null || fail "deps -o"
expect_eq "deps -o files" "$(cd deps && ls)" "measures.csv
waits.csv"
check deps waits deps/waits.csv
check deps measures deps/measures.csv
expect_eq "deps waits" "$(cat deps/waits.csv)" "node,io,api,target,on_node,on_io,on_api,on_target,implied,origin,certain
b,1,open,/work/b.dat,a,4,write,/work/a3.dat,,,"
expect_eq "deps measures" "$(cat deps/measures.csv)" "measure,percent,matched,total,of
precision,0.00,0,1,found
recall,,0,0,true"
# a single-table report writes its one table too
"$ANALYZE" files -o ft $T/basic.xml || fail "files -o"
"$ANALYZE" files --csv $T/basic.xml > f2.csv || fail "files --csv"
cmp -s ft/files.csv f2.csv || fail "files -o DIR and --csv differ"

python3 - <<'PY' || fail "not clean tables (above)"
import csv, sys
decl = [l.split() for l in open("cols")]
failed = 0
for line in open("checks"):
    report, table, path, *per = line.split()
    want, kinds = [], []
    for d in decl:
        if d[:2] != [report, table]:
            continue
        flag = d[4] if len(d) > 4 else ""
        names = per if flag == "per" else [] if flag == "opt" and d[2] not in per else [d[2]]
        want += names
        kinds += [d[3]] * len(names)
    rows = list(csv.reader(open(path, newline="")))
    bad = []
    if not rows or rows[0] != want:
        bad.append("header %s, declared %s" % (rows[0] if rows else None, want))
    for n, r in enumerate(rows[1:], 2):
        if len(r) != len(want):
            bad.append("line %d: %d fields, not %d" % (n, len(r), len(want)))
            continue
        for v, k, c in zip(r, kinds, want):
            if v == "-":
                bad.append("line %d: %s is '-'" % (n, c))
            if k != "text" and v != "":
                try:
                    float(v)
                except ValueError:
                    bad.append("line %d: %s (%s) is %r" % (n, c, k, v))
                if v.startswith("+"):
                    bad.append("line %d: %s has a sign: %r" % (n, c, v))
    if bad:
        failed = 1
        print("%s %s (%s):" % (report, table, path), *bad[:5], sep="\n  ")
    else:
        print("%s %s: %d rows" % (report, table, len(rows) - 1))
sys.exit(failed)
PY

# --table names what the report has, and what these options produce
rc=0; "$ANALYZE" net --table bogus $T/basic.xml 2>err || rc=$?
expect_eq "bad --table status" $rc 2
expect_eq "bad --table" "$(cat err)" "island-analyze: --table: net has no table 'bogus' (connections, calls, messages, mpi)"
rc=0; "$ANALYZE" deps --csv --table measures $T/replay-2node.xml > out 2>err || rc=$?
expect_eq "absent --table status" $rc 2
expect_eq "absent --table" "$(cat err)" "island-analyze: deps: no table 'measures' in this output (it comes with --truth PATH or --from both)"
exit 0
