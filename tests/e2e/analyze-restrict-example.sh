#!/bin/sh
# The worked examples of docs/restrictions.md, on traces of real runs
# kept in tests/traces/.
#
# 1. seedbasic free (seed-free.xml) and at 10% of a CPU and 100000 B/s of
# filewrite (seed-node1.xml): the write is held 1 s and took 0.000191 s
# beyond its hold, inside the stop at 0.011346: that much is stopped, the
# rest of the stop is filewrite; ten stops in the computing second. The
# free run computed 1.004104 s, the restricted one 0.103725 s, stopped
# 0.908869 s: for as much computing, 1.004104 * 0.908869 / 0.103725 =
# 8.798288 s: CPU first, storage (1.000025 s) second.
#
# 2. slowpeer (peer-recvnode.xml, peer-sendnode.xml). Worked out from the
# traces: the send left at 1.011345206 on the sender's clock, 1.011324896
# on the receiver's (epochs 0.000020310 s apart); the recv ran 0.011443926
# to 1.318498603, the last stop 0.938742240 to 1.321740058. So the recv is
# blocked 0.999880970 s and stopped 0.307173707 s; the thread adds accept
# (0.003540392) and pthread_join (0.000740366) to blocked, 20 us of
# computing in the stop to stopped. Alone, the recv's 1.307054677 s are
# all blocked.
# Expected output is written out literally.
R="$ISLAND_ROOT"
out="$PWD"
[ -x "$R/bin/island-analyze" ] || { echo "bin/island-analyze is not built"; exit 77; }
fail=0
T="tests/traces/peer-recvnode.xml tests/traces/peer-sendnode.xml"
S="tests/traces/seed-free.xml tests/traces/seed-node1.xml"
# whole NAME ARGS... <<EOF: the whole output of island-analyze ARGS, or
# its lines matching $PICK (a grep -E pattern) when set
whole() {
	name=$1
	shift
	cat > "$out/$name.expected"
	(cd "$R" && bin/island-analyze "$@") 2>&1 | grep -E "${PICK:-.}" > "$out/$name.out"
	diff -u "$out/$name.expected" "$out/$name.out" || { echo "FAIL $name"; fail=1; }
}

whole seed-consumption consumption tests/traces/seed-node1.xml <<'EOF'
node     tid  thread     category    seconds  pct_live    pid  process
node1  12507  seedbasic  live       2.013124    100.00  12507  seedbasic
node1  12507  seedbasic  compute    0.103725      5.15  12507  seedbasic
node1  12507  seedbasic  sleep      0.000000      0.00  12507  seedbasic
node1  12507  seedbasic  fileread   0.000000      0.00  12507  seedbasic
node1  12507  seedbasic  filewrite  1.000000     49.67  12507  seedbasic
node1  12507  seedbasic  filemeta   0.000530      0.03  12507  seedbasic
node1  12507  seedbasic  netsend    0.000000      0.00  12507  seedbasic
node1  12507  seedbasic  netrecv    0.000000      0.00  12507  seedbasic
node1  12507  seedbasic  pipe       0.000000      0.00  12507  seedbasic
node1  12507  seedbasic  blocked    0.000000      0.00  12507  seedbasic
node1  12507  seedbasic  stopped    0.908869     45.15  12507  seedbasic
ALL           SUM        live       2.013124    100.00
ALL           SUM        compute    0.103725      5.15
ALL           SUM        sleep      0.000000      0.00
ALL           SUM        fileread   0.000000      0.00
ALL           SUM        filewrite  1.000000     49.67
ALL           SUM        filemeta   0.000530      0.03
ALL           SUM        netsend    0.000000      0.00
ALL           SUM        netrecv    0.000000      0.00
ALL           SUM        pipe       0.000000      0.00
ALL           SUM        blocked    0.000000      0.00
ALL           SUM        stopped    0.908869     45.15
ALL           ALL        live       2.013124    100.00
ALL           ALL        compute    0.103725      5.15
ALL           ALL        sleep      0.000000      0.00
ALL           ALL        fileread   0.000000      0.00
ALL           ALL        filewrite  1.000000     49.67
ALL           ALL        filemeta   0.000530      0.03
ALL           ALL        netsend    0.000000      0.00
ALL           ALL        netrecv    0.000000      0.00
ALL           ALL        pipe       0.000000      0.00
ALL           ALL        blocked    0.000000      0.00
ALL           ALL        stopped    0.908869     45.15
note: compute is wall-clock time outside calls (and in res=proc calls), not CPU time (sums' cpu, summary's cpu_s);
      SUM adds the threads up (thread-seconds); ALL is wall-clock: the instants some thread was in each category
EOF

