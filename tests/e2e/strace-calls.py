"""strace-calls.py ISLAND.csv STRACE.txt: island-analyze calls' count and
errors per call against what `strace -f -y -qq -o STRACE.txt` saw of the
same program (tests/e2e/analyze-calls.sh). Exit 1 with the differences.

Island records calls at libc level, strace sees system calls; MAP says
which system call each Island call is (a libc function that makes one
system call counts as it). Counts and errors of every system call in
MAP's values must be equal. Everything else is listed, never skipped
silently:
  - strace lines of the dynamic loader and of libraries' constructors
    (ld.so.cache, *.so, libselinux's probes of /proc/filesystems,
    /sys/fs/selinux, /etc/selinux): they run inside libc or before the
    interposer, which cannot see them (docs/trace-format.md, "What is not
    seen");
  - STRACE_ONLY: system calls Island does not record, or records only when
    the program calls them (libc makes them itself: malloc's mmap/brk,
    readdir's getdents64, start-up and exit, isatty's ioctl): Island's own
    count of one (cp's ioctl) is not compared either;
  - ISLAND_ONLY: libc calls that need not make a system call (fflush of an
    empty buffer);
an unlisted call on either side fails the comparison.
"""
import re
import sys

MAP = {
    "open": "openat", "openat": "openat", "fopen": "openat", "opendir": "openat",
    "creat": "creat",
    "close": "close", "fclose": "close", "closedir": "close",
    "stat": "newfstatat", "lstat": "newfstatat", "fstat": "newfstatat",
    "fstatat": "newfstatat",
    "read": "read", "write": "write", "pread": "pread64", "pwrite": "pwrite64",
    "lseek": "lseek", "fcntl": "fcntl", "dup2": "dup2", "ftruncate": "ftruncate",
    "copy_file_range": "copy_file_range",
    "wait": "wait4", "wait3": "wait4", "waitpid": "wait4", "wait4": "wait4",
}
# libc calls that make several system calls (glibc 2.3x): fdopendir checks
# the descriptor (fstat, F_GETFL) and sets close-on-exec (F_SETFD)
MULTI = {"fdopendir": ["newfstatat", "fcntl", "fcntl"]}
STRACE_ONLY = {
    "execve", "exit_group", "brk", "mmap", "mprotect", "munmap", "arch_prctl",
    "set_tid_address", "set_robust_list", "rseq", "prlimit64", "rt_sigaction",
    "rt_sigprocmask", "getrandom", "getdents64", "fadvise64", "ioctl", "geteuid",
    "getuid", "getgid", "getegid", "sysinfo", "sched_getaffinity", "futex",
}
ISLAND_ONLY = {"fflush"}
HIDDEN = re.compile(r'ld\.so\.(cache|preload)|\.so(\.[0-9]+)*[>"]|/proc/filesystems|'
                    r'/sys/fs/selinux|"/selinux"|/etc/selinux/')

island_csv, strace_txt = sys.argv[1], sys.argv[2]
bad = []
want = {}                       # system call -> [count, errors], from Island
for n, line in enumerate(open(island_csv)):
    f = line.rstrip("\n").split(",")
    if n == 0:
        assert f[:3] == ["call", "count", "errors"], f
        continue
    call, count, errors = f[0], int(f[1]), int(f[2])
    if call in MAP:
        w = want.setdefault(MAP[call], [0, 0])
        w[0] += count
        w[1] += errors
    elif call in MULTI:
        for s in MULTI[call]:
            want.setdefault(s, [0, 0])[0] += count
    elif call not in ISLAND_ONLY and call not in STRACE_ONLY:
        bad.append("island: %s: no mapping to a system call" % call)

got = {}
hidden = 0
for line in open(strace_txt):
    m = re.match(r"\d+ +([a-z_0-9]+)\(", line)
    if not m:                   # signals, exits, "<... resumed>"
        continue
    if HIDDEN.search(line):
        hidden += 1
        continue
    name = m.group(1)
    g = got.setdefault(name, [0, 0])
    g[0] += 1
    g[1] += re.search(r"\) += -1 E[A-Z]+", line) is not None
for name in sorted(got):
    if name not in want and name not in STRACE_ONLY:
        bad.append("strace: %s x%d: neither compared nor listed" % (name, got[name][0]))
for name in sorted(want):
    g = got.get(name, [0, 0])
    if g != want[name]:
        bad.append("%s: island %d calls, %d errors; strace %d calls, %d errors"
                   % (name, want[name][0], want[name][1], g[0], g[1]))
print("compared: %s; strace lines of the loader and constructors: %d" %
      (" ".join("%s=%d/%d" % (k, v[0], v[1]) for k, v in sorted(want.items())), hidden))
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
