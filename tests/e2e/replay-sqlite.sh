# island-replay: sqlite3 (reads of a database it did not create, fsyncs,
# journal create/unlink) replayed: the database has its size under the root.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
REPLAY="$ISLAND_ROOT/bin/island-replay"
command -v sqlite3 > /dev/null || { echo "sqlite3 not installed"; exit 77; }
sqlite3 db.sqlite "create table t(a, b);" || fail "sqlite3"
sql="begin; with recursive c(x) as (select 1 union all select x+1 from c where x<20000) insert into t select x, hex(randomblob(40)) from c; commit; select count(*) from t;"
"$CAPTURE" -n s -o s.xml sqlite3 "$PWD/db.sqlite" "$sql" > out.txt || fail "capture"
expect_eq "rows" "$(cat out.txt)" 20000
size=$(stat -c %s db.sqlite)
rm -f db.sqlite
"$REPLAY" -q --root r --report rep.xml s.xml || fail "replay"
expect_eq "database size" "$(stat -c %s "r$PWD/db.sqlite")" "$size"
[ -e "r$PWD/db.sqlite-journal" ] && fail "the journal should have been unlinked"
expect_eq "failed calls" "$(sed -n 's/.*<node name="s".* failed="\([0-9]*\)".*/\1/p' rep.xml)" 0
syncs=$(grep -cE 'api="(fsync|fdatasync|sync|syncfs|sync_file_range)"' s.xml)
expect_eq "sync calls" "$(sed -n 's/.*<family name="sync" calls="\([0-9]*\)".*/\1/p' rep.xml)" "$syncs"
for i in 2 3; do
	"$REPLAY" -q --root r$i --report rep$i.xml s.xml || fail "replay $i"
done
timing_ok rep.xml rep2.xml rep3.xml

# calls of a few microseconds: 2000 inserts, a transaction each, in
# /dev/shm (78,000 stats, opens, preads, pwrites, fdatasyncs and locks in
# some 0.09 s): the median of 5 causal replays within 5 %
shm=$(mktemp -d /dev/shm/island-test.XXXXXX) || fail "mktemp /dev/shm"
trap 'rm -rf "$shm"' EXIT
sqlite3 "$shm/db" "create table t(a, b);" || fail "sqlite3 in /dev/shm"
awk 'BEGIN { for (i = 1; i <= 2000; i++) printf "insert into t values(%d, %c row %d%c);\n", i, 39, i, 39 }' > ins.sql
"$CAPTURE" -n q -o q.xml sqlite3 "$shm/db" ".read $PWD/ins.sql" || fail "capture of the inserts"
for i in 1 2 3 4 5; do
	rm -rf "$shm/root"
	"$REPLAY" -q --root "$shm/root" --report "q$i.xml" q.xml || fail "replay $i of the inserts"
	expect_eq "inserts $i: failed calls" "$(sed -n 's/.*<node name="q".* failed="\([0-9]*\)".*/\1/p' "q$i.xml")" 0
done
e=$(for i in 1 2 3 4 5; do sed -n 's/.*<run .* error="\(-*[0-9.]*\)".*/\1/p' "q$i.xml"; done | median)
echo "inserts: causal error $e % (median of 5, $(grep -c '<io ' q.xml) calls)"
if why=$(untimed); then
	echo "fidelity not checked: $why"
else
	within "inserts: causal error (%)" "$e" -5 5
fi
exit 0
