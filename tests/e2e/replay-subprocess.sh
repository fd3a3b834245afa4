# island-replay: a child's descriptors set up where the capture cannot see.
# Python's subprocess (and dash, for a command) starts the child with
# vfork, and the child dup2s its stdout and stderr onto the files before
# its exec: nothing of that is recorded. The child's calls name the files
# on fd 1 and 2; the replay wrote them to its parent's stdout instead (the
# sandbox file stayed empty, 0 failed calls). Replayed in every mode: each
# file gets the child's bytes, at the offset the parent's descriptor had
# (a header written before the child's output stays), and the parent's
# own stdout and stderr stay empty (a child writing into a pipe, too),
# and a child given a pipe (capture_output) writes into it.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
PY=/usr/bin/python3
[ -x "$PY" ] || { echo "no $PY"; exit 77; }

printf 'hello\n' > in
cat > sub.py <<'EOF'
import subprocess, tempfile
subprocess.run(['cat', 'in'], stdout=open('o', 'w'))
f = open('h', 'w')
f.write('head\n')
f.flush()
subprocess.run(['cat', 'in'], stdout=f)
f.close()
sh = ['sh', '-c', 'cat in; echo error >&2']
subprocess.run(sh, stdout=open('o1', 'w'), stderr=open('e1', 'w'))
subprocess.run(sh, stdout=open('b', 'w'), stderr=subprocess.STDOUT)
t = tempfile.TemporaryFile(dir='.')
subprocess.run(['cat', 'in'], stdout=t)
t.seek(0)
open('tmpgot', 'wb').write(t.read())
r = subprocess.run(['cat', 'in'], capture_output=True)
open('got', 'w').write(repr(r.stdout))
EOF
"$CAPTURE" -o sub.xml -- "$PY" sub.py > py.out 2> py.err || fail "capture sub.py"
"$CAPTURE" -o echo.xml -- "$PY" -c \
	"import subprocess; subprocess.run(['echo','hello'], stdout=open('o','w'))" \
	> echo.out 2> echo.err || fail "capture echo"
"$CAPTURE" -o vd.xml -- "$APPS/vforkdup" vd in > vd.out || fail "capture vforkdup"
check_trace sub.xml
check_trace echo.xml
check_trace vd.xml
# the vfork child's dup2 before its exec is its own record
grep -q "<io api=\"dup2\" [^>]*fd=\"1\" oldfd=\"[0-9]*\" path=\"$PWD/vd\"" vd.xml ||
	fail "vforkdup: the child's dup2 is not in vd.xml"
expect_eq "original vd" "$(cat vd)" "head
hello"
expect_eq "original o" "$(stat -c %s o)" 6
expect_eq "original h" "$(cat h)" "head
hello"
expect_eq "original b" "$(cat b)" "hello
error"
expect_eq "original got (through a pipe)" "$(cat got)" "b'hello\\n'"
expect_eq "original tmpgot (an O_TMPFILE file)" "$(cat tmpgot)" hello
# the child names it DIR/#INODE (deleted), the parent DIR
grep -q "<io api=\"copy_file_range\" [^>]*fd=\"1\" path=\"$PWD/#[0-9]* (deleted)\"" sub.xml ||
	fail "no child write to the O_TMPFILE file in sub.xml"

# bytes the trace has the processes write to PATH (echo's newline is
# putchar_unlocked, a macro the capture does not see: 5 of its 6 bytes)
traced() {
	grep "res=\"filewrite\" [^>]*amount=\"[0-9]*\" [^>]*path=\"$2\"" "$1" |
		sed 's/.* amount="\([0-9]*\)".*/\1/' | awk '{ n += $1 } END { print n + 0 }'
}
expect_eq "echo: o written in the child" "$(grep -c "<io api=\"fputs\" [^>]*fd=\"1\" path=\"$PWD/o\"" echo.xml)" 1
[ "$(traced echo.xml "$PWD/o")" -gt 0 ] || fail "echo: no bytes traced on o"

attr() { sed -n "s/.*<node [^>]* $2=\"\([-0-9.]*\)\".*/\1/p" "$1"; }
size() { stat -c %s "$1" 2> /dev/null || echo missing; }

