#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

const char *progname = "island";
void (*die_hook)(int status);
_Thread_local void (*die_cleanup)(void);
_Thread_local void (*die_hook_here)(int status);
_Thread_local char *die_msg;
_Thread_local size_t die_msg_len;

/* the message into die_msg, when it is set and empty */
static bool to_msg(const char *file, long line, const char *fmt, va_list ap)
{
	size_t n = 0;

	if (!die_msg)
		return false;
	if (die_msg[0])
		return true;
	if (file)
		n = (size_t)snprintf(die_msg, die_msg_len, line > 0 ? "%s:%ld: " : "%s: ",
				     file, line);
	else
		n = (size_t)snprintf(die_msg, die_msg_len, "%s: ", progname);
	if (n < die_msg_len)
		vsnprintf(die_msg + n, die_msg_len - n, fmt, ap);
	return true;
}

static void vmsg(const char *fmt, va_list ap)
{
	size_t n = strlen(fmt);
	int err = errno;

	fprintf(stderr, "%s: ", progname);
	vfprintf(stderr, fmt, ap);
	if (n && fmt[n - 1] == ':')
		fprintf(stderr, " %s", strerror(err));
	fputc('\n', stderr);
}

void die(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (!to_msg(NULL, 0, fmt, ap))
		vmsg(fmt, ap);
	va_end(ap);
	if (die_cleanup)
		die_cleanup();
	if (die_hook_here)
		die_hook_here(status);
	if (die_hook)
		die_hook(status);
	exit(status);
}

void warnx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}

void bad_option(char **argv, int c)
{
	const char *arg = optind > 0 ? argv[optind - 1] : "";
	char name[64];

	/* a short option names itself; a long one is argv's word, up to '=' */
	if (optopt > 0 && optopt < 256 && strncmp(arg, "--", 2))
		snprintf(name, sizeof(name), "-%c", optopt);
	else
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(arg, "="), arg);
	if (c == ':')
		die(2, "option '%s' needs an argument (try --help)", name);
	die(2, "unknown option '%s' (try --help)", name);
}

static void vat(const char *file, long line, const char *fmt, va_list ap)
{
	if (line > 0)
		fprintf(stderr, "%s:%ld: ", file, line);
	else
		fprintf(stderr, "%s: ", file);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void die_at(int status, const char *file, long line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (!to_msg(file, line, fmt, ap))
		vat(file, line, fmt, ap);
	va_end(ap);
	if (die_cleanup)
		die_cleanup();
	if (die_hook_here)
		die_hook_here(status);
	if (die_hook)
		die_hook(status);
	exit(status);
}

void warn_at(const char *file, long line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vat(file, line, fmt, ap);
	va_end(ap);
}

int fclose_checked(FILE *f)
{
	int err = 0, had = ferror(f);

	if (fflush(f))
		err = errno;
	else if (had)
		err = EIO;	/* the failed write's errno is gone */
	if (fclose(f) && !err)
		err = errno;
	errno = err;
	return err ? -1 : 0;
}

/* all of n bytes, at AT (pwrite) or, AT < 0, where the file is (write) */
static int put_full(int fd, const void *buf, size_t n, off_t at)
{
	const char *p = buf;

	while (n) {
		ssize_t r = at < 0 ? write(fd, p, n) : pwrite(fd, p, n, at);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (r == 0)
				errno = ENOSPC;
			return -1;
		}
		p += r;
		if (at >= 0)
			at += r;
		n -= (size_t)r;
	}
	return 0;
}

int pwrite_full(int fd, const void *buf, size_t n, off_t at)
{
	return put_full(fd, buf, n, at < 0 ? 0 : at);
}

int write_full(int fd, const void *buf, size_t n)
{
	return put_full(fd, buf, n, -1);
}

static void stdout_failed(int err)
{
	char name[256] = "stdout";
	ssize_t n = readlink("/proc/self/fd/1", name, sizeof(name) - 1);

	name[n > 0 ? n : 6] = 0;
	fprintf(stderr, "%s: %s: write error: %s\n", progname, name, strerror(err));
	_exit(1);
}

