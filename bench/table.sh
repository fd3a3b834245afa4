#!/bin/sh
# The capture's cost where users feel it, one table in one run: each
# workload natively and under island-capture (medians of RUNS runs, A/B
# paired), its ratio and its target; the floor of bench/floor.c and
# strace -f as a peer in the same run. Trace on the program's file system
# ("disk": a directory under build/) unless the row says /dev/shm;
# sqlite3's database in memory (/dev/shm), as a fsync a row on disk measures
# the disk.
#   RUNS=5 bench/table.sh            SKIP_SERVERS=1: no pgbench, no ab
cd "$(dirname "$0")/.." || exit 2
RUNS=${RUNS:-5}
ROOT=$PWD
C=$ROOT/bin/island-capture
W=$ROOT/build/tests/apps/writes
FLOOR=$ROOT/build/bench/floor.so

. bench/lib.sh
bench_tmp
disk=$(mktemp -d "$ROOT/build/bench-disk.XXXXXX") || exit 2
trap 'rm -rf "$tmp" "$disk"; [ -n "$srv" ] && kill $srv 2>/dev/null' EXIT

# pair LABEL TARGET CMD...: CMD natively and under the capture (trace in
# $OUT, default $disk/t.xml; capture options in $COPTS), RUNS times each,
# alternating; a row of medians
pair() {
	label=$1 target=$2; shift 2
	: > "$tmp/n"; : > "$tmp/c"
	for i in $(seq "$RUNS"); do
		prep
		timed "$@" >> "$tmp/n" 2>/dev/null
		prep
		rm -f "${OUT:-$disk/t.xml}"
		timed "$C" $COPTS -n bench -o "${OUT:-$disk/t.xml}" -- "$@" >> "$tmp/c" 2>/dev/null
	done
	row "$label" "$(median < "$tmp/n")" "$(median < "$tmp/c")" "$target"
}
prep() { :; }

row() {
	awk -v l="$1" -v n="$2" -v c="$3" -v t="$4" 'BEGIN {
		printf "%-46s %9.3f s %9.3f s %7.2fx   %s\n", l, n, c, c / n, t }'
}

printf '%-46s %11s %11s %8s   %s\n' "workload" "native" "captured" "ratio" "target"

# 1M writes: the floor, then the capture in each of its forms
: > "$tmp/n"; : > "$tmp/f"
for i in $(seq "$RUNS"); do
	timed $W 1 1000000 64 >> "$tmp/n"
	[ -f "$FLOOR" ] && timed env FLOOR_RING=1 LD_PRELOAD="$FLOOR" $W 1 1000000 64 >> "$tmp/f"
done
native1m=$(median < "$tmp/n")
[ -s "$tmp/f" ] && row "1M writes: floor (2 readings + 32 B, ring)" "$native1m" "$(median < "$tmp/f")" "(the floor)"
OUT=$tmp/t.xml pair "1M writes, trace on /dev/shm" "<= floor + 0.08" $W 1 1000000 64
pair "1M writes, trace on disk" "<= 1.5x" $W 1 1000000 64
COPTS=--syscalls pair "1M writes, trace on disk, --syscalls" "<= 2.5x" $W 1 1000000 64
OUT=$disk/t.xml.gz pair "4 threads x 250k writes, .xml.gz" "<= 2.0x" $W 4 250000 64
OUT=$disk/t.isb.zst pair "4 threads x 250k writes, .isb.zst" "<= 2.0x" $W 4 250000 64

# real programs
if command -v sqlite3 >/dev/null; then
	awk 'BEGIN { print "create table t(a integer, b text);"
		for (i = 0; i < 10000; i++) printf "insert into t values(%d, '\''row %d'\'');\n", i, i }' > "$tmp/ins.sql"
	prep() { rm -f "$tmp/db.sqlite"; }
	pair "sqlite3, 10,000 autocommit inserts" "<= 1.10x" sh -c 'exec sqlite3 "$1" < "$2"' sh "$tmp/db.sqlite" "$tmp/ins.sql"
	prep() { :; }
fi
mkdir -p "$tmp/src"
head -c 2000000 /dev/urandom | base64 > "$tmp/src/data.txt"
pair "tar czf of 2 MB" "<= 1.10x" tar czf "$disk/a.tgz" -C "$tmp" src
pair "python3: 5 modules and a subprocess" "<= 1.10x" python3 -c 'import json, csv, zlib, hashlib, subprocess; subprocess.run(["true"])'
if command -v git >/dev/null; then
	g=$tmp/repo
	git init -q "$g" && (cd "$g" && for i in $(seq 300); do
		echo "$i" > "f$((i % 20))"; git add -A >/dev/null
		git -c user.name=b -c user.email=b@b commit -qm "c$i" >/dev/null
	done)
	pair "git log --stat of 300 commits" "<= 1.10x" git -C "$g" --no-pager log --stat
