#!/bin/sh
# The capture never changes the descriptor numbers the app gets: the
# interposer opens its spool (the arena) only where no app thread runs
# and holds no descriptor after that. tests/apps/fdorder starts threads
# in waves that open files as soon as they start, in turn, each checking
# that it got the number it gets natively (the lowest one the app does
# not hold), while a busy thread's spool window moves many times.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
[ -x "$APPS/fdorder" ] || { echo "tests/apps not built"; exit 77; }

out=$("$APPS/fdorder" 16 20 20000) || fail "the app fails natively: $out"
expect_eq "native run" "$out" "opens 321 unexpected 0"
i=0
while [ $i -lt 20 ]; do
	out=$("$CAPTURE" -n fo -o fo.xml "$APPS/fdorder" 16 20 20000) ||
		fail "captured run $i: $(printf '%s\n' "$out" | head -3)"
	expect_eq "captured run $i" "$out" "opens 321 unexpected 0"
	i=$((i + 1))
done

# one run with a busy thread whose window moves through five chunks
# (150000 short records, 4.8 MB): every record of every thread is there
out=$("$CAPTURE" -n fo -o fo.xml "$APPS/fdorder" 24 20 150000) || fail "big run: $out"
expect_eq "big run" "$out" "opens 481 unexpected 0"
check_trace fo.xml
grep -q '<trace version="1" generator="[^"]*" complete="true">' fo.xml || fail "trace not complete"
expect_eq "threads" "$(grep -c '<thread ' fo.xml)" 26
expect_eq "lseeks" "$(grep -c 'api="lseek"' fo.xml)" 150000
expect_eq "opens" "$(grep -c 'api="open"' fo.xml)" 481

# the descriptors a program sees are those it has natively
native=$(sh -c 'ls /proc/$$/fd')
got=$("$CAPTURE" -n ls -o ls.xml sh -c 'ls /proc/$$/fd')
expect_eq "descriptors of a captured shell" "$got" "$native"
exit 0
