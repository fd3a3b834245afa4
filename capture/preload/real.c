/* The one place where the real functions are looked up. */
#include <dlfcn.h>

#include "preload.h"
#include "real.h"
#include "symfind.h"

#define R(fn) __attribute__((visibility("hidden"))) __typeof__(fn) *real_##fn;
#define RV(fn, ver) R(fn)
#include "reals.def"
#undef R
#undef RV

static void *lookup(const char *name, const char *ver)
{
	void *p = NULL;

	if (ver)
		p = dlvsym(RTLD_NEXT, name, ver);
	if (!p)
		p = dlsym(RTLD_NEXT, name);
	return p;
}

#define R(fn) { #fn, NULL, (void **)&real_##fn },
#define RV(fn, ver) { #fn, ver, (void **)&real_##fn },
static const struct sym_want reals[] = {
#include "reals.def"
};
#undef R
#undef RV
#define NREALS (sizeof(reals) / sizeof(reals[0]))

/* Resolve everything once. Called from the constructor, and from any
 * wrapper that runs before it (another library's constructor). All at
 * once in the objects after ours (symfind.c); what that leaves, and a
 * version not found (dlvsym's fallback below), by dlsym. */
void real_resolve(void)
{
	static int done;
	struct link_map *self = NULL;
	Dl_info info;
	int e = errno;

	if (__atomic_load_n(&done, __ATOMIC_ACQUIRE))
		return;
	if (!dladdr1((void *)real_resolve, &info, (void **)&self, RTLD_DL_LINKMAP))
		self = NULL;
	int left = self ? sym_find_after(self, reals, NREALS) : -1;
	for (size_t k = 0; left && k < NREALS; k++)
		if (!*reals[k].out)
			*reals[k].out = lookup(reals[k].name, reals[k].ver);
	__atomic_store_n(&done, 1, __ATOMIC_RELEASE);
	errno = e;
}
