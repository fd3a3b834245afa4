# Every rank a trace of its own: under mpirun with no --session and no -o,
# each rank's capture is node HOST.rankR writing HOST.rankR.xml. Two
# captures running at once never write one file: the second, given the
# name the first is writing (one -o for every rank), stops with one line
# naming it and exit 2 before its program runs; one capture after another
# replaces the trace as before; a dead capture's claim is taken over; a
# symbolic link at the claim's name is not followed. The claims are in
# /dev/shm, island-claim.UID.DEV.INO.NAME (the trace's directory's device
# and inode), never beside the trace.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
command -v mpirun >/dev/null || { echo "mpirun not installed"; exit 77; }
[ -x "$APPS/mpiring" ] || { echo "tests/apps/mpi not built (no mpicc)"; exit 77; }
[ -w /dev/shm ] || { echo "no /dev/shm"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
host=$(hostname)
claims=/dev/shm/island-claim.$(id -u).$(stat -c %d .).$(stat -c %i .)
mkdir ring
timeout 120 mpirun --oversubscribe -n 4 "$CAPTURE" -- "$APPS/mpiring" 2 ring 2> err ||
	{ cat err; fail "mpirun failed"; }
for r in 0 1 2 3; do
	check_trace "$host.rank$r.xml"
	grep -q "<node name=\"$host.rank$r\"" "$host.rank$r.xml" ||
		fail "$host.rank$r.xml is not node $host.rank$r"
	grep -q 'api="open[^"]*".*path="[^"]*/ring\.'$r'\.2"' "$host.rank$r.xml" ||
		fail "rank $r: its file is not in its trace"
done
expect_eq "traces" "$(ls *.xml | tr '\n' ' ')" \
	"$host.rank0.xml $host.rank1.xml $host.rank2.xml $host.rank3.xml "
# (the ranks' own: a killed capture's claim in a directory gone before
# this one got its inode would match $claims.*)
expect_eq "claims left" "$(ls -d $claims.$host.rank* 2>/dev/null || true)" ""
expect_eq "files beside the traces" "$(ls -A | grep -v '\.xml$' | tr '\n' ' ')" "err ring xmllint.err "
# PMI_RANK (MPICH's hydra), no Open MPI variable: the same rule
env -u OMPI_COMM_WORLD_RANK PMI_RANK=7 "$CAPTURE" -- true
check_trace "$host.rank7.xml"
# -n and --output-dir under a launcher: DIR/NAME.rankR.xml
mkdir out
OMPI_COMM_WORLD_RANK=5 "$CAPTURE" -n app --output-dir out -- true
check_trace out/app.rank5.xml

# two captures at once to one -o: the first waits for go
"$CAPTURE" -o same.xml -- sh -c 'while [ ! -e go ]; do sleep 0.05; done; echo first > first.out' &
first=$!
i=0
while [ ! -e $claims.same.xml ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
[ -e $claims.same.xml ] || fail "the first capture made no claim"
"$CAPTURE" -o same.xml -- sh -c 'echo second > second.out' 2> second.err &&
	fail "a second capture to same.xml was let run"
rc=$?
expect_eq "second's exit" "$rc" 2
expect_eq "second's error" "$(cat second.err)" \
	"island-capture: same.xml: another capture (pid $first) is writing this trace (its claim: $claims.same.xml)"
[ ! -e second.out ] || fail "the second capture's program ran"
touch go
wait $first || fail "the first capture failed"
check_trace same.xml
grep -q 'path="[^"]*/first\.out"' same.xml || fail "same.xml is not the first capture's"
[ ! -e $claims.same.xml ] || fail "the claim was left"
# one after another: replaced, as always
"$CAPTURE" -o same.xml -- sh -c 'echo third > third.out' || fail "a later capture failed"
grep -q 'path="[^"]*/third\.out"' same.xml || fail "same.xml was not replaced by a later capture"
# a dead capture's claim (no one holds its lock) is taken over
echo 12345 > $claims.same.xml
"$CAPTURE" -o same.xml -- true || fail "a stale claim stopped the capture"
[ ! -e $claims.same.xml ] || fail "the stale claim was left"
# a symbolic link at the claim's name is refused, its target untouched
echo keep > target
ln -s "$PWD/target" $claims.link.xml
"$CAPTURE" -o link.xml -- true 2> link.err && { rm -f $claims.link.xml; fail "a claim through a symbolic link"; }
rm -f $claims.link.xml
expect_eq "link error" "$(cat link.err)" \
	"island-capture: $claims.link.xml: cannot claim the trace's name: Too many levels of symbolic links"
expect_eq "target" "$(cat target)" keep
[ ! -e link.xml ] || fail "a trace was written past a refused claim"
exit 0
