/*
 * island.h — mark nested regions of a program for island-capture, and
 * switch its profiler on and off.
 *
 *	island_begin("first loop");
 *	...
 *	island_end("first loop");
 *
 * Regions nest per thread; each gets an id, its parent and depth in the
 * trace. An island_end that does not name the innermost open region is
 * recorded as an error and reported on stderr; it never aborts.
 *
 * Without the capture, a program using this header runs unchanged and
 * links nothing extra: the functions below are weak references, null
 * unless the capture's interposer is loaded, so a mark costs one test.
 */
#ifndef ISLAND_H
#define ISLAND_H

#ifdef __cplusplus
extern "C" {
#endif

void island_region_begin(const char *label) __attribute__((weak));
void island_region_end(const char *label) __attribute__((weak));
void island_profile_switch(int on) __attribute__((weak));

static inline void island_begin(const char *label)
{
	if (island_region_begin)
		island_region_begin(label);
}

static inline void island_end(const char *label)
{
	if (island_region_end)
		island_region_end(label);
}

/*
 * island_profile(0) / island_profile(1): switch the sampling profiler
 * (island-capture --profile) off and on, from the program itself, e.g.
 * around the code to profile with --profile-start off. Without the
 * capture, or without --profile, it does nothing.
 */
static inline void island_profile(int on)
{
	if (island_profile_switch)
		island_profile_switch(on);
}

#ifdef __cplusplus
}
#endif

#endif
