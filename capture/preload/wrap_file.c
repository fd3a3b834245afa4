/* Wrappers: file descriptors, data transfer and metadata. */
#include "preload.h"
#include "real.h"
#include "stream.h"

#define RET r_     /* the call's return value, inside TRACE_CALL */

#define NEEDS_MODE(fl) (((fl) & O_CREAT) || ((fl) & O_TMPFILE) == O_TMPFILE)
#define GET_MODE(fl, mode)                                   \
	do {                                                 \
		if (NEEDS_MODE(fl)) {                        \
			va_list ap_;                         \
			va_start(ap_, fl);                   \
			mode = va_arg(ap_, mode_t);          \
			va_end(ap_);                         \
		}                                            \
	} while (0)

/* the bytes asked for, or -1 when the call failed and the vector may
 * point nowhere (appmem.c) */
static int64_t iovsum(const struct iovec *iov, int n, int err)
{
	int64_t s = 0;

	if (err && (n < 0 || n > 1024 || !app_mem_ok(iov, (size_t)n * sizeof(*iov), err)))
		return -1;
	for (int i = 0; iov && i < n; i++)
		s += (int64_t)iov[i].iov_len;
	return s;
}

EXPORT int open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	GET_MODE(flags, mode);
	PATH_CALL(C_OPEN, int, REAL(open)(path, flags, mode), RET, flags,
		  AT_FDCWD, path, NULL);
}

EXPORT int open64(const char *path, int flags, ...)
{
	mode_t mode = 0;
	GET_MODE(flags, mode);
	PATH_CALL(C_OPEN, int, REAL(open64)(path, flags, mode), RET, flags,
		  AT_FDCWD, path, NULL);
}

EXPORT int __open_2(const char *path, int flags)
{
	PATH_CALL(C_OPEN, int, REAL(__open_2)(path, flags), RET, flags,
		  AT_FDCWD, path, NULL);
}

EXPORT int __open64_2(const char *path, int flags)
{
	PATH_CALL(C_OPEN, int, REAL(__open64_2)(path, flags), RET, flags,
		  AT_FDCWD, path, NULL);
}

EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;
	GET_MODE(flags, mode);
	PATH_CALL(C_OPENAT, int, REAL(openat)(dirfd, path, flags, mode), RET,
		  flags, dirfd, path, NULL);
}

EXPORT int openat64(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;
	GET_MODE(flags, mode);
	PATH_CALL(C_OPENAT, int, REAL(openat64)(dirfd, path, flags, mode), RET,
		  flags, dirfd, path, NULL);
}

EXPORT int __openat_2(int dirfd, const char *path, int flags)
{
	PATH_CALL(C_OPENAT, int, REAL(__openat_2)(dirfd, path, flags), RET,
		  flags, dirfd, path, NULL);
}

EXPORT int __openat64_2(int dirfd, const char *path, int flags)
{
	PATH_CALL(C_OPENAT, int, REAL(__openat64_2)(dirfd, path, flags), RET,
		  flags, dirfd, path, NULL);
}

EXPORT int creat(const char *path, mode_t mode)
{
	PATH_CALL(C_CREAT, int, REAL(creat)(path, mode), RET,
		  O_CREAT | O_WRONLY | O_TRUNC, AT_FDCWD, path, NULL);
}

EXPORT int creat64(const char *path, mode_t mode)
{
	PATH_CALL(C_CREAT, int, REAL(creat64)(path, mode), RET,
		  O_CREAT | O_WRONLY | O_TRUNC, AT_FDCWD, path, NULL);
}

EXPORT int close(int fd)
{
	TRACE_CALL_ON(C_CLOSE, int, REAL(close)(fd), fd, 0, 0, fd);
}

EXPORT int close_range(unsigned int first, unsigned int last, int flags)
{
	TRACE_CALL(C_CLOSE_RANGE, int, REAL(close_range)(first, last, flags),
		   (int)first, (int64_t)last, flags);
}

EXPORT int dup(int old)
{
	TRACE_CALL(C_DUP, int, REAL(dup)(old), RET, old, 0);
}

EXPORT int dup2(int old, int new)
{
	TRACE_CALL(C_DUP2, int, REAL(dup2)(old, new), new, old, 0);
}

