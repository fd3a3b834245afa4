# The trace reader parses a file of 1 MiB or more in a second thread
# (trace/read.c; ISLAND_READER_THREADS=1 keeps it in one): the same
# reports, and on bad input the same one line FILE:LINE at the same
# point, from the analyzer (skipping) and the replay (strict), whether
# the error is the parser's, the validator's or the reader's; and a
# program reading with trace_read_try() is left with no thread and no
# descriptor of a refused trace. The binary encoding likewise.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
B="$ISLAND_ROOT/tests/traces/basic.xml"

# basic.xml with 60000 more reads in its main thread (lines 17 to 60016),
# 7 MB (more than the reader's blocks in flight, 4 MiB: the parser
# waits); BAD replaces the read on line LINE, TEXT goes before it
big() {
	awk -v line="${2:-0}" -v bad="$3" -v text="$4" '
	{ print }
	NR == 16 { for (i = 17; i <= 60016; i++) {
		if (i == line && text != "") print text
		if (i == line && bad != "") print bad
		else print "        <io api=\"read\" res=\"fileread\" start=\"0.100000000\" end=\"0.100000000\" amount=\"1\" size=\"1\" fd=\"3\" path=\"/data/in.txt\"/>"
	} }' "$B" > "$1"
}

big good.xml
[ "$(wc -c < good.xml)" -gt 1048576 ] || fail "good.xml is under 1 MiB: not read in two threads"
"$ANALYZE" calls --csv good.xml > calls2.txt || fail "analyze calls good.xml failed"
ISLAND_READER_THREADS=1 "$ANALYZE" calls --csv good.xml > calls1.txt || fail "analyze calls good.xml failed in one thread"
expect_eq "reads in two threads" "$(awk -F, '$1 == "read" { print $2, $5 }' calls2.txt)" "60001 64096"
cmp -s calls1.txt calls2.txt || fail "calls differ between one and two threads: $(diff calls1.txt calls2.txt | head -5)"

# refused FILE 'analyzer message' 'replay message': both tools, in one
# thread and two
refused() {
	for n in 1 2; do
		ISLAND_READER_THREADS=$n "$ANALYZE" sums "$1" > out.txt 2> err.txt
		expect_eq "$1, analyze, $n threads: exit status" "$?" 2
		expect_eq "$1, analyze, $n threads: message" "$(cat err.txt)" "$2"
		[ -s out.txt ] && fail "$1, analyze: printed on stdout: $(cat out.txt)"
		ISLAND_READER_THREADS=$n "$REPLAY" --root "r-$1" "$1" > out.txt 2> err.txt
		expect_eq "$1, replay, $n threads: exit status" "$?" 2
		expect_eq "$1, replay, $n threads: message" "$(cat err.txt)" "$3"
		[ -e "r-$1" ] && fail "$1, replay: created its root before refusing"
	done
	return 0
}

# the validator's, near the end (the parser well ahead of the reader)
big badres.xml 19000 '        <io api="read" res="nope" start="0.1" end="0.1"/>'
refused badres.xml 'badres.xml:19000: <io> has unknown res="nope"' 'badres.xml:19000: <io> has unknown res="nope"'
# the reader's, early (the parser stopped while it waits for a block)
big misplaced.xml 100 '        <node name="n2"/>'
refused misplaced.xml 'misplaced.xml:100: <node> is misplaced (inside <thread>)' \
	'misplaced.xml:100: <node> is misplaced (inside <thread>)'
# the parser's: the events before it are read first, then its line
big notwf.xml 15000 '        <io api="read" res=fileread/>'
refused notwf.xml 'notwf.xml:15000: not well-formed XML: AttValue: " or '"'"' expected' \
	'notwf.xml:15000: not well-formed XML: AttValue: " or '"'"' expected'
