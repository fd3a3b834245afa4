# Filters on every report: --path, --from/--to, --node, --thread, --call,
# checked against the unfiltered export of the same traces.
. "$ISLAND_ROOT/tests/e2e/lib.sh"

"$CAPTURE" -n n1 -o n1.xml -- "$APPS/writes" 2 2000 64 "w%d.dat"
"$CAPTURE" -n n2 -o n2.xml -- "$APPS/access" x.dat

# --path: files prints only that file, on every node
"$ANALYZE" files --csv --path '*/x.dat' n1.xml n2.xml | awk -F, 'NR > 1 { print $1, $2 }' > p.out
expect_eq "files --path" "$(cat p.out)" "n2 $PWD/x.dat"
"$ANALYZE" files --csv --path '*/w?.dat' n1.xml n2.xml | awk -F, 'NR > 1 { print $1, $2, $7 }' | sort > p2.out
expect_eq "files --path glob" "$(cat p2.out)" "$(printf '%s\n' "n1 $PWD/w0.dat 2000" "n1 $PWD/w1.dat 2000")"

# --from/--to: the calls whose start lies in the window, from the export
# (one node: its times are the run's)
"$ANALYZE" export n1.xml > all.csv
# the middle of the calls' span (the process's start-up has none)
mid=$(awk -F, '$1 == "io" { s = $6 + 0; if (!n++ || s < lo) lo = s; if (s > hi) hi = s }
	END { printf "%.9f", (lo + hi) / 2 }' all.csv)
want=$(awk -F, -v m="$mid" '$1 == "io" && $6 + 0 >= m + 0 { n++ } END { print n + 0 }' all.csv)
got=$("$ANALYZE" calls --csv --from "$mid" n1.xml | awk -F, 'NR > 1 { n += $2 } END { print n + 0 }')
expect_eq "--from half the run" "$got" "$want"
want=$(awk -F, -v m="$mid" '$1 == "io" && $6 + 0 < m + 0 { n++ } END { print n + 0 }' all.csv)
got=$("$ANALYZE" calls --csv --to "$mid" n1.xml | awk -F, 'NR > 1 { n += $2 } END { print n + 0 }')
expect_eq "--to half the run" "$got" "$want"
[ "$want" -gt 0 ] || fail "no call in the first half"
rc=0; "$ANALYZE" calls --from 2 --to 1 n1.xml 2>err || rc=$?
expect_eq "empty window status" "$rc" 2

# --node, --thread
got=$("$ANALYZE" calls --csv --by node --node n2 n1.xml n2.xml | awk -F, 'NR > 1 { print $1 }' | sort -u)
expect_eq "--node" "$got" "n2"
tid=$(awk -F, '$1 == "io" && $9 == "write" { print $4; exit }' all.csv)
want=$(awk -F, -v t="$tid" '$1 == "io" && $4 == t { n++ } END { print n }' all.csv)
got=$("$ANALYZE" calls --csv --thread "$tid" n1.xml | awk -F, 'NR > 1 { n += $2 } END { print n }')
expect_eq "--thread" "$got" "$want"
expect_eq "--thread export" "$("$ANALYZE" export --thread "$tid" n1.xml | awk -F, 'NR > 1 && $4 != t { n++ } END { print n + 0 }' t="$tid")" 0
# sums honours them too: n2's bytes only
got=$("$ANALYZE" sums --csv --node n2 n1.xml n2.xml | awk -F, '$1 == "filewrite" { print $2 }')
expect_eq "sums --node" "$got" 4300
# files with a filter on calls: the counts come from the selected calls
got=$("$ANALYZE" files --csv --call write n1.xml n2.xml | awk -F, 'NR > 1 { print $1, $3, $7, $8, $11 }')
expect_eq "files --call write" "$got" "$(printf '%s\n' "n1 0 2000 128000 " "n1 0 2000 128000 " "n2 0 4 4000 ")"

# every filter that matches nothing: exit 0, the empty table, one warning
# line (--node and --thread said nothing; sockets and regions ignored
# --path and --call)
# nomatch 'warning' REPORT ARGS...: the table has its header (and, for
# regions, the root ALL) only
nomatch() {
	want=$1 rows=1
	shift
	[ "$1" = regions ] && rows=2
	rc=0; "$ANALYZE" "$@" --csv > nm.csv 2> nm.err || rc=$?
	expect_eq "$* status" "$rc" 0
	expect_eq "$* rows" "$(wc -l < nm.csv)" "$rows"
	expect_eq "$* warning" "$(cat nm.err)" "island-analyze: warning: $want"
}
nomatch "--node nosuch matched no node" calls --node nosuch n1.xml n2.xml
nomatch "--node nosuch matched no node" files --node nosuch n1.xml n2.xml
nomatch "--thread 12345678 matched no thread" calls --thread 12345678 n1.xml n2.xml
nomatch "--thread $tid matched no thread of node n2" calls --node n2 --thread "$tid" n1.xml n2.xml
nomatch "--thread 12345678 matched no thread" regions --thread 12345678 n1.xml
nomatch "no call matched the filters" calls --thread "$tid" --from 1000 n1.xml
nomatch "no call matched the filters" files --path '/no/such/*' n1.xml n2.xml
nomatch "no call matched the filters" calls --call unlink n1.xml n2.xml
T=$ISLAND_ROOT/tests/traces
nomatch "a socket's row is its whole run's totals: --call, --path, --thread, --from and --to select none (calls --by file and flows take them)" sockets --path '*' $T/basic.xml
nomatch "a socket's row is its whole run's totals: --call, --path, --thread, --from and --to select none (calls --by file and flows take them)" sockets --call write $T/basic.xml
nomatch "a socket's row is its whole run's totals: --call, --path, --thread, --from and --to select none (calls --by file and flows take them)" sockets --from 0 $T/basic.xml
nomatch "--node nosuch matched no node" sockets --node nosuch $T/basic.xml
nomatch "a region is not a call: --call and --path select none" regions --path '*' $T/basic.xml
nomatch "a region is not a call: --call and --path select none" regions --call write $T/basic.xml
nomatch "no region matched the filters" regions --from 1000 $T/basic.xml
# and a filter that matches keeps quiet
"$ANALYZE" sockets --node node1 $T/basic.xml > s.out 2> s.err
expect_eq "sockets --node rows" "$(wc -l < s.out)" 3
expect_eq "sockets --node quiet" "$(cat s.err)" ""
echo ok
