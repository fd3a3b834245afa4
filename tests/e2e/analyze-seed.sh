#!/bin/sh
# The seeds' numbers. Island / CADET: both examples' consumption, sums,
# summary and timeline. The time-measurements seed, from the span files in
# traces/: TTX 92, 51, 55 and 51 s; total idling 16, 11, 16 and 14 s (the
# union of the intervals of its diagrams; its own sums for (3) and (4),
# 13 and 11 s, each drop an interval); utilization 66.6% application,
# 3.33% system, 30% idle.
# Expected output is written out literally; see tests/traces/ for the inputs.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
expect case1 0 ttx traces/ttx-case1.csv <<'EOF'
component             TTX     idling    staging    running
C_0             51.000000  11.000000  10.000000  30.000000
C_1             41.000000   5.000000  17.000000  19.000000
sum (naive)     92.000000  16.000000  27.000000  49.000000
overlap-aware   92.000000  16.000000  27.000000  49.000000
TTC            100.000000
note: the state totals are overlap-aware; they add up to 92.000000 s against a TTX of 92.000000 s: additivity does not hold
EOF

expect case2 0 ttx traces/ttx-case2.csv <<'EOF'
component             TTX     idling    staging    running
C_0             51.000000  11.000000  10.000000  30.000000
C_1             51.000000  11.000000  10.000000  30.000000
sum (naive)    102.000000  22.000000  20.000000  60.000000
overlap-aware   51.000000  11.000000  10.000000  30.000000
TTC             51.000000
note: the state totals are overlap-aware; they add up to 51.000000 s against a TTX of 51.000000 s: additivity does not hold
EOF

expect case3 0 ttx traces/ttx-case3.csv <<'EOF'
component            TTX     idling    staging    running
C_0            51.000000  11.000000  10.000000  30.000000
C_1            41.000000   5.000000  17.000000  19.000000
sum (naive)    92.000000  16.000000  27.000000  49.000000
overlap-aware  55.000000  16.000000  27.000000  40.000000
TTC            55.000000
note: the state totals are overlap-aware; they add up to 83.000000 s against a TTX of 55.000000 s: additivity does not hold
EOF

expect case4 0 ttx --csv traces/ttx-case4.csv <<'EOF'
component,TTX,idling,staging,running
C_0,51.000000,11.000000,10.000000,30.000000
C_1,41.000000,5.000000,17.000000,19.000000
sum (naive),92.000000,16.000000,27.000000,49.000000
overlap-aware,51.000000,14.000000,25.000000,41.000000
TTC,51.000000,,,
EOF

expect utilization 0 utilization --cores 2 --span 3600 traces/utilization-example.csv <<'EOF'
use     core_seconds  percent
app      4800.000000    66.67
system    240.000000     3.33
idle     2160.000000    30.00
total    7200.000000   100.00
EOF

# Over the run (2400 s) the spans use 5040 of the 4800 core-seconds
# provided: app 4800 and system 240 scaled by 4800 / 5040, never above 100 %.
expect utilization-run 0 utilization --cores 2 traces/utilization-example.csv <<'EOF'
island-analyze: warning: the use exceeds the provided resources by 240.000000 core-seconds (105.00 %); app and system are scaled to the provided
use     core_seconds  percent
app      4571.428571    95.24
system    228.571429     4.76
idle        0.000000     0.00
total    4800.000000   100.00
EOF

