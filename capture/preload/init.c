/*
 * The interposer's constructor and destructor: what a new image finds in
 * its environment (a capture running, its options) sets up every part,
 * and its first thread's spool opens with the process's record.
 */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/syscall.h>

#include "preload.h"
#include "real.h"

#ifndef ISLAND_LOADER
#define CONSTRUCTOR __attribute__((constructor))
#else
#define CONSTRUCTOR
void real_resolve(void) {}
#endif

/* A thread's first spool: its slot in the session's table, its
 * profile, and (an image's first thread) the modules its stacks fall in */
static void spool_opened(struct tstate *t)
{
	sess_thread_start(t);
	if (unlikely(prof != NULL)) {
		prof_thread_start(t);
		if (t->slot == 0 || !t->creator)	/* an image's first thread */
			sites_describe_all(t);
	}
}

/* The thread of our parent that made us (its task's children file lists
 * us), 0 when none says so: a shell of system or popen while threads
 * were in such calls at once, matched to the call of that thread under
 * way when it started. */
static pid_t parent_thread(void)
{
	char dbuf[4096], path[96], kids[4096];
	long ppid = SYS(SYS_getppid, 0, 0, 0, 0), me = SYS(SYS_getpid, 0, 0, 0, 0);
	long dfd, n;
	pid_t found = 0;
	char *p;

	memcpy(path, "/proc/", 6);
	p = utoa(path + 6, (unsigned long)ppid);
	memcpy(p, "/task", 6);
	dfd = SYS(SYS_openat, AT_FDCWD, (long)path, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
	if (dfd < 0)
		return 0;
	while (!found && (n = SYS(SYS_getdents64, dfd, (long)dbuf, sizeof(dbuf), 0)) > 0) {
		for (long off = 0; !found && off < n;) {
			struct dirent64 *d = (struct dirent64 *)(dbuf + off);
			off += d->d_reclen;
			if (d->d_name[0] < '0' || d->d_name[0] > '9')
				continue;
			char *q = p + 5;
			*q++ = '/';
			q = utoa(q, (unsigned long)udec(d->d_name));
			memcpy(q, "/children", 10);
			long got = read_small(path, kids, sizeof(kids) - 1);
			if (got <= 0)
				continue;
			kids[got] = 0;
			for (char *k = kids; *k;) {
				if ((long)udec(k) == me)
					found = (pid_t)udec(d->d_name);
				while (*k && *k != ' ')
					k++;
				while (*k == ' ')
					k++;
			}
		}
	}
	SYS(SYS_close, dfd, 0, 0, 0);
	return found;
}

/* The image a call made that the child could not record itself (told
 * A:B:PATH by wrap_proc.c's env_tell): a vfork child's exec (ENV_VFORKED:
 * T0 the vfork, T1 the exec), on its parent's thread state until then; a
 * posix_spawn's child (ENV_SPAWNED: PPID ours, T0 the call), libc's own
 * clone and exec, the exec when this image started, all it knows. Its
 * process starts at the call, with its exec, as a fork's child's does;
 * --syscalls: the kernel's exec too, which was made (levels.c). 0 when
 * what it was told does not hold. */
static int told_image(struct tstate *t, const char *v, int vforked)
{
	const char *c1 = strchr(v, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
	uint64_t a = udec(v), b = c1 ? udec(c1 + 1) : 0, start = (uint64_t)t->hdr->start;
	uint64_t made = vforked ? a : b, at = vforked ? b : start;

	if (!c2 || !made || at < made || at > start ||
	    (!vforked && (long)a != SYS(SYS_getppid, 0, 0, 0, 0)))
		return 0;
	t->hdr->start = (int64_t)made;
	/* its arguments: the image's own, as the kernel gave them */
	char cmd[ARGS_MAX], args[ARGS_MAX];
	long cl = record_proc(t, ORIGIN_EXEC, 0, made, cmd, sizeof(cmd) - 1);
	size_t an = 0;

	if (!vforked)	/* its file actions, libc's in the child */
		spawn_acts_record(t, getenv(ENV_SPAWN_ACTS), at);

	args[0] = 0;
	cmd[cl > 0 ? cl : 0] = 0;
	for (long i = 0; i < cl && args_add(args, &an, cmd + i, i == 0); i += (long)strlen(cmd + i) + 1)
		;
	struct rec *r = put_str(t, C_EXECVE, at, at, 0, -1, 0, AT_FDCWD, 0, c2 + 1, args);
	if (r && getenv(ENV_SYSCALLS))
		r->seq |= SEQ_JOINED | ((uint64_t)SYS_execve << 48);
	return 1;
}

CONSTRUCTOR void island_init(void)
{
	const char *dir = getenv(ENV_SPOOL);
	const char *clk = getenv(ENV_CLOCK);
	int e = errno;

	real_resolve();
	/* started by island-loader, whose handler recorded the dynamic
	 * loader's calls so far: our own calls from here on are not the
	 * application's, so dispatch is ours first, and off until sud_init
	 * (sud.c) */
	const char *loaded = getenv(ENV_LOADED);
	int handoff = getenv(ENV_SYSCALLS) && loaded;
	if (handoff) {
		/* the program's file, kept: env_hide wipes the variable */
		static char exe[4096];
		sud_take_over();
		if (strlen(loaded) < sizeof(exe) && loaded[0] == '/') {
			strcpy(exe, loaded);
			island_exe = exe;
		}
	}
	if (!dir || dir[0] != '/' || spool_set_dir(dir) < 0)
		return;
	spool_calls = (struct spool_calls){ spool_opened, kpend_flush };
#if defined(__x86_64__) || defined(__i386__)
	clock_kind = clk && !strcmp(clk, "tsc") ? CLOCK_KIND_TSC : CLOCK_KIND_MONO;
#else
	clock_kind = CLOCK_KIND_MONO;
#endif
	if (getenv(ENV_LIMITS))
		limits_init(dir);
	{
		char cs[PATH_MAX];
		size_t dl = strlen(dir);

		memcpy(cs, dir, dl);
		memcpy(cs + dl, "/" CALLSITES_FILE, sizeof(CALLSITES_FILE) + 1);
		if (raw_syscall(SYS_faccessat, AT_FDCWD, (long)cs, F_OK, 0, 0, 0) == 0)
			rec_extras |= EXTRA_SITES;
	}
	prof_init(dir, strlen(dir));
	spool_attach();
	/* exec'd by a captured process of the same pid (env_fix) */
	const char *img = getenv(ENV_IMAGE);
	pid_t me = (pid_t)SYS(SYS_getpid, 0, 0, 0, 0);
	int execd = img && (pid_t)udec(img) == me;
	if (execd && strchr(img, ':') && udec(strchr(img, ':') + 1))
		spool_pstart_is(me, udec(strchr(img, ':') + 1));
	if (getenv(ENV_SESSION) && getenv(ENV_SESSION_NODE))
		sess_init(getenv(ENV_SESSION), (int)udec(getenv(ENV_SESSION_NODE)));
	priv_init();
	env_keep(dir, priv_share());
	island_on = 1;

	struct tstate *t = &ts;
	t->slot = -1;
	guard_on(t);
	/* a system or popen call's shell: which call made it */
	const char *by = getenv(ENV_MADE_BY);
	if (by && !execd && by[0] == '?') {
		/* spawned while others were: which thread, not which call */
		t->made_by = parent_thread();
		t->made_at = 0;
	} else if (by && !execd) {
		const char *c = strchr(by, ':');
		t->made_by = (pid_t)udec(by);
		t->made_at = c ? udec(c + 1) : 0;
		if (!c || !t->made_by || !t->made_at)
			t->made_by = 0, t->made_at = 0;
	}
	const char *told = getenv(execd ? ENV_VFORKED : ENV_SPAWNED);
	if (spool_open(t) == 0) {
		if (!told || !told_image(t, told, execd))
			record_proc(t, execd && !handoff ? ORIGIN_EXEC : ORIGIN_NEW, 0,
				    (uint64_t)t->hdr->start, NULL, 0);
		record_fds(t);
	}
	prof_drop_own(t);
	guard_off(t);
	if (getenv(ENV_SYSCALLS))
		sud_init();
#ifndef ISLAND_LOADER
	env_hide();
	exit_watch();
#endif
	errno = e;
}

#ifndef ISLAND_LOADER
__attribute__((destructor)) static void island_fini(void)
{
	if (!island_on)
		return;
	guard_on(&ts);
	process_finish(TEXIT_PROCESS);
}
#endif
