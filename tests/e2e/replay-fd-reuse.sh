# island-replay: two threads of one process that reuse a descriptor number
# (thread a closes fd 3, thread b opens its file and gets fd 3, 20 times
# each way) keep their bytes in their own files in every mode: the replay
# does not let one thread's open take over the other's descriptor.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
REPLAY="$ISLAND_ROOT/bin/island-replay"

"$CAPTURE" -n n1 -o t.xml -- "$APPS/fdreuse" 20 a.dat b.dat || fail "capture (status 3: no reuse)"
check_trace t.xml
# the trace has the reuse: all 40 opens got fd 3
expect_eq "opens on fd 3" "$(grep -c 'api="open" .* fd="3" path="'"$PWD"'/[ab].dat"' t.xml)" 40
"$ANALYZE" files --csv t.xml > files.csv || fail "analyze files"
expect_eq "captured bytes" "$(awk -F, 'NR > 1 { print $2, $3, $8 }' files.csv)" \
	"$PWD/a.dat 20 60000
$PWD/b.dat 20 70000"

for m in causal think timed afap; do
	rc=0
	"$REPLAY" --root "r-$m" -m "$m" --report "$m.xml" t.xml > "$m.out" 2>&1 || rc=$?
	expect_eq "$m: status ($(tail -3 "$m.out"))" "$rc" 0
	expect_eq "$m: a.dat" "$(stat -c %s "r-$m$PWD/a.dat")" 60000
	expect_eq "$m: b.dat" "$(stat -c %s "r-$m$PWD/b.dat")" 70000
	expect_eq "$m: failed calls" "$(sed -n 's/.*<node name="n1".* failed="\([0-9]*\)".*/\1/p' "$m.xml")" 0
	expect_eq "$m: bytes written" \
		"$(sed -n 's/.*<family name="write"[^>]* bytes_replayed="\([0-9]*\)".*/\1/p' "$m.xml")" 130000
done
exit 0
