# make install into a staging DESTDIR and a PREFIX of its own: the tools
# work from there (the capture finds its interposer from anywhere), the man
# pages render, pkg-config gives island.h's flags to a program that marks
# regions, the bash completion completes, and make uninstall removes
# everything install put there.
. "$ISLAND_ROOT/tests/e2e/lib.sh"
P=/opt/island-test-$$
S="$PWD/stage"
make -s -C "$ISLAND_ROOT" install PREFIX=$P DESTDIR="$S" >/dev/null || fail "make install failed"
I="$S$P"
for f in bin/island-capture bin/island-replay bin/island-analyze lib/island/libisland-capture.so \
	include/island.h lib/pkgconfig/island.pc share/island/trace.xsd share/island/cluster.xsd \
	share/doc/island/island-analyze.md share/doc/island/README.md \
	share/man/man1/island-capture.1 share/man/man1/island-replay.1 share/man/man1/island-analyze.1 \
	share/man/man3/island.h.3 share/bash-completion/completions/island-analyze; do
	[ -f "$I/$f" ] || fail "$f not installed"
done
[ ! -e "$P" ] || fail "install wrote outside DESTDIR: $P"
# the Python reader, in the site directory of PREFIX (here, outside the
# system's: PREFIX/lib/python3.X/site-packages, for PYTHONPATH)
pyd=$(/usr/bin/python3 -c 'import sys; print("lib/python%d.%d/site-packages" % sys.version_info[:2])')
for f in __init__.py reader.py; do
	[ -f "$I/$pyd/island/$f" ] || fail "$pyd/island/$f not installed"
done
expect_eq "installed python reader" "$(cd / && ISLAND_TRACE_LIB="$I/lib/island/libisland-trace.so" PYTHONPATH="$I/$pyd" /usr/bin/python3 -c 'import island; print(island.__file__)')" \
	"$I/$pyd/island/__init__.py"

# the tools, from elsewhere
mkdir elsewhere && cd elsewhere
"$I/bin/island-capture" -n inst sh -c 'echo x > f' || fail "installed capture failed"
grep -q 'api="write".*path="[^"]*/elsewhere/f"' inst.xml || fail "installed capture recorded nothing"
xmllint --noout --schema "$I/share/island/trace.xsd" inst.xml 2>/dev/null || fail "the installed schema rejects the trace"
expect_eq "installed analyze" "$("$I/bin/island-analyze" files --csv inst.xml | grep -c '/elsewhere/f,')" 1
"$I/bin/island-replay" -q -r root inst.xml || fail "installed replay failed"
[ -f root/"$PWD"/f ] || fail "installed replay did not write f under its root"
cd ..

# man pages render, each under its name
for m in man1/island-capture.1 man1/island-replay.1 man1/island-analyze.1 man3/island.h.3; do
	n=$(basename "$m" | sed 's/\.[13]$//')
	MANWIDTH=80 man -l "$I/share/man/$m" 2>man.err > man.txt || fail "man -l $m failed"
	[ ! -s man.err ] || fail "man -l $m: $(cat man.err)"
	grep -q "^$(echo "$n" | tr a-z A-Z)(" man.txt || fail "$m: no $n header"
	grep -q '^NAME' man.txt || fail "$m: no NAME section"
done

# pkg-config: island.h's flags (the prefix inside the staging root), no
# library to link; a program marking regions builds with them and its
# regions are captured
export PKG_CONFIG_PATH="$I/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$S"
expect_eq "pkg-config --cflags" "$(pkg-config --cflags island | sed "s/ *$//")" "-I$I/include"
expect_eq "pkg-config --libs" "$(pkg-config --libs island | tr -d ' ')" ""
expect_eq "pkg-config interposer" "$(pkg-config --variable=interposer island)" "$I/lib/island/libisland-capture.so"
printf '#include <island.h>\nint main(void) { island_begin("phase"); island_end("phase"); return 0; }\n' > marks.c
cc $(pkg-config --cflags island) -o marks marks.c $(pkg-config --libs island) || fail "cc with pkg-config failed"
./marks || fail "marks failed without the capture"
"$I/bin/island-capture" -n m -o marks.xml ./marks || fail "capture of marks failed"
grep -q '<region [^>]*label="phase"' marks.xml || fail "the region of a program built with pkg-config was not captured"

