# island-analyze calls: per call count, errors by errno, bytes and latency
# percentiles, on a program making a known number of each call
# (tests/apps/callmix.c), and against strace on real programs.
#
# Percentiles: p50, p90, p99 of every call against the exact nearest-rank
# values of the calls' durations in `export` (nanoseconds), within the
# documented bound (exact below 256 ns, else within 1/256); max exact.
# strace: gzip, tar cf and cp, each run once under island-capture and once
# under `strace -f -y -qq` (LC_ALL=C, no locale files); for every system
# call Island's calls map to (tests/e2e/strace-calls.py: open, openat,
# fopen -> openat; fclose -> close; fstat, stat -> newfstatat; fdopendir ->
# newfstatat + 2 fcntl; ...) count and errors must be equal. The loader's
# and libraries' constructors' calls, and the system calls Island does not
# record (mmap, brk, getdents64, ...), are listed there, not skipped.
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
"$ANALYZE" calls --csv --by thread c.xml | awk -F, 'NR == 1 { print } $5 == "write" { print $1, $3, $5, $6 }' > t.out
expect_eq "by thread" "$(cat t.out)" "$(printf '%s\n' "node,pid,process,tid,call,count,errors,errnos,bytes,total_s,mean_s,p50_s,p90_s,p99_s,max_s" "n1 callmix write 1000")"
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

# percentiles against exact nearest-rank values from the export
pcheck() {
	"$ANALYZE" calls --csv "$1" > pc.csv
	"$ANALYZE" export "$1" > pe.csv
	/usr/bin/python3 - pc.csv pe.csv <<'PY'
import csv, math, sys
durs = {}
for r in csv.DictReader(open(sys.argv[2])):
    if r["kind"] == "io":
        durs.setdefault(r["api"], []).append(round(float(r["dur"]) * 1e9))
bad = 0
for r in csv.DictReader(open(sys.argv[1])):
    v = sorted(durs[r["call"]])
    if int(r["count"]) != len(v):
        print("%s: count %s, export %d" % (r["call"], r["count"], len(v))); bad = 1
    for col, p in (("p50_s", 0.5), ("p90_s", 0.9), ("p99_s", 0.99), ("max_s", 1.0)):
        exact = v[max(math.ceil(p * len(v)), 1) - 1]
        got = round(float(r[col]) * 1e9)
        ok = got == exact if exact < 256 or col == "max_s" else abs(got - exact) * 256 <= exact
        if not ok:
            print("%s %s: %d ns, exact %d ns" % (r["call"], col, got, exact)); bad = 1
sys.exit(bad)
PY
}
pcheck c.xml || fail "callmix: percentiles off the exact values"
head -c 3000000 /dev/urandom > big
"$CAPTURE" -n g -o g.xml -- gzip -c big > big.gz
pcheck g.xml || fail "gzip: percentiles off the exact values"

# real programs: every call's count and errors as strace counts them
command -v strace >/dev/null || { echo "strace not installed"; exit 77; }
export LC_ALL=C
seq 1 20000 > in.txt
mkdir d && cp "$ISLAND_ROOT/README.md" "$ISLAND_ROOT/GNUmakefile" d/
vs_strace() {
	name=$1; shift
	rm -f out.tar cp.txt
	"$CAPTURE" -n "$name" -o "$name.xml" -- "$@" > "$name.out" || fail "$name under island-capture"
	"$ANALYZE" calls --csv "$name.xml" > "$name.csv"
	rm -f out.tar cp.txt
	strace -f -y -qq -o "$name.strace" "$@" > "$name.out" || fail "$name under strace"
	/usr/bin/python3 "$ISLAND_ROOT/tests/e2e/strace-calls.py" "$name.csv" "$name.strace" ||
		fail "$name: island-analyze calls and strace disagree"
}
vs_strace gzip gzip -c in.txt
vs_strace tar tar cf out.tar --numeric-owner d
vs_strace cp cp in.txt cp.txt
echo ok
