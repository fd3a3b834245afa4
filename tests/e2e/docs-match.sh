# The docs match the code: every column of every report (island-analyze
# --list-columns, the declarations the reports print with) is described in
# its report's section of docs/island-analyze.md, and every option of each
# tool (its --help, printed from the table its parsing uses) in
# docs/island-TOOL.md and in its man page; column names are safe
# identifiers (a DataFrame attribute, an SQL column).
. "$ISLAND_ROOT/tests/e2e/lib.sh"
D="$ISLAND_ROOT/docs"
M="$ISLAND_ROOT/man"
# section REPORT: the lines of docs/island-analyze.md under "### REPORT"
section() {
	awk -v r="$1" '/^##/ { on = ($0 ~ "^### " r "( |$)") } on' "$D/island-analyze.md"
}
"$ANALYZE" --list-columns > cols || fail "--list-columns"
[ "$(wc -l < cols)" -gt 100 ] || fail "--list-columns: only $(wc -l < cols) columns"
missing=0
while read -r report table col kind per; do
	section "$report" > sec
	[ -s sec ] || { echo "docs/island-analyze.md: no section '### $report'"; missing=1; continue; }
	grep -qF "\`$col\`" sec || { echo "docs/island-analyze.md: $report: column $table.$col is not described"; missing=1; }
	if [ -n "$per" ]; then
		echo "$col" | grep -qE '^[A-Z]+$' || { echo "$report: placeholder '$col' is not upper case"; missing=1; }
	else
		echo "$col" | grep -qE '^[A-Za-z_][A-Za-z0-9_]*$' || { echo "$report: column '$col' is not a safe identifier"; missing=1; }
	fi
	# a report of several tables names each in its section
	if [ "$(awk -v r="$report" '$1 == r { print $2 }' cols | sort -u | wc -l)" -gt 1 ]; then
		grep -qF "\`$table\`" sec || { echo "docs/island-analyze.md: $report: table $table is not named"; missing=1; }
	fi
done < cols
# every report has its section and its man page entry
"$ANALYZE" --help | awk '/^Reports:/ { on = 1; next } /^$/ { on = 0 } on { print $1 }' > reports
[ "$(wc -l < reports)" -ge 13 ] || fail "reports: $(cat reports)"
while read -r r; do
	[ -n "$(section "$r")" ] || { echo "docs/island-analyze.md: no section '### $r'"; missing=1; }
	grep -q "^\.It Cm $r\b" "$M/island-analyze.1" || { echo "man/island-analyze.1: report $r is not listed"; missing=1; }
done < reports
# every option of every tool, in its doc page and its man page
for tool in capture replay analyze; do
	# the options' own lines: "  -o, --output FILE  ..." or "      --csv  ..."
	"$ISLAND_ROOT/bin/island-$tool" --help | sed -nE 's/^ +(-[A-Za-z],? +)?(--[a-z][a-z0-9-]*).*/\2/p' | sort -u > opts
	[ "$(wc -l < opts)" -ge 8 ] || fail "island-$tool --help: options not found"
	while read -r o; do
		grep -qE -- "\`[^\`]*$o([^a-z0-9-]|\$)" "$D/island-$tool.md" ||
			{ echo "docs/island-$tool.md: option $o is not described"; missing=1; }
		grep -qE "^\.It Fl ([a-zA-Z] , Fl )?\\\\?-${o#--}( |$)" "$M/island-$tool.1" ||
			{ echo "man/island-$tool.1: option $o is not described"; missing=1; }
	done < opts
done
[ "$missing" = 0 ] || fail "the docs do not match the code (above)"
exit 0
