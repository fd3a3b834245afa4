# The workloads of bench/whatif.sh (sourced; definitions only): wl_NAME DIR
# sets DIR up (not measured), run_NAME runs in the current directory (what
# is measured, and captured).
GITC="-c user.name=a -c user.email=a@b -c gc.auto=0"
wl_sqlite() {
	{ echo "create table t (k integer primary key, v text);"
	  i=0; while [ $i -lt "${SQL_ROWS:-300}" ]; do echo "insert into t (v) values ('row $i');"; i=$((i + 1)); done
	} > "$1/ins.sql"
}
run_sqlite() { sqlite3 t.db ".read ins.sql"; }
FIO="--name=w --rw=randwrite --bs=4k --size=${FIO_SIZE:-4m} --fsync=8 --randrepeat=1 --filename=f.dat --output=/dev/null"
wl_fio_sync() { :; }
run_fio_sync() { fio $FIO --ioengine=sync; }
wl_fio_psync() { :; }
run_fio_psync() { fio $FIO --ioengine=psync; }
wl_git() { i=0; while [ $i -lt 100 ]; do echo "file $i" > "$1/f$i"; i=$((i + 1)); done; }
run_git() { git init -q . && git add . && git $GITC commit -q -m m && git $GITC gc -q; }
wl_tar() {
	mkdir -p "$1/.src/d" && i=0
	while [ $i -lt 200 ]; do head -c 16384 /dev/urandom > "$1/.src/d/f$i"; i=$((i + 1)); done
	tar cf "$1/src.tar" -C "$1/.src" d && rm -rf "$1/.src"
}
run_tar() { tar xf src.tar && sync -f .; }

