# --profile leaves the application's descriptors alone. libunwind checks
# an address by writing a byte of it to a pipe of its own: the pipe took
# the program's lowest free numbers (3 and 4), so its own files were
# numbered otherwise, and once it put its own files on 3 and 4 the checks
# read from and wrote into them (out.txt grew 2-5 bytes, in.txt's position
# moved to 5). Under --syscalls, neither libunwind's calls nor the
# profiler's (its clocks, its handler's rt_sigreturn) are the program's:
# a profiled trace counts the calls an unprofiled one does.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
[ -x "$APPS/fdreuse" ] || { echo "tests/apps not built"; exit 77; }

# the descriptors the shell holds after some CPU (ticks, unwinding), then
# its own files on 3 and 4 while it burns more
cat > d.sh <<'X'
head -c 100000 /dev/zero | tr '\0' A > in.txt
i=0; while [ $i -lt 20000 ]; do i=$((i+1)); [ -e /etc/hostname ]; done
ls /proc/$$/fd > fds.txt
exec 3<in.txt 4>out.txt
i=0; while [ $i -lt 20000 ]; do i=$((i+1)); [ -e /etc/hostname ]; done
echo "fds $(sort -n fds.txt | tr '\n' ' ')"
echo "out size $(stat -c %s out.txt) $(grep pos /proc/$$/fdinfo/3 | tr -d '\t')"
X
expect_eq "native" "$(bash d.sh)" "fds 0 1 2 255 
out size 0 pos:0"
for u in auto libunwind; do
	for m in "--profile" "--syscalls --profile"; do
		# shellcheck disable=SC2086
		out=$(ISLAND_UNWIND=$u "$CAPTURE" $m -o d.xml -- bash d.sh) ||
			fail "$u $m: capture failed"
		expect_eq "$u $m" "$out" "fds 0 1 2 255 
out size 0 pos:0"
		# it was profiled: samples with stacks
		"$ANALYZE" profile raw --csv d.xml > raw.csv
		[ "$(tail -n +2 raw.csv | wc -l)" -gt 0 ] || fail "$u $m: no samples"
	done
done

# a program's first file is number 3, as natively
if [ -x /usr/bin/python3 ]; then
	py='print(sum(range(3000000)) and open("/etc/hostname").fileno())'
	expect_eq "python natively" "$(/usr/bin/python3 -c "$py")" 3
	for m in "--profile" "--syscalls --profile"; do
		# shellcheck disable=SC2086
		expect_eq "python $m" "$(ISLAND_UNWIND=libunwind "$CAPTURE" $m -o py.xml -- /usr/bin/python3 -c "$py")" 3
	done
fi

# the same calls, profiled or not (write 181 with --profile: the tick's
# clock_gettime split the libc write from its system call; rt_sigreturn 45:
# the tick handler's). fdreuse's own clock_gettime count follows its
# burner's speed: not compared.
counts() {
	"$ANALYZE" calls --csv "$1" | awk -F, '$1 ~ /^(write|read|pipe2|openat|rt_sigprocmask|rt_sigreturn|mincore|msync)$/ { print $1 "x" $2 }' | sort | tr '\n' ' '
}
# (fdreuse exits 3 when a number was not reused: the rewrite of a call
# site opened /proc/self/mem for a moment, 1 to 2 runs in 10; no more)
fdreuse_ok() { [ "$1" = 0 ]; }
rc=0; "$CAPTURE" --syscalls -o plain.xml -- "$APPS/fdreuse" 20 a b > /dev/null 2>&1 || rc=$?
fdreuse_ok $rc || fail "fdreuse --syscalls: status $rc"
expect_eq "--syscalls" "$(counts plain.xml)" "openatx2 readx1 rt_sigprocmaskx7 writex160 "
for u in auto libunwind; do
	rm -f a b
	rc=0; ISLAND_UNWIND=$u "$CAPTURE" --syscalls --profile -o prof.xml -- "$APPS/fdreuse" 20 a b > /dev/null 2>&1 || rc=$?
	fdreuse_ok $rc || fail "$u: fdreuse --syscalls --profile: status $rc"
	expect_eq "$u: --syscalls --profile" "$(counts prof.xml)" "openatx2 readx1 rt_sigprocmaskx7 writex160 "
	expect_eq "$u: files" "$(stat -c %s a b | tr '\n' ' ')" "60000 70000 "
done
echo ok
