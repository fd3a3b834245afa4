/* The profiler tests' CPU burner: MS milliseconds of the calling thread's
 * own CPU time, inlined into the named function that calls it, so that
 * the stacks show that function. The clock is read seldom: the time is
 * the loop's, not the kernel's. */
#ifndef CPUBURN_H
#define CPUBURN_H

#include <time.h>

static double cpuburn_sink;

static inline long long cpu_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static inline __attribute__((always_inline)) void cpuburn(int ms)
{
	long long end = cpu_ns() + ms * 1000000LL;
	double x = 1;

	while (cpu_ns() < end)
		for (int i = 0; i < 200000; i++)
			x = x * 1.0000001 + 1e-9;
	cpuburn_sink += x;
}

#endif
