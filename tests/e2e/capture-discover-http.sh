# --discover on stock programs (issue 17): python3's http.server (a server
# until stopped: role="server") and a shell loop retrying curl until the
# server answers, three times. The failed curls, the sleeps between them
# and their connects are polling: the passes agree without them. Every
# dependency of the protocol is found (the first connect on the listen,
# each accept on its connect, each request's recv on its send, the
# responses' receives on their sends), each throttled pass takes at most
# 3x the unthrottled one, and the replay keeps each node within 10 %.
# A 300000-byte download is discovered too (its fwrites vary in number).
# The cluster file: traces/http.cluster.xml.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
[ -x /usr/bin/python3 ] && command -v curl >/dev/null || { echo "needs /usr/bin/python3 and curl"; exit 77; }
mkdir sess
"$CAPTURE" --cluster "$ISLAND_ROOT/traces/http.cluster.xml" --discover --timeout 60 --session-dir sess \
	--passes-dir passes -o http.xml 2> err || { cat err; fail "discover failed"; }
check_trace http.xml
grep -q '<trace version="1" [^>]*complete="true">' http.xml || fail "the trace is not complete"
grep -q '<node name="srv" [^>]*role="server"' http.xml || fail "srv is not marked a server"
expect_eq "srv stopped" "$(grep -c 'status="signal:SIGTERM" complete="true"' http.xml)" 1
for i in 1 2 3; do
	expect_eq "out$i" "$(cat passes/unthrottled/scratch/out$i)" "hello island"
done
grep -q 'poll="' http.xml || fail "no polling marked"
discovered http.xml http
passes_within 3 err "$ISLAND_ROOT/traces/http.cluster.xml"
replay_within 10 http.xml
# a download larger than the sockets' buffers, written out as it arrives
# (curl: recv, fwrite, recv...): how many fwrites carry the 300000 bytes
# is the server's timing (77 in one pass, 74 in another), the bytes are
# not; the passes agree, and each response's receives wait on its sends
mkdir www
head -c 300000 /dev/urandom > www/big.bin
cat > big.cluster.xml <<'XML'
<cluster version="1">
  <node name="srv" role="server" cwd="${DIR}/www"><arg>/usr/bin/python3</arg><arg>-m</arg><arg>http.server</arg><arg>--bind</arg><arg>127.0.0.1</arg><arg>${PORT}</arg></node>
  <node name="cli" cwd="${SCRATCH}"><arg>/bin/sh</arg><arg>-c</arg><arg>until curl -s -o out1 http://127.0.0.1:${PORT}/big.bin; do sleep 0.05; done</arg></node>
</cluster>
XML
"$CAPTURE" --cluster big.cluster.xml --discover --timeout 60 --session-dir sess \
	--passes-dir big -o big.xml 2> big.err || { cat big.err; fail "discover of a 300000-byte download failed"; }
cmp www/big.bin big/unthrottled/scratch/out1 || fail "the download differs"
[ "$(grep -c 'api="fwrite"' big/unthrottled/cli.xml)" -ge 10 ] || fail "the download was not written in pieces"
depcheck big.xml 'srv:accept#1<-cli:connect#1' 'srv:recv#1<-cli:send#1' 'cli:recv#1<-srv:send#1' \
	'cli:recv#last<-srv:send#last'
expect_eq "recall of the download" "$recall" "100.00"
[ -z "$(find sess -type f)" ] || fail "session files left: $(find sess -type f)"
exit 0
