# With packets (--pcap), consumption splits a receive by its bytes'
# journey: blocked until the peer sent them, netrecv on the wire, and
# after they arrived stopped where the node was stopped. A receiver waits
# on a slow sender while a second thread makes its node be stopped.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
need_pcap
"$CAPTURE" --pcap --cpu 0.05 --cpu-period 0.05 -n recvnode "$APPS/slowpeer" recv port &
"$CAPTURE" --pcap -n sendnode "$APPS/slowpeer" send port 1.0 || fail "sender failed"
wait || fail "receiver failed"

# the receive as the packets see it (net report): waited, wire, after
"$ANALYZE" net --csv --table calls recvnode.xml sendnode.xml > net.csv
row=$(grep '^recvnode,[0-9]*,recv,' net.csv | head -1)
[ -n "$row" ] || fail "no receive in the net report: $(cat net.csv)"
after=$(echo "$row" | awk -F, '{ print $NF }')
waited=$(echo "$row" | awk -F, '{ print $(NF-2) }')
[ "$(echo "$waited > 0.9" | bc)" = 1 ] || fail "waited $waited s, the sender computed 1 s"

# consumption charges the receive so: the receiving thread (the first) is
# stopped exactly for the part after the data arrived that stops cover
tid=$(sed -n 's/.*<thread tid="\([0-9]*\)".*/\1/p' recvnode.xml | head -1)
"$ANALYZE" consumption --csv recvnode.xml sendnode.xml > cons.csv
stopped=$(grep "^recvnode,$tid,[^,]*,stopped," cons.csv | cut -d, -f5)
blocked=$(grep "^recvnode,$tid,[^,]*,blocked," cons.csv | cut -d, -f5)
d=$(echo "$stopped - $after" | bc | tr -d -)
[ "$(echo "$d < 0.002" | bc)" = 1 ] || fail "stopped $stopped s, the packets say $after s after arrival"
[ "$(echo "$blocked >= $waited" | bc)" = 1 ] || fail "blocked $blocked s < waited $waited s"
exit 0