# strict: text between elements is the replay's error, not the analyzer's
# texted FILE LINE: both, in one thread and two
texted() {
	for n in 1 2; do
		ISLAND_READER_THREADS=$n "$ANALYZE" calls --csv "$1" > calls.txt || fail "analyze refused $1 ($n threads)"
		expect_eq "$1, analyze, $n threads" "$(awk -F, '$1 == "read" { print $2, $5 }' calls.txt)" "60001 64096"
		ISLAND_READER_THREADS=$n "$REPLAY" --root r-text "$1" > out.txt 2> err.txt
		expect_eq "$1, replay, $n threads: exit status" "$?" 2
		expect_eq "$1, replay, $n threads: message" "$(cat err.txt)" "$1:$2: unexpected text in <thread>"
	done
}
big text.xml 12000 '' 'hello'
texted text.xml 12001
# cut short in the middle of a tag
head -c 1500000 good.xml > cut.xml
refused cut.xml 'cut.xml:12009: truncated trace (the document ends before </trace>)' \
	'cut.xml:12009: truncated trace (the document ends before </trace>)'
# a DOCTYPE, before any element
{ head -n 1 good.xml; echo '<!DOCTYPE trace [<!ENTITY e SYSTEM "/etc/passwd">]>'; tail -n +2 good.xml; } > doctype.xml
refused doctype.xml 'doctype.xml:2: a DOCTYPE is not allowed in a trace (entities could read other files)' \
	'doctype.xml:2: a DOCTYPE is not allowed in a trace (entities could read other files)'

# The binary encoding (docs/trace-binary.md) is decoded in a second
# thread too: the same reports, the same lines, in one thread and two.
# Its damage is made by hand (export validates): a value renamed, a cut.
"$ANALYZE" export --format isb -o good.isb good.xml || fail "export good.isb"
[ "$(wc -c < good.isb)" -gt 131072 ] || fail "good.isb is under 128 KiB: not read in two threads"
# exported back: the same XML from either encoding, in one thread and
# two (the parser's thread hands over what raw_flush would give of the
# text: whitespace between elements stays there, an argument of spaces
# or an empty one does not), and the same refusal
"$ANALYZE" export --format xml good.xml > good1.xml
"$ANALYZE" export --format xml good.isb > good2.xml
cmp -s good1.xml good2.xml || fail "good.isb exported: $(diff good1.xml good2.xml | head -5)"
sed 's|<arg>-x</arg>|<arg>  </arg><arg> a \&amp; b </arg><arg></arg>|; s|<command>|<command>\n  <!-- c -->  |' \
	good.xml > args.xml
grep -q '<arg>  </arg>' args.xml || fail "args.xml has no argument of spaces"
"$ANALYZE" export --format isb -o args.isb args.xml || fail "export args.isb"
for f in good.xml good.isb text.xml args.xml args.isb; do
	for n in 1 2; do
		ISLAND_READER_THREADS=$n "$ANALYZE" export --format xml $f > exp$n.xml ||
			fail "export $f in $n threads"
	done
	cmp -s exp1.xml exp2.xml || fail "$f exported in one thread and two: $(diff exp1.xml exp2.xml | head -5)"
done
expect_eq "args exported" "$(grep -A4 '<command>' exp2.xml | sed 's/^ *//')" "<command>
<arg>./app</arg>
<arg>  </arg>
<arg> a &amp; b </arg>
<arg/>"
for f in misplaced.xml notwf.xml; do
	for n in 1 2; do
		ISLAND_READER_THREADS=$n "$ANALYZE" export --format xml $f > /dev/null 2> experr$n.txt &&
			fail "export of $f in $n threads succeeded"
	done
	cmp -s experr1.txt experr2.txt || fail "$f: $(cat experr1.txt experr2.txt)"
done
for n in 1 2; do
	ISLAND_READER_THREADS=$n "$ANALYZE" calls --csv good.isb > callsb.txt || fail "analyze good.isb ($n threads)"
	cmp -s calls1.txt callsb.txt || fail "good.isb, $n threads: other calls: $(diff calls1.txt callsb.txt | head -5)"
