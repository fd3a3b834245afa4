# island-capture --callsites: every call carries the address it returns to;
# island-analyze --by callsite names the function and line that made it.
# tests/apps/callmix.c writes 600 times from small_writes and 400 times
# from other_writes.
. "$ISLAND_ROOT/tests/e2e/lib.sh"

cp "$APPS/callmix" ./callmix
"$CAPTURE" --callsites -n n1 -o cs.xml -- ./callmix
check_trace cs.xml
expect_eq "calls without a site" "$(grep '<io ' cs.xml | grep -vc ' site=')" 0
grep -q "<module id=\"1\" path=\"$PWD/callmix\" bias=\"0x[0-9a-f]*\" build_id=\"[0-9a-f]*\"/>" cs.xml ||
	fail "the program's module is not described"

# a site's record holds an address, not a time: the process ends when it
# ended (it ended 23000 s later), and two threads' records are put in
# order by their times (a write was another thread's file's)
"$CAPTURE" --callsites -n n1 -o fr.xml -- "$APPS/fdreuse" 20 a.dat b.dat || fail "fdreuse"
expect_eq "fdreuse: files" "$("$ANALYZE" files --csv fr.xml | awk -F, 'NR > 1 { print $2, $3, $7, $8 }')" \
	"$PWD/a.dat 20 60 60000
$PWD/b.dat 20 100 70000"
ends=$(grep -o '<\(process\|thread\) [^>]* end="[0-9.]*"' cs.xml fr.xml | sed 's/.* end="//; s/"//' | sort -g | tail -1)
within "the latest end of a process or thread (s)" "$ends" 0 30

# function (file:line); GCC may name a clone small_writes.constprop.0
"$ANALYZE" calls --csv --by callsite --call write cs.xml > w.csv
expect_eq header "$(head -1 w.csv)" "callsite,call,count,errors,errnos,bytes,total_s,mean_s,p50_s,p90_s,p99_s,max_s"
got=$(awk -F, 'NR > 1 { sub(/[.( ].*/, "", $1); print $1, $2, $3 }' w.csv | sort)
expect_eq "writes by call site" "$got" "$(printf '%s\n' "other_writes write 400" "small_writes write 600")"
grep -q '^small_writes[^,]* (callmix.c:[0-9]*),' w.csv || fail "no file:line: $(cat w.csv)"
# files and access split the same way
got=$("$ANALYZE" files --csv --by callsite --path /dev/null cs.xml | awk -F, '$3 ~ /_writes/ { sub(/[.( ].*/, "", $3); print $3, $8 }' | sort)
expect_eq "files by call site" "$got" "$(printf '%s\n' "other_writes 400" "small_writes 600")"
"$CAPTURE" --callsites -n n1 -o a.xml -- "$APPS/access" x.dat
expect_eq "access by call site: seq_reads add up" \
	"$("$ANALYZE" access --csv --by callsite a.xml | awk -F, 'NR > 1 { n += $10 } END { print n }')" 5

# a vfork parent's first call after it resumes: its own site (it kept the
# site of the vfork's caller)
"$CAPTURE" --callsites -n n1 -o vf.xml -- "$APPS/vforksite"
got=$("$ANALYZE" calls --csv --by callsite --call write vf.xml | awk -F, 'NR > 1 { sub(/[.( ].*/, "", $1); print $1, $3 }' | sort)
expect_eq "first call after vfork" "$got" "$(printf '%s\n' "after_vfork 1" "more_writes 2")"

mkdir root
"$ISLAND_ROOT/bin/island-replay" --root root -m afap cs.xml > replay.out 2>&1 || fail "replay: $(cat replay.out)"

# without --callsites: no site, and the default record stays short
"$CAPTURE" -n n1 -o plain.xml -- ./callmix
expect_eq "sites without --callsites" "$(grep -c ' site=\|<module' plain.xml)" 0

