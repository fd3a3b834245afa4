# --pcap on loopback, without namespaces: a server node and a client node
# exchange 20 messages each way (tests/apps/msgs). Every message gives
# exactly one edge of its size, sender's send -> receiver's recv; the
# connection's bytes in each node's pcap match the calls exactly; the
# pcaps open in tcpdump. Then the same over IPv6 (::1), when it is up.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
command -v tcpdump >/dev/null || { echo "tcpdump is not installed"; exit 77; }
need_pcap
PORT=$(free_ports 8)

"$CAPTURE" --pcap -n srv -o srv.xml -- "$APPS/msgs" server 127.0.0.1 $PORT 20 ready > srv.out &
spid=$!
wait_ready ready $spid
"$CAPTURE" --pcap -n cli -o cli.xml -- "$APPS/msgs" client 127.0.0.1 $PORT 20 > cli.out ||
	fail "client failed"
wait $spid || fail "server failed"
check_trace srv.xml
check_trace cli.xml
grep -q '<node name="srv" [^>]*pcap="srv.pcap"' srv.xml || fail "no pcap attribute"

# tcpdump and Wireshark read the files
for n in srv cli; do
	tcpdump -nn -r $n.pcap > $n.td 2>$n.tderr || { cat $n.tderr; fail "tcpdump -r $n.pcap"; }
	[ "$(grep -c "127.0.0.1.$PORT" $n.td)" = "$(wc -l < $n.td)" ] ||
		fail "$n.pcap holds packets of other connections"
done
expect_eq "SYNs in srv.pcap" "$(grep -c 'Flags \[S\]' srv.td)" 1

# one edge per message, of its size, in both directions
"$ANALYZE" deps --from net --csv srv.xml cli.xml > deps.csv || fail "deps --from net"
got=$(msg_edges deps.csv cli)
expect_eq "message edges" "$got" "$(sort cli.out)"
expect_eq "message edges (server's view)" "$got" "$(sort srv.out)"
expect_eq "connection edge" "$(awk -F, '$3 == "accept" { print $1, $5, $7, $9 }' deps.csv)" \
	"srv cli connect 0"
expect_eq "edges" "$(($(wc -l < deps.csv) - 1))" 41
"$ANALYZE" deps --from net --dot srv.xml cli.xml > g.dot || fail "deps --from net --dot"
expect_eq "dot edges" "$(grep -c '" -> "[^"]*";$' g.dot)" 41
# a node's pcap from another run (replaced, or named wrongly): said, once
mkdir other && cp srv.xml cli.xml cli.pcap other/ && cp "$ISLAND_ROOT/tests/fuzz/corpus/pcap/net.pcap" other/srv.pcap
(cd other && "$ANALYZE" net srv.xml cli.xml > /dev/null 2> ../other.err) || fail "net on another run's pcap"
expect_eq "another run's pcap" "$(cat other.err)" \
	"island-analyze: srv.xml: node srv: none of its 1 connection(s) with bytes is in its packets (srv.pcap): the pcap of another run?"
"$ANALYZE" net srv.xml cli.xml > /dev/null 2> own.err || fail "net"
expect_eq "its own pcaps: no warning" "$(cat own.err)" ""
# the edges as <wait>/<signal> in one trace (what island-replay --deps net replays)
"$ANALYZE" deps --from net --annotate ann.xml srv.xml cli.xml > /dev/null || fail "deps --annotate"
check_trace ann.xml
expect_eq "annotated waits" "$(grep -c '<wait ' ann.xml)" 41
expect_eq "annotated signals" "$(grep -c '<signal ' ann.xml)" 41
expect_eq "the accept waits for the connect" \
	"$(grep -A1 '<wait node="cli"' ann.xml | grep -c 'api="accept"')" 1

# bytes per connection: packets and calls agree, and are the messages'
"$ANALYZE" net -o net srv.xml cli.xml || fail "net"
msg_bytes cli.out
conns=$(rows connections net | awk -F, '{ print $1, $2, $6, $7, $9, $10, $11 }' | sed -E 's/^/ /')
expect_eq "connections" "$conns" " srv tcp $c2s $c2s $s2c $s2c 0
 cli tcp $c2s $c2s $s2c $s2c 0"
# every send and recv is tied to the packets of its bytes, every receive
# has its time split
calls_tied net
for t in connections calls messages; do csv_plain net/$t.csv; done
expect_eq "calls" "$(rows calls net | wc -l)" 80

# IPv6
[ -n "$(ip -6 addr show dev lo 2>/dev/null | grep ::1)" ] || { echo "no ::1: IPv6 not checked"; exit 0; }
rm -f ready
"$CAPTURE" --pcap -n srv6 -o srv6.xml -- "$APPS/msgs" server ::1 $PORT 20 ready > srv6.out &
spid=$!
wait_ready ready $spid
"$CAPTURE" --pcap -n cli6 -o cli6.xml -- "$APPS/msgs" client ::1 $PORT 20 > cli6.out ||
	fail "IPv6 client failed"
wait $spid || fail "IPv6 server failed"
tcpdump -nn -r srv6.pcap > srv6.td 2>/dev/null || fail "tcpdump -r srv6.pcap"
[ "$(grep -c "IP6 ::1.[0-9]* > ::1.[0-9]*:" srv6.td)" = "$(wc -l < srv6.td)" ] || fail "srv6.pcap: not IPv6"
"$ANALYZE" deps --from net --csv srv6.xml cli6.xml > deps6.csv || fail "IPv6 deps --from net"
got=$(msg_edges deps6.csv cli6)
expect_eq "IPv6 message edges" "$got" "$(sort cli6.out)"
"$ANALYZE" net -o net6 srv6.xml cli6.xml || fail "IPv6 net"
expect_eq "IPv6 connections" "$(rows connections net6 | awk -F, '{ print $1, $4, $6, $7, $9, $10 }')" \
	"srv6 [::1]:$PORT $c2s $c2s $s2c $s2c
cli6 [::1]:$PORT $c2s $c2s $s2c $s2c"
exit 0
