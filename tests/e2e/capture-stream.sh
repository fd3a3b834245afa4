# The trace written while the application runs (issue 14.2; .xml.zst,
# .isb.zst, .xml, .isb, .xml.gz and .isb.gz):
# for each program, the trace streamed is the trace written from the same
# spool afresh at the end (ISLAND_TEST_STREAM_TWIN: loaded, resolved and
# written as without streaming), byte for byte once decompressed but for
# the pipes' numbers; where a program ran long enough and left the
# capture's writer some CPU, parts were streamed while it ran (as the
# twin tells; a loop that keeps a core busy may leave it none on a loaded
# machine, and checks only that what was streamed is exact), each in the
# trace (a zstd frame). What is left at the app's exit goes into the
# threads' parts on every CPU (all of it left there: one frame a thread's
# part). One thread writing 1M
# times; processes
# made after the clock's slope is known (a loop of cats, tar, gzip); an
# exec with regions; four threads; a thread writing while the main one
# writes too, then waits for it in pthread_join (streamed: the wait's
# start is known; the main thread's calls after its pthread_create, once
# the thread it made is seen; the thread then waits, idle, until parts are
# open, which a loaded machine leaves the writer at nice 19 CPU for);
# a rate limit; --syscalls; popen; threads calling system (a call streaming
# goes past once its shell is seen); python3 running a
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

# streamed ERR: the threads the capture says it streamed records of while
# the app ran (the twin tells, before the end writes the rest of the
# threads into their parts on every CPU)
streamed() {
	grep -c 'streamed: .*: [1-9][0-9]* records$' "$1"
}
# frames TRACE: a zstd trace's frames (each part one, between two of the
# trace's own)
frames() {
	zstd -lv "$1" 2>/dev/null | sed -n 's/^# Zstandard Frames: //p'
}

# the XML of a trace: decompressed, or exported from the binary encoding;
# a plain one without the line of spaces left of the room kept before
# its first thread's part (written in place, not copied)
xml_of() {
	case $1 in
	*.isb.zst|*.isb|*.isb.gz) "$ANALYZE" export --format xml "$1" ;;
	*.zst) zstd -dcq "$1" ;;
	*.gz) gzip -dc "$1" ;;
	*) awk '/^ +$/ && p ~ /^    <thread / { p = ""; next } { p = $0; print }' "$1" ;;
	esac
}

# parts_open PID: the parts the capture PID has open (each a file with no
# name, in its trace's directory)
parts_open() {
	ls -l "/proc/$1/fd" 2>/dev/null | grep -c '/#[0-9]* (deleted)$'
}

# same NAME MIN_FRAMES CMD...: captured streamed to NAME.cap$SUF (.xml.zst
# unless given), the twin written whole to NAME.twin$TWIN (the same
# suffix unless given); $OPT: an option; $GATE_PARTS: the app waits, idle,
# for the file NAME.gate (gate, joined), made once the capture has that
# many parts open: streamed while the app ran, however busy the machine
# (other programs on both CPUs leave the writer at nice 19 next to none)
same() {
	name=$1 min=$2 suf=${SUF:-.xml.zst}
	twin=${TWIN:-$suf}
	shift 2
	ISLAND_TEST_STREAM_TWIN="$PWD/$name.twin$twin" "$CAPTURE" $OPT -n "$name" \
		-o "$name.cap$suf" -- "$@" > "$name.out" 2> "$name.err" &
	cap=$!
	if [ -n "$GATE_PARTS" ]; then
		i=0
		while [ "$(parts_open $cap)" -lt "$GATE_PARTS" ] && [ $i -lt 2400 ] &&
		      kill -0 $cap 2>/dev/null; do
			sleep 0.05
			i=$((i + 1))
		done
		# what was open then, and the wait (a failure's witnesses)
		ls -l "/proc/$cap/fd" > "$name.gated" 2>&1
		echo "$i" >> "$name.gated"
		: > "$name.gate"
	fi
	wait $cap || fail "$name: the capture failed: $(cat "$name.err")"
	xml_of "$name.cap$suf" > "$name.xml" || fail "$name: not a trace"
	# gzip: one member, whatever its parts (libxml2 reads the first one
	# only; xmllint through it)
	case $suf in
	*.gz) expect_eq "$name: gzip members" "$(/usr/bin/python3 -c 'import sys, zlib
d, n = open(sys.argv[1], "rb").read(), 0
while d:
    z = zlib.decompressobj(31); z.decompress(d); d = z.unused_data; n += 1
