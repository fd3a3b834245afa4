# Helpers for the end-to-end tests (sourced). Each test runs in a fresh
# temporary directory; ISLAND_ROOT is the repository.
CAPTURE="$ISLAND_ROOT/bin/island-capture"
ANALYZE="$ISLAND_ROOT/bin/island-analyze"
REPLAY="$ISLAND_ROOT/bin/island-replay"
APPS="$ISLAND_ROOT/build/tests/apps"
SCHEMA="$ISLAND_ROOT/docs/trace.xsd"
# median, pseudo_cluster (which uses APPS)
. "$ISLAND_ROOT/bench/lib.sh"

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# expect_eq WHAT GOT WANT
expect_eq() {
	[ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"
}

# within WHAT GOT LOW HIGH: GOT in [LOW, HIGH] (numbers; bc compares)
within() {
	[ "$(echo "$2 >= $3 && $2 <= $4" | bc)" = 1 ] || fail "$1: $2 not in [$3, $4]"
}

# rows NAME DIR: the rows of table NAME of a report written with -o DIR
# (DIR/NAME.csv), without its header
rows() { tail -n +2 "$2/$1.csv"; }

# The pcap tests (tests/apps/msgs: the client prints "c2s SIZE" and
# "s2c SIZE" per message). msg_edges DEPS CLIENT [RECV SEND]: the message
# edges of DEPS (deps --from net --csv) in that form, sorted, CLIENT the
# client's node; RECV and SEND the calls (recv, send).
msg_edges() {
	awk -F, -v cli="$2" -v r="${3:-recv}" -v s="${4:-send}" 'NR > 1 && $3 == r && $7 == s {
		print ($5 == cli ? "c2s" : "s2c"), $9 }' "$1" | sort
}
# msg_bytes OUT: sets c2s and s2c to the bytes each way of the client's OUT
msg_bytes() {
	c2s=$(awk '$1 == "c2s" { s += $2 } END { print s }' "$1")
	s2c=$(awk '$1 == "s2c" { s += $2 } END { print s }' "$1")
}
# csv_plain FILE: a CSV table without quoted fields: every row as wide as
# its header, no '-' for a missing value, no '+' on a number
csv_plain() {
	awk -F, 'NR == 1 { n = NF } NF != n { print FILENAME ":" NR ": " NF " fields, not " n; bad = 1 }
		{ for (i = 1; i <= NF; i++) if ($i == "-" || $i ~ /^\+[0-9]/) { print FILENAME ":" NR ": field " i " is " $i; bad = 1 } }
		END { exit bad }' "$1" || fail "$1 is not a plain table"
}
# calls_tied DIR: in the net report's calls (net -o DIR: DIR/calls.csv),
# every send and recv is tied to the packets of its bytes, and every
# receive has its time split: before the peer sent, on the wire, after
# (a value not known is an empty field)
calls_tied() {
	expect_eq "calls columns" "$(head -1 "$1/calls.csv" | cut -d, -f3,7,10-12)" "api,packets,waited,wire,after"
	rows calls "$1" | awk -F, '$7 == "" || $7 < 1 { bad = 1 } END { exit bad }' ||
		fail "a call without packets"
	rows calls "$1" | awk -F, '$3 == "recv" && ($10 == "" || $11 == "" || $12 == "") { bad = 1 }
		END { exit bad }' || fail "a receive without its split"
}

# Skip (77) where packet capture is not permitted; a failed probe for any
# other reason fails. Arguments go before the probe (ip netns exec NS).
need_pcap() {
	"$@" "$CAPTURE" --pcap -n probe -- true 2>probe.err ||
		{ grep -q CAP_NET_RAW probe.err && { cat probe.err; exit 77; }; fail "probe: $(cat probe.err)"; }
}

