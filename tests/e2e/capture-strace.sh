# Real programs captured by island-capture and by strace agree: the same
# files opened, the same bytes read and written per file.
#
# Compared: the files under the test's work directory (the program's own
# data). Not compared: what the dynamic loader and libc open internally
# (shared libraries, locale, nsswitch), which an LD_PRELOAD interposer
# cannot see; see docs/trace-format.md, "What is not seen".
. "$ISLAND_ROOT/tests/e2e/lib.sh"
command -v strace >/dev/null || { echo "strace not installed"; exit 77; }
command -v sqlite3 >/dev/null || { echo "sqlite3 not installed"; exit 77; }

setup() {
	rm -rf "$1" && mkdir -p "$1/src/sub" && cd "$1"
	seq 1 20000 > src/numbers.txt
	seq 1 3 90000 | sed 's/^/line /' > src/sub/lines.txt
	printf 'small\n' > src/small.txt
	cat > script.sql <<'SQL'
CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, v REAL);
BEGIN;
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3000)
INSERT INTO t SELECT x, 'name-' || x, x * 1.5 FROM c;
COMMIT;
CREATE INDEX t_name ON t(name);
SELECT count(*), sum(v) FROM t;
UPDATE t SET v = v * 2 WHERE id % 7 = 0;
SELECT count(*) FROM t WHERE v > 1000;
SQL
	cd - >/dev/null
}

# island's view: "path bytes_read bytes_written opened" under the work dir
island_view() {
	sed -n 's|.*<file path="\([^"]*\)" opens="\([0-9]*\)" reads="[0-9]*" bytes_read="\([0-9]*\)" writes="[0-9]*" bytes_written="\([0-9]*\)".*|\1 \3 \4 \2|p' "$1" |
	awk -v ROOT="$2" 'index($1, ROOT "/") == 1 { p = substr($1, length(ROOT) + 2);
		if ($2 + $3 + $4 == 0) next; print p, $2, $3, ($4 > 0 ? 1 : 0) }' | sort
}

TRACE="open,openat,creat,read,pread64,readv,preadv,preadv2,write,pwrite64,writev,pwritev,pwritev2,copy_file_range,sendfile,splice"

compare() {
	name=$1; shift
	setup "$PWD/i-$name"; (cd "i-$name" && "$CAPTURE" -n "$name" -o ../$name.xml sh -c "$*") ||
		fail "$name: failed under island-capture"
	setup "$PWD/s-$name"; (cd "s-$name" && strace -f -y -qq -o ../$name.strace -e trace=$TRACE sh -c "$*") ||
		fail "$name: failed under strace"
	check_trace $name.xml
	island_view $name.xml "$PWD/i-$name" > $name.island
	awk -v ROOT="$PWD/s-$name" -f "$ISLAND_ROOT/tests/e2e/strace-files.awk" $name.strace | sort > $name.straced
	[ -s $name.straced ] || fail "$name: strace saw no file"
	if ! diff -u $name.straced $name.island > $name.diff; then
		cat $name.diff >&2
		fail "$name: island-capture and strace disagree"
	fi
	echo "$name: $(wc -l < $name.island) files agree"
}

compare sqlite3 'sqlite3 test.db < script.sql > out.txt'
compare tar 'tar cf a.tar src && mkdir dst && tar xf a.tar -C dst'
compare gzip 'gzip -k src/numbers.txt && gzip -dc src/numbers.txt.gz > copy.txt'
compare cp 'cp -r src cpdst && cp src/sub/lines.txt one.txt'
compare threads "$APPS/writes 4 1000 100 out%d.txt"
compare forkexec "mkdir fe && $APPS/forkexec fe"
exit 0
