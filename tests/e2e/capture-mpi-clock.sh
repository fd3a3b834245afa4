# Per-rank traces across hosts: each rank's capture measures its clock's
# offset against the session's coordinator and writes it (clock_offset);
# island-analyze merge puts the ranks in one trace on one clock. Here every
# rank but 0 runs on a clock 5 s behind (ISLAND_TEST_CLOCK_SKEW), each with
# a session directory of its own (as on separate hosts).
# tests/apps/rankfiles: rank 0 creates go, the others create seen.RANK
# after they saw it: in the merged trace, every seen.RANK after go.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
command -v mpirun >/dev/null || { echo "mpirun not installed"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
port=$(free_ports 8)
mkdir data
cat > rank.sh <<EOS
r=\$OMPI_COMM_WORLD_RANK
mkdir -p host\$r
[ "\$r" = 0 ] || export ISLAND_TEST_CLOCK_SKEW=-5000000000
exec "$CAPTURE" --session 127.0.0.1:$port --session-dir host\$r -- "$APPS/rankfiles" data \$r
EOS
timeout 120 mpirun --oversubscribe -n 3 sh rank.sh || fail "mpirun failed"
for r in 0 1 2; do
	check_trace rank$r.xml
	grep -q "<node name=\"rank$r\"[^>]* clock_offset=\"-\{0,1\}[0-9.]*\"" rank$r.xml ||
		fail "rank$r.xml has no clock_offset"
done
"$ANALYZE" merge -o run.xml rank0.xml rank1.xml rank2.xml
check_trace run.xml
# the offsets measured: the skewed ranks' against rank 0's, 5 s within 50 ms
off() { sed -n 's/.*<node name="'"$1"'"[^>]* clock_offset="\([-0-9.]*\)".*/\1/p' run.xml; }
for r in 1 2; do
	d=$(echo "$(off rank$r) - $(off rank0)" | bc)
	within "rank$r's offset against rank0" "$d" 4.95 5.05
done
# on the run's clock, go is created before every seen.RANK, by under 1 s
"$ANALYZE" export --format chrome run.xml | python3 -c 'import json, sys
ev = json.load(sys.stdin)["traceEvents"]
t = {}
for e in ev:
    if e["ph"] == "X" and e["name"] == "creat":
        t[e["args"]["path"].rsplit("/", 1)[1]] = float(e["ts"])
go = t["go"]
for k in ("seen.1", "seen.2"):
    d = (t[k] - go) / 1e6
    print(k, "ok" if 0 <= d < 1 else "%.6f s after go" % d)' > order.out
expect_eq "order on the merged clock" "$(cat order.out)" "$(printf '%s\n' "seen.1 ok" "seen.2 ok")"
# without the offsets, the skewed ranks' creats would come 5 s early
sed 's/ clock_offset="[-0-9.]*"//' run.xml > raw.xml
"$ANALYZE" export --format chrome raw.xml | python3 -c 'import json, sys
t = {}
for e in json.load(sys.stdin)["traceEvents"]:
    if e["ph"] == "X" and e["name"] == "creat":
        t[e["args"]["path"].rsplit("/", 1)[1]] = float(e["ts"])
print("early" if t["seen.1"] < t["go"] - 4e6 else "not early")' > raw.out
expect_eq "the skew is real" "$(cat raw.out)" "early"
echo ok
