#!/bin/sh
# report -o FILE.html on a 4-node trace (pseudosync under the cluster
# runner, --discover: the nodes' waits), with its replay's fidelity report:
# rendered by headless Chromium into a screenshot that is not blank; every
# section there; no http:// or https:// anywhere; its numbers those of
# the CSV reports (summary, consumption per node, heatmap per node,
# files, calls, deps, the replay report's). And a --profile trace's page
# has its top functions.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
CHROMIUM=$(command -v chromium || command -v chromium-browser) || { echo "chromium not installed"; exit 77; }
[ -x "$APPS/pseudosync" ] || { echo "tests/apps not built"; exit 77; }
export HOME="$PWD"
pseudo_cluster pseudosync 4 20 > c.cluster.xml
"$CAPTURE" --cluster c.cluster.xml --discover -o run.xml 2> cap.err || { cat cap.err; fail "capture"; }
"$REPLAY" -q --report rep.xml run.xml || fail "replay"
"$ANALYZE" report -o run.html --replay rep.xml run.xml 2> rep.err || { cat rep.err; fail "report"; }
for r in summary consumption heatmap files calls access deps; do
	"$ANALYZE" $r --csv run.xml > $r.csv 2> /dev/null || fail "$r --csv"
done
"$ANALYZE" deps --csv --table critical run.xml > critical.csv 2> /dev/null || fail "deps --table critical"

# no reference out of the page
grep -n 'https\?://' run.html && fail "run.html names a URL (above)"

