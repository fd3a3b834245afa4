# island-analyze top (the longest individual calls, who made them, on
# what) and --sort/--limit, which the table printer applies to every
# report's tables: literal output on the hand-made basic.xml (durations
# in its comments), then on real programs (sqlite3, python3 with
# subprocesses) against the calls' durations in `export`, the slowest
# worked out independently of top's heap.
. "$ISLAND_ROOT/tests/e2e/lib.sh"

expect top 0 top tests/traces/basic.xml <<'EOF2'
node   pid  process  tid  thread  call                fd  target           start_s     dur_s  args
node1  100  app      100  main    write                3  /data/out.txt   0.300000  1.000000
node1  100  app      100  main    nanosleep                               1.500000  0.500000
node1  100  app      100  main    pthread_join                            2.100000  0.400000
node1  100  app      101  worker  recv                 5  127.0.0.1:5000  0.700000  0.200000
node1  100  app      101  worker  pthread_mutex_lock                      1.400000  0.200000
node1  100  app      101  worker  read                 4  /data/in.txt    0.300000  0.100000
node1  100  app      101  worker  connect              5  127.0.0.1:5000  0.500000  0.050000
node1  100  app      101  worker  send                 5  127.0.0.1:5000  0.600000  0.050000
node1  100  app      100  main    open                 3  /data/out.txt   0.100000  0.010000
node1  100  app      100  main    pthread_create                          0.200000  0.010000
EOF2

expect top-limit-csv 0 top --limit 2 --csv tests/traces/basic.xml <<'EOF2'
node,pid,process,tid,thread,call,fd,target,start_s,dur_s,args
node1,100,app,100,main,write,3,/data/out.txt,0.300000000,1.000000000,
node1,100,app,100,main,nanosleep,,,1.500000000,0.500000000,
EOF2

# the longest of each file (or peer); calls on none are the group ""
expect top-by-file 0 top --by file --limit 1 tests/traces/basic.xml <<'EOF2'
node   pid  process  tid  thread  call       fd  target           start_s     dur_s  args
node1  100  app      100  main    nanosleep                      1.500000  0.500000
node1  100  app      101  worker  read        4  /data/in.txt    0.300000  0.100000
node1  100  app      100  main    write       3  /data/out.txt   0.300000  1.000000
node1  100  app      101  worker  recv        5  127.0.0.1:5000  0.700000  0.200000
node1  100  app      101  worker  sendto      6  127.0.0.1:6000  1.000000  0.010000
EOF2

# top's --limit is N per group, not a cut of the table; --sort orders
# the rows kept (ties keep the groups' order: by call name)
expect top-by-call-sorted 0 top --by call --limit 1 --sort -dur_s tests/traces/basic.xml <<'EOF2'
node   pid  process  tid  thread  call                fd  target           start_s     dur_s  args
node1  100  app      100  main    write                3  /data/out.txt   0.300000  1.000000
node1  100  app      100  main    nanosleep                               1.500000  0.500000
node1  100  app      100  main    pthread_join                            2.100000  0.400000
node1  100  app      101  worker  pthread_mutex_lock                      1.400000  0.200000
node1  100  app      101  worker  recv                 5  127.0.0.1:5000  0.700000  0.200000
node1  100  app      101  worker  read                 4  /data/in.txt    0.300000  0.100000
node1  100  app      101  worker  connect              5  127.0.0.1:5000  0.500000  0.050000
node1  100  app      101  worker  send                 5  127.0.0.1:5000  0.600000  0.050000
node1  100  app      100  main    close                3  /data/out.txt   2.600000  0.010000
node1  100  app      100  main    open                 3  /data/out.txt   0.100000  0.010000
node1  100  app      100  main    pthread_create                          0.200000  0.010000
node1  100  app      101  worker  sendto               6  127.0.0.1:6000  1.000000  0.010000
EOF2

