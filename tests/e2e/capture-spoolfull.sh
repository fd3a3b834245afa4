# A spool that fills up never harms the app: recording stops, the trace
# says how many records were lost and is marked incomplete.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
[ "$(id -u)" = 0 ] || { echo "needs root to mount a small tmpfs"; exit 77; }
mkdir small
mount -t tmpfs -o size=1m tmpfs small 2>/dev/null || { echo "cannot mount tmpfs"; exit 77; }
trap 'umount small' EXIT
rc=0; "$CAPTURE" --spool-dir small -n full "$APPS/writes" 1 200000 8 data.out 2>err || rc=$?
expect_eq "app status" "$rc" 0
expect_eq "app output" "$(stat -c %s data.out)" 1600000
check_trace full.xml
grep -q '<trace version="1" generator="[^"]*" complete="false">' full.xml || fail "not marked incomplete"
lost=$(sed -n 's/.* lost="\([0-9]*\)".*/\1/p' full.xml)
recorded=$(grep -c '<io ' full.xml)
[ -n "$lost" ] && [ "$lost" -gt 0 ] || fail "no lost count"
# the app's calls: open, 200,000 writes, close
expect_eq "recorded + lost" "$((recorded + lost))" 200002
grep -q "records lost: the spool directory small filled up" err || fail "no warning: $(cat err)"

# an application that runs away fills half the space free where the spool
# lives, not all of it (23 GiB of /dev/shm, the machine's memory, in two
# minutes): 64 MiB free, a limit of 32, 2,000,000 records of 32 bytes
mkdir mid
mount -t tmpfs -o size=64m tmpfs mid || fail "cannot mount tmpfs"
trap 'umount small; umount mid' EXIT
rc=0; "$CAPTURE" --spool-dir mid -n lim "$APPS/writes" 1 2000000 8 /dev/null 2>err || rc=$?
expect_eq "runaway: app status" "$rc" 0
grep -q "records lost: the spool directory mid filled up, or the spool its limit of 3[12] MiB" err ||
	fail "runaway: $(cat err)"
lost=$(sed -n 's/.* lost="\([0-9]*\)".*/\1/p' lim.xml)
expect_eq "runaway: recorded + lost" "$(($(grep -c '<io ' lim.xml) + lost))" 2000002
[ "$lost" -gt 500000 ] || fail "runaway: only $lost lost"
exit 0
