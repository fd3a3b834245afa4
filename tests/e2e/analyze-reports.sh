#!/bin/sh
# Every report of island-analyze on the hand-made trace basic.xml.
# Consumption, worked out by hand (stops at 1.7+0.2 and 2.7+0.1 s):
#   main: gaps 1.07 s + pthread_create 0.01 = cpu 1.08, less 0.1 s of the
#   stop at 2.7 = 0.98; nanosleep 0.5 s with req 0.4: the 0.1 s overrun
#   inside the stop at 1.7 is stopped; open+close 0.02 s are fileread.
#   worker: connect, the mutex and the recv are blocked (0.45 s: the
#   recv waited for its peer, whose trace is not given, so all of it is
#   waiting, docs/restrictions.md); 0.2 s of compute in the stop at 1.7
#   is stopped.
# Expected output is written out literally; see tests/traces/ for the inputs.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
expect summary 0 summary tests/traces/basic.xml <<'EOF'
item               total  live_at_end
nodes                  1
processes              1            0
threads                2            0
files                  2            1
sockets                2            1
run_s           3.000000
calls                 12
bytes_read          4096
bytes_written     200000
bytes_sent            15
bytes_received        20
cpu_s           0.800000
note: cpu_s is the threads' CPU time (the kernel's, as sums' cpu); consumption's compute is
      wall-clock time outside calls
EOF

expect sums 0 sums tests/traces/basic.xml <<'EOF'
resource        total  unit
fileread         4096  bytes
filewrite      200000  bytes
filesopened         2  count
netsend            15  bytes
tcpsend            10  bytes
udpsend             5  bytes
netrecv            20  bytes
tcprecv            20  bytes
udprecv             0  bytes
insockets           0  count
outsockets          1  count
events              1  threads
cpu          0.800000  seconds
EOF

expect sums-csv 0 sums --csv tests/traces/basic.xml <<'EOF'
resource,total,unit
fileread,4096,bytes
filewrite,200000,bytes
filesopened,2,count
netsend,15,bytes
tcpsend,10,bytes
udpsend,5,bytes
netrecv,20,bytes
tcprecv,20,bytes
udprecv,0,bytes
insockets,0,count
outsockets,1,count
events,1,threads
cpu,0.800000,seconds
EOF

expect consumption 0 consumption tests/traces/basic.xml <<'EOF'
node   tid  thread  category    seconds  pct_live  pid  process
node1  100  main    live       3.000000    100.00  100  app
node1  100  main    compute    0.980000     32.67  100  app
node1  100  main    sleep      0.400000     13.33  100  app
node1  100  main    fileread   0.000000      0.00  100  app
node1  100  main    filewrite  1.000000     33.33  100  app
node1  100  main    filemeta   0.020000      0.67  100  app
node1  100  main    netsend    0.000000      0.00  100  app
node1  100  main    netrecv    0.000000      0.00  100  app
node1  100  main    pipe       0.000000      0.00  100  app
node1  100  main    blocked    0.400000     13.33  100  app
node1  100  main    stopped    0.200000      6.67  100  app
node1  101  worker  live       2.190000    100.00  100  app
node1  101  worker  compute    1.380000     63.01  100  app
node1  101  worker  sleep      0.000000      0.00  100  app
node1  101  worker  fileread   0.100000      4.57  100  app
node1  101  worker  filewrite  0.000000      0.00  100  app
node1  101  worker  filemeta   0.000000      0.00  100  app
node1  101  worker  netsend    0.060000      2.74  100  app
node1  101  worker  netrecv    0.000000      0.00  100  app
node1  101  worker  pipe       0.000000      0.00  100  app
node1  101  worker  blocked    0.450000     20.55  100  app
node1  101  worker  stopped    0.200000      9.13  100  app
ALL         SUM     live       5.190000    100.00
ALL         SUM     compute    2.360000     45.47
ALL         SUM     sleep      0.400000      7.71
ALL         SUM     fileread   0.100000      1.93
ALL         SUM     filewrite  1.000000     19.27
ALL         SUM     filemeta   0.020000      0.39
ALL         SUM     netsend    0.060000      1.16
ALL         SUM     netrecv    0.000000      0.00
ALL         SUM     pipe       0.000000      0.00
ALL         SUM     blocked    0.850000     16.38
ALL         SUM     stopped    0.400000      7.71
ALL         ALL     live       3.000000    100.00
ALL         ALL     compute    2.070000     69.00
ALL         ALL     sleep      0.400000     13.33
ALL         ALL     fileread   0.100000      3.33
ALL         ALL     filewrite  1.000000     33.33
ALL         ALL     filemeta   0.020000      0.67
ALL         ALL     netsend    0.060000      2.00
ALL         ALL     netrecv    0.000000      0.00
ALL         ALL     pipe       0.000000      0.00
ALL         ALL     blocked    0.850000     28.33
ALL         ALL     stopped    0.300000     10.00
note: compute is wall-clock time outside calls (and in res=proc calls), not CPU time (sums' cpu, summary's cpu_s);
      SUM adds the threads up (thread-seconds); ALL is wall-clock: the instants some thread was in each category
