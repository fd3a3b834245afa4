# --pcap keeps only the node's own traffic: while a node runs five msgs
# pairs on 127.0.0.1:P (the third served by a child forked after accept), other processes, not captured, exchange messages
# on 127.0.0.2:P (the same port, another address) and on 127.0.0.1:P+1,
# and ping loopback. None of their packets appear in the node's pcap.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
command -v tcpdump >/dev/null || { echo "tcpdump is not installed"; exit 77; }
need_pcap
P=$(free_ports 8)
Q=$((P + 1))

# other processes' traffic, until told to stop; one line per pair done
others() { # ADDR PORT
	while [ ! -f stop ]; do
		"$APPS/msgs" server $1 $2 20 ready.$1.$2 > /dev/null &
		while [ ! -f ready.$1.$2 ]; do sleep 0.01; done
		"$APPS/msgs" client $1 $2 20 > /dev/null
		wait
		rm -f ready.$1.$2
		echo done >> others.$1.$2
	done
}
others 127.0.0.2 $P &
o1=$!
others 127.0.0.1 $Q &
o2=$!
ping -c 20 -i 0.05 127.0.0.1 > /dev/null 2>&1 &
trap 'touch stop; wait' EXIT
while [ ! -s others.127.0.0.2.$P ] || [ ! -s others.127.0.0.1.$Q ]; do sleep 0.01; done
before=$(cat others.* | wc -l)

"$CAPTURE" --pcap -n node -o node.xml -- sh -c '
	for i in 1 2 3 4 5; do
		s=server; [ $i = 3 ] && s=fserver
		"$0" $s 127.0.0.1 $1 20 r$i > s$i.out &
		while [ ! -f r$i ]; do sleep 0.01; done
		"$0" client 127.0.0.1 $1 20 > c$i.out || exit 1
		wait $! || exit 1
	done' "$APPS/msgs" $P || fail "the node failed"
after=$(cat others.* | wc -l)
touch stop
wait $o1 $o2
[ "$after" -gt "$before" ] || fail "no other traffic during the capture"
echo "other pairs during the capture: $((after - before))"

tcpdump -nn -r node.pcap > node.td 2>node.err || { cat node.err; fail "tcpdump -r"; }
[ -s node.td ] || fail "node.pcap is empty"
own=$(grep -cE "IP 127\.0\.0\.1\.[0-9]+ > 127\.0\.0\.1\.[0-9]+: " node.td)
mine=$(grep -cE "127\.0\.0\.1\.$P[ :]" node.td)
expect_eq "packets of the node's sockets" "$mine" "$(wc -l < node.td)"
expect_eq "packets between the node's addresses" "$own" "$(wc -l < node.td)"
expect_eq "connections" "$(grep -c 'Flags \[S\]' node.td)" 5
# and the node's own exchanges are all there: one edge per message
"$ANALYZE" deps --from net --csv node.xml > deps.csv || fail "deps --from net"
expect_eq "edges" "$(($(wc -l < deps.csv) - 1))" $((5 * 41))
"$ANALYZE" net -o net node.xml || fail "net"
expect_eq "calls" "$(rows calls net | wc -l)" $((5 * 80))
calls_tied net
exit 0
