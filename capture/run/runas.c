/*
 * --user NAME: the app runs as NAME (its uid, gid and groups, as
 * runuser -u NAME would start it) while the capture stays the user who
 * ran it, and writes the trace as that user. What the app's images open
 * of the capture's (the spool's files, the session file) and a cluster
 * node's directories (ISLAND_SHARE) get an ACL entry for NAME alone;
 * the interposer does the same for a user the app drops to by itself
 * (capture/preload/privdrop.c).
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "acl.h"
#include "capture.h"
#include "capture/run/run.h"
#include "spool.h"
#include "util.h"

void runas_lookup(struct runas *r, const char *name)
{
	struct passwd *pw = getpwnam(name);
	char *end;

	if (!pw) {
		long id = strtol(name, &end, 10);
		if (*name && !*end && id >= 0)
			pw = getpwuid((uid_t)id);
	}
	if (!pw)
		die(2, "--user %s: no such user", name);
	if (geteuid() != 0)
		die(2, "--user %s: only root may run the program as another user", name);
	r->name = xstrdup(pw->pw_name);
	r->uid = pw->pw_uid;
	r->gid = pw->pw_gid;
}

static int grant_one(const char *path, uid_t uid, unsigned perm)
{
	char in[4 + ACL_MAX * sizeof(struct acl_ent)], out[sizeof(in) + 4 * sizeof(struct acl_ent)];
	struct stat st;

	if (lstat(path, &st) < 0)
		return -1;
	if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode)) {
		errno = ELOOP;
		return -1;
	}
	ssize_t len = lgetxattr(path, ACL_XATTR, in, sizeof(in));
	if (len < 0 && errno != ENODATA)
		return -1;
	size_t n = acl_add_user(in, len < 0 ? 0 : (size_t)len, st.st_mode & 0777,
				(uint32_t)uid, perm, out);
	if (!n) {
		errno = E2BIG;
		return -1;
	}
	return lsetxattr(path, ACL_XATTR, out, n, 0);
}

int runas_grant(const struct runas *r, const char *path, unsigned perm)
{
	char *p = xstrdup(path), *slash;
	struct stat st;

	while ((slash = strrchr(p, '/')) && slash != p) {
		*slash = 0;
		if (stat(p, &st) == 0 && !(st.st_mode & S_IXOTH) && grant_one(p, r->uid, 1) < 0) {
			free(p);
			return -1;
		}
	}
	free(p);
	return grant_one(path, r->uid, perm);
}

int runas_grant_capture(const struct runas *r, const char *spool, const char *session)
{
	static const char *const files[] = { ARENA_FILE, LIMITS_FILE, PROFILE_FILE,
					     CALLSITES_FILE };
	const char *share = getenv(ENV_SHARE);

	if (runas_grant(r, spool, 7) < 0)
		return -1;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char *f = xasprintf("%s/%s", spool, files[i]);
		int rc = grant_one(f, r->uid, 6);
		free(f);
		if (rc < 0 && errno != ENOENT)
			return -1;
	}
	if (session && runas_grant(r, session, 6) < 0)
		return -1;
	for (const char *s = share; s && *s;) {
		const char *end = strchr(s, ':');
		char *d = xasprintf("%.*s", (int)(end ? (size_t)(end - s) : strlen(s)), s);
		int rc = *d ? runas_grant(r, d, 7) : 0;
		free(d);
		if (rc < 0)
			return -1;
		s = end ? end + 1 : s + strlen(s);
	}
	return 0;
}

int runas_become(const struct runas *r)
{
	if (initgroups(r->name, r->gid) < 0 || setgid(r->gid) < 0 || setuid(r->uid) < 0)
		return -1;
	return 0;
}