EXPORT int dup3(int old, int new, int flags)
{
	TRACE_CALL(C_DUP3, int, REAL(dup3)(old, new, flags), new, old, flags);
}

EXPORT int fcntl(int fd, int cmd, ...)
{
	va_list ap;
	va_start(ap, cmd);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	TRACE_CALL(C_FCNTL, int, REAL(fcntl)(fd, cmd, arg), fd, cmd,
		   (int64_t)(intptr_t)arg);
}

EXPORT int fcntl64(int fd, int cmd, ...)
{
	va_list ap;
	va_start(ap, cmd);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	TRACE_CALL(C_FCNTL, int, REAL(fcntl64)(fd, cmd, arg), fd, cmd,
		   (int64_t)(intptr_t)arg);
}

/* ioctl: the request in a1; the int FIONBIO was given in a2 (the other
 * requests' arguments are the device's) */
static int64_t ioctl_arg(unsigned long req, const void *arg, int err)
{
	if (req != FIONBIO || !arg || !app_mem_ok(arg, sizeof(int), err))
		return 0;
	return *(const int *)arg;
}

EXPORT int ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	va_start(ap, req);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	TRACE_CALL(C_IOCTL, int, REAL(ioctl)(fd, req, arg), fd, (int64_t)req,
		   ioctl_arg(req, arg, err_));
}

EXPORT ssize_t read(int fd, void *buf, size_t n)
{
	if (unlikely(ts.unwinding) && n == 1)	/* libunwind's pipe (sampler.c) */
		return prof_unw_read();
	TRACE_CALL(C_READ, ssize_t, REAL(read)(fd, buf, n), fd, (int64_t)n, -1);
}

EXPORT ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen)
{
	TRACE_CALL(C_READ, ssize_t, REAL(__read_chk)(fd, buf, n, buflen), fd,
		   (int64_t)n, -1);
}

EXPORT ssize_t write(int fd, const void *buf, size_t n)
{
	if (unlikely(ts.unwinding) && n == 1)
		return prof_unw_write(buf);
	TRACE_CALL_ON(C_WRITE, ssize_t, REAL(write)(fd, buf, n), fd, (int64_t)n, -1, fd);
}

EXPORT ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	TRACE_CALL(C_PREAD, ssize_t, REAL(pread)(fd, buf, n, off), fd,
		   (int64_t)n, off);
}

EXPORT ssize_t pread64(int fd, void *buf, size_t n, off64_t off)
{
	TRACE_CALL(C_PREAD, ssize_t, REAL(pread64)(fd, buf, n, off), fd,
		   (int64_t)n, off);
}

EXPORT ssize_t __pread_chk(int fd, void *buf, size_t n, off_t off, size_t bl)
{
	TRACE_CALL(C_PREAD, ssize_t, REAL(__pread_chk)(fd, buf, n, off, bl), fd,
		   (int64_t)n, off);
}

EXPORT ssize_t __pread64_chk(int fd, void *buf, size_t n, off64_t off, size_t bl)
{
	TRACE_CALL(C_PREAD, ssize_t, REAL(__pread64_chk)(fd, buf, n, off, bl), fd,
		   (int64_t)n, off);
}

EXPORT ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	TRACE_CALL(C_PWRITE, ssize_t, REAL(pwrite)(fd, buf, n, off), fd,
		   (int64_t)n, off);
}

EXPORT ssize_t pwrite64(int fd, const void *buf, size_t n, off64_t off)
{
	TRACE_CALL(C_PWRITE, ssize_t, REAL(pwrite64)(fd, buf, n, off), fd,
		   (int64_t)n, off);
}

EXPORT ssize_t readv(int fd, const struct iovec *iov, int cnt)
{
	TRACE_CALL(C_READV, ssize_t, REAL(readv)(fd, iov, cnt), fd,
		   iovsum(iov, cnt, err_), -1);
}

EXPORT ssize_t writev(int fd, const struct iovec *iov, int cnt)
{
	TRACE_CALL_ON(C_WRITEV, ssize_t, REAL(writev)(fd, iov, cnt), fd,
		      iovsum(iov, cnt, err_), -1, fd);
}

