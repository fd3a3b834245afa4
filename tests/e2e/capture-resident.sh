# What a thread spools does not stay resident in it: once it leaves a
# chunk of the arena for the next, that chunk's pages leave its resident
# set (they stay in the arena's file, for the capture). 1,500,000 writes
# spool some 96 MB; the writer's peak RSS under the capture was 50 MB
# when every chunk it filled stayed mapped, 6 MB now. Every write is in
# the trace, and no report warns of a gap.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
[ -x /usr/bin/time ] || { echo "needs GNU time (Debian's time)"; exit 77; }
"$CAPTURE" -o w.isb.zst -- /usr/bin/time -f '%M' -o rss.txt "$APPS/writes" 1 1500000 64 data.out 2> cap.err ||
	fail "the capture failed: $(cat cap.err)"
[ -s cap.err ] && fail "stderr: $(cat cap.err)"
expect_eq "the app's file" "$(stat -c %s data.out)" 96000000
rss=$(cat rss.txt)
[ "$rss" -lt 32768 ] || fail "the writer's peak RSS: $rss KB for 96 MB spooled (want under 32 MB)"
# read through the trace library (its validator: xmllint's schema check
# gives up past some 5,000,000 children of one element)
"$ANALYZE" files --csv w.isb.zst > files.csv 2> an.err || fail "files: $(cat an.err)"
[ -s an.err ] && fail "the report warns: $(cat an.err)"
expect_eq "writes recorded" "$(awk -F, '$2 ~ /data\.out$/ { print $7 }' files.csv)" 1500000
rm -f data.out
exit 0
