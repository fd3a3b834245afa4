# Calls a program makes inside another of its calls (tests/apps/nested):
# a signal handler's, run inside a read. Each is recorded after the call
# it ran in, within="that call", its time part of that call's (no
# computing between them): the trace is whole. Memory streams' calls
# (fopencookie, open_memstream, fmemopen) are no I/O: not recorded, but
# what a cookie's functions do. A handler that _exits inside the
# read, which never returns, has its calls recorded as the thread's own;
# a handler past the room the capture keeps for them has the rest
# counted, and the trace says so. Under --callsites each has its site;
# .isb.zst keeps them all.
. "$ISLAND_ROOT/tests/e2e/lib.sh"

# calls TRACE: the main process's calls; times, pipe numbers and
# directories left out
calls() {
	awk '/<process /{n++} n == 1 && /<io /' "$1" |
		sed 's/ start="[^"]*" end="[^"]*"//; s/ pipe="[0-9]*"//; s/^ *//
		     s/ path="[^"]*\/\([^/"]*\)"/ path="\1"/'
}

"$CAPTURE" -n h -o h.xml "$APPS/nested" handler > h.out 2> h.err || fail "handler failed"
check_trace h.xml
expect_eq "handler: what it read" "$(cat h.out)" "read 1"
expect_eq "handler: the calls, the handler's after the read it ran in" \
	"$(calls h.xml | grep -A3 'api="read"')" \
'<io api="read" res="netrecv" amount="1" size="1" fd="3" peer="pipe" proto="pipe"/>
<io api="open" res="filemeta" within="read" fd="4" path="h.out" flags="O_WRONLY|O_CREAT|O_TRUNC"/>
<io api="write" res="filewrite" within="read" amount="2" size="2" fd="4" path="h.out"/>
<io api="close" res="filemeta" within="read" fd="4" path="h.out"/>'
expect_eq "handler: no computing between the read and its calls" \
	"$(grep -A3 'api="read"' h.xml | grep -c '<compute')" 0
expect_eq "handler: nothing missing" "$(grep -c 'complete="false"' h.xml)" 0
# the handler's calls inside the read's time
awk -F'"' '/api="read"/ { for (i = 1; i < NF; i++) { if ($i ~ / start=$/) s = $(i + 1); if ($i ~ / end=$/) e = $(i + 1) } }
	/within="read"/ { for (i = 1; i < NF; i++) { if ($i ~ / start=$/) a = $(i + 1); if ($i ~ / end=$/) b = $(i + 1) }
		if (a < s || b > e) { print "outside: " $0; bad = 1 } }
	END { exit bad }' h.xml || fail "a handler's call outside the read"
# the report of time: the read blocked for the handler's calls too
"$ANALYZE" consumption h.xml > cons.txt 2>&1 || fail "consumption failed"
main=$(sed -n 's/.*<process pid="\([0-9]*\)" .*/\1/p' h.xml | head -1)
expect_eq "handler: the main thread blocked for the read's 100 ms, the handler's calls in it" \
	"$(awk -v t="$main" '$2 == t && $4 == "blocked" { print ($6 >= 90) ? "most of it" : $6 "%" }' cons.txt)" \
	"most of it"

# a fopencookie stream's fputs and fclose move bytes in memory (not
# recorded); its functions' write and close, made inside the fclose, are
# the program's I/O (recorded as its own: the fclose is not); a memory
# stream's calls are no I/O at all
"$CAPTURE" -n c -o c.xml "$APPS/nested" cookie 2> c.err || fail "cookie failed"
check_trace c.xml
expect_eq "cookie: the calls" "$(calls c.xml)" \
'<io api="open" res="filemeta" fd="3" path="c.out" flags="O_WRONLY|O_CREAT|O_TRUNC"/>
<io api="write" res="filewrite" amount="7" size="7" fd="3" path="c.out"/>
<io api="close" res="filemeta" fd="3" path="c.out"/>'
expect_eq "cookie: what it wrote" "$(cat c.out)" "cookie"
"$CAPTURE" -n mem -o mem.xml "$APPS/nested" memory > mem.out 2> mem.err || fail "memory failed"
check_trace mem.xml
expect_eq "memory: what the streams hold" "$(cat mem.out)" "memory 900 5"
expect_eq "memory: the calls, its printf only" "$(calls mem.xml | sed 's/ path="[^"]*"//')" \
	'<io api="printf" res="filewrite" amount="13" fd="1"/>'
expect_eq "memory: bytes written" "$("$ANALYZE" sums mem.xml | awk '$1 == "filewrite" { print $2 }')" 13

"$CAPTURE" -n e -o e.xml "$APPS/nested" exit > e.out 2> e.err
expect_eq "exit: its status" "$?" 3
check_trace e.xml
expect_eq "exit: the handler's write, the thread's own (the read never returned)" \
	"$(calls e.xml | tail -1 | sed 's/ path="[^"]*"//')" \
	'<io api="write" res="filewrite" amount="4" size="4" fd="1"/>'
expect_eq "exit: nothing missing" "$(grep -c 'complete="false"' e.xml)" 0

# 202 calls (open, 200 writes, close) inside one read: those that fit
# recorded, the rest counted
"$CAPTURE" -n m -o m.xml "$APPS/nested" many > m.out 2> m.err || fail "many failed"
check_trace m.xml
rec=$(grep -c 'within="read"' m.xml)
pid=$(sed -n 's/.*<process pid="\([0-9]*\)" .*/\1/p' m.xml | head -1)
[ "$rec" -ge 100 ] && [ "$rec" -lt 202 ] || fail "many: $rec of 202 calls recorded"
expect_eq "many: the rest counted" \
	"$(sed -n 's/.*<process [^>]*complete="false" reason="\([^"]*\)".*/\1/p' m.xml)" \
	"thread $pid made $((202 - rec)) calls inside calls being recorded (a signal handler's, a callback's), not recorded"
expect_eq "many: the first recorded is the open" \
	"$(grep -m1 'within="read"' m.xml | sed 's/.*api="\([a-z]*\)".*/\1/')" open

# --callsites: each with its site; .isb.zst: the same trace
"$CAPTURE" -n h --callsites -o hs.isb.zst "$APPS/nested" handler > hs.out 2> hs.err ||
	fail "handler --callsites failed"
"$ANALYZE" export --format xml hs.isb.zst > hs.xml 2> hs.err2 || fail "export failed"
check_trace hs.xml
expect_eq "--callsites: the handler's calls, each with its site" \
	"$(grep -c 'within="read".* site="' hs.xml)" 3
expect_eq "--callsites .isb.zst: the calls" \
	"$(calls hs.xml | grep -A3 'api="read"' | sed 's/ site="[^"]*"//')" \
	"$(calls h.xml | grep -A3 'api="read"')"
exit 0
