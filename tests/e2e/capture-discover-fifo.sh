# --discover on two nodes and a named pipe (tests/apps/fifopair.c): the
# trace says the path is a FIFO (<file type="fifo">), and the bytes the
# writer put into it and the reader took out are messages between the
# nodes, as a socket's are: every read's wait on the write that carried
# its line comes from the unthrottled pass alone (origin="message"),
# recall 100 %, precision at least 90 %; the replay keeps each node
# within 10 %. (Before, the waits came from throttled passes only.)
. "$ISLAND_ROOT/tests/e2e/lib.sh"
[ -x "$APPS/fifopair" ] || { echo "tests/apps not built"; exit 77; }
[ -x /usr/bin/python3 ] || { echo "needs /usr/bin/python3"; exit 77; }
mkdir sess
"$CAPTURE" --cluster "$ISLAND_ROOT/traces/fifopair.cluster.xml" --discover --timeout 60 \
	--session-dir sess --passes-dir passes -o fp.xml 2> err || { cat err; fail "discover failed"; }
check_trace fp.xml
expect_eq "what the reader got" "$(cat passes/unthrottled/scratch/got)" "line 1
line 2
line 3
line 4"
expect_eq "the pipe, in both nodes' files" \
	"$(grep -o '<file path="[^"]*/f" [^>]*type="fifo"' fp.xml | sed -E 's|path="[^"]*/f" .*type=|path=".../f" type=|')" \
	'<file path=".../f" type="fifo"
<file path=".../f" type="fifo"'
discovered fp.xml fifopair
# the reads' waits: each line's on the write that carried it, from the
# messages; the end's (a read of 0 bytes) on the writer's close, which
# no byte shows: a throttled pass found it
got=$(/usr/bin/python3 - fp.xml <<'PY'
import sys, xml.etree.ElementTree as ET
nodes = {n.get("name"): n for n in ET.parse(sys.argv[1]).getroot().iter("node")}
calls, seen = {}, {}
for io in nodes["w"].iter("io"):
    if (io.get("path") or "").endswith("/f") and io.get("seq"):
        seen[io.get("api")] = seen.get(io.get("api"), 0) + 1
        calls[io.get("seq")] = "%s#%d" % (io.get("api"), seen[io.get("api")])
for th in nodes["r"].iter("thread"):
    waits = []
    for el in th:
        if el.tag == "wait":
            waits.append(el)
        elif el.tag == "io":
            if el.get("api") == "read" and (el.get("path") or "").endswith("/f"):
                print("read of %s B: %s" % (el.get("amount"), " ".join("w %s %s" % (
                    calls.get(x.get("seq"), "?"), x.get("origin")) for x in waits if x.get("node") == "w")))
            waits = []
PY
)
expect_eq "the reads' waits (on the writer's call, found by)" "$got" "read of 7 B: w write#1 message
read of 7 B: w write#2 message
read of 7 B: w write#3 message
read of 7 B: w write#4 message
read of 0 B: w close#1 group"
replay_within 10 fp.xml
[ -z "$(find sess -type f)" ] || fail "session files left: $(find sess -type f)"
exit 0
