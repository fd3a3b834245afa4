# --pcap between two network namespaces joined by a veth pair: the server captures
# on its veth by name (Ethernet frames), the client on the interfaces its
# sockets use (the default). Every message gives exactly one edge, the
# bytes per connection match the calls exactly, tcpdump reads the pcaps.
# Then a server that accepts in its main thread and serves each connection
# in a thread of its own, two clients one after the other (the second
# connection gets the first's descriptor number): the same.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
command -v tcpdump >/dev/null || { echo "tcpdump is not installed"; exit 77; }
command -v ip >/dev/null || { echo "no ip command"; exit 77; }
A=isl-pca-$$ B=isl-pcb-$$ VA=ipa$$ VB=ipb$$
cleanup() {
	ip netns del $A 2>/dev/null
	ip netns del $B 2>/dev/null
}
trap cleanup EXIT
{ ip netns add $A && ip netns add $B; } 2>ns.err || { cat ns.err; echo "cannot create network namespaces"; exit 77; }
ip link add $VA type veth peer name $VB || fail "veth"
ip link set $VA netns $A && ip link set $VB netns $B || fail "veth into the namespaces"
ip -n $A addr add 10.232.7.1/24 dev $VA && ip -n $B addr add 10.232.7.2/24 dev $VB || fail "addresses"
for ns in $A $B; do ip -n $ns link set lo up; done
ip -n $A link set $VA up && ip -n $B link set $VB up || fail "links up"
need_pcap ip netns exec $A

ip netns exec $B "$CAPTURE" --pcap $VB -n srv -o srv.xml -- \
	"$APPS/msgs" server 10.232.7.2 7000 20 ready > srv.out &
spid=$!
wait_ready ready $spid
ip netns exec $A "$CAPTURE" --pcap -n cli -o cli.xml -- \
	"$APPS/msgs" client 10.232.7.2 7000 20 > cli.out || fail "client failed"
wait $spid || fail "server failed"
check_trace srv.xml
check_trace cli.xml

for n in srv cli; do
	tcpdump -nn -r $n.pcap > $n.td 2>$n.tderr || { cat $n.tderr; fail "tcpdump -r $n.pcap"; }
	[ -s $n.td ] || fail "$n.pcap is empty"
done
grep -q 'link-type EN10MB' srv.tderr || fail "srv.pcap: not Ethernet frames: $(cat srv.tderr)"
grep -q '10.232.7.1.[0-9]* > 10.232.7.2.7000: Flags \[S\]' cli.td || fail "no SYN in cli.pcap"

"$ANALYZE" deps --from net --csv srv.xml cli.xml > deps.csv || fail "deps --from net"
got=$(msg_edges deps.csv cli)
expect_eq "message edges" "$got" "$(sort cli.out)"
expect_eq "edges" "$(($(wc -l < deps.csv) - 1))" 41

"$ANALYZE" net -o net srv.xml cli.xml || fail "net"
msg_bytes cli.out
conns=$(rows connections net | awk -F, '{ print $1, $3, $4, $6, $7, $9, $10 }' | sed -E 's/:[0-9]+ / /')
expect_eq "connections" "$conns" "srv 10.232.7.1 10.232.7.2:7000 $c2s $c2s $s2c $s2c
cli 10.232.7.1 10.232.7.2:7000 $c2s $c2s $s2c $s2c"
# every send and recv is tied to the packets of its bytes (a message
# larger than a segment may still be one packet here: segmentation
# offload cuts it after the capture point), every receive has its split
calls_tied net
expect_eq "calls" "$(rows calls net | wc -l)" 80

# the threaded server: its threads' calls are tied to its packets
ip netns exec $B "$CAPTURE" --pcap $VB -n tsrv -o tsrv.xml -- \
	"$APPS/msgs" tserver 10.232.7.2 7001 20 tready > tsrv.out &
spid=$!
wait_ready tready $spid
for c in tcli1 tcli2; do
	ip netns exec $A "$CAPTURE" --pcap -n $c -o $c.xml -- \
		"$APPS/msgs" client 10.232.7.2 7001 20 > $c.out || fail "$c failed"
done
wait $spid || fail "threaded server failed"
[ "$(grep -c '<thread ' tsrv.xml)" = 3 ] || fail "tsrv.xml: not 3 threads"
"$ANALYZE" deps --from net --csv tsrv.xml tcli1.xml tcli2.xml > tdeps.csv || fail "deps --from net (threads)"
for c in tcli1 tcli2; do
	awk -F, -v c=$c 'NR == 1 || $1 == c || $5 == c' tdeps.csv > $c.csv
	expect_eq "$c message edges" "$(msg_edges $c.csv $c)" "$(sort $c.out)"
done
expect_eq "connection edges" "$(awk -F, '$3 == "accept" { print $1, $5, $7, $9 }' tdeps.csv)" \
	"tsrv tcli1 connect 0
tsrv tcli2 connect 0"
expect_eq "edges" "$(($(wc -l < tdeps.csv) - 1))" 82
"$ANALYZE" net -o tnet tsrv.xml tcli1.xml tcli2.xml || fail "net (threads)"
conns=$(rows connections tnet | awk -F, '{ print $1, $6, $7, $9, $10 }')
expect_eq "connections (threads)" "$conns" "tsrv $c2s $c2s $s2c $s2c
tsrv $c2s $c2s $s2c $s2c
tcli1 $c2s $c2s $s2c $s2c
tcli2 $c2s $c2s $s2c $s2c"
calls_tied tnet
expect_eq "calls (threads)" "$(rows calls tnet | wc -l)" 160
exit 0
