"""conncheck TRACE: every wait of a receive on a TCP socket for a send on
a TCP socket is on one connection (the receive reads what that send
wrote). An I/O's connection is its socket's two addresses, from the
connect or accept that made its descriptor (the latest before it, in
number order, in its process). Prints "pairs N cross-connection M" and,
for each wait across connections, a line.
"""
import sys
import xml.etree.ElementTree as ET

sys.dont_write_bytecode = True  # no __pycache__ beside the tests
from depcheck import thread_ios  # noqa: E402

RECV = ("recv", "read", "readv", "recvfrom", "recvmsg")
SEND = ("send", "write", "writev", "sendto", "sendmsg")


def load(path):
    nodes = {}
    for node in ET.parse(path).getroot().iter("node"):
        ios, waits = [], []
        for proc in node.iter("process"):
            for th in proc.iter("thread"):
                for seq, el, pending in thread_ios(th):
                    ios.append((seq, proc.get("pid"), el))
                    waits += [(seq, t, ts) for t, ts in pending]
        conn, fds = {}, {}
        for seq, pid, el in sorted(ios, key=lambda x: x[0]):
            api, fd, local, peer = (el.get(a) for a in ("api", "fd", "local", "peer"))
            if api == "connect" and local:
                fds[(pid, fd)] = (local, peer)
            elif api in ("accept", "accept4") and local:
                fds[(pid, fd)] = (peer, local)
            elif el.get("proto") == "tcp":
                conn[seq] = (api, fds.get((pid, fd)))
        nodes[node.get("name")] = (conn, waits)
    return nodes


def main():
    nodes = load(sys.argv[1])
    pairs = cross = 0
    for x, (conn, waits) in nodes.items():
        for xs, t, ts in waits:
            a, b = conn.get(xs), nodes[t][0].get(ts)
            if not a or not b or a[0] not in RECV or b[0] not in SEND:
                continue
            pairs += 1
            if a[1] is None or a[1] != b[1]:
                cross += 1
                print("cross %s:%d %s <- %s:%d %s" % (x, xs, a[1], t, ts, b[1]))
    print("pairs %d cross-connection %d" % (pairs, cross))


main()
