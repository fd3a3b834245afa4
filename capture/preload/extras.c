/*
 * What else a call record brings (rec_extras): its call site
 * (--callsites, callsites.c), the profiler's snapshot (--profile,
 * sampler.c).
 */
#include "preload.h"

void rec_extra(struct tstate *t, int call, uint64_t t0, uint64_t t1)
{
	if (rec_extras & EXTRA_SITES)
		site_put(t);
	if (rec_extras & EXTRA_PROFILE)
		prof_call(t, t0, t1);
}

