# --syscalls on a Go program (issue 12): statically linked, its runtime
# makes raw system calls from several threads it clones itself, runs on
# goroutine stacks of a few kB and handles signals of its own (SIGURG
# preempts goroutines). Under island-loader, with and without the rewrite
# of syscall sites, it runs as natively (exit 0, the same output) and
# `island-analyze files` equals its own account of every file.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
[ -x "$APPS/gowrite" ] || { echo "no Go toolchain: tests/apps/gowrite not built"; exit 77; }
mkdir d
"$APPS/gowrite" d > native.txt || fail "native run"
for mode in rewrite signals; do
	rm -f d/*
	if [ $mode = signals ]; then export ISLAND_NO_REWRITE=1; fi
	"$CAPTURE" --syscalls -o go.$mode.xml "$APPS/gowrite" d > out.$mode.txt 2> err.$mode ||
		{ cat err.$mode; fail "$mode: capture failed"; }
	unset ISLAND_NO_REWRITE
	diff native.txt out.$mode.txt || fail "$mode: the program's output differs"
	check_trace go.$mode.xml
	grep -q '<trace version="1" [^>]*complete="true">' go.$mode.xml ||
		{ cat err.$mode; fail "$mode: the trace is not complete"; }
	expect_eq "$mode: status" "$(grep -c '<process [^>]*status="exit:0" complete="true"' go.$mode.xml)" 1
	[ "$(grep -c '<thread ' go.$mode.xml)" -ge 2 ] || fail "$mode: the runtime's threads are missing"
	"$ANALYZE" files --csv go.$mode.xml | awk -F, -v d="$PWD/" 'NR > 1 && $2 ~ /\/g[0-9]\.dat$/ {
		sub(d, "", $2); print $2, $8 }' | sort > got.$mode.txt
	sort native.txt > want.txt
	diff want.txt got.$mode.txt || fail "$mode: files --csv differs from the program's truth"
done
exit 0
