# Categories that mean what they say (consumption): open, stat, close,
# ... are filemeta, not fileread; a pipe's writes and bookkeeping are
# pipe, not the network; the threads together are SUM (thread-seconds)
# and ALL (the wall clock, overlap-aware). Literal on the hand-made
# tests/traces/pipe.xml (worked out in its comment; ALL cpu: the union of
# gen's [0,0.1] [0.15,0.2] [0.3,0.4] [0.45,1] and cat's [0.2,0.25]
# [0.55,0.6] [0.61,0.8] is 0.85 s), then on sqlite3 and on python3 with
# subprocesses against the calls' own durations in `export`.
. "$ISLAND_ROOT/tests/e2e/lib.sh"

expect pipe-consumption 0 consumption tests/traces/pipe.xml <<'EOF'
node  tid  thread  category    seconds  pct_live  pid  process
p      10  gen     live       1.000000    100.00   10  gen
p      10  gen     compute    0.800000     80.00   10  gen
p      10  gen     sleep      0.000000      0.00   10  gen
p      10  gen     fileread   0.000000      0.00   10  gen
p      10  gen     filewrite  0.000000      0.00   10  gen
p      10  gen     filemeta   0.050000      5.00   10  gen
p      10  gen     netsend    0.050000      5.00   10  gen
p      10  gen     netrecv    0.000000      0.00   10  gen
p      10  gen     pipe       0.100000     10.00   10  gen
p      10  gen     blocked    0.000000      0.00   10  gen
p      10  gen     stopped    0.000000      0.00   10  gen
p      11  cat     live       0.600000    100.00   11  cat
p      11  cat     compute    0.290000     48.33   11  cat
p      11  cat     sleep      0.000000      0.00   11  cat
p      11  cat     fileread   0.000000      0.00   11  cat
p      11  cat     filewrite  0.000000      0.00   11  cat
p      11  cat     filemeta   0.000000      0.00   11  cat
p      11  cat     netsend    0.000000      0.00   11  cat
p      11  cat     netrecv    0.000000      0.00   11  cat
p      11  cat     pipe       0.010000      1.67   11  cat
p      11  cat     blocked    0.300000     50.00   11  cat
p      11  cat     stopped    0.000000      0.00   11  cat
ALL        SUM     live       1.600000    100.00
ALL        SUM     compute    1.090000     68.12
ALL        SUM     sleep      0.000000      0.00
ALL        SUM     fileread   0.000000      0.00
ALL        SUM     filewrite  0.000000      0.00
ALL        SUM     filemeta   0.050000      3.12
ALL        SUM     netsend    0.050000      3.12
ALL        SUM     netrecv    0.000000      0.00
ALL        SUM     pipe       0.110000      6.88
ALL        SUM     blocked    0.300000     18.75
ALL        SUM     stopped    0.000000      0.00
ALL        ALL     live       1.000000    100.00
ALL        ALL     compute    0.850000     85.00
ALL        ALL     sleep      0.000000      0.00
ALL        ALL     fileread   0.000000      0.00
ALL        ALL     filewrite  0.000000      0.00
ALL        ALL     filemeta   0.050000      5.00
ALL        ALL     netsend    0.050000      5.00
ALL        ALL     netrecv    0.000000      0.00
ALL        ALL     pipe       0.110000     11.00
ALL        ALL     blocked    0.300000     30.00
ALL        ALL     stopped    0.000000      0.00
note: compute is wall-clock time outside calls (and in res=proc calls), not CPU time (sums' cpu, summary's cpu_s);
      SUM adds the threads up (thread-seconds); ALL is wall-clock: the instants some thread was in each category
EOF

expect pipe-summary 0 summary tests/traces/pipe.xml <<'EOF'
item               total  live_at_end
nodes                  1
processes              2            0
threads                2            0
files                  1            1
sockets                3            1
run_s           1.000000
calls                  5
bytes_read             0
bytes_written          0
bytes_sent          4106
bytes_received      4096
cpu_s           0.300000
note: cpu_s is the threads' CPU time (the kernel's, as sums' cpu); consumption's compute is
      wall-clock time outside calls
