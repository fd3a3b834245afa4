# Files the run found are made before the replay with their size and
# layout (<file size_at_end allocated_at_end>): a file read in part is as
# long as it was (a replay that reads it at its end, or stats it, sees
# the same), a sparse one keeps its holes; a file the run changed is
# made with what the run read of it only.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
PY=/usr/bin/python3
head -c 1048576 /dev/zero | tr '\0' a > whole
truncate -s 10M sparse && printf 'x%.0s' $(seq 4096) | dd of=sparse conv=notrunc 2> /dev/null
head -c 8192 /dev/zero > changed
# a name the trace escapes (&amp;): its size was looked up by the
# escaped name, and missed
head -c 5000 /dev/zero > 'a&b'
"$CAPTURE" -o t.xml -- $PY -c "
import os
os.stat('whole')
f = open('a&b', 'rb'); f.read(100); f.close()
f = open('whole', 'rb'); f.read(4096); f.close()
f = open('sparse', 'rb'); f.read(4096); f.close()
f = open('changed', 'r+b'); f.read(100); f.write(b'z' * 10); f.close()
" 2> cap.err || fail "capture: $(cat cap.err)"
check_trace t.xml
grep -q "<file path=\"$PWD/whole\" .* size_at_end=\"1048576\" allocated_at_end=\"[0-9]*\"" t.xml ||
	fail "no size_at_end for whole"
grep -q "<file path=\"$PWD/sparse\" .* size_at_end=\"10485760\"" t.xml || fail "no size_at_end for sparse"
grep -q "<file path=\"$PWD/a&amp;b\" .* size_at_end=\"5000\"" t.xml || fail "no size_at_end for a&b"
"$REPLAY" -q --root r --report rep.xml t.xml 2> err.txt || fail "replay: $(cat err.txt)"
R=r$PWD
expect_eq "whole: size" "$(stat -c %s "$R/whole")" 1048576
expect_eq "sparse: size" "$(stat -c %s "$R/sparse")" 10485760
[ "$(du -k "$R/sparse" | cut -f1)" -lt 1024 ] || fail "sparse: $(du -k "$R/sparse" | cut -f1) KiB allocated, its holes filled"
[ "$(du -k "$R/whole" | cut -f1)" -ge 1024 ] || fail "whole: $(du -k "$R/whole" | cut -f1) KiB allocated, not all of it"
# changed (opened for writing): what the run read of it, Python's buffer
# of 4096 bytes, not its 8192 at the end
expect_eq "changed: read" "$(grep -c "api=\"read\" .*amount=\"4096\" .* path=\"$PWD/changed\"" t.xml)" 1
expect_eq "changed: size" "$(stat -c %s "$R/changed")" 4096
exit 0
