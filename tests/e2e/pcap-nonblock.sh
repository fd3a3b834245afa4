# --pcap with a client whose connect does not block (EINPROGRESS, then
# poll: curl, redis-cli, any event loop), on loopback. The client starts
# first and is refused at least once (each refusal a connection of a SYN
# and a RST in its pcap, to the same server endpoint), then connects.
# The connect and the accept give their edge of 0 bytes, every message
# one edge, the connection's bytes match the calls, every call is tied to
# its packets (the refused ones do not take the real connection).
. "$ISLAND_ROOT/tests/e2e/lib.sh"
command -v tcpdump >/dev/null || { echo "tcpdump is not installed"; exit 77; }
need_pcap
PORT=$(free_ports 1)

"$CAPTURE" --pcap -n cli -o cli.xml -- "$APPS/msgs" nbclient 127.0.0.1 $PORT 20 tried > cli.out &
cpid=$!
wait_ready tried $cpid
"$CAPTURE" --pcap -n srv -o srv.xml -- "$APPS/msgs" server 127.0.0.1 $PORT 20 > srv.out ||
	fail "server failed"
wait $cpid || fail "client failed"
check_trace srv.xml
check_trace cli.xml
inprog=$(grep -c 'api="connect" .*errno="EINPROGRESS"' cli.xml)
[ "$inprog" -ge 2 ] || fail "want a refused and a taken connect, both EINPROGRESS: $inprog"
tcpdump -nn -r cli.pcap > cli.td 2>cli.tderr || { cat cli.tderr; fail "tcpdump -r cli.pcap"; }
expect_eq "SYNs in cli.pcap" "$(grep -c 'Flags \[S\]' cli.td)" "$inprog"
expect_eq "RSTs in cli.pcap" "$(grep -c 'Flags \[R' cli.td)" "$((inprog - 1))"

"$ANALYZE" deps --from net --csv srv.xml cli.xml > deps.csv || fail "deps --from net"
got=$(msg_edges deps.csv cli)
expect_eq "message edges" "$got" "$(sort cli.out)"
expect_eq "connection edge" "$(awk -F, '$3 == "accept" { print $1, $5, $7, $9 }' deps.csv)" \
	"srv cli connect 0"
expect_eq "edges" "$(($(wc -l < deps.csv) - 1))" 41

"$ANALYZE" net -o net srv.xml cli.xml || fail "net"
msg_bytes cli.out
conns=$(rows connections net | awk -F, '$6 != 0 { print $1, $2, $6, $7, $9, $10, $11 }')
expect_eq "connections" "$conns" "srv tcp $c2s $c2s $s2c $s2c 0
cli tcp $c2s $c2s $s2c $s2c 0"
# a refused connect's connection: its SYN and RST, its stream's 0 bytes;
# the server's pcap, started before it listens, may hold refusals too
# (no call of the server's took part: no call bytes)
expect_eq "refused connections" "$(rows connections net | awk -F, '$1 == "cli" && $6 == 0 { print $1, $5, $6, $7, $8, $9, $10 }' | uniq -c | sed 's/^ *//')" \
	"$((inprog - 1)) cli 1 0 0 1 0 0"
expect_eq "the server's refusals not a SYN and a RST without calls" \
	"$(rows connections net | awk -F, '$1 == "srv" && $6 == 0 && ($5 != 1 || $7 != "" || $8 != 1 || $9 != 0 || $10 != "")' | wc -l)" 0
calls_tied net
for t in connections calls messages; do csv_plain net/$t.csv; done
expect_eq "calls" "$(rows calls net | wc -l)" 80
exit 0
