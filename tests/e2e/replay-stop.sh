# island-replay: Ctrl-C, or a node that fails, stops every node and leaves
# nothing running.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
REPLAY="$ISLAND_ROOT/bin/island-replay"
T="$ISLAND_ROOT/tests/traces/replay-long.xml"
command -v pgrep > /dev/null || { echo "pgrep not installed"; exit 77; }
left() { pgrep -x "replay:$1" | wc -l; }
[ "$(left stopa)$(left stopb)" = 00 ] || { echo "a previous replay still runs"; exit 77; }

# nodes_up PID ROOT: wait until both nodes of PID run and did their I/O
nodes_up() {
	for i in $(seq 50); do
		[ "$(pgrep -P "$1" | wc -l)" -ge 2 ] && [ -e "$2/a.dat" ] && [ -e "$2/b.dat" ] && return 0
		sleep 0.1
	done
	fail "the nodes did not start"
}

# Ctrl-C (SIGINT to the replayer)
start=$(date +%s)
"$REPLAY" -q --root r1 --compute sleep "$T" 2> int.err &
pid=$!
nodes_up $pid r1
kill -INT $pid
wait $pid
expect_eq "exit status after SIGINT" "$?" 130
expect_eq "message" "$(cat int.err)" "island-replay: interrupted (SIGINT): stopping all nodes"
expect_eq "node processes left" "$(left stopa)$(left stopb)" 00

# a node that dies
"$REPLAY" -q --root r2 --compute sleep "$T" 2> kill.err &
pid=$!
nodes_up $pid r2
pkill -KILL -x replay:stopa
wait $pid
expect_eq "exit status after a node failed" "$?" 1
expect_eq "message" "$(cat kill.err)" "island-replay: node stopa failed (SIGKILL): stopping all nodes"
expect_eq "node processes left" "$(left stopa)$(left stopb)" 00
[ $(( $(date +%s) - start )) -lt 20 ] || fail "stopping took too long"
exit 0
