/* File calls: issued on the mapped descriptors with the trace's sizes,
 * offsets and flags; paths always resolved beneath the root. */
#include "exec.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static const struct { const char *name; int flag; } oflags[] = {
	{ "O_RDONLY", O_RDONLY }, { "O_WRONLY", O_WRONLY }, { "O_RDWR", O_RDWR },
	{ "O_CREAT", O_CREAT }, { "O_EXCL", O_EXCL }, { "O_TRUNC", O_TRUNC },
	{ "O_APPEND", O_APPEND }, { "O_NONBLOCK", O_NONBLOCK }, { "O_SYNC", O_SYNC },
	{ "O_DSYNC", O_DSYNC }, { "O_DIRECT", O_DIRECT }, { "O_DIRECTORY", O_DIRECTORY },
	{ "O_NOFOLLOW", O_NOFOLLOW }, { "O_CLOEXEC", O_CLOEXEC }, { "O_NOATIME", O_NOATIME },
	{ "O_NOCTTY", O_NOCTTY }, { "O_LARGEFILE", 0 }, { "O_PATH", O_PATH },
	{ "O_TMPFILE", O_TMPFILE },
};

/* "O_WRONLY|O_CREAT" or an fopen mode ("w+", "rb", "ae"). */
int open_flags(const char *s, const char *api)
{
	if (!s)
		return !strcmp(api, "opendir") ? O_RDONLY | O_DIRECTORY :
		       !strcmp(api, "creat") ? O_WRONLY | O_CREAT | O_TRUNC : O_RDONLY;
	if (strncmp(s, "O_", 2)) {
		int plus = strchr(s, '+') != NULL, f;
		switch (s[0]) {
		case 'w': f = (plus ? O_RDWR : O_WRONLY) | O_CREAT | O_TRUNC; break;
		case 'a': f = (plus ? O_RDWR : O_WRONLY) | O_CREAT | O_APPEND; break;
		default: f = plus ? O_RDWR : O_RDONLY; break;
		}
		if (strchr(s, 'e'))
			f |= O_CLOEXEC;
		if (strchr(s, 'x'))
			f |= O_EXCL;
		return f;
	}
	int f = 0;
	for (const char *p = s; *p;) {
		const char *e = strchrnul(p, '|');
		for (size_t i = 0; i < sizeof(oflags) / sizeof(*oflags); i++)
			if (strlen(oflags[i].name) == (size_t)(e - p) &&
			    !strncmp(oflags[i].name, p, (size_t)(e - p)))
				f |= oflags[i].flag;
		p = *e ? e + 1 : e;
	}
	if (!strcmp(api, "opendir"))
		f |= O_DIRECTORY;
	return f;
}

/* O_DIRECT needs aligned buffers and sizes the trace may not have: the
 * replay drops it rather than fail every call. */
int h_open(struct rctx *c, const struct op *o)
{
	char rel[4096];
	int flags = open_flags(o->flags, o->call->api), rfd;

	if (o->fd < 0 && !o->failed)
		return 0;
	flags &= ~O_DIRECT;
	if (sandbox_passthrough(o->path)) {
		rfd = SYS(c, open(o->path, (flags & ~(O_CREAT | O_TRUNC | O_EXCL)) | O_CLOEXEC));
	} else {
		if (map_path(c, o->path, rel, sizeof(rel)))
			return errno = EINVAL, -1;
		rfd = SYS(c, sandbox_openat(c->ns->r->rootfd, rel, flags | O_CLOEXEC, 0644));
		/* its directory is made only when missing: a create is one
		 * call, as it was; not for a create that failed so (git's
		 * lock in a directory not made yet: made, its later create
		 * with O_EXCL failed) */
		if (rfd < 0 && errno == ENOENT && (flags & O_CREAT) && !o->failed) {
			const char *base;
			int d = SYS(c, sandbox_parent(c->ns->r->rootfd, rel, 1, &base));
			if (d >= 0)
				SYS(c, close(d));
			rfd = SYS(c, sandbox_openat(c->ns->r->rootfd, rel, flags | O_CLOEXEC, 0644));
		}
	}
	if (rfd < 0)
		return -1;
	if (o->failed) {
		SYS(c, close(rfd));	/* it failed originally: keep the trace's view */
		return 0;
	}
	fd_put(c, o->fd, rfd, !!(flags & O_CLOEXEC));
	return 0;
}

