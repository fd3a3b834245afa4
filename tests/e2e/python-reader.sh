# The Python reader (python/island, over lib/libisland-trace.so): the same
# events as island-analyze, the same refusals, and DataFrames with pandas.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
export PYTHONPATH="$ISLAND_ROOT/python"
PY=python3
/usr/bin/python3 -c 'import pandas' 2>/dev/null && PY=/usr/bin/python3

"$CAPTURE" -n n1 -o c.xml -- "$APPS/callmix"
gzip -c c.xml > c.xml.gz
# per-call counts, streamed, against the analyzer's
$PY -c 'import collections, sys, island
n = collections.Counter(e["api"] for e in island.events(sys.argv[1]) if e["kind"] == "io")
for k in sorted(n): print(k, n[k])' c.xml.gz > py.out
"$ANALYZE" calls --csv c.xml | awk -F, 'NR > 1 { print $1, $2 }' | sort > an.out
cmp -s py.out an.out || fail "python and island-analyze disagree: $(diff py.out an.out)"

# bad input: version, truncation, not a trace
sed 's/<trace version="1"/<trace version="2"/' c.xml > v2.xml
head -c 2000 c.xml > cut.xml
echo '<html/>' > page.xml
for f in v2.xml cut.xml page.xml missing.xml; do
	$PY -c 'import sys, island
try:
    list(island.events(sys.argv[1]))
except island.TraceError as e:
    print(e); sys.exit(2)' "$f" > "$f.err" 2>&1 && fail "$f accepted"
done
expect_eq "version" "$(cat v2.xml.err)" "v2.xml:2: trace version 2 is newer than this Island reads (1)"
grep -q '^cut.xml:[0-9]*: truncated trace' cut.xml.err || fail "cut: $(cat cut.xml.err)"
expect_eq "not a trace" "$(cat page.xml.err)" "page.xml:1: not an Island trace (root element <html>, expected <trace>)"
expect_eq "missing" "$(cat missing.xml.err)" "missing.xml: cannot read: No such file or directory"
# the words of the tools' own reader: Python reads through it
for f in v2.xml cut.xml page.xml missing.xml; do
	"$ANALYZE" calls "$f" > /dev/null 2> "$f.an" && fail "island-analyze accepted $f"
	expect_eq "$f: python's and island-analyze's refusal" "$(cat "$f.err")" "$(cat "$f.an")"
done

# a stream left early stops the library's reading (no hang, no leak of
# the reading into the next), in batches of few events too; the library
# also gives each event its thread's name and executable
$PY -c 'import sys, island, island.reader as r
from island._trace import LOAD_CONTEXT
r.BATCH = 7
g = island.events(sys.argv[1]); first = next(g); g.close()
n = sum(1 for e in island.events(sys.argv[1]) if e["kind"] == "io")
with r._Loader([sys.argv[1]], 0, LOAD_CONTEXT) as l:
    ctx = {(e["thread"], e["exe"].rsplit("/", 1)[-1]) for t in l.batches() for e in r._records(l, "events", t)}
print(first["kind"], n, sorted(ctx))' c.xml > early.out || fail "early stop: $(cat early.out)"
expect_eq "early stop, then all, and the context" "$(cat early.out)" \
	"compute $(grep -c '<io ' c.xml) [('callmix', 'callmix')]"

# DataFrames, and the example script of docs/
if $PY -c 'import pandas' 2>/dev/null; then
	$PY "$ISLAND_ROOT/docs/python-example.py" c.xml > ex.out || fail "example: $(cat ex.out)"
	expect_eq "example: writes" "$(awk '$1 == "write" { print $2 }' ex.out)" 1000
	"$CAPTURE" -n n2 -o a.xml -- "$APPS/access" x.dat
	$PY -c 'import island
f = island.load("c.xml", "a.xml")
print(len(f["nodes"]), sorted(f["events"]["node"].unique()), len(f["threads"]))' > df.out
	expect_eq "two nodes" "$(cat df.out)" "2 ['n1', 'n2'] 2"
	# events() streamed names each event's thread and program as load()
	# does: a shell that runs cat, then execs ls, is dash, cat and ls
	"$CAPTURE" -n x -o x.xml -- sh -c 'cat /dev/null; exec ls /dev/null' > /dev/null
	$PY -c 'import collections, island
ev = [(e["kind"], e.get("thread"), e.get("exe")) for e in island.events("x.xml")]
f = island.load("x.xml")["events"]
print(ev == list(zip(f["kind"], f["thread"], f["exe"])),
      sorted({e[2].rsplit("/", 1)[-1] for e in ev}))' > who.out || fail "events' context: $(cat who.out)"
	expect_eq "events' thread and exe" "$(cat who.out)" "True ['cat', 'dash', 'ls']"
else
	echo "pandas not installed: DataFrames not checked"
fi
echo ok