EOF

expect consumption-csv 0 consumption --csv tests/traces/basic.xml <<'EOF'
node,tid,thread,category,seconds,pct_live,pid,process
node1,100,main,live,3.000000,100.00,100,app
node1,100,main,compute,0.980000,32.67,100,app
node1,100,main,sleep,0.400000,13.33,100,app
node1,100,main,fileread,0.000000,0.00,100,app
node1,100,main,filewrite,1.000000,33.33,100,app
node1,100,main,filemeta,0.020000,0.67,100,app
node1,100,main,netsend,0.000000,0.00,100,app
node1,100,main,netrecv,0.000000,0.00,100,app
node1,100,main,pipe,0.000000,0.00,100,app
node1,100,main,blocked,0.400000,13.33,100,app
node1,100,main,stopped,0.200000,6.67,100,app
node1,101,worker,live,2.190000,100.00,100,app
node1,101,worker,compute,1.380000,63.01,100,app
node1,101,worker,sleep,0.000000,0.00,100,app
node1,101,worker,fileread,0.100000,4.57,100,app
node1,101,worker,filewrite,0.000000,0.00,100,app
node1,101,worker,filemeta,0.000000,0.00,100,app
node1,101,worker,netsend,0.060000,2.74,100,app
node1,101,worker,netrecv,0.000000,0.00,100,app
node1,101,worker,pipe,0.000000,0.00,100,app
node1,101,worker,blocked,0.450000,20.55,100,app
node1,101,worker,stopped,0.200000,9.13,100,app
ALL,,SUM,live,5.190000,100.00,,
ALL,,SUM,compute,2.360000,45.47,,
ALL,,SUM,sleep,0.400000,7.71,,
ALL,,SUM,fileread,0.100000,1.93,,
ALL,,SUM,filewrite,1.000000,19.27,,
ALL,,SUM,filemeta,0.020000,0.39,,
ALL,,SUM,netsend,0.060000,1.16,,
ALL,,SUM,netrecv,0.000000,0.00,,
ALL,,SUM,pipe,0.000000,0.00,,
ALL,,SUM,blocked,0.850000,16.38,,
ALL,,SUM,stopped,0.400000,7.71,,
ALL,,ALL,live,3.000000,100.00,,
ALL,,ALL,compute,2.070000,69.00,,
ALL,,ALL,sleep,0.400000,13.33,,
ALL,,ALL,fileread,0.100000,3.33,,
ALL,,ALL,filewrite,1.000000,33.33,,
ALL,,ALL,filemeta,0.020000,0.67,,
ALL,,ALL,netsend,0.060000,2.00,,
ALL,,ALL,netrecv,0.000000,0.00,,
ALL,,ALL,pipe,0.000000,0.00,,
ALL,,ALL,blocked,0.850000,28.33,,
ALL,,ALL,stopped,0.300000,10.00,,
EOF

expect files 0 files tests/traces/basic.xml <<'EOF'
node   path           opens  reads  bytes_read    read_s  writes  bytes_written   write_s   other_s  open_at_end   total_s
node1  /data/out.txt      1      0           0  0.000000       1         200000  1.000000  0.020000            0  1.020000
node1  /data/in.txt       1      1        4096  0.100000       0              0  0.000000  0.000000            1  0.100000
EOF

expect sockets 0 sockets --csv tests/traces/basic.xml <<'EOF'
node,proto,local,peer,direction,sent,received,open_at_end
node1,tcp,127.0.0.1:40002,127.0.0.1:5000,out,10,20,no
node1,udp,0.0.0.0:40003,127.0.0.1:6000,none,5,0,yes
EOF