static int file_rw(struct rctx *c, const struct op *o, int out);

/* A memory file, made again (its name after "memfd:") */
int h_memfd(struct rctx *c, const struct op *o)
{
	const char *name = o->path && !strncmp(o->path, "memfd:", 6) ? o->path + 6 : "island";
	int rfd;

	if (o->fd < 0 || o->failed)
		return 0;
	if ((rfd = SYS(c, memfd_create(name, MFD_CLOEXEC))) < 0)
		return -1;
	fd_put(c, o->fd, rfd, 1);
	return 0;
}

/* The data calls, which glibc makes cancellation points in a process of
 * several threads: issued directly for a node of one thread (c->solo). */
static ssize_t rw(struct rctx *c, int out, int fd, char *b, size_t n, off_t off, int at)
{
	static const long nr[2][2] = { { SYS_read, SYS_pread64 }, { SYS_write, SYS_pwrite64 } };

	if (c->solo)
		return at ? syscall(nr[out][1], fd, b, n, off) : syscall(nr[out][0], fd, b, n);
	if (out)
		return at ? pwrite(fd, b, n, off) : write(fd, b, n);
	return at ? pread(fd, b, n, off) : read(fd, b, n);
}

static int sync_fd(struct rctx *c, int fd, int data)
{
	if (c->solo)
		return (int)syscall(data ? SYS_fdatasync : SYS_fsync, fd);
	return data ? fdatasync(fd) : fsync(fd);
}

/* What a stdio stream holds goes to the kernel in one write. */
static int stdio_out(struct rctx *c, const struct op *o, int64_t n)
{
	if (n <= 0)
		return 0;
	struct op w = *o;
	int64_t moved = c->moved;
	w.amount = n;
	w.has_amount = 1;
	w.has_offset = 0;
	int rc = o->res == RES_NETSEND || o->res == RES_NETRECV || o->proto ? h_send(c, &w) :
		 file_rw(c, &w, 1);
	c->moved = moved;	/* the bytes were the calls' that filled the buffer */
	return rc;
}

/* A stdio call its buffer answers makes no system call: it lasts its
 * original time, the library's, as h_spent's. */
int h_fflush(struct rctx *c, const struct op *o)
{
	int64_t n = stdio_flush(c, o->fd);

	return n > 0 ? stdio_out(c, o, n) : h_spent(c, o);
}

int h_close(struct rctx *c, const struct op *o)
{
	if (call_stdio(o->call) == STDIO_FLUSH && stdio_out(c, o, stdio_flush(c, o->fd)))
		return -1;
	int rfd = fd_take(c, o->fd);

	if (rfd < 0)
		return 0;
	return SYS(c, rfd_close(rfd));
}

/* A write that put down less than the trace's bytes lost data: counted,
 * and the replay's exit says so. */
static void unwritten(struct rctx *c, const struct op *o, int64_t n)
{
	if (!c->unwritten) {
		c->werr = errno;
		c->wpath = o->path;
	}
	c->unwritten += n;
}

/* A file read or write of the traced size, at its offset if it had one,
 * in chunks of IO_CHUNK; a read stops short where the file ends. */
static int file_rw(struct rctx *c, const struct op *o, int out)
{
	int fd = fd_get(c, o->fd, o);
	int64_t n = o->has_amount ? o->amount : o->size, done = 0;
	/* without an amount (the call failed) the request may be SSIZE_MAX:
	 * one call's worth, as the original made one call */
	if (!o->has_amount && (uint64_t)n > IO_CHUNK)
		n = (int64_t)IO_CHUNK;
	char *b = xbuf(c, n);
	int at = o->has_offset && o->whence < 0;
	ssize_t r = 0;

	if (fd < 0)
		return -1;
	while (done < n) {
		size_t k = (uint64_t)(n - done) < IO_CHUNK ? (size_t)(n - done) : IO_CHUNK;
		off_t off = (off_t)(o->offset + done);

		r = SYS(c, rw(c, out, fd, b, k, off, at));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		done += r;
		c->moved += r;
		if (!out && (size_t)r < k)
			break;
	}
	if (out && done < n) {
		if (r == 0)
			errno = ENOSPC;	/* a short write without a reason */
		unwritten(c, o, n - done);
		return -1;
	}
	return r < 0 ? -1 : 0;
}

