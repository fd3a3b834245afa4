/* The interposer's lookup of its real functions (capture/preload/
 * symfind.c) against the loader's own: each name of reals.def it settles
 * is what dlsym(RTLD_NEXT) or dlvsym gives from here, and it settles all
 * but the IFUNCs, which it leaves to dlsym. */
#include "unit.h"
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "preload/symfind.c"

static void *got[512];
#define R(fn) { #fn, NULL, &got[__COUNTER__] },
#define RV(fn, ver) { #fn, ver, &got[__COUNTER__] },
static const struct sym_want reals[] = {
#include "preload/reals.def"
	{ "island_no_such_function", NULL, &got[__COUNTER__] },
	{ "pthread_cond_wait", NULL, &got[__COUNTER__] },     /* the default */
	{ "posix_spawn", "GLIBC_0.0", &got[__COUNTER__] },    /* no such version */
};
#undef R
#undef RV
#define N (sizeof(reals) / sizeof(reals[0]))

static struct link_map *self_map(void)
{
	struct link_map *m = NULL;
	Dl_info i;

	CU_ASSERT_FATAL(dladdr1((void *)self_map, &i, (void **)&m, RTLD_DL_LINKMAP) != 0);
	return m;
}

static void test_as_the_loader(void)
{
	int left = sym_find_after(self_map(), reals, N), unsettled = 0, ifuncs = 0;

	CU_ASSERT(N <= sizeof(got) / sizeof(got[0]));
	CU_ASSERT(left >= 0);
	for (size_t k = 0; k < N; k++) {
		void *ref = reals[k].ver ? dlvsym(RTLD_NEXT, reals[k].name, reals[k].ver)
					 : dlsym(RTLD_NEXT, reals[k].name);
		if (!*reals[k].out) {
			unsettled++;
			/* left to dlsym: an IFUNC (what dlsym gives is not
			 * the symbol's own address), or absent as here */
			if (ref)
				ifuncs++;
			continue;
		}
		if (*reals[k].out != ref)
			printf("\n%s%s%s: %p, the loader %p", reals[k].name,
			       reals[k].ver ? "@" : "", reals[k].ver ? reals[k].ver : "",
			       *reals[k].out, ref);
		CU_ASSERT_PTR_EQUAL(*reals[k].out, ref);
	}
	CU_ASSERT_EQUAL(left, unsettled);
	/* the unknown name and version, and a few IFUNCs at most */
	CU_ASSERT_PTR_NULL(*reals[N - 3].out);
	CU_ASSERT_PTR_NULL(*reals[N - 1].out);
	CU_ASSERT(ifuncs <= 8);
	CU_ASSERT(unsettled - ifuncs == 2);
}

/* pthread_cond_wait has two versions: the default, and GLIBC_2.3.2 */
static void test_versions(void)
{
	void *dflt = NULL, *old = NULL;
	const struct sym_want w[] = {
		{ "pthread_cond_wait", NULL, &dflt },
		{ "pthread_cond_wait", "GLIBC_2.3.2", &old },
	};

	CU_ASSERT_EQUAL(sym_find_after(self_map(), w, 2), 0);
	CU_ASSERT_PTR_EQUAL(dflt, dlsym(RTLD_NEXT, "pthread_cond_wait"));
	CU_ASSERT_PTR_EQUAL(old, dlvsym(RTLD_NEXT, "pthread_cond_wait", "GLIBC_2.3.2"));
}

int main(void)
{
	static const struct unit_test t[] = {
		{ "every real function as the loader finds it", test_as_the_loader },
		{ "a default version and an older one", test_versions },
	};
	return unit_main("symfind", t, sizeof(t) / sizeof(t[0]));
}