expect top-filtered 0 top --thread 101 --limit 2 tests/traces/basic.xml <<'EOF2'
node   pid  process  tid  thread  call                fd  target           start_s     dur_s  args
node1  100  app      101  worker  recv                 5  127.0.0.1:5000  0.700000  0.200000
node1  100  app      101  worker  pthread_mutex_lock                      1.400000  0.200000
EOF2

# files: total_s, sorted and cut
expect files-sort-limit 0 files --sort -total_s --limit 1 tests/traces/basic.xml <<'EOF2'
node   path           opens  reads  bytes_read    read_s  writes  bytes_written   write_s   other_s  open_at_end   total_s
node1  /data/out.txt      1      0           0  0.000000       1         200000  1.000000  0.020000            0  1.020000
EOF2

expect files-sort-asc 0 files --csv --sort total_s tests/traces/basic.xml <<'EOF2'
node,path,opens,reads,bytes_read,read_s,writes,bytes_written,write_s,other_s,open_at_end,total_s
node1,/data/in.txt,1,1,4096,0.100000,0,0,0.000000,0.000000,1,0.100000
node1,/data/out.txt,1,0,0,0.000000,1,200000,1.000000,0.020000,0,1.020000
EOF2

# two keys; a text key; the same options on another report
expect calls-sort-keys 0 calls --by thread --sort tid,-count,call --csv --limit 7 tests/traces/basic.xml <<'EOF2'
node,pid,process,tid,call,count,errors,errnos,bytes,total_s,mean_s,p50_s,p90_s,p99_s,max_s
node1,100,app,100,close,1,0,,0,0.010000000,0.010000000,0.010000000,0.010000000,0.010000000,0.010000000
node1,100,app,100,nanosleep,1,0,,0,0.500000000,0.500000000,0.500000000,0.500000000,0.500000000,0.500000000
node1,100,app,100,open,1,0,,0,0.010000000,0.010000000,0.010000000,0.010000000,0.010000000,0.010000000
node1,100,app,100,pthread_create,1,0,,0,0.010000000,0.010000000,0.010000000,0.010000000,0.010000000,0.010000000
node1,100,app,100,pthread_join,1,0,,0,0.400000000,0.400000000,0.400000000,0.400000000,0.400000000,0.400000000
node1,100,app,100,write,1,0,,200000,1.000000000,1.000000000,1.000000000,1.000000000,1.000000000,1.000000000
node1,100,app,101,connect,1,0,,0,0.050000000,0.050000000,0.050000000,0.050000000,0.050000000,0.050000000
EOF2

expect sockets-limit 0 sockets --sort -sent --limit 1 tests/traces/basic.xml <<'EOF2'
node   proto  local            peer            direction  sent  received  open_at_end
node1  tcp    127.0.0.1:40002  127.0.0.1:5000  out          10        20  no
EOF2

expect timeline-limit 0 timeline --limit 2 --csv tests/traces/basic.xml <<'EOF2'
TOC,node,pid,process,tid,thread,API,amount,dur_s,fd,target
0.000000000,node1,100,app,100,main,island_create_thread,,,,
0.110000000,node1,100,app,100,main,open,,0.010000000,3,/data/out.txt
EOF2