# the trace library: a program of one's own reads traces as the tools do,
# plain or compressed, and gets the library's one-line error on bad input;
# nothing but the trace_* API is exported (its own die() stays its own)
expect_eq "pkg-config island-trace --cflags" "$(pkg-config --cflags island-trace | sed "s/ *$//")" "-I$I/include"
# (built with ASAN=1, the library holds sanitized code: so must the program)
san=$(ldd "$I/bin/island-capture" | grep -q libasan && echo "-fsanitize=address,undefined")
cc $san $(pkg-config --cflags island-trace) -o tracecount "$ISLAND_ROOT/tests/e2e/tracecount.c" \
	$(pkg-config --static --libs island-trace) || fail "cc against the trace library failed"
"$I/bin/island-capture" -n c -o cat.xml sh -c 'cat /etc/hostname > /dev/null' || fail "capture of cat failed"
"$I/bin/island-capture" -n c -o cat.xml.zst sh -c 'cat /etc/hostname > /dev/null' || fail "capture of cat to .zst failed"
want="nodes 1 threads $(grep -c '<thread ' cat.xml) io $(grep -c '<io ' cat.xml)"
expect_eq "tracecount cat.xml" "$(./tracecount cat.xml)" "$want"
expect_eq "tracecount cat.xml.zst" "$(./tracecount cat.xml.zst | sed 's/ io [0-9]*//')" "$(echo "$want" | sed 's/ io [0-9]*//')"
printf '<trace version="1">\n<node name="n" end="-1"/>\n</trace>\n' > bad.xml
./tracecount bad.xml 2> bad.err && fail "tracecount accepted a bad trace"
grep -q '^.*bad.xml:2: ' bad.err || fail "no FILE:LINE error: $(cat bad.err)"
expect_eq "exported" "$(nm -g --defined-only "$I/lib/libisland-trace.a" | awk 'NF == 3 && $3 !~ /^trace_/' | wc -l)" 0
# its shared object, for bindings: where pkg-config says, trace_* only,
# and Python reads the trace through it
so=$(pkg-config --variable=shared island-trace)
expect_eq "shared object" "$so" "$I/lib/island/libisland-trace.so"
expect_eq "exported by the shared object" "$(nm -D --defined-only "$so" | awk 'NF == 3 && $3 !~ /^trace_/' | wc -l)" 0
if /usr/bin/python3 -c 'import cffi' 2>/dev/null; then
	expect_eq "python over the installed library" "$(ISLAND_TRACE_LIB=$so PYTHONPATH="$ISLAND_ROOT/python" \
		/usr/bin/python3 -c 'import sys, island; print(sum(e["kind"] == "io" for e in island.events(sys.argv[1])))' cat.xml.zst)" \
		"$(grep -c '<io ' cat.xml)"
fi

# bash completion: reports, options, tables, option values
cat > comp.bash <<'EOC'
. "$1"
c() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=(); _island; echo "${COMPREPLY[*]}"; }
c island-analyze ne
c island-analyze net --ta
c island-analyze deps --table ""
c island-replay --mo
c island-replay --mode ""
c island-capture --pcap-
c island-analyze --list-columns ac
c island-analyze calls --by ""
c island-analyze sums --by ""
c island-analyze deps --from ""
c island-analyze calls --from ""
EOC
bash comp.bash "$I/share/bash-completion/completions/island-analyze" > comp.out || fail "completion failed"
printf '%s
' net --table "waits messages measures critical waited" --mode "causal think timed afap" --pcap-optional \
	access "call node thread file callsite level" "node thread" "trace net both mpi" "" > comp.want
diff -u comp.want comp.out || fail "completion differs"

# uninstall: nothing left
make -s -C "$ISLAND_ROOT" uninstall PREFIX=$P DESTDIR="$S" >/dev/null || fail "make uninstall failed"
left=$(find "$S" ! -type d)
[ -z "$left" ] || fail "uninstall left: $left"
for d in lib/island share/island share/doc/island; do
	[ ! -d "$I/$d" ] || fail "uninstall left $d"
done
exit 0
