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
# some 0.07 s). A replay reproduces the run it was captured from, at the
# machine's speed of the moment: on a shared VM a capture that ran while
# the machine was slow (0.094 s, every fdatasync 0.23 us against 0.14)
# replayed 12 % short five times of five. So three captures, each replayed
# three times: the median of their medians within 5 %.
shm=$(mktemp -d /dev/shm/island-test.XXXXXX) || fail "mktemp /dev/shm"
trap 'rm -rf "$shm"' EXIT
awk 'BEGIN { for (i = 1; i <= 2000; i++) printf "insert into t values(%d, %c row %d%c);\n", i, 39, i, 39 }' > ins.sql
meds=
for k in 1 2 3; do
	rm -f "$shm/db"
	sqlite3 "$shm/db" "create table t(a, b);" || fail "sqlite3 in /dev/shm"
	"$CAPTURE" -n q -o q$k.xml sqlite3 "$shm/db" ".read $PWD/ins.sql" || fail "capture $k of the inserts"
	for i in 1 2 3; do
		rm -rf "$shm/root"
		"$REPLAY" -q --root "$shm/root" --report "q$k-$i.xml" q$k.xml || fail "replay $i of capture $k of the inserts"
		expect_eq "inserts $k-$i: failed calls" "$(sed -n 's/.*<node name="q".* failed="\([0-9]*\)".*/\1/p' "q$k-$i.xml")" 0
	done
	m=$(for i in 1 2 3; do sed -n 's/.*<run .* error="\(-*[0-9.]*\)".*/\1/p' "q$k-$i.xml"; done | median)
	meds="$meds $m"
	echo "inserts, capture $k: $(sed -n 's/.*<run original="\([0-9.]*\)".*/\1/p' q$k-1.xml) s captured, causal error $m % (median of 3, $(grep -c '<io ' q$k.xml) calls)"
done
e=$(for m in $meds; do echo "$m"; done | median)
echo "inserts: causal error $e % (median of the captures' medians:$meds)"
if why=$(untimed); then
	echo "fidelity not checked: $why"
else
	within "inserts: causal error (%)" "$e" -5 5
fi
exit 0
