# Numbers given again, and many threads. A server that starts a thread
# a request (tests/apps/churn): every
# thread an element of its own, named by its pthread_create; the spool
# gives a thread pages as it writes (8 KB for a call or two, where each
# took its first chunk's 256 KB: 8,000 threads were 2 GB of /dev/shm);
# a thread that gets the number of one that ended (past pid_max) is a
# thread of its own (it was merged into the first), and so is a process
# (tests/apps/forks), a killed one too. The numbers are given again in a PID namespace of
# its own whose pid_max is small (Linux 6.14 and later), else, for
# threads, past the machine's pid_max where that is small.
. "$ISLAND_ROOT/tests/e2e/lib.sh"

# check NAME N: the trace NAME.isb.zst of churn N
check() {
	"$ANALYZE" export --format xml "$1.isb.zst" > "$1.xml" || fail "$1: not a trace"
	grep -q '<trace [^>]*complete="true"' "$1.xml" || fail "$1: the trace says it is incomplete"
	expect_eq "$1: threads" "$(grep -c '<thread ' "$1.xml")" "$(($2 + 1))"
	expect_eq "$1: pthread_creates naming their thread" \
		"$(grep -c 'api="pthread_create" [^>]*child="' "$1.xml")" "$2"
	# the k-th pthread_create naming a tid made the k-th thread with it
	# (in start order): it started after the call
	awk '/<thread / { match($0, /tid="[0-9]+"/); t = substr($0, RSTART + 5, RLENGTH - 6)
			  match($0, / start="[0-9.]+"/); s = substr($0, RSTART + 8, RLENGTH - 9)
			  start[t SUBSEP (++seen[t])] = s }
	     /api="pthread_create"/ { match($0, /child="[0-9]+"/); c = substr($0, RSTART + 7, RLENGTH - 8)
			  match($0, / start="[0-9.]+"/); s = substr($0, RSTART + 8, RLENGTH - 9)
			  call[c SUBSEP (++made[c])] = s }
	     END { for (k in call) if (!(k in start) || start[k] + 0 < call[k] + 0) bad++
		   print bad + 0 }' "$1.xml" > "$1.order"
	expect_eq "$1: threads that started before their pthread_create" "$(cat "$1.order")" 0
	grep -o '<thread tid="[0-9]*"' "$1.xml" | sort -u | wc -l > "$1.tids"
}

# numbers given again
if unshare -p -f --mount-proc sh -c 'echo 1000 > /proc/sys/kernel/pid_max' 2>/dev/null; then
	unshare -p -f --mount-proc sh -c 'echo 1000 > /proc/sys/kernel/pid_max &&
		"$@"' sh "$CAPTURE" -n again -o again.isb.zst "$APPS/churn" 3000 > again.out 2> again.err ||
		fail "the capture in a PID namespace failed: $(cat again.err)"
	n=3000
elif [ "$(cat /proc/sys/kernel/pid_max)" -le 40000 ]; then
	n=$(($(cat /proc/sys/kernel/pid_max) + 3000))
	"$CAPTURE" -n again -o again.isb.zst "$APPS/churn" "$n" > again.out 2> again.err ||
		fail "the capture failed: $(cat again.err)"
else
	echo "no PID namespace of its own, pid_max large: numbers not given again"
	n=0
fi
if [ "$n" -gt 0 ]; then
	[ -s again.err ] && fail "unexpected messages: $(cat again.err)"
	check again "$n"
	[ "$(cat again.tids)" -lt "$((n + 1))" ] ||
		fail "no thread number was given again ($(cat again.tids) of $((n + 1)))"
	# replayed: each thread started by its pthread_create, joined once
	"$REPLAY" -m afap -r rp1 again.isb.zst > again.rep 2>&1 || fail "replay: $(tail -3 again.rep)"
	expect_eq "again: writes replayed" "$(awk '$1 == "write" { print $4 }' again.rep)" "$((n + 1))"
fi

# processes: a script's commands past pid_max, each a process of its own
# (397 elements for 1,001 processes, the trace saying it was complete),
# each with the status its wait got (the k-th child exits k % 7)
if unshare -p -f --mount-proc sh -c 'echo 400 > /proc/sys/kernel/pid_max' 2>/dev/null; then
	unshare -p -f --mount-proc sh -c 'echo 400 > /proc/sys/kernel/pid_max &&
		"$@"' sh "$CAPTURE" -n procs -o procs.xml "$APPS/forks" 1000 > procs.out 2> procs.err ||
		fail "forks in a PID namespace failed: $(cat procs.err)"
	[ -s procs.err ] && fail "unexpected messages: $(cat procs.err)"
	check_trace procs.xml
	grep -q '<trace [^>]*complete="true"' procs.xml || fail "procs: the trace says it is incomplete"
	expect_eq "procs: processes" "$(grep -c '<process ' procs.xml)" 1001
	pids=$(grep -o '<process pid="[0-9]*"' procs.xml | sort -u | wc -l)
	[ "$pids" -lt 1001 ] || fail "procs: no process number was given again ($pids)"
	# in start order, after the parent: the k-th child's status
	expect_eq "procs: children with another's status" "$(awk '/<process / {
		if (!seen++) next
		match($0, /status="exit:[0-9]+"/)
		if (substr($0, RSTART + 13, RLENGTH - 14) + 0 != k++ % 7) bad++ }
		END { print bad + 0 }' procs.xml)" 0
	expect_eq "procs: writes" "$(grep -c 'api="write"' procs.xml)" 1000
	# replayed: each child by its fork, its status as its wait got it
	"$REPLAY" -m afap -r rp2 procs.xml > procs.rep 2>&1 || fail "procs replay: $(tail -3 procs.rep)"
	expect_eq "procs: children replayed with their status (not exit:0)" \
		"$(grep -c '^  process .* ended \([^,]*\), replayed \1$' procs.rep)" 857
	# every other child killed (SIGKILL: no end of its own seen): told
	# from an exec by when it started, not merged with the next one
	unshare -p -f --mount-proc sh -c 'echo 400 > /proc/sys/kernel/pid_max &&
		"$@"' sh "$CAPTURE" -n kprocs -o kprocs.xml "$APPS/forks" 600 kill \
		> kprocs.out 2> kprocs.err || fail "killed forks failed: $(cat kprocs.err)"
	expect_eq "kprocs: messages" "$(cat kprocs.err)" \
		"island-capture: kprocs.xml: some processes were killed; the trace is marked incomplete"
	check_trace kprocs.xml
	expect_eq "kprocs: processes" "$(grep -c '<process ' kprocs.xml)" 601
	expect_eq "kprocs: processes killed" \
		"$(grep '<process ' kprocs.xml | grep -c 'status="signal:SIGKILL" complete="false"')" 300
	expect_eq "kprocs: writes" "$(grep -c 'api="write"' kprocs.xml)" 600
else
	echo "no PID namespace of its own: process numbers not given again"
fi

# many threads, each given a page or two of the spool
n=20000
"$CAPTURE" -n many -o many.isb.zst "$APPS/churn" "$n" > many.out 2> many.err ||
	fail "the capture failed: $(cat many.err)"
[ -s many.err ] && fail "unexpected messages: $(cat many.err)"
check many "$n"
rss=$(sed -n 's/^peak rss: \([0-9]*\) KB$/\1/p' many.out)
[ -n "$rss" ] && [ "$((rss / n))" -lt 32 ] ||
	fail "the app's peak memory, ${rss:-?} KB for $n threads: more than 32 KB a thread"
exit 0
