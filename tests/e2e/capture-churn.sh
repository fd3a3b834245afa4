# A server that starts a thread a request (tests/apps/churn): every
# thread an element of its own, named by its pthread_create; the spool
# gives a thread pages as it writes (8 KB for a call or two, where each
# took its first chunk's 256 KB: 8,000 threads were 2 GB of /dev/shm);
# past pid_max the kernel gives an ended thread's number again, and the
# thread with it is a thread of its own (it was merged into the first).
. "$ISLAND_ROOT/tests/e2e/lib.sh"
pidmax=$(cat /proc/sys/kernel/pid_max)
n=20000
# tids given again where pid_max is small (32768 here), not in millions
[ "$pidmax" -le 40000 ] && n=$((pidmax + 3000))
"$CAPTURE" -n ch -o ch.isb.zst "$APPS/churn" "$n" > out 2> err ||
	fail "the capture failed: $(cat err)"
[ -s err ] && fail "unexpected messages: $(cat err)"
"$ANALYZE" export --format xml ch.isb.zst > ch.xml || fail "not a trace"
grep -q '<trace [^>]*complete="true"' ch.xml || fail "the trace says it is incomplete"
expect_eq "threads" "$(grep -c '<thread ' ch.xml)" "$((n + 1))"
expect_eq "pthread_creates naming their thread" \
	"$(grep -c 'api="pthread_create" [^>]*child="' ch.xml)" "$n"
tids=$(grep -o '<thread tid="[0-9]*"' ch.xml | sort -u | wc -l)
if [ "$pidmax" -le 40000 ]; then
	[ "$tids" -lt "$((n + 1))" ] ||
		fail "no thread number was given again ($tids of $((n + 1)))"
fi
# each pthread_create's thread starts after it: the n-th with a tid is
# the n-th thread with it
"$ANALYZE" export --format xml ch.isb.zst | awk '
	/<thread / { match($0, /tid="[0-9]+"/); t = substr($0, RSTART + 5, RLENGTH - 6)
		     match($0, / start="[0-9.]+"/); s = substr($0, RSTART + 8, RLENGTH - 9)
		     k = t SUBSEP (++seen[t]); start[k] = s }
	/api="pthread_create"/ { match($0, /child="[0-9]+"/); c = substr($0, RSTART + 7, RLENGTH - 8)
		     match($0, / start="[0-9.]+"/); s = substr($0, RSTART + 8, RLENGTH - 9)
		     call[c SUBSEP (++made[c])] = s }
	END { for (k in call) if (!(k in start) || start[k] + 0 < call[k] + 0) bad++
	      print bad + 0 }' > order
expect_eq "threads made before their pthread_create" "$(cat order)" 0
rss=$(sed -n 's/^peak rss: \([0-9]*\) KB$/\1/p' out)
[ -n "$rss" ] && [ "$((rss / n))" -lt 32 ] ||
	fail "the app's peak memory, ${rss:-?} KB for $n threads: more than 32 KB a thread"
exit 0