# the binary gone (moved to another directory, as on another machine), or
# stripped: offsets in the module, one warning line
mkdir -p moved/sub
mv callmix moved/sub/renamed
cp "$APPS/access" moved/callmix	# its name, another build id: not it
"$ANALYZE" calls --csv --by callsite --call write cs.xml > gone.csv 2> gone.err
expect_eq "missing binary warning" "$(wc -l < gone.err)" 1
expect_eq "missing binary warning" "$(cat gone.err)" "island-analyze: warning: $PWD/callmix: cannot read it (No such file or directory), and no file with its build id was found (/usr/lib/debug/.build-id, --binaries): its call sites are shown as offsets"
expect_eq "missing binary rows" "$(awk -F, 'NR > 1 { sub(/\+0x[0-9a-f]*$/, "", $1); print $1, $3 }' gone.csv | sort | tr '\n' ' ')" "callmix 400 callmix 600 "
# --binaries DIR: found by its build id under DIR, whatever its name
"$ANALYZE" calls --csv --by callsite --call write --binaries moved cs.xml > found.csv 2> found.err
expect_eq "found by build id: warnings" "$(cat found.err)" ""
expect_eq "found by build id" "$(awk -F, 'NR > 1 { sub(/[.( ].*/, "", $1); print $1, $2, $3 }' found.csv | sort)" \
	"$(printf '%s\n' "other_writes write 400" "small_writes write 600")"
# the recorded path holding another build: looked up by build id too
cp "$APPS/access" callmix
"$ANALYZE" calls --csv --by callsite --call write --binaries moved cs.xml > other.csv 2> other.err
expect_eq "another build at the path: warnings" "$(cat other.err)" ""
expect_eq "another build at the path" "$(awk -F, 'NR > 1 { sub(/[.( ].*/, "", $1); print $1, $3 }' other.csv | sort | tr '\n' ' ')" "other_writes 400 small_writes 600 "
"$ANALYZE" calls --csv --by callsite --call write cs.xml > /dev/null 2> other.err
expect_eq "another build, not found" "$(cat other.err)" "island-analyze: warning: $PWD/callmix: not the binary that was captured (another build id), and no file with its build id was found (/usr/lib/debug/.build-id, --binaries): its call sites are shown as offsets"
rc=0; "$ANALYZE" calls --binaries nosuch cs.xml > bad.out 2>&1 || rc=$?
expect_eq "--binaries nosuch: status" $rc 2
expect_eq "--binaries nosuch" "$(cat bad.out)" "island-analyze: --binaries: 'nosuch' is not a directory"
rm callmix
cp "$APPS/callmix" ./callmix && strip ./callmix
"$CAPTURE" --callsites -n n1 -o st.xml -- ./callmix
"$ANALYZE" calls --csv --by callsite --call write st.xml > st.csv 2> st.err
expect_eq "stripped: counts" "$(awk -F, 'NR > 1 { print $3 }' st.csv | sort -n | tr '\n' ' ')" "400 600 "

# --syscalls: a system call a libc call made (via=: stdio's flushes, a
# stat's) has that call's site, which the SIGSYS handler cannot take
# (they had none); not an exec's failed attempts, made after it
"$CAPTURE" --syscalls --callsites -o vs.xml -- sh -c 'seq 1 3000 > y; /nonexist/x 2>/dev/null; true' ||
	fail "--syscalls --callsites"
if grep -q 'syscalls="kernel"' vs.xml; then
	expect_eq "via: their libc call's site (elements, wrong)" "$(/usr/bin/python3 -c '
import re, sys
s = open(sys.argv[1]).read()
n = bad = 0
for th in re.findall(r"<thread .*?</thread>", s, re.S):
    els = re.findall(r"<io [^>]*>", th)
    for i, e in enumerate(els):
        via = re.search(r" via=\"([^\"]+)\"", e)
        if not via or via.group(1).startswith("exec"):
            continue
        n += 1
        want = next((re.search(r" site=\"([^\"]+)\"", f) for f in els[i + 1:]
                     if " level=\"libc" in f and f.startswith("<io api=\"%s\"" % via.group(1))), None)
        site = re.search(r" site=\"([^\"]+)\"", e)
        bad += not site or not want or site.group(1) != want.group(1)
print("many" if n > 5 else n, bad)' vs.xml)" "many 0"
fi
echo ok