print(n)' "$name.cap$suf")" 1
	   case $suf in *.xml.gz) xmllint --noout "$name.cap$suf" || fail "$name: xmllint reads it short" ;; esac ;;
	esac
	# $HEAD: the first thread's part, when it was streamed, written in
	# place (yes), or copied (no: a room too small)
	if [ -n "$HEAD" ] && grep -q 'streamed: pid \([0-9]*\) tid \1: [1-9][0-9]* records$' "$name.err"; then
		room=no
		sed -n '/^    <thread /{n;p;q}' "$name.cap$suf" | grep -q '^ *$' && room=yes
		expect_eq "$name: the first thread's part in place" "$room" "$HEAD"
		echo "$name: the first thread's part streamed, in place: $room"
	fi
	# the schema and the readers on the small ones (seconds a million)
	if [ "$(wc -l < "$name.xml")" -lt 100000 ]; then
		check_trace "$name.xml"
		"$ANALYZE" calls "$name.cap$suf" > "$name.calls" ||
			fail "$name: analyze refuses its frames"
		"$ANALYZE" calls "$name.twin$twin" | cmp -s - "$name.calls" ||
			fail "$name: analyze reads the two differently"
		if [ -n "$PYZ" ]; then
			/usr/bin/python3 -c "$PYZ" "$name.cap$suf" > "$name.py" &&
			/usr/bin/python3 -c "$PYZ" "$name.twin$twin" > "$name.whole.py" &&
			cmp -s "$name.py" "$name.whole.py" ||
				fail "$name: the Python reader reads the two differently"
		fi
	fi
	# an XML twin of a binary trace: as analyze exports it too
	if [ "$twin" != "$suf" ]; then
		"$ANALYZE" export --format xml "$name.twin$twin"
	else
		xml_of "$name.twin$twin"
	fi > "$name.whole.xml" || fail "$name: the twin is not a trace"
	# MIN_FRAMES: what the parts streamed while it ran make at least (a
	# zstd trace's 2k + 1 for k parts; another's parts + 1)
	k=$(streamed "$name.err")
	case $suf in
	*.zst) f=$((2 * k + 1)) z=$(frames "$name.cap$suf")
	       [ "$z" -ge "$f" ] || fail "$name: $z zstd frames for $k parts"
	       # $PARTS: the parts the trace has at least, wherever written
	       [ -z "$PARTS" ] || [ "$z" -gt "$PARTS" ] ||
			fail "$name: $z zstd frames, not $PARTS parts and the trace's own" ;;
	*) f=$((k + 1)) ;;
	esac
	[ "$f" -ge "$min" ] || fail "$name: $k parts streamed while it ran, $f frames (at least $min)"
	echo "$name: $(grep -c '<io ' "$name.xml") calls, $k parts streamed while it ran, as written whole"
	grep -c 'api="write"' "$name.xml" > "$name.writes"
	grep -c '<process ' "$name.xml" > "$name.procs"
	grep -c ' throttle="' "$name.xml" > "$name.held"
	grep -c ' within="' "$name.xml" > "$name.within"
	grep -c '<region [^>]*label="left open"[^>]*error="unclosed"' "$name.xml" > "$name.open"
	if ! cmp -s "$name.xml" "$name.whole.xml"; then
		norm "$name.xml" "$name.cmp"
		norm "$name.whole.xml" "$name.whole.cmp"
		cmp "$name.cmp" "$name.whole.cmp" ||
			fail "$name: the streamed trace differs from the one written whole: $(diff "$name.whole.cmp" "$name.cmp" | head -5)"
	fi
	rm -f "$name".*xml* "$name".*cmp* "$name.gate"
}

# the Python reader where it can read zstd
PYZ=
/usr/bin/python3 -c 'import zstandard' 2>/dev/null && PYZ='import sys; sys.path.insert(0, "'"$ISLAND_ROOT"'/python")
import island
for e in island.events(sys.argv[1]):
    e.pop("pipe", None)
    print(sorted(e.items()))'

# the gate the shells below wait at (same, $GATE_PARTS)
export G="$APPS/gate"
same writes 1 "$APPS/writes" 1 1000000 64
expect_eq "writes recorded" "$(cat writes.writes)" 1000000
GATE_PARTS=1 same procs 3 sh -c '"$G" procs.gate; for i in 1 2 3 4 5 6 7 8 9 10 11 12; do cat /etc/hostname; done > names;
	tar cf a.tar -C "$ISLAND_ROOT/docs" . && gzip -k a.tar && gzip -dc a.tar.gz | tar tf - | wc -l > n'