fi
if command -v gcc >/dev/null && command -v make >/dev/null; then
	m=$tmp/mk; mkdir -p "$m"
	for i in 1 2 3 4 5; do
		printf '#include <stdio.h>\nint f%d(void) { return printf("%d\\n"); }\n' $i $i > "$m/f$i.c"
	done
	printf 'all: f1.o f2.o f3.o f4.o f5.o\n%%.o: %%.c\n\tgcc -pipe -O2 -c -o $@ $<\n' > "$m/Makefile"
	prep() { rm -f "$m"/*.o; }
	pair "make -j2 of 5 C files (gcc -pipe)" "<= 1.10x" make -s -j2 -C "$m"
	prep() { :; }
fi
pair "a shell loop starting /bin/true 1,000 times" "<= 1.3x" sh -c 'i=0; while [ $i -lt 1000 ]; do /bin/true; i=$((i+1)); done'

# the peer, once: strace -f -o on the 1M writes
if command -v strace >/dev/null; then
	s=$(timed strace -f -o "$disk/s.out" $W 1 1000000 64 2>/dev/null)
	rm -f "$disk/s.out"
	row "1M writes under strace -f -o (peer, 1 run)" "$native1m" "$s" "(peer)"
fi

# servers: throughput under the capture against native (higher is better)
tput() {
	awk -v l="$1" -v n="$2" -v c="$3" -v t="$4" 'BEGIN {
		printf "%-46s %9.0f/s %9.0f/s %7.1f%%   %s\n", l, n, c, 100 * c / n, t }'
}
[ "${SKIP_SERVERS:-0}" = 1 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v nginx >/dev/null && command -v ab >/dev/null; then
	n=$tmp/nginx; mkdir -p "$n/www" "$n/logs"
	head -c 4096 /dev/urandom > "$n/www/f"
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	cat > "$n/conf" <<EOF
daemon off; master_process on; worker_processes 2; user root;
error_log $n/logs/error.log; pid $n/pid;
events { worker_connections 256; }
http { access_log off; server { listen 127.0.0.1:$port; root $n/www; } }
EOF
	: > "$tmp/n"; : > "$tmp/c"
	for i in $(seq "$RUNS"); do
		for mode in n c; do
			if [ $mode = n ]; then nginx -c "$n/conf" -p "$n" & else
				"$C" -n nginx -o "$disk/ng.isb.zst" -- nginx -c "$n/conf" -p "$n" & fi
			srv=$!
			for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$port/f" && break; sleep 0.1; done
			ab -q -n 20000 -c 8 "http://127.0.0.1:$port/f" 2>/dev/null |
				awk '/^Requests per second/ { print $4 }' >> "$tmp/$mode"
			# the master's own pid: island-capture leaves SIGQUIT to the app
			kill -QUIT "$(cat "$n/pid")"; wait $srv; srv=
			rm -f "$disk/ng.isb.zst"
		done
	done
	tput "nginx, ab -n 20000 -c 8 (requests/s)" "$(median < "$tmp/n")" "$(median < "$tmp/c")" ">= 90 %"
fi
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | tail -1)
if [ "$(id -u)" = 0 ] && [ -x "$pgbin/postgres" ] && id postgres >/dev/null 2>&1; then
	p=$(mktemp -d /tmp/island-bench-pg.XXXXXX); chown postgres "$p" "$disk"
	trap 'rm -rf "$tmp" "$disk" "$p"; [ -n "$srv" ] && kill $srv 2>/dev/null' EXIT
	runuser -u postgres -- "$pgbin/initdb" -D "$p/data" >/dev/null 2>&1
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	pg() { runuser -u postgres -- "$@"; }
	: > "$tmp/n"; : > "$tmp/c"
	for i in $(seq "$RUNS"); do
		for mode in n c; do
			if [ $mode = n ]; then
				pg "$pgbin/postgres" -D "$p/data" -k "$p" -h 127.0.0.1 -p "$port" >/dev/null 2>&1 &
			else
				pg "$C" -n pg -o "$disk/pg.isb.zst" -- "$pgbin/postgres" -D "$p/data" -k "$p" -h 127.0.0.1 -p "$port" >/dev/null 2>&1 &
			fi
			srv=$!
			for _ in $(seq 100); do pg "$pgbin/pg_isready" -q -h 127.0.0.1 -p "$port" && break; sleep 0.1; done
			[ $i = 1 ] && [ $mode = n ] && pg "$pgbin/pgbench" -q -i -h 127.0.0.1 -p "$port" postgres >/dev/null 2>&1
			pg "$pgbin/pgbench" -c 8 -T 10 -h 127.0.0.1 -p "$port" postgres 2>/dev/null |
				awk '/^tps/ { print $3 }' >> "$tmp/$mode"
			pg "$pgbin/pg_ctl" -D "$p/data" -m fast stop >/dev/null 2>&1 || kill $srv
			wait $srv; srv=
			rm -f "$disk/pg.isb.zst"
		done
	done
	tput "PostgreSQL, pgbench -c 8 -T 10 (tps)" "$(median < "$tmp/n")" "$(median < "$tmp/c")" ">= 90 %"
fi
# MPI: an 8-byte MPI_Send/MPI_Recv ping-pong between 2 ranks over shared
# memory, 100,000 round trips, under the MPI level (the loop's own time,
# mpirun's start-up not counted; bench/mpi.sh has the level off too)
PP=$ROOT/build/tests/apps/mpipingpong
if command -v mpirun >/dev/null && [ -x "$PP" ]; then
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	: > "$tmp/n"; : > "$tmp/c"
	for i in $(seq "$RUNS"); do
		mpirun --oversubscribe -n 2 "$PP" 100000 8 2>/dev/null | sed -n 's/^pingpong //p' >> "$tmp/n"
		(cd "$disk" && rm -f pp.rank*.xml && mpirun --oversubscribe -n 2 "$C" -n pp -- "$PP" 100000 8 \
			2>/dev/null) | sed -n 's/^pingpong //p' >> "$tmp/c"
	done
	row "MPI ping-pong, 100k x 8 B, 2 ranks, shm" "$(median < "$tmp/n")" "$(median < "$tmp/c")" "<= 1.3x"
fi
echo "(medians of $RUNS runs each, native and captured alternating; the machine's other load is not controlled)"
