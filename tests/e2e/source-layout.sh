# The tree's names and boundaries, as a newcomer greps them: no tool
# includes a sibling tool's folder (what two tools share lives in trace/
# or common/), no function outside the trace library takes its public
# trace_ prefix, one basename per job and one definition per struct name
# among the tools' sources.
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

# one basename per job
expect_eq "basenames used twice" "$(srcs | xargs -n1 basename | sort | uniq -d | tr '\n' ' ')" ""

# one definition per struct name (a debugger, a grep or a reader would
# take one for the other)
expect_eq "struct names defined twice" "$(grep -rhoE '^(static )?struct [a-z_0-9]+ \{' \
	capture analysis replay trace common include | sed 's/static //' | sort | uniq -d |
	tr '\n' ' ')" ""

exit 0
