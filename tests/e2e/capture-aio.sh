# Asynchronous I/O: each operation an element of its own, in the default
# capture and under --syscalls; what the capture cannot itemise makes the
# trace incomplete, saying why, and every report warns.
#  - tests/apps/aioops ops: libaio's pwrite, pread, preadv, pwritev,
#    fsync, fdsync, and a pread made by raw system calls: each an io
#    with async="libaio", its context, its depth, its file, offset and
#    bytes; per file the bytes once (4096 + 8192 + 1024 written, 4096 +
#    4096 + 100 read);
#  - aioops many: 512 in flight at once, four times, each paired;
#  - aioops reap (reaped from the ring in user space) and destroy (left
#    in flight to io_destroy): incomplete, with the number not seen;
#  - tests/apps/posixaio: aio_write, aio_read, lio_listio's write and
#    read, aio_fsync, async="posix"; under --syscalls the kernel's
#    pread64 and pwrite64 of glibc's helper threads count, the aio_*
#    elements are level="libc" (4096 + 512 written, 100 + 512 read);
#  - tests/apps/rawuring (io_uring by syscall() and libc's mmap, as
#    fio's setup): a write and a fixed-file read linked, an fsync, a nop,
#    each itemised (async="io_uring"); its openat is not: said so;
#    rawuring inline (its own `syscall` instructions, as fio's engine):
#    the default capture sees none and says so, --syscalls all;
#  - tests/apps/uring plain, regring and sqpoll (liburing, which makes
#    its own system calls): plain itemised in both modes (its rings
#    learnt from liburing's functions in the default capture), and so
#    is a registered ring, entered by its index; nobody sees a SQPOLL
#    ring's submissions: incomplete, saying why.
. "$ISLAND_ROOT/tests/e2e/lib.sh"

# OPS: the async elements of a trace, times and context dropped
ops() {
	grep ' async=' "$1" | normalise | sed -E 's/ (start|end)="T"//g; s/ ctx="0x[0-9a-f]+"//; s/^ *//'
}
# per file: path,reads,bytes_read,writes,bytes_written
perfile() {
	"$ANALYZE" files --csv "$1" | cut -d, -f2,4,5,7,8 | sed "s|$PWD|DIR|" | grep "^DIR/$2,"
}

