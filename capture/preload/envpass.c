/*
 * The variables island-capture passes to every image of the app: kept
 * by the constructor, hidden from the app, put back in the environment
 * of every image it execs or spawns (system, popen).
 */
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "preload.h"

static int sud_wanted;               /* --syscalls: children too */
static char env_spool[600], env_clock[32], env_lib[600], env_image[64];
/* what of ASAN_OPTIONS is ours (ENV_ASAN_MARK): the program's own value
 * is left whole, even when it ends as our suffix does */
enum { ASAN_NONE, ASAN_ADDED, ASAN_OURS };
static int asan_mark;
static char env_session[600], env_session_node[48];
static char env_share[1040];               /* ISLAND_SHARE=... */
static char env_loader[600];         /* --syscalls: ISLAND_LOADER=... */
char env_preload_lib[512];
/* the MPI level's library (ISLAND_MPI_LIB), preloaded after ours */
static char env_mpi[600], env_preload_mpi[512];

#ifndef ISLAND_LOADER
extern char **environ;
static int env_ours(const char *e);

/* Our library out of an LD_PRELOAD value (entries split by ':' or ' '),
 * in place; returns the length left. */
static size_t preload_strip(char *v, const char *lib, size_t libl)
{
	char *w = v, *r = v;

	while (*r) {
		size_t l = strcspn(r, ": ");
		if (!(l == libl && !strncmp(r, lib, l))) {
			if (w != v)
				*w++ = ':';
			memmove(w, r, l);
			w += l;
		}
		r += l;
		while (*r == ':' || *r == ' ')
			r++;
	}
	*w = 0;
	return (size_t)(w - v);
}

/* What the app sees of its environment (getenv, environ) is what it was
 * given: our variables were read by the constructor, and env_fix puts them
 * back into every image the app execs. The kernel's copy, which
 * /proc/PID/environ reads (the memory from the mm's env_start to env_end,
 * where the strings still are), loses them too: the bytes of each string
 * taken out, no longer referenced by environ, are set to 0, and so is the
 * tail our entry leaves past the end of a shortened LD_PRELOAD. */
void env_hide(void)
{
	size_t libl = strlen(env_preload_lib);
	char **w = environ;

	if (!environ || !libl)
		return;
	for (char **r = environ; *r; r++) {
		if (env_ours(*r)) {
			memset(*r, 0, strlen(*r));
			continue;
		}
		/* the program's own ASAN_OPTIONS, with ours after them */
		size_t rl = strlen(*r), sl = sizeof(ENV_ASAN_SUFFIX) - 1;
		if (asan_mark == ASAN_ADDED && !strncmp(*r, "ASAN_OPTIONS=", 13) && rl > 13 + sl &&
		    !strcmp(*r + rl - sl, ENV_ASAN_SUFFIX))
			memset(*r + rl - sl, 0, sl);
		if (!strncmp(*r, "LD_PRELOAD=", 11)) {
			size_t was = strlen(*r + 11);
			size_t left = preload_strip(*r + 11, env_preload_lib, libl);
			if (left && env_preload_mpi[0])
				left = preload_strip(*r + 11, env_preload_mpi,
						     strlen(env_preload_mpi));
			if (!left) {
				memset(*r, 0, 11 + was);
				continue;
			}
			memset(*r + 11 + left, 0, was - left);
		}
		*w++ = *r;
	}
	*w = NULL;
}
#endif

static void getenv_copy(char *dst, size_t n, const char *name, const char *val)
{
	size_t k = strlen(name);

	memcpy(dst, name, k);
	dst[k] = '=';
	strncpy(dst + k + 1, val, n - k - 2);
	dst[n - 1] = 0;
}

/* What the constructor found of ours in the environment, kept for the
 * images to come (before env_hide takes it out of the app's sight). */
