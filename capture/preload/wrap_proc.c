/*
 * Wrappers: threads, processes and images. The capture follows every
 * thread (through a start trampoline), every fork (a new spool in the
 * child), and every exec and spawn (our variables and library are put back
 * into the child's environment, after any LD_PRELOAD the app set itself).
 */
#include <fcntl.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "preload.h"
#include "real.h"

extern char **environ;

struct tramp {
	void *(*fn)(void *);
	void *arg;
	pid_t creator;
	uint64_t made_at;        /* the pthread_create's t0 */
	int busy;                /* a pool slot in use */
};

/* Trampolines come from a pool, not malloc: a thread's first malloc or
 * free makes glibc set up an arena for it, which opens
 * /sys/devices/system/cpu/online, a descriptor the app's threads did
 * not take natively (tests/e2e/capture-fds-unchanged). */
#define TRAMPS 1024
static struct tramp tramps[TRAMPS];
static unsigned tramp_next;

static struct tramp *tramp_get(void)
{
	for (int k = 0; k < TRAMPS; k++) {
		unsigned i = __atomic_fetch_add(&tramp_next, 1, __ATOMIC_RELAXED) % TRAMPS;
		int none = 0;
		if (__atomic_compare_exchange_n(&tramps[i].busy, &none, 1, 0,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return &tramps[i];
	}
	return NULL;             /* as many threads starting at once */
}

static void tramp_put(struct tramp *tr)
{
	__atomic_store_n(&tr->busy, 0, __ATOMIC_RELEASE);
}

static void tramp_cancelled(void *unused)
{
	thread_finish(&ts, TEXIT_PTHREAD, 1);
}

static void *tramp_start(void *p)
{
	struct tramp tr = *(struct tramp *)p;
	void *ret;

	tramp_put(p);
	ts.creator = tr.creator;
	ts.made_at = tr.made_at;
	guard_on(&ts);
	if (ts.hdr) {        /* --syscalls: opened by the thread's first call */
		ts.hdr->made_at = (int64_t)tr.made_at;
		ts.hdr->creator = tr.creator;
	} else {
		ts.slot = -1;
		spool_open(&ts);
	}
	prof_drop_own(&ts);
	guard_off(&ts);
	pthread_cleanup_push(tramp_cancelled, NULL);
	ret = tr.fn(tr.arg);
	pthread_cleanup_pop(0);
	thread_finish(&ts, TEXIT_RETURN, 1);
	return ret;
}

EXPORT int pthread_create(pthread_t *th, const pthread_attr_t *attr,
			  void *(*fn)(void *), void *arg)
{
	struct tstate *t = &ts;
	struct tramp *tr;

	if (!enter_top(t))
		return REAL(pthread_create)(th, attr, fn, arg);
	tr = tramp_get();
	if (!tr) {
		leave(t);
		return REAL(pthread_create)(th, attr, fn, arg);
	}
	tr->fn = fn;
	tr->arg = arg;
	tr->creator = self_tid(t);
	/* the thread's header names this call: its record is streamed once
	 * the thread is seen, and a thread seen bounds no earlier call */
	uint64_t t0 = call_start(t);
	tr->made_at = t0;
	int r = REAL(pthread_create)(th, attr, tramp_start, tr);
	uint64_t t1 = now();
	int e = errno;
	if (r)
		tramp_put(tr);
	put(t, C_PTHREAD_CREATE, t0, t1, r, -1, 0, 0, r);
	leave(t);
	errno = e;
	return r;
}

EXPORT void pthread_exit(void *ret)
{
	if (island_on)
		thread_finish(&ts, TEXIT_PTHREAD, 1);
	REAL(pthread_exit)(ret);
	__builtin_unreachable();
}

EXPORT pid_t fork(void)
{
	struct tstate *t = &ts;

	if (!enter_top(t))
		return REAL(fork)();
	pid_t me = self_tid(t);
	uint64_t t0 = call_start(t);
	t->fork_boot = boot_ns();
	pid_t r = REAL(fork)();
	if (r == 0) {
		if (!ts.sud_forked)      /* --syscalls did it at the clone */
			fork_child(me, t0);
		ts.sud_forked = 0;
		leave(&ts);
		return 0;
	}
	uint64_t t1 = now();
	int e = errno;
	put(t, C_FORK, t0, t1, r, -1, 0, 0, r < 0 ? e : 0);
	leave(t);
	errno = e;
	return r;
}

/*
 * vfork cannot be wrapped by a C function (the child would return through
 * our frame and corrupt the parent's). vfork.S records the call here and
 * jumps to the real vfork with the caller's frame; until the parent runs
 * again, the shared thread state says "vfork pending". The child, whose
 * pid differs, names itself in the record's a1; at its first call it
 * opens a spool of its own (vforked.c, vfork_child_open) and records as a
 * fork's child does. Where it cannot (--profile, --callsites, no
 * space), it counts the calls a wrapper saw it make (its dup2s, its
 * exec) in a2: the trace says they are missing.
 */
__attribute__((visibility("hidden"))) void *island_vfork_prepare(void)
{
	struct tstate *t = &ts;

	real_resolve();
	if (!t->vpid && enter_top(t)) {	/* (not a vfork child's own vfork) */
		uint64_t t0 = call_start(t);
		struct rec *r = rec_reserve(t, sizeof(*r));
		t->fork_boot = boot_ns();
		if (r) {
			rec_fill(r, C_VFORK, t0, t0, -2, -1, 0, 0, 0);
			rec_close(t, r, sizeof(*r));
		}
		t->kcalls = 0;
		if (t->hdr) {
			t->vfork_rec = r;
			t->hold |= HOLD_VFORK;
		}
		leave(t);
	}
	return (void *)real_vfork;
}

/* At _exit: a vfork child that cannot record, its _exit counted too;
 * one that can (even if this is its first call) ends as a process does
 * (process_finish: its spool alone) */
static int in_vfork_child(void)
{
	pid_t pid = vfork_child(&ts);

	if (!pid || vfork_child_open(&ts, pid))
		return 0;
	vfork_child_call(&ts, pid, 1);
	return 1;
}

/* The status the process ends with, in this thread's header (a vfork
 * child's own, when it records) */
static void exit_status(int status)
{
	struct tstate *t = &ts;
	pid_t v = vfork_state(t);

	if (t->hdr && !(t->hold & HOLD_OFF) && (!v || t->vpid == v))
		t->hdr->status = (status & 0xff) + 1;
}

/* exit's status, as on_exit hands it over: main's return too (libc's
 * own call of exit, which no wrapper sees), no frame of ours in the
 * program's stacks (a main of ours around its main was, in every
 * profile). Registered by the constructor, before the program's own
 * handlers, so run after them. */
static void exited(int status, void *arg)
{
	(void)arg;
	if (island_on)
		exit_status(status);
}

void exit_watch(void)
{
	on_exit(exited, NULL);
}

EXPORT void _exit(int status)
{
	if (island_on && !in_vfork_child()) {
		exit_status(status);
		guard_on(&ts);
		process_finish(TEXIT_PROCESS);
	}
	REAL(_exit)(status);
	__builtin_unreachable();
}

EXPORT void _Exit(int status)
{
	if (island_on && !in_vfork_child()) {
		exit_status(status);
		guard_on(&ts);
		process_finish(TEXIT_PROCESS);
	}
	REAL(_Exit)(status);
	__builtin_unreachable();
}

static size_t env_count(char *const *envp)
{
	size_t n = 0;

	while (envp && envp[n])
		n++;
	return n;
}

enum exec_how { EXEC_PATH, EXEC_SEARCH, EXEC_FD, EXEC_AT };

/* entry put last in arr, in the room env_fix left there */
static void env_append(char **arr, char *entry)
{
	size_t k = 0;

	while (arr[k])
		k++;
	arr[k] = entry;
	arr[k + 1] = NULL;
}

/* NAME=A:B:PATH in buf, put last in arr (the room env_fix left there):
 * what a child's image is told of the call that made it (init.c's
 * told_image); false when it does not fit */
static bool env_tell(char **arr, char *buf, size_t len, const char *name,
		     unsigned long a, unsigned long b, const char *path)
{
	size_t nl = strlen(name), pl = path ? strlen(path) : 0;

	if (!pl || nl + 1 + 2 * 21 + pl + 1 > len)
		return false;
	memcpy(buf, name, nl);
	buf[nl] = '=';
	char *p = utoa(buf + nl + 1, a);
	*p++ = ':';
	p = utoa(p, b);
	*p++ = ':';
	memcpy(p, path, pl + 1);
	env_append(arr, buf);
	return true;
}

/* A vfork child whose exec is its first call: rather than open a spool
 * for it, its image is told, in ENV_VFORKED, when the vfork was and the
 * exec is, and what it execs, for the child's record to start with them;
 * in the room env_fix left in arr: true. Else (a path too long, an
 * environment env_fix left as it was) false. */
static bool vfork_exec(struct tstate *t, pid_t pid, char **env, char **arr,
		       char *vf, size_t vflen, const char *path)
{
	struct rec *v = t->vfork_rec;

	vfork_child_call(t, pid, 0);
	return v && env == arr &&
	       env_tell(arr, vf, vflen, ENV_VFORKED, (unsigned long)v->t0,
			(unsigned long)now(), path);
}

/* The file execvp runs for a name without a '/': the first of PATH's
 * directories (glibc's default when it is unset) to hold an executable
 * file of that name, which the exec's record names (read as relative to
 * the cwd, the name alone was another file); the name when none does. */
static const char *exec_search(const char *name, char *buf, size_t len)
{
	const char *p = getenv("PATH");
	size_t nl = name ? strlen(name) : 0;
	struct stat st;

	if (!nl || strchr(name, '/'))
		return name;
	for (p = p ? p : "/bin:/usr/bin";; p++) {
		const char *e = strchrnul(p, ':');
		size_t dl = (size_t)(e - p);

		if (dl && dl + 1 + nl < len) {	/* (an empty entry: the cwd) */
			memcpy(buf, p, dl);
			buf[dl] = '/';
			memcpy(buf + dl + 1, name, nl + 1);
			if (syscall(SYS_newfstatat, AT_FDCWD, buf, &st, 0) == 0 &&
			    S_ISREG(st.st_mode) &&
			    syscall(SYS_faccessat, AT_FDCWD, buf, X_OK) == 0)
				return buf;
		}
		if (!*e)
			return name;
		p = e;
	}
}

/* Every exec goes through here: record it, end this image's threads,
 * replace the image with our environment; if that fails, carry on.
 * EXEC_AT: execveat(fd, path, argv, envp, atflags), by its system call. */
static int exec_real(enum exec_how how, int fd, const char *path,
		     char *const argv[], char *const envp[], int atflags)
{
	if (how == EXEC_FD)
		return REAL(fexecve)(fd, argv, envp);
	if (how == EXEC_AT)
		return (int)REAL(syscall)(SYS_execveat, fd, path, argv, envp, atflags, 0);
	if (how == EXEC_SEARCH)
		return REAL(execvpe)(path, argv, envp);
	return REAL(execve)(path, argv, envp);
}

static int exec_with(enum exec_how how, int fd, const char *path,
		     char *const argv[], char *const envp[], int atflags);

/* Pointers to nowhere (appmem.c; -1: not known to be good) make the exec
 * fail as it would, untouched: reading them (the path recorded, the
 * environment fixed) would fault instead */
static int do_exec_at(enum exec_how how, int fd, const char *path,
		      char *const argv[], char *const envp[], int atflags)
{
	if (island_on && ((how != EXEC_FD && !app_str_ok(path, -1)) ||
			  (envp && !app_mem_ok(envp, sizeof(*envp), -1)) ||
			  (argv && !app_mem_ok(argv, sizeof(*argv), -1)))) {
		struct tstate *t = &ts;
		int rec = !vfork_child(t) && enter_top(t);
		uint64_t t0 = rec ? call_start(t) : 0;
		int ret = exec_real(how, fd, path, argv, envp, atflags), e = errno;

		if (rec) {	/* it failed (EFAULT): recorded, with no path */
			put_str(t, C_EXECVE, t0, now(), ret, fd, 0, AT_FDCWD, e, NULL, NULL);
			leave(t);
		}
		errno = e;
		return ret;
	}
	return exec_with(how, fd, path, argv, envp, atflags);
}

/* An exec's arguments for its record (args_add, procinfo.c). Each pointer
 * is tried first (appmem.c): the kernel refuses a bad one with EFAULT,
 * the capture must not fault on it. */
static void exec_args(char *out, char *const argv[])
{
	size_t n = 0;

	out[0] = 0;
	for (int i = 0; argv; i++)
		if (!app_mem_ok(&argv[i], sizeof(argv[i]), -1) || !argv[i] ||
		    !app_str_ok(argv[i], -1) || !args_add(out, &n, argv[i], i == 0))
			break;
}

static int exec_with(enum exec_how how, int fd, const char *path,
		     char *const argv[], char *const envp[], int atflags)
{
	size_t n = env_count(envp) + 16;
	char *arr[n], buf[8192], *bp = buf, vf[sizeof(ENV_VFORKED) + 64 + 4096];
	char *const *env = env_fix(envp, &bp, sizeof(buf), arr, n - 1);
	struct tstate *t = &ts;
	struct rec *r = NULL;
	pid_t vchild = island_on ? vfork_child(t) : 0;
	bool told = false;
	int ret, e;
	char found[4096];
	const char *file = how == EXEC_SEARCH && island_on ?
			   exec_search(path, found, sizeof(found)) : path;

	/* a vfork child that records: its exec is its own record, as a
	 * fork's child's is */
	if (vchild && t->vpid && vfork_child_open(t, vchild))
		vchild = 0;
	if (!island_on)
		env = envp;
	if (vchild && (how == EXEC_PATH || how == EXEC_SEARCH))
		told = vfork_exec(t, vchild, (char **)env, arr, vf, sizeof(vf), file);
	if (vchild && !told && vfork_child_open(t, vchild))
		vchild = 0;	/* records from its exec on */
	else if (vchild && !told)
		vfork_child_call(t, vchild, 1);
	uint64_t tx = told ? now() : 0;
	char args[ARGS_MAX];

	exec_args(args, argv);
	if (!vchild && enter_top(t)) {
		uint64_t t0 = call_start(t);
		r = put_str(t, C_EXECVE, t0, t0, 0, fd, 0, AT_FDCWD, 0,
			    file ? file : "", args);
		process_finish(TEXIT_EXEC);
	}
	ret = exec_real(how, fd, path, argv, env, atflags);
	e = errno;
	/* it failed: the child records from here on, this exec first (or,
	 * where it cannot, enter counts it) */
	if (told && enter_top(t)) {
		put_str(t, C_EXECVE, tx, now(), ret, fd, 0, AT_FDCWD, e, file ? file : "", args);
		leave(t);
	}
	if (r) {
		process_unfinish();
		r->t1 = now();
		r->ret = ret;
		r->err = e;
		leave(t);
	}
	errno = e;
	return ret;
}

static int do_exec(enum exec_how how, int fd, const char *path,
		   char *const argv[], char *const envp[])
{
	return do_exec_at(how, fd, path, argv, envp, 0);
}

/* syscall(SYS_execve or SYS_execveat, ...) (wrap_map.c): followed as the
 * libc calls are, the environment fixed the same way. */
long exec_by_syscall(long nr, const long *a)
{
	if (nr == SYS_execve)
		return do_exec(EXEC_PATH, -1, (const char *)a[0], (char *const *)a[1],
			       (char *const *)a[2]);
	return do_exec_at(EXEC_AT, (int)a[0], (const char *)a[1], (char *const *)a[2],
			  (char *const *)a[3], (int)a[4]);
}

EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	return do_exec(EXEC_PATH, -1, path, argv, envp);
}

EXPORT int execv(const char *path, char *const argv[])
{
	return do_exec(EXEC_PATH, -1, path, argv, environ);
}

EXPORT int execvp(const char *file, char *const argv[])
{
	return do_exec(EXEC_SEARCH, -1, file, argv, environ);
}

EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	return do_exec(EXEC_SEARCH, -1, file, argv, envp);
}

EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	return do_exec(EXEC_FD, fd, NULL, argv, envp);
}

/* execl*: gather the variable arguments into an argv. */
#define GATHER(arg0, argv, envp_out, with_env)                             \
	va_list ap;                                                        \
	size_t argc = 1;                                                   \
	va_start(ap, arg0);                                                \
	while (va_arg(ap, char *))                                         \
		argc++;                                                    \
	va_end(ap);                                                        \
	char *argv[argc + 1];                                              \
	char *const *envp_out = environ;                                   \
	argv[0] = (char *)arg0;                                            \
	va_start(ap, arg0);                                                \
	for (size_t i = 1; i <= argc; i++)                                 \
		argv[i] = va_arg(ap, char *);                              \
	if (with_env)                                                      \
		envp_out = va_arg(ap, char *const *);                      \
	va_end(ap)

EXPORT int execl(const char *path, const char *arg0, ...)
{
	GATHER(arg0, argv, envp, 0);
	return do_exec(EXEC_PATH, -1, path, argv, envp);
}

EXPORT int execlp(const char *file, const char *arg0, ...)
{
	GATHER(arg0, argv, envp, 0);
	return do_exec(EXEC_SEARCH, -1, file, argv, envp);
}

EXPORT int execle(const char *path, const char *arg0, ...)
{
	GATHER(arg0, argv, envp, 1);
	return do_exec(EXEC_PATH, -1, path, argv, envp);
}

