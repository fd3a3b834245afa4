# Hints where a result would be empty or a word is mistyped: deps without
# waits says where they come from, a table the options do not make says
# which do, "did you mean" for reports, options, --by keys and --sort
# columns (of every tool), a warning for an -o name that is no trace's,
# size suffixes on rates, and .isb in every --help.
. "$ISLAND_ROOT/tests/e2e/lib.sh"

expect deps-empty 0 deps tests/traces/basic.xml <<'EOF2'
waits:
node  io  api  target  on_node  on_io  on_api  on_target  implied  origin  certain
island-analyze: deps: the traces hold no <wait>: they come from a --discover run (island-capture --cluster FILE --discover), or from the packets: deps --from net on traces captured with --pcap
EOF2
expect deps-measures 2 deps --table measures tests/traces/replay-2node.xml <<'EOF2'
island-analyze: deps: no table 'measures' in this output (it comes with --truth PATH or --from both)
EOF2
expect report-typo 2 timline tests/traces/basic.xml <<'EOF2'
island-analyze: unknown report 'timline' (did you mean timeline? try --help)
EOF2
expect option-typo 2 calls --limt 3 tests/traces/basic.xml <<'EOF2'
island-analyze: unknown option '--limt' (did you mean --limit? try --help)
EOF2
expect option-typo-eq 2 calls --sortt=count tests/traces/basic.xml <<'EOF2'
island-analyze: unknown option '--sortt' (did you mean --sort? try --help)
EOF2
expect option-far 2 calls --zzz tests/traces/basic.xml <<'EOF2'
island-analyze: unknown option '--zzz' (try --help)
EOF2
expect by-typo 2 calls --by thred tests/traces/basic.xml <<'EOF2'
island-analyze: --by: 'thred' is none of node, thread, file, call, callsite, process, level (did you mean thread?)
EOF2
[ $fail = 0 ] || exit 1

rc=0; "$CAPTURE" --outptu x.xml -- true 2> err || rc=$?
expect_eq "capture option typo" "$rc $(cat err)" "2 island-capture: unknown option '--outptu' (did you mean --output? try --help)"
rc=0; "$REPLAY" --spede 2 x.xml 2> err || rc=$?
expect_eq "replay option typo" "$rc $(cat err)" "2 island-replay: unknown option '--spede' (did you mean --speed? try --help)"

# -o: the format goes by the name; another name is written as XML, said
"$CAPTURE" -n j -o x.json -- true 2> err || fail "capture -o x.json"
expect_eq "-o x.json" "$(cat err)" "island-capture: -o x.json: not a trace's name (.xml or .isb, each maybe .gz or .zst): writing XML"
expect_eq "x.json is XML" "$(head -c 5 x.json)" "<?xml"
for o in t.xml t.xml.gz t.isb t.isb.zst; do
	"$CAPTURE" -n j -o $o -- true 2> err || fail "capture -o $o"
	expect_eq "-o $o: no warning" "$(cat err)" ""
done

# rates: 64k, 10M, 1G, 1.5KiB (binary multiples), on the command line,
# in a restrictions file and in a cluster file
"$CAPTURE" --filewrite 64k --netsend 10M --fileread 1G --netrecv 1.5KiB -n r -o r.xml -- true ||
	fail "capture with suffixed rates"
expect_eq "limits" "$(grep -o '<limit [^>]*>' r.xml | sort)" '<limit resource="fileread" value="1073741824"/>
<limit resource="filewrite" value="65536"/>
<limit resource="netrecv" value="1536"/>
<limit resource="netsend" value="10485760"/>'
rc=0; "$CAPTURE" --filewrite 10X -n r -o bad.xml -- true 2> err || rc=$?
expect_eq "bad rate" "$rc $(cat err)" "2 island-capture: filewrite: '10X' is not a non-negative number (of bytes per second: 100000, 64k, 10M, 1G)"
rc=0; "$CAPTURE" --cpu 1k -n r -o bad.xml -- true 2> err || rc=$?
expect_eq "no suffix on a CPU share" "$rc $(cat err)" "2 island-capture: cpu: '1k' is not a non-negative number"
cat > rl.cluster.xml <<'XML'
<cluster version="1">
  <node name="a"><arg>true</arg><restrict resource="filewrite" value="1M"/></node>
</cluster>
XML
xmllint --noout --schema "$ISLAND_ROOT/docs/cluster.xsd" rl.cluster.xml 2>/dev/null || fail "cluster.xsd refuses 1M"
"$CAPTURE" --cluster rl.cluster.xml -o rl.xml 2> err || fail "cluster with 1M: $(cat err)"
expect_eq "cluster limit" "$(grep -o '<limit [^>]*>' rl.xml)" '<limit resource="filewrite" value="1048576"/>'

# .isb in every tool's --help
for tool in capture replay analyze; do
	"$ISLAND_ROOT/bin/island-$tool" --help | grep -q '\.isb' || fail "island-$tool --help does not name .isb"
done
exit 0
