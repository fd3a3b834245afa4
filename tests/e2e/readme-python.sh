# The README's pandas example runs and prints what the README shows: the
# fenced block after "<!-- readme-python" is the script, the next one its
# output.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
awk '/^<!-- readme-python/ { on = 1; next }
     on && /^```/ { n++; if (n == 4) exit; f = (n == 1 ? "script.sh" : "want.txt"); next }
     on && (n == 1 || n == 3) { print > f }' "$ISLAND_ROOT/README.md"
[ -s script.sh ] && [ -s want.txt ] || fail "no readme-python example in README.md"
# the python3 that has pandas (Debian's python3-pandas; another python3 may
# come first on PATH)
mkdir py
for p in $(command -v python3) /usr/bin/python3; do
	"$p" -c 'import pandas' 2>/dev/null && { ln -s "$p" py/python3; break; }
done
[ -e py/python3 ] || fail "no python3 with pandas (python3-pandas)"
ln -s "$ISLAND_ROOT/tests" tests
PATH="$PWD/py:$ISLAND_ROOT/bin:$PATH" sh script.sh > got.txt 2>&1 || { cat got.txt; fail "the README's example failed"; }
diff -u want.txt got.txt || fail "the README's example prints otherwise"
exit 0
