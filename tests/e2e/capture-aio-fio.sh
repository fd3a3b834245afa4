# fio, whose JSON report is the truth (io_bytes per direction), on a
# 2 MiB file, random read/write, iodepth 8, through each I/O engine, in
# the default capture and under --syscalls: per file, the bytes read and
# written that island-analyze files --csv reports equal fio's io_bytes
# plus the file's layout (the first run lays the file out: its size,
# written). A run whose trace says complete="false" must be the default
# capture's of io_uring (fio makes io_uring_enter itself) and say why;
# one that says complete="true" must be exact.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
command -v fio >/dev/null || { echo "fio not installed"; exit 77; }

# check TRACE JSON LAYOUT: the data file's row against fio's report
check() {
	"$ANALYZE" files --csv "$1" > files.csv 2> analyze.err || fail "$1: files: $(cat analyze.err)"
	python3 - "$1" "$2" "$3" "$PWD/data" files.csv <<'PY' || fail "$1: the bytes differ from fio's (above)"
import csv, json, sys
trace, rep, layout, path, files = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
j = json.load(open(rep))["jobs"][0]
want = (j["read"]["io_bytes"], j["write"]["io_bytes"] + layout)
rows = [r for r in csv.DictReader(open(files)) if r["path"] == path]
got = (sum(int(r["bytes_read"]) for r in rows), sum(int(r["bytes_written"]) for r in rows))
if got != want or want[0] == 0 or want[1] == 0:
    print("%s: read, written: got %s, fio says %s (io_bytes + layout %d)" % (trace, got, want, layout))
    sys.exit(1)
PY
}

fs=$(stat -f -c %T .)
n=0
while read -r name opts; do
	for m in default syscalls; do
		opt=; [ $m = syscalls ] && opt=--syscalls
		n=$((n + 1))
		layout=0
		[ -f data ] || layout=-1
		# shellcheck disable=SC2086
		"$CAPTURE" $opt -o $name.$m.xml -- fio --name=t --filename="$PWD/data" --size=2m \
			--rw=randrw --bs=4k --iodepth=8 $opts --output-format=json \
			--output=$name.$m.json > /dev/null 2> cap.err || fail "$name $m: capture: $(cat cap.err)"
		[ $layout = -1 ] && layout=$(stat -c %s data)
		check_trace $name.$m.xml
		if grep -q '<trace version="1" generator="[^"]*" complete="true">' $name.$m.xml; then
			check $name.$m.xml $name.$m.json $layout
		else
			case $name.$m in
			io_uring*.default)
				# fio's io_uring_enter is its own system call: the
				# default capture sees its setup, not its submissions
				grep -q 'reason="[^"]*completed on an io_uring with no submission seen' $name.$m.xml ||
					fail "$name $m: incomplete: $(grep -o 'reason="[^"]*"' $name.$m.xml)"
				echo "$name $m: complete=\"false\", as it says: $(grep -o 'reason="[^"]*"' $name.$m.xml)" ;;
			*)
				fail "$name $m: incomplete: $(grep -o 'reason="[^"]*"' $name.$m.xml)" ;;
			esac
		fi
	done
done <<'RUNS'
sync --ioengine=sync
psync --ioengine=psync
pvsync2 --ioengine=pvsync2
posixaio --ioengine=posixaio
libaio --ioengine=libaio
libaio-direct --ioengine=libaio --direct=1
io_uring --ioengine=io_uring
io_uring-fixed --ioengine=io_uring --fixedbufs --registerfiles
RUNS
echo "$n runs checked (the data file on $fs)"
exit 0