[ "$(cat procs.procs)" -ge 15 ] || fail "procs: $(cat procs.procs) processes"
[ -s n ] || fail "the pipeline did not run"
GATE_PARTS=1 same regions 3 sh -c '"$G" regions.gate; exec "$0"' "$APPS/regions"
expect_eq "the open region" "$(cat regions.open)" 1
same threads 1 "$APPS/writes" 4 200000 64
expect_eq "threads' writes" "$(cat threads.writes)" 800000
# all of it left for the end (the tests' knob): the threads' parts written
# there on every CPU, each a frame, and the trace the same
if [ "$(nproc)" -ge 2 ]; then
	PARTS=3 ISLAND_TEST_STREAM_WAIT=1 same endparts 1 "$APPS/writes" 3 100000 64
	expect_eq "endparts: parts streamed while it ran" "$(streamed endparts.err)" 0
fi
GATE_PARTS=2 same joined 3 "$APPS/joined" 600000 300000 joined.gate
expect_eq "the two threads' writes" "$(cat joined.writes)" 900000
# the main thread (pid = tid) went on streaming past its pthread_create
main=$(sed -n 's/.*streamed: pid \([0-9]*\) tid \1: \([0-9]*\) records$/\2/p' joined.err)
[ "${main:-0}" -gt 1000 ] ||
	fail "joined: the main thread streamed ${main:-no} records: it stopped at its pthread_create"
same popen 1 sh -c 'sleep 0.1; exec "$0" popened' "$APPS/popenwrite"
[ "$(cat popened)" = hi ] || fail "popen's shell did not write"
GATE_PARTS=1 same system 3 sh -c '"$G" system.gate; exec "$0" loop 200' "$APPS/shells"
# a thread (not the main one) went on streaming past its first system:
# open, then system first
most=$(sed -n 's/.*streamed: pid \([0-9]*\) tid \([0-9]*\): \([0-9]*\) records$/\1 \2 \3/p' system.err |
	awk '$1 != $2 && $3 > m { m = $3 } END { print m + 0 }')
[ "$most" -ge 3 ] || fail "system: a thread streamed $most records: it stopped at its first system"
if [ -x /usr/bin/python3 ]; then
	GATE_PARTS=1 same python 2 /usr/bin/python3 -c 'import subprocess, time
import os
while not os.path.exists("python.gate"):
    time.sleep(0.01)
subprocess.run(["true"], check=True)
open("py.txt", "w").write("x" * 100000)'
fi

# calls a signal handler made inside a read (nest.c): put after the
# read's record when it returns, the streamed part as the whole
same nested 1 "$APPS/nested" handler
expect_eq "nested: the handler's calls inside the read" "$(cat nested.within)" 3

# a rate limit: a held call's end is set after its record, then its
# hold's record follows it
OPT="--filewrite 4000000" same rated 3 sh -c 'sleep 0.1; dd if=/dev/zero of=dd.out bs=64k count=100 2>/dev/null'
[ "$(cat rated.held)" -gt 10 ] || fail "rated: $(cat rated.held) calls held"

# --syscalls: a record taken once its level is linked for good (a libc
# call's kernel calls come before its own record)
OPT=--syscalls same syscalls 1 "$APPS/writes" 1 1000000 64
expect_eq "writes at both levels" "$(cat syscalls.writes)" 1000000

# the binary encoding: a part coded from nothing between two RESETs; a
# loop's calls coded as the last one again (outfile_again), the twin
# written as XML, without it
SUF=.isb.zst TWIN=.xml.zst same binwrites 1 "$APPS/writes" 1 1000000 64
expect_eq "binary writes" "$(cat binwrites.writes)" 1000000
SUF=.isb.zst TWIN=.xml.zst same binthreads 1 "$APPS/writes" 4 100000 64
OPT=--syscalls SUF=.isb.zst TWIN=.xml.zst same binsyscalls 1 "$APPS/writes" 1 200000 64
SUF=.isb.zst TWIN=.xml.zst same binpipes 1 sh -c 'sleep 0.1; for i in 1 2 3 4 5 6; do cat /etc/hostname; done | cat > names3'
GATE_PARTS=1 SUF=.isb.zst same binprocs 3 sh -c '"$G" binprocs.gate; for i in 1 2 3 4 5 6 7 8; do cat /etc/hostname; done > names2'
# an io's start linked to the last end (LINK, version 3) before the
# first call: no version 1 stream had it (versions 1 and 2 are read as
# they were: tests/unit/test-trace-isb.c)
"$ANALYZE" export --format isb -o v.isb binprocs.twin.isb.zst || fail "export to .isb failed"
{ head -c 5 v.isb; printf '\001'; tail -c +7 v.isb; } > v1.isb
"$ANALYZE" calls v1.isb > v1.calls 2> v1.err && fail "a version 1 stream with a LINK is read"
grep -q '^v1.isb:[0-9]*: corrupt binary trace (token 8)$' v1.err ||
	fail "version 1 with a LINK: $(cat v1.err)"
