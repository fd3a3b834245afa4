# island-replay: everyday pipelines in every mode. tar czf (tar writes into
# a pipe gzip reads), sort | uniq -c, yes | head -c 1M (yes dies of
# SIGPIPE), a Python script that runs subprocesses (fork, exec, pipes,
# waitpid), one whose child sends through a socket pair, and a FIFO between
# two processes of a shell are captured once each and replayed in causal,
# think, timed and afap mode: every replay ends, without a failed call,
# each process ending the way the captured one did; the files they wrote
# have their sizes. A replay that cannot go on names its call and gives up
# within seconds; one held by --limit longer than that goes on.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
REPLAY="$ISLAND_ROOT/bin/island-replay"
PY=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) || { echo "python3 not installed"; exit 77; }

mkdir d
for i in $(seq 1 40); do head -c 40000 /dev/urandom > d/f$i; done
seq 1 20000 | sort -R > nums
cat > sub.py <<'EOF'
import json, subprocess
for i in range(5):
    subprocess.run(["sh", "-c", "ls / > f"], check=True)
json.dump({"rows": list(range(2000))}, open("out.json", "w"))
EOF
cat > pair.py <<'EOF'
import os, socket
a, b = socket.socketpair()
pid = os.fork()
if pid == 0:
    a.close()
    for i in range(100):
        b.sendall(b"x" * 1000)
    os._exit(0)
b.close()
n = 0
while True:
    d = a.recv(4096)
    if not d:
        break
    n += len(d)
os.waitpid(pid, 0)
print(n)
EOF
"$CAPTURE" -n tar -o tar.xml tar czf out.tgz d || fail "capture tar"
"$CAPTURE" -n sort -o sort.xml sh -c 'sort -n nums | uniq -c > counts' || fail "capture sort"
"$CAPTURE" -n yes -o yes.xml sh -c 'yes | head -c 1M > head.out' 2> yes.err || fail "capture yes"
"$CAPTURE" -n py -o py.xml "$PY" sub.py || fail "capture python"
expect_eq "pair" "$("$CAPTURE" -n pair -o pair.xml "$PY" pair.py)" 100000
"$CAPTURE" -n fifo -o fifo.xml sh -c 'mkfifo ff; seq 1 20000 > ff & cat ff > fout; wait' || fail "capture fifo"
rm ff
# pipe2 and socketpair record their close-on-exec: Python's pipes have it
grep -q '<io api="socketpair" [^>]*flags="O_CLOEXEC"' pair.xml || fail "socketpair: no O_CLOEXEC"
expect_eq "python's O_CLOEXEC pipes" "$(grep -c '<io api="pipe" [^>]*flags="O_CLOEXEC"' py.xml)" 5
expect_eq "yes ended" "$(grep -c "<process .*status=\"signal:SIGPIPE\"" yes.xml)" 1

# attr REPORT NAME: the node's attribute
attr() { sed -n "s/.*<node [^>]* $2=\"\([-0-9.]*\)\".*/\1/p" "$1"; }

for t in tar sort yes py pair fifo; do
	for m in causal think timed afap; do
		s=$(date +%s)
		timeout 60 "$REPLAY" -q --root "r.$t.$m" -m "$m" --report "$t.$m.xml" "$t.xml" \
			2> "$t.$m.err" || fail "$t, $m: replay failed: $(cat "$t.$m.err")"
		[ $(($(date +%s) - s)) -lt 30 ] || fail "$t, $m: the replay took $(($(date +%s) - s)) s"
		[ -s "$t.$m.err" ] && fail "$t, $m: $(cat "$t.$m.err")"
		expect_eq "$t, $m: failed calls" "$(attr "$t.$m.xml" failed)" 0
		expect_eq "$t, $m: calls" "$(attr "$t.$m.xml" calls)" "$(grep -c '<io ' "$t.xml")"
		# every process ended as it did, SIGPIPE included
		grep '<process ' "$t.$m.xml" | sed 's/.* status="\([^"]*\)" replayed="\([^"]*\)".*/\1 \2/' |
			awk '$1 != $2 { print; bad = 1 } END { exit bad }' > ends.txt ||
			fail "$t, $m: processes ended otherwise: $(cat ends.txt)"
		expect_eq "$t, $m: processes" "$(grep -c '<process ' "$t.$m.xml")" "$(grep -c '<process ' "$t.xml")"
	done
done
expect_eq "out.tgz" "$(stat -c %s "r.tar.causal$PWD/out.tgz")" "$(stat -c %s out.tgz)"
expect_eq "counts" "$(stat -c %s "r.sort.afap$PWD/counts")" "$(stat -c %s counts)"
expect_eq "fout" "$(stat -c %s "r.fifo.timed$PWD/fout")" "$(stat -c %s fout)"
expect_eq "out.json" "$(stat -c %s "r.py.think$PWD/out.json")" "$(stat -c %s out.json)"
# sort and uniq's 60,000 fwrite and printf calls fill stdio buffers: the
# kernel sees a write per 4096 bytes, as the original's did, not 60,000
if command -v strace > /dev/null; then
	strace -f -qq -c -e trace=write -o sort.sc "$REPLAY" -q --root r.sort.strace -m afap sort.xml ||
		fail "sort: replay under strace"
	within "sort: writes" "$(awk '$NF == "write" { print $4 }' sort.sc)" 1 400
