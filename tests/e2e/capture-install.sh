# After make install, island-capture finds its interposer from anywhere.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
make -s -C "$ISLAND_ROOT" install PREFIX="$PWD/prefix" >/dev/null || fail "make install failed"
mkdir elsewhere && cd elsewhere
"$PWD/../prefix/bin/island-capture" -n inst sh -c 'echo x > f' || fail "installed capture failed"
grep -q 'api="write".*path="[^"]*/elsewhere/f"' inst.xml || fail "installed capture recorded nothing"
[ -f "$PWD/../prefix/include/island.h" ] || fail "island.h not installed"
exit 0