void flush_stdout(void)
{
	if (fflush(stdout))
		stdout_failed(errno);
}

static void close_stdout(void)
{
	int err = 0, had = ferror(stdout);

	if (fflush(stdout))
		err = errno;
	else if (had)
		err = EIO;	/* an earlier flush failed; its errno is gone */
	/* fd 1 is gone with the close: a name only for the message */
	if (err)
		stdout_failed(err);
	/* EBADF: closed by the caller (>&-), nothing was written */
	if (fclose(stdout) && errno != EBADF)
		stdout_failed(errno);
}

void check_stdout_at_exit(void)
{
	atexit(close_stdout);
}

size_t grow_cap(size_t cap, size_t need, size_t size)
{
	size_t nc = cap ? cap : 16;

	if (!size || need > SIZE_MAX / size)
		return 0;
	while (nc < need)
		nc = nc > SIZE_MAX / 2 ? need : nc * 2;
	if (nc > SIZE_MAX / size)
		nc = need;	/* doubling would overflow; need fits */
	return nc;
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		die(70, "out of memory allocating %zu bytes", n);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		die(70, "out of memory allocating %zu x %zu bytes", n, size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die(70, "out of memory reallocating %zu bytes", n);
	return p;
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(xmalloc(n), s, n);
}

char *xvasprintf(const char *fmt, va_list ap)
{
	char *s;

	if (vasprintf(&s, fmt, ap) < 0)
		die(70, "out of memory");
	return s;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}

static int64_t ns_of(clockid_t id)
{
	struct timespec t;

	clock_gettime(id, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

int64_t now_ns(void)
{
	return ns_of(CLOCK_MONOTONIC);
}

int64_t real_ns(void)
{
	return ns_of(CLOCK_REALTIME);
}

int clock_tsc_usable(void)
{
#if defined(__x86_64__) || defined(__i386__)
	char buf[64] = "";
	FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");

	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	return !strncmp(buf, "tsc", 3) && (buf[3] == '\n' || !buf[3]);
#else
	return 0;
#endif
}

void sleep_ns(int64_t ns)
{
	if (ns <= 0)
		return;
	struct timespec d = { ns / 1000000000, ns % 1000000000 };

	while (nanosleep(&d, &d) < 0 && errno == EINTR)
		;
}

char *fmt_sec(char *buf, int64_t ns)
{
	char *p = buf;
	uint64_t u;
	char tmp[24];
	int n = 0;

	if (ns < 0) {
		*p++ = '-';
		u = (uint64_t)(-(ns + 1)) + 1;
	} else {
		u = (uint64_t)ns;
	}
	uint64_t s = u / 1000000000u, f = u % 1000000000u;
	do {
		tmp[n++] = (char)('0' + s % 10);
		s /= 10;
	} while (s);
	while (n)
		*p++ = tmp[--n];
	*p++ = '.';
	for (int i = 8; i >= 0; i--) {
		p[i] = (char)('0' + f % 10);
		f /= 10;
	}
	p[9] = 0;
	return buf;
}

int parse_sec(const char *s, int64_t *ns)
{
	int neg = 0, big = 0;
	uint64_t ip = 0, fp = 0, t;
	int digits = 0, fd = 0;

	if (*s == '-') {
		neg = 1;
		s++;
	}
	for (; *s >= '0' && *s <= '9'; s++, digits++) {
		/* past INT64_MAX ns: go on to check the syntax, then say so */
		if (ip > (uint64_t)INT64_MAX / 1000000000u)
			big = 1;
		else
			ip = ip * 10 + (uint64_t)(*s - '0');
	}
	if (*s == '.') {
		for (s++; *s >= '0' && *s <= '9'; s++, digits++) {
			if (fd < 9) {
				fp = fp * 10 + (uint64_t)(*s - '0');
				fd++;
			}
		}
	}
	if (*s || !digits)
		return -1;
	for (; fd < 9; fd++)
		fp *= 10;
	if (big || ip > (uint64_t)INT64_MAX / 1000000000u)
		return -2;
	t = ip * 1000000000u + fp;
	if (t > (uint64_t)INT64_MAX)
		return -2;
	*ns = neg ? -(int64_t)t : (int64_t)t;
	return 0;
}

static const struct { int num; const char *name; } errnos[] = {
#define E(x) { x, #x },
	E(EPERM) E(ENOENT) E(ESRCH) E(EINTR) E(EIO) E(ENXIO) E(E2BIG)
	E(ENOEXEC) E(EBADF) E(ECHILD) E(EAGAIN) E(ENOMEM) E(EACCES) E(EFAULT)
	E(EBUSY) E(EEXIST) E(EXDEV) E(ENODEV) E(ENOTDIR) E(EISDIR) E(EINVAL)
	E(ENFILE) E(EMFILE) E(ENOTTY) E(ETXTBSY) E(EFBIG) E(ENOSPC) E(ESPIPE)
	E(EROFS) E(EMLINK) E(EPIPE) E(EDOM) E(ERANGE) E(EDEADLK)
	E(ENAMETOOLONG) E(ENOLCK) E(ENOSYS) E(ENOTEMPTY) E(ELOOP) E(ENOMSG)
	E(ENODATA) E(ETIME) E(EOVERFLOW) E(EBADFD) E(ENOTSOCK)
	E(EDESTADDRREQ) E(EMSGSIZE) E(EPROTOTYPE) E(ENOPROTOOPT)
	E(EPROTONOSUPPORT) E(EOPNOTSUPP) E(EAFNOSUPPORT) E(EADDRINUSE)
	E(EADDRNOTAVAIL) E(ENETDOWN) E(ENETUNREACH) E(ECONNABORTED)
	E(ECONNRESET) E(ENOBUFS) E(EISCONN) E(ENOTCONN) E(ETIMEDOUT)
	E(ECONNREFUSED) E(EHOSTUNREACH) E(EALREADY) E(EINPROGRESS) E(ESTALE)
	E(EDQUOT) E(ECANCELED) E(EOWNERDEAD) E(ENOTRECOVERABLE)
#undef E
};

const char *errno_name(int err)
{
	static _Thread_local char buf[32];	/* (writers of parts run at once) */

	for (size_t i = 0; i < sizeof(errnos) / sizeof(errnos[0]); i++)
		if (errnos[i].num == err)
			return errnos[i].name;
	snprintf(buf, sizeof(buf), "E%d", err);
	return buf;
}

int errno_from_name(const char *name)
{
	for (size_t i = 0; i < sizeof(errnos) / sizeof(errnos[0]); i++)
		if (!strcmp(errnos[i].name, name))
			return errnos[i].num;
	if (name[0] == 'E' && name[1] >= '0' && name[1] <= '9')
		return atoi(name + 1);
	return -1;
}

const char *signal_name(int sig)
{
	static _Thread_local char buf[32];	/* (writers of parts run at once) */
	const char *abbrev = sigabbrev_np(sig);

	if (abbrev) {
		snprintf(buf, sizeof(buf), "SIG%s", abbrev);
		return buf;
	}
	snprintf(buf, sizeof(buf), "SIG%d", sig);
	return buf;
}

/* Each level is opened relative to its parent (O_NOFOLLOW|O_DIRECTORY):
 * a directory swapped for a symlink meanwhile is not entered. */
static int rm_below(int dfd, dev_t dev)
{
	DIR *d = fdopendir(dfd);
	struct dirent *e;
	int rc = 0, err = 0;

	if (!d) {
		close(dfd);
		return -1;
	}
	while ((e = readdir(d))) {
		const char *nm = e->d_name;
		if (!strcmp(nm, ".") || !strcmp(nm, ".."))
			continue;
		if (unlinkat(dirfd(d), nm, 0) == 0 || errno == ENOENT)
			continue;
		if (errno != EISDIR && errno != EPERM) {
			if (!err)
				err = errno;
			rc = -1;
			continue;
		}
		int sub = openat(dirfd(d), nm, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		struct stat st;
		if (sub < 0 || fstat(sub, &st) < 0 || st.st_dev != dev) {
			if (!err)
				err = sub < 0 ? errno : EXDEV;
			if (sub >= 0)
				close(sub);
			rc = -1;
			continue;
		}
		if (rm_below(sub, dev) < 0 && !err)
			err = errno, rc = -1;
		if (unlinkat(dirfd(d), nm, AT_REMOVEDIR) < 0 && errno != ENOENT) {
			if (!err)
				err = errno;
			rc = -1;
		}
	}
	closedir(d);
	errno = err;
	return rc;
}

int rm_tree(const char *path)
{
	struct stat st;
	int rc, err;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlink(path);
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	rc = rm_below(fd, st.st_dev);
	err = errno;
	if (rmdir(path) < 0 && errno != ENOENT)
		return -1;
	errno = err;
	return rc;
}

int create_excl(const char *path, int mode)
{
	return open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
}

/* A zombie is gone: it holds nothing but its exit status. */
int pid_alive(long pid)
{
	char path[64], buf[256];
	int fd, alive = pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM);

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if (!alive || (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return alive;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	char *paren = strrchr(buf, ')');
	return !(paren && paren[1] == ' ' && paren[2] == 'Z');
}

#ifdef ISLAND_ASAN
/* ASAN=1: the tools keep what they read until they exit (LeakSanitizer
 * off, whatever environment a test gives them: env -i), and may run
 * under a library a user preloads ahead of ASan's runtime */
const char *__asan_default_options(void);
void asan_first(void) __attribute__((weak));
const char *__asan_default_options(void)
{
	/* the first of ours ASan runs, before it has its interceptors:
	 * island-capture's exec without the user's LD_PRELOAD (main.c) */
	if (asan_first)
		asan_first();
	return "detect_leaks=0:verify_asan_link_order=0";
}
#endif

/* --- imap ---------------------------------------------------------------- */

static size_t imap_slot(uint64_t key, size_t cap)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdull;
	key ^= key >> 33;
	return (size_t)key & (cap - 1);
}

int imap_get(const struct imap *m, uint64_t key)
{
	if (!m->cap)
		return -1;
	for (size_t j = imap_slot(key, m->cap); m->val[j]; j = (j + 1) & (m->cap - 1))
		if (m->key[j] == key)
			return m->val[j] - 1;
	return -1;
}

void imap_put(struct imap *m, uint64_t key, int val)
{
	if ((m->n + 1) * 2 > m->cap) {
		struct imap g = { 0 };

		g.cap = m->cap ? m->cap * 2 : 64;
		g.key = xcalloc(g.cap, sizeof(*g.key));
		g.val = xcalloc(g.cap, sizeof(*g.val));
		for (size_t i = 0; i < m->cap; i++)
			if (m->val[i])
				imap_put(&g, m->key[i], m->val[i] - 1);
		imap_free(m);
		*m = g;
	}
	size_t j = imap_slot(key, m->cap);
	for (; m->val[j]; j = (j + 1) & (m->cap - 1))
		if (m->key[j] == key)
			break;
	if (!m->val[j])
		m->n++;
	m->key[j] = key;
	m->val[j] = val + 1;
}

void imap_free(struct imap *m)
{
	free(m->key);
	free(m->val);
	memset(m, 0, sizeof(*m));
}

void chain_add(struct chains *c, uint64_t key, int v)
{
	int t = imap_get(&c->tail, key);

	XGROW(c->next, c->cap, (size_t)v + 1);
	c->next[v] = -1;
	if (t < 0)
		imap_put(&c->head, key, v);
	else
		c->next[t] = v;
	imap_put(&c->tail, key, v);
}

int chain_first(const struct chains *c, uint64_t key)
{
	return imap_get(&c->head, key);
}

void chains_free(struct chains *c)
{
	imap_free(&c->head);
	imap_free(&c->tail);
	free(c->next);
	memset(c, 0, sizeof(*c));
}

int thread_quiet(pthread_t *th, void *(*fn)(void *), void *arg)
{
	sigset_t all, old;
	int e;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	e = pthread_create(th, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return e;
}
