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

# The reports of time clip to the window and keep only the selected
# calls' time; nothing a filter leaves out becomes compute. One thread alive
# 0 .. 1 s, cpu attribute 0.6 s: write 0.1-0.2, read 0.4-0.6, sleep
# 0.7-0.9, computing in between (0.5 s).
cat > hand.xml <<'EOF'
<?xml version="1.0" encoding="UTF-8"?>
<trace version="1" generator="hand" complete="true">
<node name="h" host="h" epoch="1700000000.000000000" start="0.000000000" end="1.000000000" clock="tsc">
  <process pid="10" ppid="1" exe="/bin/x" cwd="/" start="0.000000000" end="1.000000000" status="exit:0" complete="true">
    <thread tid="10" name="x" start="0.000000000" end="1.000000000" cpu="0.600000000" exit="process" complete="true">
      <io api="write" res="filewrite" start="0.100000000" end="0.200000000" fd="3" path="/o" amount="10"/>
      <io api="read" res="fileread" start="0.400000000" end="0.600000000" fd="4" path="/i" amount="20"/>
      <io api="nanosleep" res="sleep" start="0.700000000" end="0.900000000" req="0.200000000"/>
    </thread>
  </process>
  <files>
  </files>
  <sockets>
  </sockets>
</node>
</trace>
EOF
cons() { # ARGS...: the SUM rows (thread-seconds) that are not zero, "category seconds"
	"$ANALYZE" consumption --csv "$@" hand.xml |
		awk -F, '$3 == "SUM" && $5 != "0.000000" { printf "%s %s;", $4, $5 }'
}
expect_eq "consumption" "$(cons)" \
	"live 1.000000;compute 0.500000;sleep 0.200000;fileread 0.200000;filewrite 0.100000;"
# [0.15, 0.5): half the write, the computing 0.2-0.4, 0.1 of the read
expect_eq "consumption window" "$(cons --from 0.15 --to 0.5)" \
	"live 0.350000;compute 0.200000;fileread 0.100000;filewrite 0.050000;"
expect_eq "consumption --call write" "$(cons --call write)" "live 0.100000;filewrite 0.100000;"
expect_eq "consumption --path /i" "$(cons --path /i)" "live 0.200000;fileread 0.200000;"
expect_eq "consumption --call and window" "$(cons --call write,read --from 0.15 --to 0.5)" \
	"live 0.150000;fileread 0.100000;filewrite 0.050000;"
# a thread none of whose time is selected is not in the report: thread
# 11 lived 0 .. 0.1 s, thread 12 0.2 .. 1 s
sed -e 's/tid="10" name="x" start="0.000000000" end="1.000000000" cpu="0.600000000" exit="process"/tid="11" name="a" start="0.000000000" end="0.100000000" cpu="0.050000000" exit="return"/' \
    -e 's|clock="tsc">|clock="tsc"><command><arg>x</arg></command>|' -e '/<io /d' -e 's|</thread>|</thread><thread tid="12" name="b" start="0.200000000" end="1.000000000" cpu="0.100000000" exit="process" complete="true"><io api="read" res="fileread" start="0.400000000" end="0.600000000" fd="4" path="/i" amount="20"/></thread>|' \
    hand.xml > two.xml
check_trace two.xml
threads_in() { "$ANALYZE" consumption --csv "$@" two.xml | awk -F, 'NR > 1 && $2 != "" { print $2 }' | sort -u | tr '\n' ' '; }
expect_eq "consumption: threads" "$(threads_in)" "11 12 "
expect_eq "consumption --from 0.3: threads" "$(threads_in --from 0.3)" "12 "
expect_eq "consumption --call read: threads" "$(threads_in --call read)" "12 "
ttx() { # ARGS...: TTX and TTC
	"$ANALYZE" ttx --csv "$@" hand.xml | awk -F, '$1 == "overlap-aware" || $1 == "TTC" { printf "%s %s;", $1, $2 }'
}
expect_eq "ttx" "$(ttx)" "overlap-aware 1.000000;TTC 1.000000;"
expect_eq "ttx window" "$(ttx --from 0.15 --to 0.5)" "overlap-aware 0.350000;TTC 0.350000;"
# the write and the sleep: 0.1 + 0.2, from 0.1 to 0.9
expect_eq "ttx --call" "$(ttx --call write,nanosleep)" "overlap-aware 0.300000;TTC 0.800000;"
util() { # ARGS...: app system idle total
	"$ANALYZE" utilization --csv --cores 1 "$@" hand.xml | awk -F, 'NR > 1 { printf "%s %s;", $1, $2 }'
}
# app: cpu 0.6 up to the compute category 0.5; system the rest, 0.1
expect_eq "utilization" "$(util)" "app 0.500000;system 0.100000;idle 0.400000;total 1.000000;"
# the window has 0.2 of the 0.5 compute category and 0.35 of the 1 s live
expect_eq "utilization window" "$(util --from 0.15 --to 0.5)" \
	"app 0.200000;system 0.035000;idle 0.115000;total 0.350000;"
