/* sleepspin N: N times, spin 100 us of CPU then nanosleep 20 us; prints
 * how many of the sleeps ended with EINTR (no signal of its own comes:
 * a profiler's must not end them, capture-profile.sh). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long long cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000, eintr = 0;

	for (int i = 0; i < n; i++) {
		long long end = cpu_ns() + 100000;
		volatile unsigned x = 0;

		while (cpu_ns() < end)
			x++;
		struct timespec ts = { 0, 20000 };
		if (nanosleep(&ts, NULL) && errno == EINTR)
			eintr++;
	}
	printf("eintr %d\n", eintr);
	return 0;
}
