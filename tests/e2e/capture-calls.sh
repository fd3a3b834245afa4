#!/bin/sh
# The calls issue 12 added to the default capture (tests/apps/calls): each
# recorded with its resource and amount (stdio reads with the bytes the
# kernel read under them, kernel_amount), the per-file totals of
# `island-analyze files` exact (mmap + msync writes the bytes msync
# flushed; splice, sendfile and copy_file_range read their source), and
# what the capture cannot see (io_uring operations, a clone() child that
# shares the memory) makes the process incomplete with a reason that every
# report names in a warning.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
[ -x "$APPS/calls" ] || { echo "tests/apps not built"; exit 77; }
mkdir d
"$CAPTURE" -n calls -o calls.xml "$APPS/calls" d || fail "capture"
check_trace calls.xml
grep -q '<trace version="1" generator="[^"]*" complete="true">' calls.xml || fail "not complete"
# the new calls, their lines without times
new='mmap|munmap|msync|fallocate|posix_fallocate|truncate|ftruncate|access|faccessat|euidaccess|eaccess'
new="$new|chmod|fchmod|fchmodat|chown|fchown|lchown|fchownat|link|linkat|symlink|symlinkat|readlink"
new="$new|readlinkat|renameat2|unlink|unlinkat|remove|fscanf|vfscanf|ftell|ftello|rewind|fgetpos"
new="$new|fsetpos|splice|sendfile|copy_file_range|tee|vmsplice|popen|fgets|pclose|fread|fgetc"
grep -E "<io api=\"($new)\"" calls.xml | normalise | sed -E 's/ (start|end)="T"//; s/ (start|end)="T"//; s/^ *//' > got.txt
cat > want.txt <<'WANT'
<io api="ftruncate" res="filemeta" size="8192" fd="3" path="DIR/d/map.dat"/>
<io api="mmap" res="filemeta" size="8192" offset="0" flags="MAP_SHARED" fd="3" path="DIR/d/map.dat"/>
<io api="msync" res="filewrite" amount="4096" size="4096" path="DIR/d/map.dat"/>
<io api="munmap" res="filemeta" size="8192" path="DIR/d/map.dat"/>
<io api="fallocate" res="filemeta" size="16384" offset="0" flags="0" fd="3" path="DIR/d/alloc.dat"/>
<io api="posix_fallocate" res="filemeta" size="20000" offset="0" fd="3" path="DIR/d/alloc.dat"/>
<io api="truncate" res="filemeta" size="1000" path="DIR/d/alloc.dat"/>
<io api="access" res="filemeta" path="DIR/d/alloc.dat"/>
<io api="faccessat" res="filemeta" path="DIR/d/alloc.dat"/>
<io api="euidaccess" res="filemeta" path="DIR/d/alloc.dat"/>
<io api="eaccess" res="filemeta" path="DIR/d/alloc.dat"/>
<io api="chmod" res="filemeta" path="DIR/d/alloc.dat"/>
<io api="fchmod" res="filemeta" fd="3" path="DIR/d/alloc.dat"/>
<io api="fchmodat" res="filemeta" path="DIR/d/alloc.dat"/>
<io api="chown" res="filemeta" path="DIR/d/alloc.dat"/>
<io api="fchown" res="filemeta" fd="3" path="DIR/d/alloc.dat"/>
<io api="lchown" res="filemeta" path="DIR/d/alloc.dat"/>
<io api="fchownat" res="filemeta" path="DIR/d/alloc.dat"/>
<io api="link" res="filemeta" path="DIR/d/alloc.dat" path2="DIR/d/hard.dat"/>
<io api="linkat" res="filemeta" path="DIR/d/hard.dat" path2="DIR/d/hard2.dat"/>
<io api="symlink" res="filemeta" path="DIR/d/sym.lnk" target="alloc.dat"/>
<io api="symlinkat" res="filemeta" path="DIR/d/sym2.lnk" target="alloc.dat"/>
<io api="readlink" res="filemeta" path="DIR/d/sym.lnk" result="9"/>
<io api="readlinkat" res="filemeta" path="DIR/d/sym2.lnk" result="9"/>
<io api="renameat2" res="filemeta" path="DIR/d/hard2.dat" path2="DIR/d/hard3.dat"/>
<io api="unlink" res="filemeta" path="DIR/d/hard.dat"/>
<io api="unlinkat" res="filemeta" path="DIR/d/hard3.dat"/>
<io api="remove" res="filemeta" path="DIR/d/sym.lnk"/>
<io api="remove" res="filemeta" path="DIR/d/sym2.lnk"/>
<io api="fscanf" res="fileread" amount="5" fd="3" path="DIR/d/scan.txt" count="2" kernel_amount="12"/>
<io api="ftell" res="filemeta" fd="3" path="DIR/d/scan.txt" result="5"/>
<io api="fgetpos" res="filemeta" fd="3" path="DIR/d/scan.txt"/>
<io api="rewind" res="filemeta" fd="3" path="DIR/d/scan.txt"/>
<io api="fsetpos" res="filemeta" offset="5" fd="3" path="DIR/d/scan.txt"/>
<io api="ftello" res="filemeta" fd="3" path="DIR/d/scan.txt" result="5"/>
<io api="rewind" res="filemeta" fd="3" path="DIR/d/scan.txt"/>
<io api="vfscanf" res="fileread" amount="2" fd="3" path="DIR/d/scan.txt" count="1"/>
<io api="splice" res="netsend" amount="1000" size="1000" fd="8" peer="pipe" pipe="N" proto="pipe" infd="3" inpath="DIR/d/src.dat"/>
<io api="splice" res="filewrite" amount="1000" size="1000" fd="4" path="DIR/d/spl.dat" infd="7" inpath="pipe"/>
<io api="sendfile" res="filewrite" amount="700" size="700" fd="5" path="DIR/d/sf.dat" infd="3" inpath="DIR/d/src.dat"/>
<io api="copy_file_range" res="filewrite" amount="600" size="600" fd="6" path="DIR/d/cfr.dat" infd="3" inpath="DIR/d/src.dat"/>
<io api="tee" res="netsend" amount="300" size="300" fd="10" peer="pipe" pipe="N" proto="pipe" infd="7" inpath="pipe"/>
<io api="vmsplice" res="netsend" amount="500" size="500" fd="10" peer="pipe" pipe="N" proto="pipe"/>
<io api="popen" res="proc" fd="3" peer="pipe" pipe="N" proto="pipe" child="N"/>
<io api="fgets" res="netrecv" amount="6" size="64" fd="3" peer="pipe" pipe="N" proto="pipe" kernel_amount="6"/>
<io api="pclose" res="wait" fd="3" peer="pipe" pipe="N" proto="pipe" status="exit:0"/>
<io api="fgets" res="fileread" amount="101" size="200" fd="3" path="DIR/d/lines.txt" kernel_amount="4096"/>
<io api="fread" res="fileread" amount="5000" size="5000" fd="3" path="DIR/d/lines.txt" count="5000" kernel_amount="4096"/>
<io api="fgetc" res="fileread" amount="1" size="1" fd="3" path="DIR/d/lines.txt"/>
<io api="fread" res="fileread" amount="3190" size="10000" fd="3" path="DIR/d/lines.txt" count="3190" kernel_amount="100"/>
WANT
diff -u want.txt got.txt || fail "the calls' records differ"
# popen's shell is a process of its own, child of the app
[ "$(grep -c '<process ' calls.xml)" = 2 ] || fail "popen's shell is not in the trace"
# per file, without the times
"$ANALYZE" files --csv calls.xml | cut -d, -f1-5,7,8,11 | sed "s|$PWD|DIR|" > files.csv || fail "files"
cat > files.want <<'WANT'
node,path,opens,reads,bytes_read,writes,bytes_written,open_at_end
calls,DIR/d/map.dat,1,0,0,1,4096,0
calls,DIR/d/alloc.dat,1,0,0,0,0,0
calls,DIR/d/scan.txt,2,2,7,1,12,0
calls,DIR/d/src.dat,1,3,2300,1,4000,0
calls,DIR/d/spl.dat,1,0,0,1,1000,0
calls,DIR/d/sf.dat,1,0,0,1,700,0
calls,DIR/d/cfr.dat,1,0,0,1,600,0
calls,DIR/d/lines.txt,2,4,8292,4,8293,0
WANT
diff -u files.want files.csv || fail "files --csv differs"

