/*
 * One user's entry added to a POSIX ACL (the kernel's xattr form,
 * system.posix_acl_access): how a process that drops root, and a cluster
 * node's user, get into the capture's own files and directories while
 * no other user does (docs/design.md, Privilege changes). Pure: the
 * interposer (raw system calls, no libc) and the runner (libc) read and
 * write the attribute each their own way.
 */
#ifndef ISLAND_ACL_H
#define ISLAND_ACL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define ACL_XATTR "system.posix_acl_access"
#define ACL_VERSION 2
enum { ACL_T_USER_OBJ = 1, ACL_T_USER = 2, ACL_T_GROUP_OBJ = 4, ACL_T_GROUP = 8,
       ACL_T_MASK = 0x10, ACL_T_OTHER = 0x20 };
#define ACL_MAX 32                  /* entries: more are left as they are */

struct acl_ent {
	uint16_t tag, perm;
	uint32_t id;
};

/* Into out (room for 4 + 8 * ACL_MAX bytes): the ACL in (len bytes, 0 for
 * none: the file's mode stands for it) with user uid given perm (rwx
 * bits) too, and the mask widened to let it through. Its length, or 0
 * when in is not an ACL this understands or is full (nothing to set). */
static inline size_t acl_add_user(const void *in, size_t len, unsigned mode,
				  uint32_t uid, unsigned perm, void *out)
{
	struct acl_ent e[ACL_MAX + 4];
	size_t n = 0, k = 0;
	uint32_t ver = ACL_VERSION;
	int have_mask = 0, placed = 0;

	if (len) {
		if (len < 4 || (len - 4) % sizeof(struct acl_ent) ||
		    (len - 4) / sizeof(struct acl_ent) > ACL_MAX)
			return 0;
		memcpy(&ver, in, 4);
		if (ver != ACL_VERSION)
			return 0;
		n = (len - 4) / sizeof(struct acl_ent);
		memcpy(e, (const char *)in + 4, n * sizeof(struct acl_ent));
	} else {
		e[n++] = (struct acl_ent){ ACL_T_USER_OBJ, (mode >> 6) & 7, (uint32_t)-1 };
		e[n++] = (struct acl_ent){ ACL_T_GROUP_OBJ, (mode >> 3) & 7, (uint32_t)-1 };
		e[n++] = (struct acl_ent){ ACL_T_OTHER, mode & 7, (uint32_t)-1 };
	}
	struct acl_ent o[ACL_MAX + 4];
	unsigned group_class = 0;
	/* the kernel's order: USER_OBJ, USER by id, GROUP_OBJ, GROUP by id,
	 * MASK, OTHER */
	for (size_t i = 0; i < n; i++) {
		struct acl_ent x = e[i];
		if (x.tag == ACL_T_USER && x.id == uid) {
			x.perm |= perm;
			placed = 1;
		}
		if (!placed && ((x.tag == ACL_T_USER && x.id > uid) || x.tag > ACL_T_USER)) {
			o[k++] = (struct acl_ent){ ACL_T_USER, perm & 7, uid };
			group_class |= perm & 7;
			placed = 1;
		}
		if (x.tag == ACL_T_MASK) {
			have_mask = 1;
			x.perm |= perm & 7;
		}
		if (x.tag == ACL_T_OTHER && !have_mask) {
			/* no mask yet: one over every group-class entry */
			for (size_t j = 0; j < k; j++)
				if (o[j].tag == ACL_T_USER || o[j].tag == ACL_T_GROUP_OBJ ||
				    o[j].tag == ACL_T_GROUP)
					group_class |= o[j].perm;
			o[k++] = (struct acl_ent){ ACL_T_MASK, group_class & 7, (uint32_t)-1 };
			have_mask = 1;
		}
		o[k++] = x;
	}
	if (!placed || k > ACL_MAX)
		return 0;
	memcpy(out, &ver, 4);
	memcpy((char *)out + 4, o, k * sizeof(struct acl_ent));
	return 4 + k * sizeof(struct acl_ent);
}

#endif
