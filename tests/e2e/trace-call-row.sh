# A call is one row: in a scratch copy of the tree, a call the table lacks
# (readahead) is added as its row in trace/calls.def; the build then fails,
# naming it, until the row has its replay rule (trace/replay.def); with
# its wrapper (capture/preload/, and its real in reals.def) and its line
# in the docs' list of calls, it is captured, written, read (the analyzer,
# Python), validated (the schema, the reader: by the row's own rule),
# replayed and documented (docs-match), and no other file was edited.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
command -v make > /dev/null || exit 77
S="$PWD/tree"
mkdir "$S"
# the sources as they were; the tree with its build, times kept, so that
# what the new row changes is built again and the rest is not (the whole
# tree took 60 s of the suite), with the same sanitizers
mkdir orig
(cd "$ISLAND_ROOT" && tar cf - --exclude=./build --exclude=./bin --exclude=./lib \
	--exclude=./.git .) | (cd orig && tar xf -) || fail "copy of the sources"
(cd "$ISLAND_ROOT" && tar cf - --exclude=./.git .) | (cd "$S" && tar xf -) || fail "copy of the tree"
san=; ldd "$CAPTURE" | grep -q libasan && san=ASAN=1

echo 'CALL(READAHEAD,       "readahead",       FILEREAD,  NONE,  USE)' >> "$S/trace/calls.def"
make -C "$S" -j2 $san bin/island-replay > build1.out 2>&1 && fail "built with a row that has no replay rule"
grep -q "replay_rule_of_READAHEAD" build1.out || fail "the build failed otherwise: $(grep -m3 error build1.out)"

echo 'REPLAY(READAHEAD,       spent,  READ,  NONE)' >> "$S/trace/replay.def"
echo 'R(readahead)' >> "$S/capture/preload/reals.def"
cat > "$S/capture/preload/wrap_readahead.c" <<'EOF'
/* Wrapper: readahead, a file's pages read into the page cache. */
#include "preload.h"
#include "real.h"

EXPORT ssize_t readahead(int fd, off64_t offset, size_t count)
{
	TRACE_CALL(C_READAHEAD, ssize_t, REAL(readahead)(fd, offset, count), fd, 0, 0);
}
EOF
# the docs' list: a line in its table, after the last
awk '{ print } /^\| `memfd_create` \| `filemeta` \|$/ { print "| `readahead` | `fileread` |" }' \
	"$S/docs/trace-format.md" > fmt.md && mv fmt.md "$S/docs/trace-format.md"
make -C "$S" -j2 $san > build2.out 2>&1 || { tail -20 build2.out; fail "build with the new row"; }

# what else was edited: nothing
(cd orig && find . -type f | sort) > files.orig
(cd "$S" && find . -type f ! -path './build/*' ! -path './bin/*' ! -path './lib/*' | sort) > files.new
expect_eq "new files" "$(comm -13 files.orig files.new)" "./capture/preload/wrap_readahead.c"
changed=$(while read -r f; do cmp -s "orig/$f" "$S/$f" || echo "$f"; done < files.orig | tr '\n' ' ')
expect_eq "files edited" "$changed" "./capture/preload/reals.def ./docs/trace-format.md ./trace/calls.def ./trace/replay.def "

# captured and written
cat > app.c <<'EOF'
#define _GNU_SOURCE
#include <fcntl.h>
#include <unistd.h>
int main(void)
{
	int fd = open("data.out", O_RDWR | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || write(fd, "abc", 3) != 3 || readahead(fd, 0, 3) || close(fd))
		return 1;
	return 0;
}
EOF
cc -O2 -o app app.c || fail "cc app"
"$S/bin/island-capture" -n n1 -o t.xml -- ./app || fail "capture"
grep -q '<io api="readahead" res="fileread" [^>]*fd="3" path="'"$PWD"'/data.out"' t.xml ||
	fail "readahead not captured: $(grep readahead t.xml)"
# validated and read: the schema, the analyzer, Python
SCHEMA="$S/docs/trace.xsd" check_trace t.xml
expect_eq "analyzed" "$("$S/bin/island-analyze" calls --csv t.xml | awk -F, '$1 == "readahead" { print $2 }')" 1
# by the row's own rule: its io with a class the row does not give is
# refused, with a byte count it has none of too; the tree without the row
# reads both (readahead is no call there)
line=$(grep -n '<io api="readahead"' t.xml | cut -d: -f1)
sed 's|<io api="readahead" res="fileread"|<io api="readahead" res="filemeta"|' t.xml > badres.xml
sed 's|<io api="readahead" res="fileread"|& amount="3"|' t.xml > badamount.xml
for b in badres badamount; do
	"$ANALYZE" summary $b.xml > $b.out 2>&1 || fail "$b: read without the row: $(cat $b.out)"
	rc=0; "$S/bin/island-analyze" summary $b.xml > $b.out 2> $b.err || rc=$?
	expect_eq "$b: status" "$rc" 2
done
expect_eq "refused by the row's res" "$(cat badres.err)" \
	"badres.xml:$line: <io api=\"readahead\"> res=\"filemeta\" is not one of readahead's (fileread, netrecv, wait)"
expect_eq "refused by the row's amount" "$(cat badamount.err)" \
	"badamount.xml:$line: <io api=\"readahead\"> has amount=\"3\": readahead has no byte count"
if /usr/bin/python3 -c 'import cffi' 2>/dev/null; then
	expect_eq "read by Python" "$(PYTHONPATH="$S/python" /usr/bin/python3 -c 'import island
print(sum(e.get("api") == "readahead" for e in island.events("t.xml")))')" 1
fi
# replayed by its rule: its time spent, counted as a read
"$S/bin/island-replay" -q --root r --report rep.xml t.xml || fail "replay"
expect_eq "replayed as a read" "$(sed -n 's/.*<family name="read" calls="\([0-9]*\)".*/\1/p' rep.xml)" 1
# documented: docs-match finds the call in the docs' list, and the list
# whole (what else it says is its own test's)
ISLAND_ROOT="$S" sh "$S/tests/e2e/docs-match.sh" > docs.out 2>&1
grep -q "^[0-9]* columns of [0-9]* reports, $(grep -c '^CALL' "$S/trace/calls.def") calls, " docs.out ||
	fail "docs-match did not check the calls: $(cat docs.out)"
! grep -q 'call .* list' docs.out || fail "docs-match: $(grep 'call .* list' docs.out)"
echo ok
