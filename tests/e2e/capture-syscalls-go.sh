# island-capture --syscalls on a Go program: static, no libc, a runtime
# that makes its own system calls from the threads it clones and handles
# its own signals on the signal stack it gives each thread (sigaltstack).
# tests/apps/go/gowrite.go writes four files from four goroutines and
# prints its own truth; 10 captures must each run as natively and have
# `island-analyze files` equal that truth. Before the signal stacks were
# kept (sud.c: SYS_sigaltstack), 5 to 7 runs in 10 crashed or hung.
. "$ISLAND_ROOT/tests/e2e/lib.sh"

command -v go >/dev/null || { echo "no Go compiler (Debian golang-go): skipped"; exit 77; }
export GOCACHE="$PWD/gocache" GOPATH="$PWD/gopath" GOFLAGS=-mod=mod GO111MODULE=off
go build -o gowrite "$ISLAND_ROOT/tests/apps/go/gowrite.go" 2>build.err || fail "go build: $(cat build.err)"
for i in 1 2 3 4 5 6 7 8 9 10; do
	rm -rf d && mkdir d
	rc=0
	timeout -s KILL 60 "$CAPTURE" --syscalls -o t$i.xml -- ./gowrite "$PWD/d" > truth.txt 2> err$i.txt < /dev/null || rc=$?
	expect_eq "run $i: status ($(head -3 err$i.txt | tr '\n' ' '))" $rc 0
	expect_eq "run $i: its files" \
		"$("$ANALYZE" files --csv t$i.xml | awk -F, -v d="$PWD/d/" 'index($2, d) == 1 { print $2, $8 }' | sort)" \
		"$(sort truth.txt)"
	rm -f t$i.xml
done
expect_eq "the truth" "$(sort truth.txt)" "$PWD/d/g0.dat 10000
$PWD/d/g1.dat 20000
$PWD/d/g2.dat 30000
$PWD/d/g3.dat 40000"
echo ok