# replayed in every mode: the copies write what they wrote, from a file
# read at the offset the program gave (which the trace does not hold:
# the file under the root was at its end, and the pipe spliced from
# stayed empty: causal stalled) and from a pipe that is a sink (think,
# timed, afap: nothing was put there, and the splice never returned)
for m in causal think timed afap; do
	"$REPLAY" -q --stall 2 -m $m --root r.$m --report rep.$m.xml calls.xml 2> rep.$m.err ||
		fail "replay $m: $(cat rep.$m.err)"
	expect_eq "replay $m: failed" "$(sed -n 's/.*<node name="calls".* failed="\([0-9]*\)".*/\1/p' rep.$m.xml)" 0
	expect_eq "replay $m: spl.dat sf.dat cfr.dat" \
		"$(stat -c %s r.$m$PWD/d/spl.dat r.$m$PWD/d/sf.dat r.$m$PWD/d/cfr.dat | tr '\n' ' ')" "1000 700 600 "
done

# io_uring: recorded, not itemised: the process says so
if "$APPS/calls" d uring > /dev/null 2>&1; then
	"$CAPTURE" -n uring -o uring.xml "$APPS/calls" d uring 2> cap.err || fail "capture uring"
	check_trace uring.xml
	grep -q '<trace version="1" generator="[^"]*" complete="false">' uring.xml || fail "io_uring: trace complete"
	grep -q 'status="exit:0" complete="false" reason="io_uring operations are not itemised">' uring.xml ||
		fail "io_uring: no reason"
	grep -q '<io api="io_uring_setup" res="filemeta" .* fd="3"/>' uring.xml || fail "no io_uring_setup"
	grep -q '<io api="io_uring_enter" res="wait" .* fd="3" count="0"/>' uring.xml || fail "no io_uring_enter"
	grep -q '^island-capture: uring.xml: process [0-9]* is incomplete: io_uring operations are not itemised$' cap.err ||
		fail "capture does not say why: $(cat cap.err)"
	for r in summary sums files consumption; do
		"$ANALYZE" $r uring.xml 2>&1 >/dev/null | sed -E 's/process [0-9]+/process N/' > warn.txt
		cat > warn.want <<'WANT'
