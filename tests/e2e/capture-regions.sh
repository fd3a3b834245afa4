# island.h regions: nested, with ids, parents and depths; a mismatched end
# and an unclosed region are recorded as errors and reported on stderr.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
out=$("$APPS/regions") || fail "regions without the capture failed"
expect_eq "without capture" "$out" "regions done"
out=$("$CAPTURE" -n rg "$APPS/regions" 2>err) || fail "regions under capture failed"
expect_eq "under capture" "$out" "regions done"
check_trace rg.xml
got=$(grep '<region' rg.xml | normalise)
want='      <region id="2" parent="1" depth="2" label="inner" start="T" end="T"/>
      <region id="3" parent="1" depth="2" label="inner" start="T" end="T"/>
      <region id="4" parent="1" depth="2" label="inner" start="T" end="T"/>
      <region id="5" parent="1" depth="2" label="second" start="T" end="T" error="mismatch"/>
      <region id="1" parent="0" depth="1" label="outer" start="T" end="T"/>
      <region id="6" parent="0" depth="1" label="left open" start="T" end="T" error="unclosed"/>'
expect_eq "regions" "$got" "$want"
got=$(sed -E 's/pid [0-9]+ tid [0-9]+/pid N tid N/; s/at [0-9.]+ s/at T s/' err)
want='island-capture: rg: pid N tid N: island_end("wrong-name") at T s does not match the open region "second"
island-capture: rg: pid N tid N: region "left open" still open at the thread'"'"'s end'
expect_eq "stderr" "$got" "$want"
# the regions program also links and runs when built without PIE
cc -no-pie -O2 -I"$ISLAND_ROOT/include" -o regions-nopie "$ISLAND_ROOT/tests/apps/regions.c"
expect_eq "no-pie without capture" "$(./regions-nopie)" "regions done"
"$CAPTURE" -n np ./regions-nopie >/dev/null 2>&1
expect_eq "no-pie regions" "$(grep -c '<region' np.xml)" 6
exit 0