# The Island / CADET seed's two examples, transcribed as traces: its
# consumption numbers (and percentages) to the microsecond.
expect island-single 0 consumption tests/traces/island-single.xml <<'EOF'
node  tid  thread      category    seconds  pct_live  pid  process
repy    1  MainThread  live       2.793750    100.00    1  python
repy    1  MainThread  compute    0.182189      6.52    1  python
repy    1  MainThread  sleep      0.000000      0.00    1  python
repy    1  MainThread  fileread   0.000000      0.00    1  python
repy    1  MainThread  filewrite  1.000733     35.82    1  python
repy    1  MainThread  filemeta   0.000000      0.00    1  python
repy    1  MainThread  netsend    0.000000      0.00    1  python
repy    1  MainThread  netrecv    0.000000      0.00    1  python
repy    1  MainThread  pipe       0.000000      0.00    1  python
repy    1  MainThread  blocked    0.000000      0.00    1  python
repy    1  MainThread  stopped    1.610827     57.66    1  python
ALL        SUM         live       2.793750    100.00
ALL        SUM         compute    0.182189      6.52
ALL        SUM         sleep      0.000000      0.00
ALL        SUM         fileread   0.000000      0.00
ALL        SUM         filewrite  1.000733     35.82
ALL        SUM         filemeta   0.000000      0.00
ALL        SUM         netsend    0.000000      0.00
ALL        SUM         netrecv    0.000000      0.00
ALL        SUM         pipe       0.000000      0.00
ALL        SUM         blocked    0.000000      0.00
ALL        SUM         stopped    1.610827     57.66
ALL        ALL         live       2.793750    100.00
ALL        ALL         compute    0.182189      6.52
ALL        ALL         sleep      0.000000      0.00
ALL        ALL         fileread   0.000000      0.00
ALL        ALL         filewrite  1.000733     35.82
ALL        ALL         filemeta   0.000000      0.00
ALL        ALL         netsend    0.000000      0.00
ALL        ALL         netrecv    0.000000      0.00
ALL        ALL         pipe       0.000000      0.00
ALL        ALL         blocked    0.000000      0.00
ALL        ALL         stopped    1.610827     57.66
note: compute is wall-clock time outside calls (and in res=proc calls), not CPU time (sums' cpu, summary's cpu_s);
      SUM adds the threads up (thread-seconds); ALL is wall-clock: the instants some thread was in each category
EOF

expect island-multi 0 consumption tests/traces/island-multi.xml <<'EOF'
node  tid  thread           category     seconds  pct_live  pid  process
repy    1  MainThread       live        0.374999    100.00    1  python
repy    1  MainThread       compute     0.002408      0.64    1  python
repy    1  MainThread       sleep       0.200000     53.33    1  python
repy    1  MainThread       fileread    0.000000      0.00    1  python
repy    1  MainThread       filewrite   0.000000      0.00    1  python
repy    1  MainThread       filemeta    0.000000      0.00    1  python
repy    1  MainThread       netsend     0.000000      0.00    1  python
repy    1  MainThread       netrecv     0.000000      0.00    1  python
repy    1  MainThread       pipe        0.000000      0.00    1  python
repy    1  MainThread       blocked     0.000000      0.00    1  python
repy    1  MainThread       stopped     0.172591     46.02    1  python
repy    3  _EVENT:Thread:3  live       10.195903    100.00    1  python
repy    3  _EVENT:Thread:3  compute     0.100645      0.99    1  python
repy    3  _EVENT:Thread:3  sleep       0.000000      0.00    1  python
repy    3  _EVENT:Thread:3  fileread    0.000000      0.00    1  python
repy    3  _EVENT:Thread:3  filewrite   0.000000      0.00    1  python
repy    3  _EVENT:Thread:3  filemeta    0.000000      0.00    1  python
repy    3  _EVENT:Thread:3  netsend     0.000000      0.00    1  python
repy    3  _EVENT:Thread:3  netrecv     0.000000      0.00    1  python
repy    3  _EVENT:Thread:3  pipe        0.000000      0.00    1  python
repy    3  _EVENT:Thread:3  blocked     0.000000      0.00    1  python
repy    3  _EVENT:Thread:3  stopped    10.095258     99.01    1  python
repy    2  _EVENT:Thread:2  live       10.196958    100.00    1  python
repy    2  _EVENT:Thread:2  compute     0.002647      0.03    1  python
repy    2  _EVENT:Thread:2  sleep       0.000000      0.00    1  python
repy    2  _EVENT:Thread:2  fileread    0.000000      0.00    1  python
repy    2  _EVENT:Thread:2  filewrite   1.000000      9.81    1  python
repy    2  _EVENT:Thread:2  filemeta    0.000000      0.00    1  python
repy    2  _EVENT:Thread:2  netsend     0.000000      0.00    1  python
repy    2  _EVENT:Thread:2  netrecv     0.000000      0.00    1  python
repy    2  _EVENT:Thread:2  pipe        0.000000      0.00    1  python
repy    2  _EVENT:Thread:2  blocked     0.000000      0.00    1  python
repy    2  _EVENT:Thread:2  stopped     9.194311     90.17    1  python
ALL        SUM              live       20.767860    100.00
ALL        SUM              compute     0.105700      0.51
ALL        SUM              sleep       0.200000      0.96
ALL        SUM              fileread    0.000000      0.00
ALL        SUM              filewrite   1.000000      4.82
ALL        SUM              filemeta    0.000000      0.00
ALL        SUM              netsend     0.000000      0.00
ALL        SUM              netrecv     0.000000      0.00
ALL        SUM              pipe        0.000000      0.00
ALL        SUM              blocked     0.000000      0.00
ALL        SUM              stopped    19.462160     93.71
ALL        ALL              live       10.571536    100.00
ALL        ALL              compute     0.103259      0.98
ALL        ALL              sleep       0.200000      1.89
ALL        ALL              fileread    0.000000      0.00
ALL        ALL              filewrite   1.000000      9.46
ALL        ALL              filemeta    0.000000      0.00
ALL        ALL              netsend     0.000000      0.00
ALL        ALL              netrecv     0.000000      0.00
ALL        ALL              pipe        0.000000      0.00
ALL        ALL              blocked     0.000000      0.00
ALL        ALL              stopped    10.267849     97.13
note: compute is wall-clock time outside calls (and in res=proc calls), not CPU time (sums' cpu, summary's cpu_s);
      SUM adds the threads up (thread-seconds); ALL is wall-clock: the instants some thread was in each category
