# The replayer: fidelity for each pseudo-application and mode (local, and
# under MPI where mpirun is found), and its own overhead in calls per
# second with compute off.
BENCH_SCRIPTS += bench/replay.sh