# usage errors: one line, exit 2, the nearest name
expect sort-typo 2 calls --sort totl_s tests/traces/basic.xml <<'EOF2'
island-analyze: calls: --sort: no column 'totl_s' (did you mean total_s? see --list-columns calls)
EOF2
expect sort-unknown 2 files --sort -zzz tests/traces/basic.xml <<'EOF2'
island-analyze: files: --sort: no column 'zzz' (see --list-columns files)
EOF2
expect sort-empty 2 files --sort - tests/traces/basic.xml <<'EOF2'
island-analyze: --sort: '-' is not [-]COLUMN[,[-]COLUMN...]
EOF2
expect limit-zero 2 files --limit 0 tests/traces/basic.xml <<'EOF2'
island-analyze: --limit: '0' is not a number >= 1
EOF2
expect sort-timeline 2 timeline --sort API tests/traces/basic.xml <<'EOF2'
island-analyze: --sort: the timeline rows are streamed in their own order (--limit N takes the first N)
EOF2
expect sort-export 2 export --limit 3 tests/traces/basic.xml <<'EOF2'
island-analyze: export: --sort and --limit order and cut tables; this report prints none
EOF2
expect top-by-thread 2 top --by thread tests/traces/basic.xml <<'EOF2'
island-analyze: top: --by thread: only process|file|call
EOF2
# processes told apart: each named by its last exec's image, with that
# exec's args (tests/traces/exec.xml), at the time of the call
expect top-exec 0 top --by process --limit 2 tests/traces/exec.xml <<'EOF2'
node  pid  process  tid  thread  call     fd  target                  start_s     dur_s  args
n     200  sh       200  sh      waitpid                             0.210000  0.690000
n     200  sh       200  sh      fork                                0.100000  0.010000
n     201  git      201  git     write     1  /w/out                 0.200000  0.300000  git pack-objects --revs
n     201  sh       201  git     write     2  /dev/null              0.120000  0.010000
n     202  git      202  git     read      0  /w/in                  0.300000  0.100000  git index-pack --keep=fetch\x20200
n     202  git      202  git     execve       /usr/lib/git-core/git  0.220000  0.000000  git index-pack --keep=fetch\x20200
EOF2
expect calls-thread-exec 0 calls --by thread --call write,read --csv tests/traces/exec.xml <<'EOF2'
node,pid,process,tid,call,count,errors,errnos,bytes,total_s,mean_s,p50_s,p90_s,p99_s,max_s
n,201,git,201,write,2,0,,101,0.310000000,0.155000000,0.010000000,0.300000000,0.300000000,0.300000000
n,202,git,202,read,1,0,,100,0.100000000,0.100000000,0.100000000,0.100000000,0.100000000,0.100000000
EOF2
expect timeline-exec 0 timeline --csv --call execve,write tests/traces/exec.xml <<'EOF2'
TOC,node,pid,process,tid,thread,API,amount,dur_s,fd,target
0.000000000,n,200,sh,200,sh,island_create_thread,,,,
0.110000000,n,201,sh,201,git,island_create_thread,,,,
0.130000000,n,201,sh,201,git,write,1,0.010000000,2,/dev/null
0.140000000,n,201,git,201,git,execve,,0.000000000,,/usr/lib/git-core/git
0.210000000,n,202,sh,202,git,island_create_thread,,,,
0.220000000,n,202,git,202,git,execve,,0.000000000,,/usr/lib/git-core/git
0.500000000,n,201,git,201,git,write,100,0.300000000,1,/w/out
0.700000000,n,202,git,202,git,island_destroy_thread,,,,
0.800000000,n,201,git,201,git,island_destroy_thread,,,,
1.000000000,n,200,sh,200,sh,island_destroy_thread,,,,
EOF2
[ $fail = 0 ] || exit 1

# Real programs: the N longest calls are the N longest of the export's
# calls (ties in duration are told apart by start, node, tid).
crosscheck() {	# TRACE N [BY]
	"$ANALYZE" top --csv --limit "$2" ${3:+--by $3} "$1" > top.csv || fail "top $1"
	"$ANALYZE" export "$1" > exp.csv || fail "export $1"
	/usr/bin/python3 - exp.csv top.csv "$2" "$3" <<'PY'
import csv, sys, collections
n, by = int(sys.argv[3]), sys.argv[4]
ex = [r for r in csv.DictReader(open(sys.argv[1])) if r["kind"] == "io"]
def key(r):
    tgt = r["path"] or r["peer"] or r["inpath"]
    return {"": "", "process": (r["node"], r["pid"]), "file": tgt, "call": r["api"]}[by]
groups = collections.defaultdict(list)
for r in ex:
    groups[key(r)].append(r)
want = collections.Counter()
for g in groups.values():
    g.sort(key=lambda r: -round(float(r["dur"]) * 1e9))
    cut = round(float(g[min(n, len(g)) - 1]["dur"]) * 1e9)
    for r in g:
        d = round(float(r["dur"]) * 1e9)
        if d > cut:
            want[(key(r), r["api"], r["tid"], r["start"], d)] += 1
top = list(csv.DictReader(open(sys.argv[2])))
got = collections.Counter()
per = collections.Counter()
for r in top:
    k = {"": "", "process": (r["node"], r["pid"]), "file": r["target"], "call": r["call"]}[by]
    per[k] += 1
    got[(k, r["call"], r["tid"], r["start_s"], round(float(r["dur_s"]) * 1e9))] += 1
bad = [k for k in want if got[k] < want[k]]          # every strictly longer call is there
bad += [k for k, c in per.items() if c != min(n, len(groups[k]))]
if bad:
    print("missing or miscounted:", bad[:5])
    sys.exit(1)
print("%s: %d rows, %d groups, %d calls in the export" % (sys.argv[1], len(top), len(per), len(ex)))
PY
	[ $? = 0 ] || fail "top $1 --limit $2 ${3:+--by $3}: not the longest calls of the export"
}

