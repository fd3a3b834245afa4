# Issue 13, item 1: no shell. Shell metacharacters in a cluster file's
# names and addresses are refused with FILE:LINE before anything runs; the
# command's arguments reach it literally; the runner's removal of its
# trees never leaves them (a symlink in a pass's scratch is not followed).
. "$ISLAND_ROOT/tests/e2e/lib.sh"

echo keep > canary
mkdir outside && echo keep > outside/keep
P="$PWD/pwned"

# bad NAME LINE2 WANT: a cluster whose second line is LINE2 is refused with
# exit 2 and the one line WANT, and nothing ran
bad() {
	printf '%s\n' '<cluster version="1">' "$2" '</cluster>' > "$1.cluster.xml"
	rc=0
	"$CAPTURE" --cluster "$1.cluster.xml" --discover -o "$1.xml" > "$1.out" 2> "$1.err" || rc=$?
	expect_eq "$1: exit status" "$rc" 2
	expect_eq "$1: message" "$(cat "$1.err")" "$1.cluster.xml:2: $3"
	[ -e "$P" ] && fail "$1: a command ran: $(ls -l "$P")"
	[ -e canary ] || fail "$1: the current directory's files were deleted"
	return 0
}
ok='<arg>true</arg>'
names="1 to 32 letters, digits, '_', '-' or '.' (not first)"

bad quote "<node name=\"x' * '\">$ok</node>" "node name \"x' * '\": $names"
bad semi "<node name=\"a;touch $P\">$ok</node>" "node name \"a;touch $P\": $names"
bad dollar "<node name=\"\$(touch pwned)\">$ok</node>" "node name \"\$(touch pwned)\": $names"
bad dash "<node name=\"-rf\">$ok</node>" "node name \"-rf\": $names"
bad space "<node name=\"a b\">$ok</node>" "node name \"a b\": $names"
bad addr "<node name=\"a\" netns=\"yes\" address=\"10.0.0.1/24; touch $P\">$ok</node>" \
	"node 'a': address \"10.0.0.1/24; touch $P\" is not A.B.C.D/LEN (LEN 8 to 30)"
bad addrsub "<node name=\"a\" netns=\"yes\" address=\"10.0.0.1/\$(touch pwned)\">$ok</node>" \
	"node 'a': address \"10.0.0.1/\$(touch pwned)\" is not A.B.C.D/LEN (LEN 8 to 30)"
bad addrlen "<node name=\"a\" netns=\"yes\" address=\"10.0.0.1/24 \">$ok</node>" \
	"node 'a': address \"10.0.0.1/24 \" is not A.B.C.D/LEN (LEN 8 to 30)"
bad netns "<node name=\"a\" netns=\"yes;touch $P\" address=\"10.0.0.1/24\">$ok</node>" \
	"netns=\"yes;touch $P\": yes or no"
bad envname "<node name=\"a\">$ok<env name=\"X;touch $P\" value=\"1\"/></node>" \
	"<env name=\"X;touch $P\">: letters, digits and '_', not a digit first"
bad resource "<node name=\"a\">$ok<restrict resource=\"cpu;touch $P\" value=\"0.5\"/></node>" \
	"unknown resource 'cpu;touch $P' (island-capture enforces cpu, fileread, filewrite, netsend, netrecv)"
bad value "<node name=\"a\">$ok<restrict resource=\"cpu\" value=\"0.5;touch $P\"/></node>" \
	"cpu: '0.5;touch $P' is not a non-negative number"

# Arguments, env values and cwd are no shell's: they reach the command as
# they are, metacharacters included. The node writes its argv and an env
# value (printf's arguments) to a file; nothing else runs.
mkdir 'we;ird $(x)'
cat > lit.cluster.xml <<XML
<cluster version="1">
  <node name="lit.node_1-a" cwd="\${DIR}/we;ird \$(x)">
    <arg>sh</arg><arg>-c</arg><arg>printf '%s|' "\$@" "\$V" > \${DIR}/lit.args</arg><arg>sh</arg>
    <arg>a'b</arg><arg>\$(touch $P)</arg><arg>; touch $P</arg><arg>\`touch $P\`</arg><arg>*</arg>
    <env name="V" value="x;\$(touch $P)"/>
  </node>
</cluster>
XML
"$CAPTURE" --cluster "$PWD/lit.cluster.xml" -o lit.xml 2> lit.err || { cat lit.err; fail "literal arguments: the run failed"; }
expect_eq "literal arguments" "$(cat lit.args)" "a'b|\$(touch $P)|; touch $P|\`touch $P\`|*|x;\$(touch $P)|"
[ -e "$P" ] && fail "literal arguments: a command ran"

# The runner removes its trees without following a symlink out of them:
# the node plants links to a directory and a file outside in its scratch;
# a second run over the same --passes-dir removes the first one's passes.
cat > rm.cluster.xml <<XML
<cluster version="1">
  <node name="n0">
    <arg>sh</arg><arg>-c</arg>
    <arg>ln -s "$PWD/outside" "\$1/dir" &amp;&amp; ln -s "$PWD/outside/keep" "\$1/file" &amp;&amp; ln -s / "\$1/root"</arg>
    <arg>sh</arg><arg>\${SCRATCH}</arg>
  </node>
</cluster>
XML
for run in 1 2; do
	"$CAPTURE" --cluster rm.cluster.xml --discover --passes-dir passes -o rm.xml 2> rm.err ||
		{ cat rm.err; fail "symlinks in scratch: run $run failed"; }
	[ -L passes/unthrottled/scratch/dir ] || fail "run $run: the node planted no link"
done
"$CAPTURE" --cluster rm.cluster.xml --discover -o rm.xml 2> rm.err || { cat rm.err; fail "symlinks in scratch: temporary passes"; }
expect_eq "outside the tree" "$(cat outside/keep)" "keep"
expect_eq "the current directory" "$(cat canary)" "keep"
echo "harden-cluster-fields: ok"
