# One command-line convention for the three tools: an unknown option or a
# missing argument is one line on stderr naming it, with "try --help",
# nothing on stdout, exit 2; --help goes to stdout, exit 0; --version
# prints "TOOL VERSION", exit 0.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
version=$(sed -n 's/^VERSION *:= *//p' "$ISLAND_ROOT/GNUmakefile")
# bad TOOL 'expected stderr' ARGS...
bad() {
	tool=$1 want=$2
	shift 2
	rc=0
	"$ISLAND_ROOT/bin/$tool" "$@" > out 2> err < /dev/null || rc=$?
	expect_eq "$tool $*: status" "$rc" 2
	expect_eq "$tool $*: stderr" "$(cat err)" "$want"
	[ ! -s out ] || fail "$tool $*: wrote on stdout: $(cat out)"
}
for tool in island-capture island-replay island-analyze; do
	bad $tool "$tool: unknown option '--bogus' (try --help)" --bogus x
	bad $tool "$tool: unknown option '--bogus' (try --help)" --bogus=3 x
	bad $tool "$tool: unknown option '-x' (try --help)" -x y
	bad $tool "$tool: option '-o' needs an argument (try --help)" -o
	rc=0; "$ISLAND_ROOT/bin/$tool" --help > out 2> err || rc=$?
	expect_eq "$tool --help: status" "$rc" 0
	[ ! -s err ] || fail "$tool --help wrote on stderr"
	grep -q "^usage: $tool " out || fail "$tool --help: no usage line on stdout"
	rc=0; "$ISLAND_ROOT/bin/$tool" --version > out 2> err || rc=$?
	expect_eq "$tool --version: status" "$rc" 0
	expect_eq "$tool --version" "$(cat out)" "$tool $version"
done
# the option after the report, and a long option's missing argument
bad island-analyze "island-analyze: unknown option '--bogus' (try --help)" sums --bogus x
bad island-analyze "island-analyze: option '--table' needs an argument (try --help)" net --table
bad island-capture "island-capture: option '--node' needs an argument (try --help)" --node
bad island-replay "island-replay: option '--mode' needs an argument (try --help)" --mode
bad island-replay "island-replay: no trace given (try --help)"
bad island-capture "island-capture: no program to run (try --help)"
bad island-analyze "island-analyze: no report given (try --help)"
exit 0
