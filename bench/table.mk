# The capture against native where users feel it, in one table.
BENCH_SCRIPTS += bench/table.sh
