#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

const char *progname = "island";

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
	vmsg(fmt, ap);
	va_end(ap);
	exit(status);
}

void warnx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
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
	vat(file, line, fmt, ap);
	va_end(ap);
	exit(status);
}

void warn_at(const char *file, long line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vat(file, line, fmt, ap);
	va_end(ap);
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
	int neg = 0;
	uint64_t ip = 0, fp = 0;
	int digits = 0, fd = 0;

	if (*s == '-') {
		neg = 1;
		s++;
	}
	for (; *s >= '0' && *s <= '9'; s++, digits++) {
		if (ip > (uint64_t)INT64_MAX / 10000000000ull)
			return -1;
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
	*ns = (int64_t)(ip * 1000000000ull + fp);
	if (neg)
		*ns = -*ns;
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
	static char buf[32];

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
	static char buf[32];
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

int pid_alive(long pid)
{
	return pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
}