EOF
[ $fail = 0 ] || exit 1

# per category, the seconds of the calls as export gives them (threads'
# calls do not overlap): CATEGORY RES...
cat_of_export() {
	/usr/bin/python3 - exp.csv "$@" <<'PY'
import csv, sys
res = set(sys.argv[3:])
pipe = sys.argv[2] == "pipe"
s = 0
for r in csv.DictReader(open(sys.argv[1])):
    if r["kind"] == "io" and r["res"] in res and (r["proto"] == "pipe") == pipe:
        s += round(float(r["dur"]) * 1e9)
print("%.6f" % (s / 1e9))
PY
}
cons() { awk -F, -v t="$1" -v c="$2" '$3 == t && $4 == c { print $5 }' cons.csv; }
close_to() { # WHAT GOT WANT: within 2 us (rounding of many calls' sums)
	[ "$(echo "d = $2 - $3; d <= 0.000002 && d >= -0.000002" | bc)" = 1 ] || fail "$1: $2, want $3"
}

command -v sqlite3 >/dev/null || { echo "sqlite3 not installed"; exit 77; }
"$CAPTURE" -n db -o sq.xml -- sqlite3 t.db "create table t(a); insert into t values(1); select * from t;" > /dev/null ||
	fail "capture sqlite3"
"$ANALYZE" consumption --csv sq.xml > cons.csv || fail "consumption"
"$ANALYZE" export sq.xml > exp.csv || fail "export"
close_to "sqlite3 fileread" "$(cons SUM fileread)" "$(cat_of_export file fileread)"
close_to "sqlite3 filemeta" "$(cons SUM filemeta)" "$(cat_of_export file filemeta)"
# one thread: SUM and ALL are the same rows
expect_eq "sqlite3 one thread" "$(awk -F, '$3 == "SUM" { print $4, $5 }' cons.csv)" "$(awk -F, '$3 == "ALL" { print $4, $5 }' cons.csv)"
echo "sqlite3: fileread $(cons SUM fileread) s, filemeta $(cons SUM filemeta) s of $(cons SUM live) s"

cat > pipes.py <<'PY'
import subprocess
for i in range(3):
    subprocess.run(["cat"], input=b"x" * 100000, stdout=subprocess.DEVNULL)
PY
"$CAPTURE" -n py -o py.xml -- /usr/bin/python3 pipes.py || fail "capture python3"
"$ANALYZE" consumption --csv py.xml > cons.csv || fail "consumption"
"$ANALYZE" export py.xml > exp.csv || fail "export"
expect_eq "python3: no network" "$(cons SUM netsend) $(cons SUM netrecv)" "0.000000 0.000000"
close_to "python3 pipe" "$(cons SUM pipe)" "$(cat_of_export pipe netsend filemeta netmeta fileread filewrite)"
[ "$(echo "$(cons SUM pipe) > 0" | bc)" = 1 ] || fail "no pipe time"
# SUM live: the threads' lives added up; ALL live: their union, at most
# the run's seconds
lives=$(awk -F, 'NR > 1 && $1 == "thread" { s += $8 } END { printf "%.6f", s }' exp.csv)
close_to "SUM live" "$(cons SUM live)" "$lives"
run=$("$ANALYZE" summary --csv py.xml | awk -F, '$1 == "run_s" { print $2 }')
[ "$(echo "$(cons ALL live) <= $run && $(cons ALL live) < $(cons SUM live)" | bc)" = 1 ] ||
	fail "ALL live $(cons ALL live): not within the run ($run s) and below SUM ($(cons SUM live) s)"
echo "python3: SUM live $(cons SUM live) s, ALL live $(cons ALL live) s, run $run s, pipe $(cons SUM pipe) s"
exit 0