EXPORT ssize_t preadv(int fd, const struct iovec *iov, int cnt, off_t off)
{
	TRACE_CALL(C_PREADV, ssize_t, REAL(preadv)(fd, iov, cnt, off), fd,
		   iovsum(iov, cnt, err_), off);
}

EXPORT ssize_t preadv64(int fd, const struct iovec *iov, int cnt, off64_t off)
{
	TRACE_CALL(C_PREADV, ssize_t, REAL(preadv64)(fd, iov, cnt, off), fd,
		   iovsum(iov, cnt, err_), off);
}

EXPORT ssize_t pwritev(int fd, const struct iovec *iov, int cnt, off_t off)
{
	TRACE_CALL(C_PWRITEV, ssize_t, REAL(pwritev)(fd, iov, cnt, off), fd,
		   iovsum(iov, cnt, err_), off);
}

EXPORT ssize_t pwritev64(int fd, const struct iovec *iov, int cnt, off64_t off)
{
	TRACE_CALL(C_PWRITEV, ssize_t, REAL(pwritev64)(fd, iov, cnt, off), fd,
		   iovsum(iov, cnt, err_), off);
}

EXPORT ssize_t preadv2(int fd, const struct iovec *iov, int cnt, off_t off,
		       int flags)
{
	TRACE_CALL(C_PREADV2, ssize_t, REAL(preadv2)(fd, iov, cnt, off, flags),
		   fd, iovsum(iov, cnt, err_), off);
}

EXPORT ssize_t preadv64v2(int fd, const struct iovec *iov, int cnt,
			  off64_t off, int flags)
{
	TRACE_CALL(C_PREADV2, ssize_t, REAL(preadv64v2)(fd, iov, cnt, off, flags),
		   fd, iovsum(iov, cnt, err_), off);
}

EXPORT ssize_t pwritev2(int fd, const struct iovec *iov, int cnt, off_t off,
			int flags)
{
	TRACE_CALL(C_PWRITEV2, ssize_t, REAL(pwritev2)(fd, iov, cnt, off, flags),
		   fd, iovsum(iov, cnt, err_), off);
}

EXPORT ssize_t pwritev64v2(int fd, const struct iovec *iov, int cnt,
			   off64_t off, int flags)
{
	TRACE_CALL(C_PWRITEV2, ssize_t,
		   REAL(pwritev64v2)(fd, iov, cnt, off, flags), fd,
		   iovsum(iov, cnt, err_), off);
}

EXPORT off_t lseek(int fd, off_t off, int whence)
{
	TRACE_CALL(C_LSEEK, off_t, REAL(lseek)(fd, off, whence), fd, off, whence);
}

EXPORT off64_t lseek64(int fd, off64_t off, int whence)
{
	TRACE_CALL(C_LSEEK, off64_t, REAL(lseek64)(fd, off, whence), fd, off,
		   whence);
}

EXPORT int fsync(int fd)
{
	TRACE_CALL(C_FSYNC, int, REAL(fsync)(fd), fd, 0, 0);
}

EXPORT int fdatasync(int fd)
{
	TRACE_CALL(C_FDATASYNC, int, REAL(fdatasync)(fd), fd, 0, 0);
}

/* sync returns nothing: its record says 0 */
static int sync_all(void)
{
	REAL(sync)();
	return 0;
}

static int sync_traced(void)
{
	TRACE_CALL(C_SYNC, int, sync_all(), -1, 0, 0);
}

EXPORT void sync(void)
{
	sync_traced();
}

EXPORT int syncfs(int fd)
{
	TRACE_CALL(C_SYNCFS, int, REAL(syncfs)(fd), fd, 0, 0);
}

/* a1 bytes, a2 offset; the flags (whether it waits) as the payload */
EXPORT int sync_file_range(int fd, off64_t off, off64_t n, unsigned int flags)
{
	struct tstate *t = &ts;

	if (!enter(t))
		return REAL(sync_file_range)(fd, off, n, flags);
	uint64_t t0 = call_start(t);
	int r = REAL(sync_file_range)(fd, off, n, flags);
	uint64_t t1 = now();
	int e = r < 0 ? errno : 0;
	int32_t fl = (int32_t)flags;
	put_payload(t, C_SYNC_FILE_RANGE, t0, t1, r, fd, n, off, e, &fl, sizeof(fl), NULL, 0);
	leave(t);
	if (e)
		errno = e;
	return r;
}