/* A stream read on a file takes from its buffer; when the buffer lacks
 * bytes, one read of whole buffers brings them, as glibc's did (sqlite's
 * fgets of a script read 4096 bytes once for a hundred lines). Pipes and
 * sockets are read exactly: what a writer has not sent is not there. */
#define STDIO_BUF 4096
static int stdio_in(struct rctx *c, const struct op *o)
{
	int64_t n = o->has_amount ? o->amount : o->size;
	int64_t need = stdio_need(c, o->fd, n);

	c->moved += n;
	if (!need)
		return h_spent(c, o);
	int fd = fd_get(c, o->fd, o);
	if (fd < 0)
		return -1;
	int64_t want = (need + STDIO_BUF - 1) / STDIO_BUF * STDIO_BUF, got = 0;
	char *b = xbuf(c, want);
	/* one read, as glibc's; past IO_CHUNK in chunks while they fill */
	while (got < want) {
		size_t k = (uint64_t)(want - got) < IO_CHUNK ? (size_t)(want - got) : IO_CHUNK;
		ssize_t r = SYS(c, rw(c, 0, fd, b, k, 0, 0));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		got += r;
		if ((size_t)r < k)
			break;
	}
	stdio_got(c, o->fd, got, need);
	return 0;
}

int h_read(struct rctx *c, const struct op *o)
{
	if (call_stdio(o->call) == STDIO_READ && o->res == RES_FILEREAD && !o->failed && !o->proto &&
	    !o->kernel)
		return stdio_in(c, o);
	return o->res == RES_NETRECV ? h_recv(c, o) : file_rw(c, o, 0);
}

int h_write(struct rctx *c, const struct op *o)
{
	if (call_stdio(o->call) == STDIO_WRITE && !o->failed && !o->kernel) {
		int64_t n = o->has_amount ? o->amount : o->size, k = stdio_write(c, o->fd, n);
		int rc = k > 0 ? stdio_out(c, o, k) : h_spent(c, o);
		c->moved += n;
		return rc;
	}
	return o->res == RES_NETSEND ? h_send(c, o) : file_rw(c, o, 1);
}

int h_seek(struct rctx *c, const struct op *o)
{
	/* fseek, fseeko and rewind write out what the stream holds, and
	 * drop what it read ahead */
	if (o->call->api[0] != 'l') {
		if (stdio_out(c, o, stdio_flush(c, o->fd)))
			return -1;
		stdio_got(c, o->fd, 0, 0);
	}
	int fd = fd_get(c, o->fd, o);

	if (fd < 0)
		return -1;
	if (!strcmp(o->call->api, "rewind"))
		return SYS(c, lseek(fd, 0, SEEK_SET)) < 0 ? -1 : 0;
	/* the new offset is what matters; SEEK_END would depend on sizes */
	if (o->has_result && o->result >= 0)
		return SYS(c, lseek(fd, (off_t)o->result, SEEK_SET)) < 0 ? -1 : 0;
	return SYS(c, lseek(fd, (off_t)o->offset, o->whence < 0 ? SEEK_SET : o->whence)) < 0 ? -1 : 0;
}

static int has_flag(const struct op *o, const char *name);

/* sync writes out every file system; what the replay measures is the one
 * under the root: its syncfs. A range's sync starts or waits for the
 * writeback of its bytes, as its flags said (a trace without them: the
 * file's data, fdatasync). */
int h_sync(struct rctx *c, const struct op *o)
{
	const char *api = o->call->api;

	if (!strcmp(api, "sync"))
		return SYS(c, syncfs(c->ns->r->rootfd));
	int fd = fd_get(c, o->fd, o);
	if (fd < 0)
		return -1;
	if (!strcmp(api, "sync_file_range") && o->flags && o->has_offset) {
		unsigned fl = (has_flag(o, "SYNC_FILE_RANGE_WAIT_BEFORE") ? SYNC_FILE_RANGE_WAIT_BEFORE : 0) |
			      (has_flag(o, "SYNC_FILE_RANGE_WRITE") ? SYNC_FILE_RANGE_WRITE : 0) |
			      (has_flag(o, "SYNC_FILE_RANGE_WAIT_AFTER") ? SYNC_FILE_RANGE_WAIT_AFTER : 0);
		return SYS(c, sync_file_range(fd, (off_t)o->offset, (off_t)o->size, fl));
	}
	if (!strcmp(api, "fdatasync") || !strcmp(api, "sync_file_range"))
		return SYS(c, sync_fd(c, fd, 1));
	if (!strcmp(api, "syncfs"))
		return SYS(c, syncfs(fd));
	return SYS(c, sync_fd(c, fd, 0));
}

