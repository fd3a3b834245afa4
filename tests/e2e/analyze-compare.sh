#!/bin/sh
# compare A B: sums, consumption and regions side by side, the category
# that grew most and the resource to add first.
# Expected output is written out literally; see tests/traces/ for the inputs.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
# B: basic.xml with its stop at 2.7 s three times as long (0.3 s): the
# main thread, computing then, loses 0.2 s of cpu to stopped. CPU is the
# resource to add: stopped grew 0.2 s, and for A's 2.36 s of computing at
# B's rate (0.6 s stopped per 2.16 s of cpu) 2.36 * 0.6 / 2.16 - 0.4 =
# 0.255556 s. The recvs are blocked: their peer's trace is not given.
sed 's|<stop start="2.700000000" dur="0.100000000"/>|<stop start="2.700000000" dur="0.300000000"/>|' \
	"$R/tests/traces/basic.xml" > "$out/throttled.xml"

expect compare 0 compare tests/traces/basic.xml "$out/throttled.xml" <<'EOF'
section      metric              a         b       diff  pct_change
sums         fileread         4096      4096          0        0.00
sums         filewrite      200000    200000          0        0.00
sums         filesopened         2         2          0        0.00
sums         netsend            15        15          0        0.00
sums         tcpsend            10        10          0        0.00
sums         udpsend             5         5          0        0.00
sums         netrecv            20        20          0        0.00
sums         tcprecv            20        20          0        0.00
sums         udprecv             0         0          0           -
sums         insockets           0         0          0           -
sums         outsockets          1         1          0        0.00
sums         events              1         1          0        0.00
sums         cpu          0.800000  0.800000   0.000000        0.00
consumption  live         5.190000  5.190000   0.000000        0.00
consumption  compute      2.360000  2.160000  -0.200000       -8.47
consumption  sleep        0.400000  0.400000   0.000000        0.00
consumption  fileread     0.100000  0.100000   0.000000        0.00
consumption  filewrite    1.000000  1.000000   0.000000        0.00
consumption  filemeta     0.020000  0.020000   0.000000        0.00
consumption  netsend      0.060000  0.060000   0.000000        0.00
consumption  netrecv      0.000000  0.000000   0.000000           -
consumption  pipe         0.000000  0.000000   0.000000           -
consumption  blocked      0.850000  0.850000   0.000000        0.00
consumption  stopped      0.400000  0.600000  +0.200000      +50.00
regions      work         2.400000  2.400000   0.000000        0.00
regions      work/write   1.000000  1.000000   0.000000        0.00
regions      work/nap     0.500000  0.500000   0.000000        0.00
regions      close        0.010000  0.010000   0.000000        0.00
regions      net          0.510000  0.510000   0.000000        0.00
grew most: stopped, by 0.200000 s (+50.00%)
add first: CPU. B spent 0.200000 s more stopped (CPU restriction; 0.255556 s more for as much computing as A): more CPU would help most.
EOF

expect compare-csv 0 compare --csv tests/traces/node2.xml tests/traces/basic.xml <<'EOF'
section,metric,a,b,diff,pct_change
sums,fileread,0,4096,4096,
sums,filewrite,0,200000,200000,
sums,filesopened,0,2,2,
sums,netsend,20,15,-5,-25.00
sums,tcpsend,20,10,-10,-50.00
sums,udpsend,0,5,5,
sums,netrecv,10,20,10,100.00
sums,tcprecv,10,20,10,100.00
sums,udprecv,0,0,0,
sums,insockets,1,0,-1,-100.00
sums,outsockets,0,1,1,
sums,events,0,1,1,
sums,cpu,0.100000,0.800000,0.700000,700.00
consumption,live,2.000000,5.190000,3.190000,159.50
consumption,compute,0.850000,2.360000,1.510000,177.65
consumption,sleep,0.000000,0.400000,0.400000,
consumption,fileread,0.000000,0.100000,0.100000,
consumption,filewrite,0.000000,1.000000,1.000000,
consumption,filemeta,0.000000,0.020000,0.020000,
consumption,netsend,0.050000,0.060000,0.010000,20.00
consumption,netrecv,0.000000,0.000000,0.000000,
consumption,pipe,0.000000,0.000000,0.000000,
consumption,blocked,0.600000,0.850000,0.250000,41.67
consumption,stopped,0.500000,0.400000,-0.100000,-20.00
regions,work,0.000000,2.400000,2.400000,
regions,work/write,0.000000,1.000000,1.000000,
regions,work/nap,0.000000,0.500000,0.500000,
regions,close,0.000000,0.010000,0.010000,
regions,net,0.000000,0.510000,0.510000,
EOF

expect compare-one 2 compare tests/traces/basic.xml <<'EOF'
island-analyze: compare: give exactly two traces, A and B
EOF

exit $fail
