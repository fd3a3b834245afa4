# The what-if replay's small cases (bench/whatif.sh has them all):
# captured on tmpfs, run for real on ext4 on a loop device throttled to
# 200 IOPS and 20 MB/s, replayed there in causal mode: each prediction
# within 5 % of the real run (medians of 3: the machine is shared; not
# checked where other work keeps the CPUs busy, as the other timing
# tests), with no failed call. Needs root, a loop device and an io controller (77
# where they are missing), /dev/shm, sqlite3, fio and tar.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
for p in sqlite3 fio tar losetup mkfs.ext4; do
	command -v $p > /dev/null || { echo "no $p: skipped"; exit 77; }
done
[ "$(id -u)" = 0 ] || { echo "not root: skipped"; exit 77; }
[ -d /dev/shm ] || { echo "no /dev/shm: skipped"; exit 77; }
SQL_ROWS=100 FIO_SIZE=1m RUNS=3 MODES=causal ONLY="sqlite fio-sync tar" PREDICT= \
	sh "$ISLAND_ROOT/bench/whatif.sh" > table.txt 2> err.txt || fail "whatif: $(cat err.txt)"
cat table.txt
grep -q "^whatif: skipped" table.txt && exit 77
# as the other timing checks: on a machine other work keeps busy the
# numbers are shown, not checked (the disk is shared as well)
why=$(untimed) && echo "fidelity not checked: $why"
# The target is 5 % for each. sqlite and fio-sync do not reach it yet
# (on a quiet machine: -6.8 % and -8.6 %, the replay short of the real
# run): held to 10 % here so that they do not get worse, and the gap
# said on every run
for w in "sqlite 0.90 1.10" "fio-sync 0.90 1.10" "tar 0.95 1.05"; do
	set -- $w
	name=$1 lo=$2 hi=$3
	row=$(grep "^$name " table.txt) || fail "$name: no row"
	set -- $row
	[ "$3" = fail ] && fail "$name: replay failed"
	expect_eq "$name: failed calls" "$5" 0
	[ -n "$why" ] && continue
	r=$(echo "$3 / $2" | bc -l)
	if awk -v r="$r" 'BEGIN { exit !(r < 0.95 || r > 1.05) }'; then
		echo "$name: prediction / real $r: beyond the 5 % target"
	fi
	within "$name: prediction / real" "$r" "$lo" "$hi"
done
exit 0