EXPORT int ftruncate(int fd, off_t len)
{
	TRACE_CALL(C_FTRUNCATE, int, REAL(ftruncate)(fd, len), fd, len, 0);
}

EXPORT int ftruncate64(int fd, off64_t len)
{
	TRACE_CALL(C_FTRUNCATE, int, REAL(ftruncate64)(fd, len), fd, len, 0);
}

EXPORT ssize_t sendfile(int out, int in, off_t *off, size_t n)
{
	TRACE_CALL(C_SENDFILE, ssize_t, REAL(sendfile)(out, in, off, n), out,
		   (int64_t)n, in);
}

EXPORT ssize_t sendfile64(int out, int in, off64_t *off, size_t n)
{
	TRACE_CALL(C_SENDFILE, ssize_t, REAL(sendfile64)(out, in, off, n), out,
		   (int64_t)n, in);
}

EXPORT ssize_t copy_file_range(int in, off64_t *inoff, int out,
			       off64_t *outoff, size_t n, unsigned int flags)
{
	TRACE_CALL(C_COPY_FILE_RANGE, ssize_t,
		   REAL(copy_file_range)(in, inoff, out, outoff, n, flags), out,
		   (int64_t)n, in);
}

EXPORT ssize_t splice(int in, off64_t *inoff, int out, off64_t *outoff,
		      size_t n, unsigned int flags)
{
	TRACE_CALL(C_SPLICE, ssize_t,
		   REAL(splice)(in, inoff, out, outoff, n, flags), out,
		   (int64_t)n, in);
}

/*
 * Temporary files: libc opens them itself, where the interposer does not
 * see it; each is recorded as the open of what it made (calls.def).
 */
#define TEMP_CALL(CALL, EXPR, TMPL, FLAGS)                                 \
	PATH_CALL(CALL, int, EXPR, RET, O_RDWR | O_CREAT | O_EXCL | (FLAGS),  \
		  AT_FDCWD, TMPL, NULL)

EXPORT int mkstemp(char *tmpl)
{
	TEMP_CALL(C_MKSTEMP, REAL(mkstemp)(tmpl), tmpl, 0);
}

EXPORT int mkstemp64(char *tmpl)
{
	TEMP_CALL(C_MKSTEMP, REAL(mkstemp64)(tmpl), tmpl, 0);
}

EXPORT int mkostemp(char *tmpl, int flags)
{
	TEMP_CALL(C_MKOSTEMP, REAL(mkostemp)(tmpl, flags), tmpl, flags);
}

EXPORT int mkostemp64(char *tmpl, int flags)
{
	TEMP_CALL(C_MKOSTEMP, REAL(mkostemp64)(tmpl, flags), tmpl, flags);
}

EXPORT int mkstemps(char *tmpl, int suffixlen)
{
	TEMP_CALL(C_MKSTEMPS, REAL(mkstemps)(tmpl, suffixlen), tmpl, 0);
}

EXPORT int mkstemps64(char *tmpl, int suffixlen)
{
	TEMP_CALL(C_MKSTEMPS, REAL(mkstemps64)(tmpl, suffixlen), tmpl, 0);
}

EXPORT int mkostemps(char *tmpl, int suffixlen, int flags)
{
	TEMP_CALL(C_MKOSTEMPS, REAL(mkostemps)(tmpl, suffixlen, flags), tmpl, flags);
}

EXPORT int mkostemps64(char *tmpl, int suffixlen, int flags)
{
	TEMP_CALL(C_MKOSTEMPS, REAL(mkostemps64)(tmpl, suffixlen, flags), tmpl, flags);
}

