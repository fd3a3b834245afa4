# The Python reader (python/island): the same events as island-analyze, the
# same refusals, and DataFrames with pandas.
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
expect_eq "version" "$(cat v2.xml.err)" "v2.xml:2: trace version 2 is not supported (this reader knows 1)"
grep -q '^cut.xml:[0-9]*: truncated trace' cut.xml.err || fail "cut: $(cat cut.xml.err)"
expect_eq "not a trace" "$(cat page.xml.err)" "page.xml:1: not an Island trace (root <html>)"
expect_eq "missing" "$(cat missing.xml.err)" "missing.xml:0: cannot read: No such file or directory"

# DataFrames, and the example script of docs/
if $PY -c 'import pandas' 2>/dev/null; then
	$PY "$ISLAND_ROOT/docs/python-example.py" c.xml > ex.out || fail "example: $(cat ex.out)"
	expect_eq "example: writes" "$(awk '$1 == "write" { print $2 }' ex.out)" 1000
	"$CAPTURE" -n n2 -o a.xml -- "$APPS/access" x.dat
	$PY -c 'import island
f = island.load("c.xml", "a.xml")
print(len(f["nodes"]), sorted(f["events"]["node"].unique()), len(f["threads"]))' > df.out
	expect_eq "two nodes" "$(cat df.out)" "2 ['n1', 'n2'] 2"
else
	echo "pandas not installed: DataFrames not checked"
fi
echo ok