/* stat of a path is the commonest call of programs that check files
 * (sqlite stats its database before every transaction): the path resolved
 * beneath the root once is kept open (O_PATH), so that a stat is one
 * fstat, as the original's was one stat. Anything that removes or renames
 * a path empties the cache. Keys are the trace's interned path and cwd. */
#define STATCACHE 256
static struct { const char *path, *cwd; int fd; } statcache[STATCACHE];
static pthread_mutex_t statmu = PTHREAD_MUTEX_INITIALIZER;

static size_t stat_slot(const char *path, const char *cwd)
{
	return (((uintptr_t)path >> 4) ^ ((uintptr_t)cwd >> 6)) % STATCACHE;
}

/* path gone: its entries (and any relative one, which may name it too);
 * NULL: every entry (a directory renamed or removed) */
static void stat_forget(const char *path)
{
	pthread_mutex_lock(&statmu);
	for (size_t i = 0; i < STATCACHE; i++)
		if (statcache[i].path && (!path || path[0] != '/' || statcache[i].path == path ||
					  statcache[i].path[0] != '/')) {
			close(statcache[i].fd);
			statcache[i].path = NULL;
		}
	pthread_mutex_unlock(&statmu);
}

static int stat_path(struct rctx *c, const struct op *o, struct stat *st)
{
	const char *cwd = c->ns->n->procs[c->proc].cwd;
	size_t k = stat_slot(o->path, cwd);
	char rel[4096];
	int r;

	pthread_mutex_lock(&statmu);
	if (statcache[k].path == o->path && statcache[k].cwd == cwd) {
		r = SYS(c, fstat(statcache[k].fd, st));
		pthread_mutex_unlock(&statmu);
		return r;
	}
	pthread_mutex_unlock(&statmu);
	if (map_path(c, o->path, rel, sizeof(rel)))
		return errno = EINVAL, -1;
	int fd = SYS(c, sandbox_openat(c->ns->r->rootfd, rel, O_PATH | O_CLOEXEC, 0));
	if (fd < 0)
		return -1;
	r = SYS(c, fstat(fd, st));
	pthread_mutex_lock(&statmu);
	if (statcache[k].path)
		close(statcache[k].fd);
	statcache[k].path = o->path;
	statcache[k].cwd = cwd;
	statcache[k].fd = fd;
	pthread_mutex_unlock(&statmu);
	return r;
}

int h_stat(struct rctx *c, const struct op *o)
{
	struct stat st;

	if (o->fd >= 0 && !o->path) {
		int fd = fd_get(c, o->fd, o);
		return fd < 0 ? -1 : SYS(c, fstat(fd, &st));
	}
	if (o->fd >= 0 && (!strcmp(o->call->api, "fstat"))) {
		int fd = fd_get(c, o->fd, o);
		return fd < 0 ? -1 : SYS(c, fstat(fd, &st));
	}
	if (!o->path || sandbox_passthrough(o->path))
		return 0;
	/* lstat sees a symlink itself (git probes one it made, whose
	 * target does not exist): not cached, the cache follows links */
	if (!strcmp(o->call->api, "lstat")) {
		char rel[4096];
		if (map_path(c, o->path, rel, sizeof(rel)))
			return errno = EINVAL, -1;
		int fd = SYS(c, sandbox_openat(c->ns->r->rootfd, rel, O_PATH | O_NOFOLLOW | O_CLOEXEC, 0));
		if (fd < 0)
			return -1;
		int r = SYS(c, fstat(fd, &st));
		SYS(c, close(fd));
		return r;
	}
	return stat_path(c, o, &st);
}

int h_trunc(struct rctx *c, const struct op *o)
{
	int64_t len = o->has_offset ? o->offset : o->size;

	if (!strcmp(o->call->api, "ftruncate")) {
		int fd = fd_get(c, o->fd, o);
		return fd < 0 ? -1 : SYS(c, ftruncate(fd, (off_t)len));
	}
	char rel[4096];
	if (map_path(c, o->path, rel, sizeof(rel)))
		return errno = EINVAL, -1;
	int fd = SYS(c, sandbox_openat(c->ns->r->rootfd, rel, O_WRONLY | O_CLOEXEC, 0));
	if (fd < 0)
		return -1;
	int r = SYS(c, ftruncate(fd, (off_t)len));
	SYS(c, close(fd));
	return r;
}