"$ANALYZE" calls v.isb > v3.calls || fail "the .isb export is refused"
expect_eq "version 3's calls" "$(cat v3.calls)" "$(cat binprocs.calls)"

# a plain trace (.xml, .isb): its parts beside it, a file system's copy
HEAD=yes SUF=.xml same plainwrites 1 "$APPS/writes" 1 1000000 64
expect_eq "plain writes" "$(cat plainwrites.writes)" 1000000
# the room kept too small for what the end writes before the part: the
# trace a file of its own, the part copied into it
ISLAND_TEST_HEAD_ROOM=100 HEAD=no SUF=.xml same plainsmall 1 "$APPS/writes" 1 1000000 64
GATE_PARTS=2 SUF=.xml same plainprocs 3 sh -c '"$G" plainprocs.gate; for i in 1 2 3 4 5 6 7 8; do cat /etc/hostname; done > names4'
HEAD=yes OPT=--syscalls SUF=.xml same plainsyscalls 1 "$APPS/writes" 1 1000000 64
GATE_PARTS=2 SUF=.isb TWIN=.xml same plainbin 3 sh -c '"$G" plainbin.gate; for i in 1 2 3 4 5 6 7 8; do cat /etc/hostname; done > names5'

# gzip (-z): its parts deflate streams of the trace's one member
SUF=.xml.gz same gzwrites 1 "$APPS/writes" 1 1000000 64
expect_eq "gzip writes" "$(cat gzwrites.writes)" 1000000
GATE_PARTS=2 SUF=.xml.gz same gzprocs 3 sh -c '"$G" gzprocs.gate; for i in 1 2 3 4 5 6 7 8; do cat /etc/hostname; done > names6'
GATE_PARTS=2 SUF=.isb.gz TWIN=.xml.gz same gzbin 3 sh -c '"$G" gzbin.gate; for i in 1 2 3 4 5 6 7 8; do cat /etc/hostname; done > names7'

# parts: the capture's files with no name (O_TMPFILE)
# killed while streaming: the spool is whole, --recover reads it, every
# write the app made before the kill in it; no part is left beside it,
# nor beside a plain trace
mkdir kd
# the write calls of capture PID's app so far (/proc's count, its ended
# threads' too)
app_writes() {
	w=0
	for a in $(cat /proc/$1/task/*/children 2>/dev/null); do
		w=$((w + $(awk '$1 == "syscw:" { print $2 }' /proc/$a/io 2>/dev/null || echo 0)))
	done
	echo $w
}
"$CAPTURE" -n killed -o never.xml.zst -- "$APPS/joined" 1000000 0 kill.gate &
cap=$!
"$CAPTURE" -n killed2 -o kd/never.xml -- "$APPS/joined" 1000000 0 kill.gate &
cap2=$!
# (each once it streams, and its app has made its writes, idle at its
# gate: under ASan, beside the other, one had opened none at 0.3 s; on a
# machine kept busy, none before its app was idle at its gate, and one
# app had made 56,955 of its writes when both had)
for i in $(seq 1200); do
	p1=$(parts_open $cap) p2=$(parts_open $cap2)
	[ "$p1" -gt 0 ] && [ "$p2" -gt 0 ] &&
		[ "$(app_writes $cap)" -ge 1000000 ] && [ "$(app_writes $cap2)" -ge 1000000 ] && break
	sleep 0.05
done
apps=$(cat /proc/$cap/task/*/children /proc/$cap2/task/*/children 2>/dev/null)
kill -9 $cap $cap2
wait $cap 2>/dev/null
wait $cap2 2>/dev/null
drop_claim never.xml.zst
drop_claim kd/never.xml
# the apps outlive their captures: let them end
: > kill.gate
for i in $(seq 600); do
	left=
	for a in $apps; do kill -0 $a 2>/dev/null && left=$a; done
	[ -n "$left" ] || break
	sleep 0.05
done
[ ! -e never.xml.zst ] || fail "the killed capture wrote a trace"
[ "$p1" -gt 0 ] && [ "$p2" -gt 0 ] ||
	fail "parts open at the kill: $p1 and $p2: nothing was streamed before it"
[ -z "$(ls -A kd)" ] || fail "a killed capture left $(ls -A kd) beside its plain trace"
[ -z "$(ls sp/*/ | grep part)" ] || fail "a part in the spool: $(ls sp/*/)"
"$CAPTURE" --recover -o rec.xml.zst 2> rec.err || { cat rec.err; fail "--recover failed"; }
n=$("$ANALYZE" calls rec.xml.zst | awk '$1 == "write" { print $2 }')
expect_eq "the recovered trace's writes" "${n:-none}" 1000000
exit 0