for m in causal think timed afap; do
	timeout 60 "$REPLAY" -q --root "r.$m" -m "$m" --report "rep.$m.xml" sub.xml 2> "err.$m" ||
		fail "$m: replay failed: $(cat "err.$m")"
	[ -s "err.$m" ] && fail "$m: $(cat "err.$m")"
	expect_eq "$m: failed calls" "$(attr "rep.$m.xml" failed)" 0
	r="r.$m$PWD"
	expect_eq "$m: o" "$(size "$r/o")" 6
	expect_eq "$m: h (header, then the child's bytes)" "$(size "$r/h")" 11
	expect_eq "$m: o1 (the child's stdout)" "$(size "$r/o1")" 6
	expect_eq "$m: e1 (the child's stderr)" "$(size "$r/e1")" 6
	expect_eq "$m: b (stdout and stderr, one file)" "$(size "$r/b")" 12
	expect_eq "$m: the parent's stdout" "$(size "$r/py.out")" 0
	expect_eq "$m: the parent's stderr" "$(size "$r/py.err")" 0
	# capture_output: the child's stdout is the pipe its parent reads (the
	# trace names the pipe on both sides), not a sink: every byte of the
	# pipes moves (the parent read 0 of its 6 bytes)
	expect_eq "$m: pipe bytes" "$(sed -n 's/.*<family name="net" .* bytes_original="\([0-9]*\)" bytes_replayed="\([0-9]*\)".*/\1 \2/p' "rep.$m.xml")" "12 12"
	# the child writes into the parent's O_TMPFILE file, no file of that name
	expect_eq "$m: files named (deleted)" "$(find "$r" -name '*(deleted)' ! -size 0 | wc -l)" 0

	timeout 60 "$REPLAY" -q --root "e.$m" -m "$m" --report "erep.$m.xml" echo.xml 2> "eerr.$m" ||
		fail "$m: echo: replay failed: $(cat "eerr.$m")"
	[ -s "eerr.$m" ] && fail "$m: echo: $(cat "eerr.$m")"
	expect_eq "$m: echo: failed calls" "$(attr "erep.$m.xml" failed)" 0
	expect_eq "$m: echo: o" "$(size "e.$m$PWD/o")" "$(traced echo.xml "$PWD/o")"
	expect_eq "$m: echo: the parent's stdout" "$(size "e.$m$PWD/echo.out")" 0

	# a parent that never used fd 1: the child's is still its copy of vd
	timeout 60 "$REPLAY" -q --root "v.$m" -m "$m" --report "vrep.$m.xml" vd.xml 2> "verr.$m" ||
		fail "$m: vforkdup: replay failed: $(cat "verr.$m")"
	[ -s "verr.$m" ] && fail "$m: vforkdup: $(cat "verr.$m")"
	expect_eq "$m: vforkdup: failed calls" "$(attr "vrep.$m.xml" failed)" 0
	expect_eq "$m: vforkdup: vd (header, then the child's bytes)" "$(size "v.$m$PWD/vd")" 11
	# nobody's calls name vd.out: not even made
	expect_eq "$m: vforkdup: the parent's stdout" "$(size "v.$m$PWD/vd.out")" missing
done

# multiprocessing.Pool: three workers read their tasks from one pipe,
# in turns a semaphore in shared memory decides (the replay cannot see
# it): each read takes the bytes after the read before it, whoever made
# that one (read in another order, a worker took part of another's task
# and the readers waited for bytes nobody sent: 2 replays in 4 stalled)
cat > pool.py <<'EOF'
import multiprocessing as m
def f(x):
    open('p%d' % x, 'w').write('x' * 1000 * x)
    return x * x
if __name__ == '__main__':
    with m.Pool(3) as p:
        print(sum(p.map(f, range(8))))
EOF
for c in 1 2; do
	"$CAPTURE" -o pool$c.xml -- "$PY" pool.py > pool.out 2> /dev/null || fail "capture pool.py"
	expect_eq "pool.py" "$(cat pool.out)" 140
	for k in 1 2; do
		timeout 60 "$REPLAY" -q --stall 2 --root "pool.$c.$k" --report "prep.$c.$k.xml" pool$c.xml 2> "perr.$c.$k" ||
			fail "pool: replay $k of capture $c: $(cat "perr.$c.$k")"
		expect_eq "pool: replay $k of capture $c: failed calls" "$(attr "prep.$c.$k.xml" failed)" 0
		expect_eq "pool: p7" "$(size "pool.$c.$k$PWD/p7")" 7000
	done
done
echo "PASS"