static int spawn(int search, pid_t *pid, const char *path,
		 const posix_spawn_file_actions_t *fa,
		 const posix_spawnattr_t *at, char *const argv[],
		 char *const envp[])
{
	size_t n = env_count(envp) + 17;
	char *arr[n], buf[8192], *bp = buf, sp[sizeof(ENV_SPAWNED) + 64 + 4096];
	char acts[8192], found[4096];
	char *const *env = env_fix(envp, &bp, sizeof(buf), arr, n - 2);
	struct tstate *t = &ts;
	pid_t child = 0;
	int r, untold = fa ? fa->__used : 0;
	/* posix_spawnp's file: as execvp's (a chdir action first would
	 * search from its directory, which is left to the name alone) */
	const char *file = search && island_on ? exec_search(path, found, sizeof(found)) : path;

	if (!pid)
		pid = &child;
	if (!enter_top(t))
		return search ? REAL(posix_spawnp)(pid, path, fa, at, argv, env)
			      : REAL(posix_spawn)(pid, path, fa, at, argv, env);
	uint64_t t0 = call_start(t);
	/* the child's image told when it was made and what it execs: its
	 * record starts at this call, with its exec (told_image) */
	if (env == arr &&
	    env_tell(arr, sp, sizeof(sp), ENV_SPAWNED,
		     (unsigned long)raw_syscall(SYS_getpid, 0, 0, 0, 0, 0, 0),
		     (unsigned long)t0, file) &&
	    untold && spawn_acts_tell(fa, acts, sizeof(acts))) {
		env_append(arr, acts);
		untold = 0;
	}
	r = search ? REAL(posix_spawnp)(pid, path, fa, at, argv, env)
		   : REAL(posix_spawn)(pid, path, fa, at, argv, env);
	uint64_t t1 = now();
	int e = errno;
	/* its file actions (dup2, close, open in the child before its exec)
	 * not told to its image: counted here */
	put_str(t, C_POSIX_SPAWN, t0, t1, r, -1, r ? 0 : *pid, untold, r, file, NULL);
	leave(t);
	errno = e;
	return r;
}

