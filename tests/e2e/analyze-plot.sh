#!/bin/sh
# plot: a well-formed SVG with a lane per thread under a lane per node,
# the node stops, region bars, a time axis; and small for many events:
# 100 threads x 2,000 calls (made here with awk) must give well under
# 2 MB, since sub-pixel calls are aggregated per pixel column.
R="$ISLAND_ROOT"
A="$R/bin/island-analyze"
[ -x "$A" ] || { echo "bin/island-analyze is not built"; exit 77; }
fail=0
"$A" plot -o two.svg "$R/tests/traces/basic.xml" "$R/tests/traces/node2.xml" ||
	{ echo "FAIL: plot"; exit 1; }
if command -v xmllint > /dev/null; then
	xmllint --noout two.svg || { echo "FAIL: two.svg is not well-formed"; fail=1; }
fi
# count LINE-PATTERN EXPECTED: how many lines of two.svg match
count() {
	n=$(grep -c "$1" two.svg)
	[ "$n" -eq "$2" ] || { echo "FAIL: $n lines match '$1', expected $2"; fail=1; }
}
count '<text x="12"' 3					# thread lanes
count 'font-weight="bold">node[12] (stops)' 2		# node lanes
count 'fill="#222222"/>$' 7				# 3 node stops, 4 stopped spans in lanes
count '<title>' 5					# regions
count 'text-anchor="middle">' 16			# ticks 0, 0.2, ... 3

# regions nested 5 deep: one bar per depth, each on a row of its own
awk 'BEGIN {
	print "<?xml version=\"1.0\"?>"
	print "<trace version=\"1\" complete=\"true\">"
	print "<node name=\"deep\" epoch=\"0\" start=\"0\" end=\"10\"><command/><process pid=\"1\">"
	print "<thread tid=\"1\" name=\"t\" start=\"0\" end=\"10\"><compute dur=\"10\"/>"
	for (d = 5; d >= 1; d--)
		printf "<region id=\"%d\" parent=\"%d\" depth=\"%d\" label=\"level%d\" start=\"%d\" end=\"%d\"/>\n", d, d - 1, d, d, d - 1, 11 - d
	print "</thread></process><files/><sockets/></node></trace>"
}' > deep.xml
"$A" plot -o deep.svg deep.xml || { echo "FAIL: plot deep"; exit 1; }
rows=$(grep '<title>level' deep.svg | sed 's/.* y="\([0-9]*\)".*/\1/' | sort -u | wc -l)
[ "$rows" -eq 5 ] || { echo "FAIL: 5 nested regions drawn on $rows rows"; fail=1; }

awk 'BEGIN {
	print "<?xml version=\"1.0\"?>"
	print "<trace version=\"1\" complete=\"true\">"
	print "<node name=\"many\" epoch=\"0\" start=\"0\" end=\"10\"><command/><process pid=\"1\">"
	for (t = 0; t < 100; t++) {
		printf "<thread tid=\"%d\" name=\"t%d\" start=\"0\" end=\"10\">\n", t + 1, t
		for (i = 0; i < 2000; i++) {
			s = i * 0.005
			printf "<compute dur=\"0.002\"/><io api=\"write\" res=\"filewrite\" start=\"%.6f\" end=\"%.6f\" amount=\"1\"/>\n", s + 0.002, s + 0.004 + (t % 2) * 0.001
		}
		print "<compute dur=\"0.001\"/></thread>"
	}
	print "</process><files/><sockets/></node></trace>"
}' > many.xml
"$A" plot --width 1000 -o many.svg many.xml || { echo "FAIL: plot many"; exit 1; }
size=$(wc -c < many.svg)
[ "$size" -lt 2000000 ] || { echo "FAIL: many.svg is $size bytes"; fail=1; }
echo "many.svg: $size bytes for 200000 calls"
exit $fail
