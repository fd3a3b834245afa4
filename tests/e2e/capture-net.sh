# Sockets and pipes: TCP over loopback between two processes, UDP, a unix
# socketpair, a pipe; per-socket summaries and per-call peers.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
# stdin is a pipe the app never touches: it is not one of the app's sockets
# (stdout to a file: a pipe it writes to would be one more)
: | "$CAPTURE" -n net "$APPS/netpair" > out.txt || fail "netpair failed"
expect_eq "output" "$(cat out.txt)" "netpair: ok"
check_trace net.xml
# (in the order the processes started: the parent's, then the child's
# accepted connection)
got=$(sed -n '/<sockets>/,/<\/sockets>/p' net.xml | sed -E 's/:[0-9]+"/:P"/g')
want='  <sockets>
    <socket proto="tcp" local="127.0.0.1:P" peer="" sent="0" received="0" direction="none" open_at_end="true"/>
    <socket proto="udp" local="127.0.0.1:P" peer="" sent="1000" received="1000" direction="none" open_at_end="true"/>
    <socket proto="pipe" local="" peer="" sent="4" received="4" direction="none" open_at_end="true"/>
    <socket proto="tcp" local="127.0.0.1:P" peer="127.0.0.1:P" sent="10000" received="1000" direction="out" open_at_end="false"/>
    <socket proto="udp" local="0.0.0.0:P" peer="" sent="1000" received="1000" direction="none" open_at_end="false"/>
    <socket proto="unix-stream" local="" peer="" sent="300" received="0" direction="none" open_at_end="true"/>
    <socket proto="unix-stream" local="" peer="" sent="0" received="300" direction="none" open_at_end="true"/>
    <socket proto="tcp" local="127.0.0.1:P" peer="127.0.0.1:P" sent="1000" received="10000" direction="in" open_at_end="false"/>
  </sockets>'
expect_eq "sockets" "$got" "$want"
# data calls on sockets and pipes are network traffic, with their peer
expect_eq "tcp writes" "$(grep -c 'api="write" res="netsend".*amount="1000".*peer="127.0.0.1:' net.xml)" 10
expect_eq "tcp recvs" "$(grep -c 'api="recv" res="netrecv".*amount="100".*peer="127.0.0.1:' net.xml)" 10
expect_eq "udp sendto" "$(grep -c 'api="sendto" res="netsend".*amount="200".*peer="127.0.0.1:' net.xml)" 10
expect_eq "pipe read" "$(grep -c 'api="read" res="netrecv".*peer="pipe"' net.xml)" 1
grep -q 'api="connect" res="netmeta".*peer="127.0.0.1:[0-9]*" proto="tcp"' net.xml || fail "connect"
grep -q 'api="accept" res="netmeta".*peer="127.0.0.1:[0-9]*" proto="tcp"' net.xml || fail "accept"
grep -q 'api="socketpair" res="netmeta".*fd2=' net.xml || fail "socketpair"
# every call on a socket carries its protocol, so sums splits tcp from udp
# (tcp: 10 x 1000 + 10 x 100 each way; udp: 5 x 200 each way, both sides)
expect_eq "untyped socket calls" "$(grep '<io ' net.xml | grep 'peer="' | grep -vc 'proto="')" 0
got=$("$ANALYZE" sums --csv net.xml | grep -E '^(tcp|udp)(send|recv),')
want='tcpsend,11000,bytes
udpsend,2000,bytes
tcprecv,11000,bytes
udprecv,2000,bytes'
expect_eq "sums by protocol" "$got" "$want"
# an inherited pipe the app reads is its socket: stdin of wc
printf 'hello' | "$CAPTURE" -n wc wc -c > wc.txt || fail "wc failed"
expect_eq "wc output" "$(cat wc.txt)" "5"
expect_eq "stdin pipe" "$(grep -c '<socket proto="pipe" local="" peer="" sent="0" received="5"' wc.xml)" 1
exit 0
