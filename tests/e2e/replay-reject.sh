# island-replay: traces it must refuse before running anything, each with
# one line FILE:LINE: what, and exit status 2.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
REPLAY="$ISLAND_ROOT/bin/island-replay"
head='<?xml version="1.0"?>
<trace version="1" generator="t" complete="true">'
thr='<process pid="1" ppid="0" cwd="/"><thread tid="1" start="0" end="1">'
end='</thread></process></node>'
io() { echo "<io api=\"write\" res=\"filewrite\" start=\"0.$1\" end=\"0.$1\" amount=\"1\" fd=\"1\" path=\"/x\" seq=\"$1\"/>"; }

# expect_reject NAME WANT: replaying NAME.xml fails with WANT, runs nothing
expect_reject() {
	"$REPLAY" --root "r-$1" "$1.xml" > "$1.out" 2> "$1.err"
	rc=$?
	expect_eq "$1: exit status" "$rc" 2
	expect_eq "$1: message" "$(cat "$1.err")" "$2"
	[ -s "$1.out" ] && fail "$1: printed on stdout: $(cat "$1.out")"
	[ -e "r-$1" ] && fail "$1: created its root before refusing"
	return 0
}

printf '%s\n' "$head" '<node name="a">' "$thr" "$(io 1)" \
	'<wait node="zz" seq="1"/>' "$(io 2)" "$end" '</trace>' > unknown.xml
expect_reject unknown 'unknown.xml:6: <wait> names unknown node "zz"'

printf '%s\n' "$head" '<node name="a">' "$thr" '<wait node="b" seq="1"/>' "$(io 1)" "$end" \
	'<node name="b">' "$thr" '<wait node="a" seq="1"/>' "$(io 1)" "$end" '</trace>' > cycle.xml
expect_reject cycle 'cycle.xml:5: WAIT cycle (the replay would deadlock): a#1 waits for b#1 (line 5), b#1 waits for a#1 (line 10)'

printf '%s\n' "$head" '<node name="a">' "$thr" "$(io 1)" '<wait node="a" seq="7"/>' "$(io 2)" "$end" '</trace>' > range.xml
expect_reject range 'range.xml:6: <wait> seq 7: node "a" has 2 I/O'

printf '%s\n' "$head" '<node name="a">' "$thr" "$(io 1)" '</thread>' '</trace>' > malformed.xml
expect_reject malformed 'malformed.xml:7: not well-formed XML: Opening and ending tag mismatch: process line 4 and trace'

printf '%s\n' '<?xml version="1.0"?>' '<trace version="2" generator="t">' '</trace>' > newer.xml
expect_reject newer 'newer.xml:2: trace version 2 is newer than this Island reads (1)'

printf '%s\n' "$head" '<node name="a">' "$thr" "$(io 1)" '<teleport to="b"/>' "$end" '</trace>' > element.xml
expect_reject element 'element.xml:6: unknown element <teleport>'

printf '%s\n' "$head" '<node name="a">' "$thr" '<io api="write" res="filewrite" start="x" end="1"/>' "$end" '</trace>' > badtime.xml
expect_reject badtime 'badtime.xml:5: <io> start="x" is not a number of seconds'

# an unknown --node is refused too
printf '%s\n' "$head" '<node name="a">' "$thr" "$(io 1)" "$end" '</trace>' > ok.xml
"$REPLAY" --root r-ok --node nope ok.xml 2> node.err
expect_eq "--node nope: exit" "$?" 2
expect_eq "--node nope: message" "$(cat node.err)" "island-replay: --node nope: no such node in ok.xml"

# roots a replay must not write under (issue 13): /, a directory holding
# the trace, one holding Island's own files; nothing replayed
rc=0; "$REPLAY" --root / ok.xml 2> root.err || rc=$?
expect_eq "--root /: exit" "$rc" 2
expect_eq "--root /: message" "$(cat root.err)" "island-replay: --root /: refused: the replay would write over the whole system"
mkdir -p holds && cp ok.xml holds/t.xml
rc=0; "$REPLAY" --root holds holds/t.xml 2> root.err || rc=$?
expect_eq "--root over the trace: exit" "$rc" 2
expect_eq "--root over the trace: message" "$(cat root.err)" "island-replay: --root holds: refused: it holds the trace $PWD/holds/t.xml"
tree=$(cd "$ISLAND_ROOT" && pwd -P)
rc=0; "$REPLAY" --root "$tree" ok.xml 2> root.err || rc=$?
expect_eq "--root over Island: exit" "$rc" 2
expect_eq "--root over Island: message" "$(cat root.err)" "island-replay: --root $tree: refused: it holds Island's own $tree/bin/island-replay"
exit 0