/* Path calls work on the parent directory opened beneath the root, and
 * the last component, which is never "..": no *at call can leave. */
static int at_parent(struct rctx *c, const char *path, int mk, const char **base)
{
	char rel[4096];

	if (!path || map_path(c, path, rel, sizeof(rel)))
		return errno = EINVAL, -1;
	if (!strcmp(rel, "."))
		return errno = EBUSY, -1;
	int d = SYS(c, sandbox_parent(c->ns->r->rootfd, rel, mk, base));
	/* base points into rel: copy it to the caller's static use */
	static __thread char b[256];
	snprintf(b, sizeof(b), "%s", *base);
	*base = b;
	return d;
}

/* An unlink is as common as a create (sqlite's journal, once per
 * transaction): the directory, resolved beneath the root once, is kept
 * open like a stat's path, and the unlink is one unlinkat, as it was.
 * Under statmu: a rename or rmdir elsewhere empties the cache. */
static struct { const char *path, *cwd; int fd; char base[256]; } dircache[STATCACHE];

static void dir_forget(void)
{
	pthread_mutex_lock(&statmu);
	for (size_t i = 0; i < STATCACHE; i++)
		if (dircache[i].path) {
			close(dircache[i].fd);
			dircache[i].path = NULL;
		}
	pthread_mutex_unlock(&statmu);
}

int h_mkdir(struct rctx *c, const struct op *o)
{
	const char *base;
	int d = at_parent(c, o->path, 1, &base);

	if (d < 0)
		return -1;
	int r = SYS(c, mkdirat(d, base, 0755));
	SYS(c, close(d));
	return r && errno == EEXIST && !o->failed ? 0 : r;
}

int h_rmdir(struct rctx *c, const struct op *o)
{
	stat_forget(NULL);
	dir_forget();
	const char *base;
	int d = at_parent(c, o->path, 0, &base);

	if (d < 0)
		return -1;
	int r = SYS(c, unlinkat(d, base, AT_REMOVEDIR));
	SYS(c, close(d));
	return r;
}

int h_unlink(struct rctx *c, const struct op *o)
{
	const char *cwd = c->ns->n->procs[c->proc].cwd;
	size_t k = stat_slot(o->path, cwd);
	const char *base;

	stat_forget(o->path);
	pthread_mutex_lock(&statmu);
	if (dircache[k].path != o->path || dircache[k].cwd != cwd) {
		pthread_mutex_unlock(&statmu);
		int d = at_parent(c, o->path, 0, &base);
		if (d < 0)
			return -1;
		pthread_mutex_lock(&statmu);
		if (dircache[k].path)
			close(dircache[k].fd);
		dircache[k].path = o->path;
		dircache[k].cwd = cwd;
		dircache[k].fd = d;
		snprintf(dircache[k].base, sizeof(dircache[k].base), "%s", base);
	}
	int r = SYS(c, unlinkat(dircache[k].fd, dircache[k].base, 0));
	int dir = r && errno == EISDIR;
	if (dir)
		r = SYS(c, unlinkat(dircache[k].fd, dircache[k].base, AT_REMOVEDIR));
	pthread_mutex_unlock(&statmu);
	if (dir)
		dir_forget();
	return r;
}

/* path and path2's parents beneath the root, for a call on both (rename,
 * link): fn(parent1, name1, parent2, name2) */
static int two_parents(struct rctx *c, const struct op *o,
		       int (*fn)(int, const char *, int, const char *))
{
	const char *b1, *b2;
	char keep[256];
	int d1 = at_parent(c, o->path, 0, &b1);

	if (d1 < 0)
		return -1;
	snprintf(keep, sizeof(keep), "%s", b1);
	int d2 = at_parent(c, o->path2, 1, &b2);
	if (d2 < 0) {
		close(d1);
		return -1;
	}
	int r = SYS(c, fn(d1, keep, d2, b2));
	SYS(c, close(d1));
	SYS(c, close(d2));
	return r;
}