fi
# Python reads its exec error pipe to its end, which comes at the child's
# exec (its end is close-on-exec), not when the child has run: 0.2 ms
# originally, whole children (0.15 s and more) when that was not known
within "python: pipe reads (s)" "$(sed -n 's/.*<family name="net" [^>]* replayed="\([0-9.]*\)".*/\1/p' py.causal.xml)" 0 0.05
# yes died of its write into the closed pipe: causal mode had it for real
grep -q 'status="signal:SIGPIPE" replayed="signal:SIGPIPE"' yes.causal.xml || fail "yes: no SIGPIPE"

# causal fidelity: the median of 5 replays (this one and 4 more) of tar
# and of the Python script within 5 % (unless other work keeps the CPUs
# busy). tar's medians were within 2 % on a quiet machine, but not every
# time while other jobs ran (+3.6 % once): 5 % is the bound that holds.
# The capture is one run: once, every replay of a Python run landed near
# -7 % (its capture the slow one; four more captures replayed at -3 to
# +1 %); a median beyond 5 % is measured again on a second capture, and
# the median of the ten replays of the two is checked, all printed.
capture_again() {
	case $1 in
	tar) rm -f out.tgz; "$CAPTURE" -n tar -o tar.again.xml tar czf out.tgz d ;;
	py) "$CAPTURE" -n py -o py.again.xml "$PY" sub.py ;;
	esac
}
for t in tar py; do
	for i in 2 3 4 5; do
		"$REPLAY" -q --root "r.$t.$i" --report "$t.c$i.xml" "$t.xml" || fail "$t: replay $i"
	done
	e=$(for r in "$t.causal.xml" "$t".c[2-5].xml; do attr "$r" error; done | median)
	echo "$t: causal error $e % (median of 5)"
	if [ "$(echo "$e >= -5 && $e <= 5" | bc)" != 1 ]; then
		capture_again $t || fail "capture $t again"
		for i in 1 2 3 4 5; do
			"$REPLAY" -q --root "r.$t.again.$i" --report "$t.a$i.xml" "$t.again.xml" ||
				fail "$t: replay $i of the second capture"
		done
		echo "$t: causal error $(for r in "$t".a[1-5].xml; do attr "$r" error; done | median) % (median of 5, of a second capture)"
		e=$(for r in "$t.causal.xml" "$t".c[2-5].xml "$t".a[1-5].xml; do attr "$r" error; done | median)
		echo "$t: causal error $e % (median of the 10)"
	fi
	eval "err_$t=\$e"
done
if why=$(untimed); then
	echo "fidelity not checked: $why"
else
	within "tar: causal error (%)" "$err_tar" -5 5
	within "python: causal error (%)" "$err_py" -5 5
fi

# a reader nobody writes to: named, and given up within seconds
cat > stuck.xml <<'EOF'
<?xml version="1.0" encoding="UTF-8"?>
<trace version="1" complete="true">
<node name="a" epoch="0" start="0" end="0.002">
  <process pid="7" ppid="1" exe="/bin/cat" cwd="/" start="0" end="0.002" status="exit:0">
    <thread tid="7" start="0" end="0.002">
      <io api="pipe" res="netmeta" start="0" end="0.000001" fd="3" fd2="4" peer="pipe" proto="pipe"/>
      <io api="read" res="netrecv" start="0.000002" end="0.001" amount="100" size="100" fd="3" peer="pipe" proto="pipe"/>
    </thread>
  </process>
</node>
</trace>
EOF
s=$(date +%s)
"$REPLAY" -q --root r.stuck --stall 1 stuck.xml 2> stuck.err && fail "a stuck replay succeeded"
[ $(($(date +%s) - s)) -le 5 ] || fail "a stuck replay took $(($(date +%s) - s)) s"
expect_eq "stuck" "$(head -1 stuck.err | sed 's/no progress for [0-9.]* s/no progress for N s/')" \
	"stuck.xml:7: node a: process 7 (cat), thread 7: read fd 3: no progress for N s: waiting for data nobody sends (the writer is blocked, or gone early)"
# a call held by --limit longer than --stall is slow, not stuck: b's WAIT
# on it lasts the 1.5 s hold, and the replay ends well
cat > held.xml <<'EOF'
<?xml version="1.0" encoding="UTF-8"?>
<trace version="1" complete="true">
<node name="a" epoch="0" start="0" end="0.01">
  <process pid="1" ppid="0" exe="/bin/w" cwd="/" start="0" end="0.01" status="exit:0">
    <thread tid="1" start="0" end="0.01">
      <io api="open" res="filemeta" start="0" end="0.0001" fd="3" path="/x" flags="O_WRONLY|O_CREAT|O_TRUNC" seq="1"/>
      <io api="write" res="filewrite" start="0.001" end="0.002" fd="3" path="/x" amount="25000" size="25000" seq="2"/>
    </thread>
  </process>
</node>
<node name="b" epoch="0" start="0" end="0.01">
  <process pid="2" ppid="0" exe="/bin/r" cwd="/" start="0" end="0.01" status="exit:0">
    <thread tid="2" start="0" end="0.01">
      <wait node="a" seq="2"/>
      <io api="open" res="filemeta" start="0.003" end="0.004" fd="3" path="/y" flags="O_WRONLY|O_CREAT|O_TRUNC" seq="1"/>
    </thread>
  </process>
</node>
</trace>
EOF
"$REPLAY" -q --root r.held --stall 0.5 --limit a:filewrite=10000 --report held.rep.xml held.xml ||
	fail "a held call was taken for a stuck one"
within "b waited for the hold (s)" "$(sed -n 's/.*<node name="b" [^>]* replayed="\([0-9.]*\)".*/\1/p' held.rep.xml)" 1.4 10
exit 0
