# island-capture --syscalls records msync as the default capture does
# (tests/e2e/capture-calls.sh): a write of the bytes it flushed to the
# file mapped there, also when the program calls the kernel itself.
# tests/apps/rawmsync maps DIR/map.dat shared, msyncs its first 4096
# bytes and unmaps it with raw syscall(), then again with libc's msync
# (the other 4096 bytes) and munmap: the kernel-level elements name the
# file, and per file, two writes of 4096 bytes.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
mkdir d
"$CAPTURE" --syscalls -o m.xml -- "$APPS/rawmsync" d 2> cap.err || fail "capture: $(cat cap.err)"
check_trace m.xml
grep -q 'syscalls="kernel"' m.xml || fail "no kernel-level records"
grep -E '<io api="(mmap|msync|munmap)" [^>]*path="[^"]*map.dat"' m.xml | normalise |
	sed -E 's/ (start|end)="T"//g; s/^ *//' > got.txt
cat > want.txt <<'WANT'
<io api="mmap" res="filemeta" level="libc|kernel" sys="mmap" size="8192" offset="0" flags="MAP_SHARED" fd="3" path="DIR/d/map.dat"/>
<io api="msync" res="filewrite" level="kernel" amount="4096" size="4096" path="DIR/d/map.dat"/>
<io api="munmap" res="filemeta" level="kernel" size="8192" path="DIR/d/map.dat"/>
<io api="mmap" res="filemeta" level="libc|kernel" sys="mmap" size="8192" offset="0" flags="MAP_SHARED" fd="3" path="DIR/d/map.dat"/>
<io api="msync" res="filewrite" level="libc|kernel" sys="msync" amount="4096" size="4096" path="DIR/d/map.dat"/>
<io api="munmap" res="filemeta" level="libc|kernel" sys="munmap" size="8192" path="DIR/d/map.dat"/>
WANT
diff -u want.txt got.txt || fail "the mapping's records differ"
"$ANALYZE" files --csv m.xml | cut -d, -f2-5,7,8,11 | sed "s|$PWD|DIR|" | grep '/map.dat,' > files.csv
expect_eq "map.dat per file (path,opens,reads,bytes_read,writes,bytes_written,open_at_end)" \
	"$(cat files.csv)" "DIR/d/map.dat,1,0,0,2,8192,0"
# anonymous memory is not I/O: a plain system call, as the default
# capture does not record it at all
grep -q '<io api="mmap" res="sys"' m.xml || fail "no anonymous mmap recorded as a plain system call"
grep -q '<io api="mmap" res="filemeta"[^>]* fd="-1"' m.xml && fail "an anonymous mmap recorded as a file's"
exit 0
