/* spawnorder N: the main thread makes N threads back to back; thread i
 * (the i-th pthread_create, from 0) writes i + 1 bytes to /dev/null
 * once. Which thread a pthread_create made is told by what it writes,
 * whichever of them starts first. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int fd;

static void *run(void *arg)
{
	static char buf[4096];
	long i = (long)arg;

	if (write(fd, buf, (size_t)i + 1) != i + 1)
		exit(1);
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc == 2 ? atol(argv[1]) : 0;
	pthread_t th[1024];

	if (n < 1 || n > 1024) {
		fprintf(stderr, "usage: spawnorder N (1..1024)\n");
		return 2;
	}
	if ((fd = open("/dev/null", O_WRONLY)) < 0)
		return 1;
	for (long i = 0; i < n; i++)
		if (pthread_create(&th[i], NULL, run, (void *)i))
			return 1;
	for (long i = 0; i < n; i++)
		if (pthread_join(th[i], NULL))
			return 1;
	return 0;
}
