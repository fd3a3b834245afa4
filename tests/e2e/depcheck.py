"""depcheck TRACE KNOWN...: recall and precision of a discovered trace.

KNOWN is "X:API#K<-T:API#K": node X's K-th API call (counting the I/Os not
marked poll=) waits for node T's K-th API call; K may be "last"; API@N
counts only the calls of the node's N-th thread (in trace order: 1 is the
main thread of its first process); API@N/P (or API/P) only those on a
socket whose other end is node P's (its connect's or accept's local=). A known
dependency is found when the waits imply it: a wait of X on T sits on X's
I/O at or before it, on T's I/O at or after it, or a chain of waits does
(X on Y at or before X's I/O, Y's I/O at or after it on T's...: each node's
I/Os in their order, as island-analyze deps --truth counts recall); "direct"
is the share found by one wait alone. A wait is true when,
in the trace's own run, T's I/O began before X's completed (the program's
happens-before order as that run showed it: a send may return after the
receive it released did). Prints "recall R precision
P waits N direct D" (percent) and, for each known dependency not found, a line.
"""
import sys
import xml.etree.ElementTree as ET


def thread_ios(th):
    """A thread's numbered I/Os, each with the waits (node, seq) that
    the trace puts before it: (seq, element, waits)."""
    pending = []
    for el in th:
        if el.tag == "wait":
            pending.append((el.get("node"), int(el.get("seq"))))
        elif el.tag == "io" and el.get("seq"):
            yield int(el.get("seq")), el, pending
            pending = []


def load(path):
    nodes, locals_ = {}, {}
    for node in ET.parse(path).getroot().iter("node"):
        epoch = float(node.get("epoch"))
        ios, waits = {}, []
        locals_[node.get("name")] = set(
            io.get("local") for io in node.iter("io") if io.get("local"))
        for ti, th in enumerate(node.iter("thread")):
            for seq, el, pending in thread_ios(th):
                ios[seq] = (el.get("api"), el.get("poll"),
                            epoch + float(el.get("start")),
                            epoch + float(el.get("end")), ti + 1,
                            el.get("peer"))
                waits += [(seq, t, ts) for t, ts in pending]
        nodes[node.get("name")] = (ios, waits)
    for name in nodes:
        nodes[name] = nodes[name] + (locals_,)
    return nodes


def nth(nodes, spec):
    name, rest = spec.split(":")
    api, k = rest.split("#")
    api, _, peer = api.partition("/")
    api, _, thread = api.partition("@")
    ios, locals_ = nodes[name][0], nodes[name][2]
    seqs = [s for s in sorted(ios) if ios[s][0] == api and not ios[s][1] and
            (not thread or ios[s][4] == int(thread)) and
            (not peer or ios[s][5] in locals_.get(peer, ()))]
    if not seqs:
        sys.exit("depcheck: no %s in node %s" % (api, name))
    return name, seqs[-1] if k == "last" else seqs[int(k) - 1]


def implied(found, x, xs, t, ts):
    """Does a chain of waits order T's I/O ts before X's I/O xs? reach[n]
    is the last I/O of node n known to come before X's I/O xs."""
    reach = {x: xs}
    changed = True
    while changed:
        changed = False
        for fx, fxs, ft, fts in found:
            if fxs <= reach.get(fx, 0) and fts > reach.get(ft, 0):
                reach[ft] = fts
                changed = True
    return reach.get(t, 0) >= ts


def main():
    nodes = load(sys.argv[1])
    found = [(x, xs, t, ts) for x in nodes for xs, t, ts in nodes[x][1]]
    missed = []
    direct = 0
    for known in sys.argv[2:]:
        (x, xs), (t, ts) = (nth(nodes, s) for s in known.split("<-"))
        one = any(fx == x and ft == t and fxs <= xs and fts >= ts
                  for fx, fxs, ft, fts in found)
        direct += one
        if not one and not implied(found, x, xs, t, ts):
            # the waits of x on t nearest to it, for a miss seen in CI
            on = sorted((fxs, fts) for fx, fxs, ft, fts in found
                        if fx == x and ft == t)
            near = [w for w in on if w[0] <= xs][-2:] + [w for w in on if w[0] > xs][:2]
            missed.append("%s (%s I/O %d, %s I/O %d; nearest waits: %s)" % (
                known, x, xs, t, ts,
                " ".join("%d<-%d" % w for w in near) or "none"))
    true = sum(1 for x, xs, t, ts in found
               if ts in nodes[t][0] and xs in nodes[x][0] and
               nodes[t][0][ts][2] <= nodes[x][0][xs][3])
    known = len(sys.argv) - 2
    print("recall %.2f precision %.2f waits %d direct %.2f" % (
        100.0 * (known - len(missed)) / known if known else 100.0,
        100.0 * true / len(found) if found else 100.0, len(found),
        100.0 * direct / known if known else 100.0))
    for m in missed:
        print("missed " + m)


if __name__ == "__main__":
    main()
