# The capture's cost: 1,000,000 64-byte writes natively, under
# island-capture and under strace.
BENCH_SCRIPTS += bench/capture.sh
