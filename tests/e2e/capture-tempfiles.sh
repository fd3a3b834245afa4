# Temporary files, which libc opens itself where the interposer does not
# see it (tests/apps/tempfiles): mkstemp's family is the open of the name
# it made, O_RDWR|O_CREAT|O_EXCL and mkostemp's flags; mkdtemp the mkdir
# of its name; tmpfile an O_TMPFILE open of /tmp, as glibc makes it.
# Before, their writes had a descriptor and no file (sort's temporary
# files showed reads and no writes) and the replay could not make them.
. "$ISLAND_ROOT/tests/e2e/lib.sh"

"$CAPTURE" -n t -o t.xml "$APPS/tempfiles" > t.out 2> t.err || fail "tempfiles failed: $(cat t.err)"
check_trace t.xml
expect_eq "what it made" "$(cat t.out)" 'mkstemp t.XXXXXX 100
mkostemp t.XXXXXX 10
mkstemps t.XXXXXX.txt 0
mkdtemp d.XXXXXX 0
tmpfile 5'
# its calls but its printfs, times left out, the names made masked
expect_eq "the calls" "$(grep '<io ' t.xml | grep -v 'api="printf"\|api="puts"' |
	sed 's/ start="[^"]*" end="[^"]*"//; s/^ *//; s#"'"$PWD"'/\([td]\)\.[A-Za-z0-9]\{6\}#"\1.XXXXXX#')" \
'<io api="mkstemp" res="filemeta" fd="3" path="t.XXXXXX" flags="O_RDWR|O_CREAT|O_EXCL"/>
<io api="write" res="filewrite" amount="100" size="100" fd="3" path="t.XXXXXX"/>
<io api="close" res="filemeta" fd="3" path="t.XXXXXX"/>
<io api="unlink" res="filemeta" path="t.XXXXXX"/>
<io api="mkostemp" res="filemeta" fd="3" path="t.XXXXXX" flags="O_RDWR|O_CREAT|O_EXCL|O_APPEND"/>
<io api="write" res="filewrite" amount="10" size="10" fd="3" path="t.XXXXXX"/>
<io api="close" res="filemeta" fd="3" path="t.XXXXXX"/>
<io api="unlink" res="filemeta" path="t.XXXXXX"/>
<io api="mkstemps" res="filemeta" fd="3" path="t.XXXXXX.txt" flags="O_RDWR|O_CREAT|O_EXCL"/>
<io api="close" res="filemeta" fd="3" path="t.XXXXXX.txt"/>
<io api="unlink" res="filemeta" path="t.XXXXXX.txt"/>
<io api="mkdtemp" res="filemeta" path="d.XXXXXX"/>
<io api="rmdir" res="filemeta" path="d.XXXXXX"/>
<io api="tmpfile" res="filemeta" fd="3" path="/tmp" flags="O_RDWR|O_TMPFILE|O_EXCL"/>
<io api="fputs" res="filewrite" amount="5" size="5" fd="3" path="/tmp"/>
<io api="fclose" res="filemeta" fd="3" path="/tmp"/>'
# the reports count them as opens, with their bytes
"$ANALYZE" files t.xml > files.txt 2>&1 || fail "files failed"
expect_eq "files: opens and bytes written" \
	"$(awk 'NR > 1 && $2 !~ /\.out$/ { sub(".*/", "", $2); print $2, $3, $8 }' files.txt |
	   sed 's/^t\.[A-Za-z0-9]\{6\}/t.XXXXXX/' | sort)" \
't.XXXXXX 1 10
t.XXXXXX 1 100
t.XXXXXX.txt 1 0
tmp 1 5'
# and the replay makes them again, under its root
"$REPLAY" -q -r root -o rep.xml t.xml > rep.out 2> rep.err || fail "replay failed: $(cat rep.err)"
expect_eq "replay: nothing failed, nothing skipped" \
	"$(sed -n 's/.*<node [^>]* skipped="\([0-9]*\)" failed="\([0-9]*\)".*/\1 \2/p' rep.xml)" "0 0"
exit 0