# The trace is well-formed XML, and valid against the schema when there
# is one.
# A killed capture's claim on TRACE's name (a file in /dev/shm no one
# holds), which outlives the test's directory: removed, once seen, so that
# no later test whose directory gets its inode finds it.
drop_claim() {
	_d=$(dirname "$1")
	_c=/dev/shm/island-claim.$(id -u).$(stat -c %d "$_d").$(stat -c %i "$_d").$(basename "$1")
	[ -e "$_c" ] || fail "the killed capture of $1 left no claim ($_c)"
	rm -f "$_c"
}

check_trace() {
	if [ -f "$SCHEMA" ]; then
		xmllint --noout --schema "$SCHEMA" "$1" 2>xmllint.err ||
			{ head -5 xmllint.err >&2; fail "$1 does not validate"; }
	else
		xmllint --noout "$1" || fail "$1 is not well-formed XML"
	fi
}

# Replace volatile values (times, pids, tids, temp paths) by placeholders.
normalise() {
	sed -E -e 's/(start|end|dur|cpu|epoch|req|timeout)="[0-9.]+"/\1="T"/g' \
	       -e 's/(pid|ppid|tid|creator|child|pipe)="[0-9]+"/\1="N"/g' \
	       -e "s|$PWD|DIR|g"
}

# files_of TRACE: "path bytes_read bytes_written" for each file.
files_of() {
	sed -n 's|.*<file path="\([^"]*\)" opens="\([0-9]*\)" reads="[0-9]*" bytes_read="\([0-9]*\)" writes="[0-9]*" bytes_written="\([0-9]*\)".*|\1 \3 \4|p' "$1"
}

# The analyzer's tests: expect NAME STATUS ARGS... <<EOF runs
# island-analyze ARGS from the root (so that file names in messages are
# relative), stdout and stderr together, and compares them with the heredoc
# and the exit status; a difference sets fail=1 (the test ends `exit $fail`).
R="$ISLAND_ROOT"
out="$PWD"
fail=0
expect() {
	name=$1 want=$2
	shift 2
	cat > "$out/$name.expected"
	(cd "$R" && exec bin/island-analyze "$@") > "$out/$name.out" 2>&1 < /dev/null
	rc=$?
	if [ "$rc" -ne "$want" ]; then
		echo "FAIL $name: exit status $rc, expected $want"; fail=1
	fi
	if ! diff -u "$out/$name.expected" "$out/$name.out"; then
		echo "FAIL $name: output differs"; fail=1
	fi
}

# cpus_busy: true when more than half of the CPU time of the last second
# was used (other work: timing checks are noise then); prints the percent
cpus_busy() {
	a=$(head -1 /proc/stat); sleep 1; b=$(head -1 /proc/stat)
	echo "$a
$b" | awk '{ t = 0; for (i = 2; i <= NF; i++) t += $i; idle = $5 + $6 }
		NR == 1 { t0 = t; i0 = idle } NR == 2 { used = 1 - (idle - i0) / (t - t0) }
		END { printf "%d\n", used * 100; exit !(used > 0.5) }'
}

