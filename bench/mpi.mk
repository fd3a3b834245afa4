# The MPI level's cost: a ping-pong of 8-byte messages.
BENCH_SCRIPTS += bench/mpi.sh
