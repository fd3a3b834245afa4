/*
 * --recover: a spool whose island-capture was killed holds every record
 * the application wrote up to then (each record is complete before the
 * spool's `used` moves past it), but not the node's identity nor its
 * clock: the capture notes them in node.info before the app starts.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "capture.h"
#include "util.h"

/* node.info stays open and write-locked (a POSIX record lock: not
 * inherited by our children, released when we die however we die): the
 * interposer and --recover ask the lock whether we still run, which holds
 * across PID namespaces, where our pid may mean another process. */
int recover_note(const char *spool, const struct cap_node *n)
{
	char *path = xasprintf("%s/" RECOVER_INFO, spool);
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	struct flock lk = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int rc = 0;

	if (fd < 0 || fcntl(fd, F_SETLK, &lk) < 0) {
		warnx("%s:", path);
		if (fd >= 0)
			close(fd);
		free(path);
		return -1;
	}
	if (dprintf(fd, "island-spool 1\npid %d\nname %s\nhost %s\nclock %d %llu %lld %lld\n",
		    (int)getpid(), n->name, n->host, n->clk.kind,
		    (unsigned long long)n->clk.tsc0, (long long)n->clk.mono0,
		    (long long)n->clk.real0) < 0)
		rc = -1;
	/* what the records mean: without them a --syscalls spool came back
	 * with each call twice, at both levels, and every node as MPI rank 0 */
	if (!rc && dprintf(fd, "mode %d %d %d %d %lld %d %d\n", n->syscalls, n->callsites,
			   n->profile, n->profile_hz, (long long)n->profile_alloc,
			   n->server, n->mpi_rank) < 0)
		rc = -1;
	for (int i = 0; i < n->argc && !rc; i++) {   /* hex: any byte may be in an arg */
		char hex[2 * 256 + 2];
		const unsigned char *p = (const unsigned char *)n->argv[i];
		if (dprintf(fd, "arg ") < 0)
			rc = -1;
		while (*p && !rc) {
			size_t k = 0;
			for (; *p && k < 512; p++, k += 2)
				sprintf(hex + k, "%02x", *p);
			if (write(fd, hex, k) != (ssize_t)k)
				rc = -1;
		}
		if (!rc && write(fd, "\n", 1) != 1)
			rc = -1;
	}
	if (rc)
		warnx("%s:", path);
	free(path);
	return rc;                   /* fd kept: the lock lives with us */
}

/*
 * The spool's arena (capture/spool.h), made before the app starts, with
 * our robust mutex in its header held for as long as we run: when we die,
 * however we die, the kernel marks the mutex's owner dead, and the
 * interposer stops filling a spool nobody will read.
 */
/* The arena's size: every image of the app maps it whole, so under a
 * limit of address space (ulimit -v, which the app inherits) a quarter of
 * that limit, not 64 GiB that no mmap would grant; and at most half the
 * space free where it lives: an application that runs away (a crash loop
 * making calls) filled 23 GiB of /dev/shm, the machine's memory, in two
 * minutes. Past it, records are lost and counted, as on a full disk. */
/* The arena's address space (a quarter of a limit of it), and its
 * budget of pages: half the space free where it lives */
static uint64_t arena_span(const char *spool, uint64_t *budget)
{
	struct rlimit rl;
	struct statvfs fs;
	uint64_t span = ARENA_SPAN;

	if (!getrlimit(RLIMIT_AS, &rl) && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur / 4 < span)
		span = rl.rlim_cur / 4;
	span = span / ARENA_ALIGN * ARENA_ALIGN;
	if (span < ARENA_SPAN_MIN)
		span = ARENA_SPAN_MIN;
	*budget = span;
	if (!statvfs(spool, &fs) && (uint64_t)fs.f_bavail * fs.f_frsize / 2 < *budget)
		*budget = (uint64_t)fs.f_bavail * fs.f_frsize / 2;
	if (*budget < ARENA_SPAN_MIN)
		*budget = ARENA_SPAN_MIN;
	return span;
}

