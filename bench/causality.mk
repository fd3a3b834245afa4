# The causality engine: precision, recall and capture time of --discover.
BENCH_SCRIPTS += bench/causality.sh
BENCH_SCRIPTS += bench/discover.sh
