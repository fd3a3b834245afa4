#!/bin/sh
# Asynchronous I/O under the capture: fio's io_uring engine at iodepth 32
# (4 KiB random reads of a 64 MiB file on tmpfs, time-limited), IOPS
# natively, under the default capture and under --syscalls (where
# fio's own io_uring_enter is seen and every operation itemised); libaio
# at iodepth 32 alike. Medians of RUNS runs and the ratio to native (the
# issue's bar: >= 0.90). The machine may be shared: noisy.
#   RUNS=5 SECS=3 bench/aio.sh
cd "$(dirname "$0")/.." || exit 2
RUNS=${RUNS:-5}
SECS=${SECS:-3}
C=bin/island-capture
command -v fio >/dev/null || { echo "fio not installed: aio bench skipped"; exit 0; }

. bench/lib.sh
bench_tmp

# iops OUT: fio's read IOPS from its JSON report OUT
iops() { python3 -c 'import json,sys; print(round(json.load(open(sys.argv[1]))["jobs"][0]["read"]["iops"]))' "$1"; }

# job ENGINE OUT [PREFIX...]: the fio job, run under PREFIX
job() {
	e=$1 out=$2
	shift 2
	"$@" fio --name=b --filename="$tmp/data" --size=64m --rw=randread --bs=4k --iodepth=32 \
		--ioengine="$e" --time_based --runtime="$SECS" --output-format=json \
		--output="$out" > /dev/null 2>&1
}

fio --name=lay --filename="$tmp/data" --size=64m --rw=write --bs=1m \
	--output="$tmp/lay.json" > /dev/null || exit 1
printf '%-40s %10s %8s\n' "fio randread 4k iodepth 32, tmpfs" "IOPS" "x native"
for e in io_uring libaio; do
	: > "$tmp/n"; : > "$tmp/d"; : > "$tmp/s"
	for i in $(seq "$RUNS"); do
		job $e "$tmp/n.json" && iops "$tmp/n.json" >> "$tmp/n"
		job $e "$tmp/d.json" $C -n bench -o "$tmp/d.xml.zst" -- &&
			iops "$tmp/d.json" >> "$tmp/d"
		job $e "$tmp/s.json" $C --syscalls -n bench -o "$tmp/s.xml.zst" -- &&
			iops "$tmp/s.json" >> "$tmp/s"
	done
	n=$(median < "$tmp/n"); d=$(median < "$tmp/d"); s=$(median < "$tmp/s")
	ratio() { echo "scale=2; $1 / $n" | bc; }
	printf '%-40s %10s %8s\n' "$e native" "$n" "1.00"
	printf '%-40s %10s %8s\n' "$e island-capture" "$d" "$(ratio "$d")"
	printf '%-40s %10s %8s\n' "$e island-capture --syscalls" "$s" "$(ratio "$s")"
done

# one io_uring_enter that does nothing: through libc's syscall() (its
# site rewritten under --syscalls) and by the program's own `syscall`
# (fio's: a signal each, as liburing's; never rewritten, see sud.c), and
# that signal's own cost (uring-enter trap)
U=build/bench/uring-enter
[ -x "$U" ] || { echo "$U not built (make bench builds it)"; exit 0; }
printf '\n%-40s %10s %8s\n' "io_uring_enter, nothing to do" "ns/call" "x native"
for m in libc inline; do
	: > "$tmp/n"; : > "$tmp/s"
	for i in $(seq "$RUNS"); do
		"$U" $m | awk '{ print $2 }' >> "$tmp/n"
		$C --syscalls -n bench -o "$tmp/u.xml.zst" -- "$U" $m | awk '{ print $2 }' >> "$tmp/s"
	done
	n=$(median < "$tmp/n"); s=$(median < "$tmp/s")
	printf '%-40s %10s %8s\n' "$m native" "$n" "1.00"
	printf '%-40s %10s %8s\n' "$m island-capture --syscalls" "$s" "$(echo "scale=2; $s / $n" | bc)"
done
# the floor of a call no rewrite takes off the signal: the inline one
# trapped by Syscall User Dispatch to a handler that only makes it
: > "$tmp/t"
for i in $(seq "$RUNS"); do
	"$U" trap | awk '{ print $2 }' >> "$tmp/t"
done
t=$(median < "$tmp/t")
[ -n "$t" ] && printf '%-40s %10s %8s   (the floor of a signal a call)\n' "inline, trapped, bare handler" "$t" \
	"$(echo "scale=2; $t / $n" | bc)"
