# Stock servers that drop root, in cluster files as their users write
# them, with the default pass directory (issue 40): nginx, whose workers
# run as nobody and serve the pass's scratch (they answered 403 for every
# file: the pass's base was root's 0700), under ab; PostgreSQL made and
# started by runuser -u postgres in the scratch (initdb: "Permission
# denied"), under pgbench; the same database by user="postgres" on the
# node, its data in a directory of the test's own. Every request is in
# the trace, and nothing else is missing; the captures' memory stays
# bounded (under 256 MiB; printed only under ASAN=1); the traces are root's.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
[ "$(id -u)" = 0 ] || { echo "needs root"; exit 77; }
for c in nginx ab pgbench pg_isready runuser; do
	command -v $c >/dev/null || { echo "needs $c"; exit 77; }
done
ls -d /usr/lib/postgresql/*/bin > /dev/null 2>&1 || { echo "needs PostgreSQL"; exit 77; }
id postgres > /dev/null 2>&1 && id nobody > /dev/null 2>&1 || { echo "needs users postgres and nobody"; exit 77; }

# run OUT CLUSTER: the cluster captured into OUT.xml (stdout OUT.out),
# the peak resident size of its nodes' captures (kB) in OUT.hwm
run() {
	"$CAPTURE" --cluster "$2" --timeout 120 -o "$1.xml" > "$1.out" 2> "$1.err" &
	r=$!
	m=0
	while kill -0 $r 2>/dev/null; do
		for p in $(pgrep -P $r); do
			h=$(awk '/^VmHWM/ { print $2 }' /proc/$p/status 2>/dev/null)
			[ -n "$h" ] && [ "$h" -gt $m ] && m=$h
		done
		sleep 0.1
	done
	wait $r || { tail -5 "$1.err"; fail "$2: the cluster failed"; }
	echo $m > "$1.hwm"
	check_trace "$1.xml"
	expect_eq "$1: the trace's owner" "$(stat -c %u "$1.xml")" 0
	# the bound is the plain build's: ASan's adds its shadow, redzones
	# and a quarantine of freed blocks (pg: 58-74 MB plain, 271-276 MB
	# with ASan, 80 MB with its quarantine_size_mb=0)
	if asan_built "$CAPTURE"; then
		[ "$m" -gt 0 ] || fail "$1: no capture's peak"
		echo "$1: captures peaked at $m kB (not checked: island-capture is built with ASAN=1; the plain build is checked)"
	else
		[ "$m" -gt 0 ] && [ "$m" -lt 262144 ] || fail "$1: a node's capture peaked at $m kB"
		echo "$1: captures peaked at $m kB"
	fi
}
# calls OUT NODE API [SIZE]: NODE's successful API calls (of SIZE bytes)
calls() {
	"$ANALYZE" export --format csv --node "$2" "$1.xml" 2> /dev/null |
		awk -F, -v a="$3" -v s="$4" '$9 == a && $26 == "" && (s == "" || $11 == s) { n++ } END { print n + 0 }'
}
# whole: complete, but for the calls a signal handler makes inside a
# call (postgres's latch), counted and said so
whole() {
	missing=$(grep -o 'complete="false" reason="[^"]*"' "$1.xml" | sort -u |
		grep -v 'reason="thread [0-9]* made [0-9]* calls* inside calls being recorded (a signal handler.s, a callback.s), not recorded"$')
	[ -z "$missing" ] || fail "$1: the trace is not complete: $missing"
}

# nginx and ab: every request ab completed is one the server read, logged
# and answered (ab's few spare connections carry none), both ends' bytes
# the same
run ng "$ISLAND_ROOT/traces/nginx.cluster.xml"
whole ng
done_req=$(sed -n 's/^Complete requests: *//p' ng.out)
expect_eq "ab's complete requests" "$done_req" 2000
expect_eq "ab's failed requests" "$(sed -n 's/^Failed requests: *//p' ng.out)" 0
grep -q '^Non-2xx' ng.out && fail "nginx answered: $(grep '^Non-2xx' ng.out)"
"$ANALYZE" files --csv ng.xml | awk -F, '$2 ~ /\/access\.log$/ { print $7 }' > log.n
expect_eq "access log lines written" "$(cat log.n)" "$done_req"
expect_eq "responses (writev)" "$(calls ng web writev)" "$done_req"
expect_eq "requests sent (write)" "$(calls ng load write)" "$done_req"
"$ANALYZE" calls --by node --csv ng.xml > ngc.csv
bytes() { awk -F, -v n="$2" -v a="$3" '$1 == n && $2 == a { print $6 }' "$1"; }
expect_eq "bytes of the requests, both ends" "$(bytes ngc.csv web recv)" "$(bytes ngc.csv load write)"
expect_eq "bytes of the responses, both ends" "$(bytes ngc.csv web writev)" "$(bytes ngc.csv load read)"