/* glibc makes it nameless in /tmp (O_TMPFILE; else a name it unlinks) */
static FILE *tmp_file(FILE *(*fn)(void))
{
	struct tstate *t = &ts;

	if (!enter(t))
		return fn();
	uint64_t t0 = call_start(t);
	FILE *f = fn();
	uint64_t t1 = now();
	int e = errno;
	int fd = stream_fd(f);
	put_str(t, C_TMPFILE, t0, t1, f ? fd : -1, f ? fd : -1,
		O_RDWR | O_TMPFILE | O_EXCL, AT_FDCWD, f ? 0 : e, "/tmp", NULL);
	leave(t);
	errno = e;
	return f;
}

EXPORT FILE *tmpfile(void)
{
	return tmp_file(REAL(tmpfile));
}

EXPORT FILE *tmpfile64(void)
{
	return tmp_file(REAL(tmpfile64));
}

EXPORT char *mkdtemp(char *tmpl)
{
	struct tstate *t = &ts;

	if (!enter(t))
		return REAL(mkdtemp)(tmpl);
	uint64_t t0 = call_start(t);
	char *r = REAL(mkdtemp)(tmpl);
	uint64_t t1 = now();
	int e = errno;
	put_str(t, C_MKDTEMP, t0, t1, r ? 0 : -1, -1, 0, AT_FDCWD, r ? 0 : e, tmpl, NULL);
	leave(t);
	errno = e;
	return r;
}

EXPORT int mkdir(const char *path, mode_t mode)
{
	PATH_CALL(C_MKDIR, int, REAL(mkdir)(path, mode), -1, 0, AT_FDCWD, path,
		  NULL);
}

EXPORT int mkdirat(int dirfd, const char *path, mode_t mode)
{
	PATH_CALL(C_MKDIRAT, int, REAL(mkdirat)(dirfd, path, mode), -1, 0, dirfd,
		  path, NULL);
}

EXPORT int unlink(const char *path)
{
	PATH_CALL(C_UNLINK, int, REAL(unlink)(path), -1, 0, AT_FDCWD, path, NULL);
}

EXPORT int unlinkat(int dirfd, const char *path, int flags)
{
	PATH_CALL(C_UNLINKAT, int, REAL(unlinkat)(dirfd, path, flags), -1, 0,
		  dirfd, path, NULL);
}

EXPORT int rmdir(const char *path)
{
	PATH_CALL(C_RMDIR, int, REAL(rmdir)(path), -1, 0, AT_FDCWD, path, NULL);
}

EXPORT int rename(const char *from, const char *to)
{
	PATH_CALL(C_RENAME, int, REAL(rename)(from, to), -1, AT_FDCWD, AT_FDCWD,
		  from, to);
}

EXPORT int renameat(int fromdir, const char *from, int todir, const char *to)
{
	PATH_CALL(C_RENAMEAT, int, REAL(renameat)(fromdir, from, todir, to), -1,
		  todir, fromdir, from, to);
}

EXPORT int stat(const char *path, struct stat *st)
{
	PATH_CALL(C_STAT, int, REAL(stat)(path, st), -1, 0, AT_FDCWD, path, NULL);
}

EXPORT int stat64(const char *path, struct stat64 *st)
{
	PATH_CALL(C_STAT, int, REAL(stat64)(path, st), -1, 0, AT_FDCWD, path, NULL);
}

EXPORT int lstat(const char *path, struct stat *st)
{
	PATH_CALL(C_LSTAT, int, REAL(lstat)(path, st), -1, 0, AT_FDCWD, path, NULL);
}

EXPORT int lstat64(const char *path, struct stat64 *st)
{
	PATH_CALL(C_LSTAT, int, REAL(lstat64)(path, st), -1, 0, AT_FDCWD, path,
		  NULL);
}

EXPORT int fstat(int fd, struct stat *st)
{
	TRACE_CALL(C_FSTAT, int, REAL(fstat)(fd, st), fd, 0, 0);
}

EXPORT int fstat64(int fd, struct stat64 *st)
{
	TRACE_CALL(C_FSTAT, int, REAL(fstat64)(fd, st), fd, 0, 0);
}

EXPORT int fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	PATH_CALL(C_FSTATAT, int, REAL(fstatat)(dirfd, path, st, flags), dirfd,
		  flags, dirfd, path, NULL);
}

EXPORT int fstatat64(int dirfd, const char *path, struct stat64 *st, int flags)
{
	PATH_CALL(C_FSTATAT, int, REAL(fstatat64)(dirfd, path, st, flags), dirfd,
		  flags, dirfd, path, NULL);
}

