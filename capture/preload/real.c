/* The one place where the real functions are looked up. */
#include <dlfcn.h>

#include "preload.h"
#include "real.h"

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

/* Resolve everything once. Called from the constructor, and from any
 * wrapper that runs before it (another library's constructor). */
void real_resolve(void)
{
	static int done;
	int e = errno;

	if (__atomic_load_n(&done, __ATOMIC_ACQUIRE))
		return;
#define R(fn) real_##fn = (__typeof__(fn) *)lookup(#fn, NULL);
#define RV(fn, ver) real_##fn = (__typeof__(fn) *)lookup(#fn, ver);
#include "reals.def"
#undef R
#undef RV
	__atomic_store_n(&done, 1, __ATOMIC_RELEASE);
	errno = e;
}
