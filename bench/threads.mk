# A thread a request: thousands of short threads captured.
BENCH_SCRIPTS += bench/threads.sh
