#!/bin/sh
# The MPI level's cost: an MPI_Send/MPI_Recv ping-pong of 8-byte messages
# between 2 ranks over shared memory (Open MPI's default), N round trips
# (tests/apps/mpi/mpipingpong; the loop's own time, mpirun's start-up
# not counted), natively and under island-capture (with the MPI level,
# and with ISLAND_MPI_LEVEL=0: the interposer alone): medians of RUNS
# runs and the ratios; and the floors of any recorder of each MPI call,
# build/bench/floor-mpi.so (two cycle-counter readings and a 32-byte
# record a call, through PMPI, nothing else): round a ring in the cache,
# and into fresh memory as a recorder that keeps every record must. On
# a shared or loaded machine the spread is large: two ranks spin on two
# cores (here runs fall 0.03 or 0.08 s natively, whatever the build).
#   RUNS=5 N=100000 bench/mpi.sh
cd "$(dirname "$0")/.." || exit 2
RUNS=${RUNS:-5}
N=${N:-100000}
APP=build/tests/apps/mpipingpong
C=$PWD/bin/island-capture
command -v mpirun > /dev/null || { echo "bench/mpi.sh: no mpirun: skipped"; exit 0; }
[ -x $APP ] || { echo "bench/mpi.sh: $APP not built: skipped"; exit 0; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

. bench/lib.sh
bench_tmp

loop() { sed -n 's/^pingpong \([0-9.]*\)$/\1/p'; }
: > "$tmp/native"; : > "$tmp/cap"; : > "$tmp/off"; : > "$tmp/ring"; : > "$tmp/fresh"
FLOOR=$PWD/build/bench/floor-mpi.so
for i in $(seq "$RUNS"); do
	mpirun --oversubscribe -n 2 $APP "$N" 8 2> /dev/null | loop >> "$tmp/native"
	if [ -f "$FLOOR" ]; then
		LD_PRELOAD=$FLOOR FLOOR_RING=1 mpirun --oversubscribe -x LD_PRELOAD -x FLOOR_RING \
			-n 2 $APP "$N" 8 2> /dev/null | loop >> "$tmp/ring"
		LD_PRELOAD=$FLOOR mpirun --oversubscribe -x LD_PRELOAD -n 2 $APP "$N" 8 \
			2> /dev/null | loop >> "$tmp/fresh"
	fi
	(cd "$tmp" && rm -f *.xml && mpirun --oversubscribe -n 2 "$C" -n b -- \
		"$OLDPWD/$APP" "$N" 8 2> /dev/null) | loop >> "$tmp/cap"
	(cd "$tmp" && rm -f *.xml && ISLAND_MPI_LEVEL=0 mpirun --oversubscribe -x ISLAND_MPI_LEVEL \
		-n 2 "$C" -n b -- "$OLDPWD/$APP" "$N" 8 2> /dev/null) | loop >> "$tmp/off"
done
echo "runs (s): native $(tr "\n" " " < "$tmp/native"); ring $(tr "\n" " " < "$tmp/ring"); fresh $(tr "\n" " " < "$tmp/fresh"); level $(tr "\n" " " < "$tmp/cap"); off $(tr "\n" " " < "$tmp/off")"
native=$(median < "$tmp/native")
cap=$(median < "$tmp/cap")
off=$(median < "$tmp/off")
printf '%-40s %10s %8s\n' "MPI ping-pong, $N x 8 B, 2 ranks, shm" seconds "x native"
printf '%-40s %10.3f %8.2f\n' native "$native" 1
for f in ring fresh; do
	[ -s "$tmp/$f" ] || continue
	v=$(median < "$tmp/$f")
	printf '%-40s %10.3f %8.2f   (a floor)\n' "2 readings + 32 B a call, $f" "$v" \
		"$(echo "$v / $native" | bc -l)"
done
printf '%-40s %10.3f %8.2f\n' "island-capture, MPI level" "$cap" "$(echo "$cap / $native" | bc -l)"
printf '%-40s %10.3f %8.2f\n' "island-capture, ISLAND_MPI_LEVEL=0" "$off" "$(echo "$off / $native" | bc -l)"
