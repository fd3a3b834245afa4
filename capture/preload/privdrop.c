/*
 * A process that gives up root (setuid, setreuid, setresuid: runuser -u,
 * su, a server's workers) runs as it would without us, and keeps being
 * recorded. Its next image opens the spool's files again as the new user
 * (arena, limits, profile, callsites: init.c), its calls may create the
 * spool's warnings (sud.c), a session node maps the session file, and a
 * cluster node's scratch (ISLAND_SHARE, from the runner) is the node's to
 * use: all of them root's, 0600 and 0700, and the directories above them
 * too. Before the call, while the process still may, each gets an ACL
 * entry for the new user alone (acl.h), and each directory above it that
 * not everyone may pass an entry to pass (x): no other user reaches any
 * of it (docs/design.md, Privilege changes).
 */
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "preload.h"
#ifndef ISLAND_LOADER
#include "real.h"
#endif
#include "../acl.h"

static char share[1024];                /* ISLAND_SHARE: DIR[:DIR...] */
static char session_file[600];          /* ISLAND_SESSION */
static uint32_t granted[8];             /* users already given it all */
static int ngranted;

void priv_init(void)
{
	const char *s = getenv(ENV_SHARE), *f = getenv(ENV_SESSION);

	if (s && strlen(s) < sizeof(share))
		strcpy(share, s);
	if (f && strlen(f) < sizeof(session_file))
		strcpy(session_file, f);
}

const char *priv_share(void)
{
	return share;
}

/* One path's ACL with uid given perm; 0, or -1. */
static int grant_one(const char *path, uint32_t uid, unsigned perm)
{
	char in[4 + ACL_MAX * sizeof(struct acl_ent)], out[sizeof(in) + 4 * sizeof(struct acl_ent)];
	struct stat st;

	if (raw_syscall(SYS_lstat, (long)path, (long)&st, 0, 0, 0, 0) < 0)
		return -1;
	if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode))
		return -1;              /* a link is not followed */
	long len = raw_syscall(SYS_lgetxattr, (long)path, (long)ACL_XATTR, (long)in,
			       sizeof(in), 0, 0);
	if (len < 0 && errno != ENODATA)
		return -1;
	size_t n = acl_add_user(in, len < 0 ? 0 : (size_t)len, st.st_mode & 0777, uid, perm, out);
	if (!n)
		return -1;
	return raw_syscall(SYS_lsetxattr, (long)path, (long)ACL_XATTR, (long)out, (long)n,
			   0, 0) < 0 ? -1 : 0;
}

/* The directories above path (len bytes of it), each passed through by
 * uid where not every user may pass. */
static void grant_above(const char *path, size_t len, uint32_t uid)
{
	char p[1024];
	struct stat st;

	if (len >= sizeof(p))
		return;
	memcpy(p, path, len);
	p[len] = 0;
	for (;;) {
		char *slash = strrchr(p, '/');
		if (!slash || slash == p)
			return;
		*slash = 0;
		if (raw_syscall(SYS_stat, (long)p, (long)&st, 0, 0, 0, 0) == 0 &&
		    !(st.st_mode & S_IXOTH))
			grant_one(p, uid, 1);
	}
}

static void grant_path(const char *path, size_t len, uint32_t uid, unsigned perm)
{
	char p[1024];

	if (!len || len >= sizeof(p) || path[0] != '/')
		return;
	memcpy(p, path, len);
	p[len] = 0;
	grant_above(p, len, uid);
	grant_one(p, uid, perm);
}

static void grant(uint32_t uid)
{
	static const char *const files[] = { ARENA_FILE, LIMITS_FILE, PROFILE_FILE,
					     CALLSITES_FILE, "warnings" };
	const char *dir = island_spool_dir();
	size_t dl = strlen(dir);
	char p[1024];

	for (int i = 0; i < ngranted; i++)
		if (granted[i] == uid)
			return;
	if (dl && dl + 32 < sizeof(p)) {
		grant_path(dir, dl, uid, 7);
		for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
			memcpy(p, dir, dl);
			p[dl] = '/';
			strcpy(p + dl + 1, files[i]);
			grant_one(p, uid, 6);
		}
	}
	if (session_file[0])
		grant_path(session_file, strlen(session_file), uid, 6);
	for (const char *s = share; *s;) {
		const char *end = strchr(s, ':');
		size_t l = end ? (size_t)(end - s) : strlen(s);
		grant_path(s, l, uid, 7);
		s += l + (end != NULL);
	}
	if (ngranted < (int)(sizeof(granted) / sizeof(granted[0])))
		granted[ngranted++] = uid;
}

/* Before a set*uid call of these ids (-1: unchanged), made as root. */
void priv_drop(long r, long e)
{
	int err = errno;

	if (island_on && raw_syscall(SYS_geteuid, 0, 0, 0, 0, 0, 0) == 0) {
		if ((uid_t)r != (uid_t)-1 && (uid_t)r != 0)
			grant((uint32_t)r);
		if ((uid_t)e != (uid_t)-1 && (uid_t)e != 0 && e != r)
			grant((uint32_t)e);
	}
	errno = err;
}

#ifndef ISLAND_LOADER
/* Not recorded: the calls are no I/O; they only come first. */
EXPORT int setuid(uid_t uid)
{
	priv_drop(uid, uid);
	return REAL(setuid)(uid);
}

EXPORT int setreuid(uid_t r, uid_t e)
{
	priv_drop(r, e);
	return REAL(setreuid)(r, e);
}

EXPORT int setresuid(uid_t r, uid_t e, uid_t s)
{
	priv_drop(r, e);
	if (s != r && s != e)
		priv_drop(s, s);
	return REAL(setresuid)(r, e, s);
}
#endif