# free_ports K: the first of K consecutive TCP/UDP ports that no socket
# uses now, below the kernel's ephemeral range (outgoing connections of
# other tests, and their TIME_WAITs, take ports from 32768 up: a port
# picked there from the pid made a listen fail now and then), tried from
# a place the script's pid chooses
free_ports() {
	k=${1:-1} i=0
	lo=20000 hi=$(awk '{ print $1 }' /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
	[ "$hi" -gt $((lo + 1000)) ] || hi=32768
	while [ $i -lt 500 ]; do
		p=$(( lo + ($$ * 7 + i * 131) % (hi - lo - k) )) j=0
		while [ $j -lt "$k" ] && [ -z "$(ss -Htanu "sport = :$((p + j))" 2>/dev/null)" ]; do
			j=$((j + 1))
		done
		[ $j -eq "$k" ] && { echo $p; return 0; }
		i=$((i + 1))
	done
	fail "no $k free ports"
}

# untimed: true when timing checks are noise, and why: other work keeps
# the CPUs busy, or the tools are built with sanitizers (ASAN=1: the
# replayer's own cost per call grows tenfold)
untimed() {
	if ldd "$ISLAND_ROOT/bin/island-replay" 2>/dev/null | grep -q libasan; then
		echo "the tools are built with ASAN=1"
		return 0
	fi
	pct=$(cpus_busy) && { echo "other work keeps the CPUs busy ($pct %)"; return 0; }
	return 1
}

# Replay tests: timing_ok REPORT...: the median run error of the reports is within 25 %;
# on a machine whose CPUs other work keeps busy the timing is only shown
timing_ok() {
	e=$(for r in "$@"; do sed -n 's/.*<run .* error="\(-*[0-9.]*\)".*/\1/p' "$r"; done | median)
	echo "replay error: $e % (median of $#)"
	if why=$(untimed); then
		echo "timing not checked: $why"
		return 0
	fi
	awk -v e="$e" 'BEGIN { exit !(e >= -25 && e <= 25) }' || fail "run time error $e % beyond 25 %"
}

# wait_ready FILE PID: wait, 10 s at most, for the FILE that the server
# PID writes once it listens.
wait_ready() {
	i=0
	while [ ! -f "$1" ]; do
		sleep 0.05; i=$((i + 1))
		[ $i -lt 200 ] || { kill "$2" 2>/dev/null; fail "the server did not start"; }
	done
}

# ns_pseudosync_cluster NET: a cluster file of 4 pseudosync nodes, each in
# its own network namespace at NET.1 .. NET.4 (e.g. 10.231.77), on stdout.
ns_pseudosync_cluster() {
	echo '<cluster version="1">'
	for i in 0 1 2 3; do
		echo "  <node name=\"n$i\" netns=\"yes\" address=\"$1.$((i + 1))/24\">"
		for a in "$APPS/pseudosync" '${NODE}' '${INDEX}' '${NNODES}' '${ADDR:n0}' 7000 '${SCRATCH}'; do
			echo "    <arg>$a</arg>"
		done
		echo "  </node>"
	done
	echo '</cluster>'
}

# Causality on stock programs (issue 17): passes_within X ERR [CLUSTER]:
# each throttled pass that the --discover log ERR reports took at most X
# times the run's own time; on a machine other work keeps busy, only
# shown. The run's own time is the unthrottled pass's or, given the
# CLUSTER, the median of it and two plain runs of that cluster (a run of
# 0.1 s varies by half from one run to the next: one sample is no yardstick).
# A fourth argument "slowest" takes the slowest of the three instead, for
# a program whose time varies by design (random start delays).
passes_within() {
	line=$(grep 'passes: ' "$2") || fail "no passes line in $2"
	# how many runs of the application discovery took
	echo "pass count: $(echo "$line" | sed 's/.*(passes: //' | tr ',' '\n' | grep -c ' s')"
	own=$(echo "$line" | sed 's/.*passes: unthrottled \([0-9.]*\) s.*/\1/')
	if [ -n "$3" ]; then
		for k in 1 2; do
			# the nodes' own output apart: redis-server's log lines
			# were taken for the times ("own time 2135:M s")
			"$CAPTURE" --cluster "$3" --timeout 60 -o own$k.xml > own$k.out 2> own$k.err ||
				fail "plain run $k of $3: $(cat own$k.err)"
			sed -n 's/.*passes: run \([0-9.]*\) s.*/\1/p' own$k.err
		done > own.txt
		if [ "$4" = slowest ]; then
			own=$( (cat own.txt; echo "$own") | sort -g | tail -1)
		else
			own=$( (cat own.txt; echo "$own") | median)
		fi
		case "$own" in
		'' | *[!0-9.]*) fail "the run's own time is not a number: '$own'" ;;
		esac
		# one line: CI shows a failing test's first lines only
		echo "$(echo "$line" | sed 's/.*(passes: /passes: /; s/)$//'); own time $own s ($([ "$4" = slowest ] && echo slowest || echo median) of it and two plain runs)"
	else
		echo "$line"
	fi
	if why=$(untimed); then
		echo "pass times not checked: $why"
		return 0
	fi
	echo "$line" | sed 's/.*passes: //; s/)$//' | tr ',' '\n' |
		awk -v x="$1" -v u="$own" '$1 == "unthrottled" { next }
			{ t[$1] = $2 } END { for (p in t) if (t[p] > x * u) { print p, t[p], "s >", x, "x", u, "s"; bad = 1 }
			exit bad }' || fail "a throttled pass took more than $1 x the run's own time"
}

