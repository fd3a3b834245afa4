# Other LD_PRELOAD libraries stacked with the capture's, in either order:
# the program behaves as it does under them without the capture
# (tests/apps/stacked: its output, its file), and what the trace holds is
# what the order decides (docs/island-capture.md, Other interposers): a
# call a library before ours answers without passing it on is not seen
# (eatmydata's fsync, jemalloc's malloc); after ours it is recorded, and
# --syscalls shows it never reached the kernel. libfaketime's clock is
# the program's, not the capture's; a wrapper that passes write() on
# (Darshan-style, tests/apps/libwrapwrite.c) counts as without us; an
# ASan program runs (its runtime refused to come after us), with its
# runtime preloaded or not. The capture itself runs without them.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
LIB="$ISLAND_ROOT/lib/libisland-capture.so"
ML=/usr/lib/x86_64-linux-gnu
EMD=$ML/libeatmydata.so FT=$ML/faketime/libfaketime.so.1 JE=$ML/libjemalloc.so.2
WW="$APPS/libwrapwrite.so"
for l in "$EMD" "$FT" "$JE"; do [ -f "$l" ] || { echo "needs $l"; exit 77; }; done
export FAKETIME="@2001-02-03 04:05:06"

# run NAME PRELOAD [OPTIONS]: the program under PRELOAD alone (NAME.want)
# and captured with PRELOAD in the order given (NAME.got, NAME.xml)
run() {
	n=$1 pre=$2
	shift 2
	rm -rf d && mkdir d
	LD_PRELOAD="${pre#$LIB:}" "$APPS/stacked" "$PWD/d" > $n.want 2> $n.wanterr ||
		fail "$n: alone: $(cat $n.wanterr)"
	wc -c < d/out > $n.wantfile
	rm -rf d && mkdir d
	LD_PRELOAD="$pre" "$CAPTURE" "$@" -o $n.xml -- "$APPS/stacked" "$PWD/d" > $n.got 2> $n.goterr ||
		fail "$n: captured: $(cat $n.goterr)"
	expect_eq "$n: the program's output" "$(cat $n.got)" "$(cat $n.want)"
	expect_eq "$n: its stderr" "$(cat $n.goterr)" "$(cat $n.wanterr)"
	expect_eq "$n: its file" "$(wc -c < d/out)" "$(cat $n.wantfile)"
	check_trace $n.xml
	grep -q '^<trace [^>]*complete="true"' $n.xml || fail "$n: the trace is incomplete"
	expect_eq "$n: writes recorded" "$(grep -c '<io api="write" [^>]*path="[^"]*/d/out"' $n.xml)" 10
}
fsyncs() { grep -o '<io api="fsync" [^>]*' "$1" | sed 's/ start="[^"]*" end="[^"]*"//; s/ path="[^"]*"//; s|/$||'; }

# eatmydata: first, its fsync answers and nothing is recorded, not even
# at the kernel; after us, the program's fsync is recorded, at libc only
run emd1 "$EMD" --syscalls
grep -q '^fsync 0$' emd1.got || fail "eatmydata's fsync: $(cat emd1.got)"
expect_eq "eatmydata first: fsync" "$(fsyncs emd1.xml)" ""
run emd2 "$LIB:$EMD" --syscalls
expect_eq "eatmydata after us: fsync" "$(fsyncs emd2.xml)" '<io api="fsync" res="filewrite" level="libc" fd="3"'
# without it, the fsync reaches the kernel
LD_PRELOAD= "$CAPTURE" --syscalls -o plain.xml -- "$APPS/stacked" "$PWD/d" > /dev/null ||
	fail "the program alone"
expect_eq "no eatmydata: fsync" "$(fsyncs plain.xml)" '<io api="fsync" res="filewrite" level="libc|kernel" sys="fsync" fd="3"'

# libfaketime: the program's year is 2001, in both orders; the capture's
# clock is its own (the trace's epoch is now, its times the run's)
for o in 1 2; do
	pre=$FT; [ $o = 2 ] && pre="$LIB:$FT"
	run ft$o "$pre"
	grep -q '^year 2001$' ft$o.got || fail "faketime $o: $(cat ft$o.got)"
	e=$(sed -n 's/.*<node [^>]*epoch="\([0-9]*\)\..*/\1/p' ft$o.xml)
	[ "$e" -gt "$(($(date +%s) - 600))" ] || fail "faketime $o: the trace's epoch is $e"
	end=$(sed -n 's/.*<node [^>]*end="\([0-9.]*\)".*/\1/p' ft$o.xml)
	within "faketime $o: the run's length" "$end" 0 30
done

# jemalloc: the program runs in both orders; after us, each of alloc_a's
# allocations is counted; before us, jemalloc answers them: none is
run je1 "$JE" --profile=alloc --sample-alloc 1
expect_eq "jemalloc first: alloc_a" "$("$ANALYZE" profile allocs --csv je1.xml | grep -c '^alloc_a,')" 0
run je2 "$LIB:$JE" --profile=alloc --sample-alloc 1
expect_eq "jemalloc after us: alloc_a" "$("$ANALYZE" profile allocs --csv je2.xml | grep '^alloc_a,')" "alloc_a,257-1K,1000,1000000"

# a wrapper that passes write() on: its count as without us, and every
# write recorded, in both orders
for o in 1 2; do
	pre=$WW; [ $o = 2 ] && pre="$LIB:$WW"
	run ww$o "$pre"         # (its stderr, the count, as without us)
	grep -q '^wrapwrite: 1[01] calls, 10[0-9][0-9] bytes$' ww$o.goterr ||
		fail "wrapwrite $o: $(cat ww$o.goterr)"
done

# an ASan program: as without us, its runtime preloaded or not; the
# program sees no ASAN_OPTIONS of ours
asan=$(gcc -print-file-name=libasan.so)
"$APPS/stacked-asan" "$PWD" > asan.want 2>&1 || fail "the ASan program alone"
for pre in "" "$asan"; do
	LD_PRELOAD="$pre" "$CAPTURE" -o asan.xml -- "$APPS/stacked-asan" "$PWD" > asan.got 2>&1 ||
		fail "ASan program (LD_PRELOAD='$pre'): $(head -3 asan.got)"
	expect_eq "ASan program (LD_PRELOAD='$pre')" "$(cat asan.got)" "$(cat asan.want)"
	expect_eq "ASan program: writes" "$(grep -c '<io api="write" [^>]*path="[^"]*/out"' asan.xml)" 10
done
# (none of the user's: the ASan half's make test-run exports some)
env -u ASAN_OPTIONS "$CAPTURE" -o env.xml -- sh -c 'echo "[${ASAN_OPTIONS-unset}]"' > env.got || fail "sh"
expect_eq "ASAN_OPTIONS seen" "$(cat env.got)" "[unset]"
ASAN_OPTIONS=detect_leaks=0 "$CAPTURE" -o env.xml -- sh -c 'echo "[$ASAN_OPTIONS]"' > env.got || fail "sh"
expect_eq "ASAN_OPTIONS of the user" "$(cat env.got)" "[detect_leaks=0]"
# the user's own that ends as ours would, or is all ours would be: theirs,
# whole, and so in a child's exec (regression: its end was taken off)
for v in detect_leaks=0:verify_asan_link_order=0 verify_asan_link_order=0; do
	ASAN_OPTIONS=$v "$CAPTURE" -o env.xml -- sh -c 'echo "[$ASAN_OPTIONS]"; printenv ASAN_OPTIONS' \
		> env.got || fail "sh"
	expect_eq "ASAN_OPTIONS of the user: $v" "$(cat env.got)" "[$v]
$v"
done
env -u ASAN_OPTIONS "$CAPTURE" -o env.xml -- sh -c 'printenv ASAN_OPTIONS; echo "[$?]"' > env.got
expect_eq "ASAN_OPTIONS in a child" "$(cat env.got)" "[1]"
ASAN_OPTIONS=detect_leaks=0 "$CAPTURE" -o env.xml -- printenv ASAN_OPTIONS > env.got || fail "printenv"
expect_eq "ASAN_OPTIONS of the user in a child" "$(cat env.got)" "detect_leaks=0"
exit 0
