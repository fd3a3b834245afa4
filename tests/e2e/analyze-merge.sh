# island-analyze merge: several ranks' traces as one multi-node trace, that
# every report and island-replay take; a node's clock_offset aligns it.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
REPLAY="$ISLAND_ROOT/bin/island-replay"

"$CAPTURE" -n rank0 -o rank0.xml -- "$APPS/writes" 1 100 64 r0.dat
"$CAPTURE" -n rank1 -o rank1.xml -- "$APPS/access" x.dat
"$ANALYZE" merge -o run.xml rank0.xml rank1.xml
check_trace run.xml
expect_eq "nodes" "$(grep -c '<node ' run.xml)" 2
"$ANALYZE" sums --csv --by node rank0.xml rank1.xml > apart.csv
"$ANALYZE" sums --csv --by node run.xml > merged.csv
cmp -s apart.csv merged.csv || fail "sums differ: $(diff apart.csv merged.csv)"
"$ANALYZE" merge -o run.xml.gz rank0.xml rank1.xml
gzip -t run.xml.gz || fail "run.xml.gz is not gzip"
"$ANALYZE" sums --csv --by node run.xml.gz | cmp -s - apart.csv || fail "gzip merge differs"
mkdir root
"$REPLAY" --root root -m afap run.xml > replay.out 2>&1 || fail "replay of the merged trace: $(cat replay.out)"

# traces in the binary encoding (docs/trace-binary.md) merge as XML ones
# do, into either encoding: merge reads through the trace library
"$ANALYZE" export --format isb -o rank0.isb rank0.xml || fail "export rank0.isb"
"$ANALYZE" export --format isb -o rank1.isb.zst rank1.xml || fail "export rank1.isb.zst"
"$ANALYZE" merge -o runb.xml rank0.isb rank1.isb.zst 2> err || fail "merge of .isb traces: $(cat err)"
check_trace runb.xml
"$ANALYZE" sums --csv --by node runb.xml | cmp -s - apart.csv || fail ".isb merge differs"
"$ANALYZE" merge -o runb.isb.zst rank0.xml rank1.isb.zst 2> err || fail "merge into .isb.zst: $(cat err)"
"$ANALYZE" sums --csv --by node runb.isb.zst | cmp -s - apart.csv || fail "merge into .isb.zst differs"
"$ANALYZE" export --format csv run.xml > run.csv
"$ANALYZE" export --format csv runb.isb.zst | cmp -s - run.csv || fail "merged .isb.zst's events differ"
# an input with complete="false": so is the merged trace
sed 's/^<trace \(.*\) complete="true"/<trace \1 complete="false"/' rank1.xml > rank1i.xml
grep -q '^<trace .* complete="false"' rank1i.xml || fail "rank1.xml's root has no complete="
"$ANALYZE" merge -o runi.xml rank0.xml rank1i.xml 2> /dev/null || fail "merge of an incomplete trace"
grep -q '^<trace .* complete="false"' runi.xml || fail "an incomplete input merged as complete"
grep -q '^<trace .* complete="true"' run.xml || fail "complete inputs merged as incomplete"

# the same node name twice, the output among the inputs, no -o: refused
rc=0; "$ANALYZE" merge -o twice.xml rank0.xml rank0.xml 2>err || rc=$?
expect_eq "twice status" "$rc" 2
expect_eq "twice message" "$(cat err)" "island-analyze: merge: node \"rank0\" is in rank0.xml and in rank0.xml: name the ranks apart (-n)"
[ ! -e twice.xml ] || fail "a refused merge wrote its output"
rc=0; "$ANALYZE" merge -o rank0.xml rank0.xml rank1.xml 2>err || rc=$?
expect_eq "output is an input" "$rc" 2
rc=0; "$ANALYZE" merge rank0.xml 2>err || rc=$?
expect_eq "no -o" "$(cat err)" "island-analyze: merge: say where to write the merged trace (-o FILE)"

# two hosts and no clock_offset: merged, with a warning; one host, or the
# other host's node aligned, no warning
sed 's/<node name="rank1" host="[^"]*"/<node name="rank1" host="elsewhere"/' rank1.xml > rank1h.xml
grep -q 'host="elsewhere"' rank1h.xml || fail "no host attribute in rank1.xml"
h0=$(sed -n 's/.*<node name="rank0" host="\([^"]*\)".*/\1/p' rank0.xml)
"$ANALYZE" merge -o runh.xml rank0.xml rank1h.xml 2> err || fail "merge of two hosts"
expect_eq "two hosts warning" "$(cat err)" "island-analyze: merge: warning: nodes rank0 (host $h0) and rank1 (host elsewhere) have no clock_offset: their times are on two hosts' clocks, not aligned (capture the ranks with --session)"
sed 's/<node name="rank1"/<node name="rank1" clock_offset="0.000100000"/' rank1h.xml > rank1ho.xml
"$ANALYZE" merge -o runho.xml rank0.xml rank1ho.xml 2> err || fail "merge of two aligned hosts"
expect_eq "aligned hosts: no warning" "$(cat err)" ""
"$ANALYZE" merge -o run1.xml rank0.xml rank1.xml 2> err || fail "merge of one host"
expect_eq "one host: no warning" "$(cat err)" ""

# clock_offset: rank1's clock was 1.5 s ahead; its events move 1.5 s back
# against rank0's (epoch + clock_offset)
first() { "$ANALYZE" export --format chrome "$1" | python3 -c 'import json, sys
ev = [e for e in json.load(sys.stdin)["traceEvents"] if e["ph"] == "X" and e["name"] == "pwrite"]
print("%.3f" % ev[0]["ts"])'; }
sed 's/<node name="rank1"/<node name="rank1" clock_offset="-1.500000000"/' rank1.xml > rank1o.xml
check_trace rank1o.xml
"$ANALYZE" merge -o runo.xml rank0.xml rank1o.xml
a=$(first run.xml) b=$(first runo.xml)
# run.xml's times are relative to the earliest epoch; with the offset
# rank1's epoch may become the earliest: compare against rank0's first write
w() { "$ANALYZE" export --format chrome "$1" | python3 -c 'import json, sys
ev = [e for e in json.load(sys.stdin)["traceEvents"] if e["ph"] == "X" and e["name"] == "write"]
print("%.3f" % ev[0]["ts"])'; }
shift=$(echo "($b - $(w runo.xml)) - ($a - $(w run.xml))" | bc)
expect_eq "rank1 against rank0, microseconds" "$shift" "-1500000.000"
echo ok