EXPORT int statx(int dirfd, const char *path, int flags, unsigned int mask,
		 struct statx *stx)
{
	PATH_CALL(C_STATX, int, REAL(statx)(dirfd, path, flags, mask, stx), dirfd,
		  flags, dirfd, path, NULL);
}

/* Entry points of binaries built against glibc < 2.33. */
EXPORT int __xstat(int ver, const char *path, struct stat *st)
{
	PATH_CALL(C_STAT, int, REAL(__xstat)(ver, path, st), -1, 0, AT_FDCWD,
		  path, NULL);
}

EXPORT int __xstat64(int ver, const char *path, struct stat64 *st)
{
	PATH_CALL(C_STAT, int, REAL(__xstat64)(ver, path, st), -1, 0, AT_FDCWD,
		  path, NULL);
}

EXPORT int __lxstat(int ver, const char *path, struct stat *st)
{
	PATH_CALL(C_LSTAT, int, REAL(__lxstat)(ver, path, st), -1, 0, AT_FDCWD,
		  path, NULL);
}

EXPORT int __lxstat64(int ver, const char *path, struct stat64 *st)
{
	PATH_CALL(C_LSTAT, int, REAL(__lxstat64)(ver, path, st), -1, 0, AT_FDCWD,
		  path, NULL);
}

EXPORT int __fxstat(int ver, int fd, struct stat *st)
{
	TRACE_CALL(C_FSTAT, int, REAL(__fxstat)(ver, fd, st), fd, 0, 0);
}

EXPORT int __fxstat64(int ver, int fd, struct stat64 *st)
{
	TRACE_CALL(C_FSTAT, int, REAL(__fxstat64)(ver, fd, st), fd, 0, 0);
}

EXPORT int __fxstatat(int ver, int dirfd, const char *path, struct stat *st,
		      int flags)
{
	PATH_CALL(C_FSTATAT, int, REAL(__fxstatat)(ver, dirfd, path, st, flags),
		  dirfd, flags, dirfd, path, NULL);
}

EXPORT int __fxstatat64(int ver, int dirfd, const char *path,
			struct stat64 *st, int flags)
{
	PATH_CALL(C_FSTATAT, int, REAL(__fxstatat64)(ver, dirfd, path, st, flags),
		  dirfd, flags, dirfd, path, NULL);
}

EXPORT int chdir(const char *path)
{
	PATH_CALL(C_CHDIR, int, REAL(chdir)(path), -1, 0, AT_FDCWD, path, NULL);
}

EXPORT int fchdir(int fd)
{
	TRACE_CALL(C_FCHDIR, int, REAL(fchdir)(fd), fd, 0, 0);
}

/* Directories: libc opens them internally, so opendir is where we see it. */
EXPORT DIR *opendir(const char *path)
{
	struct tstate *t = &ts;

	if (!enter(t))
		return REAL(opendir)(path);
	uint64_t t0 = call_start(t);
	DIR *d = REAL(opendir)(path);
	uint64_t t1 = now();
	int e = errno;
	int fd = d ? dirfd(d) : -1;
	put_str(t, C_OPENDIR, t0, t1, fd, fd, O_RDONLY | O_DIRECTORY, AT_FDCWD,
		d ? 0 : e, path, NULL);
	leave(t);
	errno = e;
	return d;
}

EXPORT DIR *fdopendir(int fd)
{
	struct tstate *t = &ts;

	if (!enter(t))
		return REAL(fdopendir)(fd);
	uint64_t t0 = call_start(t);
	DIR *d = REAL(fdopendir)(fd);
	uint64_t t1 = now();
	int e = errno;
	put(t, C_FDOPENDIR, t0, t1, d ? fd : -1, fd, 0, 0, d ? 0 : e);
	leave(t);
	errno = e;
	return d;
}

EXPORT int closedir(DIR *d)
{
	DIR *volatile dv = d;          /* the app may pass NULL: do not crash */
	int fd = dv ? dirfd(dv) : -1;
	TRACE_CALL(C_CLOSEDIR, int, REAL(closedir)(d), fd, 0, 0);
}
