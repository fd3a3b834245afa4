# Cluster files: nodes in their own network namespaces, an application
# whose I/O differs between passes, and bad cluster files.
. "$ISLAND_ROOT/tests/e2e/lib.sh"

# 0. the example cluster files follow the schema
for f in "$ISLAND_ROOT"/traces/*.cluster.xml; do
	xmllint --noout --schema "$ISLAND_ROOT/docs/cluster.xsd" "$f" 2>/dev/null ||
		fail "$f does not validate against docs/cluster.xsd"
done

# 1. pseudosync with every node in its own namespace, joined by a bridge
if [ "$(id -u)" = 0 ] && ip netns add island-probe-$$ 2>/dev/null; then
	ip netns del island-probe-$$
	ns_pseudosync_cluster 10.231.77 > ns.cluster.xml
	"$CAPTURE" --cluster ns.cluster.xml --discover --passes-dir passes -o ns.xml 2>ns.err ||
		{ cat ns.err; fail "discover in namespaces failed"; }
	check_trace ns.xml
	grep -q 'peer="10.231.77.1:7000"' ns.xml || fail "nodes did not talk over their own addresses"
	"$ANALYZE" deps --csv --table measures --truth passes/unthrottled/scratch ns.xml > ns.deps
	r=$(sed -n 's/^recall,\([^,]*\),.*/\1/p' ns.deps)
	[ "$r" = "100.00" ] || { cat ns.deps >&2; fail "recall in namespaces: got '$r', want '100.00'"; }
	[ -z "$(ip netns list | grep '^isl-')" ] || fail "namespaces left: $(ip netns list)"
	[ -z "$(ip link show | grep ' islbr-')" ] || fail "bridge left"
else
	echo "network namespaces not available: part 1 skipped"
fi

# 2. I/O that differs between passes: a clear error naming the first
#    differing call
cat > nd.cluster.xml <<'XML'
<cluster version="1">
  <node name="n0" cwd="${DIR}">
    <arg>sh</arg><arg>-c</arg>
    <arg>if [ -e marker ]; then echo b > second.txt; fi; echo a > first.txt; touch marker</arg>
  </node>
</cluster>
XML
rc=0; "$CAPTURE" --cluster nd.cluster.xml --discover -o nd.xml 2>err || rc=$?
expect_eq "nondeterministic status" "$rc" 1
grep -q "node n0: I/O [0-9]* differs between the unthrottled pass (.*) and the throttle-n0 pass (.*): the application's I/O is not deterministic" err ||
	fail "message: $(cat err)"
[ ! -e nd.xml ] || fail "a merged trace was written anyway"

# 3. bad cluster files: FILE:LINE: problem, exit 2
bad() { # CONTENT MESSAGE
	printf '%s\n' "$1" > bad.xml
	rc=0; "$CAPTURE" --cluster bad.xml 2>err || rc=$?
	expect_eq "status for bad cluster" "$rc" 2
	expect_eq "message" "$(cat err)" "$2"
}
bad '<cluster version="1"><node name="a"><arg>true</arg></node>' \
	"bad.xml:2: not a well-formed cluster file: Premature end of data in tag cluster line 1"
bad '<cluster version="2"/>' "bad.xml:1: cluster version '2' is not supported (1)"
bad '<nodes version="1"/>' "bad.xml:1: the root element is not <cluster>"
bad '<cluster version="1">
<node><arg>true</arg></node></cluster>' "bad.xml:2: node name \"\": 1 to 32 letters, digits, '_', '-' or '.' (not first)"
# shell metacharacters never reach a command line (issue 13): refused when
# the file is read, and nothing runs
bad '<cluster version="1">
<node name="x'"'"' * '"'"'"><arg>true</arg></node></cluster>' "bad.xml:2: node name \"x' * '\": 1 to 32 letters, digits, '_', '-' or '.' (not first)"
bad '<cluster version="1">
<node name="a" netns="yes" address="10.0.0.1/24; touch pwned"><arg>true</arg></node></cluster>' "bad.xml:2: node 'a': address \"10.0.0.1/24; touch pwned\" is not A.B.C.D/LEN (LEN 8 to 30)"
[ ! -e pwned ] || fail "a cluster field ran a command"
bad '<cluster version="1">
<node name="a"><arg>true</arg></node>
<node name="a"><arg>true</arg></node></cluster>' "bad.xml:3: node 'a' is listed twice"
bad '<cluster version="1">
<node name="a"/></cluster>' "bad.xml:2: node 'a' has no <arg> (its command)"
bad '<cluster version="1">
<node name="a" netns="yes"><arg>true</arg></node></cluster>' "bad.xml:2: node 'a': netns needs address=\"A.B.C.D/LEN\""
bad '<cluster version="1">
<node name="a"><arg>${NOPE}</arg></node></cluster>' "bad.xml:2: unknown variable '\${NOPE}'"
bad '<cluster version="1">
<node name="a"><arg>true</arg>
<restrict resource="memory" value="1"/></node></cluster>' "bad.xml:3: unknown resource 'memory' (island-capture enforces cpu, fileread, filewrite, netsend, netrecv)"

# 4. a restriction on one node only
cat > r.cluster.xml <<XML
<cluster version="1">
  <node name="slow"><arg>$APPS/writes</arg><arg>1</arg><arg>1</arg><arg>200000</arg><arg>slow.out</arg>
    <restrict resource="filewrite" value="100000"/></node>
  <node name="fast"><arg>$APPS/writes</arg><arg>1</arg><arg>1</arg><arg>200000</arg><arg>fast.out</arg></node>
</cluster>
XML
xmllint --noout --schema "$ISLAND_ROOT/docs/cluster.xsd" r.cluster.xml 2>/dev/null || fail "r.cluster.xml does not validate"
"$CAPTURE" --cluster r.cluster.xml -o r.xml 2>/dev/null || fail "restricted cluster failed"
expect_eq "limits in the merged trace" "$(grep -c '<limit resource="filewrite" value="100000"/>' r.xml)" 1
grep -q 'api="write".*throttle="1\.0' r.xml || fail "the slow node's write was not held"
expect_eq "held writes" "$(grep -c 'throttle=' r.xml)" 1
exit 0
