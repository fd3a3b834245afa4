#!/bin/sh
# --syscalls overhead: 1,000,000 64-byte writes to /dev/null natively,
# under the default capture, under --syscalls and under strace -f, in one
# run: medians of RUNS runs (strace: one run) and the ratios to native.
# Wall time of the whole command, trace writing included for both
# captures (what a user waits for), and the time in the run alone (the
# node's end in the trace: what the application lived under the capture),
# and --syscalls to zstd (-o .xml.zst) and to the binary encoding
# (-o .isb.zst).
#   RUNS=5 bench/syscalls.sh
cd "$(dirname "$0")/.." || exit 2
RUNS=${RUNS:-5}
N=${N:-1000000}
W=build/tests/apps/writes
C=bin/island-capture

. bench/lib.sh
bench_tmp

# in_run TRACE: its node's end, seconds
in_run() { sed -n 's/^<node [^>]* end="\([0-9.]*\)".*/\1/p' "$1"; }

: > "$tmp/native"; : > "$tmp/default"; : > "$tmp/sys"; : > "$tmp/drun"; : > "$tmp/srun"
: > "$tmp/sysb"; : > "$tmp/sysz"
for i in $(seq "$RUNS"); do
	timed $W 1 "$N" 64 >> "$tmp/native"
	timed $C -n bench -o "$tmp/d.xml" $W 1 "$N" 64 >> "$tmp/default"
	in_run "$tmp/d.xml" >> "$tmp/drun"
	timed $C --syscalls -n bench -o "$tmp/s.xml" $W 1 "$N" 64 >> "$tmp/sys"
	in_run "$tmp/s.xml" >> "$tmp/srun"
	timed $C --syscalls -n bench -o "$tmp/s.xml.zst" $W 1 "$N" 64 >> "$tmp/sysz"
	# the binary encoding (docs/trace-binary.md), zstd
	timed $C --syscalls -n bench -o "$tmp/s.isb.zst" $W 1 "$N" 64 >> "$tmp/sysb"
done
native=$(median < "$tmp/native")
def=$(median < "$tmp/default")
sys=$(median < "$tmp/sys")
drun=$(median < "$tmp/drun")
srun=$(median < "$tmp/srun")
sysb=$(median < "$tmp/sysb")
sysz=$(median < "$tmp/sysz")
if command -v strace >/dev/null; then
	st=$(timed strace -f -o "$tmp/strace.out" $W 1 "$N" 64)
else
	st=""
fi
ratio() { [ -n "$1" ] && echo "scale=2; $1 / $native" | bc || echo "-"; }
printf '%-34s %10s %8s\n' "$N x 64-byte writes, 1 thread" "seconds" "x native"
printf '%-34s %10s %8s\n' "native" "$native" "1.00"
printf '%-34s %10s %8s\n' "island-capture (libc level)" "$def" "$(ratio "$def")"
printf '%-34s %10s %8s\n' "  of which in the run" "$drun" "$(ratio "$drun")"
printf '%-34s %10s %8s\n' "island-capture --syscalls" "$sys" "$(ratio "$sys")"
printf '%-34s %10s %8s\n' "  of which in the run" "$srun" "$(ratio "$srun")"
printf '%-34s %10s %8s\n' "  to -o .xml.zst" "$sysz" "$(ratio "$sysz")"
printf '%-34s %10s %8s\n' "  to -o .isb.zst" "$sysb" "$(ratio "$sysb")"
printf '%-34s %10s %8s\n' "strace -f -o" "${st:--}" "$(ratio "$st")"
