#!/bin/sh
# The binary encoding (docs/trace-binary.md). Every example trace exported
# to it (.isb, .isb.gz, .isb.zst, and to stdout) and back gives the XML
# it came from, which validates; the reports and the Python reader read
# both alike; a capture written straight to it reads as its XML export;
# damaged files get one line from analyze, replay and Python alike
# (Python: the stream's damage; the values are the library's to check).
. "$ISLAND_ROOT/tests/e2e/lib.sh"
export PYTHONPATH="$ISLAND_ROOT/python"
# Debian's, with python3-zstandard (the README's set-up), over another first in PATH
PY=python3
/usr/bin/python3 -c 'import zstandard' 2>/dev/null && PY=/usr/bin/python3
T="$ISLAND_ROOT/tests/traces"

# the warning's file and line differ; the rest must not
norm() { sed -E 's|^[^ ]*:[0-9]+: warning|FILE: warning|'; }
n=0
for t in "$T"/*.xml; do
	b=$(basename "$t" .xml)
	"$ANALYZE" export --format xml "$t" > "$b.xml" || fail "$b: export --format xml"
	check_trace "$b.xml"
	for s in .isb .isb.gz .isb.zst; do
		"$ANALYZE" export --format isb -o "$b$s" "$t" || fail "$b: export to $b$s"
		"$ANALYZE" export --format xml "$b$s" > back.xml || fail "$b$s: export --format xml"
		cmp -s back.xml "$b.xml" || fail "$b$s: back to XML: $(diff "$b.xml" back.xml | head -5)"
	done
	"$ANALYZE" export --format isb "$t" > stdout.isb || fail "$b: export --format isb to stdout"
	cmp -s stdout.isb "$b.isb" || fail "$b: the binary trace on stdout differs from -o's"
	for r in sums summary "files --csv" "calls --csv"; do
		# shellcheck disable=SC2086
		"$ANALYZE" $r "$t" 2>&1 | norm > a.txt
		# shellcheck disable=SC2086
		"$ANALYZE" $r "$b.isb.zst" 2>&1 | norm > b.txt
		cmp -s a.txt b.txt || fail "$b: $r differs: $(diff a.txt b.txt | head -5)"
	done
	n=$((n + 1))
done
[ "$n" -ge 15 ] || fail "only $n example traces"

# the Python reader: the same records and nodes from either
$PY - "$T"/*.xml <<'EOF' || fail "python reader"
import os, sys, island
from island import reader
for t in sys.argv[1:]:
    b = os.path.basename(t)[:-4]
    for s in (".isb", ".isb.gz"):
        if list(island.events(t)) != list(island.events(b + s)):
            sys.exit("%s%s: other events" % (b, s))
        if reader.read_nodes(t) != reader.read_nodes(b + s):
            sys.exit("%s%s: other nodes" % (b, s))
EOF

# A capture written to it: its export validates and has every call; the
# reports agree with the export's. Threads, a child, --callsites.
"$CAPTURE" -n n1 --callsites -o c.isb.zst -- "$APPS/callmix" > /dev/null ||
	fail "capture -o c.isb.zst"
"$ANALYZE" export --format xml -o c.xml c.isb.zst || fail "export of the capture"
check_trace c.xml
[ "$(grep -c '<io ' c.xml)" -gt 20 ] || fail "the capture's export has few calls"
for r in sums "files --csv" "calls --csv" "sites --csv"; do
	# shellcheck disable=SC2086
	"$ANALYZE" $r c.xml > a.txt 2>&1
	# shellcheck disable=SC2086
	"$ANALYZE" $r c.isb.zst > b.txt 2>&1
	cmp -s a.txt b.txt || fail "capture: $r differs: $(diff a.txt b.txt | head -5)"
done
"$CAPTURE" -n n1 -o w.isb -- "$APPS/writes" 2 5000 64 || fail "capture -o w.isb"
expect_eq "5000 writes x 2 threads" "$("$ANALYZE" calls --csv w.isb | grep -c '^write,' || true)" 1
expect_eq "write count" "$("$ANALYZE" calls --csv w.isb | awk -F, '$1 == "write" { print $2 }')" 10000

# The capture gives its calls to the coder whole (no XML between): the
# same spool written as .xml and as .isb.zst holds the same elements.
# --syscalls (levels), --callsites, threads, and a file name XML escapes.
mkdir sp
name=$(printf 'we&ird "n<a>me\tx')
ISLAND_SPOOL_DIR="$PWD/sp" "$CAPTURE" -n n1 --clock monotonic --keep-spool --syscalls \
	--callsites -o k.xml -- sh -c '"$1" 2 50 64; echo x > "$2"; cat "$2"' sh \
	"$APPS/writes" "$name" > /dev/null 2>&1 || fail "capture --keep-spool"
spool=$(ls -d sp/island-spool.*)
for o in r.xml r.isb.zst r.isb; do
	"$CAPTURE" --recover "$spool" -o $o 2> /dev/null || fail "--recover -o $o"
done
"$ANALYZE" export --format xml r.xml > r1.xml
grep -q 'path="[^"]*we&amp;ird &quot;n&lt;a&gt;me&#9;x"' r1.xml || fail "the odd name is not in the trace"
grep -q 'level="libc|kernel"' r1.xml || fail "no --syscalls levels in the trace"
for o in r.isb.zst r.isb; do
	"$ANALYZE" export --format xml $o > r2.xml
	cmp -s r1.xml r2.xml || fail "$o and r.xml differ: $(diff r1.xml r2.xml | head -5)"
done
rm -rf sp

# merge writes it too
"$ANALYZE" merge -o m.isb.zst "$T/peer-sendnode.xml" "$T/peer-recvnode.xml" || fail "merge -o .isb.zst"
"$ANALYZE" merge -o m.xml "$T/peer-sendnode.xml" "$T/peer-recvnode.xml" || fail "merge -o .xml"
"$ANALYZE" export --format xml m.xml > m1.xml
"$ANALYZE" export --format xml m.isb.zst > m2.xml
cmp -s m1.xml m2.xml || fail "merge: .isb.zst and .xml differ: $(diff m1.xml m2.xml | head -5)"

# a cluster's run discovered straight into it: its dependencies as its
# XML export's, and it replays
pseudo_cluster pseudosync > ps.cluster.xml
"$CAPTURE" --cluster ps.cluster.xml --discover -o run.isb.zst 2> cl.err ||
	{ tail -3 cl.err; fail "--cluster --discover -o run.isb.zst"; }
"$ANALYZE" export --format xml -o run.xml run.isb.zst || fail "export of the run"
check_trace run.xml
"$ANALYZE" deps --csv run.isb.zst > d1.csv && "$ANALYZE" deps --csv run.xml > d2.csv ||
	fail "deps of the run"
[ "$(wc -l < d1.csv)" -gt 10 ] || fail "the run has few dependencies: $(cat d1.csv)"
cmp -s d1.csv d2.csv || fail "deps differ: $(diff d1.csv d2.csv | head -5)"
"$REPLAY" -q -o rep.xml run.isb.zst || fail "replay of run.isb.zst"
expect_eq "nodes replayed" "$(grep -c '<node ' rep.xml)" 4

# export's names: the binary encoding is .isb[.gz|.zst], and only that
"$ANALYZE" export --format isb -o x.xml "$T/basic.xml" 2> err.txt && fail "--format isb -o x.xml accepted"
expect_eq "isb to .xml" "$(cat err.txt)" \
	"island-analyze: export --format isb: x.xml: the binary encoding's name ends in .isb, .isb.gz or .isb.zst"
"$ANALYZE" export --format xml -o x.isb "$T/basic.xml" 2> err.txt && fail "--format xml -o x.isb accepted"
expect_eq "xml to .isb" "$(cat err.txt)" \
	"island-analyze: export --format xml: x.isb: a name ending in .isb is the binary encoding (--format isb)"
[ ! -e x.xml ] && [ ! -e x.isb ] || fail "a refused export left a file"

# Damaged: one line, the same from analyze, replay and the Python reader.
# The line is the element's in the XML export.
head -c 300 basic.isb > cut.isb
printf '\211ISB\n\004' > v4.isb
printf '\211ISB\n\001\011' > token.isb
LC_ALL=C sed 's/filemeta/filemetz/' basic.isb > res.isb
head -c 200 basic.isb.zst > cut.isb.zst
line=$(grep -n 'res="filemeta"' basic.xml | head -1 | cut -d: -f1)
bad() {
	f=$1 want=$2
	"$ANALYZE" sums "$f" > out.txt 2> err.txt; rc=$?
	expect_eq "$f: analyze's status" "$rc" 2
	[ ! -s out.txt ] || fail "$f: analyze wrote to stdout"
	expect_eq "$f: analyze" "$(cat err.txt)" "$want"
	"$REPLAY" -q "$f" > out.txt 2> err.txt; rc=$?
	expect_eq "$f: replay's status" "$rc" 2
	expect_eq "$f: replay" "$(cat err.txt)" "$want"
	# the Python reader checks the stream, not the values
	[ "$3" = values ] && return
	$PY -c 'import sys, island
try:
    list(island.events(sys.argv[1]))
except island.TraceError as e:
    print(e); sys.exit(2)' "$f" > err.txt 2>&1; rc=$?
	expect_eq "$f: python's status" "$rc" 2
	expect_eq "$f: python" "$(cat err.txt)" "$want"
}
bad cut.isb "cut.isb:12: truncated trace (the stream ends before its end mark)"
bad v4.isb "v4.isb:1: binary trace version 4 (this reader knows 1 to 3)"
bad token.isb "token.isb:1: corrupt binary trace (token 9)"
bad cut.isb.zst "cut.isb.zst:1: truncated or corrupt zstd data: the stream ends inside a frame"
bad res.isb "res.isb:$line: <io> has unknown res=\"filemetz\"" values
# a control character in a value: a stream's damage, refused by all three
LC_ALL=C sed 's|/data/out|/data/o\x01t|' basic.isb > ctl.isb
line=$(grep -n 'path="/data/out.txt"' basic.xml | head -1 | cut -d: -f1)
bad ctl.isb "ctl.isb:$line: corrupt binary trace (a control character in a value)"
exit 0
