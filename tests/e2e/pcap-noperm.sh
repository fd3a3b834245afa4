# --pcap without the privilege to capture: a clear error and exit 2 before
# the app starts; with --pcap-optional a warning, and the app runs without
# packets (no pcap attribute). An unknown interface is an error too.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
[ "$(id -u)" = 0 ] && command -v setpriv >/dev/null ||
	{ echo "needs root and setpriv to run as another user"; exit 77; }
# nobody must reach the tool, its interposer and the work directory,
# wherever the tree is (a fresh clone may sit under a private directory).
pub=$(mktemp -d /tmp/island-noperm.XXXXXX) && trap 'rm -rf "$pub"' EXIT
cp -r "$ISLAND_ROOT/bin" "$ISLAND_ROOT/lib" "$pub" && chmod -R a+rX "$pub"
chmod 777 "$pub" && cd "$pub"
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }

mkdir sp && chmod 777 sp
nobody "$pub/bin/island-capture" --spool-dir sp --pcap -n x -o x.xml -- touch ran > out 2>err
expect_eq "exit status" "$?" 2
[ ! -e ran ] || fail "the app ran"
[ ! -e x.xml ] || fail "a trace was written"
expect_eq "spool left behind" "$(ls sp)" ""
grep -q 'island-capture: --pcap: cannot capture on any interface: .*CAP_NET_RAW' err ||
	fail "unclear error: $(cat err)"

nobody "$pub/bin/island-capture" --pcap --pcap-optional -n x -o x.xml -- touch ran > out 2>err ||
	fail "--pcap-optional: $(cat err)"
[ -e ran ] || fail "--pcap-optional: the app did not run"
grep -q 'going on without packets' err || fail "--pcap-optional: no warning"
check_trace x.xml
grep -q 'pcap=' x.xml && fail "a pcap attribute without packets"
[ ! -e x.pcap ] || fail "x.pcap written"

rm -f ran
"$CAPTURE" --spool-dir sp --pcap=nosuch0 -n y -o y.xml -- touch ran 2>err
expect_eq "unknown interface: exit status" "$?" 2
expect_eq "unknown interface: spool left behind" "$(ls sp)" ""
grep -q 'cannot capture on nosuch0' err || fail "unknown interface: $(cat err)"
[ ! -e ran ] || fail "the app ran"
exit 0
