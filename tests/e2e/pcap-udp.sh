# --pcap over UDP on loopback: msgs userver and uclient exchange 20
# datagrams each way (sendto / recvfrom; the client never binds, the kernel
# picks its port). Every datagram gives exactly one edge of its size; the
# bytes of each flow match the calls; each node's pcap holds its own
# datagrams only, while another pair, not captured, exchanges the same
# sizes on another port.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
command -v tcpdump >/dev/null || { echo "tcpdump is not installed"; exit 77; }
need_pcap
P=$(free_ports 8)
Q=$((P + 1))

others() { # the same exchange on port Q, until told to stop
	while [ ! -f stop ]; do
		"$APPS/msgs" userver 127.0.0.1 $Q 20 oready > /dev/null &
		while [ ! -f oready ]; do sleep 0.01; done
		"$APPS/msgs" uclient 127.0.0.1 $Q 20 > /dev/null
		wait
		rm -f oready
		echo done >> others
	done
}
others &
trap 'touch stop; wait' EXIT
while [ ! -s others ]; do sleep 0.01; done

"$CAPTURE" --pcap -n usrv -o usrv.xml -- "$APPS/msgs" userver 127.0.0.1 $P 20 ready > usrv.out &
spid=$!
wait_ready ready $spid
"$CAPTURE" --pcap -n ucli -o ucli.xml -- "$APPS/msgs" uclient 127.0.0.1 $P 20 > ucli.out ||
	fail "client failed"
wait $spid || fail "server failed"
touch stop
check_trace usrv.xml
check_trace ucli.xml

for n in usrv ucli; do
	tcpdump -nn -r $n.pcap > $n.td 2>/dev/null || fail "tcpdump -r $n.pcap"
	expect_eq "$n: datagrams" "$(wc -l < $n.td)" 40
	expect_eq "$n: datagrams of the exchange" "$(grep -c "127.0.0.1.$P[ :]" $n.td)" 40
done

"$ANALYZE" deps --from net --csv usrv.xml ucli.xml > deps.csv || fail "deps --from net"
got=$(msg_edges deps.csv ucli recvfrom sendto)
expect_eq "message edges" "$got" "$(sort ucli.out)"
expect_eq "edges" "$(($(wc -l < deps.csv) - 1))" 40

"$ANALYZE" net -o net usrv.xml ucli.xml || fail "net"
for t in connections calls messages; do csv_plain net/$t.csv; done
msg_bytes ucli.out
expect_eq "flows" "$(rows connections net | awk -F, '{ print $1, $2, $4, $5, $6, $7, $8, $9, $10 }')" \
	"usrv udp 127.0.0.1:$P 20 $c2s $c2s 20 $s2c $s2c
ucli udp 127.0.0.1:$P 20 $c2s $c2s 20 $s2c $s2c"
rows calls net | awk -F, '$7 != 1 { bad = 1 } END { exit bad }' || fail "a call not in one datagram"
exit 0
