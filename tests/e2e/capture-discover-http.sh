# --discover on stock programs (issue 17): python3's http.server (a server
# until stopped: role="server") and a shell loop retrying curl until the
# server answers, three times. The failed curls, the sleeps between them
# and their connects are polling: the passes agree without them. Every
# dependency of the protocol is found (the first connect on the listen,
# each accept on its connect, each request's recv on its send, the
# responses' receives on their sends), each throttled pass takes at most
# 3x the unthrottled one, and the replay keeps each node within 10 %.
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
[ -z "$(find sess -type f)" ] || fail "session files left: $(find sess -type f)"
exit 0
