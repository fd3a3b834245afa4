"""merge-scale.py DIR N ROUNDS: N simulated nodes' traces, DIR/nI.xml, as
island-capture writes them: a ring over TCP (node i listens, node i-1
connects to it), ROUNDS rounds of a 64-byte send to the next node, a
receive from the previous one and a write of the node's own file.
Prints the message edges the merge must find: N * (ROUNDS + 2)."""
import os
import sys

d, n, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
os.makedirs(d, exist_ok=True)
for i in range(n):
    nxt, prv = (i + 1) % n, (i - 1) % n
    lines, seq, t = [], 0, 0.001

    def io(api, res, extra, dur=0.000001):
        global seq, t
        seq += 1
        lines.append('      <io api="%s" res="%s" start="%.9f" end="%.9f" %s seq="%d"/>'
                     % (api, res, t, t + dur, extra, seq))
        t += dur + 0.000001
    me = "127.0.0.1:%d" % (20000 + i)
    mine = "127.0.0.2:%d" % (30000 + i)      # this node's connect's own
    io("socket", "netmeta", 'fd="3" proto="tcp"')
    io("bind", "netmeta", 'fd="3" proto="tcp" local="%s"' % me)
    io("listen", "netmeta", 'fd="3" proto="tcp"')
    t = 0.010                                  # every node listens first
    io("socket", "netmeta", 'fd="4" peer="127.0.0.1:%d" proto="tcp"' % (20000 + nxt))
    io("connect", "netmeta", 'fd="4" peer="127.0.0.1:%d" proto="tcp" local="%s"'
       % (20000 + nxt, mine))
    t = 0.020
    io("accept", "netmeta", 'fd="5" peer="127.0.0.2:%d" proto="tcp" local="%s" listenfd="3"'
       % (30000 + prv, me))
    for r in range(rounds):
        t = 0.030 + r * 0.001
        io("send", "netsend", 'amount="64" size="64" fd="4" peer="127.0.0.1:%d" proto="tcp"'
           % (20000 + nxt))
        t = 0.030 + r * 0.001 + 0.0005
        io("recv", "netrecv", 'amount="64" size="64" fd="5" peer="127.0.0.2:%d" proto="tcp"'
           % (30000 + prv))
        io("write", "filewrite", 'amount="64" size="64" fd="6" path="/data/n%d.%d"' % (i, r))
    end = t + 0.001
    with open(os.path.join(d, "n%d.xml" % i), "w") as f:
        f.write('<?xml version="1.0" encoding="UTF-8"?>\n'
                '<trace version="1" generator="island-capture 0.1.0" complete="true">\n'
                '<node name="n%d" host="sim" epoch="1796000000.000000000" start="0.000000000" '
                'end="%.9f" clock="tsc">\n' % (i, end))
        f.write('  <process pid="%d" ppid="1" exe="/sim" cwd="/" start="0.000000000" end="%.9f" '
                'status="exit:0" complete="true">\n' % (1000 + i, end))
        f.write('    <thread tid="%d" name="sim" start="0.000000000" end="%.9f" cpu="0.001" '
                'exit="process" complete="true">\n' % (1000 + i, end))
        f.write("\n".join(lines) + "\n    </thread>\n  </process>\n</node>\n</trace>\n")
print(n * (rounds + 2))
