# island-capture SIGKILLed mid-run (issue 13.4): the app goes on and
# finishes; --recover --list shows the abandoned spool; --recover writes a
# valid trace from it, complete="false" reason="capture-killed", with the
# records written before the kill.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
mkdir sp
export ISLAND_SPOOL_DIR="$PWD/sp"
# a writer: one line a 10 ms, 150 lines
cat > writer.sh <<'SH'
i=0
while [ $i -lt 150 ]; do echo "line $i" >> out.txt; i=$((i + 1)); sleep 0.01; done
SH
"$CAPTURE" -n rec -o never.xml -- sh writer.sh &
cap=$!
for i in $(seq 100); do [ -s out.txt ] && [ "$(wc -l < out.txt)" -ge 20 ] && break; sleep 0.05; done
kill -9 $cap
wait $cap 2>/dev/null
drop_claim never.xml
before=$(wc -l < out.txt)
for i in $(seq 200); do [ "$(wc -l < out.txt)" = 150 ] && break; sleep 0.05; done
expect_eq "lines the app wrote" "$(wc -l < out.txt)" "150"
[ ! -e never.xml ] || fail "the killed capture wrote a trace"
"$CAPTURE" --recover --list > list.txt || fail "--recover --list failed"
expect_eq "abandoned spools listed" "$(tail -n +2 list.txt | wc -l)" "1"
expect_eq "its pid and node" "$(tail -n +2 list.txt | awk '{ print $2, $5 }')" "$cap rec"
"$CAPTURE" --recover -o rec.xml 2> recover.err || { cat recover.err; fail "--recover failed"; }
check_trace rec.xml
grep -q '<trace [^>]*complete="false" reason="capture-killed"' rec.xml || fail "not marked complete=false reason=capture-killed"
grep -q '<node name="rec"' rec.xml || fail "the node's name is not in the trace"
# the writes before the kill are there (each echo opens out.txt for
# append: 4 records name it)
opens=$(grep -c 'out.txt' rec.xml)
[ "$opens" -ge $(( 4 * before )) ] || fail "only $opens records name out.txt ($before lines were written before the kill)"
# the spool stopped growing: the sleeps started after the kill (one per
# line) have no spool file and no process in the trace
procs=$(grep -c '<process' rec.xml)
[ "$procs" -le $(( before + 3 )) ] || fail "$procs processes recorded, $before lines were written before the kill"
# an explicit spool, and bad input
"$CAPTURE" --recover "$(tail -n +2 list.txt | awk '{ print $1 }')" -o rec2.xml 2>/dev/null || fail "--recover SPOOL failed"
check_trace rec2.xml
"$CAPTURE" --recover sp -o x.xml 2> bad.err && fail "--recover of a directory without node.info succeeded"
expect_eq "not a spool" "$(cat bad.err)" "island-capture: sp/node.info: No such file or directory"

# what the records mean comes back with them: a --syscalls --callsites
# spool was recovered with every write twice (at the libc and the kernel
# level, where the capture's own trace has one element for both), without
# its call sites, and the node as MPI rank 0
rm -rf sp/*
"$CAPTURE" --syscalls --callsites --keep-spool -n modes -o own.xml -- "$APPS/writes" 1 1000 64 \
	2> keep.err || fail "the capture to keep failed: $(cat keep.err)"
spool=$(sed -n 's/.*spool kept in //p' keep.err)
[ -d "$spool" ] || fail "no spool kept: $(cat keep.err)"
"$CAPTURE" --recover "$spool" -o modes.xml 2>/dev/null || fail "--recover of the kept spool failed"
check_trace modes.xml
for f in own modes; do
	echo "$(grep -c '<io ' $f.xml) elements, $(grep -c 'level="libc|kernel"' $f.xml) at both levels," \
		"$(grep -c ' site="' $f.xml) with a site, $(grep -c 'mpi_rank=' $f.xml) ranks," \
		"$(grep -c 'syscalls="kernel"' $f.xml) kernel-level nodes" > $f.counts
done
cat own.counts
expect_eq "recovered as captured" "$(cat modes.counts)" "$(cat own.counts)"
grep -q ' 0 at both levels' own.counts && fail "no element at both levels: $(cat own.counts)"
grep -q ' 0 with a site' own.counts && fail "no element with a site: $(cat own.counts)"

# a record damaged in the spool (its length not a multiple of 8): the
# rest of its chunk is skipped with a warning, and the process says it
# is incomplete, and why (it said complete="true" before)
rm -rf sp/*
"$CAPTURE" --keep-spool -n dmg -o whole.xml -- "$APPS/writes" 1 1000 64 2> keep.err ||
	fail "the capture to damage failed: $(cat keep.err)"
spool=$(sed -n 's/.*spool kept in //p' keep.err)
[ -f "$spool/arena" ] || fail "no arena kept: $(cat keep.err)"
/usr/bin/python3 - "$spool/arena" <<'PY' || fail "could not damage the arena"
import struct, sys
# the first thread's records: after its chunk's 4 KiB header, at 128 KiB
with open(sys.argv[1], "r+b") as f:
    at = 131072 + 4096
    for i in range(500):
        f.seek(at + 26)
        n = struct.unpack("<H", f.read(2))[0]
        if n == 0:
            sys.exit(1)
        at += n
    f.seek(at + 26)
    f.write(struct.pack("<H", 3))
PY
"$CAPTURE" --recover "$spool" -o dmg.xml 2> dmg.err || fail "--recover of the damaged spool failed: $(cat dmg.err)"
check_trace dmg.xml
grep -q 'bad record at byte [0-9]*, the rest is ignored' dmg.err || fail "no warning: $(cat dmg.err)"
grep -q '<process [^>]*complete="false" reason="thread [0-9]*.s records damaged: some of its calls are missing"' dmg.xml ||
	fail "the damaged process is not marked: $(grep '<process' dmg.xml)"
n=$(grep -c 'api="write"' dmg.xml)
[ "$n" -lt 1000 ] && [ "$n" -gt 400 ] || fail "$n writes recovered from the damaged spool"
exit 0