expect timeline 0 timeline tests/traces/basic.xml <<'EOF'
TOC          node   pid  process  tid  thread  API                    amount       dur_s        fd  target
0.000000000  node1  100  app      100  main    island_create_thread
0.110000000  node1  100  app      100  main    open                                0.010000000   3  /data/out.txt
0.210000000  node1  100  app      100  main    pthread_create                      0.010000000
0.210000000  node1  100  app      101  worker  island_create_thread
0.400000000  node1  100  app      101  worker  read                          4096  0.100000000   4  /data/in.txt
0.550000000  node1  100  app      101  worker  connect                             0.050000000   5  127.0.0.1:5000
0.650000000  node1  100  app      101  worker  send                            10  0.050000000   5  127.0.0.1:5000
0.900000000  node1  100  app      101  worker  recv                            20  0.200000000   5  127.0.0.1:5000
1.010000000  node1  100  app      101  worker  sendto                           5  0.010000000   6  127.0.0.1:6000
1.300000000  node1  100  app      100  main    write                       200000  1.000000000   3  /data/out.txt
1.600000000  node1  100  app      101  worker  pthread_mutex_lock                  0.200000000
1.700000000  node1                     ALL     Stopped                0.200000000
2.000000000  node1  100  app      100  main    nanosleep              0.400000000  0.500000000
2.400000000  node1  100  app      101  worker  island_destroy_thread
2.500000000  node1  100  app      100  main    pthread_join                        0.400000000
2.610000000  node1  100  app      100  main    close                               0.010000000   3  /data/out.txt
2.700000000  node1                     ALL     Stopped                0.100000000
3.000000000  node1  100  app      100  main    island_destroy_thread
EOF

expect timeline-starts 0 timeline --starts --csv tests/traces/basic.xml <<'EOF'
TOC,node,pid,process,tid,thread,API,amount,dur_s,fd,target
0.000000000,node1,100,app,100,main,island_create_thread,,,,
0.100000000,node1,100,app,100,main,start call open,,,3,/data/out.txt
0.110000000,node1,100,app,100,main,open,,0.010000000,3,/data/out.txt
0.200000000,node1,100,app,100,main,start call pthread_create,,,,
0.210000000,node1,100,app,100,main,pthread_create,,0.010000000,,
0.210000000,node1,100,app,101,worker,island_create_thread,,,,
0.300000000,node1,100,app,100,main,start call write,,,3,/data/out.txt
0.300000000,node1,100,app,101,worker,start call read,,,4,/data/in.txt
0.400000000,node1,100,app,101,worker,read,4096,0.100000000,4,/data/in.txt
0.500000000,node1,100,app,101,worker,start call connect,,,5,127.0.0.1:5000
0.550000000,node1,100,app,101,worker,connect,,0.050000000,5,127.0.0.1:5000
0.600000000,node1,100,app,101,worker,start call send,,,5,127.0.0.1:5000
0.650000000,node1,100,app,101,worker,send,10,0.050000000,5,127.0.0.1:5000
0.700000000,node1,100,app,101,worker,start call recv,,,5,127.0.0.1:5000
0.900000000,node1,100,app,101,worker,recv,20,0.200000000,5,127.0.0.1:5000
1.000000000,node1,100,app,101,worker,start call sendto,,,6,127.0.0.1:6000
1.010000000,node1,100,app,101,worker,sendto,5,0.010000000,6,127.0.0.1:6000
1.300000000,node1,100,app,100,main,write,200000,1.000000000,3,/data/out.txt
1.400000000,node1,100,app,101,worker,start call pthread_mutex_lock,,,,
1.500000000,node1,100,app,100,main,start call nanosleep,,,,
1.600000000,node1,100,app,101,worker,pthread_mutex_lock,,0.200000000,,
1.700000000,node1,,,,ALL,Stopped,0.200000000,,,
2.000000000,node1,100,app,100,main,nanosleep,0.400000000,0.500000000,,
2.100000000,node1,100,app,100,main,start call pthread_join,,,,
2.400000000,node1,100,app,101,worker,island_destroy_thread,,,,
2.500000000,node1,100,app,100,main,pthread_join,,0.400000000,,
2.600000000,node1,100,app,100,main,start call close,,,3,/data/out.txt
2.610000000,node1,100,app,100,main,close,,0.010000000,3,/data/out.txt
2.700000000,node1,,,,ALL,Stopped,0.100000000,,,
3.000000000,node1,100,app,100,main,island_destroy_thread,,,,
EOF

expect ttx 0 ttx tests/traces/basic.xml <<'EOF'
component              TTX   compute     sleep  fileread  filewrite  filemeta   netsend   netrecv      pipe   blocked   stopped
node1:100:main    3.000000  0.980000  0.400000  0.000000   1.000000  0.020000  0.000000  0.000000  0.000000  0.400000  0.200000
node1:101:worker  2.190000  1.380000  0.000000  0.100000   0.000000  0.000000  0.060000  0.000000  0.000000  0.450000  0.200000
sum (naive)       5.190000  2.360000  0.400000  0.100000   1.000000  0.020000  0.060000  0.000000  0.000000  0.850000  0.400000
overlap-aware     3.000000  2.070000  0.400000  0.100000   1.000000  0.020000  0.060000  0.000000  0.000000  0.850000  0.300000
TTC               3.000000
note: the state totals are overlap-aware; they add up to 4.800000 s against a TTX of 3.000000 s: additivity does not hold
note: compute is wall-clock time outside calls, as consumption's; not CPU time (sums' cpu, summary's cpu_s)
EOF

