# Helpers the benchmarks share, and tests/e2e/lib.sh sources them too:
# definitions only.

# median: of the numbers on stdin, one per line
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# asan_built TOOL: true when TOOL (bin/island-*) is built with ASAN=1
asan_built() { ldd "$1" 2>/dev/null | grep -q libasan; }

# now: the wall-clock time in seconds
now() { date +%s.%N; }

# timed CMD...: the seconds CMD took, on stdout (its own output on
# stderr); the script ends when CMD fails
timed() {
	t0=$(now); "$@" >&2 || exit 1; t1=$(now)
	echo "$t1 - $t0" | bc
}

# bench_tmp: $tmp, a scratch directory (in memory where /dev/shm is),
# removed at the script's exit
bench_tmp() {
	tmp=$(mktemp -d /dev/shm/island-bench.XXXXXX 2>/dev/null || mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
}

# pseudo_cluster APP [PHASES UNIT_MS]: a cluster file of 4 nodes of the
# pseudo-application APP (in $APPS, the built tests/apps) on loopback,
# on stdout.
pseudo_cluster() {
	app=$1; shift
	echo '<cluster version="1">'
	for i in 0 1 2 3; do
		printf '  <node name="n%d">' $i
		for a in "$APPS/$app" '${NODE}' '${INDEX}' '${NNODES}' 127.0.0.1 '${PORT}' '${SCRATCH}' "$@"; do
			printf '<arg>%s</arg>' "$a"
		done
		echo '</node>'
	done
	echo '</cluster>'
}