# replay_within PCT TRACE: causal replays of TRACE keep every node within
# PCT % of its captured time: the median of three replays, since one
# replay of a 0.1 s run varies by a tenth with what else runs (only shown
# on a busy machine). A median beyond PCT gets four more replays and the
# median of all seven decides: in CI two replays in a row of a 0.19 s
# MPI run took 10 % long on every rank, the one before them 2 %; a replay
# that is off every time still fails, one the machine slowed does not.
replay_within() {
	k=0
	: > replays.log
	for round in 3 7; do
		while [ $k -lt $round ]; do
			k=$((k + 1))
			"$REPLAY" -q -o rep$k.xml "$2" || fail "replay of $2 failed"
			grep -o '<node name="[^"]*" [^>]*error="[^"]*"' rep$k.xml | sed 's/ original.*error=/ error=/'
		done >> replays.log
		if why=$(untimed); then
			echo "replay times not checked: $why"
			rm -f replays.log
			return 0
		fi
		# one line when all is well (CI shows a failing test's first
		# lines only); every replay's figures and where the time went when not
		meds= off=
		for n in $(sed -n 's/.*<node name="\([^"]*\)" .* error=.*/\1/p' rep1.xml); do
			e=$(for j in $(seq $k); do
				sed -n "s/.*<node name=\"$n\" .* error=\"\(-*[0-9.]*\)\".*/\1/p" rep$j.xml
			done | median)
			meds="$meds $n $e"
			awk -v e="$e" -v m="$1" 'BEGIN { exit !(e >= -m && e <= m) }' || off="${off:-$n $e}"
		done
		[ -n "$off" ] || break
		[ $k -lt 7 ] && echo "replay median errors (%, of $k):$meds: beyond $1 %, four more replays"
	done
	if [ -n "$off" ]; then
		set -- "$1" "$2" ${off% *} ${off#* }
		echo "node $3's replay is off by $4 % (more than $1 %; medians of $k:$meds):"
		cat replays.log
		sed -n "/<node name=\"$3\"/,/<\/node>/p" rep1.xml | grep -v 'calls="0"'
		sed -n "/<node name=\"$3\"/,/<\/node>/p" "$2" | grep -o '<process [^>]*>'
		fail "node $3's replay is off by $4 % (more than $1 %; medians of $k:$meds)"
	fi
	rm -f replays.log
	echo "replay median errors (%, of $k):$meds"
}

# discovered TRACE PROGRAM: every dependency of traces/PROGRAM.deps found
# in TRACE (recall 100 %), and at least 90 % of what was found true
discovered() {
	depcheck "$1" $(grep -v '^#' "$ISLAND_ROOT/traces/$2.deps")
	expect_eq "recall" "$recall" "100.00"
	[ "$(echo "$precision >= 90" | bc)" = 1 ] || fail "precision $precision < 90"
}

# depcheck TRACE KNOWN...: recall and precision (tests/e2e/depcheck.py)
depcheck() {
	/usr/bin/python3 "$ISLAND_ROOT/tests/e2e/depcheck.py" "$@" > depcheck.out ||
		fail "depcheck failed"
	cat depcheck.out
	recall=$(sed -n 's/^recall \([0-9.]*\) .*/\1/p' depcheck.out)
	precision=$(sed -n 's/.* precision \([0-9.]*\) .*/\1/p' depcheck.out)
}