# From CPU time: main used 0.5 s of CPU (its cpu attribute) in 0.98 s
# outside calls, the worker 0.3 s in 1.38 s: app 0.8 core-seconds, no
# system (neither used more CPU than its time outside calls).
expect utilization 0 utilization --cores 2 tests/traces/basic.xml <<'EOF'
use     core_seconds  percent
app         0.800000    13.33
system      0.000000     0.00
idle        5.200000    86.67
total       6.000000   100.00
EOF

# --span 1: the first second only. main computes 0-0.1, 0.11-0.2 and
# 0.21-0.3 and creates its worker in 0.2-0.21 (cpu): 0.29 s of its 0.98 s,
# so 0.29 / 0.98 x 0.5 = 0.147959 s of CPU; the worker 0.21-0.3, 0.4-0.5,
# 0.55-0.6, 0.65-0.7 and 0.9-1.0: 0.39 / 1.38 x 0.3 = 0.084783 s
expect utilization-span 0 utilization --cores 2 --span 1 tests/traces/basic.xml <<'EOF'
use     core_seconds  percent
app         0.232742    11.64
system      0.000000     0.00
idle        1.767258    88.36
total       2.000000   100.00
EOF

# A thread without cpu: its time outside calls counts, with a warning.
expect utilization-nocpu 0 utilization --cores 1 tests/traces/killed.xml <<'EOF'
tests/traces/killed.xml:3: warning: trace is incomplete (a process was killed or not fully seen); analysing what was recorded
island-analyze: warning: 1 thread without a cpu attribute: its wall time outside calls counts as app
use     core_seconds  percent
app         0.750000    75.00
system      0.000000     0.00
idle        0.250000    25.00
total       1.000000   100.00
EOF

expect regions 0 regions tests/traces/basic.xml <<'EOF'
region     depth  count  inclusive  exclusive  pct_parent
ALL            0      2   5.190000   2.270000      100.00
  work         1      1   2.400000   0.900000       46.24
    write      2      1   1.000000   1.000000       41.67
    nap        2      1   0.500000   0.500000       20.83
  close        1      1   0.010000   0.010000        0.19
  net          1      1   0.510000   0.510000        9.83
EOF

expect regions-depth 0 regions --depth 1 tests/traces/basic.xml <<'EOF'
region   depth  count  inclusive  exclusive  pct_parent
ALL          0      2   5.190000   2.270000      100.00
  work       1      1   2.400000   0.900000       46.24
  close      1      1   0.010000   0.010000        0.19
  net        1      1   0.510000   0.510000        9.83
EOF

expect regions-label 0 regions --label work tests/traces/basic.xml <<'EOF'
region   depth  count  inclusive  exclusive  pct_parent
work         1      1   2.400000   0.900000       46.24
  write      2      1   1.000000   1.000000       41.67
  nap        2      1   0.500000   0.500000       20.83
EOF

expect regions-children 0 regions --children-of work --csv tests/traces/basic.xml <<'EOF'
region,depth,count,inclusive,exclusive,pct_parent
work/write,2,1,1.000000,1.000000,41.67
work/nap,2,1,0.500000,0.500000,20.83
EOF

# profile on recursive stacks (recursive.xml): a snapshot counts once per
# function and once per (caller, function) pair, however often recursion
# repeats them: fib (0x20) calls itself in 0.4 + 0.3 s of its 0.95 s,
# 73.68 %; main (0x10) calls fib in all of it. Frames outside any module
# (JIT code) are named each by its own address.
expect profile-recursive-inclusive 0 profile inclusive tests/traces/recursive.xml <<'EOF'
inclusive:
function  inclusive  exclusive  inclusive_pct  exclusive_pct  samples  module
0x10       1.000000   0.050000         100.00           5.00        5
0x20       0.950000   0.550000          95.00          55.00        4
0x30       0.400000   0.400000          40.00          40.00        1
0x40       0.050000   0.000000           5.00           0.00        1
EOF

expect profile-recursive-callers 0 profile callers tests/traces/recursive.xml <<'EOF'
callers:
caller  function     value  pct_of_function
        0x10      1.000000           100.00
0x10    0x20      0.950000           100.00
0x20    0x20      0.700000            73.68
0x20    0x30      0.400000           100.00
0x20    0x40      0.050000           100.00
0x40    0x20      0.050000             5.26
EOF

exit $fail
