/* --user, and a cluster node's user=: the app run as another user, and
 * the capture's files and the node's directories opened to that user
 * alone (ACLs, acl.h; docs/design.md, Privilege changes). */
#ifndef ISLAND_RUNAS_H
#define ISLAND_RUNAS_H

#include <sys/types.h>

struct runas {
	const char *name;
	uid_t uid;
	gid_t gid;
};

/* NAME (a user name or a number) looked up; exits 2 with a message when
 * there is no such user or we are not root. */
void runas_lookup(struct runas *r, const char *name);
/* PATH given perm (rwx bits) for the user, each directory above it
 * that not every user may pass made passable (x) for the user: 0, or
 * -1 (errno) */
int runas_grant(const struct runas *r, const char *path, unsigned perm);
/* The spool's files, the session file, the ISLAND_SHARE directories:
 * what the interposer opens in the app's images (privdrop.c) */
int runas_grant_capture(const struct runas *r, const char *spool, const char *session);
/* In the app's child, before its exec: the user's groups, gid, uid */
int runas_become(const struct runas *r);

#endif
