# island-analyze access: Darshan's counters on a known pattern (tests/apps/
# access.c): 4 consecutive writes of 1000 B, pwrites of 100 B at 9000,
# 8000, 7000; 3 consecutive reads of 512 B, reads of 256 B at 2048, 4096,
# 6144 after lseeks; then the same through stdio, dup, O_APPEND and a
# forked child (accstdio.c). Every counter and bucket is stated here.
. "$ISLAND_ROOT/tests/e2e/lib.sh"

"$CAPTURE" -n n1 -o a.xml -- "$APPS/access" x.dat
"$ANALYZE" access --csv a.xml > got.csv
expect_eq header "$(head -1 got.csv)" "node,path,reads,writes,bytes_read,bytes_written,consec_reads,consec_writes,seq_reads,seq_writes,unaligned,unaligned_bytes,r_0_100,r_100_1K,r_1K_10K,r_10K_100K,r_100K_1M,r_1M_4M,r_4M_10M,r_10M_100M,r_100M_1G,r_1G_PLUS,w_0_100,w_100_1K,w_1K_10K,w_10K_100K,w_100K_1M,w_1M_4M,w_4M_10M,w_10M_100M,w_100M_1G,w_1G_PLUS,access1,access1_count,access2,access2_count,access3,access3_count,access4,access4_count"
# reads 6: consecutive at 512 and 1024; sequential those and 2048, 4096,
# 6144. writes 7: consecutive at 1000..3000; sequential those and 9000.
# Unaligned to 4096: writes at 1000, 2000, 3000, 9000, 8000, 7000, reads at
# 512, 1024, 2048, 6144: 10 accesses, 3000 + 300 + 1024 + 512 bytes.
expect_eq row "$(sed -n 2p got.csv)" "n1,$PWD/x.dat,6,7,2304,4300,2,3,5,4,10,4836,0,6,0,0,0,0,0,0,0,0,3,4,0,0,0,0,0,0,0,0,1000,4,100,3,256,3,512,3"
expect_eq rows "$(wc -l < got.csv)" 2

# --align 1000: only the reads at 512, 1024, 2048, 4096, 6144 (512 + 512 + 3 x 256)
"$ANALYZE" access --csv --align 1000 a.xml | awk -F, 'NR == 2 { print $11, $12 }' > al
expect_eq "unaligned to 1000" "$(cat al)" "5 1792"
# the same counters whatever the other filters leave of the file
"$ANALYZE" access --csv --path '*/x.dat' a.xml > p.csv
cmp -s got.csv p.csv || fail "--path on the only file changed the table"

# Every call that moves a position (tests/apps/accstdio.c), on y.dat:
# fwrite 100 at 0 and 100; fseek SEEK_SET 1000: at 1000; SEEK_CUR -600:
# at 500; SEEK_END (the size, 1100, known since "w+"): at 1100; ftell
# 1200 moves nothing; rewind: fread 200 at 0; fgetpos; fread 100 at 200;
# fsetpos back: fread 100 at 200. O_APPEND: write 50 at 1200 and, through
# a dup, 50 at 1250. Another open and a dup: read 100 at 0, through the
# dup 100 at 100 (one position), pread at 1000 moves nothing: read 100 at
# 200. A forked child reads 100 on the inherited descriptor (unknown
# offset), lseeks to 300 and reads 100 there.
# writes 7 (600 B): consecutive at 100, 1200, 1250; sequential those and
# 1000, 1100. reads 9 (1000 B), 8 at a known offset: consecutive at 200
# (the second fread), 100 (through the dup) and 300 (the child's, after its
# lseek); sequential those and 1000. Unaligned: every
# known access but the three at 0, 12 of 1100 B.
"$CAPTURE" -n n1 -o s.xml -- "$APPS/accstdio" y.dat
"$ANALYZE" access --csv s.xml | sed -n 2p > s.csv
expect_eq "stdio row" "$(cat s.csv)" "n1,$PWD/y.dat,9,7,1000,600,3,3,4,5,12,1100,8,1,0,0,0,0,0,0,0,0,7,0,0,0,0,0,0,0,0,0,100,13,50,2,200,1,,"
expect_eq "stdio rows" "$("$ANALYZE" access --csv s.xml | wc -l)" 2

# --syscalls: the system calls are the accesses (glibc's flushes, refills
# and lseeks); the stdio calls (level="libc") are not counted again: the
# 600 bytes are written once, by the kernel-level writes (they were 1100,
# in 11 writes, fwrite's and write's both)
"$CAPTURE" --syscalls -n n1 -o k.xml -- "$APPS/accstdio" y.dat
kw=$(grep "path=\"$PWD/y.dat\"" k.xml | grep '<io api="write"' | grep -vc 'level="libc"')
"$ANALYZE" access --csv k.xml | grep ",$PWD/y.dat," | cut -d, -f4,6 > k.csv
expect_eq "--syscalls writes, bytes written" "$(cat k.csv)" "$kw,600"

# msync names its file, not a descriptor: its 8192 bytes are a write of
# m.bin (files counted them, access had no row)
"$CAPTURE" -n n1 -o m.xml -- /usr/bin/python3 -c "import mmap; f=open('m.bin','w+b'); f.truncate(8192); m=mmap.mmap(f.fileno(),8192); m[:5]=b'hello'; m.flush()"
expect_eq "msync row" "$("$ANALYZE" access --csv m.xml | grep ",$PWD/m.bin," | cut -d, -f3-6)" "0,1,0,8192"
echo ok