uring.xml:2: warning: trace is incomplete (a process was killed or not fully seen); analysing what was recorded
uring.xml:5: warning: process N is incomplete: io_uring operations are not itemised
WANT
		diff -u warn.want warn.txt || fail "$r: warnings differ"
	done
else
	echo "io_uring not available here: its check skipped"
fi

# clone(): without CLONE_VM a process like a fork child, captured; with
# CLONE_VM not capturable: the parent says so
"$CAPTURE" -n clone -o clone.xml "$APPS/calls" d clone 2> cap.err || fail "capture clone"
check_trace clone.xml
[ "$(grep -c '<process ' clone.xml)" = 2 ] || fail "clone: the child is not in the trace"
grep -q "<file path=\"$PWD/d/clone.dat\" opens=\"1\" reads=\"0\" bytes_read=\"0\" writes=\"1\" bytes_written=\"10\" open_at_end=\"0\" size_at_end=\"10\" allocated_at_end=\"[0-9]*\"/>" clone.xml ||
	fail "clone: the child's write is missing"
normalise < clone.xml | grep -o '<process .*>' | sed -E 's/reason="child [0-9]+/reason="child N/' > procs.txt
cat > procs.want <<WANT
<process pid="N" ppid="N" exe="$APPS/calls" cwd="DIR" start="T" end="T" status="exit:0" complete="false" reason="child N made by clone() shares its memory: not captured">
<process pid="N" ppid="N" exe="$APPS/calls" cwd="DIR/d" start="T" end="T" status="exit:0" complete="true">
WANT
diff -u procs.want procs.txt || fail "clone: processes differ"
exit 0
