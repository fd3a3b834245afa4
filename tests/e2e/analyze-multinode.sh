#!/bin/sh
# Several traces merged as the nodes of one run; sendfile & co.; (node2 starts 0.5 s
# after node1, by their epochs), and an incomplete trace (a warning).
# Expected output is written out literally; see tests/traces/ for the inputs.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
expect timeline 0 timeline tests/traces/basic.xml tests/traces/node2.xml <<'EOF'
TOC          node   pid  process  tid  thread  API                    amount       dur_s        fd  target
0.000000000  node1  100  app      100  main    island_create_thread
0.110000000  node1  100  app      100  main    open                                0.010000000   3  /data/out.txt
0.210000000  node1  100  app      100  main    pthread_create                      0.010000000
0.210000000  node1  100  app      101  worker  island_create_thread
0.400000000  node1  100  app      101  worker  read                          4096  0.100000000   4  /data/in.txt
0.500000000  node2  200  server   200  server  island_create_thread
0.550000000  node1  100  app      101  worker  connect                             0.050000000   5  127.0.0.1:5000
0.650000000  node1  100  app      101  worker  send                            10  0.050000000   5  127.0.0.1:5000
0.900000000  node1  100  app      101  worker  recv                            20  0.200000000   5  127.0.0.1:5000
1.010000000  node1  100  app      101  worker  sendto                           5  0.010000000   6  127.0.0.1:6000
1.100000000  node2  200  server   200  server  accept                              0.500000000   4  127.0.0.1:40002
1.200000000  node2  200  server   200  server  recv                            10  0.100000000   4  127.0.0.1:40002
1.300000000  node1  100  app      100  main    write                       200000  1.000000000   3  /data/out.txt
1.350000000  node2  200  server   200  server  send                            20  0.050000000   4  127.0.0.1:40002
1.500000000  node2                     ALL     Stopped                0.500000000
1.600000000  node1  100  app      101  worker  pthread_mutex_lock                  0.200000000
1.700000000  node1                     ALL     Stopped                0.200000000
2.000000000  node1  100  app      100  main    nanosleep              0.400000000  0.500000000
2.400000000  node1  100  app      101  worker  island_destroy_thread
2.500000000  node1  100  app      100  main    pthread_join                        0.400000000
2.500000000  node2  200  server   200  server  island_destroy_thread
2.610000000  node1  100  app      100  main    close                               0.010000000   3  /data/out.txt
2.700000000  node1                     ALL     Stopped                0.100000000
3.000000000  node1  100  app      100  main    island_destroy_thread
EOF

expect sums-by-node 0 sums --by node tests/traces/basic.xml tests/traces/node2.xml <<'EOF'
resource        node1     node2     total  unit
fileread         4096         0      4096  bytes
filewrite      200000         0    200000  bytes
filesopened         2         0         2  count
netsend            15        20        35  bytes
tcpsend            10        20        30  bytes
udpsend             5         0         5  bytes
netrecv            20        10        30  bytes
tcprecv            20        10        30  bytes
udprecv             0         0         0  bytes
insockets           0         1         1  count
outsockets          1         0         1  count
events              1         0         1  threads
cpu          0.800000  0.100000  0.900000  seconds
EOF

# The two nodes are each other's peers (127.0.0.1:40002 <-> :5000): node2's
# recv (1.1-1.2 s) comes after node1's send (0.65 s), so it is all netrecv;
# node1's recv (0.7-0.9 s) returned before node2 sent anything, so it is
# all blocked, as without the peer (docs/restrictions.md).
expect ttx-by-node 0 ttx --by node --csv tests/traces/basic.xml tests/traces/node2.xml <<'EOF'
component,TTX,compute,sleep,fileread,filewrite,filemeta,netsend,netrecv,pipe,blocked,stopped
node1,3.000000,2.070000,0.400000,0.100000,1.000000,0.020000,0.060000,0.000000,0.000000,0.850000,0.300000
node2,2.000000,0.850000,0.000000,0.000000,0.000000,0.000000,0.050000,0.100000,0.000000,0.500000,0.500000
sum (naive),5.000000,2.920000,0.400000,0.100000,1.000000,0.020000,0.110000,0.100000,0.000000,1.350000,0.800000
overlap-aware,3.000000,2.220000,0.400000,0.100000,1.000000,0.020000,0.110000,0.100000,0.000000,1.150000,0.600000
TTC,3.000000,,,,,,,,,,
EOF

expect summary 0 summary tests/traces/basic.xml tests/traces/node2.xml <<'EOF'
item               total  live_at_end
nodes                  2
processes              2            0
threads                3            0
files                  2            1
sockets                4            1
run_s           3.000000
calls                 15
bytes_read          4096
bytes_written     200000
bytes_sent            35
bytes_received        30
cpu_s           0.900000
note: cpu_s is the threads' CPU time (the kernel's, as sums' cpu); consumption's compute is
      wall-clock time outside calls
EOF

expect killed-summary 0 summary tests/traces/killed.xml <<'EOF'
tests/traces/killed.xml:3: warning: trace is incomplete (a process was killed or not fully seen); analysing what was recorded
item               total  live_at_end
nodes                  1
processes              1            1
threads                1            1
files                  1            1
sockets                0            0
run_s           1.000000
calls                  1
bytes_read             0
bytes_written          0
bytes_sent             0
bytes_received         0
cpu_s           0.000000
note: cpu_s is the threads' CPU time (the kernel's, as sums' cpu); consumption's compute is
      wall-clock time outside calls
