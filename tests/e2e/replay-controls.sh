# What the storage under evaluation and an exec need from the record:
# sync and syncfs are calls of the trace (a `tar xf` + `sync -f .` trace
# held no sync and said it was complete); fcntl, ioctl and fallocate keep
# their command and what it set; and git clone --no-local, whose exec
# status pipe is set close-on-exec by fcntl(F_SETFD, FD_CLOEXEC), replays
# in causal mode (its write end stayed open at the exec, and the parent's
# read of it stalled: "read fd 7: no progress").
. "$ISLAND_ROOT/tests/e2e/lib.sh"
PY=/usr/bin/python3
echo a > f
"$CAPTURE" -o s.xml -- sh -c 'sync; sync -f .' 2> cap.err || fail "capture: $(cat cap.err)"
check_trace s.xml
expect_eq "sync" "$(grep -c '<io api="sync" res="filewrite"' s.xml)" 1
expect_eq "syncfs" "$(grep -c "<io api=\"syncfs\" res=\"filewrite\" .* fd=\"3\" path=\"$PWD\"" s.xml)" 1
for lv in "" --syscalls; do
	"$CAPTURE" $lv -o c.xml -- $PY -c "
import os, fcntl
fd = os.open('x', os.O_CREAT | os.O_WRONLY | os.O_DSYNC, 0o644)
fcntl.fcntl(fd, fcntl.F_SETFD, 0)
fcntl.fcntl(fd, fcntl.F_SETFL, os.O_APPEND)
os.set_blocking(fd, False)
fcntl.ioctl(fd, 0x5451)
os.posix_fallocate(fd, 0, 65536)
os.write(fd, b'y' * 100)
os.close(fd)
" 2> cap.err || fail "capture $lv: $(cat cap.err)"
	check_trace c.xml
	X="fd=\"3\" path=\"$PWD/x\""
	grep -q "api=\"fcntl\" .*cmd=\"F_SETFD\" flags=\"0\" $X" c.xml || fail "$lv: F_SETFD 0"
	grep -q "api=\"fcntl\" .*cmd=\"F_SETFL\" flags=\"O_APPEND\" $X" c.xml || fail "$lv: F_SETFL"
	grep -q "api=\"ioctl\" .*cmd=\"FIONBIO\" flags=\"O_NONBLOCK\" $X" c.xml || fail "$lv: FIONBIO"
	grep -q "api=\"ioctl\" .*cmd=\"FIOCLEX\" $X" c.xml || fail "$lv: FIOCLEX"
	grep -q "api=\"posix_fallocate\" .*size=\"65536\" offset=\"0\" $X" c.xml || fail "$lv: fallocate"
	grep -q "api=\"open[at]*\" .*$X flags=\"O_WRONLY|O_CREAT|O_DSYNC|O_CLOEXEC\"" c.xml || fail "$lv: O_DSYNC"
done
# the replay appends, and allocates what the original did
rm x
"$REPLAY" -q --root r --report rep.xml c.xml 2> err.txt || fail "replay: $(cat err.txt)"
expect_eq "replayed failed" "$(sed -n 's/.*<node name="[^"]*".* failed="\([0-9]*\)".*/\1/p' rep.xml)" 0
expect_eq "replayed size" "$(stat -c %s "r$PWD/x")" 65636
command -v git > /dev/null || { echo "no git: clone part skipped"; exit 0; }
mkdir src && (cd src && git init -q . && echo hello > a.txt && git add . &&
	git -c user.name=a -c user.email=a@b commit -q -m m) || fail "git setup"
for how in --local --no-local; do
	rm -rf dst
	"$CAPTURE" -o g.xml -- git clone -q $how src dst 2> gcap.err || fail "clone $how: $(cat gcap.err)"
	grep -q 'api="fcntl" .*cmd="F_SETFD" flags="FD_CLOEXEC" fd="[0-9]*" peer="pipe"' g.xml ||
		fail "clone $how: no F_SETFD on a pipe"
	rm -rf g
	"$REPLAY" -q --stall 3 --root g --report g.xml.rep g.xml 2> gerr.txt ||
		fail "clone $how replay: $(cat gerr.txt)"
	grep -q "no progress" gerr.txt && fail "clone $how replay stalled: $(cat gerr.txt)"
	expect_eq "clone $how: failed" "$(sed -n 's/.*<node name="[^"]*".* failed="\([0-9]*\)".*/\1/p' g.xml.rep)" 0
done
exit 0
