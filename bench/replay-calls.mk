# The replayer's own cost per call: a trace of calls it does not reissue,
# and sqlite3's thousands of few-microsecond calls replayed causally.
BENCH_SCRIPTS += bench/replay-calls.sh