# PostgreSQL and pgbench: every transaction pgbench counted is one END
# it sent (10 bytes: 'Q', its length, "END;") and the server received
run pg "$ISLAND_ROOT/traces/postgres.cluster.xml"
whole pg
tx=$(sed -n 's/^number of transactions actually processed: //p' pg.out)
[ -n "$tx" ] && [ "$tx" -gt 100 ] || fail "pgbench processed '$tx' transactions"
expect_eq "pgbench's failed transactions" "$(sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p' pg.out)" 0
expect_eq "transactions: the client's ENDs" "$(calls pg bench send 10)" "$tx"
expect_eq "transactions: the server's ENDs" "$(calls pg db recv 10)" "$tx"
"$ANALYZE" calls --by node --csv pg.xml > pgc.csv
expect_eq "bytes to the server, both ends" "$(bytes pgc.csv db recv)" "$(bytes pgc.csv bench send)"
expect_eq "bytes from the server, both ends" "$(bytes pgc.csv bench recv)" "$(bytes pgc.csv db send)"

# user="postgres": the node runs as postgres, its data where the test
# made it (a directory of its own, chowned to postgres)
pgd=$(mktemp -d)
trap 'rm -rf "$pgd"' EXIT
chown postgres: "$pgd"
pgbin=$(ls -d /usr/lib/postgresql/*/bin | tail -1)
(cd / && runuser -u postgres -- "$pgbin/initdb" -A trust -U postgres -D "$pgd/pg") > initdb.log ||
	fail "initdb failed"
cat > user.cluster.xml <<EOC
<cluster version="1">
  <node name="db" role="server" user="postgres"><arg>$pgbin/postgres</arg><arg>-D</arg><arg>$pgd/pg</arg><arg>-k</arg><arg>$pgd</arg><arg>-p</arg><arg>\${PORT}</arg><arg>-c</arg><arg>listen_addresses=127.0.0.1</arg></node>
  <node name="bench"><arg>/bin/sh</arg><arg>-c</arg><arg>until pg_isready -q -h 127.0.0.1 -p \${PORT}; do sleep 0.1; done; pgbench -i -q -h 127.0.0.1 -p \${PORT} -U postgres postgres &amp;&amp; pgbench -c 8 -t 50 -h 127.0.0.1 -p \${PORT} -U postgres postgres</arg></node>
</cluster>
EOC
run us user.cluster.xml
whole us
expect_eq "user=: transactions" "$(sed -n 's/^number of transactions actually processed: //p' us.out)" "400/400"
expect_eq "user=: the server's ENDs" "$(calls us db recv 10)" 400
grep -q '<process [^>]*exe="[^"]*/postgres"' us.xml || fail "user=: postgres is not in the trace"
# user= of no user: the file and line
sed 's/user="postgres"/user="no-such-user-here"/' user.cluster.xml > bad.cluster.xml
"$CAPTURE" --cluster bad.cluster.xml -o bad.xml 2> bad.err && fail "user= of no user ran"
expect_eq "user= of no user" "$(cat bad.err)" "bad.cluster.xml:2: node 'db': user=\"no-such-user-here\" is no user of this host"
exit 0
