# A session across hosts (--session HOST:PORT): two nodes that share no
# session file (each its own --session-dir, as on two hosts) meet through
# the coordinator the first capture starts; the throttled node's
# dependencies reach the other's trace; the coordinator leaves with them.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
mkdir hostA hostB data
port=$(( 30000 + $$ % 20000 ))
app=$(( port + 1 ))
node() { # NAME INDEX DIR
	"$CAPTURE" --session "127.0.0.1:$port" --session-dir "$3" -n "$1" -o "$1.xml" \
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
"$ANALYZE" deps --csv --truth truth.n1-sends n0.xml n1.xml > deps.csv
expect_eq "recall" "$(sed -n 's/^recall,\([^,]*\),.*/\1/p' deps.csv)" "100.00"
"$ANALYZE" deps --csv --truth data n0.xml n1.xml > all.csv
expect_eq "precision" "$(sed -n 's/^precision,\([^,]*\),.*/\1/p' all.csv)" "100.00"
sleep 1.5
[ -z "$(ss -ltn "sport = :$port" | tail -n +2)" ] || fail "the coordinator still listens"
[ -z "$(find hostA hostB -type f)" ] || fail "session files left: $(find hostA hostB -type f)"
exit 0
