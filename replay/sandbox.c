/* Path mapping: every path of the trace lives under --root. The mapping is
 * lexical first ("/../../etc/passwd" is "etc/passwd" under the root), then
 * the kernel resolves it with openat2(RESOLVE_BENEATH): a symlink planted
 * under the root cannot lead out of it either. */
#include "replay.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define BENEATH (RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS)

/* Append the components of p to out (a stack of components). */
static int push_path(char *out, size_t *len, size_t cap, const char *p)
{
	while (*p) {
		while (*p == '/')
			p++;
		const char *e = strchrnul(p, '/');
		size_t n = (size_t)(e - p);
		if (n == 0)
			break;
		if (n == 1 && p[0] == '.') {
			/* nothing */
		} else if (n == 2 && p[0] == '.' && p[1] == '.') {
			/* at the root ".." stays at the root, like the kernel */
			char *s = memrchr(out, '/', *len);
			*len = s ? (size_t)(s - out) : 0;
		} else {
			if (*len + n + 2 > cap)
				return -1;
			if (*len)
				out[(*len)++] = '/';
			memcpy(out + *len, p, n);
			*len += n;
		}
		p = e;
	}
	out[*len] = 0;
	return 0;
}

char *sandbox_map(const char *path, const char *cwd, char *buf, size_t len)
{
	size_t n = 0;

	if (!path || !*path || len < 2)
		return NULL;
	buf[0] = 0;
	if (path[0] != '/' && cwd && push_path(buf, &n, len, cwd))
		return NULL;
	if (push_path(buf, &n, len, path))
		return NULL;
	if (!n)
		strcpy(buf, ".");
	return buf;
}

