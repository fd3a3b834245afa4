# The trace written while the application runs (issue 14.2, .xml.zst):
# for each program, the trace streamed is the trace written from the same
# spool afresh at the end (ISLAND_TEST_STREAM_TWIN: loaded, resolved and
# written as without streaming), byte for byte once decompressed but for
# the pipes' numbers; where a program ran long enough, parts went in (more
# than one zstd frame). One thread writing 1.5M times; processes
# made after the clock's slope is known (a loop of cats, tar, gzip); an
# exec with regions; four threads (not streamed past the first thread's
# creation); popen (a call streaming stops before); python3 running a
# child. A capture killed while streaming leaves a spool --recover reads
# (the parts beside it are not records).
. "$ISLAND_ROOT/tests/e2e/lib.sh"
command -v zstd > /dev/null || { echo "needs zstd"; exit 77; }
mkdir sp
export ISLAND_SPOOL_DIR="$PWD/sp"

# A pipe's id is its object's number, in the order the resolver met the
# objects: streaming meets them as processes run, the end process by
# process. Numbered here by first use, and the <files> and <sockets>
# lists (in that order too) sorted; the rest as written.
norm() {
	awk '{ while (match($0, /pipe="[0-9]+"/)) {
		id = substr($0, RSTART + 6, RLENGTH - 7)
		if (!(id in m)) m[id] = ++k
		$0 = substr($0, 1, RSTART - 1) "pipe=#" m[id] "#" substr($0, RSTART + RLENGTH) }
	       print }' "$1" > "$1.n"
	{ sed -n '1,/^  <files>/p' "$1.n"; sed -n '/^  <files>/,$p' "$1.n" | sort; } > "$2"
}

frames() {
	zstd -lv "$1" 2>/dev/null | sed -n 's/^# Zstandard Frames: //p'
}

# same NAME MIN_FRAMES CMD...: captured streamed, the twin written whole
same() {
	name=$1 min=$2
	shift 2
	ISLAND_TEST_STREAM_TWIN="$PWD/$name.whole.xml.zst" "$CAPTURE" -n "$name" \
		-o "$name.xml.zst" -- "$@" > "$name.out" 2> "$name.err" ||
		fail "$name: the capture failed: $(cat "$name.err")"
	zstd -dcq "$name.xml.zst" > "$name.xml" || fail "$name: not zstd"
	# the schema on the small ones (xmllint takes seconds a million)
	if [ "$(wc -l < "$name.xml")" -lt 100000 ]; then
		check_trace "$name.xml"
	else
		"$ANALYZE" sums "$name.xml.zst" > /dev/null || fail "$name: analyze refuses it"
	fi
	zstd -dcq "$name.whole.xml.zst" > "$name.whole.xml" || fail "$name: the twin is not zstd"
	norm "$name.xml" "$name.cmp"
	norm "$name.whole.xml" "$name.whole.cmp"
	cmp "$name.cmp" "$name.whole.cmp" ||
		fail "$name: the streamed trace differs from the one written whole: $(diff "$name.whole.cmp" "$name.cmp" | head -5)"
	f=$(frames "$name.xml.zst")
	[ "$f" -ge "$min" ] || fail "$name: $f frames, parts were not streamed (at least $min)"
	echo "$name: $(grep -c '<io ' "$name.xml") calls, $f frames, as written whole"
}

same writes 3 "$APPS/writes" 1 1000000 64
expect_eq "writes recorded" "$(grep -c 'api="write"' writes.xml)" 1000000
same procs 3 sh -c 'sleep 0.1; for i in 1 2 3 4 5 6 7 8 9 10 11 12; do cat /etc/hostname; done > names;
	tar cf a.tar -C "$ISLAND_ROOT/docs" . && gzip -k a.tar && gzip -dc a.tar.gz | tar tf - | wc -l > n'
expect_eq "processes" "$(grep -c '<process ' procs.xml)" "$(grep -c '<process ' procs.whole.xml)"
[ -s n ] || fail "the pipeline did not run"
same regions 3 sh -c 'sleep 0.1; exec "$0"' "$APPS/regions"
grep -q '<region [^>]*label="left open"[^>]*error="unclosed"' regions.xml || fail "the open region is not written"
same threads 1 "$APPS/writes" 4 100000 64
expect_eq "threads' writes" "$(grep -c 'api="write"' threads.xml)" 400000
same popen 1 sh -c 'sleep 0.1; exec "$0" popened' "$APPS/popenwrite"
[ "$(cat popened)" = hi ] || fail "popen's shell did not write"
if [ -x /usr/bin/python3 ]; then
	same python 2 /usr/bin/python3 -c 'import subprocess, time
time.sleep(0.1)
subprocess.run(["true"], check=True)
open("py.txt", "w").write("x" * 100000)'
fi

# killed while streaming: the spool is whole, --recover reads it
"$CAPTURE" -n killed -o never.xml.zst -- "$APPS/writes" 1 5000000 64 &
cap=$!
sleep 0.3
kill -9 $cap
wait $cap 2>/dev/null
[ ! -e never.xml.zst ] || fail "the killed capture wrote a trace"
ls sp/*/part.* > /dev/null 2>&1 || fail "no part in the spool: nothing was streamed before the kill"
"$CAPTURE" --recover -o rec.xml.zst 2> rec.err || { cat rec.err; fail "--recover failed"; }
n=$("$ANALYZE" calls rec.xml.zst | awk '$1 == "write" { print $2 }')
[ "${n:-0}" -gt 100000 ] || fail "the recovered trace has ${n:-no} writes"
exit 0
