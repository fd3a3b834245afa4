# --syscalls against native, the default capture and strace.
BENCH_SCRIPTS += bench/syscalls.sh