command -v sqlite3 >/dev/null || { echo "sqlite3 not installed"; exit 77; }
"$CAPTURE" -n db -o sq.xml -- sqlite3 t.db "create table t(a); insert into t values(1); insert into t values(2); select * from t;" > /dev/null ||
	fail "capture sqlite3"
crosscheck sq.xml 5
crosscheck sq.xml 2 file
crosscheck sq.xml 1 call
expect_eq "sqlite3 top header" "$(head -1 top.csv)" "node,pid,process,tid,thread,call,fd,target,start_s,dur_s,args"
expect_eq "sqlite3 process" "$(sed -n 2p top.csv | cut -d, -f1,3)" "db,sqlite3"

cat > sub.py <<'PY'
import subprocess, sys
for i in range(3):
    subprocess.run(["sh", "-c", "cat /etc/hostname > /dev/null; sleep 0.0%d" % (i + 1)])
open("out.txt", "w").write("x" * 100000)
PY
"$CAPTURE" -n py -o py.xml -- /usr/bin/python3 sub.py || fail "capture python3"
crosscheck py.xml 3 process
crosscheck py.xml 4
# per process, by the program it ran: python3, three sh, and what each
# ran (their arguments from the exec records). A row names the program
# the process ran at that call, so the process's last call listed says
# what it ended as: its longest call may be one its parent's image made
# before the exec (a close preempted under ASan was rev-list's below)
last() { "$ANALYZE" top --by process --limit 100000 --csv "$1" | tail -n +2 |
	awk -F, '!($2 in s) || $9 > s[$2] { s[$2] = $9; r[$2] = $0 } END { for (p in r) print r[p] }'; }
expect_eq "processes" "$(last py.xml | cut -d, -f3 | sort | uniq -c | tr -s ' ' | tr '\n' ';')" \
	" 3 cat; 1 python3.11; 3 sh; 3 sleep;"
expect_eq "sh args" "$(last py.xml | awk -F, '$3 == "sh" { print $NF }' | sort)" \
	"sh -c cat\x20/etc/hostname\x20>\x20/dev/null;\x20sleep\x200.01
sh -c cat\x20/etc/hostname\x20>\x20/dev/null;\x20sleep\x200.02
sh -c cat\x20/etc/hostname\x20>\x20/dev/null;\x20sleep\x200.03"

# git clone: its git processes told apart by their arguments
command -v git >/dev/null || { echo "git not installed"; exit 77; }
mkdir src && (cd src && git init -q . && echo hi > a && git add a &&
	git -c user.email=a@b -c user.name=n commit -qm x) || fail "git repository"
"$CAPTURE" -n g -o git.xml -- git clone -q --no-local src dst || fail "capture git clone"
check_trace git.xml
expect_eq "git subcommands" "$(last git.xml | awk -F, '$3 == "git" && $NF != "" { split($NF, a, " "); print a[2] }' | sort | tr '\n' ' ')" \
	"index-pack pack-objects rev-list "
exit 0
