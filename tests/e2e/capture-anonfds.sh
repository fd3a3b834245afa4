# Descriptors on no file (tests/apps/anonfds): eventfd, timerfd_create,
# signalfd, epoll_create1, inotify_init1 and memfd_create are recorded
# as what makes them, named as /proc/PID/fd names them. A read of an
# event counter or a timer is a wait (res="wait": the 50 ms timer's read
# is time blocked, not a file read), a write to an event counter a post
# (res="sys"); a memory file's are file I/O. Before, their reads and
# writes had a descriptor and no name, counted as file bytes, and the
# replay read the timer at once. The replay waits the timer out, makes
# the memory file again, and fails nothing.
. "$ISLAND_ROOT/tests/e2e/lib.sh"

"$CAPTURE" -n a -o a.xml "$APPS/anonfds" > a.out 2> a.err || fail "anonfds failed: $(cat a.err)"
check_trace a.xml
expect_eq "it ran" "$(cat a.out)" ok
expect_eq "the calls" "$(grep '<io ' a.xml | grep -v 'api="puts"' |
	sed 's/ start="[^"]*" end="[^"]*"//; s/ timeout="[^"]*"//; s/^ *//')" \
'<io api="eventfd" res="filemeta" fd="3" path="anon_inode:[eventfd]"/>
<io api="write" res="sys" amount="8" size="8" fd="3" path="anon_inode:[eventfd]"/>
<io api="read" res="wait" amount="8" size="8" fd="3" path="anon_inode:[eventfd]"/>
<io api="close" res="filemeta" fd="3" path="anon_inode:[eventfd]"/>
<io api="timerfd_create" res="filemeta" fd="3" path="anon_inode:[timerfd]"/>
<io api="read" res="wait" amount="8" size="8" fd="3" path="anon_inode:[timerfd]"/>
<io api="close" res="filemeta" fd="3" path="anon_inode:[timerfd]"/>
<io api="memfd_create" res="filemeta" fd="3" path="memfd:buf"/>
<io api="write" res="filewrite" amount="4096" size="4096" fd="3" path="memfd:buf"/>
<io api="pread" res="fileread" amount="100" size="100" offset="0" fd="3" path="memfd:buf"/>
<io api="close" res="filemeta" fd="3" path="memfd:buf"/>
<io api="epoll_create1" res="filemeta" fd="3" path="anon_inode:[eventpoll]"/>
<io api="epoll_wait" res="wait" fd="3" count="0"/>
<io api="close" res="filemeta" fd="3" path="anon_inode:[eventpoll]"/>
<io api="inotify_init1" res="filemeta" fd="3" path="anon_inode:inotify"/>
<io api="close" res="filemeta" fd="3" path="anon_inode:inotify"/>
<io api="signalfd" res="filemeta" fd="3" path="anon_inode:[signalfd]"/>
<io api="close" res="filemeta" fd="3" path="anon_inode:[signalfd]"/>'
# the timer's 50 ms: blocked, in no file's time
"$ANALYZE" consumption a.xml > cons.txt 2>&1 || fail "consumption failed"
expect_eq "the timer's wait is time blocked" \
	"$(awk '$4 == "blocked" && $1 != "ALL" { print ($5 >= 0.045) ? "50 ms or so" : $5 }' cons.txt)" "50 ms or so"
expect_eq "bytes read from files: the memory file's" \
	"$("$ANALYZE" sums a.xml | awk '$1 == "fileread" { print $2 }')" 100
# --syscalls: each call seen at both levels is one (the kernel's eventfd2
# for eventfd); a static program's, seen at the kernel only, named alike
norm() {
	grep '<io ' "$1" | grep 'anon_inode\|memfd' |
		sed 's/.* api="\([a-z_0-9]*\)" res="\([a-z]*\)".*level="\([a-z|]*\)".* path="\([^"]*\)".*/\1 \2 \3 \4/'
}
"$CAPTURE" --syscalls -n s -o s.xml "$APPS/anonfds" > s.out 2> s.err || fail "--syscalls failed: $(cat s.err)"
check_trace s.xml
expect_eq "--syscalls: the calls on no file" "$(norm s.xml)" \
'eventfd filemeta libc|kernel anon_inode:[eventfd]
write sys libc|kernel anon_inode:[eventfd]
read wait libc|kernel anon_inode:[eventfd]
close filemeta libc|kernel anon_inode:[eventfd]
timerfd_create filemeta libc|kernel anon_inode:[timerfd]
read wait libc|kernel anon_inode:[timerfd]
close filemeta libc|kernel anon_inode:[timerfd]
memfd_create filemeta libc|kernel memfd:buf
write filewrite libc|kernel memfd:buf
pread fileread libc|kernel memfd:buf
close filemeta libc|kernel memfd:buf
epoll_create1 filemeta libc|kernel anon_inode:[eventpoll]
close filemeta libc|kernel anon_inode:[eventpoll]
inotify_init1 filemeta libc|kernel anon_inode:inotify
close filemeta libc|kernel anon_inode:inotify
signalfd filemeta libc|kernel anon_inode:[signalfd]
close filemeta libc|kernel anon_inode:[signalfd]'
"$CAPTURE" --syscalls -n st -o st.xml "$APPS/anonfds-static" > st.out 2> st.err ||
	fail "--syscalls static failed: $(cat st.err)"
check_trace st.xml
expect_eq "static: what it ran" "$(cat st.out)" ok
expect_eq "static: the calls on no file, the kernel's names" "$(norm st.xml)" \
'eventfd2 filemeta kernel anon_inode:[eventfd]
write sys kernel anon_inode:[eventfd]
read wait kernel anon_inode:[eventfd]
close filemeta kernel anon_inode:[eventfd]
timerfd_create filemeta kernel anon_inode:[timerfd]
read wait kernel anon_inode:[timerfd]
close filemeta kernel anon_inode:[timerfd]
memfd_create filemeta kernel memfd:buf
write filewrite kernel memfd:buf
pread64 fileread kernel memfd:buf
close filemeta kernel memfd:buf
epoll_create1 filemeta kernel anon_inode:[eventpoll]
close filemeta kernel anon_inode:[eventpoll]
inotify_init1 filemeta kernel anon_inode:inotify
close filemeta kernel anon_inode:inotify
signalfd4 filemeta kernel anon_inode:[signalfd]
close filemeta kernel anon_inode:[signalfd]'
"$REPLAY" -q -r root -o rep.xml a.xml > rep.out 2> rep.err || fail "replay failed: $(cat rep.err)"
expect_eq "replay: nothing failed, nothing skipped" \
	"$(sed -n 's/.*<node [^>]* skipped="\([0-9]*\)" failed="\([0-9]*\)".*/\1 \2/p' rep.xml)" "0 0"
expect_eq "replay: the timer waited out, the memory file written and read (and \"ok\\n\" put)" \
	"$(sed -n 's/.*<node [^>]* replayed="\([0-9.]*\)".*/\1/p' rep.xml | awk '{ print ($1 >= 0.045) ? "yes" : $1 }')
$(sed -n 's/.*<family name="\(read\|write\)" [^>]*bytes_replayed="\([0-9]*\)".*/\1 \2/p' rep.xml)" \
	"yes
read 100
write 4099"
exit 0
