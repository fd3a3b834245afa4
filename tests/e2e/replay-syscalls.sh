# island-replay of a --syscalls trace: each kernel transfer is replayed
# once. sort's 1000 fwrite calls (level="libc") and the one write(2) that
# flushed them (level="kernel", via="fclose") are one transfer of 3893
# bytes, as are its reads of the input: replaying both levels made the
# input and the output 7786 bytes, and bytes_original said so too.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
seq 1 1000 > in
"$CAPTURE" --syscalls -o t.xml -- sort -o out in 2> cap.err || fail "capture: $(cat cap.err)"
grep -q 'syscalls="unavailable"' t.xml && { echo "no Syscall User Dispatch: skipped"; exit 77; }
check_trace t.xml
expect_eq "captured out" "$(stat -c %s out)" 3893
grep -q 'api="fwrite"[^>]* level="libc"' t.xml || fail "no libc-level fwrite in the trace"
rm in out
for m in causal think timed afap; do
	"$REPLAY" -q --mode $m --root r$m --report rep$m.xml t.xml 2> err$m.txt ||
		fail "replay $m: $(cat err$m.txt)"
	expect_eq "$m: in" "$(stat -c %s "r$m$PWD/in")" 3893
	expect_eq "$m: out" "$(stat -c %s "r$m$PWD/out")" 3893
	expect_eq "$m: write bytes_original" \
		"$(sed -n 's/.*<family name="write"[^>]* bytes_original="\([0-9]*\)".*/\1/p' rep$m.xml)" 3893
	expect_eq "$m: write bytes_replayed" \
		"$(sed -n 's/.*<family name="write"[^>]* bytes_replayed="\([0-9]*\)".*/\1/p' rep$m.xml)" 3893
	expect_eq "$m: failed" "$(sed -n 's/.*<node name="[^"]*".* failed="\([0-9]*\)".*/\1/p' rep$m.xml)" 0
done
[ -e in ] || [ -e out ] && fail "the replay wrote outside its root"
exit 0