EXPORT int posix_spawn(pid_t *pid, const char *path,
		       const posix_spawn_file_actions_t *fa,
		       const posix_spawnattr_t *at, char *const argv[],
		       char *const envp[])
{
	return spawn(0, pid, path, fa, at, argv, envp);
}

EXPORT int posix_spawnp(pid_t *pid, const char *file,
			const posix_spawn_file_actions_t *fa,
			const posix_spawnattr_t *at, char *const argv[],
			char *const envp[])
{
	return spawn(1, pid, file, fa, at, argv, envp);
}

/* A thread cancelled in system or popen (cancellation points) leaves
 * them too */
static void spawn_env_cancelled(void *unused)
{
	spawn_env_leave();
}

/* system() spawns /bin/sh with environ: our variables are in it for the
 * duration of the call (envpass.c, spawn_env_enter). */
EXPORT int system(const char *cmd)
{
	struct tstate *t = &ts;
	int r, rec = enter_top(t);
	uint64_t t0 = rec ? wait_start(t) : now();

	/* the shell's header names this call, when it is alone */
	spawn_env_enter(rec ? self_tid(t) : 0, t0);
	pthread_cleanup_push(spawn_env_cancelled, NULL);
	r = REAL(system)(cmd);
	pthread_cleanup_pop(0);
	uint64_t t1 = rec ? wait_end(t) : now();
	int e = errno;
	spawn_env_leave();
	if (rec) {
		put_str(t, C_SYSTEM, t0, t1, r, -1, r, 0, r == -1 ? e : 0,
			cmd ? cmd : "", NULL);
		leave(t);
	}
	errno = e;
	return r;
}

