# Each exec records the arguments its image was given (args=), escaped
# (every byte outside '!'..'~', and '\', as \xHH) and bounded (1024
# bytes, a cut ending in " \..."), by the exec wrapper and by a vfork
# child's image (Python's subprocess) alike; the trace validates.
. "$ISLAND_ROOT/tests/e2e/lib.sh"

"$CAPTURE" -n a -o a.xml -- sh -c 'exec /bin/echo "a b" "$(printf "x\ty\\\\")" "é" "<&>" > /dev/null' ||
	fail "capture sh"
check_trace a.xml
expect_eq "escaped" "$(grep -o 'api="execve"[^>]*args="[^"]*"' a.xml | sed 's/.*args=//')" \
	'"/bin/echo a\x20b x\x09y\x5c \xc3\xa9 &lt;&amp;&gt;"'

"$CAPTURE" -n b -o b.xml -- sh -c 'exec /bin/true $(seq 1 2000)' || fail "capture long"
check_trace b.xml
args=$(grep -o 'api="execve"[^>]*path="/bin/true"[^>]*args="[^"]*"' b.xml | sed 's/.*args="//; s/"$//')
expect_eq "cut length" "$(printf '%s' "$args" | wc -c)" 1023
expect_eq "cut start" "$(printf '%s' "$args" | cut -c1-20)" "/bin/true 1 2 3 4 5 "
expect_eq "cut mark" "$(printf '%s' "$args" | tail -c 5)" ' \...'

# a vfork child (subprocess) execs: the child's record has them too
cat > sp.py <<'PY'
import subprocess
subprocess.run(["/bin/true", "one two", "3"])
PY
"$CAPTURE" -n c -o c.xml -- /usr/bin/python3 sp.py || fail "capture python3"
check_trace c.xml
expect_eq "subprocess" "$(grep -o 'api="execve"[^>]*path="/bin/true"[^>]*' c.xml | grep -o 'args="[^"]*"')" \
	'args="/bin/true one\x20two 3"'

# analyze: the process named by its image from its exec on, with these
# args (its calls before, the closes Python makes in the child, are the
# parent's program's)
expect_eq "top" "$("$ANALYZE" top --csv --by process --limit 20 c.xml | awk -F, '$3 == "true" { print $NF }' | sort -u)" \
	'/bin/true one\x20two 3'
exit 0
