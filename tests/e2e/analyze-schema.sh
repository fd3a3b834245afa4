#!/bin/sh
# docs/trace.xsd: every hand-made trace validates, and the schema rejects
# what the format forbids (an unknown res, a negative time, a misplaced
# element), while allowing the reserved elements (restrictions, stops,
# wait, signal, seq on io).
R="$ISLAND_ROOT"
command -v xmllint > /dev/null || { echo "xmllint not installed"; exit 77; }
fail=0
for t in "$R"/tests/traces/*.xml; do
	xmllint --noout --schema "$R/docs/trace.xsd" "$t" 2> err.txt ||
		{ echo "FAIL: $t does not validate"; cat err.txt; fail=1; }
done
# reject NAME SED-EXPRESSION: basic.xml edited so must not validate
reject() {
	sed "$2" "$R/tests/traces/basic.xml" > "$1.xml"
	if xmllint --noout --schema "$R/docs/trace.xsd" "$1.xml" 2> /dev/null; then
		echo "FAIL: $1 validates"; fail=1
	fi
}
reject bad-res 's/res="filemeta"/res="bogus"/'
reject negative-time 's/start="0.300000000"/start="-0.3"/'
reject misplaced 's|<compute dur="0.100000000"/>|<file path="x"/>|'
reject no-version 's/trace version="1"/trace/'
reject version-2 's/trace version="1"/trace version="2"/'
exit $fail
