# island-analyze whatif: the run's time if a node's CPU, file I/O or
# network were X times faster, or its file I/O held to a rate. On the
# hand-made two-node trace (node b's open waits for a's write seq 4):
# a's CPU twice as fast halves a and, through the wait, b; file I/O
# twice as slow moves b's open after a's slower write. Then a rate,
# validated by island-replay --limit on a real trace (within 10 %).
. "$ISLAND_ROOT/tests/e2e/lib.sh"
T="$ISLAND_ROOT/tests/traces/replay-2node.xml"
"$ANALYZE" whatif --csv --if 'a:cpu*2' "$T" > cpu.csv 2> err.txt || fail "whatif cpu: $(cat err.txt)"
expect_eq "a cpu*2" "$(cat cpu.csv)" "node,original,predicted,change
a,0.400000000,0.200200000,-49.95
b,0.320000000,0.164950000,-48.45
run,0.400000000,0.200200000,-49.95"
"$ANALYZE" whatif --csv --if '*:file*0.5' "$T" > file.csv 2> err.txt || fail "whatif file: $(cat err.txt)"
expect_eq "file*0.5" "$(cat file.csv)" "node,original,predicted,change
a,0.400000000,0.400400000,0.10
b,0.320000000,0.320550000,0.17
run,0.400000000,0.400400000,0.10"
# a shell waiting for its child (tests/traces/whatif-child.xml): its
# wait4 ends with the child, so the run is as fast or as slow as the
# child's write (regression: the wait kept its 0.94 s and a device twice
# as fast changed nothing)
W="$ISLAND_ROOT/tests/traces/whatif-child.xml"
expect_eq "child, file*2" "$("$ANALYZE" whatif --csv --if '*:file*2' "$W")" "node,original,predicted,change
a,1.000000000,0.600000000,-40.00
run,1.000000000,0.600000000,-40.00"
expect_eq "child, file*0.5" "$("$ANALYZE" whatif --csv --if '*:file*0.5' "$W")" "node,original,predicted,change
a,1.000000000,1.800000000,80.00
run,1.000000000,1.800000000,80.00"
# a parent polling for its child, a helper thread told to end by a byte
# on a pipe (tests/traces/whatif-poll.xml, as fio runs a job): on a device
# twice as fast the next poll after the child's end finds it and the
# helper's select gets its byte at once (regression: both kept their
# original times, and the run its 1 s); half as fast, the reaping wait
# waits (1.71 s: the child's end, then the parent's last 0.07 s)
P="$ISLAND_ROOT/tests/traces/whatif-poll.xml"
expect_eq "poll, file*2" "$("$ANALYZE" whatif --csv --if '*:file*2' "$P")" "node,original,predicted,change
a,1.000000000,0.600000000,-40.00
run,1.000000000,0.600000000,-40.00"
expect_eq "poll, file*0.5" "$("$ANALYZE" whatif --csv --if '*:file*0.5' "$P")" "node,original,predicted,change
a,1.000000000,1.710000000,71.00
run,1.000000000,1.710000000,71.00"
expect_eq "poll, file*1" "$("$ANALYZE" whatif --csv --if '*:file*1' "$P")" "node,original,predicted,change
a,1.000000000,1.000000000,0.00
run,1.000000000,1.000000000,0.00"
# bad input: one line, exit 2
"$ANALYZE" whatif "$T" 2> e1.txt; expect_eq "no --if status" $? 2
expect_eq "no --if" "$(cat e1.txt)" "island-analyze: whatif: --if NODE:RES*X or NODE:RES=RATE is needed (try --help)"
"$ANALYZE" whatif --if 'c:cpu*2' "$T" 2> e2.txt; expect_eq "no node status" $? 2
expect_eq "no node" "$(cat e2.txt)" "island-analyze: --if: no node c in the trace"
"$ANALYZE" whatif --if 'a:disk*2' "$T" 2> e3.txt; expect_eq "bad res status" $? 2
expect_eq "bad res" "$(cat e3.txt)" "island-analyze: --if a:disk: RES*X with cpu, file or net, or RES=RATE with fileread or filewrite"
"$ANALYZE" whatif --if 'a:cpu*0' "$T" 2> e4.txt; expect_eq "zero status" $? 2
# a rate: 2 MB written in 64 KiB writes held to 1 MB/s, predicted and replayed
"$CAPTURE" -n w -o t.xml -- /usr/bin/python3 -c "
import os
fd = os.open('out', os.O_CREAT | os.O_WRONLY)
for i in range(32): os.write(fd, b'x' * 65536)
os.close(fd)" 2> cap.err || fail "capture: $(cat cap.err)"
"$REPLAY" -q --limit w:filewrite=1000000 --root r --report rep.xml t.xml 2> err.txt || fail "replay: $(cat err.txt)"
"$ANALYZE" whatif --csv --if 'w:filewrite=1000000' --validate rep.xml t.xml > rate.csv 2> err.txt ||
	fail "whatif rate: $(cat err.txt)"
expect_eq "columns" "$(head -1 rate.csv)" "node,original,predicted,change,replayed,prediction_error"
pe=$(awk -F, '$1 == "run" { print $6 }' rate.csv)
within "prediction error (%)" "$pe" -10 10
exit 0
