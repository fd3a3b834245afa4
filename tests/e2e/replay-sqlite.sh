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
exit 0
