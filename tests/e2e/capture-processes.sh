# Threads, fork, exec, vfork, posix_spawn and system() are all followed;
# the trace states the process tree and every file's bytes.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
mkdir out
"$CAPTURE" -n fe "$APPS/forkexec" "$PWD/out" || fail "forkexec failed"
check_trace fe.xml
got=$(grep -E '<process|<thread' fe.xml | normalise |
      sed -E 's/ (exe|cwd|name)="[^"]*"//g; s/(status|exit|complete)=/\1=/g')
want='  <process pid="N" ppid="N" start="T" end="T" status="exit:0" complete="true">
    <thread tid="N" start="T" end="T" cpu="T" exit="process" complete="true">
    <thread tid="N" creator="N" start="T" end="T" cpu="T" exit="return" complete="true">
  <process pid="N" ppid="N" start="T" end="T" status="exit:0" complete="true">
    <thread tid="N" start="T" end="T" cpu="T" exit="process" complete="true">
  <process pid="N" ppid="N" start="T" end="T" status="exit:0" complete="true">
    <thread tid="N" start="T" end="T" cpu="T" exit="process" complete="true">
  <process pid="N" ppid="N" start="T" end="T" status="exit:0" complete="true">
    <thread tid="N" start="T" end="T" cpu="T" exit="process" complete="true">
  <process pid="N" ppid="N" start="T" end="T" status="exit:0" complete="true">
    <thread tid="N" start="T" end="T" cpu="T" exit="process" complete="true">
  <process pid="N" ppid="N" start="T" end="T" status="exit:0" complete="true">
    <thread tid="N" start="T" end="T" cpu="T" exit="process" complete="true">'
expect_eq "process tree" "$got" "$want"
grep -o 'exe="[^"]*"' fe.xml | sed 's|.*/||' | tr -d '"' | tr '\n' ' ' > exes
expect_eq "executables" "$(cat exes)" "forkexec forkexec cp cp dash cat "
got=$(files_of fe.xml | sed "s|$PWD/||" | grep '^out/' | sort)
want='out/child.txt 0 120
out/exec.txt 0 50
out/parent.txt 1050 350
out/spawn.txt 0 350
out/system.txt 0 350
out/thread.txt 0 700
out/vfork.txt 0 350'
expect_eq "files" "$got" "$want"
# the exec keeps the process: the forked child's thread goes on in the new image
grep -q 'api="execve"' fe.xml || fail "no execve record"
grep -q 'api="vfork"' fe.xml || fail "no vfork record"
# the vfork names its child (whose first call a wrapper sees, its exec,
# writes its pid into the record: it had no child before)
kid=$(sed -n 's/.*api="vfork"[^>]* child="\([0-9]*\)".*/\1/p' fe.xml)
[ -n "$kid" ] && grep -q "<process pid=\"$kid\" " fe.xml || fail "vfork without its child: '$kid'"
# ... and one whose child calls only _exit: the pid its waitpid reaped
"$CAPTURE" -n vx -o vx.xml "$APPS/vforkexit" || fail "vforkexit failed"
kid=$(sed -n 's/.*api="vfork"[^>]* child="\([0-9]*\)".*/\1/p' vx.xml)
reaped=$(sed -n 's/.*api="waitpid"[^>]* child="\([0-9]*\)".*/\1/p' vx.xml)
[ -n "$kid" ] && [ "$kid" = "$reaped" ] || fail "vfork then _exit: child '$kid', reaped '$reaped'"
grep -q 'api="posix_spawn" res="proc"' fe.xml || fail "no posix_spawn record"
grep -q 'api="system" res="wait".*status="exit:0"' fe.xml || fail "no system record"
grep -q 'api="pthread_create" res="proc".*child="' fe.xml || fail "pthread_create without child"
exit 0