void env_keep(const char *dir, const char *share)
{
	const char *clk = getenv(ENV_CLOCK), *lib = getenv(ENV_LIB);
	const char *am = getenv(ENV_ASAN_MARK), *mpil = getenv(ENV_MPI_LIB);

	asan_mark = !am ? ASAN_NONE : !strcmp(am, "added") ? ASAN_ADDED :
		    !strcmp(am, "ours") ? ASAN_OURS : ASAN_NONE;
	getenv_copy(env_spool, sizeof(env_spool), ENV_SPOOL, dir);
	getenv_copy(env_clock, sizeof(env_clock), ENV_CLOCK, clk ? clk : "mono");
	getenv_copy(env_lib, sizeof(env_lib), ENV_LIB, lib ? lib : "");
	if (lib)
		strncpy(env_preload_lib, lib, sizeof(env_preload_lib) - 1);
	if (mpil && *mpil && strlen(mpil) < sizeof(env_preload_mpi)) {
		getenv_copy(env_mpi, sizeof(env_mpi), ENV_MPI_LIB, mpil);
		strcpy(env_preload_mpi, mpil);
	}
	if (getenv(ENV_SESSION) && getenv(ENV_SESSION_NODE)) {
		getenv_copy(env_session, sizeof(env_session), ENV_SESSION,
			    getenv(ENV_SESSION));
		getenv_copy(env_session_node, sizeof(env_session_node),
			    ENV_SESSION_NODE, getenv(ENV_SESSION_NODE));
	}
	if (share[0])
		getenv_copy(env_share, sizeof(env_share), ENV_SHARE, share);
	if (getenv(ENV_SYSCALLS)) {
		sud_wanted = 1;
		if (getenv(ENV_LOADER))
			getenv_copy(env_loader, sizeof(env_loader), ENV_LOADER,
				    getenv(ENV_LOADER));
	}
}

static int env_ours(const char *e)
{
	static const char *const ours[] = { "ISLAND_SPOOL=", "ISLAND_CLOCK=", "ISLAND_LIB=",
		"ISLAND_LIMITS=", "ISLAND_SYSCALLS=", "ISLAND_LOADED=", "ISLAND_SESSION",
		"ISLAND_LOADER=", "ISLAND_LOADER_TARGET=", "ISLAND_LOADER_NAME=",
		"ISLAND_IMAGE=", "ISLAND_MADE_BY=", "ISLAND_VFORKED=", "ISLAND_SPAWNED=",
		"ISLAND_SPAWN_ACTS=", "ISLAND_SHARE=", "ISLAND_MPI_LIB=", ENV_ASAN_MARK "=" };

	for (size_t i = 0; i < sizeof(ours) / sizeof(ours[0]); i++)
		if (!strncmp(e, ours[i], strlen(ours[i])))
			return 1;
	return asan_mark == ASAN_OURS && !strcmp(e, ENV_ASAN_OURS);
}

/* An environment for a child image: the caller's, with our variables and
 * our library in LD_PRELOAD (after any the application set itself). */
