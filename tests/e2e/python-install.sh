# The Python reader installs offline (python/pyproject.toml, setuptools,
# no index, no build isolation) into a venv (its cffi the system's) and,
# --no-deps, into a --target directory, imports from there without
# PYTHONPATH, and load()'s events carry the thread's name and the
# process's program (exe: its last exec's image), as island-analyze names
# them. The C trace library it binds is the build's (ISLAND_TRACE_LIB).
. "$ISLAND_ROOT/tests/e2e/lib.sh"
PY=/usr/bin/python3
$PY -c 'import setuptools, cffi, pandas' 2>/dev/null || { echo "setuptools, cffi or pandas not installed"; exit 77; }
export ISLAND_TRACE_LIB="$ISLAND_ROOT/lib/libisland-trace.so"
# from a copy: a build writes beside its sources
cp -r "$ISLAND_ROOT/python" pysrc
rm -rf pysrc/build pysrc/*.egg-info
$PY -m pip install -q --no-index --no-build-isolation --no-deps --target tgt ./pysrc 2> pip.err ||
	fail "pip install --target: $(grep -v WARNING pip.err)"
[ -f tgt/island/reader.py ] || fail "nothing installed in tgt"
$PY -m venv --system-site-packages venv || fail "venv"
venv/bin/pip install -q --no-index --no-build-isolation ./pysrc 2> pip2.err ||
	fail "pip install into a venv: $(grep -v WARNING pip2.err)"
where=$(cd / && "$OLDPWD/venv/bin/python" -c 'import island; print(island.__file__)')
case "$where" in
"$PWD"/venv/lib/python3*/site-packages/island/__init__.py) ;;
*) fail "the venv imports island from $where" ;;
esac

cols() {	# TRACE: pid tid thread exe api of each io, from the installed reader
	PYTHONPATH=tgt $PY -c '
import sys, island
ev = island.load(sys.argv[1])["events"]
for e in ev[ev["kind"] == "io"].itertuples():
    print(e.pid, e.tid, e.thread, e.exe, e.api)' "$1"
}
expect_eq "events: thread and exe" "$(cols "$ISLAND_ROOT/tests/traces/exec.xml")" "200 200 sh /bin/sh fork
200 200 sh /bin/sh fork
200 200 sh /bin/sh waitpid
201 201 git /bin/sh write
201 201 git /usr/lib/git-core/git execve
201 201 git /usr/lib/git-core/git write
202 202 git /usr/lib/git-core/git execve
202 202 git /usr/lib/git-core/git read"

# a real run: each process's program as island-analyze's top names it
cat > sub.py <<'PY'
import subprocess
subprocess.run(["sh", "-c", "cat /etc/hostname > /dev/null"])
PY
"$CAPTURE" -n py -o py.xml -- $PY sub.py || fail "capture"
PYTHONPATH=tgt $PY -c '
import sys, island, os
last = {}
for e in island.load(sys.argv[1])["events"].itertuples():
    last[e.pid] = os.path.basename(e.exe)
for p in sorted(last):
    print(p, last[p])' py.xml > py-exe.txt
# the fork of python3 that exec'd sh is sh, its child cat
expect_eq "programs" "$(awk '{ print $2 }' py-exe.txt | sort | tr '\n' ' ')" "cat python3.11 sh "
exit 0