PICK='^(grew|add|then)' whole seed-compare compare $S <<'EOF'
grew most: filewrite, by 0.999918 s (+1221482.93%)
add first: CPU. B spent 0.908869 s more stopped (CPU restriction; 8.798288 s more for as much computing as A): more CPU would help most.
then: storage. B spent 1.000025 s more in fileread, filewrite and filemeta (storage): faster storage would help most.
EOF

# the timeline: the write's start, its return a second later, the stops
PICK='write|Stopped' whole seed-timeline timeline --starts tests/traces/seed-node1.xml <<'EOF'
0.006234887  node1  12507  seedbasic  12507  seedbasic  start call write                                  3  /tmp/ex3/test.out
0.011346362  node1                           ALL        Stopped                0.045518425
1.006426252  node1  12507  seedbasic  12507  seedbasic  write                       200000  1.000191365   3  /tmp/ex3/test.out
1.013880616  node1                           ALL        Stopped                0.066217978
1.090278659  node1                           ALL        Stopped                0.115369642
1.215856938  node1                           ALL        Stopped                0.090441443
1.316519557  node1                           ALL        Stopped                0.090503946
1.417208275  node1                           ALL        Stopped                0.089276543
1.516652705  node1                           ALL        Stopped                0.085019689
1.611963138  node1                           ALL        Stopped                0.060143132
1.682389537  node1                           ALL        Stopped                0.130414511
1.823018104  node1                           ALL        Stopped                0.090696545
1.923910548  node1                           ALL        Stopped                0.090594139
EOF
# expect NAME ARGS... <<EOF: whole, on the rows of the receiving thread
# (tid 28739) and the header
expect() {
	PICK='^recvnode +28739 |:28739:|^node|^component'	# the thread, not others of its process
	whole "$@"
	PICK=
}

expect with-peer consumption $T <<'EOF'
node        tid  thread    category    seconds  pct_live    pid  process
recvnode  28739  slowpeer  live       1.317826    100.00  28739  slowpeer
recvnode  28739  slowpeer  compute    0.005525      0.42  28739  slowpeer
recvnode  28739  slowpeer  sleep      0.000000      0.00  28739  slowpeer
recvnode  28739  slowpeer  fileread   0.000000      0.00  28739  slowpeer
recvnode  28739  slowpeer  filewrite  0.000007      0.00  28739  slowpeer
recvnode  28739  slowpeer  filemeta   0.000464      0.04  28739  slowpeer
recvnode  28739  slowpeer  netsend    0.000474      0.04  28739  slowpeer
recvnode  28739  slowpeer  netrecv    0.000000      0.00  28739  slowpeer
recvnode  28739  slowpeer  pipe       0.000000      0.00  28739  slowpeer
recvnode  28739  slowpeer  blocked    1.004162     76.20  28739  slowpeer
recvnode  28739  slowpeer  stopped    0.307194     23.31  28739  slowpeer
EOF

expect alone consumption tests/traces/peer-recvnode.xml <<'EOF'
node        tid  thread    category    seconds  pct_live    pid  process
recvnode  28739  slowpeer  live       1.317826    100.00  28739  slowpeer
recvnode  28739  slowpeer  compute    0.005525      0.42  28739  slowpeer
recvnode  28739  slowpeer  sleep      0.000000      0.00  28739  slowpeer
recvnode  28739  slowpeer  fileread   0.000000      0.00  28739  slowpeer
recvnode  28739  slowpeer  filewrite  0.000007      0.00  28739  slowpeer
recvnode  28739  slowpeer  filemeta   0.000464      0.04  28739  slowpeer
recvnode  28739  slowpeer  netsend    0.000474      0.04  28739  slowpeer
recvnode  28739  slowpeer  netrecv    0.000000      0.00  28739  slowpeer
recvnode  28739  slowpeer  pipe       0.000000      0.00  28739  slowpeer
recvnode  28739  slowpeer  blocked    1.311335     99.51  28739  slowpeer
recvnode  28739  slowpeer  stopped    0.000021      0.00  28739  slowpeer
EOF

# ttx accounts in time order (a second pass once it knows the sends): the
# same split.
expect ttx ttx --csv $T <<'EOF'
component,TTX,compute,sleep,fileread,filewrite,filemeta,netsend,netrecv,pipe,blocked,stopped
recvnode:28739:slowpeer,1.317826,0.005525,0.000000,0.000000,0.000007,0.000464,0.000474,0.000000,0.000000,1.004162,0.307194
EOF

# Either order of the traces on the command line, and the sender first:
# the split does not depend on which node the run is aligned on.
(cd "$R" && bin/island-analyze consumption tests/traces/peer-sendnode.xml tests/traces/peer-recvnode.xml) |
	grep '28739.*\(blocked\|stopped\)' > "$out/reversed.out"
grep '28739.*\(blocked\|stopped\)' "$out/with-peer.out" | cmp -s - "$out/reversed.out" ||
	{ echo "FAIL reversed order splits differently"; cat "$out/reversed.out"; fail=1; }
exit $fail
