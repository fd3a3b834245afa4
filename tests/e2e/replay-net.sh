# island-replay: sockets. Between replayed nodes a connection of the trace
# is a real connection carrying the same bytes each way; a peer outside the
# trace is replaced by a local sink. Then a captured run (netpair: TCP
# between two processes, UDP, a socketpair, a pipe).
. "$ISLAND_ROOT/tests/e2e/lib.sh"
REPLAY="$ISLAND_ROOT/bin/island-replay"
T="$ISLAND_ROOT/tests/traces/replay-net.xml"
check_trace "$T"
# family_attr REPORT NODE FAMILY ATTR
family_attr() {
	sed -n "/<node name=\"$2\"/,/<\/node>/p" "$1" |
		sed -n "s/.*<family name=\"$3\"[^>]* $4=\"\([0-9]*\)\".*/\1/p"
}
timeout 30 "$REPLAY" -q --root r --report rep.xml "$T" || fail "replay of $T"
# srv: 3000 in, 300 out; cli: 3000 out, 300 in, and 300 out, 2000 in
# with the outside peer
expect_eq "srv bytes" "$(family_attr rep.xml srv net bytes_replayed)" 3300
expect_eq "cli bytes" "$(family_attr rep.xml cli net bytes_replayed)" 5600
expect_eq "srv net calls" "$(family_attr rep.xml srv net calls)" 10
expect_eq "cli net calls" "$(family_attr rep.xml cli net calls)" 12
for n in srv cli; do
	expect_eq "$n failed" "$(sed -n "s/.*<node name=\"$n\".* failed=\"\([0-9]*\)\".*/\1/p" rep.xml)" 0
done
# the same in afap mode (no compute, no waits): the bytes alone order it
timeout 30 "$REPLAY" -q --root r2 --mode afap --report afap.xml "$T" || fail "afap replay"
expect_eq "afap cli bytes" "$(family_attr afap.xml cli net bytes_replayed)" 5600

# one node alone: its peer is outside the replay, so a sink answers it,
# with the bytes and, in causal mode, the latency of the original
timeout 30 "$REPLAY" -q --root r4 --node srv --report srv.xml "$T" || fail "--node srv"
expect_eq "srv alone: bytes" "$(family_attr srv.xml srv net bytes_replayed)" 3300
t=$(sed -n 's/.*<family name="net"[^>]* replayed="\([0-9.]*\)".*/\1/p' srv.xml)
# (its poll sleeps the original's time less what the thread owes, as a
# compute phase pays back lateness: 0.038945 s once in CI; 0.03909 to
# 0.03952 s in eight runs here; a sink that answers at once, as in
# --mode afap: 0.0002 s)
awk -v t="$t" 'BEGIN { exit !(t >= 0.03795) }' || fail "srv alone: net time $t s is 1 ms shorter than the original's 0.03895 s or more"

"$CAPTURE" -n n -o n.xml "$APPS/netpair" > out.txt || fail "capture netpair"
expect_eq "netpair" "$(cat out.txt)" "netpair: ok"
timeout 30 "$REPLAY" -q --root r3 --report np.xml n.xml || fail "replay of netpair"
expect_eq "netpair failed" "$(sed -n 's/.*<node name="n".* failed="\([0-9]*\)".*/\1/p' np.xml)" 0
# every byte of the trace but the datagrams received (never waited for)
orig=$(family_attr np.xml n net bytes_original)
dgram=$(grep 'api="recvfrom"' n.xml | sed -n 's/.* amount="\([0-9]*\)".*/\1/p' | awk '{ s += $1 } END { print s + 0 }')
expect_eq "netpair bytes" "$(family_attr np.xml n net bytes_replayed)" "$((orig - dgram))"
echo "netpair: $orig bytes in the trace, $dgram of them datagrams received"
exit 0
