/* busy N SECS: N threads, each computing until it has used SECS seconds
 * of its own CPU time (no calls in between); the main thread joins them.
 * With more threads than cores the threads' wall time outside calls is
 * longer than their CPU time: the utilization report must use the latter. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double secs;

static double thread_cpu(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static void *burn(void *arg)
{
	volatile unsigned long v = 0;

	while (thread_cpu() < secs)
		for (int i = 0; i < 10000; i++)
			v += i;
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: busy NTHREADS CPUSECONDS\n");
		return 2;
	}
	int n = atoi(argv[1]);
	pthread_t *t = calloc(n, sizeof(*t));

	secs = atof(argv[2]);
	if (!t || n < 1 || secs <= 0)
		return 2;
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, burn, NULL))
			return 1;
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	free(t);
	return 0;
}
