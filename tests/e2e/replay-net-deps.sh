# island-replay --deps net: two nodes captured once, unthrottled, with
# --pcap; the messages between them become the replay's dependencies, so
# every receive is replayed after the send it got its bytes from.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
REPLAY="$ISLAND_ROOT/bin/island-replay"
need_pcap
PORT=$(free_ports 8)
"$CAPTURE" --pcap -n srv -o srv.xml -- "$APPS/msgs" server 127.0.0.1 $PORT 10 ready > srv.out &
spid=$!
wait_ready ready $spid
"$CAPTURE" --pcap -n cli -o cli.xml -- "$APPS/msgs" client 127.0.0.1 $PORT 10 > cli.out ||
	fail "client failed"
wait $spid || fail "server failed"

# the annotated trace the replayer uses: one wait per received message
"$ANALYZE" deps --from net --annotate net.xml srv.xml cli.xml > /dev/null ||
	fail "deps --annotate failed"
check_trace net.xml
waits=$(grep -c '<wait ' net.xml)
[ "$waits" -ge 20 ] || fail "only $waits waits for 20 messages"
expect_eq "signals" "$(grep -c '<signal ' net.xml)" "$waits"
# the same from the binary encoding (read through the trace library)
"$ANALYZE" export --format isb -o srv.isb srv.xml && "$ANALYZE" export --format isb -o cli.isb.zst cli.xml ||
	fail "export to .isb"
"$ANALYZE" deps --from net --annotate netb.xml srv.isb cli.isb.zst > /dev/null ||
	fail "deps --annotate of .isb traces failed"
check_trace netb.xml
expect_eq "waits, from .isb" "$(grep -c '<wait ' netb.xml)" "$waits"
expect_eq "signals, from .isb" "$(grep -c '<signal ' netb.xml)" "$waits"

# the replay honours them: it runs, reports both nodes, leaves nothing
before=$(ls -d /tmp/island-replay-net.* 2>/dev/null | wc -l)
"$REPLAY" --deps net --root root --report fidelity.xml srv.xml cli.xml > out.txt 2> err.txt ||
	{ cat err.txt; fail "island-replay --deps net failed"; }
after=$(ls -d /tmp/island-replay-net.* 2>/dev/null | wc -l)
[ "$after" -le "$before" ] || fail "the annotated trace was left behind"
grep -q '^srv ' out.txt || fail "no srv in the report: $(cat out.txt)"
grep -q '^cli ' out.txt || fail "no cli in the report: $(cat out.txt)"
xmllint --noout fidelity.xml || fail "the report is not XML"
exit 0