EOF

expect island-multi-sums 0 sums tests/traces/island-multi.xml <<'EOF'
resource        total  unit
fileread            0  bytes
filewrite      200000  bytes
filesopened         1  count
netsend             0  bytes
tcpsend             0  bytes
udpsend             0  bytes
netrecv             0  bytes
tcprecv             0  bytes
udprecv             0  bytes
insockets           0  count
outsockets          0  count
events              2  threads
cpu          0.103658  seconds
EOF

expect island-multi-summary 0 summary tests/traces/island-multi.xml <<'EOF'
item                total  live_at_end
nodes                   1
processes               1            0
threads                 3            0
files                   1            0
sockets                 0            0
run_s           19.200000
calls                   5
bytes_read              0
bytes_written      200000
bytes_sent              0
bytes_received          0
cpu_s            0.103658
note: cpu_s is the threads' CPU time (the kernel's, as sums' cpu); consumption's compute is
      wall-clock time outside calls
EOF

expect island-multi-timeline 0 timeline --starts tests/traces/island-multi.xml <<'EOF'
TOC           node  pid  process  tid  thread           API                        amount        dur_s         fd  target
 8.598685980  repy    1  python     1  MainThread       island_create_thread
 8.598978996  repy    1  python     1  MainThread       start call pthread_create
 8.599668980  repy    1  python     1  MainThread       pthread_create                            0.000689984
 8.599812984  repy    1  python     1  MainThread       start call pthread_create
 8.600126028  repy    1  python     1  MainThread       pthread_create                            0.000313044
 8.600286007  repy    1  python     1  MainThread       start call nanosleep
 8.677626133  repy                     ALL              Stopped                     0.294054779
 8.972877026  repy    1  python     1  MainThread       nanosleep                   0.200000000   0.372591019
 8.973051071  repy    1  python     3  _EVENT:Thread:3  island_create_thread
 8.973263979  repy    1  python     2  _EVENT:Thread:2  island_create_thread
 8.973685026  repy    1  python     1  MainThread       island_destroy_thread
 8.974563122  repy    1  python     2  _EVENT:Thread:2  start call open                                         3  /repy/test.out
 8.974563122  repy    1  python     2  _EVENT:Thread:2  open                                      0.000000000   3  /repy/test.out
 8.975070953  repy    1  python     2  _EVENT:Thread:2  start call write                                        3  /repy/test.out
 9.072252035  repy                     ALL              Stopped                    10.095258137
19.168954134  repy    1  python     3  _EVENT:Thread:3  island_destroy_thread
19.169382095  repy    1  python     2  _EVENT:Thread:2  write                            200000  10.194311142   3  /repy/test.out
19.170222044  repy    1  python     2  _EVENT:Thread:2  island_destroy_thread
EOF

exit $fail
