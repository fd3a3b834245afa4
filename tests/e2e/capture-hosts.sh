# A session across hosts (--session HOST:PORT): two nodes that share no
# session file (each its own --session-dir, as on two hosts) meet through
# the coordinator the first capture starts; the throttled node's
# dependencies reach the other's trace; the coordinator leaves with them.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
mkdir hostA hostB data
port=$(free_ports 8)
app=$(( port + 1 ))
node() { # NAME INDEX DIR
	"$CAPTURE" --session "127.0.0.1:$port" --session-nodes 2 --session-dir "$3" -n "$1" -o "$1.xml" \
		--throttle n1 --watchdog 0.05 -- \
		"$APPS/pseudosync" "$1" "$2" 2 127.0.0.1 "$app" data 3
}
node n0 0 hostA &
node n1 1 hostB &
wait
check_trace n0.xml
check_trace n1.xml
[ "$(grep -c '<wait node="n1"' n0.xml)" -gt 0 ] || fail "no dependency crossed the hosts"
[ "$(grep -c '<signal node="n0"' n1.xml)" -gt 0 ] || fail "n1 signals nobody"
# every true dependency on the throttled node is found, and what is found
# is true
grep ' n1 ' data/truth.n0 > truth.n1-sends
"$ANALYZE" deps --csv --table measures --truth truth.n1-sends n0.xml n1.xml > deps.csv
expect_eq "recall" "$(sed -n 's/^recall,\([^,]*\),.*/\1/p' deps.csv)" "100.00"
"$ANALYZE" deps --csv --table measures --truth data n0.xml n1.xml > all.csv
expect_eq "precision" "$(sed -n 's/^precision,\([^,]*\),.*/\1/p' all.csv)" "100.00"
sleep 1.5
[ -z "$(ss -ltn "sport = :$port" | tail -n +2)" ] || fail "the coordinator still listens"
[ -z "$(find hostA hostB -type f)" ] || fail "session files left: $(find hostA hostB -type f)"

# The same between two network namespaces standing for two hosts, joined
# by a veth pair: the coordinator runs in the first, the second reaches it
# over the veth.
if [ "$(id -u)" = 0 ] && ip netns add ilh-a-$$ 2>/dev/null; then
	ip netns add ilh-b-$$
	trap 'ip netns del ilh-a-$$ 2>/dev/null; ip netns del ilh-b-$$ 2>/dev/null' EXIT
	ip link add ilhva$$ type veth peer name ilhvb$$
	ip link set ilhva$$ netns ilh-a-$$
	ip link set ilhvb$$ netns ilh-b-$$
	ip -n ilh-a-$$ addr add 10.234.0.1/24 dev ilhva$$
	ip -n ilh-b-$$ addr add 10.234.0.2/24 dev ilhvb$$
	for n in a b; do
		ip -n ilh-$n-$$ link set ilhv$n$$ up
		ip -n ilh-$n-$$ link set lo up
	done
	mkdir nsA nsB ndata
	ip netns exec ilh-a-$$ "$CAPTURE" --session "10.234.0.1:$port" --session-nodes 2 --session-dir nsA \
		-n n0 -o ns0.xml --throttle n1 --watchdog 0.05 -- \
		"$APPS/pseudosync" n0 0 2 10.234.0.1 "$app" ndata 3 &
	ip netns exec ilh-b-$$ "$CAPTURE" --session "10.234.0.1:$port" --session-nodes 2 --session-dir nsB \
		-n n1 -o ns1.xml --throttle n1 --watchdog 0.05 -- \
		"$APPS/pseudosync" n1 1 2 10.234.0.1 "$app" ndata 3 &
	wait
	check_trace ns0.xml
	grep -q 'peer="10.234.0.2:' ns0.xml || fail "the nodes did not talk across the veth"
	grep ' n1 ' ndata/truth.n0 > ns-truth
	"$ANALYZE" deps --csv --table measures --truth ns-truth ns0.xml ns1.xml > ns.csv
	expect_eq "recall across namespaces" "$(sed -n 's/^recall,\([^,]*\),.*/\1/p' ns.csv)" "100.00"
	[ -z "$(find nsA nsB -type f)" ] || fail "session files left in the namespaces' dirs"
else
	echo "network namespaces not available: the two-namespace part is skipped"
fi
exit 0