char *const *env_fix(char *const *envp, char **buf, size_t buflen,
		     char **arr, size_t arrlen)
{
	static const char pre[] = "LD_PRELOAD=";
	const char *their = NULL;
	size_t n = 0, libl = strlen(env_preload_lib), mpil = strlen(env_preload_mpi);
	int have_spool = 0, named = 0;

	if (!island_on || !libl)
		return envp;
	static char *const no_env[] = { NULL };

	if (!envp)
		envp = no_env;
	for (char *const *e = envp; *e; e++) {
		if (!strncmp(*e, pre, sizeof(pre) - 1))
			their = *e + sizeof(pre) - 1;
		else if (!strcmp(*e, env_spool))
			have_spool = 1;
		else if (!strncmp(*e, ENV_MADE_BY "=", sizeof(ENV_MADE_BY)))
			named = 1;	/* a shell's name: not passed on */
	}
	if (have_spool && !named && their && strstr(their, env_preload_lib) &&
	    (!mpil || strstr(their, env_preload_mpi)))
		return envp;        /* (ISLAND_LIMITS travels with ISLAND_SPOOL) */
	size_t tl = their ? strlen(their) : 0;
	if (sizeof(pre) + tl + 1 + libl + 1 + mpil + 1 > buflen)
		return envp;
	char *p = *buf;
	memcpy(p, pre, sizeof(pre) - 1);
	p += sizeof(pre) - 1;
	if (tl) {
		memcpy(p, their, tl);
		p += tl;
		*p++ = ':';
	}
	memcpy(p, env_preload_lib, libl + 1);
	if (mpil) {
		p[libl] = ':';
		memcpy(p + libl + 1, env_preload_mpi, mpil + 1);
		p += mpil + 1;
	}
	p += libl + 1;
	/* the program's own ASAN_OPTIONS, and ours after them, in the rest
	 * of buf; none: ours alone (below) */
	char *asan = NULL, *mark = NULL;
	for (char *const *e = envp; *e; e++) {
		size_t al = strlen(*e), sl = sizeof(ENV_ASAN_SUFFIX) - 1;
		if (!strncmp(*e, ENV_ASAN_MARK "=", sizeof(ENV_ASAN_MARK)))
			mark = *e;	/* an environment of ours (system's) */
		if (strncmp(*e, "ASAN_OPTIONS=", 13))
			continue;
		asan = *e;
		if (!strstr(*e, "verify_asan_link_order") &&
		    (size_t)(p - *buf) + al + sl + 1 <= buflen) {
			memcpy(p, *e, al);
			memcpy(p + al, ENV_ASAN_SUFFIX, sl + 1);
			asan = p;
			mark = (char *)ENV_ASAN_MARK "=added";
		}
	}
	if (!asan)
		mark = (char *)ENV_ASAN_MARK "=ours";
	for (char *const *e = envp; *e; e++) {
		if (!strncmp(*e, pre, sizeof(pre) - 1) || env_ours(*e) ||
		    !strncmp(*e, "ASAN_OPTIONS=", 13))
			continue;
		if (n + 15 >= arrlen)
			return envp;
		arr[n++] = *e;
	}
	arr[n++] = *buf;
	arr[n++] = env_spool;
	arr[n++] = env_clock;
	arr[n++] = env_lib;
	if (mpil)
		arr[n++] = env_mpi;
	/* the image exec'd next knows it continues this pid, and when that
	 * started (PID:STARTTIME), which it need not read again */
	pid_t me = (pid_t)SYS(SYS_getpid, 0, 0, 0, 0);
	uint64_t ps = pstart_cached(me);
	if (!ps && island_on && vfork_child(&ts))	/* told, never kept: the
							   cache is its parent's */
		ps = pstart_forked(ts.fork_boot);
	memcpy(env_image, ENV_IMAGE "=", sizeof(ENV_IMAGE));
	char *ie = utoa(env_image + sizeof(ENV_IMAGE), (unsigned long)me);
	if (ps) {
		*ie++ = ':';
		utoa(ie, (unsigned long)ps);
	}
	arr[n++] = env_image;
	if (limits)
		arr[n++] = (char *)"ISLAND_LIMITS=1";
	if (sud_wanted)
		arr[n++] = (char *)"ISLAND_SYSCALLS=1";
	if (sud_wanted && env_loader[0])
		arr[n++] = env_loader;
	if (env_session[0]) {
		arr[n++] = env_session;
		arr[n++] = env_session_node;
	}
	if (env_share[0])
		arr[n++] = env_share;
	arr[n++] = asan ? asan : (char *)ENV_ASAN_OURS;
	if (mark)
		arr[n++] = mark;
	arr[n] = NULL;
	return arr;
}

