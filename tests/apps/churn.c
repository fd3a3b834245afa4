/* churn N [BATCH]: N threads in all, BATCH (1) at a time, each made,
 * writing one byte to /dev/null and joined, as a server that starts a
 * thread a request does. Prints how many it made and its peak resident
 * memory (the capture's spool pages its threads touched count). */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

static int fd;

static void *run(void *arg)
{
	(void)arg;
	if (write(fd, "x", 1) != 1)
		exit(1);
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 0, batch = argc > 2 ? atol(argv[2]) : 1;
	pthread_t th[64];

	if (n < 1 || batch < 1 || batch > 64) {
		fprintf(stderr, "usage: churn N [BATCH (1..64)]\n");
		return 2;
	}
	if ((fd = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0)
		return 1;
	for (long i = 0; i < n; i += batch) {
		long k = n - i < batch ? n - i : batch;

		for (long j = 0; j < k; j++)
			if (pthread_create(&th[j], NULL, run, NULL))
				return 1;
		for (long j = 0; j < k; j++)
			pthread_join(th[j], NULL);
	}
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("%ld threads\npeak rss: %ld KB\n", n, ru.ru_maxrss);
	return 0;
}
