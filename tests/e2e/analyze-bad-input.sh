#!/bin/sh
# Bad input: each case must give exactly one line "FILE:LINE: problem" on
# stderr, nothing on stdout, and exit status 2; never a crash.
R="$ISLAND_ROOT"
A="$R/bin/island-analyze"
B="$R/tests/traces/basic.xml"
[ -x "$A" ] || { echo "bin/island-analyze is not built"; exit 77; }
fail=0

# bad NAME 'expected message' [REPORT]: analyse file NAME from the cwd
bad() {
	"$A" "${3:-sums}" "$1" > stdout.txt 2> stderr.txt < /dev/null
	rc=$?
	printf '%s\n' "$2" > want.txt
	if [ "$rc" -ne 2 ]; then
		echo "FAIL $1: exit status $rc, expected 2"; fail=1
	fi
	if [ -s stdout.txt ]; then
		echo "FAIL $1: wrote to stdout:"; cat stdout.txt; fail=1
	fi
	if ! diff -u want.txt stderr.txt; then
		echo "FAIL $1: message differs"; fail=1
	fi
}

printf 'hello world\n' > notxml.xml
bad notxml.xml "notxml.xml:1: not an XML document: Start tag expected, '<' not found"

: > empty.xml
bad empty.xml "empty.xml:1: not an XML document: Document is empty"

printf '<?xml version="1.0"?>\n<html>\n<body/>\n</html>\n' > html.xml
bad html.xml "html.xml:2: not an Island trace (root element <html>, expected <trace>)"

printf '<?xml version="1.0"?>\n<trace generator="x">\n</trace>\n' > nover.xml
bad nover.xml "nover.xml:2: not an Island trace (<trace> has no version)"

sed 's/trace version="1"/trace version="2"/' "$B" > v2.xml
bad v2.xml "v2.xml:4: trace version 2 is newer than this Island reads (1)"

printf '<?xml version="1.0"?>\n<trace version="3"/>\n' > v3.xml
bad v3.xml "v3.xml:2: trace version 3 is newer than this Island reads (1)"

head -c 2000 "$B" > cut-in-tag.xml
bad cut-in-tag.xml "cut-in-tag.xml:30: truncated trace (the document ends before </trace>)"

head -n 20 "$B" > cut-at-line.xml
bad cut-at-line.xml "cut-at-line.xml:21: truncated trace (the document ends before </trace>)"

gzip -c "$B" | head -c 900 > cut.xml.gz
bad cut.xml.gz "cut.xml.gz:42: truncated or corrupt gzip data: the stream ends inside a member"

sed 's|</process>|</proces>|' "$B" > mismatch.xml
bad mismatch.xml "mismatch.xml:50: not well-formed XML: Opening and ending tag mismatch: process line 14 and proces"

sed 's/end="1.300000000" amount="200000"/end="0.200000000" amount="200000"/' "$B" > endbefore.xml
bad endbefore.xml "endbefore.xml:21: <io> ends before it starts (end 0.200000000 < start 0.300000000)"

sed 's/amount="4096"/amount="-5"/' "$B" > negamount.xml
bad negamount.xml "negamount.xml:36: <io> has a negative amount (-5)"

sed 's/<io api="send" res="netsend"/<io api="send" res="teleport"/' "$B" > badres.xml
bad badres.xml 'badres.xml:40: <io> has unknown res="teleport"'

sed 's/start="0.300000000" end="0.400000000"/start="zero" end="0.400000000"/' "$B" > badnum.xml
bad badnum.xml 'badnum.xml:36: <io> start="zero" is not a number of seconds'

sed 's/<compute dur="0.390000000"\/>/<compute dur="-0.390000000"\/>/' "$B" > negdur.xml
bad negdur.xml 'negdur.xml:32: <compute> dur="-0.390000000" is negative' consumption

sed 's/ start="0.000000000" end="3.000000000" cpu/ start="4.000000000" end="3.000000000" cpu/' "$B" > thread.xml
bad thread.xml 'thread.xml:15: <thread> ends before it starts (end 3.000000000 < start 4.000000000)' consumption

sed 's/<io api="close" res="filemeta" start="2.600000000"/<io api="close" res="filemeta"/' "$B" > nostart.xml
bad nostart.xml 'nostart.xml:30: <io> lacks attribute start' timeline

sed 's|<compute dur="0.390000000"/>|<thread tid="1" start="0" end="1"/>|' "$B" > misplaced.xml
bad misplaced.xml "misplaced.xml:32: <thread> is misplaced (inside <thread>)"

sed 's/trace version="1"/trace version="one"/' "$B" > vbad.xml
bad vbad.xml 'vbad.xml:4: not an Island trace (version "one")'

bad missing.xml "missing.xml: cannot read: No such file or directory"

printf 'component,state,start\nA,b,1\n' > nocols.csv
bad nocols.csv "nocols.csv:1: not a span file (the header must name component,state,start,end)" ttx

printf 'component,state,start,end\nA,b,0,1\nA,b,2,1\n' > backwards.csv
bad backwards.csv "backwards.csv:3: end before start" ttx

# Bad command lines: exit status 2 and the message.
# usage 'expected stderr' ARGS...
usage() {
	want=$1
	shift
	"$A" "$@" > stdout.txt 2> stderr.txt < /dev/null
	rc=$?
	printf '%s\n' "$want" > want.txt
	[ "$rc" -eq 2 ] || { echo "FAIL $*: exit status $rc, expected 2"; fail=1; }
	diff -u want.txt stderr.txt || { echo "FAIL $*: message differs"; fail=1; }
}
usage "island-analyze: unknown report 'sum' (did you mean sums? try --help)" sum "$B"
usage "island-analyze: sums: no trace given" sums
usage "island-analyze: --by: 'proc' is none of node, thread, file, call, callsite, process, level (did you mean process?)" sums --by proc "$B"
usage "island-analyze: sums: --by file: only node|thread" sums --by file "$B"
# each report takes the --by keys it splits by, no other (these were ignored)
usage "island-analyze: access: --by thread: only callsite" access --by thread "$B"
usage "island-analyze: files: --by thread: only callsite" files --by thread "$B"
usage "island-analyze: summary: --by thread: the report takes no --by" summary --by thread "$B"
usage "island-analyze: timeline: --by thread: the report takes no --by" timeline --by thread "$B"
usage "island-analyze: ttx: --by call: only node|thread" ttx --by call "$B"
# --from trace|net|both is deps' alone; elsewhere --from is seconds
usage "island-analyze: --from net: only deps takes trace, net or both; for calls --from is a number of seconds" calls --from net "$B"
usage "island-analyze: --from: 'soon' is not a number of seconds" deps --from soon "$B"
usage "island-analyze: --from: 'soon' is not a number of seconds" calls --from soon "$B"
usage "island-analyze: --thread: 'x' is not a thread id" calls --thread x "$B"
usage "island-analyze: utilization: say how many cores were provided (--cores N)" utilization "$B"
usage "island-analyze: --cores: 'zero' is not a positive number" utilization --cores zero "$B"
usage "island-analyze: compare: give exactly two traces, A and B" compare "$B"
usage "island-analyze: give either span files (.csv) or traces, not both" ttx "$R/traces/ttx-case1.csv" "$B"
"$A" --help > help.txt && grep -q '^usage: island-analyze REPORT' help.txt || { echo "FAIL: --help"; fail=1; }

exit $fail
