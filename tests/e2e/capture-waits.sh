# Waiting calls: barrier, contended mutex (an uncontended one is not
# recorded), condition variable, semaphore, poll, select, epoll, sleeps,
# join; thread names set with pthread_setname_np.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
out=$("$CAPTURE" -n wt "$APPS/waits") || fail "waits failed"
expect_eq "output" "$out" "waits: ok"
check_trace wt.xml
got=$(grep -E 'res="(wait|sleep)"|<thread' wt.xml | normalise | sed -E 's/ cpu="T"//; s/ fd="[0-9]+"//')
want='    <thread tid="N" name="waits" start="T" end="T" exit="process" complete="true">
      <io api="pthread_barrier_wait" res="wait" start="T" end="T"/>
      <io api="usleep" res="sleep" start="T" end="T" req="T"/>
      <io api="pthread_cond_wait" res="wait" start="T" end="T"/>
      <io api="sem_wait" res="wait" start="T" end="T"/>
      <io api="poll" res="wait" start="T" end="T" timeout="T" count="1"/>
      <io api="select" res="wait" start="T" end="T" timeout="T" count="1"/>
      <io api="epoll_wait" res="wait" start="T" end="T" timeout="T" count="1"/>
      <io api="nanosleep" res="sleep" start="T" end="T" req="T"/>
      <io api="pthread_join" res="wait" start="T" end="T" child="N"/>
    <thread tid="N" name="worker" creator="N" start="T" end="T" exit="return" complete="true">
      <io api="pthread_barrier_wait" res="wait" start="T" end="T"/>
      <io api="pthread_mutex_lock" res="wait" start="T" end="T"/>
      <io api="usleep" res="sleep" start="T" end="T" req="T"/>
      <io api="usleep" res="sleep" start="T" end="T" req="T"/>'
expect_eq "waits" "$got" "$want"
# the blocked lock lasted about the 20 ms the main thread held it
dur=$(grep 'pthread_mutex_lock' wt.xml | sed -E 's/.*start="([0-9.]+)" end="([0-9.]+)".*/\2 - \1/' | bc)
[ "$(echo "$dur > 0.015" | bc)" = 1 ] || fail "mutex wait $dur s, want about 0.02 s"
# per thread: computes and calls add up to the thread's life
awk '/<thread /{ match($0, /start="[0-9.]+"/); s = substr($0, RSTART + 7, RLENGTH - 8);
       match($0, /end="[0-9.]+"/); e = substr($0, RSTART + 5, RLENGTH - 6); sum = 0 }
     /<compute /{ match($0, /dur="[0-9.]+"/); sum += substr($0, RSTART + 5, RLENGTH - 6) }
     /<io /{ match($0, / start="[0-9.]+"/); a = substr($0, RSTART + 8, RLENGTH - 9);
             match($0, / end="[0-9.]+"/); b = substr($0, RSTART + 6, RLENGTH - 7); sum += b - a }
     /<\/thread>/{ d = sum - (e - s); if (d < 0) d = -d; if (d > 1e-6) { print "gap " d; bad = 1 } }
     END { exit bad }' wt.xml || fail "compute + calls != thread life"
exit 0
