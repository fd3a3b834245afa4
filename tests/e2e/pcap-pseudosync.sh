# --pcap on //TRACE's PseudoSync (4 nodes, a barrier over TCP through n0),
# with --discover: the message edges of the unthrottled pass's packets
# against the apps' ground truth and against the throttle-derived waits.
#  - every message edge is a true dependency (precision 100%), and every
#    true dependency carried by the network (connect -> accept, send ->
#    recv) is a message edge (recall 100%); the others are file syncs;
#  - the waits imply every message edge (recall 100%); the figures of
#    both directions are printed;
# on loopback, then with every node in a network namespace of its own
# (joined by a bridge, veths: each node's pcap taken in its namespace).
. "$ISLAND_ROOT/tests/e2e/lib.sh"
need_pcap
measure() { # CLUSTER-FILE
	"$CAPTURE" --cluster "$1" --discover --pcap \
		--passes-dir passes -o ps.xml 2>ps.err || { cat ps.err; fail "discover failed"; }
	U=passes/unthrottled
	for n in n0 n1 n2 n3; do
		grep -q "<node name=\"$n\" [^>]*pcap=\"$n.pcap\"" $U/$n.xml || fail "$n: no pcap"
	done
	"$ANALYZE" deps --from net --csv $U/n?.xml > net.csv || fail "deps --from net"
	awk -F, 'NR > 1 { print $1, $2, $5, $6 }' net.csv > messages
	[ -s messages ] || fail "no message edges"

	# the true dependencies carried by the network: the sender's I/O is a
	# connect or a send (their api from the unthrottled traces)
	cat $U/scratch/truth.* | while read -r x j t k; do
		api=$(grep -o "<io api=\"[a-z]*\"[^>]* seq=\"$k\"" $U/$t.xml | sed 's/<io api="\([a-z]*\)".*/\1/')
		case $api in connect|send|write|sendto|sendmsg) echo "$x $j $t $k" ;; esac
	done > truth.net
	[ -s truth.net ] || fail "no network dependencies in the truth"
	"$ANALYZE" deps --from net --csv --table measures --truth truth.net $U/n?.xml > vs-truth.csv || fail "vs truth"
	p=$(sed -n 's/^precision,\([^,]*\),.*/\1/p' vs-truth.csv)
	r=$(sed -n 's/^recall,\([^,]*\),.*/\1/p' vs-truth.csv)
	echo "message edges vs the network's ground truth: precision $p recall $r"
	expect_eq "precision of the message edges" "$p" "100.00"
	expect_eq "recall of the network's dependencies" "$r" "100.00"
	"$ANALYZE" deps --from net --truth $U/scratch $U/n?.xml | tail -2

	# the throttle-derived waits against the message edges
	"$ANALYZE" deps --csv --table measures --truth messages ps.xml > waits.csv || fail "waits vs messages"
	p=$(sed -n 's/^precision,\([^,]*\),\(.*\)/\1 (\2)/p' waits.csv)
	r=$(sed -n 's/^recall,\([^,]*\),.*/\1/p' waits.csv)
	echo "waits vs message edges: precision $p, recall $r ($(wc -l < messages) messages)"
	expect_eq "messages implied by the waits" "$r" "100.00"

	# the merged trace has the waits and, beside it, the unthrottled pass's
	# packets: --from both on it alone gives the same agreement
	for n in n0 n1 n2 n3; do
		[ -s ps.$n.pcap ] || fail "ps.$n.pcap is not beside the merged trace"
		grep -q "<node name=\"$n\" [^>]*pcap=\"ps.$n.pcap\"" ps.xml ||
			fail "ps.xml: $n does not name ps.$n.pcap"
	done
	"$ANALYZE" deps --from both --csv --table measures ps.xml > merged-both.csv || fail "deps --from both ps.xml"
	expect_eq "merged: messages implied by the waits" \
		"$(sed -n 's/^recall,\([^,]*\),.*/\1/p' merged-both.csv)" "$r"
	expect_eq "merged: waits in the messages' order" \
		"$(sed -n 's/^precision,\([^,]*\),.*/\1/p' merged-both.csv)" "${p%% *}"

	# --from both, where a pass has both: the waits found by throttling
	# every node at once (the group pass), beside that pass's messages
	T=passes/group
	"$ANALYZE" deps --from both -o both $T/n?.xml || fail "deps --from both"
	n=$("$ANALYZE" deps --from net --csv $T/n?.xml | tail -n +2 | wc -l)
	w=$(grep -c '<wait ' $T/n?.xml | awk -F: '{ s += $2 } END { print s }')
	expect_eq "both: messages" "$(sed -n 's/^recall,[^,]*,[0-9]*,\([0-9]*\),messages$/\1/p' both/measures.csv)" "$n"
	expect_eq "both: waits" "$(sed -n 's/^precision,[^,]*,[0-9]*,\([0-9]*\),waits$/\1/p' both/measures.csv)" "$w"
	expect_eq "both: message rows" "$(tail -n +2 both/messages.csv | wc -l)" "$n"
	expect_eq "both: wait rows" "$(tail -n +2 both/waits.csv | wc -l)" "$w"
	expect_eq "both: marked messages" "$(cat both/messages.csv both/waits.csv | grep -cE ',(yes|no)(,,)?$')" $((n + w))
	echo "the group pass: $(sed -n 's/^precision,\([^,]*\),\(.*\)/precision \1 (\2)/p' both/measures.csv)," \
		"$(sed -n 's/^recall,\([^,]*\),\(.*\)/recall \1 (\2)/p' both/measures.csv)"
}

pseudo_cluster pseudosync > lo.cluster.xml
measure lo.cluster.xml
if [ "$(id -u)" = 0 ] && ip netns add isl-pcprobe-$$ 2>/dev/null; then
	ip netns del isl-pcprobe-$$
	ns_pseudosync_cluster 10.232.78 > ns.cluster.xml
	rm -rf passes
	echo "in network namespaces:"
	measure ns.cluster.xml
	grep -q '10.232.78.1:7000' net.csv || fail "namespaces: nodes did not talk over their own addresses"
else
	echo "network namespaces not available: not checked there"
fi
exit 0
