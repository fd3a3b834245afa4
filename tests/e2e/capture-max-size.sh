# Long runs bounded: --max-size SIZE stops recording once the trace takes
# SIZE (k, M, G), says so on stderr, marks the trace complete="false"
# reason="max-size", and the app runs on as without it; a trace that
# grows at a rate that would fill its file system within the hour is
# said once, with the compact encoding's name (a 48 MiB tmpfs); so is a
# spool that would reach its limit within the hour, 10 s into the run.
. "$ISLAND_ROOT/tests/e2e/lib.sh"

# the whole run: some 50,000 calls, 8 MB of XML
"$APPS/paced" plain.out 50000 > plain.txt
for o in max.xml max.isb.zst; do
	m=256k; [ $o = max.isb.zst ] && m=1M
	"$CAPTURE" --max-size $m -o $o -- "$APPS/paced" app.out 50000 > app.txt 2> cap.err ||
		fail "$o: the capture failed: $(cat cap.err)"
	expect_eq "$o: the app's output" "$(cat app.txt)" "$(cat plain.txt)"
	expect_eq "$o: the app's file" "$(wc -c < app.out)" 50000
	case $o in
	*.xml)
		grep -q "^island-capture: max.xml: --max-size reached after [0-9.]* s: recording stopped, the program runs on; the trace is marked complete=\"false\" reason=\"max-size\"$" cap.err ||
			fail "$o: no word of --max-size: $(cat cap.err)"
		grep -q '^<trace [^>]*complete="false" reason="max-size"' max.xml ||
			fail "$o: not marked: $(head -2 max.xml | tail -1)"
		check_trace max.xml
		sz=$(wc -c < max.xml)
		# at most some 5 ms of calls past the size
		[ "$sz" -le $((256 * 1024 * 2)) ] || fail "$o: $sz bytes for --max-size 256k"
		n=$("$ANALYZE" files --csv max.xml 2>/dev/null | awk -F, '$2 ~ /app\.out$/ { print $7 }')
		[ "$n" -gt 100 ] && [ "$n" -lt 50000 ] || fail "$o: $n writes recorded"
		;;
	*)	# 50,000 calls in some 300 kB: under the size, the trace whole
		[ -s cap.err ] && fail "$o: $(cat cap.err)"
		"$ANALYZE" export --format xml -o max2.xml max.isb.zst || fail "export of $o"
		grep -q '^<trace [^>]*complete="true"' max2.xml || fail "$o: not whole"
		;;
	esac
done
"$CAPTURE" --max-size 12q -o bad.xml -- true 2> bad.err && fail "--max-size 12q ran"
expect_eq "bad size" "$(cat bad.err)" "island-capture: --max-size: '12q' is not a size of 4k or more (a number, k, M or G)"

# a trace that would fill its file system within the hour
[ "$(id -u)" = 0 ] || { echo "the rate's warning needs root (a tmpfs)"; exit 0; }
mkdir small
mount -t tmpfs -o size=48m island-small "$PWD/small" || { echo "no tmpfs: rate not checked"; exit 0; }
trap 'umount "$PWD/small"' EXIT
"$CAPTURE" -o small/g.xml -- "$APPS/paced" app.out 150000 > /dev/null 2> rate.err ||
	fail "the capture on a small file system failed: $(cat rate.err)"
grep -q "^island-capture: small/g.xml: the trace grows [0-9.]* [kMG]*B/s: at that rate the [0-9.]* [kMG]*B free on its file system are full within the hour (-o NAME.isb.zst writes a few bytes a call; --max-size SIZE stops recording at SIZE)$" rate.err ||
	fail "no warning of the rate: $(cat rate.err)"
expect_eq "warnings of the rate" "$(grep -c 'the trace grows' rate.err)" 1

# a spool that would reach its limit within the hour: said once, from
# 10 s into the run on, with where it is (a 256 MiB tmpfs: a limit of
# 128, some 2 MB/s, 12 s); the trace (compact, in the cwd) whole
mkdir spool
mount -t tmpfs -o size=256m island-spool "$PWD/spool" || { echo "no tmpfs: the spool's rate not checked"; exit 0; }
trap 'umount "$PWD/small" "$PWD/spool"' EXIT
"$CAPTURE" --spool-dir "$PWD/spool" -o sp.isb.zst -- "$APPS/paced" app.out 600000 > /dev/null 2> spool.err ||
	fail "the capture with its spool on a small file system failed: $(cat spool.err)"
grep -q "^island-capture: sp.isb.zst: the spool grows [0-9.]* [kMG]*B/s: at that rate the [0-9.]* [kMG]*B left of its limit are used within the hour, and nothing is recorded after (the spool keeps some 64 bytes a call until the end; its limit is half the space that was free in $PWD/spool: --spool-dir on a file system with more room)$" spool.err ||
	fail "no warning of the spool's rate: $(cat spool.err)"
expect_eq "warnings of the spool's rate" "$(grep -c 'the spool grows' spool.err)" 1
expect_eq "lines on stderr" "$(wc -l < spool.err)" 1
"$ANALYZE" export --format xml -o sp.xml sp.isb.zst || fail "export of sp.isb.zst"
grep -q '^<trace [^>]*complete="true"' sp.xml || fail "sp.isb.zst: not whole"
exit 0
