# A program that gives up root runs as without the capture and keeps
# being recorded: the image it execs as the new user opens the spool's
# files again (they were root's: runuser -u nobody -- cat ran unrecorded,
# and the trace said nothing). runuser, a drop by raw system calls
# (tests/apps/dropexec) dynamic and static (--syscalls), and --user. The
# new user alone gets into the spool: another one does not. The trace is
# the capturing user's.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
[ "$(id -u)" = 0 ] || { echo "needs root"; exit 77; }
command -v runuser >/dev/null || { echo "needs runuser"; exit 77; }
id nobody >/dev/null 2>&1 && id www-data >/dev/null 2>&1 || { echo "needs users nobody and www-data"; exit 77; }
nob=$(id -u nobody)
want=$(cat /etc/hostname)

# cat's own calls, once its image runs as the new user
cat_recorded() {
	grep -q '<io api="open" [^>]*path="/etc/hostname"' "$1" ||
		fail "$2: the image run as nobody is not recorded"
	grep -q '^<trace [^>]*complete="true"' "$1" || fail "$2: the trace is incomplete"
	expect_eq "$2: the trace's owner" "$(stat -c %u "$1")" 0
	check_trace "$1"
}

runuser -u nobody -- cat /etc/hostname > plain.out
"$CAPTURE" -o ru.xml -- runuser -u nobody -- cat /etc/hostname > ru.out 2> ru.err ||
	fail "runuser: $(cat ru.err)"
expect_eq "runuser's output" "$(cat ru.out)" "$want"
cat_recorded ru.xml runuser

for b in dropexec dropexec-static; do
	s=; [ $b = dropexec-static ] && s=--syscalls
	"$CAPTURE" $s -o $b.xml -- "$APPS/$b" "$nob" /bin/cat /etc/hostname > $b.out 2> $b.err ||
		fail "$b: $(cat $b.err)"
	expect_eq "$b's output" "$(cat $b.out)" "$want"
	cat_recorded $b.xml $b
done

# --user: the program runs as the user, its groups its own
"$CAPTURE" --user nobody -o u.xml -- sh -c 'id -u; id -G; cat /etc/hostname' > u.out 2> u.err ||
	fail "--user: $(cat u.err)"
expect_eq "--user's output" "$(cat u.out)" "$(runuser -u nobody -- sh -c 'id -u; id -G; cat /etc/hostname')"
cat_recorded u.xml --user
"$CAPTURE" --user no-such-user-here -o x.xml -- true 2> bad.err && fail "--user of no user ran"
expect_eq "--user of no user" "$(cat bad.err)" "island-capture: --user no-such-user-here: no such user"

# while the app runs as nobody, nobody may open the spool's arena and
# www-data may not
mkdir spools
"$CAPTURE" --spool-dir "$PWD/spools" -o w.xml -- runuser -u nobody -- sh -c 'sleep 1.5' &
cap=$!
i=0
while [ -z "$(ls spools)" ] && [ $i -lt 50 ]; do sleep 0.05; i=$((i + 1)); done
sleep 0.7
arena=$(echo "$PWD"/spools/island-spool.*/arena)
[ -f "$arena" ] || fail "no arena in spools/"
chmod 711 . spools
runuser -u nobody -- test -r "$arena" || fail "nobody cannot read the arena"
runuser -u www-data -- test -r "$arena" && fail "www-data can read the arena"
runuser -u www-data -- ls "${arena%/arena}" > /dev/null 2>&1 && fail "www-data can list the spool"
wait $cap || fail "the capture with a spool dir failed"
chmod 700 .

# where the new user cannot read the interposer (Island's tree in a
# directory only root may enter), the image it execs runs unrecorded,
# and the trace says so rather than claim to be complete
mkdir -m 700 closed && cp -a "$ISLAND_ROOT/bin" "$ISLAND_ROOT/lib" closed/ || fail "copy of bin/ and lib/"
closed/bin/island-capture -o cl.xml -- runuser -u nobody -- cat /etc/hostname > cl.out 2> cl.err ||
	fail "closed: $(cat cl.err)"
expect_eq "closed: runuser's output" "$(cat cl.out)" "$want"
check_trace cl.xml
grep -q '^<trace [^>]*complete="false"' cl.xml || fail "closed: the trace says it is complete"
grep -q '<process [^>]*complete="false" reason="its exec ran an image without the interposer' cl.xml ||
	fail "closed: no process says its exec ran unrecorded"
grep -q 'is incomplete: its exec ran an image without the interposer' cl.err ||
	fail "closed: the capture does not say so: $(cat cl.err)"
exit 0
