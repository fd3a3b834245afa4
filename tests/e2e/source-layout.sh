# The tree's names and boundaries, as a newcomer greps them: no tool
# includes a sibling tool's folder (what two tools share lives in trace/
# or common/), no function outside the trace library takes its public
# trace_ prefix, one basename per job and one definition per struct name
# among the tools' sources, and no circle between the tools' files (what
# their built objects call of each other's functions).
. "$ISLAND_ROOT/tests/e2e/lib.sh"
cd "$ISLAND_ROOT" || fail "no tree at $ISLAND_ROOT"
[ -d capture ] && [ -d trace ] || { echo "no source tree here"; exit 77; }

srcs() { find capture analysis replay trace common -name '*.[ch]' -o -name '*.S' -o -name '*.def'; }

# includes that climb out of their tool: capture's subfolders may reach
# capture/ (../), nothing may reach a sibling (../../, or ../ elsewhere)
bad=$(grep -nE '#include "\.\./\.\./' $(find capture -name '*.[ch]') /dev/null
      grep -nE '#include "\.\./' $(find analysis replay trace common -name '*.[ch]') /dev/null)
expect_eq "includes of a sibling tool's folder" "$bad" ""

# definitions of trace_ functions outside trace/ (a line that opens a
# definition: a type, the name, its parameters, no semicolon)
bad=$(find capture analysis replay common -name '*.c' |
      xargs grep -nE '^[a-z][^;=]*[ *]trace_[a-z0-9_]*\([^;]*$' /dev/null)
expect_eq "trace_ functions outside trace/" "$bad" ""

# each folder of the capture offers what it does through one header:
# what files outside it include of its headers is one at most (tests,
# which may test a folder's insides, aside)
bad=$(for d in capture/*/; do
	d=${d%/}
	h=$(grep -hoE "\"$d/[a-z_0-9]+\.h\"" $(find capture analysis replay trace common include \
		\( -name '*.c' -o -name '*.h' \) ! -path "$d/*") /dev/null | sort -u)
	[ "$(echo "$h" | grep -c .)" -le 1 ] || echo "$d:" $h
done)
expect_eq "capture folders offering more than one header" "$bad" ""

# one basename per job
expect_eq "basenames used twice" "$(srcs | xargs -n1 basename | sort | uniq -d | tr '\n' ' ')" ""

# one definition per struct name (a debugger, a grep or a reader would
# take one for the other)
expect_eq "struct names defined twice" "$(grep -rhoE '^(static )?struct [a-z_0-9]+ \{' \
	capture analysis replay trace common include | sed 's/static //' | sort | uniq -d |
	tr '\n' ' ')" ""

# circles: file a uses a function or variable of file b and b one of a,
# directly or through others (Tarjan's components over nm of the tools'
# objects, the interposer's .pic.o among them).
command -v nm > /dev/null && command -v python3 > /dev/null || { echo "no nm or python3"; exit 77; }
[ -f build/replay/run.o ] || { echo "not built"; exit 77; }
circles=$(python3 - "$ISLAND_ROOT" <<'PY'
import collections, glob, os, subprocess, sys
root = sys.argv[1]
objs = {}
for o in glob.glob(os.path.join(root, "build", "**", "*.o"), recursive=True):
    rel = os.path.relpath(o, os.path.join(root, "build"))
    if rel.startswith(("tests/", "pub/", "pic/", "bench/")) or rel.endswith(".ldr.o"):
        continue
    base = rel[:-6] if rel.endswith(".pic.o") else rel[:-2]
    if any(os.path.exists(os.path.join(root, base + e)) for e in (".c", ".S")):
        objs[base] = o
defs, uses = {}, collections.defaultdict(set)
for b, o in objs.items():
    for line in subprocess.run(["nm", o], capture_output=True, text=True, check=True).stdout.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in "TDBR":
            defs.setdefault(f[2], b)
        elif len(f) == 2 and f[0] == "U":
            uses[b].add(f[1])
g = {b: sorted({defs[u] for u in uses[b] if u in defs and defs[u] != b}) for b in objs}
index, low, stack, on, out, n = {}, {}, [], set(), [], [0]
sys.setrecursionlimit(100000)
def visit(v):
    index[v] = low[v] = n[0]; n[0] += 1; stack.append(v); on.add(v)
    for w in g[v]:
        if w not in index:
            visit(w); low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        c = []
        while True:
            w = stack.pop(); on.discard(w); c.append(w)
            if w == v:
                break
        if len(c) > 1:
            out.append(" ".join(sorted(c)))
for v in sorted(objs):
    if v not in index:
        visit(v)
print("; ".join(sorted(out)))
PY
) || fail "the circle check failed"
expect_eq "files of the tools in a circle" "$circles" ""

exit 0