int sandbox_openat(int rootfd, const char *rel, int flags, int mode)
{
	struct open_how how = {
		.flags = (uint64_t)flags,
		/* O_TMPFILE holds O_DIRECTORY's bit: an opendir is no create,
		 * and openat2 refuses a mode without one */
		.mode = (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (uint64_t)mode : 0,
		.resolve = BENEATH,
	};

	/* absolute or ".." would be refused by the kernel anyway; say so first */
	if (rel[0] == '/' || !strcmp(rel, "..") || !strncmp(rel, "../", 3) ||
	    strstr(rel, "/../") || (strlen(rel) >= 3 && !strcmp(rel + strlen(rel) - 3, "/.."))) {
		errno = EXDEV;
		return -1;
	}
	return (int)syscall(SYS_openat2, rootfd, rel, &how, sizeof(how));
}

int sandbox_parent(int rootfd, const char *rel, int mk, const char **base)
{
	char dir[4096];
	const char *s = strrchr(rel, '/');

	*base = s ? s + 1 : rel;
	if (!s)
		return sandbox_openat(rootfd, ".", O_PATH | O_DIRECTORY, 0);
	size_t n = (size_t)(s - rel);
	if (n >= sizeof(dir)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(dir, rel, n);
	dir[n] = 0;
	int fd = sandbox_openat(rootfd, dir, O_PATH | O_DIRECTORY, 0);
	if (fd >= 0 || !mk || errno != ENOENT)
		return fd;
	/* mkdir -p, one component at a time, each beneath the root */
	int cur = sandbox_openat(rootfd, ".", O_PATH | O_DIRECTORY, 0);
	for (char *p = dir; cur >= 0 && *p;) {
		char *e = strchrnul(p, '/');
		char save = *e;
		*e = 0;
		if (mkdirat(cur, p, 0755) && errno != EEXIST) {
			close(cur);
			return -1;
		}
		int next = sandbox_openat(cur, p, O_PATH | O_DIRECTORY, 0);
		close(cur);
		cur = next;
		*e = save;
		p = save ? e + 1 : e;
	}
	return cur;
}

int sandbox_passthrough(const char *path)
{
	static const char *const dev[] = { "/dev/null", "/dev/zero", "/dev/full",
		"/dev/random", "/dev/urandom", NULL };

	for (int i = 0; path && dev[i]; i++)
		if (!strcmp(path, dev[i]))
			return 1;
	return 0;
}

int sandbox_open_root(const char *dir)
{
	if (mkdir(dir, 0755) && errno != EEXIST)
		return -1;
	return open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

/* openat2 appeared in Linux 5.6; without it we refuse to run rather than
 * fall back to a check that symlinks could fool. */
int sandbox_supported(int rootfd)
{
	int fd = sandbox_openat(rootfd, ".", O_PATH | O_DIRECTORY, 0);

	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

/* path made absolute, symlinks resolved, also when its last components
 * do not exist yet (a root is created when missing). */
static char *abs_path(const char *path)
{
	char *r = realpath(path, NULL);

	if (r || errno != ENOENT)
		return r;
	char *d = xstrdup(path), *b = xstrdup(path);
	char *parent = abs_path(dirname(d)), *base = basename(b);
	if (parent && strcmp(base, ".") && strcmp(base, "..") && strcmp(base, "/"))
		r = xasprintf("%s%s%s", parent, strcmp(parent, "/") ? "/" : "", base);
	free(parent);
	free(d);
	free(b);
	return r;
}

static int holds(const char *dir, const char *path)
{
	size_t l = strlen(dir);

	return !strcmp(dir, "/") ||
	       (!strncmp(path, dir, l) && (path[l] == '/' || path[l] == 0));
}

void root_check(const char *root, char *const *keep, int nkeep)
{
	static const char *const own[] = { "island-replay", "island-capture",
		"island-analyze", "../lib/libisland-capture.so",
		"../lib/island/libisland-capture.so" };
	char *abs = abs_path(root), *self = realpath("/proc/self/exe", NULL);

	if (!abs)
		die(2, "--root %s:", root);
	if (!strcmp(abs, "/"))
		die(2, "--root %s: refused: the replay would write over the whole system", root);
	for (int i = 0; i < nkeep; i++) {
		char *t = realpath(keep[i], NULL);
		if (t && holds(abs, t))
			die(2, "--root %s: refused: it holds the trace %s", root, t);
		free(t);
	}
	char *dir = self ? dirname(self) : NULL;
	for (size_t i = 0; dir && i < sizeof(own) / sizeof(own[0]); i++) {
		char *p = xasprintf("%s/%s", dir, own[i]), *real = realpath(p, NULL);
		if (real && holds(abs, real))
			die(2, "--root %s: refused: it holds Island's own %s", root, real);
		free(real);
		free(p);
	}
	free(self);
	free(abs);
	/* an earlier replay's files change this one (a create finds its
	 * file, a directory its entries): a fresh file system's lost+found
	 * aside */
	DIR *d = opt.reuse_root ? NULL : opendir(root);
	struct dirent *e;
	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
		    strcmp(e->d_name, "lost+found"))
			die(2, "--root %s: refused: not empty (it holds %s; --reuse-root to replay over it)",
			    root, e->d_name);
	if (d)
		closedir(d);
}

/* The root: --root, or name (a fresh one chosen by rank 0 under MPI), or
 * a fresh replay-root.XXXXXX here; its absolute name printed when say. */
int root_open(const char *name, int say)
{
	char *root = (char *)(opt.root ? opt.root : name);

	if (!root) {
		root = xstrdup("replay-root.XXXXXX");
		if (!mkdtemp(root))
			die(1, "cannot create %s:", root);
	}
	int rootfd = sandbox_open_root(root);
	if (rootfd < 0)
		die(1, "%s:", root);
	if (!sandbox_supported(rootfd))
		die(1, "%s: openat2(RESOLVE_BENEATH) is not supported here: refusing to replay without it", root);
	char *abs = realpath(root, NULL);
	opt.root = abs ? abs : root;
	if (say && !opt.quiet)
		printf("island-replay: root %s\n", opt.root);
	return rootfd;
}
