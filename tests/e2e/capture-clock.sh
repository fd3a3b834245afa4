# The times in a trace are where the application's own clock puts its
# calls. tests/apps/stamps makes 25 writes 120 ms apart (3 s), each
# between two readings of the wall clock; in the trace (the node's epoch
# plus the write's start and end) each must lie between them, within
# 20 us. Streamed (.xml, .isb.zst), the cycle counter's map is fixed in
# stretches while the app runs, each with a slope from the start to its
# own beginning (a stretch that went wrong, a jump or a slope left at
# 1 ns a tick, would put the later writes off by milliseconds); written
# at the end (--callsites), with one slope over the run; and with no
# cycle counter (--clock monotonic).
. "$ISLAND_ROOT/tests/e2e/lib.sh"

# placed STAMPS TRACE_XML: "ok N", or the first write out of place
placed() {
	/usr/bin/python3 - "$1" "$2" <<'PY'
import re, sys
want = {}
for line in open(sys.argv[1]):
    size, a, b = line.split()
    want[int(size)] = (int(a), int(b))
xml = open(sys.argv[2]).read()
m = re.search(r'<node [^>]*epoch="(\d+)\.(\d{9})"', xml)
epoch = int(m.group(1)) * 10**9 + int(m.group(2))
def ns(v):
    s, f = v.split(".")
    return int(s) * 10**9 + int(f.ljust(9, "0")[:9])
n = 0
for io in re.finditer(r'<io api="write" [^>]*start="([0-9.]+)" end="([0-9.]+)" amount="(\d+)"[^>]* path="/dev/null"', xml):
    size = int(io.group(3))
    if size not in want:
        continue
    a, b = want[size]
    t0, t1 = epoch + ns(io.group(1)), epoch + ns(io.group(2))
    if t0 < a - 20000 or t1 > b + 20000:
        print("write of %d bytes at [%d, %d] ns, outside [%d, %d]" % (size, t0, t1, a, b))
        sys.exit(0)
    n += 1
print("ok", n)
PY
}

n=0
for out in clock.xml clock.isb.zst; do
	for opt in "" --callsites "--clock monotonic"; do
		[ "$out $opt" = "clock.isb.zst --clock monotonic" ] && continue
		n=$((n + 1))
		rm -f "$out"
		"$CAPTURE" $opt -n clock -o "$out" "$APPS/stamps" 25 120 > stamps.txt ||
			fail "$out $opt: the capture failed"
		case $out in
		*.isb.zst) "$ANALYZE" export --format xml "$out" > trace.xml ;;
		*) cp "$out" trace.xml ;;
		esac
		expect_eq "$out ${opt:-streamed}: the writes where the app's clock has them" \
			"$(placed stamps.txt trace.xml)" "ok 25"
	done
done
echo "capture-clock: $n traces, 25 writes each in place"
