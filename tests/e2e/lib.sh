# Helpers for the end-to-end tests (sourced). Each test runs in a fresh
# temporary directory; ISLAND_ROOT is the repository.
CAPTURE="$ISLAND_ROOT/bin/island-capture"
ANALYZE="$ISLAND_ROOT/bin/island-analyze"
APPS="$ISLAND_ROOT/build/tests/apps"
SCHEMA="$ISLAND_ROOT/docs/trace.xsd"

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# expect_eq WHAT GOT WANT
expect_eq() {
	[ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"
}

# The trace is well-formed XML, and valid against the schema when there
# is one.
check_trace() {
	if [ -f "$SCHEMA" ]; then
		xmllint --noout --schema "$SCHEMA" "$1" 2>xmllint.err ||
			{ head -5 xmllint.err >&2; fail "$1 does not validate"; }
	else
		xmllint --noout "$1" || fail "$1 is not well-formed XML"
	fi
}

# Replace volatile values (times, pids, tids, temp paths) by placeholders.
normalise() {
	sed -E -e 's/(start|end|dur|cpu|epoch|req|timeout)="[0-9.]+"/\1="T"/g' \
	       -e 's/(pid|ppid|tid|creator|child)="[0-9]+"/\1="N"/g' \
	       -e "s|$PWD|DIR|g"
}

# files_of TRACE: "path bytes_read bytes_written" for each file.
files_of() {
	sed -n 's|.*<file path="\([^"]*\)" opens="\([0-9]*\)" reads="[0-9]*" bytes_read="\([0-9]*\)" writes="[0-9]*" bytes_written="\([0-9]*\)".*|\1 \3 \4|p' "$1"
}
