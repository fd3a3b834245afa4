/* Wrappers: path metadata (access, permissions, owners, links, renames,
 * removal) and the size of files (truncate, fallocate). */
#include "preload.h"
#include "real.h"

#include <linux/falloc.h>

#define RET r_     /* the call's return value, inside the macros */

EXPORT int truncate(const char *path, off_t len)
{
	PATH_CALL(C_TRUNCATE, int, REAL(truncate)(path, len), -1, len, AT_FDCWD,
		  path, NULL);
}

EXPORT int truncate64(const char *path, off64_t len)
{
	PATH_CALL(C_TRUNCATE, int, REAL(truncate64)(path, len), -1, len, AT_FDCWD,
		  path, NULL);
}

/* fallocate: a1 length, a2 offset, the mode (a hole punched, the size
 * kept) as the payload. */
static int falloc(int (*fn)(int, int, off64_t, off64_t), int fd, int mode,
		  off64_t off, off64_t len)
{
	struct tstate *t = &ts;

	if (!enter(t))
		return fn(fd, mode, off, len);
	uint64_t t0 = call_start(t);
	int r = fn(fd, mode, off, len);
	uint64_t t1 = now();
	int e = r < 0 ? errno : 0;
	int32_t m = mode;
	put_payload(t, C_FALLOCATE, t0, t1, r, fd, len, off, e, &m, sizeof(m), NULL, 0);
	leave(t);
	if (e)
		errno = e;
	return r;
}

EXPORT int fallocate(int fd, int mode, off_t off, off_t len)
{
	return falloc((int (*)(int, int, off64_t, off64_t))REAL(fallocate), fd,
		      mode, off, len);
}

EXPORT int fallocate64(int fd, int mode, off64_t off, off64_t len)
{
	return falloc(REAL(fallocate64), fd, mode, off, len);
}

/* posix_fallocate returns the error number instead of setting errno. */
static int pfalloc(int (*fn)(int, off64_t, off64_t), int fd, off64_t off,
		   off64_t len)
{
	struct tstate *t = &ts;

	if (!enter(t))
		return fn(fd, off, len);
	uint64_t t0 = call_start(t);
	int r = fn(fd, off, len);
	uint64_t t1 = now();
	put(t, C_POSIX_FALLOCATE, t0, t1, r ? -1 : 0, fd, len, off, r);
	leave(t);
	return r;
}

EXPORT int posix_fallocate(int fd, off_t off, off_t len)
{
	return pfalloc((int (*)(int, off64_t, off64_t))REAL(posix_fallocate),
		       fd, off, len);
}

EXPORT int posix_fallocate64(int fd, off64_t off, off64_t len)
{
	return pfalloc(REAL(posix_fallocate64), fd, off, len);
}

/* access family: a1 the mode asked. */
EXPORT int access(const char *path, int mode)
{
	PATH_CALL(C_ACCESS, int, REAL(access)(path, mode), -1, mode, AT_FDCWD,
		  path, NULL);
}

EXPORT int faccessat(int dirfd, const char *path, int mode, int flags)
{
	PATH_CALL(C_FACCESSAT, int, REAL(faccessat)(dirfd, path, mode, flags), -1,
		  mode, dirfd, path, NULL);
}

EXPORT int euidaccess(const char *path, int mode)
{
	PATH_CALL(C_EUIDACCESS, int, REAL(euidaccess)(path, mode), -1, mode,
		  AT_FDCWD, path, NULL);
}

EXPORT int eaccess(const char *path, int mode)
{
	PATH_CALL(C_EACCESS, int, REAL(eaccess)(path, mode), -1, mode, AT_FDCWD,
		  path, NULL);
}

/* Permissions and owners. */
EXPORT int chmod(const char *path, mode_t mode)
{
	PATH_CALL(C_CHMOD, int, REAL(chmod)(path, mode), -1, mode, AT_FDCWD, path,
		  NULL);
}

EXPORT int fchmod(int fd, mode_t mode)
{
	TRACE_CALL(C_FCHMOD, int, REAL(fchmod)(fd, mode), fd, mode, 0);
}