/* popen() spawns /bin/sh with environ through libc's internal spawn,
 * which no wrapper sees: our variables go back in for the call (the
 * interposer took them out of environ, envpass.c env_hide; spawn_env_enter),
 * TID and T0 naming the call for the shell. The popen wrapper
 * (wrap_stream.c) calls this for the real one. */
FILE *popen_with_env(const char *cmd, const char *mode, pid_t tid, uint64_t t0)
{
	FILE *f;

	spawn_env_enter(tid, t0);
	pthread_cleanup_push(spawn_env_cancelled, NULL);
	f = REAL(popen)(cmd, mode);
	pthread_cleanup_pop(0);
	int e = errno;
	spawn_env_leave();
	errno = e;
	return f;
}

/* prctl: a1 the option, a2 its first argument (a signal, a flag; the
 * name of PR_SET_NAME is a pointer, not kept) */
EXPORT int prctl(int option, ...)
{
	va_list ap;
	va_start(ap, option);
	unsigned long a2 = va_arg(ap, unsigned long), a3 = va_arg(ap, unsigned long),
		      a4 = va_arg(ap, unsigned long), a5 = va_arg(ap, unsigned long);
	va_end(ap);
	TRACE_CALL(C_PRCTL, int, REAL(prctl)(option, a2, a3, a4, a5), -1, option,
		   option == PR_SET_NAME || option == PR_GET_NAME ? 0 : (int64_t)a2);
}