# the write: no compute category, 0.1 of the live time
expect_eq "utilization --call" "$(util --call write)" \
	"app 0.000000;system 0.010000;idle 0.990000;total 1.000000;"

# files from the calls of a --syscalls trace: each transfer once, at its
# system call (sort reads in, 1..1000: 3893 bytes, and writes them to out)
seq 1 1000 > in
"$CAPTURE" --syscalls -o sc.xml -- sort -o out in
if grep -q 'syscalls="kernel"' sc.xml; then
	for f in "" "--from 0" "--by callsite" "--call read,write"; do
		got=$("$ANALYZE" files --csv $f sc.xml | awk -F, -v p="$PWD/" '
			NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i }
			$2 == p "in" || $2 == p "out" {
				n[substr($2, length(p) + 1)] += $c["bytes_read"] + $c["bytes_written"]
			}
			END { printf "in %d out %d", n["in"], n["out"] }')
		expect_eq "files $f --syscalls" "$got" "in 3893 out 3893"
	done
	expect_eq "sums --from 0 --syscalls" \
		"$("$ANALYZE" sums --csv --from 0 --path "$PWD/out" sc.xml | awk -F, '$1 == "filewrite" { print $2 }')" 3893
else
	echo "no Syscall User Dispatch: files --syscalls skipped"
fi
# the time of a system call a libc call made is that call's: 12 ms of
# writing, not 20 (the fwrite's 10 and its write's 8 were added)
T="$ISLAND_ROOT/tests/traces/syscalls-via.xml"
check_trace "$T"
for f in "" "--from 0"; do
	expect_eq "files $f on via=" "$("$ANALYZE" files --csv $f "$T" | sed -n 2p | cut -d, -f1-9)" \
		"s,/out,0,0,0,0.000000,2,300,0.012000"
done
# deps --node: the waits that have the node at either end, read with
# every node (a wait's other end is another node's call; regression: the
# other node filtered out, deps died "node a has 0 I/O"). Node c, added
# here, waits on b: --node a keeps b's wait on a, --node c c's on b.
sed -e 's#^</trace>##' "$ISLAND_ROOT/tests/traces/replay-2node.xml" > three.xml
cat >> three.xml <<'EOF'
  <node name="c" host="h3" epoch="1763798662.000000000" start="0.000000000" end="0.320000000" clock="monotonic">
    <command><arg>c</arg></command>
    <process pid="30" ppid="1" exe="/bin/c" cwd="/work" start="0.000000000" end="0.320000000" status="exit:0" complete="true">
      <thread tid="30" name="c" start="0.000000000" end="0.320000000" exit="process" complete="true">
        <compute dur="0.311000000"/>
        <wait node="b" seq="2"/>
        <io api="unlink" res="filemeta" start="0.311000000" end="0.311100000" path="/work/b.dat" seq="1"/>
        <compute dur="0.008900000"/>
      </thread>
    </process>
    <files/>
    <sockets/>
  </node>
</trace>
EOF
check_trace three.xml
expect_eq "deps --node a" "$("$ANALYZE" deps --csv --node a three.xml)" \
"node,io,api,target,on_node,on_io,on_api,on_target,implied,origin,certain
b,1,open,/work/b.dat,a,4,write,/work/a3.dat,,,"
expect_eq "deps --node c" "$("$ANALYZE" deps --csv --node c three.xml)" \
"node,io,api,target,on_node,on_io,on_api,on_target,implied,origin,certain
c,1,unlink,/work/b.dat,b,2,write,/work/b.dat,,,"
expect_eq "deps --node b" "$("$ANALYZE" deps --csv --node b three.xml | wc -l)" 3
"$ANALYZE" deps --node d three.xml 2> nod.err && fail "deps --node d: no such node, accepted"
expect_eq "deps --node d" "$(cat nod.err)" "island-analyze: --node d: no such node in the traces"
echo ok
