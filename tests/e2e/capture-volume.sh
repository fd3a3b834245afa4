# 64 threads x 50,000 writes yield exactly 3,200,000 write records (a
# 500 MB trace; at 100,000 each, xmllint took 11 of the test's 16 s).
. "$ISLAND_ROOT/tests/e2e/lib.sh"
"$CAPTURE" -n vol "$APPS/writes" 64 50000 8 || fail "writes failed"
expect_eq "threads" "$(grep -c '<thread ' vol.xml)" 65
expect_eq "write records" "$(grep -c 'api="write"' vol.xml)" 3200000
expect_eq "lost records" "$(grep -c 'lost=' vol.xml)" 0
grep -q '<trace version="1" generator="[^"]*" complete="true">' vol.xml || fail "not complete"
xmllint --stream --noout vol.xml || fail "not well-formed"
rm -f vol.xml
exit 0