EOF

# a killed thread without cpu: sums says that it counted nothing for it
expect killed-sums 0 sums tests/traces/killed.xml <<'EOF'
tests/traces/killed.xml:3: warning: trace is incomplete (a process was killed or not fully seen); analysing what was recorded
island-analyze: warning: 1 thread without a cpu attribute (a signal ended it unseen): cpu counts nothing for it
resource        total  unit
fileread            0  bytes
filewrite           0  bytes
filesopened         0  count
netsend             0  bytes
tcpsend             0  bytes
udpsend             0  bytes
netrecv             0  bytes
tcprecv             0  bytes
udprecv             0  bytes
insockets           0  count
outsockets          0  count
events              0  threads
cpu          0.000000  seconds
EOF

expect killed-consumption 0 consumption tests/traces/killed.xml <<'EOF'
tests/traces/killed.xml:3: warning: trace is incomplete (a process was killed or not fully seen); analysing what was recorded
node  tid  thread  category    seconds  pct_live  pid  process
n     300  victim  live       1.000000    100.00  300  victim
n     300  victim  compute    0.750000     75.00  300  victim
n     300  victim  sleep      0.000000      0.00  300  victim
n     300  victim  fileread   0.250000     25.00  300  victim
n     300  victim  filewrite  0.000000      0.00  300  victim
n     300  victim  filemeta   0.000000      0.00  300  victim
n     300  victim  netsend    0.000000      0.00  300  victim
n     300  victim  netrecv    0.000000      0.00  300  victim
n     300  victim  pipe       0.000000      0.00  300  victim
n     300  victim  blocked    0.000000      0.00  300  victim
n     300  victim  stopped    0.000000      0.00  300  victim
ALL        SUM     live       1.000000    100.00
ALL        SUM     compute    0.750000     75.00
ALL        SUM     sleep      0.000000      0.00
ALL        SUM     fileread   0.250000     25.00
ALL        SUM     filewrite  0.000000      0.00
ALL        SUM     filemeta   0.000000      0.00
ALL        SUM     netsend    0.000000      0.00
ALL        SUM     netrecv    0.000000      0.00
ALL        SUM     pipe       0.000000      0.00
ALL        SUM     blocked    0.000000      0.00
ALL        SUM     stopped    0.000000      0.00
ALL        ALL     live       1.000000    100.00
ALL        ALL     compute    0.750000     75.00
ALL        ALL     sleep      0.000000      0.00
ALL        ALL     fileread   0.250000     25.00
ALL        ALL     filewrite  0.000000      0.00
ALL        ALL     filemeta   0.000000      0.00
ALL        ALL     netsend    0.000000      0.00
ALL        ALL     netrecv    0.000000      0.00
ALL        ALL     pipe       0.000000      0.00
ALL        ALL     blocked    0.000000      0.00
ALL        ALL     stopped    0.000000      0.00
note: compute is wall-clock time outside calls (and in res=proc calls), not CPU time (sums' cpu, summary's cpu_s);
      SUM adds the threads up (thread-seconds); ALL is wall-clock: the instants some thread was in each category
EOF

# sendfile and splice: bytes read from the source file (not from a pipe)
expect copy-sums 0 sums --csv tests/traces/copy.xml <<'EOF'
resource,total,unit
fileread,1000,bytes
filewrite,1050,bytes
filesopened,2,count
netsend,0,bytes
tcpsend,0,bytes
udpsend,0,bytes
netrecv,0,bytes
tcprecv,0,bytes
udprecv,0,bytes
insockets,0,count
outsockets,0,count
events,0,threads
cpu,0.010000,seconds
EOF

# escaped XML in attributes, quoted in CSV
expect copy-files 0 files --csv tests/traces/copy.xml <<'EOF'
node,path,opens,reads,bytes_read,read_s,writes,bytes_written,write_s,other_s,open_at_end,total_s
c,"/in & ""q"",x",1,1,1000,0.000000,0,0,0.000000,0.000000,0,0.000000
c,/out,1,0,0,0.000000,2,1050,0.300000,0.000000,0,0.300000
EOF

expect killed-regions 0 regions tests/traces/killed.xml <<'EOF'
tests/traces/killed.xml:3: warning: trace is incomplete (a process was killed or not fully seen); analysing what was recorded
island-analyze: warning: 1 region was not closed properly (error=unclosed or mismatch)
region  depth  count  inclusive  exclusive  pct_parent
ALL         0      1   1.000000   0.000000      100.00
  loop      1      1   1.000000   1.000000      100.00
EOF

# One file holding both nodes (a merged trace) reads like the two files.
{ sed '/<\/trace>/d' "$R/tests/traces/basic.xml"
  sed -n '/<node /,/<\/node>/p' "$R/tests/traces/node2.xml"
  echo '</trace>'; } > "$out/merged.xml"
for r in timeline sums consumption ttx regions; do
	(cd "$R" && bin/island-analyze $r tests/traces/basic.xml tests/traces/node2.xml) > "$out/two-$r.txt"
	"$R/bin/island-analyze" $r "$out/merged.xml" > "$out/merged-$r.txt" ||
		{ echo "FAIL merged $r: exit status"; fail=1; }
	cmp -s "$out/two-$r.txt" "$out/merged-$r.txt" ||
		{ echo "FAIL merged $r differs from two files"; diff "$out/two-$r.txt" "$out/merged-$r.txt"; fail=1; }
done
exit $fail