/* a symlink among them is linked, not followed */
static int link_at(int d1, const char *n1, int d2, const char *n2)
{
	return linkat(d1, n1, d2, n2, 0);
}

int h_rename(struct rctx *c, const struct op *o)
{
	stat_forget(NULL);
	dir_forget();
	return two_parents(c, o, renameat);
}

/* link, linkat: the new name beside the old one, both beneath the root */
int h_link(struct rctx *c, const struct op *o)
{
	return two_parents(c, o, link_at);
}

/*
 * symlink, symlinkat: the link's content names a path of the original
 * machine (absolute, or from the link's directory); here it names that
 * path under the root, relative to the link ("/usr/lib/x" from link
 * /a/b/l is "../../usr/lib/x"), so the link leads where the trace's did
 * and never out of the root (the lexical mapping keeps ".." beneath it;
 * openat2 RESOLVE_BENEATH refuses what else would).
 */
int h_symlink(struct rctx *c, const struct op *o)
{
	char rel[4096], dir[4098], to[4096], content[8192];
	const char *base;

	if (!o->path || !o->path2 || map_path(c, o->path, rel, sizeof(rel)))
		return errno = EINVAL, -1;
	/* the link's directory, as the trace names it: a relative target starts there */
	snprintf(dir, sizeof(dir), "/%s", rel);
	*strrchr(dir, '/') = 0;
	if (!sandbox_map(o->path2, *dir ? dir : "/", to, sizeof(to)))
		return errno = ENAMETOOLONG, -1;
	size_t n = 0;
	for (const char *p = strchr(rel, '/'); p; p = strchr(p + 1, '/'))
		n += (size_t)snprintf(content + n, sizeof(content) - n, "../");
	if (n + strlen(to) + 1 > sizeof(content))
		return errno = ENAMETOOLONG, -1;
	strcpy(content + n, to);
	int d = at_parent(c, o->path, 1, &base);
	if (d < 0)
		return -1;
	int r = SYS(c, symlinkat(content, d, base));
	SYS(c, close(d));
	return r;
}

static int has_flag(const struct op *o, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = o->flags; p && (p = strstr(p, name)); p += n)
		if ((p == o->flags || p[-1] == '|') && (p[n] == 0 || p[n] == '|'))
			return 1;
	return 0;
}

/* F_SETFL's appending on a file, as the original's writes appended (a
 * socket's or pipe's O_NONBLOCK is not the replay's: it waits its own
 * way) */
static int set_append(struct rctx *c, const struct op *o)
{
	if (o->res != RES_FILEMETA || !o->path || o->peer || o->proto)
		return h_spent(c, o);
	int fd = fd_get(c, o->fd, o);
	if (fd < 0)
		return -1;
	int fl = SYS(c, fcntl(fd, F_GETFL));
	if (fl < 0)
		return -1;
	int want = has_flag(o, "O_APPEND") ? fl | O_APPEND : fl & ~O_APPEND;
	return want == fl ? 0 : SYS(c, fcntl(fd, F_SETFL, want));
}

/* What a control did to the descriptor table: close-on-exec set or
 * cleared, which an exec then honours (git's exec-status pipe: its write
 * end must close at the exec, or the parent's read never ends). The
 * call's time is spent as the original's. */
static int fd_ctl(struct rctx *c, const struct op *o)
{
	if (o->failed || o->fd < 0 || !o->cmd)
		return h_spent(c, o);
	if (!strcmp(o->cmd, "F_SETFD"))
		fd_cloexec(c, o->fd, has_flag(o, "FD_CLOEXEC"));
	else if (!strcmp(o->cmd, "FIOCLEX") || !strcmp(o->cmd, "FIONCLEX"))
		fd_cloexec(c, o->fd, o->cmd[3] == 'C');
	else if (!strcmp(o->cmd, "F_SETFL"))
		return set_append(c, o);
	return h_spent(c, o);
}

int h_ioctl(struct rctx *c, const struct op *o)
{
	return fd_ctl(c, o);
}

/* dup*, fcntl(F_DUPFD*): the new trace fd gets a duplicate of the old
 * one's replay fd, close-on-exec as the original's (dup3's O_CLOEXEC,
 * F_DUPFD_CLOEXEC). Other fcntl commands: fd_ctl. */
