# A session across hosts admits only nodes that know its key (issue 13.5):
# a client that connects and sends HELLO/STATE lines of a node "fake" is
# dropped and "fake" appears in no trace; 64 idle connections do not keep
# the real nodes out; a key file of the wrong mode, or another key, is
# refused with a one-line message.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
export XDG_CONFIG_HOME="$PWD/cfg"        # a fresh key, made by the first node
mkdir hostA hostB hostC data
port=$(free_ports 8)
app=$(( port + 1 ))
node() { # NAME INDEX DIR
	"$CAPTURE" --session "127.0.0.1:$port" --session-nodes 2 --session-dir "$3" -n "$1" -o "$1.xml" \
		--throttle n1 --watchdog 0.05 -- \
		"$APPS/pseudosync" "$1" "$2" 2 127.0.0.1 "$app" data 3
}
node n0 0 hostA &
n0=$!
for i in $(seq 100); do
	[ -n "$(ss -ltn "sport = :$port" | tail -n +2)" ] && break
	sleep 0.05
done
[ -f cfg/island/session.key ] || fail "the first node made no key file"
expect_eq "key file mode" "$(stat -c %a cfg/island/session.key)" "600"

# 64 idle connections, held open until the real nodes are done, and one
# that speaks the protocol without the key
cat > attack.py <<'PY'
import os, socket, sys, time
port = int(sys.argv[1])
idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(64)]
fake = socket.create_connection(("127.0.0.1", port))
fake.sendall(b"HELLO fake\nSTATE fake 1 5 0 1 0\nDEP fake 1 n0 1\n")
fake.settimeout(4)
got = b""
try:
    while True:
        b = fake.recv(4096)
        if not b:
            break
        got += b
except socket.timeout:
    got += b"<still open>"
lines = [l.split()[0] for l in got.decode().splitlines() if l]
print("fake got:", " ".join(lines))
sys.stdout.flush()
open("ready", "w").close()
while not os.path.exists("done"):
    time.sleep(0.05)
PY
python3 attack.py "$port" > attack.out &
attacker=$!
for i in $(seq 200); do [ -f ready ] && break; sleep 0.05; done
expect_eq "the fake client" "$(cat attack.out)" "fake got: CHAL"

# another key: refused, in one line, exit 2
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > other.key
echo >> other.key
chmod 600 other.key
"$CAPTURE" --session "127.0.0.1:$port" --key-file other.key --session-dir hostC -n n9 -o n9.xml \
	-- true 2> other.err && fail "a node with another key joined"
expect_eq "another key" "$(cat other.err)" \
	"island-capture: --session 127.0.0.1:$port: refused: the coordinator does not share the key of other.key"
# a key file others may read: refused before any connection
chmod 644 other.key
"$CAPTURE" --session "127.0.0.1:$port" --key-file other.key --session-dir hostC -n n9 -o n9.xml \
	-- true 2> mode.err && fail "a key file of mode 0644 was taken"
expect_eq "key file mode 0644" "$(cat mode.err)" \
	"island-capture: key file other.key: mode 0644, must be 0600"

[ -z "$(find hostC -type f)" ] || fail "refused nodes left session files: $(find hostC -type f)"
node n1 1 hostB
wait $n0 || fail "n0 failed"
touch done
wait $attacker
check_trace n0.xml
check_trace n1.xml
[ "$(grep -c '<wait node="n1"' n0.xml)" -gt 0 ] || fail "no dependency crossed the hosts"
! grep -l fake n0.xml n1.xml || fail "a node 'fake' is in a trace"
exit 0
