# 64 threads x 100,000 writes yield exactly 6,400,000 write records.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
"$CAPTURE" -n vol "$APPS/writes" 64 100000 8 || fail "writes failed"
expect_eq "threads" "$(grep -c '<thread ' vol.xml)" 65
expect_eq "write records" "$(grep -c 'api="write"' vol.xml)" 6400000
expect_eq "lost records" "$(grep -c 'lost=' vol.xml)" 0
grep -q '<trace version="1" generator="[^"]*" complete="true">' vol.xml || fail "not complete"
xmllint --stream --noout vol.xml || fail "not well-formed"
rm -f vol.xml
exit 0