for m in default syscalls; do
	opt=; lv=
	[ $m = syscalls ] && { opt=--syscalls; lv=' level="kernel"'; }
	rm -f ops.dat
	"$CAPTURE" $opt -o ops.$m.xml -- "$APPS/aioops" ops "$PWD/ops.dat" 2> cap.err ||
		fail "$m: capture ops: $(cat cap.err)"
	check_trace ops.$m.xml
	grep -q '<trace version="1" generator="[^"]*" complete="true">' ops.$m.xml ||
		fail "$m: ops: trace not complete: $(grep -o 'reason="[^"]*"' ops.$m.xml)"
	ops ops.$m.xml | sort > got.txt
	sed "s/LV/$lv/" > want.txt <<'WANT'
<io api="io_fdsync" res="filewrite"LV async="libaio" depth="2" fd="3" path="DIR/ops.dat"/>
<io api="io_fsync" res="filewrite"LV async="libaio" depth="1" fd="3" path="DIR/ops.dat"/>
<io api="io_pread" res="fileread"LV amount="100" size="100" offset="0" async="libaio" depth="1" fd="3" path="DIR/ops.dat"/>
<io api="io_pread" res="fileread"LV amount="4096" size="4096" offset="0" async="libaio" depth="1" fd="3" path="DIR/ops.dat"/>
<io api="io_preadv" res="fileread"LV amount="4096" size="4096" offset="4096" async="libaio" depth="2" fd="3" path="DIR/ops.dat"/>
<io api="io_pwrite" res="filewrite"LV amount="4096" size="4096" offset="0" async="libaio" depth="1" fd="3" path="DIR/ops.dat"/>
<io api="io_pwrite" res="filewrite"LV amount="8192" size="8192" offset="4096" async="libaio" depth="2" fd="3" path="DIR/ops.dat"/>
<io api="io_pwritev" res="filewrite"LV amount="1024" size="1024" offset="12288" async="libaio" depth="3" fd="3" path="DIR/ops.dat"/>
WANT
	diff -u want.txt got.txt || fail "$m: libaio's operations differ"
	expect_eq "$m: ops.dat (path,reads,bytes_read,writes,bytes_written)" \
		"$(perfile ops.$m.xml ops.dat)" "DIR/ops.dat,3,8292,3,13312"
	# an operation runs from its submission to the reaping call's end
	awk -F'"' '/ async=/ { for (i = 1; i < NF; i++) { if ($i ~ / start=$/) s = $(i+1); if ($i ~ / end=$/) e = $(i+1) }
		if (e + 0 < s + 0) bad = 1 } END { exit bad }' ops.$m.xml || fail "$m: an operation ends before it starts"
	grep -q '<io api="io_setup" res="filemeta"[^>]* ctx="0x[0-9a-f]*" count="8"/>' ops.$m.xml ||
		fail "$m: no io_setup with its queue depth"
	expect_eq "$m: io_submit elements" "$(grep -c '<io api="io_submit" ' ops.$m.xml)" 4
	# queues: one context, 8 operations, their bytes, 3 in flight at most
	"$ANALYZE" queues --csv ops.$m.xml > q.csv || fail "$m: queues"
	expect_eq "$m: queues (async,ops,bytes,depth_max)" "$(tail -n +2 q.csv | cut -d, -f3,5,6,9)" "libaio,8,21604,3"

	# 512 in flight at once, four times: each paired with its completion
	"$CAPTURE" $opt -o many.$m.xml -- "$APPS/aioops" many "$PWD/many.dat" 2> cap.err ||
		fail "$m: capture many: $(cat cap.err)"
	grep -q '<trace version="1" generator="[^"]*" complete="true">' many.$m.xml ||
		fail "$m: many: trace not complete: $(grep -o 'reason="[^"]*"' many.$m.xml)"
	"$ANALYZE" queues --csv many.$m.xml > q.csv || fail "$m: queues"
	expect_eq "$m: many: queue (ops,bytes,depth_max)" "$(tail -n +2 q.csv | cut -d, -f5,6,9)" "2048,1048576,512"

	for mode in reap destroy; do
		"$CAPTURE" $opt -o $mode.$m.xml -- "$APPS/aioops" $mode "$PWD/ops.dat" 2> cap.err ||
			fail "$m: capture $mode: $(cat cap.err)"
		check_trace $mode.$m.xml
		grep -q '<trace version="1" generator="[^"]*" complete="false">' $mode.$m.xml ||
			fail "$m: $mode: trace complete"
		n=3; [ $mode = destroy ] && n=2
		why="$n asynchronous operations with no completion seen when io_destroy ended their context (reaped from its ring in user space, or discarded in flight)"
		grep -q "status=\"exit:0\" complete=\"false\" reason=\"$why\">" $mode.$m.xml ||
			fail "$m: $mode: reason: $(grep -o 'reason="[^"]*"' $mode.$m.xml)"
		for r in calls files summary; do
			"$ANALYZE" $r $mode.$m.xml 2>&1 >/dev/null | sed -E 's/process [0-9]+/process N/' > warn.txt
			printf '%s\n' "$mode.$m.xml:2: warning: trace is incomplete (a process was killed or not fully seen); analysing what was recorded" \
				"$mode.$m.xml:5: warning: process N is incomplete: $why" > warn.want
			diff -u warn.want warn.txt || fail "$m: $mode: $r's warnings differ"
		done
	done

	"$CAPTURE" $opt -o posix.$m.xml -- "$APPS/posixaio" "$PWD/posix.dat" 2> cap.err ||
		fail "$m: capture posixaio: $(cat cap.err)"
	check_trace posix.$m.xml
	grep -q '<trace version="1" generator="[^"]*" complete="true">' posix.$m.xml ||
		fail "$m: posixaio: trace not complete: $(grep -o 'reason="[^"]*"' posix.$m.xml)"
	plv=; [ $m = syscalls ] && plv=' level="libc"'
	ops posix.$m.xml > got.txt
	sed "s/LV/$plv/" > want.txt <<'WANT'
<io api="aio_write" res="filewrite"LV amount="4096" size="4096" offset="0" async="posix" depth="1" fd="3" path="DIR/posix.dat"/>
<io api="aio_read" res="fileread"LV amount="100" size="100" offset="0" async="posix" depth="1" fd="3" path="DIR/posix.dat"/>
<io api="aio_write" res="filewrite"LV amount="512" size="512" offset="4096" async="posix" depth="1" fd="3" path="DIR/posix.dat"/>
<io api="aio_read" res="fileread"LV amount="512" size="512" offset="0" async="posix" depth="2" fd="3" path="DIR/posix.dat"/>
<io api="aio_fsync" res="filewrite"LV async="posix" depth="1" fd="3" path="DIR/posix.dat"/>
WANT
	diff -u want.txt got.txt || fail "$m: POSIX aio's operations differ"
	expect_eq "$m: posix.dat (path,reads,bytes_read,writes,bytes_written)" \
		"$(perfile posix.$m.xml posix.dat | cut -d, -f1,3,5)" "DIR/posix.dat,612,4608"
	grep -q '<io api="lio_listio" res="filemeta"[^>]* count="2"/>' posix.$m.xml || fail "$m: no lio_listio"
	pb=5220; [ $m = syscalls ] && pb=0
	"$ANALYZE" queues --csv posix.$m.xml > q.csv || fail "$m: queues"
	expect_eq "$m: posix queues (async,ctx,ops,bytes,depth_max)" "$(tail -n +2 q.csv | cut -d, -f3-6,9)" "posix,,5,$pb,2"

	# io_uring without liburing (rawuring: syscall() and libc's mmap, as
	# fio's setup): itemised in both modes, its registered file named
	"$CAPTURE" $opt -o raw.$m.xml -- "$APPS/rawuring" "$PWD/raw.dat" 2> cap.err
	rc=$?
	if [ $rc = 77 ] || grep -q 'io_uring_setup:' cap.err; then
		echo "io_uring refused here: $(cat cap.err)"
		continue
	fi
	[ $rc = 0 ] || fail "$m: capture rawuring: $(cat cap.err)"
	check_trace raw.$m.xml
	ops raw.$m.xml | sort > got.txt
	sed "s/LV/$lv/" <<'WANT' | sort > want.txt
<io api="uring_write" res="filewrite"LV amount="8192" size="8192" offset="0" async="io_uring" depth="1" fd="3" path="DIR/raw.dat"/>
<io api="uring_read" res="fileread"LV amount="4096" size="4096" offset="4096" async="io_uring" depth="2" fd="3" path="DIR/raw.dat"/>
<io api="uring_fsync" res="filewrite"LV async="io_uring" depth="1" fd="3" path="DIR/raw.dat"/>
<io api="uring_nop" res="wait"LV async="io_uring" depth="2"/>
WANT
	diff -u want.txt got.txt || fail "$m: io_uring's operations differ"
	"$ANALYZE" queues --csv raw.$m.xml > q.csv || fail "$m: queues"
	expect_eq "$m: ring queues (async,ops,bytes,depth_max)" "$(tail -n +2 q.csv | cut -d, -f3,5,6,9)" "io_uring,4,12288,2"
	why="1 io_uring operation not itemised: openat (1)"
	grep -q "status=\"exit:0\" complete=\"false\" reason=\"$why\">" raw.$m.xml ||
		fail "$m: rawuring: reason: $(grep -o 'reason="[^"]*"' raw.$m.xml)"

	# the same by a `syscall` instruction of its own (fio's engine): no
	# wrapper sees the ring, the rings' mappings tell that it was there;
	# --syscalls itemises it as before
	"$CAPTURE" $opt -o rawin.$m.xml -- "$APPS/rawuring" inline "$PWD/rawin.dat" 2> cap.err ||
		fail "$m: capture rawuring inline: $(cat cap.err)"
	check_trace rawin.$m.xml
	if [ $m = syscalls ]; then
		ops rawin.$m.xml | sed 's/rawin\.dat/raw.dat/' | sort > got.txt
		diff -u want.txt got.txt || fail "$m: inline io_uring's operations differ"
	else
		expect_eq "$m: inline io_uring: operations" "$(grep -c ' async=' rawin.$m.xml)" 0
		why="io_uring operations are not itemised"
	fi
	grep -q "status=\"exit:0\" complete=\"false\" reason=\"$why\">" rawin.$m.xml ||
		fail "$m: rawuring inline: reason: $(grep -o 'reason="[^"]*"' rawin.$m.xml)"
	"$ANALYZE" files rawin.$m.xml 2>&1 >/dev/null | grep -q "warning: process [0-9]* is incomplete: $why\$" ||
		fail "$m: rawuring inline: files does not warn"

	# liburing, which makes its own system calls: its rings learnt from
	# its functions (default) or the kernel boundary (--syscalls), eight
	# writes and reads of 4096 bytes; a SQPOLL ring's submissions make
	# no system call at all; a registered ring is entered by its index
	for mode in plain regring sqpoll; do
		"$APPS/uring" $mode "$PWD/u.dat" 2> uring.err
		rc=$?
		[ $rc = 77 ] && { echo "io_uring $mode refused here: $(cat uring.err)"; continue; }
		[ $rc = 0 ] || fail "uring $mode: $(cat uring.err)"
		# three runs: the rewritten io_uring_enter of liburing's loop
		# crashed it, most times, under --syscalls
		for k in 1 2 3; do
			"$CAPTURE" $opt -o u$mode.$m.xml -- "$APPS/uring" $mode "$PWD/u.dat" 2> cap.err ||
				fail "$m: capture uring $mode (run $k): $(cat cap.err)"
		done
		check_trace u$mode.$m.xml
		if [ $mode != sqpoll ]; then
			grep -q '<trace version="1" generator="[^"]*" complete="true">' u$mode.$m.xml ||
				fail "$m: uring $mode: incomplete: $(grep -o 'reason="[^"]*"' u$mode.$m.xml)"
			expect_eq "$m: uring $mode: u.dat" "$(perfile u$mode.$m.xml u.dat)" "DIR/u.dat,8,32768,8,32768"
			expect_eq "$m: uring $mode: operations" "$(grep -c ' async="io_uring"' u$mode.$m.xml)" 16
			continue
		fi
		why="io_uring operations submitted to a ring the kernel's thread polls (SQPOLL) are not itemised: no system call shows them"
		grep -q '<trace version="1" generator="[^"]*" complete="false">' u$mode.$m.xml ||
			fail "$m: uring $mode: trace complete"
		grep -q "status=\"exit:0\" complete=\"false\" reason=\"$why\">" u$mode.$m.xml ||
			fail "$m: uring $mode: reason: $(grep -o 'reason="[^"]*"' u$mode.$m.xml)"
		grep -q "^island-capture: u$mode.$m.xml: process [0-9]* is incomplete: $why\$" cap.err ||
			fail "$m: uring $mode: capture does not say why: $(cat cap.err)"
		"$ANALYZE" files u$mode.$m.xml 2>&1 >/dev/null | grep -q "warning: process [0-9]* is incomplete: $why\$" ||
			fail "$m: uring $mode: files does not warn"
	done
done
exit 0
