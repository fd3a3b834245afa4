/* The other end of include/island.h: regions the application marks. */
#include "preload.h"

static void region_mark(int kind, const char *label)
{
	struct tstate *t = &ts;

	if (!enter_top(t))
		return;
	uint64_t t0 = now();
	put_str(t, kind, t0, t0, 0, -1, 0, 0, 0, label ? label : "", NULL);
	leave(t);
}

EXPORT void island_region_begin(const char *label)
{
	int e = errno;
	region_mark(REC_REGION_BEGIN, label);
	errno = e;
}

EXPORT void island_region_end(const char *label)
{
	int e = errno;
	region_mark(REC_REGION_END, label);
	errno = e;
}
