# The docs match the code: every column of every report (island-analyze
# --list-columns, the declarations the reports print with) is described in
# its report's section of docs/island-analyze.md, and every option of each
# tool (its --help, printed from the table its parsing uses) in
# docs/island-TOOL.md and in its man page, every report in the man page;
# column names are safe identifiers (a DataFrame attribute, an SQL column);
# every call of trace/calls.def is in docs/trace-format.md's list, and no other.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
"$ANALYZE" --list-columns > cols || fail "--list-columns"
for tool in capture replay analyze; do
	"$ISLAND_ROOT/bin/island-$tool" --help > help-$tool || fail "island-$tool --help"
done
python3 - "$ISLAND_ROOT" <<'PY' || fail "the docs do not match the code (above)"
import re, sys
root = sys.argv[1]
bad = []
doc = open(root + "/docs/island-analyze.md").read()
# "### REPORT ..." sections, up to the next heading
sections = {}
for m in re.finditer(r"^### (\S+)[^\n]*\n(.*?)(?=^#)", doc + "\n#", re.M | re.S):
    sections[m.group(1)] = m.group(2)
cols = [l.split() for l in open("cols")]
if len(cols) < 100:
    bad.append("--list-columns: only %d columns" % len(cols))
tables = {}
for c in cols:
    tables.setdefault(c[0], set()).add(c[1])
for c in cols:
    report, table, col, per = c[0], c[1], c[2], len(c) > 4 and c[4] == "per"
    sec = sections.get(report)
    if sec is None:
        bad.append("docs/island-analyze.md: no section '### %s'" % report)
        continue
    if "`%s`" % col not in sec:
        bad.append("docs/island-analyze.md: %s: column %s.%s is not described" % (report, table, col))
    if len(tables[report]) > 1 and "`%s`" % table not in sec:
        bad.append("docs/island-analyze.md: %s: table %s is not named" % (report, table))
    if not re.fullmatch(r"[A-Z]+" if per else r"[A-Za-z_][A-Za-z0-9_]*", col):
        bad.append("%s: column '%s' is not a %s" % (report, col, "placeholder" if per else "safe identifier"))
help_a = open("help-analyze").read()
reports = re.search(r"^Reports:\n(.*?)\n\n", help_a, re.M | re.S).group(1).split("\n")
reports = [r.split()[0] for r in reports]
if len(reports) < 13:
    bad.append("reports: %s" % reports)
man_a = open(root + "/man/island-analyze.1").read()
for r in reports:
    if r not in sections:
        bad.append("docs/island-analyze.md: no section '### %s'" % r)
    if not re.search(r"^\.It Cm %s$" % re.escape(r), man_a, re.M):
        bad.append("man/island-analyze.1: report %s is not listed" % r)
for tool in ("capture", "replay", "analyze"):
    # the options' own lines: "  -o, --output FILE  ..." or "      --csv  ..."
    opts = sorted(set(re.findall(r"^ +(?:-[A-Za-z],? +)?(--[a-z][a-z0-9-]*)",
                                 open("help-" + tool).read(), re.M)))
    if len(opts) < 8:
        bad.append("island-%s --help: options not found" % tool)
    md = open("%s/docs/island-%s.md" % (root, tool)).read()
    man = open("%s/man/island-%s.1" % (root, tool)).read()
    for o in opts:
        if not re.search(r"`[^`\n]*%s(?![a-z0-9-])" % re.escape(o), md):
            bad.append("docs/island-%s.md: option %s is not described" % (tool, o))
        if not re.search(r"^\.It Fl (?:[a-zA-Z] , Fl )?\\?-%s(?: |$)" % re.escape(o[2:]), man, re.M):
            bad.append("man/island-%s.1: option %s is not described" % (tool, o))
# the calls: docs/trace-format.md's list is trace/calls.def's table
rows = set(re.findall(r'^CALL\(\w+,\s*"([^"]+)",\s*(\w+)', open(root + "/trace/calls.def").read(), re.M))
rows = {(a, r.lower()) for a, r in rows}
fmt = open(root + "/docs/trace-format.md").read()
m = re.search(r"^#### The calls\n(.*?)(?=^#)", fmt + "\n#", re.M | re.S)
listed = set(re.findall(r"^\| `([^`]+)` \| `([a-z]+)` \|$", m.group(1), re.M)) if m else set()
if len(rows) < 100:
    bad.append("trace/calls.def: only %d calls" % len(rows))
for a, r in sorted(rows - listed):
    bad.append("docs/trace-format.md: call %s (%s) is not in its list of calls" % (a, r))
for a, r in sorted(listed - rows):
    bad.append("docs/trace-format.md: call %s (%s) is listed but not in trace/calls.def" % (a, r))
print(*bad, sep="\n")
print("%d columns of %d reports, %d calls, %d checks failed" % (len(cols), len(tables), len(rows), len(bad)))
sys.exit(1 if bad else 0)
PY
exit 0
