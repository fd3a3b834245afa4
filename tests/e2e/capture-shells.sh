#!/bin/sh
# system and popen (tests/apps/shells): four threads in system at once,
# then eight popen streams. The app's environ is as it was after (the
# capture put its variables in for each call, a copy per call, each put
# back by its own: environ was left on a dead thread's stack, with our
# variables in it); the trace names each call's shell (system: the
# shell's status is the call's, 40 of 40 where a run before had 22
# another's; popen: the status its pclose had, "unknown" before), at
# the end, streamed and under --syscalls. A thread cancelled in system
# leaves environ as it was too.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
[ -x "$APPS/shells" ] || { echo "tests/apps not built"; exit 77; }

"$APPS/shells" > native.out || fail "the app fails natively"

# named TRACE: what the trace says of the calls' shells
named() {
	awk 'FNR == NR { if (match($0, /<process pid="[0-9]+"/)) {
				pid = substr($0, RSTART + 14, RLENGTH - 15)
				if (match($0, / status="[^"]*"/))
					st[pid] = substr($0, RSTART + 9, RLENGTH - 10) }
			 next }
	     /<io api="system"/ { s++
				  match($0, /child="[0-9]+"/); c = substr($0, RSTART + 7, RLENGTH - 8)
				  match($0, / status="[^"]*"/); v = substr($0, RSTART + 9, RLENGTH - 10)
				  ok += c != "" && st[c] == v }
	     /<io api="popen"/ { match($0, /child="[0-9]+"/); c = substr($0, RSTART + 7, RLENGTH - 8)
				 p = p " " (c == "" ? "none" : st[c]) }
	     END { printf "system: %d of %d; popen:%s\n", ok, s, p }' "$1" "$1"
}
want="system: 40 of 40; popen: exit:100 exit:101 exit:102 exit:103 exit:104 exit:105 exit:106 exit:107"

for how in end stream syscalls; do
	case $how in
	end) "$CAPTURE" -n sh -o $how.xml -- "$APPS/shells" > $how.out 2> $how.err ;;
	stream) "$CAPTURE" -n sh -o $how.xml.zst -- "$APPS/shells" > $how.out 2> $how.err &&
		"$ANALYZE" export --format xml $how.xml.zst > $how.xml ;;
	syscalls) "$CAPTURE" --syscalls -n sh -o $how.xml -- "$APPS/shells" > $how.out 2> $how.err ;;
	esac || fail "$how: capture: $(cat $how.err)"
	diff -u native.out $how.out || fail "$how: the app behaved otherwise under the capture"
	check_trace $how.xml
	expect_eq "$how: processes" "$(grep -c '<process ' $how.xml)" 49
	expect_eq "$how: the shells named" "$(named $how.xml)" "$want"
done
"$CAPTURE" -n c -o cancel.xml -- "$APPS/shells" cancel > cancel.out 2> cancel.err ||
	fail "cancel: capture: $(cat cancel.err)"
expect_eq "cancelled in system" "$(cat cancel.out)" "environ as it was"
exit 0
