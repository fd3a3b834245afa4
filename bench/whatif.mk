# What-if replay on a slow file system (root, a loop device, an io
# controller; it says why and passes where they are missing).
BENCH_SCRIPTS += bench/whatif.sh