EXPORT int fchmodat(int dirfd, const char *path, mode_t mode, int flags)
{
	PATH_CALL(C_FCHMODAT, int, REAL(fchmodat)(dirfd, path, mode, flags), -1,
		  mode, dirfd, path, NULL);
}

EXPORT int chown(const char *path, uid_t uid, gid_t gid)
{
	PATH_CALL(C_CHOWN, int, REAL(chown)(path, uid, gid), -1, 0, AT_FDCWD, path,
		  NULL);
}

EXPORT int fchown(int fd, uid_t uid, gid_t gid)
{
	TRACE_CALL(C_FCHOWN, int, REAL(fchown)(fd, uid, gid), fd, 0, 0);
}

EXPORT int lchown(const char *path, uid_t uid, gid_t gid)
{
	PATH_CALL(C_LCHOWN, int, REAL(lchown)(path, uid, gid), -1, 0, AT_FDCWD,
		  path, NULL);
}

EXPORT int fchownat(int dirfd, const char *path, uid_t uid, gid_t gid,
		    int flags)
{
	PATH_CALL(C_FCHOWNAT, int, REAL(fchownat)(dirfd, path, uid, gid, flags),
		  -1, 0, dirfd, path, NULL);
}

/* Links: the existing file is path, the new name path2. */
EXPORT int link(const char *from, const char *to)
{
	PATH_CALL(C_LINK, int, REAL(link)(from, to), -1, AT_FDCWD, AT_FDCWD, from,
		  to);
}

EXPORT int linkat(int fromdir, const char *from, int todir, const char *to,
		  int flags)
{
	PATH_CALL(C_LINKAT, int, REAL(linkat)(fromdir, from, todir, to, flags), -1,
		  todir, fromdir, from, to);
}

/* symlink: path is the link made, its target (any text) comes second. */
EXPORT int symlink(const char *target, const char *linkpath)
{
	PATH_CALL(C_SYMLINK, int, REAL(symlink)(target, linkpath), -1, 0,
		  AT_FDCWD, linkpath, target);
}

EXPORT int symlinkat(const char *target, int dirfd, const char *linkpath)
{
	PATH_CALL(C_SYMLINKAT, int, REAL(symlinkat)(target, dirfd, linkpath), -1,
		  0, dirfd, linkpath, target);
}

/* readlink: ret the length of the target. */
EXPORT ssize_t readlink(const char *path, char *buf, size_t n)
{
	PATH_CALL(C_READLINK, ssize_t, REAL(readlink)(path, buf, n), -1, 0,
		  AT_FDCWD, path, NULL);
}

EXPORT ssize_t __readlink_chk(const char *path, char *buf, size_t n, size_t bl)
{
	PATH_CALL(C_READLINK, ssize_t, REAL(__readlink_chk)(path, buf, n, bl), -1,
		  0, AT_FDCWD, path, NULL);
}

EXPORT ssize_t readlinkat(int dirfd, const char *path, char *buf, size_t n)
{
	PATH_CALL(C_READLINKAT, ssize_t, REAL(readlinkat)(dirfd, path, buf, n), -1,
		  0, dirfd, path, NULL);
}

EXPORT ssize_t __readlinkat_chk(int dirfd, const char *path, char *buf,
				size_t n, size_t bl)
{
	PATH_CALL(C_READLINKAT, ssize_t,
		  REAL(__readlinkat_chk)(dirfd, path, buf, n, bl), -1, 0, dirfd,
		  path, NULL);
}

EXPORT int renameat2(int fromdir, const char *from, int todir, const char *to,
		     unsigned int flags)
{
	PATH_CALL(C_RENAMEAT2, int,
		  REAL(renameat2)(fromdir, from, todir, to, flags), -1, todir,
		  fromdir, from, to);
}

/* remove: libc's own unlink or rmdir, which we do not see. */
EXPORT int remove(const char *path)
{
	PATH_CALL(C_REMOVE, int, REAL(remove)(path), -1, 0, AT_FDCWD, path, NULL);
}