done
big late.xml 19000 '        <io api="write" res="filewrite" start="0.1" end="0.1" amount="1" size="1" fd="3"/>'
"$ANALYZE" export --format isb -o late.isb late.xml || fail "export late.isb"
LC_ALL=C sed 's/filewrite/filewritx/' late.isb > badres.isb
refused badres.isb 'badres.isb:19001: <io> has unknown res="filewritx"' \
	'badres.isb:19001: <io> has unknown res="filewritx"'
head -c 200000 good.isb > cut.isb
for n in 1 2; do
	ISLAND_READER_THREADS=$n "$ANALYZE" sums cut.isb > out.txt 2> err.txt
	expect_eq "cut.isb, $n threads: exit status" "$?" 2
	echo "$n $(cat err.txt)" >> cut.txt
done
expect_eq "cut.isb: one message" "$(cut -d' ' -f2- cut.txt | sort -u | wc -l)" 1
grep -q '^1 cut.isb:[0-9]*: truncated trace (the stream ends before its end mark)$' cut.txt ||
	fail "cut.isb: $(cat cut.txt)"
"$ANALYZE" export --format isb -o text.isb text.xml || fail "export text.isb"
texted text.isb 12000

# gzip of 64 KiB or more is decoded ahead by a thread of its own
# (common/zstdio.c): its times varied, so that it compresses no smaller
# (index, not a regular expression: mawk took 25 s a file for that)
noisy() {
	awk -v pat='start="0.100000000" end="0.100000000"' '{ k = index($0, pat)
		if (k) { n++; t = sprintf("0.1%08d", (n * 7919) % 100000)
			$0 = substr($0, 1, k - 1) "start=\"" t "\" end=\"" t "\"" substr($0, k + length(pat)) }
		print }' "$1" | gzip -c > "$2"
	[ "$(wc -c < "$2")" -gt 65536 ] || fail "$2 is under 64 KiB: not decoded ahead"
}
noisy good.xml noisy.xml.gz
noisy misplaced.xml noisymis.xml.gz
head -c 100000 noisy.xml.gz > noisycut.xml.gz

# trace_read_try() (the capture's --discover): refused, refused, read;
# no parsing thread, decoding thread nor file left behind
san=$(ldd "$CAPTURE" | grep -q libasan && echo "-fsanitize=address,undefined")
cc $san -I"$ISLAND_ROOT/include" -o tracetry "$ISLAND_ROOT/tests/e2e/tracetry.c" \
	"$ISLAND_ROOT/build/libisland-trace.a" "$ISLAND_ROOT/build/common/util.o" \
	"$ISLAND_ROOT/build/common/zstdio.o" $(pkg-config --libs libxml-2.0 libzstd) -lz -lpthread ||
	fail "cc against the trace library failed"
./tracetry misplaced.xml notwf.xml badres.isb cut.isb noisymis.xml.gz noisycut.xml.gz \
	good.xml good.isb noisy.xml.gz > try.txt 2> try.err
expect_eq "tracetry" "$(cat try.txt)" "misplaced.xml: refused
notwf.xml: refused
badres.isb: refused
cut.isb: refused
noisymis.xml.gz: refused
noisycut.xml.gz: refused
good.xml: 60012 io
good.isb: 60012 io
noisy.xml.gz: 60012 io
threads 1 fds 0"
expect_eq "tracetry messages" "$(sed 's/^cut.isb:[0-9]*:/cut.isb:N:/; s/^noisycut.xml.gz:[0-9]*:/noisycut.xml.gz:N:/' try.err)" 'misplaced.xml:100: <node> is misplaced (inside <thread>)
notwf.xml:15000: not well-formed XML: AttValue: " or '"'"' expected
badres.isb:19001: <io> has unknown res="filewritx"
cut.isb:N: truncated trace (the stream ends before its end mark)
noisymis.xml.gz:100: <node> is misplaced (inside <thread>)
noisycut.xml.gz:N: truncated or corrupt gzip data: the stream ends inside a member'
exit 0