int arena_hold(const char *spool, uint64_t *budget)
{
	static pthread_mutexattr_t ma;
	char *path = xasprintf("%s/" ARENA_FILE, spool);
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	struct arena_hdr *a;

	_Static_assert(sizeof(pthread_mutex_t) <= sizeof(a->capture_lock), "mutex fits");
	_Static_assert(sizeof(struct arena_hdr) <= SPOOL_HDR_SIZE, "header fits");
	uint64_t span = arena_span(spool, budget);
	if (fd < 0 || ftruncate(fd, (off_t)span) < 0 ||
	    (a = mmap(NULL, SPOOL_HDR_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		      fd, 0)) == MAP_FAILED) {
		warnx("%s:", path);
		if (fd >= 0)
			close(fd);
		free(path);
		return -1;
	}
	close(fd);
	free(path);
	a->version = SPOOL_VERSION;
	a->budget = *budget;
	a->magic = ARENA_MAGIC;
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setrobust(&ma, PTHREAD_MUTEX_ROBUST);
	if (pthread_mutex_init((pthread_mutex_t *)a->capture_lock, &ma) ||
	    pthread_mutex_lock((pthread_mutex_t *)a->capture_lock)) {
		warnx("%s: cannot hold the arena's mutex", spool);
		return -1;
	}
	return 0;                    /* mapped and held until we exit */
}

struct info {
	pid_t pid;
	char name[256], host[256];
	struct clockmap clk;
	char **argv;
	int argc;
	int syscalls, callsites, profile, profile_hz, server, mpi_rank;
	long long profile_alloc;
};

static char *unhex_arg(const char *h)
{
	size_t l = strlen(h) / 2;
	char *s = xmalloc(l + 1);

	for (size_t i = 0; i < l; i++) {
		unsigned v;
		if (sscanf(h + 2 * i, "%2x", &v) != 1)
			v = '?';
		s[i] = (char)v;
	}
	s[l] = 0;
	return s;
}

static void info_free(struct info *in)
{
	for (int i = 0; i < in->argc; i++)
		free(in->argv[i]);
	free(in->argv);
	in->argv = NULL;
	in->argc = 0;
}

/* 0 when DIR/node.info reads; -1 (quietly, unless LOUD) when not */
static int read_info(const char *dir, struct info *in, int loud)
{
	char *path = xasprintf("%s/" RECOVER_INFO, dir), *line = NULL;
	size_t cap = 0;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
	long lineno = 0;
	int ok = 0;

	memset(in, 0, sizeof(*in));
	in->mpi_rank = -1;
	if (!f) {
		if (loud)
			warnx("%s:", path);
		if (fd >= 0)
			close(fd);
		free(path);
		return -1;
	}
	while (getline(&line, &cap, f) > 0) {
		unsigned long long tsc;
		long long mono, real;
		int kind, pid;
		lineno++;
		line[strcspn(line, "\n")] = 0;
		if (lineno == 1 && !strcmp(line, "island-spool 1"))
			ok = 1;
		else if (sscanf(line, "pid %d", &pid) == 1)
			in->pid = pid;
		else if (!strncmp(line, "name ", 5))
			snprintf(in->name, sizeof(in->name), "%.255s", line + 5);
		else if (!strncmp(line, "host ", 5))
			snprintf(in->host, sizeof(in->host), "%.255s", line + 5);
		else if (sscanf(line, "clock %d %llu %lld %lld", &kind, &tsc, &mono, &real) == 4) {
			clock_origin(&in->clk, kind, tsc, mono);
			in->clk.real0 = real;
		} else if (!strncmp(line, "mode ", 5)) {
			if (sscanf(line, "mode %d %d %d %d %lld %d %d", &in->syscalls,
				   &in->callsites, &in->profile, &in->profile_hz,
				   &in->profile_alloc, &in->server, &in->mpi_rank) != 7) {
				if (loud)
					warnx("%s:%ld: a mode line of 7 numbers", path, lineno);
				ok = 0;
				break;
			}
		} else if (!strncmp(line, "arg ", 4)) {
			in->argv = xrealloc(in->argv, sizeof(char *) * (size_t)(in->argc + 2));
			in->argv[in->argc++] = unhex_arg(line + 4);
			in->argv[in->argc] = NULL;
		} else if (ok) {
			if (loud)
				warnx("%s:%ld: unknown line", path, lineno);
			ok = 0;
			break;
		}
	}
	fclose(f);
	free(line);
	if (!ok || !in->pid || !in->name[0]) {
		if (loud)
			warnx("%s: not the node.info of an island-capture spool", path);
		info_free(in);
		free(path);
		return -1;
	}
	free(path);
	return 0;
}

