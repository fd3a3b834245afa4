#!/bin/sh
# report: every string from a trace is text on the page. A trace whose
# node name, host, command, file names, executable, incomplete
# process's reason and a failed call's path hold <script>, an event
# handler, quotes, & and control characters, opened in headless Chromium:
# no script of the trace ran (each would change the page's title), the
# strings are in the page as text (the DOM Chromium built), control
# characters shown as \xNN.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
CHROMIUM=$(command -v chromium || command -v chromium-browser) || { echo "chromium not installed"; exit 77; }
S='&lt;script&gt;document.title=&quot;pwned&quot;&lt;/script&gt;'
I='&quot;&gt;&lt;img src=x onerror=&quot;document.title=&apos;pwned2&apos;&quot;&gt;'
cat > evil.xml <<XML
<?xml version="1.0" encoding="UTF-8"?>
<trace version="1" generator="hand" complete="false">
  <node name="n$S" host="h$I&amp;amp;" epoch="1000.000000000" start="0.000000000" end="1.000000000" clock="monotonic">
    <command><arg>$S</arg><arg>a&amp;b</arg></command>
    <process pid="10" ppid="1" exe="/bin/$S" cwd="/" start="0.000000000" end="1.000000000" status="signal:SIGKILL" complete="false" reason="killed $I">
      <thread tid="10" name="t$S" start="0.000000000" end="1.000000000" cpu="0.100000000" exit="process" complete="true">
        <compute dur="0.100000000"/>
        <io api="write" res="filewrite" start="0.100000000" end="0.200000000" amount="100" size="100" fd="3" path="/d/$S&#9;tab&#10;nl &amp; more"/>
        <compute dur="0.100000000"/>
        <io api="read" res="fileread" start="0.300000000" end="0.400000000" amount="7" size="7" fd="4" path="/d/$I"/>
        <compute dur="0.600000000"/>
      </thread>
    </process>
    <files>
      <file path="/d/$S&#9;tab&#10;nl &amp; more" opens="0" reads="0" bytes_read="0" writes="1" bytes_written="100" open_at_end="1"/>
      <file path="/d/$I" opens="0" reads="1" bytes_read="7" writes="0" bytes_written="0" open_at_end="1"/>
    </files>
    <sockets/>
  </node>
</trace>
XML
"$ANALYZE" summary evil.xml > /dev/null 2>&1 || fail "the crafted trace does not read"
"$ANALYZE" report -o evil.html evil.xml 2> err || { cat err; fail "report"; }
# the page holds the strings escaped, none raw
grep -q '<script>document.title' evil.html && fail "a raw <script> from the trace"
grep -q '<img src' evil.html && fail "a raw <img> from the trace"
grep -q '&lt;script&gt;document.title=&quot;pwned&quot;&lt;/script&gt;' evil.html || fail "the escaped <script> is not there"
grep -q '\\x09tab\\x0anl &amp; more' evil.html || fail "control characters are not shown as \\xNN"
expect_eq "scripts" "$(grep -o '<script' evil.html | wc -l)" 1
"$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync \
	--user-data-dir="$(mktemp -d "$PWD/chr.XXXXXX")" --virtual-time-budget=2000 \
	--dump-dom "file://$PWD/evil.html" > dom.html 2> chr.err
[ -s dom.html ] || { cat chr.err; fail "chromium dumped no DOM"; }
title=$(sed -n 's:.*<title>\(.*\)</title>.*:\1:p' dom.html | head -1)
# a script of the trace would have set it to pwned or pwned2
expect_eq "title" "$title" 'island report: &lt;script&gt;document.title="pwned"&lt;/script&gt; a&amp;b'

grep -q 'pwned' dom.html || fail "the strings are not on the page"
grep -q '<img' dom.html && fail "an <img> element was made from the trace"
# the node name, the file name and the reason are on the page, as text
python3 - dom.html <<'PY' || fail "the strings are not the page's text (above)"
import html.parser, sys
class P(html.parser.HTMLParser):
    def __init__(s): super().__init__(); s.text = []; s.tags = []
    def handle_starttag(s, t, a): s.tags.append(t)
    def handle_data(s, d): s.text.append(d)
p = P(); p.feed(open(sys.argv[1]).read())
text = "".join(p.text)
want = ['n<script>document.title="pwned"</script>',
        '/d/<script>document.title="pwned"</script>\\x09tab\\x0anl & more',
        'killed "><img src=x onerror="document.title=\'pwned2\'">',
        'h"><img src=x onerror="document.title=\'pwned2\'">&amp;',
        '<script>document.title="pwned"</script> a&b']
bad = [w for w in want if w not in text]
print(*("missing as text: " + w for w in bad), sep="\n")
if p.tags.count("script") != 1: print("scripts:", p.tags.count("script")); bad.append(1)
sys.exit(1 if bad else 0)
PY
exit 0