# rendered: a screenshot much unlike a blank page's
shot() { # HTML PNG
	"$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$(mktemp -d "$PWD/chr.XXXXXX")" --screenshot="$2" \
		--window-size=1200,3000 "file://$PWD/$1" > /dev/null 2>&1
	[ -s "$2" ] || fail "chromium wrote no $2"
}
echo '<!DOCTYPE html><html><body></body></html>' > blank.html
shot run.html run.png
shot blank.html blank.png
python3 - run.png blank.png <<'PY' || fail "the screenshot is blank"
import struct, sys, zlib
def ink(path):
    # the share of pixels that are not white, from the PNG's rows
    d = open(path, "rb").read()
    assert d[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, w, h, ct = 8, b"", 0, 0, 0
    while pos < len(d):
        n, kind = struct.unpack(">I4s", d[pos:pos + 8])
        body = d[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ct = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    bpp = {2: 3, 6: 4}[ct]
    raw, stride = zlib.decompress(idat), w * bpp
    prev, dark, i = bytearray(stride), 0, 0
    for y in range(h):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b, c = prev[x], prev[x - bpp] if x >= bpp else 0
            if f == 1: line[x] = (line[x] + a) & 255
            elif f == 2: line[x] = (line[x] + b) & 255
            elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        dark += sum(1 for x in range(0, stride, bpp) if min(line[x:x + 3]) < 200)
        prev = line
    return dark / (w * h)
page, blank = ink(sys.argv[1]), ink(sys.argv[2])
print("ink: page %.4f, blank %.4f" % (page, blank))
sys.exit(0 if page > 0.01 and blank < 0.001 else 1)
PY

# the sections, and the page's tables against the CSV reports
# check.py HTML DIR [REPLAY]: the page's tables against DIR/REPORT.csv
cat > check.py <<'PY'
import csv, sys, html.parser, collections
import xml.etree.ElementTree as ET
class P(html.parser.HTMLParser):
    def __init__(s):
        super().__init__(); s.ids = set(); s.tables = {}; s.cur = None; s.row = None; s.cell = None
    def handle_starttag(s, tag, a):
        a = dict(a)
        if "id" in a: s.ids.add(a["id"])
        if tag == "table": s.cur = s.tables.setdefault(a.get("id"), [])
        elif tag == "tr" and s.cur is not None: s.row = []
        elif tag in ("td", "th") and s.row is not None: s.cell = ""
    def handle_endtag(s, tag):
        if tag in ("td", "th") and s.cell is not None: s.row.append(s.cell); s.cell = None
        elif tag == "tr" and s.row is not None: s.cur.append(s.row); s.row = None
        elif tag == "table": s.cur = None
    def handle_data(s, d):
        if s.cell is not None: s.cell += d
p = P(); p.feed(open(sys.argv[1]).read())
bad = []
for i in "run time heatmap files calls access deps critical profile replay".split():
    if i not in p.ids: bad.append("no section " + i)
whole = len(sys.argv) > 3
def rows(name): return list(csv.reader(open(sys.argv[2] + "/" + name + ".csv")))
def same(tid, name, key=None):
    page = p.tables.get(tid)
    if not page: bad.append("no table " + tid); return
    ref = rows(name)
    # the page's columns, some of the report's (access), in its order
    if any(c not in ref[0] for c in page[0]) or [c for c in ref[0] if c in page[0]] != page[0]:
        bad.append("%s header %s, not of %s" % (tid, page[0], ref[0])); return
    idx = [ref[0].index(c) for c in page[0]]
    refset = set(tuple(r[i] for i in idx) for r in ref[1:])
    for r in page[1:]:
        if tuple(r) not in refset: bad.append("%s: row %s not in %s --csv" % (tid, r, name))
    if key and len(page) - 1 != min(len(ref) - 1, key): bad.append("%s: %d rows" % (tid, len(page) - 1))
same("summary", "summary", 100)
same("files-table", "files", 25)
same("calls-table", "calls", 25)
same("access-table", "access", 25)
if whole:
    same("deps-table", "deps", 200)
    same("critical-table", "critical", 10000)
    crit = rows("critical")[1:]
    if len(crit) < 2 or crit[0][5] != "" or any(float(a[2]) > float(b[1]) + 1e-6 for a, b in zip(crit, crit[1:])):
        bad.append("critical path: %s" % crit)
# consumption: per node, its threads' rows added up (microseconds)
cons = collections.defaultdict(int)
for r in rows("consumption")[1:]:
    if r[0] != "ALL": cons[(r[0], r[3])] += round(float(r[4]) * 1e6)
t = p.tables["time-table"]
for r in t[1:]:
    for cat, v in zip(t[0][1:], r[1:]):
        if round(float(v) * 1e6) != cons[(r[0], cat)]: bad.append("time %s %s: %s" % (r[0], cat, v))
if whole and len(t) != 5: bad.append("time-table: %d nodes" % (len(t) - 1))
# heatmap: per node, its bins added up
heat = collections.defaultdict(lambda: [0, 0, 0, 0])
for r in rows("heatmap")[1:]:
    for k in range(4): heat[r[0]][k] += int(r[4 + k])
for r in p.tables["heat-table"][1:]:
    if list(map(int, r[1:])) != heat[r[0]]: bad.append("heatmap %s: %s, want %s" % (r[0], r[1:], heat[r[0]]))
if not any(v[1] + v[3] for v in heat.values()): bad.append("heatmap: no bytes")
if not whole:
    print(*bad, sep="\n")
    print("%s: %d tables, %d checks failed" % (sys.argv[1], len(p.tables), len(bad)))
    sys.exit(1 if bad else 0)
# the replay's durations
rep = {n.get("name"): n for n in ET.parse(sys.argv[3]).getroot().iter("node")}
for r in p.tables["replay-table"][1:]:
    if r[0] == "run": continue
    n = rep[r[0]]
    if abs(float(r[1]) - float(n.get("original"))) > 1e-9 or abs(float(r[2]) - float(n.get("replayed"))) > 1e-9:
        bad.append("replay %s: %s" % (r[0], r))
if len(p.tables["replay-table"]) != 6: bad.append("replay-table rows")
if len(p.tables["deps-table"]) < 2: bad.append("no waits on the page")
# the command each node ran: pseudosync NODE INDEX ...
for r in p.tables["nodes"][1:]:
    if not r[2].endswith("/pseudosync %s %s 4 127.0.0.1" % (r[0], r[0][1:])) and \
       " %s %s 4 " % (r[0], r[0][1:]) not in r[2]:
        bad.append("command of %s: %s" % (r[0], r[2]))
print(*bad, sep="\n")
print("%s: %d tables, %d checks failed" % (sys.argv[1], len(p.tables), len(bad)))
sys.exit(1 if bad else 0)
PY
python3 check.py run.html . rep.xml || fail "the page and the reports differ (above)"
# the binary encoding's page: the same commands (the reader's, either
# encoding; regression: a binary trace's page showed none)
"$ANALYZE" export --format isb -o run.isb.zst run.xml || fail "export to isb"
"$ANALYZE" report -o bin.html run.isb.zst 2> /dev/null || fail "report of the binary trace"
cmds() { grep -o '<tr><td>n[0-9]</td><td>[^<]*</td><td class="cmd">[^<]*' "$1"; }
[ -n "$(cmds run.html)" ] || fail "no commands on the page"
expect_eq "the binary trace's commands" "$(cmds bin.html)" "$(cmds run.html)"
expect_eq "the binary trace's title" "$(grep -o '<title>island report: [^<]*' bin.html)" \
	"$(grep -o '<title>island report: [^<]*' run.html)"
# the same under filters: a window and a path (the reports of time take
# every call, the others the selected ones, in the one reading)
mkdir w
for r in summary consumption heatmap files calls access; do
	"$ANALYZE" $r --csv --from 0.2 --to 0.5 --path '*data*' run.xml > w/$r.csv 2> /dev/null || fail "$r --csv filtered"
done
"$ANALYZE" report -o w.html --from 0.2 --to 0.5 --path '*data*' run.xml 2> /dev/null || fail "report filtered"
python3 check.py w.html w || fail "the filtered page and the reports differ (above)"

# the filters, as in every report: --node n1 and a window
"$ANALYZE" report -o n1.html --node n1 --from 0.1 --to 0.4 run.xml 2> /dev/null || fail "report --node --from --to"
"$ANALYZE" files --csv --node n1 --from 0.1 --to 0.4 run.xml > n1files.csv 2> /dev/null || fail "files --node"
expect_eq "nodes of --node n1" "$(grep -o '<tr><td>n[0-9]</td><td>[^<]*</td><td class="cmd">' n1.html | cut -c9-10 | sort -u | tr '\n' ' ')" "n1 "
expect_eq "heatmap rows of --node n1" "$(sed -n '/id="heat-table"/,/<\/table>/p' n1.html | grep -c '^<tr><td>')" 1
for p in $(tail -n +2 n1files.csv | cut -d, -f2); do
	grep -q "<td>$p</td>" n1.html || fail "--node n1: $p not on the page"
done
grep -q '<td>n0</td><td>/' n1.html && fail "--node n1: a file of n0 on the page"

# a profile's page: its top functions, those of profile inclusive
if [ -x "$APPS/profiled" ]; then
	"$CAPTURE" --profile=cpu -n p1 -o p.xml -- "$APPS/profiled" > /dev/null || fail "capture --profile"
	"$ANALYZE" report -o p.html p.xml 2> /dev/null || fail "report of a profile"
	"$ANALYZE" profile inclusive --csv p.xml > incl.csv 2> /dev/null || fail "profile inclusive"
	top=$(sed -n 2p incl.csv | cut -d, -f1)
	grep -q "<table class=\"sort\" id=\"profile-table\">" p.html || fail "no profile table"
	grep -q "<tr><td>$top</td>" p.html || fail "the top function $top is not on the page"
fi
# many nodes (bench/report.sh has 64 x 1,000,000 events): 16 generated
# nodes of 12,500 events, the page in bounded memory and time
# (make test-run builds the generator: missing, the check is failed, not
# passed over)
GEN="$ISLAND_ROOT/build/bench/analyze-gen"
[ -x "$GEN" ] || fail "no $GEN (make test-run builds it): the page of many nodes not checked"
if [ -x /usr/bin/time ]; then
	i=0
	while [ $i -lt 16 ]; do "$GEN" 12500 4 "g$i" > "g$i.xml" || fail "analyze-gen"; i=$((i + 1)); done
	/usr/bin/time -f '%e %M' -o time "$ANALYZE" report -o many.html g*.xml 2> /dev/null ||
		fail "the page of 16 nodes"
	read -r secs kb < time
	echo "16 nodes, 200000 events: $secs s, $kb KiB"
	# the bounds are the plain build's: ASan's shadow, redzones and
	# quarantine of freed blocks (101 MiB here) are not the page's
	if asan_built "$ANALYZE"; then
		echo "16 nodes: not checked: island-analyze is built with ASAN=1 (the plain build is checked)"
	else
		[ "$kb" -lt 65536 ] || fail "the page of 16 nodes took $kb KiB"
		[ "$(echo "$secs < 10" | bc)" = 1 ] || fail "the page of 16 nodes took $secs s"
	fi
	expect_eq "nodes on the page" "$(grep -c '^<tr><td>g[0-9]*</td><td>g' many.html)" 16
else
	echo "no /usr/bin/time: the page of many nodes not measured"
fi
exit 0