/*
 * system() and popen() spawn /bin/sh with environ, through libc's
 * internal spawn, which no wrapper sees: while one runs, environ is an
 * environment with our variables (env_fix), one for all the threads in
 * such calls at once, in memory of its own: the first in puts it there,
 * the last out puts the app's back (a copy per call, each put back by
 * its own call, left environ on a dead thread's stack after threads had
 * called system at once). A call alone also names itself in it for its
 * shell (ISLAND_MADE_BY: the trace's child is exact); a second call
 * takes the name out before it spawns: a shell then finds which thread
 * of its parent made it (parent_thread), and is matched to the call of
 * that thread under way when it started.
 */
static struct {
	int lock, users;
	char **saved;                /* the app's environ */
	char **env;                  /* ours, in a mapping of size bytes */
	size_t size;
	int made;                    /* the name's index in env, -1 none */
	char by[64];                 /* ISLAND_MADE_BY=TID:T0 */
} spawn_env = { .made = -1 };
static char no_made_by[] = ENV_MADE_BY "=?";

static void spawn_lock(void)
{
	while (__atomic_exchange_n(&spawn_env.lock, 1, __ATOMIC_ACQUIRE))
		syscall(SYS_sched_yield);
}

static void spawn_unlock(void)
{
	__atomic_store_n(&spawn_env.lock, 0, __ATOMIC_RELEASE);
}

void spawn_env_enter(pid_t tid, uint64_t t0)
{
	if (!island_on)
		return;
	spawn_lock();
	if (spawn_env.users++) {
		/* not alone: no call is named, each shell asks (a store the
		 * spawn's execve reads before or after, either a whole
		 * string) */
		if (spawn_env.made >= 0)
			__atomic_store_n(&spawn_env.env[spawn_env.made], no_made_by,
					 __ATOMIC_RELEASE);
		spawn_env.made = -1;
		spawn_unlock();
		return;
	}
	size_t n = 0;
	for (char **e = environ; e && *e; e++)
		n++;
	size_t arrlen = n + 16, size = arrlen * sizeof(char *) + 8192;
	char **arr = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (arr == MAP_FAILED) {
		spawn_env.users--;
		spawn_unlock();
		return;		/* the shell is not captured, the app runs */
	}
	char *buf = (char *)(arr + arrlen), *bp = buf;
	char *const *env = env_fix(environ, &bp, 8192, arr, arrlen - 1);
	spawn_env.saved = environ;
	spawn_env.env = arr;
	spawn_env.size = size;
	spawn_env.made = -1;
	if (env == arr && tid) {
		size_t k = 0;
		while (arr[k])
			k++;
		memcpy(spawn_env.by, ENV_MADE_BY "=", sizeof(ENV_MADE_BY));
		char *p = utoa(spawn_env.by + sizeof(ENV_MADE_BY), (unsigned long)tid);
		*p++ = ':';
		utoa(p, (unsigned long)t0);
		arr[k] = spawn_env.by;	/* the room env_fix left: arrlen - 1 */
		arr[k + 1] = NULL;
		spawn_env.made = (int)k;
	}
	environ = (char **)env;
	spawn_unlock();
}

void spawn_env_leave(void)
{
	if (!island_on)
		return;
	spawn_lock();
	if (spawn_env.users && !--spawn_env.users && spawn_env.env) {
		/* the app's own, unless it set another meanwhile */
		if (environ == spawn_env.env)
			environ = spawn_env.saved;
		if (environ != spawn_env.env)
			munmap(spawn_env.env, spawn_env.size);
		spawn_env.env = NULL;
		spawn_env.made = -1;
	}
	spawn_unlock();
}

/* A fork child has one thread: none is in system or popen */
void spawn_env_forked(void)
{
	if (spawn_env.users && environ == spawn_env.env)
		environ = spawn_env.saved;
	spawn_env.users = 0;
	spawn_env.env = NULL;
	spawn_env.made = -1;
	spawn_env.lock = 0;
}