/* Its capture is gone: nobody holds node.info's lock (recover_note) */
static int abandoned(const char *dir)
{
	char *path = xasprintf("%s/" RECOVER_INFO, dir);
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct flock lk = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int gone = fd >= 0 && fcntl(fd, F_GETLK, &lk) == 0 && lk.l_type == F_UNLCK;

	if (fd >= 0)
		close(fd);
	free(path);
	return gone;
}

/* size of the spool's files, bytes; its newest change seen, seconds ago
 * (records written through a mapping need not change a file's mtime) */
static void spool_size_age(const char *dir, long long *size, double *age)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	time_t newest = 0;

	*size = 0;
	while (d && (e = readdir(d))) {
		struct stat st;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode)) {
			*size += (long long)st.st_blocks * 512;
			if (st.st_mtime > newest)
				newest = st.st_mtime;
		}
	}
	if (d)
		closedir(d);
	*age = difftime(time(NULL), newest);
}

int recover_main(const char *spool, const char *parent, int list,
		 const char *output, int comp)
{
	char *best = NULL;
	time_t best_t = 0;
	struct info in;

	if (!spool || list) {
		DIR *d = opendir(parent);
		struct dirent *e;
		if (!d)
			die(2, "%s:", parent);
		if (list)
			printf("%-40s %8s %10s %12s %s\n", "spool", "pid", "age (s)", "bytes", "node");
		while ((e = readdir(d))) {
			struct stat st;
			if (strncmp(e->d_name, "island-spool.", 13) ||
			    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
			    !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
				continue;
			char *dir = xasprintf("%s/%s", parent, e->d_name);
			int got = read_info(dir, &in, 0) == 0;
			if (got && abandoned(dir)) {
				long long size;
				double age;
				spool_size_age(dir, &size, &age);
				if (list)
					printf("%-40s %8d %10.0f %12lld %s\n", dir, (int)in.pid, age,
					       size, in.name);
				if (!best || st.st_mtime > best_t) {
					free(best);
					best = xstrdup(dir);
					best_t = st.st_mtime;
				}
			}
			if (got)
				info_free(&in);
			free(dir);
		}
		closedir(d);
		if (list) {
			free(best);
			return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
		}
		if (!best)
			die(2, "--recover: no abandoned spool of ours in %s", parent);
		spool = best;
	}
	if (read_info(spool, &in, 1) < 0) {
		free(best);
		return 2;
	}
	if (!abandoned(spool))
		die(2, "--recover %s: its island-capture (pid %d) still runs", spool, (int)in.pid);

	struct cap_node n = { 0 };
	long long size;
	double age;
	n.name = in.name;
	n.host = in.host;
	n.argv = in.argv;
	n.argc = in.argc;
	n.clk = in.clk;
	n.syscalls = in.syscalls;
	n.callsites = in.callsites;
	n.profile = in.profile;
	n.profile_hz = in.profile_hz;
	n.profile_alloc = in.profile_alloc;
	n.server = in.server;
	n.mpi_rank = in.mpi_rank;
	clock_end(&n.clk);               /* the slope from then to now: same boot */
	/* the node's end: the spool's last change */
	spool_size_age(spool, &size, &age);
	n.end = (int64_t)(time(NULL) - age) * 1000000000LL - n.clk.real0;
	if (n.end < 0)
		n.end = 0;
	if (spool_load(&n, spool) < 0) {
		info_free(&in);
		free(best);
		return 2;
	}
	resolve_node(&n);
	for (int i = 0; i < n.nprocs; i++)      /* records may follow the last change seen */
		if (n.procs[i].end > n.end)
			n.end = n.procs[i].end;
	n.complete = 0;
	n.reason = "capture-killed";
	int rc = 0;
	if (model_write(&n, output, comp) < 0) {
		warnx("the records are kept in %s", spool);
		rc = 1;
	} else {
		warnx("%s: recovered from %s (its capture, pid %d, was killed); the trace "
		      "is marked incomplete", output, spool, (int)in.pid);
	}
	spool_unload(&n);
	resolve_free(&n);
	info_free(&in);
	free(best);
	return rc;
}