int h_dup(struct rctx *c, const struct op *o)
{
	if (o->oldfd < 0 && o->call->api[0] == 'f')
		return fd_ctl(c, o);
	if (o->oldfd < 0 || o->fd < 0 || o->failed)
		return 0;
	int old = fd_get(c, o->oldfd, o);
	if (old < 0)
		return -1;
	int nfd = SYS(c, rfd_dup(old));
	if (nfd < 0)
		return -1;
	fd_put(c, o->fd, nfd, has_flag(o, "O_CLOEXEC") ||
	       (o->cmd && !strcmp(o->cmd, "F_DUPFD_CLOEXEC")));
	return 0;
}

/* fallocate, posix_fallocate: the blocks taken (or a hole punched) as the
 * original's, whatever the file system does with them; one without it
 * (tmpfs before 3.5, some network file systems) writes nothing (glibc's
 * posix_fallocate would write zeros: the original's file system did not
 * need to, or the trace holds those writes) */
static const struct { const char *name; int mode; } falloc_modes[] = {
	{ "FALLOC_FL_KEEP_SIZE", FALLOC_FL_KEEP_SIZE },
	{ "FALLOC_FL_PUNCH_HOLE", FALLOC_FL_PUNCH_HOLE },
	{ "FALLOC_FL_COLLAPSE_RANGE", FALLOC_FL_COLLAPSE_RANGE },
	{ "FALLOC_FL_ZERO_RANGE", FALLOC_FL_ZERO_RANGE },
	{ "FALLOC_FL_INSERT_RANGE", FALLOC_FL_INSERT_RANGE },
	{ "FALLOC_FL_UNSHARE_RANGE", FALLOC_FL_UNSHARE_RANGE },
};

int h_falloc(struct rctx *c, const struct op *o)
{
	int mode = 0;

	if (o->failed)
		return h_spent(c, o);
	for (size_t i = 0; i < sizeof(falloc_modes) / sizeof(*falloc_modes); i++)
		if (has_flag(o, falloc_modes[i].name))
			mode |= falloc_modes[i].mode;
	int fd = fd_get(c, o->fd, o);
	if (fd < 0)
		return -1;
	int r = SYS(c, fallocate(fd, mode, (off_t)o->offset, (off_t)o->size));
	return r && errno == EOPNOTSUPP ? 0 : r;
}

/* sendfile, copy_file_range, splice: the kernel copies; so do we. */
int h_copy(struct rctx *c, const struct op *o)
{
	int out = fd_get(c, o->fd, o), in;
	struct op src = *o;

	src.fd = o->infd;
	src.path = o->inpath;
	src.res = RES_FILEREAD;
	in = fd_get(c, o->infd, &src);
	if (out < 0 || in < 0)
		return -1;
	int64_t n = o->amount;
	/* from a sink (a pipe in the modes without causality, a peer
	 * outside): what the trace moved is put there first, in pieces
	 * its buffer holds (grep splices its stdin to /dev/null) */
	int sink = net_is_sink(in);
	while (n > 0) {
		size_t k = (uint64_t)n < IO_CHUNK ? (size_t)n : IO_CHUNK;
		if (sink && k > 65536)
			k = 65536;
		char *b = xbuf(c, (int64_t)k);
		if (sink && net_inject(in, b, k) < 0)
			return -1;
		ssize_t r = sink ? -1 : SYS(c, copy_file_range(in, NULL, out, NULL, k, 0));
		if (r <= 0) {
			/* across file systems or from a pipe: plain copy;
			 * all of what was put in a sink, or it stays there */
			r = 0;
			do {
				ssize_t g = SYS(c, read(in, b + r, k - (size_t)r));
				if (g < 0 && errno == EINTR)
					continue;
				if (g < 0 && !r)
					return -1;
				if (g <= 0)
					break;
				r += g;
			} while (sink && (size_t)r < k);
			/* a file at its end: the original read at an offset
			 * it gave (splice, sendfile, copy_file_range with
			 * off_in), which the trace does not hold: its bytes
			 * are written all the same */
			struct stat st;
			if (r == 0 && !sink && !fstat(in, &st) && S_ISREG(st.st_mode))
				r = (ssize_t)k;
			if (r == 0)
				return 0;
			if (SYS(c, write_full(out, b, (size_t)r)) < 0) {
				unwritten(c, o, n);
				return -1;
			}
		}
		c->moved += r;
		n -= r;
	}
	return 0;
}
