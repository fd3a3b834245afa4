/* One user's entry added to a POSIX ACL (capture/acl.h: the xattr the
 * kernel gives, read by the interposer and the runner) on any bytes: the
 * first four name the mode, the user and the permission, the rest is
 * the ACL read. The result is an ACL the kernel's order allows, with
 * the user's entry, or nothing. */
#include <assert.h>
#include <stdint.h>
#include <string.h>

#include "acl.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char out[4 + (ACL_MAX + 4) * sizeof(struct acl_ent)];
	struct acl_ent e[ACL_MAX + 4];

	if (size < 4)
		return 0;
	unsigned mode = (unsigned)(data[0] | data[1] << 8) & 0777;
	uint32_t uid = data[2];
	unsigned perm = data[3] & 7;
	size_t n = acl_add_user(data + 4, size - 4, mode, uid, perm, out);
	if (!n)
		return 0;
	assert(n >= 4 + 4 * sizeof(struct acl_ent) && n <= 4 + ACL_MAX * sizeof(struct acl_ent));
	size_t k = (n - 4) / sizeof(struct acl_ent);
	memcpy(e, out + 4, k * sizeof(struct acl_ent));
	int seen = 0, mask = 0;
	for (size_t i = 0; i < k; i++) {
		if (e[i].tag == ACL_T_USER && e[i].id == uid)
			seen = (e[i].perm & perm) == perm;
		mask |= e[i].tag == ACL_T_MASK && (e[i].perm & perm) == perm;
	}
	assert(seen && mask);
	return 0;
}
