/* The kernel's names of system calls, generated from <asm/unistd.h> at
 * build time (capture/build.mk): the api of a kernel-level record. */
#include "capture.h"

static const char *const names[1024] = {
#include "sysnames.h"
};

const char *sys_name(int nr)
{
	return nr >= 0 && nr < 1024 && names[nr] ? names[nr] : "unknown";
}
