# The what-if replay's small cases (bench/whatif.sh has them all):
# captured on tmpfs, run for real on ext4 on a loop device throttled to
# 200 IOPS and 20 MB/s, replayed there in causal mode: each prediction
# within 5 % of the real run (medians of 3: the machine is shared; not
# checked where other work keeps the CPUs busy, as the other timing
# tests), with no failed call. Then fio captured on that device and
# replayed on one twice as fast and one twice as slow: island-analyze
# whatif's prediction within 10 % of the replay, the replay within 5 % of
# fio run there (fio's parent polls for its job every 10 ms: on the
# faster device the replay polled on for the capture's 2 s, 1.1 s of
# them after the job had ended, and whatif predicted no change). Needs root, a loop device and an io controller (77
# where they are missing), /dev/shm, sqlite3, fio and tar.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
for p in sqlite3 fio tar losetup mkfs.ext4; do
	command -v $p > /dev/null || { echo "no $p: skipped"; exit 77; }
done
[ "$(id -u)" = 0 ] || { echo "not root: skipped"; exit 77; }
[ -d /dev/shm ] || { echo "no /dev/shm: skipped"; exit 77; }
# with the sanitizers on no time is checked: one run of each is the
# replays exercised (the medians are for the timing)
runs=3
ldd "$REPLAY" 2>/dev/null | grep -q libasan && runs=1
SQL_ROWS=100 FIO_SIZE=1m RUNS=$runs MODES=causal ONLY="sqlite fio-sync tar" PREDICT= \
	sh "$ISLAND_ROOT/bench/whatif.sh" > table.txt 2> err.txt || fail "whatif: $(cat err.txt)"
cat table.txt
grep -q "^whatif: skipped" table.txt && exit 77
# as the other timing checks: on a machine other work keeps busy the
# numbers are shown, not checked (the disk is shared as well)
why=$(untimed) && echo "fidelity not checked: $why"
for w in sqlite fio-sync tar; do
	row=$(grep "^$w " table.txt) || fail "$w: no row"
	set -- $row
	[ "$3" = fail ] && fail "$w: replay failed"
	expect_eq "$w: failed calls" "$5" 0
	[ -n "$why" ] && continue
	# a median beyond the bound is measured again, five runs, and that
	# median decides, both printed: tar's predictions were 4.5 to 4.8 %
	# short in three runs of this test here, 5.3 % once in CI
	r=$(echo "$3 / $2" | bc -l)
	if [ "$(echo "$r >= 0.95 && $r <= 1.05" | bc)" != 1 ]; then
		SQL_ROWS=100 FIO_SIZE=1m RUNS=5 MODES=causal ONLY=$w PREDICT= \
			sh "$ISLAND_ROOT/bench/whatif.sh" > again.txt 2> err.txt || fail "whatif again: $(cat err.txt)"
		echo "$w again (RUNS=5):"
		grep "^$w " again.txt
		set -- $(grep "^$w " again.txt)
		r=$(echo "$3 / $2" | bc -l)
	fi
	within "$w: prediction / real" "$r" 0.95 1.05
done
# the other way: captured on the slow device, replayed on faster and
# slower ones
SQL_ROWS=100 FIO_SIZE=1m RUNS=$runs ONLY= PREDICT=fio-sync \
	sh "$ISLAND_ROOT/bench/whatif.sh" > predict.txt 2> err.txt || fail "whatif predict: $(cat err.txt)"
cat predict.txt
for fac in 2x 0.5x; do
	row=$(grep "^fio-sync *$fac " predict.txt) || fail "fio-sync $fac: no row"
	set -- $row
	[ "$5" = fail ] && fail "fio-sync $fac: replay failed"
	[ -n "$why" ] && continue
	within "fio-sync $fac: whatif's prediction / the replay" "$(echo "$4 / $5" | bc -l)" 0.90 1.10
	within "fio-sync $fac: the replay / real" "$(echo "$5 / $7" | bc -l)" 0.95 1.05
done
exit 0
