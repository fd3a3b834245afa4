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
# <process exe> is the image a process ran last, first_exe the one it
# started in when it exec'd: env that execs true; Python's subprocess
# (a vfork child, whose dup2s and closes are Python's image) and forked
# child, each of which execs true
"$CAPTURE" -o envexec.xml /usr/bin/env /bin/true || fail "env true failed"
expect_eq "env's exec" "$(grep -o '<process [^>]*>' envexec.xml | grep -o ' [a-z_]*exe="[^"]*"')" \
	' exe="/usr/bin/true"
 first_exe="/usr/bin/env"'
# an exec into a static program (no interposer there): its exec's path
"$CAPTURE" -o envstatic.xml /usr/bin/env "$APPS/routes-static" 2> /dev/null
expect_eq "env's exec of a static program" \
	"$(grep -o '<process [^>]*>' envstatic.xml | grep -o ' [a-z_]*exe="[^"]*"')" \
	" exe=\"$APPS/routes-static\"
 first_exe=\"/usr/bin/env\""
py=$(readlink -f /usr/bin/python3)
"$CAPTURE" -o pyexec.xml /usr/bin/python3 -c 'import os, subprocess
subprocess.run(["/bin/true"])
if os.fork() == 0:
    os.execv("/bin/true", ["true"])
os.wait()' || fail "python's fork and exec failed"
expect_eq "python's children" "$(grep -o '<process [^>]*>' pyexec.xml | grep -o ' [a-z_]*exe="[^"]*"')" \
	" exe=\"$py\"
 exe=\"/usr/bin/true\"
 first_exe=\"$py\"
 exe=\"/usr/bin/true\"
 first_exe=\"$py\""
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
# ... whose life starts at the vfork, with its exec, as a fork child's:
# the exec written by the image it made (ISLAND_VFORKED), a child that
# called nothing else before it complete
vf=$(grep 'api="vfork"' fe.xml | head -1)
kid=$(echo "$vf" | sed -n 's/.* child="\([0-9]*\)".*/\1/p')
at=$(echo "$vf" | sed -n 's/.* start="\([0-9.]*\)".*/\1/p')
grep -q "<process pid=\"$kid\" [^>]*start=\"$at\" [^>]*complete=\"true\">" fe.xml ||
	fail "vfork child $kid: not started at its vfork ($at), or incomplete"
sed -n "/<process pid=\"$kid\" /,/<\/process>/p" fe.xml | grep '<io ' | head -1 |
	grep -q 'api="execve" .*path="/bin/cp"' || fail "vfork child $kid: its exec is not its first call"
# a child that dup2s, closes and execs, as Python's subprocess does: on
# its parent's thread state, it records in a spool of its own from its
# first call, as a fork's child does (before, its calls were counted as
# missing and its process incomplete); one whose exec fails, that exec
# and its _exit. Its life starts at its vfork.
"$CAPTURE" -n vx -o vx.xml "$APPS/vforkexit" exec 2> vx.err || fail "vforkexit exec failed"
check_trace vx.xml
expect_eq "vforkexit exec: the capture's warnings" "$(cat vx.err)" ""
grep -q '<trace [^>]*complete="true"' vx.xml || fail "vforkexit exec: the trace is not complete"
vforks=$(sed -n 's/.*api="vfork"[^>]* start="\([0-9.]*\)"[^>]* child="\([0-9]*\)".*/\2:\1/p' vx.xml | tr '\n' ' ')
set -- $vforks
expect_eq "vfork children" "$#" 2
# calls CHILD (PID:START): its process's status, then each call's api,
# fd, oldfd, path and errno, ';'-separated
calls() {
	sed -n "/<process pid=\"${1%%:*}\" [^>]*start=\"${1#*:}\" [^>]*complete=\"true\">/,/<\/process>/p" vx.xml |
		awk '{ out = "" }
		/<process / { match($0, / status="[^"]*"/); out = "status " substr($0, RSTART + 9, RLENGTH - 10) }
		/<io / { match($0, /api="[^"]*"/); out = substr($0, RSTART + 5, RLENGTH - 6)
			n = split("fd oldfd path errno", k, " ")
			for (i = 1; i <= n; i++)
				if (match($0, " " k[i] "=\"[^\"]*\""))
					out = out substr($0, RSTART, RLENGTH) }
		out != "" { printf "%s;", out }'
}
c1=$(calls "$1")
case "$c1" in
"status exit:0;dup2 fd=\"5\" oldfd=\"1\""*"dup2 fd=\"6\" oldfd=\"5\""*"close fd=\"5\""*"execve path=\"/bin/true\";"*) ;;
*) fail "vfork child ${1%%:*}: its calls, from its vfork on: '$c1'" ;;
esac
expect_eq "vfork child ${2%%:*}, a failed exec" "$(calls "$2" | cut -d';' -f1-2)" \
	'status exit:127;execve path="/nonexistent/island-test" errno="ENOENT"'
# where its state cannot be its own (--profile, whose timers and counters
# are its parent image's), it counts its calls, and its process says so;
# one that exec'd nothing, its parent's
"$CAPTURE" --profile=cpu -n vx -o vp.xml "$APPS/vforkexit" exec 2> vx.err || fail "vforkexit exec --profile failed"
check_trace vp.xml
kids=$(sed -n 's/.*api="vfork"[^>]* child="\([0-9]*\)".*/\1/p' vp.xml | tr '\n' ' ')
set -- $kids
expect_eq "vfork children (--profile)" "$#" 2
grep -q "<process pid=\"$1\" [^>]*complete=\"false\" reason=\"3 calls before its exec, as a vfork child on its parent's memory, not recorded\">" vp.xml ||
	fail "vfork child $1 (--profile): its three calls before its exec are not said to be missing"
sed -n "/<process pid=\"$1\" /,/<\/process>/p" vp.xml | grep -q 'api="execve" .*path="/bin/true"' ||
	fail "vfork child $1 (--profile): no exec"
grep -q "reason=\"vfork child $2 has no record (2 calls on its parent's memory, not recorded)\"" vp.xml ||
	fail "vfork child $2 (--profile; a failed exec, then _exit): its parent does not say it is missing"
grep -q '<trace [^>]*complete="false"' vp.xml || fail "vforkexit exec --profile: the trace says it is complete"
expect_eq "the capture's warnings" "$(grep -c 'is incomplete: .*vfork child' vx.err)" 2
# gcc starts cc1, as and collect2 (and collect2 ld) with vfork, each
# child closing its end of a pipe before its exec: every process whole
# (before, each of them said 1 call was missing)
printf 'int main(void) { return 0; }\n' > m.c
"$CAPTURE" -n cc -o cc.xml gcc -o m m.c 2> cc.err || fail "gcc under the capture failed"
check_trace cc.xml
expect_eq "gcc: the capture's warnings" "$(cat cc.err)" ""
grep -q '<trace [^>]*complete="true"' cc.xml ||
	fail "gcc: the trace is not complete: $(grep -o 'reason="[^"]*"' cc.xml | head -3)"
kids=$(sed -n 's/.*api="vfork"[^>]* child="\([0-9]*\)".*/\1/p' cc.xml)
[ "$(echo "$kids" | wc -w)" -ge 3 ] || fail "gcc: vfork children: '$kids' (cc1, as, collect2 at least)"
for k in $kids; do
	sed -n "/<process pid=\"$k\" [^>]*complete=\"true\">/,/<\/process>/p" cc.xml |
		grep '<io ' | head -2 | grep -q 'api="close" ' ||
		fail "gcc: vfork child $k: its close before its exec is not its first call"
done
# what an execvp of a bare name ran, found in PATH (before: the name
# read as relative to the cwd, $PWD/as for gcc's as)
for p in $(sed -n 's/.*api="execve"[^>]* path="\([^"]*\)".*/\1/p' cc.xml); do
	[ -f "$p" ] || fail "gcc: an exec of $p, which is not a file"
done
"$CAPTURE" -n vs -o vsearch.xml "$APPS/vforkexit" search env > /dev/null || fail "vforkexit search failed"
expect_eq "execlp env: the exec's path" \
	"$(sed -n 's/.*api="execve"[^>]* path="\([^"]*\)".*/\1/p' vsearch.xml)" "$(command -v env)"
"$CAPTURE" -n vs -o vsearch.xml "$APPS/vforkexit" spawnp env > /dev/null || fail "vforkexit spawnp failed"
expect_eq "posix_spawnp env: the exec's path" \
	"$(sed -n 's/.*api="execve"[^>]* path="\([^"]*\)".*/\1/p' vsearch.xml)" "$(command -v env)"
# a child that execs a program the interposer cannot enter (static)
"$CAPTURE" -n vs -o vs.xml "$APPS/vforkexit" run "$APPS/selfexe-static" > /dev/null 2>&1 ||
	fail "vforkexit run failed"
kid=$(sed -n 's/.*api="vfork"[^>]* child="\([0-9]*\)".*/\1/p' vs.xml)
grep -q "reason=\"vfork child $kid has no record (an image without the interposer)\"" vs.xml ||
	fail "vfork child $kid, static: its parent does not say it is missing"
"$ANALYZE" sums vp.xml 2> vx.warn > /dev/null || fail "analyze refuses vp.xml"
grep -q "warning: .*incomplete" vx.warn || fail "analyze does not warn: $(cat vx.warn)"
grep -q 'api="posix_spawn" res="proc"' fe.xml || fail "no posix_spawn record"
# a posix_spawn child (libc's own clone and exec, which no wrapper sees):
# its life starts at the call, with its file actions (libc's, in the
# child, before its exec: the parent tells its image, which records them
# when its exec is) and then its exec. Before, its actions were counted
# as missing and its process incomplete. The same under --syscalls.
for mode in "" --syscalls; do
	"$CAPTURE" $mode -n sp -o sp.xml "$APPS/vforkexit" spawn 2> sp.err || fail "vforkexit spawn $mode failed"
	check_trace sp.xml
	expect_eq "spawn $mode: the capture's warnings" "$(cat sp.err)" ""
	grep -q '<trace [^>]*complete="true"' sp.xml || fail "spawn $mode: the trace is not complete"
	kids=$(sed -n 's/.*api="posix_spawn"[^>]* start="\([0-9.]*\)"[^>]* child="\([0-9]*\)".*/\2:\1/p' sp.xml)
	set -- $kids
	expect_eq "spawned children $mode" "$#" 2
	for c in "$@"; do
		kid=${c%%:*} at=${c#*:}
		grep -q "<process pid=\"$kid\" [^>]*start=\"$at\" [^>]*complete=\"true\">" sp.xml ||
			fail "spawned child $kid $mode: not started at its posix_spawn ($at), or incomplete"
	done
	# api fd oldfd path flags, the child's calls to its exec
	acts() {
		sed -n "/<process pid=\"${1%%:*}\" /,/<\/process>/p" sp.xml | grep '<io ' |
			sed '/api="execve"/q' | awk '{
				match($0, /api="[^"]*"/); out = substr($0, RSTART + 5, RLENGTH - 6)
				n = split("fd oldfd path flags", k, " ")
				for (i = 1; i <= n; i++)
					if (match($0, " " k[i] "=\"[^\"]*\""))
						out = out substr($0, RSTART, RLENGTH)
				printf "%s;", out }'
	}
	expect_eq "spawned child ${1%%:*} $mode: its file actions, then its exec" "$(acts "$1")" \
		'open fd="1" path="/dev/null" flags="O_WRONLY";dup2 fd="5" oldfd="1" path="/dev/null";execve path="/bin/true";'
	expect_eq "spawned child ${2%%:*} $mode (no file actions)" "$(acts "$2")" 'execve path="/bin/true";'
done
# its dup2 of a pipe's end that its exec closed: the pipe, as a fork's
# child's dup2 names it (the end is found where the dup2 put it)
"$CAPTURE" -n spp -o spp.xml "$APPS/vforkexit" spawnpipe 2> spp.err || fail "vforkexit spawnpipe failed"
check_trace spp.xml
pipe=$(sed -n 's/.*api="pipe"[^>]* pipe="\([0-9]*\)".*/\1/p' spp.xml)
expect_eq "spawnpipe: the child's dup2" \
	"$(grep 'api="dup2"' spp.xml | sed 's/.* fd="1" oldfd="\([0-9]*\)"\(.*\)/oldfd \1\2/; s/ start="[^"]*" end="[^"]*"//')" \
	"oldfd $(sed -n 's/.*api="pipe"[^>]* fd2="\([0-9]*\)".*/\1/p' spp.xml) peer=\"pipe\" pipe=\"$pipe\" proto=\"pipe\"/>"
# a child reaped in a SIGCHLD handler that ran inside its parent's read
# (bash reaps its children so): the handler's wait is recorded after the
# read, inside it (within="read", no computing between them), with the
# status it reaped; the trace is whole (before, the wait was only
# counted, and the parent said a call of its was missing)
for how in exit:7 _exit:8 return:9; do
	"$CAPTURE" -n rp -o rp.xml "$APPS/reaped" "${how%:*}" > rp.out 2> rp.err || fail "reaped ${how%:*} failed"
	check_trace rp.xml
	expect_eq "reaped ${how%:*}: what the parent reaped" "$(cat rp.out)" "exit ${how#*:}"
	expect_eq "reaped ${how%:*}: the statuses" \
		"$(sed -n 's/.*<process [^>]* status="\([^"]*\)".*/\1/p' rp.xml | tr '\n' ' ')" "exit:0 exit:${how#*:} "
	child=$(sed -n 's/.*<process pid="\([0-9]*\)" .*/\1/p' rp.xml | sed -n 2p)
	expect_eq "reaped ${how%:*}: the handler's wait, after the read it ran in" \
		"$(grep -A1 '<io api="read"' rp.xml | tail -1 |
		   sed 's/ start="[^"]*" end="[^"]*"//; s/^ *//')" \
		"<io api=\"waitpid\" res=\"wait\" within=\"read\" child=\"$child\" status=\"exit:${how#*:}\"/>"
	expect_eq "reaped ${how%:*}: nothing missing" "$(grep -c 'complete="false"' rp.xml)" 0
done
grep -q 'api="system" res="wait".*status="exit:0"' fe.xml || fail "no system record"
grep -q 'api="pthread_create" res="proc".*child="' fe.xml || fail "pthread_create without child"
exit 0
