# A cluster file is checked against the names of its schema (docs/cluster.xsd,
# built into island-capture): an unknown attribute or element is refused at
# once with its line and the nearest known name (rol="server" was taken for
# a client, the run hung for --timeout); a node that keeps running after
# the others exited is named, with role="server" suggested, within
# seconds; a line of progress every 10 s while a pass runs.
. "$ISLAND_ROOT/tests/e2e/lib.sh"

typo() { # NAME WANT: the cluster file on stdin is refused with WANT, fast
	cat > $1.xml
	t0=$(date +%s%N)
	rc=0; "$CAPTURE" --cluster $1.xml --timeout 30 -o $1.out.xml > $1.stdout 2> $1.err || rc=$?
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	expect_eq "$1 status" $rc 2
	expect_eq "$1 message" "$(cat $1.err)" "$2"
	[ $ms -lt 1000 ] || fail "$1: refused after $ms ms, not under a second"
	[ ! -e $1.out.xml ] || fail "$1: a trace was written"
}

typo rol "rol.xml:5: <node rol=...>: unknown attribute (did you mean role?)" <<'XML'
<?xml version="1.0"?>
<cluster version="1">
  <node name="client"><arg>true</arg></node>

  <node name="server" rol="server">
    <arg>sleep</arg><arg>30</arg>
  </node>
</cluster>
XML
typo colour "colour.xml:2: <node colour=...>: unknown attribute (name, cwd, user, role, netns, address)" <<'XML'
<cluster version="1">
  <node name="a" colour="red"><arg>true</arg></node>
</cluster>
XML
typo evn "evn.xml:4: unexpected <evn> in <node> (did you mean <env>?)" <<'XML'
<cluster version="1">
  <node name="a">
    <arg>true</arg>
    <evn name="X" value="1"/>
  </node>
</cluster>
XML
typo nod "nod.xml:2: unexpected <nod> in <cluster> (did you mean <node>?)" <<'XML'
<cluster version="1">
  <nod name="a"><arg>true</arg></nod>
</cluster>
XML
typo restrict "restrict.xml:3: <restrict resorce=...>: unknown attribute (did you mean resource?)" <<'XML'
<cluster version="1">
  <node name="a"><arg>true</arg>
    <restrict resorce="cpu" value="0.5"/></node>
</cluster>
XML
typo mpi "mpi.xml:2: <mpi name=...>: unknown attribute (np, cwd)" <<'XML'
<cluster version="1">
  <mpi np="2" name="x"><arg>true</arg></mpi>
</cluster>
XML
typo version "version.xml:1: <cluster versoin=...>: unknown attribute (did you mean version?)" <<'XML'
<cluster version="1" versoin="1">
  <node name="a"><arg>true</arg></node>
</cluster>
XML

# A server without its role: named within 5 s of the client's exit (the
# client is `true`: it exits at once), and progress at 10 s.
cat > hang.xml <<'XML'
<cluster version="1">
  <node name="web"><arg>sleep</arg><arg>60</arg></node>
  <node name="client"><arg>true</arg></node>
</cluster>
XML
t0=$(date +%s%N)
"$CAPTURE" --cluster hang.xml --timeout 30 -o hang.out.xml > hang.stdout 2> hang.err &
pid=$!
hint= progress=
while [ -z "$progress" ] && [ $(( ($(date +%s%N) - t0) / 1000000 )) -lt 15000 ]; do
	[ -n "$hint" ] || ! grep -q 'role="server"' hang.err || hint=$(( ($(date +%s%N) - t0) / 1000000 ))
	grep -q 'still running: web' hang.err && progress=$(( ($(date +%s%N) - t0) / 1000000 ))
	sleep 0.1
done
kill $pid
wait $pid
expect_eq "hint" "$(grep 'role="server"' hang.err | sed 's/running [0-9]* s after/running N s after/')" \
	'island-capture: run pass: node web still running N s after the last node exited: a server? mark it role="server" in hang.xml (servers are stopped once the clients exit; else the run waits for --timeout, 30 s)'
[ -n "$hint" ] && [ "$hint" -le 5000 ] || fail "the hint came after ${hint:-no} ms, not within 5 s"
expect_eq "progress" "$(grep 'still running: web' hang.err)" "island-capture: run pass: 10 s, still running: web (--timeout 30 s)"
echo "hint after $hint ms, progress after $progress ms"

# with role="server" there is nothing to say: the server is stopped
sed 's/<node name="web">/<node name="web" role="server">/' hang.xml > ok.xml
"$CAPTURE" --cluster ok.xml --timeout 30 -o ok.out.xml > ok.stdout 2> ok.err || fail "ok: $(cat ok.err)"
! grep -q 'role=' ok.err || fail "a hint although the server has its role: $(cat ok.err)"
exit 0
