# island-analyze calls: per call count, errors by errno, bytes and latency
# percentiles, on a program making a known number of each call
# (tests/apps/callmix.c), and against strace on a real program.
. "$ISLAND_ROOT/tests/e2e/lib.sh"

"$CAPTURE" -n n1 -o c.xml -- "$APPS/callmix"
"$ANALYZE" calls --csv c.xml > c.csv
expect_eq header "$(head -1 c.csv)" "call,count,errors,errnos,bytes,total_s,mean_s,p50_s,p90_s,p99_s,max_s"
# call,count,errors,errnos,bytes
got=$(awk -F, 'NR > 1 { print $1, $2, $3, $4, $5 }' c.csv | sort)
want=$(printf '%s\n' "close 8 0  0" "open 28 20 ENOENT:20 0" "read 3 0  12288" "write 1000 0  64000")
expect_eq "counts" "$got" "$want"
# p50 <= p90 <= p99 <= max <= total, mean <= max
awk -F, 'NR > 1 && !($8 <= $9 && $9 <= $10 && $10 <= $11 && $11 <= $6 && $7 <= $11) { print; bad = 1 }
	END { exit bad }' c.csv || fail "percentiles out of order"

# --by thread, --by file
"$ANALYZE" calls --csv --by thread c.xml | awk -F, 'NR == 1 { print } $3 == "write" { print $1, $3, $4 }' > t.out
expect_eq "by thread" "$(cat t.out)" "$(printf '%s\n' "node,tid,call,count,errors,errnos,bytes,total_s,mean_s,p50_s,p90_s,p99_s,max_s" "n1 write 1000")"
"$ANALYZE" calls --csv --by file c.xml | awk -F, '$2 == "/dev/null" { print $3, $4 }' | sort > f.out
expect_eq "by file" "$(cat f.out)" "$(printf '%s\n' "close 7" "open 7" "write 1000")"

# filters: --call, --path; an unknown call is a usage error
expect_eq "--call" "$("$ANALYZE" calls --csv --call read,close c.xml | awk -F, 'NR > 1 { print $1 }' | sort | tr '\n' ' ')" "close read "
rc=0; "$ANALYZE" calls --call wrte c.xml 2>err || rc=$?
expect_eq "unknown call status" "$rc" 2
expect_eq "unknown call message" "$(cat err)" "island-analyze: --call: unknown call 'wrte' (names as in the trace's api attribute)"
rc=0; "$ANALYZE" calls --csv --path '/no/such/*' c.xml > empty.csv 2>err || rc=$?
expect_eq "no match status" "$rc" 0
expect_eq "no match table" "$(wc -l < empty.csv)" 1
expect_eq "no match warning" "$(cat err)" "island-analyze: warning: no call matched the filters"

# a real program: gzip's reads of its input and its writes, as strace counts them
head -c 3000000 /dev/urandom > big
"$CAPTURE" -n g -o g.xml -- gzip -c big > big.gz
"$ANALYZE" calls --csv --by file --path "$PWD/big" --call read g.xml | awk -F, 'NR == 2 { print $4 }' > ours
strace -f -y -e trace=read -o s.txt gzip -c big > big2.gz
grep -c "read([0-9]*<$PWD/big>" s.txt > theirs
expect_eq "gzip reads of its input vs strace" "$(cat ours)" "$(cat theirs)"
"$ANALYZE" calls --csv --call write g.xml | awk -F, 'NR == 2 { print $2 }' > ours
strace -f -e trace=write -o w.txt gzip -c big > big3.gz
grep -c "^[0-9]* *write(" w.txt > theirs
expect_eq "gzip writes vs strace" "$(cat ours)" "$(cat theirs)"
echo ok
