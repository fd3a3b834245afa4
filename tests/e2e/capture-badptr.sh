# Calls given a pointer to nowhere (tests/apps/badptr) fail as they do
# natively, under the capture as without it, with --syscalls, and in a
# sandbox that kills for process_vm_readv: the
# capture reads what a failed call was given only where it can be read
# (capture/preload/appmem.c; open((char *)1, ...) was a SIGSEGV under
# it, and 24 other calls too). Each is recorded, failed with EFAULT (or
# ESPIPE), with no path; the traces are valid.
. "$ISLAND_ROOT/tests/e2e/lib.sh"

want='open -1 EFAULT
openat -1 EFAULT
creat -1 EFAULT
fopen -1 EFAULT
stat -1 EFAULT
statx -1 EFAULT
access -1 EFAULT
readlink -1 EFAULT
rename -1 EFAULT
memfd_create -1 EFAULT
writev -1 EFAULT
readv -1 EFAULT
pwritev -1 ESPIPE
sendmsg -1 EFAULT
recvmsg -1 EFAULT
connect -1 EFAULT
nanosleep -1 EFAULT
clock_nanosleep 14 EFAULT
execve -1 EFAULT
execv -1 EFAULT'
"$APPS/badptr" > native.out 2>&1 || fail "badptr failed natively: $(cat native.out)"
expect_eq "natively" "$(cat native.out)" "$want"
for opt in "" --syscalls; do
	"$CAPTURE" $opt -n b -o "b$opt.xml" "$APPS/badptr" > "cap$opt.out" 2> "cap$opt.err" ||
		fail "badptr failed under the capture $opt: $(cat "cap$opt.out" "cap$opt.err")"
	expect_eq "captured $opt" "$(cat "cap$opt.out")" "$want"
	check_trace "b$opt.xml"
done
# in a sandbox that kills for process_vm_readv: the memory is tried
# another way (a process_vm_readv of its own killed the program)
"$APPS/badptr" sandboxed > sandboxed.out 2>&1 || fail "badptr sandboxed failed natively: $(cat sandboxed.out)"
expect_eq "sandboxed, natively" "$(cat sandboxed.out)" "$want"
"$CAPTURE" -n b -o bs.xml "$APPS/badptr" sandboxed > caps.out 2> caps.err ||
	fail "badptr sandboxed failed under the capture: $(cat caps.out caps.err)"
expect_eq "sandboxed, captured" "$(cat caps.out)" "$want"
# the failed calls, as the default capture records them: no path read
expect_eq "recorded" "$(grep '<io ' b.xml | grep -v 'api="printf"\|api="socket"\|api="pipe"\|api="munmap"' |
	sed 's/ start="[^"]*" end="[^"]*"//; s/ fd="[0-9]*"//; s/ peer="pipe" pipe="[0-9]*" proto="pipe"//
	     s/ proto="udp"//; s/ local="[^"]*"//; s/^ *//')" \
'<io api="open" res="filemeta" flags="O_RDONLY" result="-1" errno="EFAULT"/>
<io api="openat" res="filemeta" flags="O_RDONLY" result="-1" errno="EFAULT"/>
<io api="creat" res="filemeta" flags="O_WRONLY|O_CREAT|O_TRUNC" result="-1" errno="EFAULT"/>
<io api="fopen" res="filemeta" result="-1" errno="EFAULT"/>
<io api="stat" res="filemeta" result="-1" errno="EFAULT"/>
<io api="statx" res="filemeta" result="-1" errno="EFAULT"/>
<io api="access" res="filemeta" result="-1" errno="EFAULT"/>
<io api="readlink" res="filemeta" result="-1" errno="EFAULT"/>
<io api="rename" res="filemeta" result="-1" errno="EFAULT"/>
<io api="memfd_create" res="filemeta" path="memfd:" result="-1" errno="EFAULT"/>
<io api="writev" res="netsend" amount="0" result="-1" errno="EFAULT"/>
<io api="readv" res="netrecv" amount="0" result="-1" errno="EFAULT"/>
<io api="pwritev" res="netsend" amount="0" offset="0" result="-1" errno="ESPIPE"/>
<io api="sendmsg" res="netsend" amount="0" result="-1" errno="EFAULT"/>
<io api="recvmsg" res="netrecv" amount="0" result="-1" errno="EFAULT"/>
<io api="connect" res="netmeta" result="-1" errno="EFAULT"/>
<io api="nanosleep" res="sleep" result="-1" errno="EFAULT"/>
<io api="clock_nanosleep" res="sleep" result="14" errno="EFAULT"/>
<io api="execve" res="proc" result="-1" errno="EFAULT"/>
<io api="execve" res="proc" result="-1" errno="EFAULT"/>'
exit 0
